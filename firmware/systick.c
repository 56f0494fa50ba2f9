/*
 * Real time for the firmware, from SysTick (1 kHz interrupt off the 25 MHz
 * processor clock of the mps2-an385; under QEMU it follows the host's
 * clock). The model keeps its own virtual clock for timestamps; real time
 * only paces a run that waits for the host (--until-stop) and bounds how
 * long the firmware lingers for late commands.
 */
#include "fw.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define CPU_HZ 25000000u

static volatile uint32_t ms;

void tw_fw_systick_isr(void)
{
  ms++;
}

void tw_fw_clock_init(void)
{
  SYST_RVR = CPU_HZ / 1000u - 1u;
  SYST_CVR = 0;
  SYST_CSR = 0x7u; /* processor clock, interrupt, enable */
}

uint32_t tw_fw_ms(void)
{
  return ms;
}
