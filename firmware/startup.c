/*
 * Vector table and reset for the mps2-an385 firmware. Faults end the run
 * through semihosting with a distinct exit code, so a crash under QEMU is a
 * test failure, not a hang.
 */
#include <stdint.h>
#include "fw.h"

extern uint32_t __stack_top, __data_load, __data_start, __data_end, __bss_start, __bss_end;
int main(void);
void tw_fw_reset(void);
void tw_fw_fault(void);

void tw_fw_reset(void)
{
  uint32_t *src = &__data_load, *dst = &__data_start;
  while (dst < &__data_end)
    *dst++ = *src++;
  for (dst = &__bss_start; dst < &__bss_end;)
    *dst++ = 0;
  tw_fw_exit(main());
}

void tw_fw_fault(void)
{
  tw_fw_exit(FW_EXIT_FAULT);
}

/* 16 system exceptions; SysTick keeps real time (systick.c). The model's
 * interrupts are simulated, so no external vectors are needed. */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
  (void (*)(void))(uintptr_t)&__stack_top, tw_fw_reset,
  tw_fw_fault, tw_fw_fault, tw_fw_fault, tw_fw_fault, tw_fw_fault,
  0, 0, 0, 0, tw_fw_fault, tw_fw_fault, 0, tw_fw_fault, tw_fw_systick_isr,
};
