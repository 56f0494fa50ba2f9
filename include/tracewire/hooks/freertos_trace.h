/*
 * FreeRTOS trace macros -> tracewire events. Include at the END of
 * FreeRTOSConfig.h, with configUSE_TRACE_FACILITY 1 (it gives tasks,
 * queues, event groups, timers and stream buffers the number fields used
 * here, and queues their ucQueueType). docs/porting-freertos.md has the
 * table of every FreeRTOS trace macro, the event it becomes or why not.
 *
 * Overrides: every macro is defined only if it is not defined yet, so a
 * macro the application defines before this header (or earlier in
 * FreeRTOSConfig.h) is kept.
 *
 * Numbers: tracewire numbers objects itself, per kind (tasks; queues,
 * semaphores and mutexes together; event groups; timers; stream buffers),
 * 1, 2, ... in creation order, stored in the object's trace number field.
 * Numbers never reach TW_TASK_SWITCH_EnterInt (0xFFFE, 0xFFFF name
 * interrupt entry and exit): after 0xFFFD objects of a kind, numbering
 * restarts at 1 (a number then names the newest object created with it;
 * the OBJECT Create event and the NAME record say when). Names: tasks and
 * timers at creation, queues, semaphores and mutexes when added to the
 * queue registry (vQueueAddToRegistry).
 *
 * Queues, semaphores and mutexes are one kernel object told apart by
 * ucQueueType: mutexes (plain and recursive) -> MutexEvent (seed 002) and
 * MUTEX_EXT; binary and counting semaphores -> SemEvent / SemEventTask and
 * SEM_EXT; message queues and queue sets -> QUEUE.
 *
 * Context: the hooks run where FreeRTOS calls them: inside the kernel, in
 * critical sections, in the tick interrupt. They only record (the logger
 * put is lock-free and never blocks) and keep a little per-core state
 * (struct tw_freertos_core): the running task's number, interrupt nesting,
 * the time low-power idle began. SMP (configNUMBER_OF_CORES > 1): state
 * per core by portGET_CORE_ID(); events go to the logger of the core they
 * happen on (tracewire/freertos.h, TW_CFG_CORES).
 *
 * Build switches (define before this header):
 *   TW_FREERTOS_TICKS      1: every tick interrupt is a SCHED Tick event
 *                          (default 0: one event per tick per core is
 *                          usually more than the rest of the trace)
 *   TW_FREERTOS_DEADLINES  0: no TASK Deadline event when a task blocks
 *                          with a timeout (default 1)
 */
#ifndef TRACEWIRE_HOOKS_FREERTOS_TRACE_H
#define TRACEWIRE_HOOKS_FREERTOS_TRACE_H

#ifndef __ASSEMBLER__
#include <stdint.h>
#include "tracewire/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TW_FREERTOS_TICKS
#define TW_FREERTOS_TICKS 0
#endif
#ifndef TW_FREERTOS_DEADLINES
#define TW_FREERTOS_DEADLINES 1
#endif
/* Size of the per-core state; configNUMBER_OF_CORES must be defined
 * before this header for SMP (it is, at the end of FreeRTOSConfig.h). */
#ifndef TW_FREERTOS_CORES
#if defined(configNUMBER_OF_CORES)
#define TW_FREERTOS_CORES configNUMBER_OF_CORES
#else
#define TW_FREERTOS_CORES 1
#endif
#endif

/* What the hooks remember per core. Written by hooks on that core only,
 * with the kernel's interrupts masked; read by the glue's wake path. */
struct tw_freertos_core {
  uint16_t task;       /* number of the task running here (0 before the first switch) */
  uint8_t isr_depth;   /* traceISR_ENTER nesting */
  uint8_t in_switch;   /* 1 while the scheduler's switch hook records */
  uint32_t sleep_ts;   /* when low-power idle began */
};

/* The last number handed out, per kind. Creation runs in a critical
 * section, so one writer at a time. */
struct tw_freertos_numbers {
  uint16_t task, queue, egroup, timer, sbuf;
};

/* Defined once: in src/port/freertos/tw_freertos.c, or in the one file of
 * an application that defines TW_FREERTOS_DEFINE_COUNTERS before it
 * includes FreeRTOS.h (and does not link that glue). */
extern struct tw_freertos_core tw_freertos_cores[TW_FREERTOS_CORES];
extern struct tw_freertos_numbers tw_freertos_numbers;

/* The next number of a kind: 1..TW_TASK_SWITCH_EnterInt-1, then 1 again. */
static inline uint16_t tw__fr_next(uint16_t *last)
{
  uint16_t n = (uint16_t)(*last + 1u);
  if (n == 0 || n >= (uint16_t)TW_TASK_SWITCH_EnterInt)
    n = 1;
  *last = n;
  return n;
}

/* Macros expand where FreeRTOS calls the hook, where portGET_CORE_ID(),
 * the queue types and the kernel's private structures are known; the
 * inline helpers below take what they need as arguments, because this
 * header is read (from FreeRTOSConfig.h) before any of those exist. */
#define TW__FR_HERE() (&tw_freertos_cores[portGET_CORE_ID()])
/* The task the event is about when the kernel does not say: the one
 * running on this core, or EnterInt inside an interrupt. */
static inline uint16_t tw__fr_cur(const struct tw_freertos_core *c)
{
  return c->isr_depth ? (uint16_t)TW_TASK_SWITCH_EnterInt : c->task;
}
#define TW__FR_CUR() tw__fr_cur(TW__FR_HERE())
#define TW__FR_TNUM(tcb) ((uint16_t)(tcb)->uxTaskNumber)
#define TW__FR_QNUM(q) ((uint16_t)((Queue_t *)(q))->uxQueueNumber)

