/*
 * A two-core port that exists only to be compiled against: the SMP
 * kernel (configNUMBER_OF_CORES 2) with tracewire's hooks and glue is
 * compiled with it (tests/CMakeLists.txt, freertos_smp_compile), never
 * linked or run. The port functions are declared, not defined. The types
 * and the rest follow FreeRTOS's POSIX port.
 */
#ifndef PORTMACRO_H
#define PORTMACRO_H

#include <stdint.h>

#define portCHAR char
#define portFLOAT float
#define portDOUBLE double
#define portLONG long
#define portSHORT short
#define portSTACK_TYPE unsigned long
#define portBASE_TYPE long
#define portPOINTER_SIZE_TYPE intptr_t

typedef portSTACK_TYPE StackType_t;
typedef long BaseType_t;
typedef unsigned long UBaseType_t;
typedef uint32_t TickType_t;
#define portMAX_DELAY ((TickType_t)0xffffffffUL)
#define portTICK_TYPE_IS_ATOMIC 1

#define portSTACK_GROWTH (-1)
#define portHAS_STACK_OVERFLOW_CHECKING 0
#define portTICK_PERIOD_MS ((TickType_t)1000 / configTICK_RATE_HZ)
#define portTICK_RATE_MICROSECONDS ((TickType_t)1000000 / configTICK_RATE_HZ)
#define portBYTE_ALIGNMENT 8

void vPortYield(void);
#define portYIELD() vPortYield()
#define portEND_SWITCHING_ISR(xSwitchRequired) \
  do { if (xSwitchRequired) { traceISR_EXIT_TO_SCHEDULER(); vPortYield(); } else { traceISR_EXIT(); } } while (0)
#define portYIELD_FROM_ISR(x) portEND_SWITCHING_ISR(x)

UBaseType_t xPortSetInterruptMask(void);
void vPortClearInterruptMask(UBaseType_t uxMask);
void vPortDisableInterrupts(void);
void vPortEnableInterrupts(void);
#define portSET_INTERRUPT_MASK() xPortSetInterruptMask()
#define portCLEAR_INTERRUPT_MASK(x) vPortClearInterruptMask(x)
#define portSET_INTERRUPT_MASK_FROM_ISR() xPortSetInterruptMask()
#define portCLEAR_INTERRUPT_MASK_FROM_ISR(x) vPortClearInterruptMask(x)
#define portDISABLE_INTERRUPTS() vPortDisableInterrupts()
#define portENABLE_INTERRUPTS() vPortEnableInterrupts()

/* SMP: the kernel's critical sections, two locks, the core, a cross-core yield */
void vTaskEnterCritical(void);
void vTaskExitCritical(void);
UBaseType_t vTaskEnterCriticalFromISR(void);
void vTaskExitCriticalFromISR(UBaseType_t uxSavedInterruptStatus);
#define portENTER_CRITICAL() vTaskEnterCritical()
#define portEXIT_CRITICAL() vTaskExitCritical()
#define portENTER_CRITICAL_FROM_ISR() vTaskEnterCriticalFromISR()
#define portEXIT_CRITICAL_FROM_ISR(x) vTaskExitCriticalFromISR(x)
BaseType_t xPortGetCoreID(void);
void vPortYieldCore(BaseType_t xCoreID);
void vPortGetLock(BaseType_t xLock, BaseType_t xCoreID);
void vPortReleaseLock(BaseType_t xLock, BaseType_t xCoreID);
BaseType_t xPortCheckIfInISR(void);
#define portGET_CORE_ID() xPortGetCoreID()
#define portYIELD_CORE(x) vPortYieldCore(x)
#define portGET_TASK_LOCK(xCoreID) vPortGetLock(0, (xCoreID))
#define portRELEASE_TASK_LOCK(xCoreID) vPortReleaseLock(0, (xCoreID))
#define portGET_ISR_LOCK(xCoreID) vPortGetLock(1, (xCoreID))
#define portRELEASE_ISR_LOCK(xCoreID) vPortReleaseLock(1, (xCoreID))
#define portCHECK_IF_IN_ISR() xPortCheckIfInISR()

#define portTASK_FUNCTION_PROTO(vFunction, pvParameters) void vFunction(void *pvParameters)
#define portTASK_FUNCTION(vFunction, pvParameters) void vFunction(void *pvParameters)
#define portNOP()
#define portMEMORY_BARRIER() __sync_synchronize()
#define portCLEAN_UP_TCB(pxTCB) (void)(pxTCB)
#define portPRE_TASK_DELETE_HOOK(pvTaskToDelete, pxPendYield) (void)(pvTaskToDelete)
#define portCONFIGURE_TIMER_FOR_RUN_TIME_STATS()
#define portGET_RUN_TIME_COUNTER_VALUE() 0
#define portCRITICAL_NESTING_IN_TCB 1

#endif
