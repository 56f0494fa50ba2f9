/* FreeRTOSConfig.h of firmware-freertos: the application of
 * examples/freertos-posix on FreeRTOS's Cortex-M3 port (QEMU mps2-an385,
 * 25 MHz), with tracewire's hooks. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configCPU_CLOCK_HZ 25000000u
#define configTICK_RATE_HZ 1000
#define configUSE_PREEMPTION 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 1
#define configMAX_PRIORITIES 10
#define configMINIMAL_STACK_SIZE 256 /* words */
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
/* the NVIC's lowest priority for the kernel; FreeRTOS calls from
 * interrupts at 0xA0 and below in urgency */
#define configKERNEL_INTERRUPT_PRIORITY 255
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 160

#define INCLUDE_vTaskPrioritySet 1
#define INCLUDE_uxTaskPriorityGet 1
#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_xTaskDelayUntil 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define INCLUDE_xTaskGetSchedulerState 1

void fw_assert_failed(const char *file, int line);
#define configASSERT(x) do { if (!(x)) fw_assert_failed(__FILE__, __LINE__); } while (0)

/* The port traces its SysTick interrupt (traceISR_ENTER/EXIT): the
 * application's tick-hook "interrupt" is part of it (app.c). */
#define APP_TICK_IS_TRACED 1
/* an interrupt the hooks were not told about must not call FreeRTOS */
#define TW_FREERTOS_IN_ISR() xPortIsInsideInterrupt()

/* tracewire: the trace facility, then the hooks, last */
#define configUSE_TRACE_FACILITY 1
#include "tracewire/hooks/freertos_trace.h"

#endif
