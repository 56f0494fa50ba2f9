/* FreeRTOSConfig.h of the FreeRTOS hook tests (POSIX port): every kernel
 * feature with a trace macro turned on, and the tracewire hooks. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configUSE_PREEMPTION 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 1
#define configTICK_RATE_HZ 1000
#define configMAX_PRIORITIES 10
#define configMINIMAL_STACK_SIZE 1024 /* words; the POSIX port runs tasks on pthread stacks */
#define configTOTAL_HEAP_SIZE ((size_t)(256 * 1024))
#define configMAX_TASK_NAME_LEN 16
#define configUSE_TRACE_FACILITY 1
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD 1
#define configUSE_MUTEXES 1
#define configUSE_RECURSIVE_MUTEXES 1
#define configUSE_COUNTING_SEMAPHORES 1
#define configUSE_QUEUE_SETS 1
#define configQUEUE_REGISTRY_SIZE 32
#define configUSE_TASK_NOTIFICATIONS 1
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 2
#define configUSE_TIMERS 1
#define configTIMER_TASK_PRIORITY 8
#define configTIMER_QUEUE_LENGTH 16
#define configTIMER_TASK_STACK_DEPTH configMINIMAL_STACK_SIZE
#define configUSE_STREAM_BUFFERS 1
#define configUSE_EVENT_GROUPS 1
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configSUPPORT_STATIC_ALLOCATION 1
#define configKERNEL_PROVIDED_STATIC_MEMORY 1
#define configCHECK_FOR_STACK_OVERFLOW 0
#define configUSE_MALLOC_FAILED_HOOK 0
#define configUSE_APPLICATION_TASK_TAG 0
#define configGENERATE_RUN_TIME_STATS 0

#define INCLUDE_vTaskPrioritySet 1
#define INCLUDE_uxTaskPriorityGet 1
#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_xTaskDelayUntil 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskGetSchedulerState 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define INCLUDE_xTaskResumeFromISR 1
#define INCLUDE_xTimerPendFunctionCall 1
#define INCLUDE_xSemaphoreGetMutexHolder 1
#define INCLUDE_eTaskGetState 1

#include <limits.h>
#include <pthread.h>

/* Low-power idle on a port without it (POSIX): the idle task's tickless
 * path runs with a "sleep" of the test's (kernel_hooks.c), and only when
 * the test asks, so the idle task does not loop through it. */
#define configUSE_TICKLESS_IDLE 1
#define configEXPECTED_IDLE_TIME_BEFORE_SLEEP 2
extern volatile int tw_test_sleep_wanted;
#define configPRE_SUPPRESS_TICKS_AND_SLEEP_PROCESSING(x) \
  do { if (!tw_test_sleep_wanted) (x) = 0; } while (0)
void tw_test_suppress_ticks(uint32_t expected);
#define portSUPPRESS_TICKS_AND_SLEEP(x) tw_test_suppress_ticks(x)

/* every tick is an event in this test (it drains the ring often) */
#define TW_FREERTOS_TICKS 1

void tw_test_assert_failed(const char *file, int line);
#define configASSERT(x) do { if (!(x)) tw_test_assert_failed(__FILE__, __LINE__); } while (0)

#include "tracewire/hooks/freertos_trace.h"

#endif
