/* FreeRTOSConfig.h of the SMP compile test: the example's configuration on two
 * cores (a compile-only port: portmacro.h here), with the hooks. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configUSE_PREEMPTION 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 1 /* the application's "interrupt" */
#define configTICK_RATE_HZ 1000
#define configMAX_PRIORITIES 10
#define configNUMBER_OF_CORES 2
#define configRUN_MULTIPLE_PRIORITIES 1
#define configUSE_CORE_AFFINITY 1
#define configUSE_PASSIVE_IDLE_HOOK 0
#define configMINIMAL_STACK_SIZE 1024 /* words; the POSIX port runs tasks on pthread stacks */
#define configTOTAL_HEAP_SIZE ((size_t)(256 * 1024))
#define configMAX_TASK_NAME_LEN 16
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD 1
#define configUSE_MUTEXES 1
#define configUSE_RECURSIVE_MUTEXES 1
#define configUSE_COUNTING_SEMAPHORES 1
#define configQUEUE_REGISTRY_SIZE 16
#define configUSE_TASK_NOTIFICATIONS 1
#define configUSE_TIMERS 1
#define configTIMER_TASK_PRIORITY 8
#define configTIMER_QUEUE_LENGTH 16
#define configTIMER_TASK_STACK_DEPTH configMINIMAL_STACK_SIZE
#define configUSE_STREAM_BUFFERS 1
#define configUSE_EVENT_GROUPS 1
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configSUPPORT_STATIC_ALLOCATION 0
#define configCHECK_FOR_STACK_OVERFLOW 0
#define configUSE_MALLOC_FAILED_HOOK 0

#define INCLUDE_vTaskPrioritySet 1
#define INCLUDE_uxTaskPriorityGet 1
#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_xTaskDelayUntil 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define INCLUDE_xTaskGetSchedulerState 1

/* on in every build type: a kernel assertion is a bug to see */
#include <stdio.h>
#include <stdlib.h>
#define configASSERT(x)                                                       \
  do {                                                                        \
    if (!(x)) {                                                               \
      fprintf(stderr, "configASSERT(%s) failed at %s:%d\n", #x, __FILE__, __LINE__); \
      abort();                                                                \
    }                                                                         \
  } while (0)

/* tracewire: the trace facility (the number fields the hooks use), then
 * the hooks, last. */
#define configUSE_TRACE_FACILITY 1
#include "tracewire/hooks/freertos_trace.h"

#endif
