/*
 * FreeRTOS trace macros -> tracewire emitters. Include at the end of
 * FreeRTOSConfig.h, with configUSE_TRACE_FACILITY 1 (it gives tasks and
 * queues the uxTaskNumber / uxQueueNumber / ucQueueType fields used here).
 * docs/porting-freertos.md has the mapping table and the choices.
 *
 * Numbers: tracewire numbers objects itself. traceTASK_CREATE and
 * traceQUEUE_CREATE / traceCREATE_MUTEX / traceCREATE_COUNTING_SEMAPHORE
 * store a fresh number in the object's trace number field; tasks register
 * their name and priority at creation, queues, mutexes and semaphores when
 * added to the queue registry (vQueueAddToRegistry).
 *
 * FreeRTOS implements mutexes and semaphores as queues: the queue hooks are
 * mapped by ucQueueType (mutex -> MutexEvent, semaphore -> SemEvent /
 * SemEventTask, plain queue -> EventEvent / EventEventTask).
 *
 * Any macro can be overridden by defining it before this header.
 */
#ifndef TRACEWIRE_HOOKS_FREERTOS_TRACE_H
#define TRACEWIRE_HOOKS_FREERTOS_TRACE_H

#ifndef __ASSEMBLER__
#include "tracewire/trace.h"

/* Last numbers handed out; defined in the one .c file that defines
 * TW_FREERTOS_DEFINE_COUNTERS (see the end of this header). Creation runs
 * in thread context inside the kernel's critical section. */
extern uint16_t tw_freertos_next_task, tw_freertos_next_queue;

#ifndef TW_FREERTOS_CUR_TASK
#define TW_FREERTOS_CUR_TASK() ((uint16_t)uxTaskGetTaskNumber(xTaskGetCurrentTaskHandle()))
#endif
#ifndef TW_FREERTOS_QNUM
#define TW_FREERTOS_QNUM(q) ((uint16_t)(q)->uxQueueNumber)
#endif
#define TW__FR_IS_MUTEX(q) \
  ((q)->ucQueueType == queueQUEUE_TYPE_MUTEX || (q)->ucQueueType == queueQUEUE_TYPE_RECURSIVE_MUTEX)
#define TW__FR_IS_SEM(q) \
  ((q)->ucQueueType == queueQUEUE_TYPE_COUNTING_SEMAPHORE || (q)->ucQueueType == queueQUEUE_TYPE_BINARY_SEMAPHORE)
#define TW__FR_KIND(q) \
  (TW__FR_IS_MUTEX(q) ? TW_OBJ_MUTEX : TW__FR_IS_SEM(q) ? TW_OBJ_SEM : TW_OBJ_EVENT)

/* ---- tasks ---- */
#undef traceTASK_SWITCHED_IN
#define traceTASK_SWITCHED_IN() tw_task_switch((uint16_t)pxCurrentTCB->uxTaskNumber)

#undef traceTASK_CREATE
#define traceTASK_CREATE(pxNewTCB)                                                  \
  do {                                                                              \
    (pxNewTCB)->uxTaskNumber = ++tw_freertos_next_task;                             \
    (void)tw_name_register(TW_OBJ_TASK, (uint16_t)(pxNewTCB)->uxTaskNumber,         \
                           (pxNewTCB)->pcTaskName, (uint8_t)(pxNewTCB)->uxPriority); \
  } while (0)

/* ---- queues, mutexes, semaphores ---- */
#define TW__FR_NUMBER(q) ((q)->uxQueueNumber = ++tw_freertos_next_queue)
#undef traceQUEUE_CREATE
#define traceQUEUE_CREATE(pxNewQueue) TW__FR_NUMBER(pxNewQueue)
#undef traceCREATE_MUTEX
#define traceCREATE_MUTEX(pxNewQueue) TW__FR_NUMBER(pxNewQueue)

#undef traceQUEUE_REGISTRY_ADD
#define traceQUEUE_REGISTRY_ADD(xQueue, pcQueueName)                                \
  (void)tw_name_register(TW__FR_KIND((Queue_t *)(xQueue)),                          \
                         TW_FREERTOS_QNUM((Queue_t *)(xQueue)), (pcQueueName), 0)

/* A successful receive: a take of a mutex or semaphore. */
#undef traceQUEUE_RECEIVE
#define traceQUEUE_RECEIVE(pxQueue)                                                 \
  do {                                                                              \
    if (TW__FR_IS_MUTEX(pxQueue))                                                   \
      tw_mutex(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxQueue), TW_MUTEX_Lock);   \
    else if (TW__FR_IS_SEM(pxQueue))                                                \
      tw_sem_task(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxQueue), TW_SEM_TASK_Take); \
    else                                                                            \
      tw_event_task(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxQueue), TW_EVENT_TASK_Consume); \
  } while (0)