/* ---- tasks ------------------------------------------------------------------ */

static inline void tw__fr_switched_in(struct tw_freertos_core *c, uint16_t task)
{
  c->task = task;
  c->in_switch = 1; /* the collector is not woken from inside the scheduler */
  tw_task_switch(task);
  c->in_switch = 0;
}

#ifndef traceTASK_SWITCHED_IN
#define traceTASK_SWITCHED_IN() tw__fr_switched_in(TW__FR_HERE(), TW__FR_TNUM(pxCurrentTCB))
#endif
/* traceTASK_SWITCHED_OUT: no event; the next TaskSwitch on the core says
 * who runs, the event that blocked, suspended or deleted the outgoing task
 * says why it stopped (none: it was preempted and is still ready). */

#ifndef traceTASK_CREATE
#define traceTASK_CREATE(pxNewTCB)                                                   \
  do {                                                                               \
    (pxNewTCB)->uxTaskNumber = tw__fr_next(&tw_freertos_numbers.task);               \
    tw__fr_created(TW_OBJ_TASK, TW__FR_TNUM(pxNewTCB), (pxNewTCB)->pcTaskName,       \
                   (uint8_t)(pxNewTCB)->uxPriority, 0, 0, (uint32_t)(pxNewTCB)->uxPriority); \
  } while (0)
#endif
#ifndef traceTASK_CREATE_FAILED
#define traceTASK_CREATE_FAILED() tw__fr_create_failed(TW_OBJ_TASK, 0)
#endif
#ifndef traceTASK_DELETE
#define traceTASK_DELETE(pxTCB) tw_object(TW__FR_TNUM(pxTCB), TW_OBJ_TASK, TW_OBJECT_Delete, 0, 0, 0)
#endif

#define TW__FR_TASK(tcb, type, arg) tw_task(TW__FR_TNUM(tcb), (type), (uint32_t)(arg))
#ifndef traceMOVED_TASK_TO_READY_STATE
#define traceMOVED_TASK_TO_READY_STATE(pxTCB) TW__FR_TASK(pxTCB, TW_TASK_Ready, 0)
#endif
/* tracePOST_MOVED_TASK_TO_READY_STATE: no event (the same moment as
 * traceMOVED_TASK_TO_READY_STATE, after the list insert). */
#ifndef traceTASK_DELAY
#define traceTASK_DELAY() TW__FR_TASK(pxCurrentTCB, TW_TASK_Delay, xTicksToDelay)
#endif
#ifndef traceTASK_DELAY_UNTIL
#define traceTASK_DELAY_UNTIL(xTimeToWake) TW__FR_TASK(pxCurrentTCB, TW_TASK_DelayUntil, xTimeToWake)
#endif
#ifndef traceTASK_SUSPEND
#define traceTASK_SUSPEND(pxTaskToSuspend) TW__FR_TASK(pxTaskToSuspend, TW_TASK_Suspend, 0)
#endif
#ifndef traceTASK_RESUME
#define traceTASK_RESUME(pxTaskToResume) TW__FR_TASK(pxTaskToResume, TW_TASK_Resume, 0)
#endif
#ifndef traceTASK_RESUME_FROM_ISR
#define traceTASK_RESUME_FROM_ISR(pxTaskToResume) TW__FR_TASK(pxTaskToResume, TW_TASK_ResumeFromISR, 0)
#endif
#ifndef traceTASK_PRIORITY_SET
#define traceTASK_PRIORITY_SET(pxTask, uxNewPriority) TW__FR_TASK(pxTask, TW_TASK_PrioritySet, uxNewPriority)
#endif
#ifndef traceTASK_PRIORITY_INHERIT
#define traceTASK_PRIORITY_INHERIT(pxTCBOfMutexHolder, uxInheritedPriority) \
  TW__FR_TASK(pxTCBOfMutexHolder, TW_TASK_PriorityInherit, uxInheritedPriority)
#endif
#ifndef traceTASK_PRIORITY_DISINHERIT
#define traceTASK_PRIORITY_DISINHERIT(pxTCBOfMutexHolder, uxOriginalPriority) \
  TW__FR_TASK(pxTCBOfMutexHolder, TW_TASK_PriorityDisinherit, uxOriginalPriority)
#endif
/* Both called by prvAddCurrentTaskToDelayedList, with xTimeToWake set. */
#if TW_FREERTOS_DEADLINES
#ifndef traceMOVED_TASK_TO_DELAYED_LIST
#define traceMOVED_TASK_TO_DELAYED_LIST() TW__FR_TASK(pxCurrentTCB, TW_TASK_Deadline, xTimeToWake)
#endif
#ifndef traceMOVED_TASK_TO_OVERFLOW_DELAYED_LIST
#define traceMOVED_TASK_TO_OVERFLOW_DELAYED_LIST() TW__FR_TASK(pxCurrentTCB, TW_TASK_Deadline, xTimeToWake)
#endif
#endif

/* ---- scheduler, tick, interrupts, low-power idle ------------------------------- */

#ifndef traceSTARTING_SCHEDULER
#define traceSTARTING_SCHEDULER(xIdleTaskHandles) \
  tw_sched(TW_SCHED_Start, (uint32_t)configNUMBER_OF_CORES)
#endif
#if TW_FREERTOS_TICKS
#ifndef traceTASK_INCREMENT_TICK
#define traceTASK_INCREMENT_TICK(xTickCount) tw_sched(TW_SCHED_Tick, (uint32_t)(xTickCount))
#endif
#endif
#ifndef traceINCREASE_TICK_COUNT
#define traceINCREASE_TICK_COUNT(x) tw_sched(TW_SCHED_TickJump, (uint32_t)(x))
#endif

