/* FreeRTOSConfig.h of the FreeRTOS queue benchmark (POSIX port): built
 * twice, with the tracewire hooks (BENCH_TRACED) and without. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configUSE_PREEMPTION 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 0
#define configTICK_RATE_HZ 1000
#define configMAX_PRIORITIES 5
#define configMINIMAL_STACK_SIZE 1024
#define configTOTAL_HEAP_SIZE ((size_t)(64 * 1024))
#define configMAX_TASK_NAME_LEN 16
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configUSE_MUTEXES 1
#define configUSE_TIMERS 0
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configSUPPORT_STATIC_ALLOCATION 0
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define configUSE_TRACE_FACILITY 1 /* in both builds: the same kernel structures */

#if BENCH_TRACED
#include "tracewire/hooks/freertos_trace.h"
#endif

#endif
