/*
 * Vector table and reset of the FreeRTOS firmware for QEMU mps2-an385:
 * FreeRTOS's SVC and PendSV handlers directly (the port checks they are
 * installed), SysTick through the board's clock (main.c) and then the
 * kernel's tick. Faults end the run through semihosting.
 */
#include <stdint.h>
#include "fw.h"

extern uint32_t __stack_top, __data_load, __data_start, __data_end, __bss_start, __bss_end;
int main(void);
void tw_fw_reset(void);
void fw_fault(void);
void fw_systick(void);
void vPortSVCHandler(void);
void xPortPendSVHandler(void);

void tw_fw_reset(void)
{
  uint32_t *src = &__data_load, *dst = &__data_start;
  while (dst < &__data_end)
    *dst++ = *src++;
  for (dst = &__bss_start; dst < &__bss_end;)
    *dst++ = 0;
  tw_fw_exit(main());
}

void fw_fault(void)
{
  tw_fw_log("firmware-freertos: fault\n");
  tw_fw_exit(FW_EXIT_FAULT);
}

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
  (void (*)(void))(uintptr_t)&__stack_top, tw_fw_reset,
  fw_fault, fw_fault, fw_fault, fw_fault, fw_fault,
  0, 0, 0, 0, vPortSVCHandler, fw_fault, 0, xPortPendSVHandler, fw_systick,
};