static inline void tw__fr_isr_enter(struct tw_freertos_core *c)
{
  c->isr_depth++;
  tw_task_switch(TW_TASK_SWITCH_EnterInt);
}

static inline void tw__fr_isr_exit(struct tw_freertos_core *c)
{
  tw_task_switch(TW_TASK_SWITCH_LeaveInt);
  if (c->isr_depth) /* an exit without an enter (an ISR that calls
                       portYIELD_FROM_ISR but not traceISR_ENTER) */
    c->isr_depth--;
}

/* Ports call ENTER in their tick handler; portYIELD_FROM_ISR and
 * portEND_SWITCHING_ISR call one of the EXITs. Application interrupt
 * handlers call traceISR_ENTER() first (docs/porting-freertos.md). */
#ifndef traceISR_ENTER
#define traceISR_ENTER() tw__fr_isr_enter(TW__FR_HERE())
#endif
#ifndef traceISR_EXIT
#define traceISR_EXIT() tw__fr_isr_exit(TW__FR_HERE())
#endif
#ifndef traceISR_EXIT_TO_SCHEDULER
#define traceISR_EXIT_TO_SCHEDULER() tw__fr_isr_exit(TW__FR_HERE())
#endif
/* The older names of this header. */
#define TW_FREERTOS_ISR_ENTER() tw__fr_isr_enter(TW__FR_HERE())
#define TW_FREERTOS_ISR_EXIT() tw__fr_isr_exit(TW__FR_HERE())

/* Low-power idle: one SLEEP event (seed 004) from begin to end. */
#ifndef traceLOW_POWER_IDLE_BEGIN
#define traceLOW_POWER_IDLE_BEGIN() (TW__FR_HERE()->sleep_ts = tw_trace_now())
#endif
#ifndef traceLOW_POWER_IDLE_END
#define traceLOW_POWER_IDLE_END() tw_sleep_at(TW__FR_HERE()->sleep_ts, tw_trace_now(), 0)
#endif

/* ---- object life ----------------------------------------------------------------- */

/* A created object: its NAME record (when it has a name) is registered
 * first, so the streamer sends it before the Create event. A full name
 * table is counted by tw_name_register and reported in the trace. */
static inline void tw__fr_created(enum tw_obj_kind kind, uint16_t number, const char *name,
                                  uint8_t prio, uint8_t variant, uint16_t arg2, uint32_t arg)
{
  if (name && *name)
    (void)tw_name_register(kind, number, name, prio);
  tw_object(number, (uint8_t)kind, TW_OBJECT_Create, variant, arg2, arg);
}

static inline void tw__fr_create_failed(enum tw_obj_kind kind, uint8_t variant)
{
  tw_object(0, (uint8_t)kind, TW_OBJECT_CreateFailed, variant, 0, 0);
}

/* The object kind of a queue-family object, by its queue type. */
#define TW__FR_QKIND(t)                                                                 \
  ((t) == queueQUEUE_TYPE_MUTEX || (t) == queueQUEUE_TYPE_RECURSIVE_MUTEX ? TW_OBJ_MUTEX \
   : (t) == queueQUEUE_TYPE_COUNTING_SEMAPHORE || (t) == queueQUEUE_TYPE_BINARY_SEMAPHORE \
       ? TW_OBJ_SEM                                                                     \
       : TW_OBJ_QUEUE)

/* Every queue-family object passes traceQUEUE_CREATE. A binary semaphore
 * (it starts empty, at most 1) and a queue are complete there; a counting
 * semaphore's initial count and a mutex's nature are set after it, so
 * those two say Create in their own hooks. */
static inline void tw__fr_queue_created(enum tw_obj_kind kind, int counting, uint8_t type,
                                        uint16_t q, uint32_t length, uint32_t item)
{
  if (kind == TW_OBJ_SEM && !counting)
    tw__fr_created(TW_OBJ_SEM, q, 0, 0, type, 0, 1);
  else if (kind == TW_OBJ_QUEUE)
    tw__fr_created(TW_OBJ_QUEUE, q, 0, 0, type, (uint16_t)item, length);
}

#ifndef traceQUEUE_CREATE
#define traceQUEUE_CREATE(pxNewQueue)                                                 \
  do {                                                                                \
    (pxNewQueue)->uxQueueNumber = tw__fr_next(&tw_freertos_numbers.queue);            \
    tw__fr_queue_created(TW__FR_QKIND((pxNewQueue)->ucQueueType),                      \
                         (pxNewQueue)->ucQueueType == queueQUEUE_TYPE_COUNTING_SEMAPHORE, \
                         (pxNewQueue)->ucQueueType, TW__FR_QNUM(pxNewQueue),            \
                         (uint32_t)(pxNewQueue)->uxLength, (uint32_t)(pxNewQueue)->uxItemSize); \
  } while (0)
#endif
/* A mutex's and a counting semaphore's failure is reported by their own
 * hooks (traceCREATE_MUTEX_FAILED, traceCREATE_COUNTING_SEMAPHORE_FAILED),
 * which FreeRTOS calls after this one: one event per failure. */
static inline void tw__fr_queue_create_failed(enum tw_obj_kind kind, int counting, uint8_t type)
{
  if (kind == TW_OBJ_QUEUE || (kind == TW_OBJ_SEM && !counting))
    tw__fr_create_failed(kind, type);
}
#ifndef traceQUEUE_CREATE_FAILED
#define traceQUEUE_CREATE_FAILED(ucQueueType)                                            \
  tw__fr_queue_create_failed(TW__FR_QKIND(ucQueueType),                                 \
                             (ucQueueType) == queueQUEUE_TYPE_COUNTING_SEMAPHORE, (uint8_t)(ucQueueType))