/* A successful send: a give of a mutex or semaphore. */
#undef traceQUEUE_SEND
#define traceQUEUE_SEND(pxQueue)                                                    \
  do {                                                                              \
    if (TW__FR_IS_MUTEX(pxQueue))                                                   \
      tw_mutex(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxQueue), TW_MUTEX_Unlock); \
    else if (TW__FR_IS_SEM(pxQueue))                                                \
      tw_sem(TW_FREERTOS_QNUM(pxQueue), TW_SEM_Give);                               \
    else                                                                            \
      tw_event(TW_FREERTOS_QNUM(pxQueue), TW_EVENT_Trigger);                        \
  } while (0)

/* xQueueSendFromISR and xSemaphoreGiveFromISR (xQueueGiveFromISR) both
 * call this hook: a give or a trigger by an interrupt. */
#undef traceQUEUE_SEND_FROM_ISR
#define traceQUEUE_SEND_FROM_ISR(pxQueue)                                           \
  do {                                                                              \
    if (TW__FR_IS_SEM(pxQueue))                                                     \
      tw_sem(TW_FREERTOS_QNUM(pxQueue), TW_SEM_Give);                               \
    else                                                                            \
      tw_event(TW_FREERTOS_QNUM(pxQueue), TW_EVENT_Trigger);                        \
  } while (0)

#undef traceBLOCKING_ON_QUEUE_RECEIVE
#define traceBLOCKING_ON_QUEUE_RECEIVE(pxQueue)                                     \
  do {                                                                              \
    if (TW__FR_IS_MUTEX(pxQueue))                                                   \
      tw_mutex(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxQueue), TW_MUTEX_Block);  \
    else if (TW__FR_IS_SEM(pxQueue))                                                \
      tw_sem_task(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxQueue), TW_SEM_TASK_Block); \
    else                                                                            \
      tw_event_task(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxQueue), TW_EVENT_TASK_Block); \
  } while (0)

#undef traceBLOCKING_ON_QUEUE_SEND
#define traceBLOCKING_ON_QUEUE_SEND(pxQueue)                                        \
  tw_event_task(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxQueue), TW_EVENT_TASK_Block)

/* A recursive take by the holder only increments the lock count. */
#undef traceTAKE_MUTEX_RECURSIVE
#define traceTAKE_MUTEX_RECURSIVE(pxMutex)                                          \
  do {                                                                              \
    if ((pxMutex)->u.xSemaphore.xMutexHolder == xTaskGetCurrentTaskHandle())        \
      tw_mutex(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxMutex), TW_MUTEX_IncLock); \
  } while (0)
/* A recursive give that keeps the mutex (count still above one). */
#undef traceGIVE_MUTEX_RECURSIVE
#define traceGIVE_MUTEX_RECURSIVE(pxMutex)                                          \
  do {                                                                              \
    if ((pxMutex)->u.xSemaphore.uxRecursiveCallCount > 1)                           \
      tw_mutex(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxMutex), TW_MUTEX_DecLock); \
  } while (0)

/* Names some kernels and wrappers call directly (upstream FreeRTOS routes
 * these operations through the queue hooks above). */
#ifndef traceTAKE_MUTEX
#define traceTAKE_MUTEX(pxMutex) \
  tw_mutex(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxMutex), TW_MUTEX_Lock)
#endif
#ifndef traceGIVE_MUTEX
#define traceGIVE_MUTEX(pxMutex) \
  tw_mutex(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxMutex), TW_MUTEX_Unlock)
#endif
#ifndef traceTAKE_SEMAPHORE
#define traceTAKE_SEMAPHORE(pxSem) \
  tw_sem_task(TW_FREERTOS_CUR_TASK(), TW_FREERTOS_QNUM(pxSem), TW_SEM_TASK_Take)
#endif
#ifndef traceGIVE_FROM_ISR
#define traceGIVE_FROM_ISR(pxSem) tw_sem(TW_FREERTOS_QNUM(pxSem), TW_SEM_Give)
#endif

/* Interrupts: FreeRTOS has no ISR hooks; call these at ISR entry/exit. */
#define TW_FREERTOS_ISR_ENTER() tw_task_switch(TW_TASK_SWITCH_EnterInt)
#define TW_FREERTOS_ISR_EXIT() tw_task_switch(TW_TASK_SWITCH_LeaveInt)

/* In exactly one .c file of the application:
 *   #define TW_FREERTOS_DEFINE_COUNTERS
 *   #include "FreeRTOS.h"   (which includes this header) */
#ifdef TW_FREERTOS_DEFINE_COUNTERS
uint16_t tw_freertos_next_task, tw_freertos_next_queue;
#endif

#endif /* __ASSEMBLER__ */
#endif