#endif
#ifndef traceCREATE_MUTEX
#define traceCREATE_MUTEX(pxNewQueue) \
  tw__fr_created(TW_OBJ_MUTEX, TW__FR_QNUM(pxNewQueue), 0, 0, (pxNewQueue)->ucQueueType, 0, 1)
#endif
#ifndef traceCREATE_MUTEX_FAILED
#define traceCREATE_MUTEX_FAILED() tw__fr_create_failed(TW_OBJ_MUTEX, queueQUEUE_TYPE_MUTEX)
#endif
/* xQueueCreateCounting*: the handle is the local xHandle, its initial
 * count already in uxMessagesWaiting. */
#ifndef traceCREATE_COUNTING_SEMAPHORE
#define traceCREATE_COUNTING_SEMAPHORE()                                              \
  tw__fr_created(TW_OBJ_SEM, TW__FR_QNUM(xHandle), 0, 0, queueQUEUE_TYPE_COUNTING_SEMAPHORE, \
                 (uint16_t)((Queue_t *)xHandle)->uxMessagesWaiting,                   \
                 (uint32_t)((Queue_t *)xHandle)->uxLength)
#endif
#ifndef traceCREATE_COUNTING_SEMAPHORE_FAILED
#define traceCREATE_COUNTING_SEMAPHORE_FAILED() \
  tw__fr_create_failed(TW_OBJ_SEM, queueQUEUE_TYPE_COUNTING_SEMAPHORE)
#endif
#ifndef traceQUEUE_DELETE
#define traceQUEUE_DELETE(pxQueue) \
  tw_object(TW__FR_QNUM(pxQueue), (uint8_t)TW__FR_QKIND((pxQueue)->ucQueueType), TW_OBJECT_Delete, 0, 0, 0)
#endif
#ifndef traceQUEUE_REGISTRY_ADD
#define traceQUEUE_REGISTRY_ADD(xQueue, pcQueueName)                                  \
  (void)tw_name_register(TW__FR_QKIND(((Queue_t *)(xQueue))->ucQueueType), TW__FR_QNUM(xQueue), \
                         (pcQueueName), 0)
#endif

/* ---- queue, semaphore and mutex operations ------------------------------------- */

/* The queue hooks, in the order of the QUEUE event's types: a queue
 * operation's code is its QUEUE type. */
enum tw__fr_qop {
  TW__FR_SEND = TW_QUEUE_Send, TW__FR_SEND_ISR = TW_QUEUE_SendFromISR,
  TW__FR_RECV = TW_QUEUE_Receive, TW__FR_RECV_ISR = TW_QUEUE_ReceiveFromISR,
  TW__FR_PEEK = TW_QUEUE_Peek, TW__FR_PEEK_ISR = TW_QUEUE_PeekFromISR,
  TW__FR_BLOCK_SEND = TW_QUEUE_BlockSend, TW__FR_BLOCK_RECV = TW_QUEUE_BlockReceive,
  TW__FR_BLOCK_PEEK = TW_QUEUE_BlockPeek, TW__FR_SEND_FAIL = TW_QUEUE_SendFailed,
  TW__FR_SEND_ISR_FAIL = TW_QUEUE_SendFromISRFailed, TW__FR_RECV_FAIL = TW_QUEUE_ReceiveFailed,
  TW__FR_RECV_ISR_FAIL = TW_QUEUE_ReceiveFromISRFailed, TW__FR_PEEK_FAIL = TW_QUEUE_PeekFailed,
  TW__FR_PEEK_ISR_FAIL = TW_QUEUE_PeekFromISRFailed
};

/* A semaphore: the seed's events where the seed has the operation. */
static inline void tw__fr_sem_op(uint16_t t, uint16_t s, enum tw__fr_qop op)
{
  switch (op) {
  case TW__FR_SEND: case TW__FR_SEND_ISR: tw_sem(s, TW_SEM_Give); break;
  case TW__FR_RECV: tw_sem_task(t, s, TW_SEM_TASK_Take); break;
  case TW__FR_BLOCK_RECV: tw_sem_task(t, s, TW_SEM_TASK_Block); break;
  case TW__FR_RECV_ISR: tw_sem_ext(t, s, TW_SEM_EXT_TakeFromISR); break;
  case TW__FR_PEEK: case TW__FR_PEEK_ISR: tw_sem_ext(t, s, TW_SEM_EXT_Peek); break;
  case TW__FR_BLOCK_SEND: tw_sem_ext(t, s, TW_SEM_EXT_BlockGive); break;
  case TW__FR_BLOCK_PEEK: tw_sem_ext(t, s, TW_SEM_EXT_BlockPeek); break;
  case TW__FR_SEND_FAIL: tw_sem_ext(t, s, TW_SEM_EXT_GiveFailed); break;
  case TW__FR_SEND_ISR_FAIL: tw_sem_ext(t, s, TW_SEM_EXT_GiveFromISRFailed); break;
  case TW__FR_RECV_FAIL: tw_sem_ext(t, s, TW_SEM_EXT_TakeFailed); break;
  case TW__FR_RECV_ISR_FAIL: tw_sem_ext(t, s, TW_SEM_EXT_TakeFromISRFailed); break;
  case TW__FR_PEEK_FAIL: case TW__FR_PEEK_ISR_FAIL: tw_sem_ext(t, s, TW_SEM_EXT_PeekFailed); break;
  }
}

/* A mutex. The give FreeRTOS makes when it creates a mutex has no holder:
 * no Unlock. FromISR operations on mutexes are refused by FreeRTOS. */
static inline void tw__fr_mutex_op(uint16_t t, uint16_t m, enum tw__fr_qop op, int held)
{
  switch (op) {
  case TW__FR_SEND: if (held) tw_mutex(t, m, TW_MUTEX_Unlock); break;
  case TW__FR_RECV: tw_mutex(t, m, TW_MUTEX_Lock); break;
  case TW__FR_BLOCK_RECV: tw_mutex(t, m, TW_MUTEX_Block); break;
  case TW__FR_RECV_FAIL: tw_mutex_ext(t, m, TW_MUTEX_EXT_TakeFailed); break;
  case TW__FR_SEND_FAIL: tw_mutex_ext(t, m, TW_MUTEX_EXT_GiveFailed); break;
  case TW__FR_PEEK: tw_mutex_ext(t, m, TW_MUTEX_EXT_Peek); break;
  case TW__FR_PEEK_FAIL: tw_mutex_ext(t, m, TW_MUTEX_EXT_PeekFailed); break;
  case TW__FR_BLOCK_PEEK: tw_mutex_ext(t, m, TW_MUTEX_EXT_BlockPeek); break;
  default: break;
  }
}

static inline void tw__fr_queue_op(const struct tw_freertos_core *c, enum tw_obj_kind kind,
                                   uint16_t q, uint32_t count, int held, enum tw__fr_qop op)
{
  if (kind == TW_OBJ_MUTEX)
    tw__fr_mutex_op(tw__fr_cur(c), q, op, held);
  else if (kind == TW_OBJ_SEM)
    tw__fr_sem_op(tw__fr_cur(c), q, op);
  else
    tw_queue(q, (uint8_t)op, count);
}

/* held: a mutex's holder (the union member is only read for mutexes) */
#define TW__FR_Q(pxQueue, op)                                                          \
  tw__fr_queue_op(TW__FR_HERE(), TW__FR_QKIND((pxQueue)->ucQueueType), TW__FR_QNUM(pxQueue), \
                  (uint32_t)(pxQueue)->uxMessagesWaiting,                              \
                  (pxQueue)->u.xSemaphore.xMutexHolder != NULL, (op))

#ifndef traceQUEUE_SEND
#define traceQUEUE_SEND(pxQueue) TW__FR_Q(pxQueue, TW__FR_SEND)
#endif
#ifndef traceQUEUE_SEND_FAILED
#define traceQUEUE_SEND_FAILED(pxQueue) TW__FR_Q(pxQueue, TW__FR_SEND_FAIL)
#endif
#ifndef traceQUEUE_SEND_FROM_ISR
#define traceQUEUE_SEND_FROM_ISR(pxQueue) TW__FR_Q(pxQueue, TW__FR_SEND_ISR)
#endif
#ifndef traceQUEUE_SEND_FROM_ISR_FAILED
#define traceQUEUE_SEND_FROM_ISR_FAILED(pxQueue) TW__FR_Q(pxQueue, TW__FR_SEND_ISR_FAIL)
#endif
#ifndef traceQUEUE_RECEIVE
#define traceQUEUE_RECEIVE(pxQueue) TW__FR_Q(pxQueue, TW__FR_RECV)
#endif
#ifndef traceQUEUE_RECEIVE_FAILED
#define traceQUEUE_RECEIVE_FAILED(pxQueue) TW__FR_Q(pxQueue, TW__FR_RECV_FAIL)
#endif
#ifndef traceQUEUE_RECEIVE_FROM_ISR
#define traceQUEUE_RECEIVE_FROM_ISR(pxQueue) TW__FR_Q(pxQueue, TW__FR_RECV_ISR)
#endif
#ifndef traceQUEUE_RECEIVE_FROM_ISR_FAILED
#define traceQUEUE_RECEIVE_FROM_ISR_FAILED(pxQueue) TW__FR_Q(pxQueue, TW__FR_RECV_ISR_FAIL)
#endif
#ifndef traceQUEUE_PEEK
#define traceQUEUE_PEEK(pxQueue) TW__FR_Q(pxQueue, TW__FR_PEEK)
#endif
#ifndef traceQUEUE_PEEK_FAILED
#define traceQUEUE_PEEK_FAILED(pxQueue) TW__FR_Q(pxQueue, TW__FR_PEEK_FAIL)
#endif
#ifndef traceQUEUE_PEEK_FROM_ISR
#define traceQUEUE_PEEK_FROM_ISR(pxQueue) TW__FR_Q(pxQueue, TW__FR_PEEK_ISR)
#endif
#ifndef traceQUEUE_PEEK_FROM_ISR_FAILED
#define traceQUEUE_PEEK_FROM_ISR_FAILED(pxQueue) TW__FR_Q(pxQueue, TW__FR_PEEK_ISR_FAIL)
#endif
#ifndef traceBLOCKING_ON_QUEUE_SEND
#define traceBLOCKING_ON_QUEUE_SEND(pxQueue) TW__FR_Q(pxQueue, TW__FR_BLOCK_SEND)
#endif
#ifndef traceBLOCKING_ON_QUEUE_RECEIVE
#define traceBLOCKING_ON_QUEUE_RECEIVE(pxQueue) TW__FR_Q(pxQueue, TW__FR_BLOCK_RECV)
#endif
#ifndef traceBLOCKING_ON_QUEUE_PEEK
#define traceBLOCKING_ON_QUEUE_PEEK(pxQueue) TW__FR_Q(pxQueue, TW__FR_BLOCK_PEEK)
#endif
/* A queue set's member was posted: the set (the container) gets a message. */
#ifndef traceQUEUE_SET_SEND
#define traceQUEUE_SET_SEND(pxQueueSetContainer) \
  tw_queue(TW__FR_QNUM(pxQueueSetContainer), TW_QUEUE_SetSend, (uint32_t)(pxQueueSetContainer)->uxMessagesWaiting)
#endif

/* A recursive take by the holder only counts up; a first take goes
 * through xQueueSemaphoreTake (Lock, Block or TakeFailed above). */
#ifndef traceTAKE_MUTEX_RECURSIVE
#define traceTAKE_MUTEX_RECURSIVE(pxMutex)                                             \
  do {                                                                                 \
    if ((pxMutex)->u.xSemaphore.xMutexHolder == xTaskGetCurrentTaskHandle())          \
      tw_mutex(TW__FR_CUR(), TW__FR_QNUM(pxMutex), TW_MUTEX_IncLock);                  \
  } while (0)
#endif
/* traceTAKE_MUTEX_RECURSIVE_FAILED: no event; the failed
 * xQueueSemaphoreTake under it already recorded MUTEX_EXT TakeFailed. */
/* Called before the count goes down: above 1 the holder keeps it; at 1
 * the give that follows records Unlock. */
#ifndef traceGIVE_MUTEX_RECURSIVE
#define traceGIVE_MUTEX_RECURSIVE(pxMutex)                                             \
  do {                                                                                 \
    if ((pxMutex)->u.xSemaphore.uxRecursiveCallCount > 1)                              \
      tw_mutex(TW__FR_CUR(), TW__FR_QNUM(pxMutex), TW_MUTEX_DecLock);                  \
  } while (0)
#endif
#ifndef traceGIVE_MUTEX_RECURSIVE_FAILED
#define traceGIVE_MUTEX_RECURSIVE_FAILED(pxMutex) \
  tw_mutex_ext(TW__FR_CUR(), TW__FR_QNUM(pxMutex), TW_MUTEX_EXT_GiveFailed)
#endif

/* ---- event groups ----------------------------------------------------------------- */

#define TW__FR_EGNUM(g) ((uint16_t)((EventGroup_t *)(g))->uxEventGroupNumber)
#define TW__FR_EG(g, type, bits) tw_egroup(TW__FR_EGNUM(g), (type), (uint32_t)(bits))
#ifndef traceEVENT_GROUP_CREATE
#define traceEVENT_GROUP_CREATE(xEventGroup)                                           \
  do {                                                                                 \
    ((EventGroup_t *)(xEventGroup))->uxEventGroupNumber = tw__fr_next(&tw_freertos_numbers.egroup); \
    tw__fr_created(TW_OBJ_EGROUP, TW__FR_EGNUM(xEventGroup), 0, 0, 0, 0, 0);           \
  } while (0)
#endif
#ifndef traceEVENT_GROUP_CREATE_FAILED
#define traceEVENT_GROUP_CREATE_FAILED() tw__fr_create_failed(TW_OBJ_EGROUP, 0)
#endif
#ifndef traceEVENT_GROUP_DELETE
#define traceEVENT_GROUP_DELETE(xEventGroup) \
  tw_object(TW__FR_EGNUM(xEventGroup), TW_OBJ_EGROUP, TW_OBJECT_Delete, 0, 0, 0)
#endif
#ifndef traceEVENT_GROUP_SET_BITS
#define traceEVENT_GROUP_SET_BITS(xEventGroup, uxBitsToSet) TW__FR_EG(xEventGroup, TW_EGROUP_SetBits, uxBitsToSet)
#endif
#ifndef traceEVENT_GROUP_SET_BITS_FROM_ISR
#define traceEVENT_GROUP_SET_BITS_FROM_ISR(xEventGroup, uxBitsToSet) \
  TW__FR_EG(xEventGroup, TW_EGROUP_SetBitsFromISR, uxBitsToSet)
#endif
#ifndef traceEVENT_GROUP_CLEAR_BITS
#define traceEVENT_GROUP_CLEAR_BITS(xEventGroup, uxBitsToClear) \
  TW__FR_EG(xEventGroup, TW_EGROUP_ClearBits, uxBitsToClear)
#endif
#ifndef traceEVENT_GROUP_CLEAR_BITS_FROM_ISR
#define traceEVENT_GROUP_CLEAR_BITS_FROM_ISR(xEventGroup, uxBitsToClear) \
  TW__FR_EG(xEventGroup, TW_EGROUP_ClearBitsFromISR, uxBitsToClear)
#endif
#ifndef traceEVENT_GROUP_WAIT_BITS_BLOCK
#define traceEVENT_GROUP_WAIT_BITS_BLOCK(xEventGroup, uxBitsToWaitFor) \
  TW__FR_EG(xEventGroup, TW_EGROUP_WaitBlock, uxBitsToWaitFor)
#endif
#ifndef traceEVENT_GROUP_WAIT_BITS_END
#define traceEVENT_GROUP_WAIT_BITS_END(xEventGroup, uxBitsToWaitFor, xTimeoutOccurred) \
  TW__FR_EG(xEventGroup, (xTimeoutOccurred) ? TW_EGROUP_WaitTimeout : TW_EGROUP_WaitEnd, uxBitsToWaitFor)
#endif
#ifndef traceEVENT_GROUP_SYNC_BLOCK
#define traceEVENT_GROUP_SYNC_BLOCK(xEventGroup, uxBitsToSet, uxBitsToWaitFor) \
  TW__FR_EG(xEventGroup, TW_EGROUP_SyncBlock, uxBitsToWaitFor)
#endif
#ifndef traceEVENT_GROUP_SYNC_END
#define traceEVENT_GROUP_SYNC_END(xEventGroup, uxBitsToSet, uxBitsToWaitFor, xTimeoutOccurred) \
  TW__FR_EG(xEventGroup, (xTimeoutOccurred) ? TW_EGROUP_SyncTimeout : TW_EGROUP_SyncEnd, uxBitsToWaitFor)
#endif

/* ---- task notifications ------------------------------------------------------------ */

/* In the notify functions pxTCB is the task notified; in the take and
 * wait functions the waiting task is the running one. */
#define TW__FR_NOTE(tcb, index, type) \
  tw_notify(TW__FR_TNUM(tcb), (uint8_t)(index), (type), (uint32_t)(tcb)->ulNotifiedValue[(index)])
#ifndef traceTASK_NOTIFY
#define traceTASK_NOTIFY(uxIndexToNotify) TW__FR_NOTE(pxTCB, uxIndexToNotify, TW_NOTIFY_Notify)
#endif
#ifndef traceTASK_NOTIFY_FROM_ISR
#define traceTASK_NOTIFY_FROM_ISR(uxIndexToNotify) TW__FR_NOTE(pxTCB, uxIndexToNotify, TW_NOTIFY_NotifyFromISR)
#endif
#ifndef traceTASK_NOTIFY_GIVE_FROM_ISR
#define traceTASK_NOTIFY_GIVE_FROM_ISR(uxIndexToNotify) TW__FR_NOTE(pxTCB, uxIndexToNotify, TW_NOTIFY_GiveFromISR)
#endif
#ifndef traceTASK_NOTIFY_TAKE_BLOCK
#define traceTASK_NOTIFY_TAKE_BLOCK(uxIndexToWait) TW__FR_NOTE(pxCurrentTCB, uxIndexToWait, TW_NOTIFY_TakeBlock)
#endif
#ifndef traceTASK_NOTIFY_TAKE
#define traceTASK_NOTIFY_TAKE(uxIndexToWait) TW__FR_NOTE(pxCurrentTCB, uxIndexToWait, TW_NOTIFY_Take)
#endif
#ifndef traceTASK_NOTIFY_WAIT_BLOCK
#define traceTASK_NOTIFY_WAIT_BLOCK(uxIndexToWait) TW__FR_NOTE(pxCurrentTCB, uxIndexToWait, TW_NOTIFY_WaitBlock)
#endif
#ifndef traceTASK_NOTIFY_WAIT
#define traceTASK_NOTIFY_WAIT(uxIndexToWait) TW__FR_NOTE(pxCurrentTCB, uxIndexToWait, TW_NOTIFY_Wait)
#endif

/* ---- software timers ----------------------------------------------------------------- */

#define TW__FR_TMNUM(t) ((uint16_t)((Timer_t *)(t))->uxTimerNumber)
#ifndef traceTIMER_CREATE
#define traceTIMER_CREATE(pxNewTimer)                                                  \
  do {                                                                                 \
    (pxNewTimer)->uxTimerNumber = tw__fr_next(&tw_freertos_numbers.timer);             \
    tw__fr_created(TW_OBJ_TIMER, TW__FR_TMNUM(pxNewTimer), (pxNewTimer)->pcTimerName, 0, 0, \
                   ((pxNewTimer)->ucStatus & tmrSTATUS_IS_AUTORELOAD) ? 1 : 0,        \
                   (uint32_t)(pxNewTimer)->xTimerPeriodInTicks);                       \
  } while (0)
#endif
#ifndef traceTIMER_CREATE_FAILED
#define traceTIMER_CREATE_FAILED() tw__fr_create_failed(TW_OBJ_TIMER, 0)
#endif
#ifndef traceTIMER_EXPIRED
#define traceTIMER_EXPIRED(pxTimer) tw_timer(TW__FR_TMNUM(pxTimer), TW_TIMER_Expired, 0, 0)
#endif
/* FreeRTOS calls this after queuing the command: a timer task of higher
 * priority may already have taken a DELETE and freed the timer, so a
 * queued DELETE is recorded with timer 0 (its CommandReceived, taken
 * before the free, names it). Found by ASan on the real kernel. */
#ifndef traceTIMER_COMMAND_SEND
#define traceTIMER_COMMAND_SEND(xTimer, xMessageID, xMessageValueValue, xReturn)        \
  tw_timer(((xMessageID) == tmrCOMMAND_DELETE && (xReturn)) ? 0 : TW__FR_TMNUM(xTimer), \
           (xReturn) ? TW_TIMER_CommandSend : TW_TIMER_CommandSendFailed,               \
           (uint8_t)(xMessageID), (uint32_t)(xMessageValueValue))
#endif
/* FreeRTOS deletes a timer when its timer task takes the DELETE command:
 * that is also the timer's OBJECT Delete. */
static inline void tw__fr_timer_command(uint16_t timer, int32_t command, uint32_t value,
                                        int deleted)
{
  tw_timer(timer, TW_TIMER_CommandReceived, (uint8_t)command, value);
  if (deleted)
    tw_object(timer, TW_OBJ_TIMER, TW_OBJECT_Delete, 0, 0, 0);
}
#ifndef traceTIMER_COMMAND_RECEIVED
#define traceTIMER_COMMAND_RECEIVED(pxTimer, xMessageID, xMessageValue)                 \
  tw__fr_timer_command(TW__FR_TMNUM(pxTimer), (int32_t)(xMessageID), (uint32_t)(xMessageValue), \
                       (xMessageID) == tmrCOMMAND_DELETE)
#endif
#ifndef tracePEND_FUNC_CALL
#define tracePEND_FUNC_CALL(xFunctionToPend, pvParameter1, ulParameter2, ret) \
  tw_timer(0, (ret) ? TW_TIMER_PendCall : TW_TIMER_PendCallFailed, 0, (uint32_t)(ulParameter2))
#endif
#ifndef tracePEND_FUNC_CALL_FROM_ISR
#define tracePEND_FUNC_CALL_FROM_ISR(xFunctionToPend, pvParameter1, ulParameter2, ret) \
  tw_timer(0, (ret) ? TW_TIMER_PendCallFromISR : TW_TIMER_PendCallFromISRFailed, 0, (uint32_t)(ulParameter2))
#endif

/* ---- stream and message buffers ------------------------------------------------------ */

#define TW__FR_SBNUM(b) ((uint16_t)((StreamBuffer_t *)(b))->uxStreamBufferNumber)
#define TW__FR_SB(b, type, bytes) tw_sbuf(TW__FR_SBNUM(b), (type), (uint32_t)(bytes))
#ifndef traceSTREAM_BUFFER_CREATE
#define traceSTREAM_BUFFER_CREATE(pxStreamBuffer, xStreamBufferType)                    \
  do {                                                                                 \
    (pxStreamBuffer)->uxStreamBufferNumber = tw__fr_next(&tw_freertos_numbers.sbuf);   \
    tw__fr_created(TW_OBJ_SBUF, TW__FR_SBNUM(pxStreamBuffer), 0, 0, (uint8_t)(xStreamBufferType), \
                   (uint16_t)(pxStreamBuffer)->xTriggerLevelBytes,                    \
                   (uint32_t)(pxStreamBuffer)->xLength - 1u); /* FreeRTOS keeps one byte spare */ \
  } while (0)
#endif
#ifndef traceSTREAM_BUFFER_CREATE_FAILED
#define traceSTREAM_BUFFER_CREATE_FAILED(xStreamBufferType) \
  tw__fr_create_failed(TW_OBJ_SBUF, (uint8_t)(xStreamBufferType))
#endif
#ifndef traceSTREAM_BUFFER_CREATE_STATIC_FAILED
#define traceSTREAM_BUFFER_CREATE_STATIC_FAILED(xReturn, xStreamBufferType) \
  tw__fr_create_failed(TW_OBJ_SBUF, (uint8_t)(xStreamBufferType))
#endif
#ifndef traceSTREAM_BUFFER_DELETE
#define traceSTREAM_BUFFER_DELETE(xStreamBuffer) \
  tw_object(TW__FR_SBNUM(xStreamBuffer), TW_OBJ_SBUF, TW_OBJECT_Delete, 0, 0, 0)
#endif
#ifndef traceSTREAM_BUFFER_RESET
#define traceSTREAM_BUFFER_RESET(xStreamBuffer) TW__FR_SB(xStreamBuffer, TW_SBUF_Reset, 0)
#endif
#ifndef traceSTREAM_BUFFER_RESET_FROM_ISR
#define traceSTREAM_BUFFER_RESET_FROM_ISR(xStreamBuffer) TW__FR_SB(xStreamBuffer, TW_SBUF_ResetFromISR, 0)
#endif
#ifndef traceBLOCKING_ON_STREAM_BUFFER_SEND
#define traceBLOCKING_ON_STREAM_BUFFER_SEND(xStreamBuffer) TW__FR_SB(xStreamBuffer, TW_SBUF_BlockSend, 0)
#endif
#ifndef traceSTREAM_BUFFER_SEND
#define traceSTREAM_BUFFER_SEND(xStreamBuffer, xBytesSent) TW__FR_SB(xStreamBuffer, TW_SBUF_Send, xBytesSent)
#endif
#ifndef traceSTREAM_BUFFER_SEND_FAILED
#define traceSTREAM_BUFFER_SEND_FAILED(xStreamBuffer) TW__FR_SB(xStreamBuffer, TW_SBUF_SendFailed, 0)
#endif
#ifndef traceSTREAM_BUFFER_SEND_FROM_ISR
#define traceSTREAM_BUFFER_SEND_FROM_ISR(xStreamBuffer, xBytesSent) \
  TW__FR_SB(xStreamBuffer, TW_SBUF_SendFromISR, xBytesSent)
#endif
#ifndef traceBLOCKING_ON_STREAM_BUFFER_RECEIVE
#define traceBLOCKING_ON_STREAM_BUFFER_RECEIVE(xStreamBuffer) TW__FR_SB(xStreamBuffer, TW_SBUF_BlockReceive, 0)
#endif
#ifndef traceSTREAM_BUFFER_RECEIVE
#define traceSTREAM_BUFFER_RECEIVE(xStreamBuffer, xReceivedLength) \
  TW__FR_SB(xStreamBuffer, TW_SBUF_Receive, xReceivedLength)
#endif
#ifndef traceSTREAM_BUFFER_RECEIVE_FAILED
#define traceSTREAM_BUFFER_RECEIVE_FAILED(xStreamBuffer) TW__FR_SB(xStreamBuffer, TW_SBUF_ReceiveFailed, 0)
#endif
#ifndef traceSTREAM_BUFFER_RECEIVE_FROM_ISR
#define traceSTREAM_BUFFER_RECEIVE_FROM_ISR(xStreamBuffer, xReceivedLength) \
  TW__FR_SB(xStreamBuffer, TW_SBUF_ReceiveFromISR, xReceivedLength)
#endif

/* Not traced (docs/porting-freertos.md says why): traceSTART, traceEND
 * (FreeRTOS never calls them), traceTASK_SWITCHED_OUT,
 * tracePOST_MOVED_TASK_TO_READY_STATE, traceTAKE_MUTEX_RECURSIVE_FAILED
 * (above), traceMALLOC, traceFREE (heap, not scheduling). */

#ifdef TW_FREERTOS_DEFINE_COUNTERS
struct tw_freertos_core tw_freertos_cores[TW_FREERTOS_CORES];
struct tw_freertos_numbers tw_freertos_numbers;
#endif

#ifdef __cplusplus
}
#endif

#endif /* __ASSEMBLER__ */
#endif
