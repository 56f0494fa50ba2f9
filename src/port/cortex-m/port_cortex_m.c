/*
 * Cortex-M port (ARMv7-M/ARMv8-M mainline; ARMv6-M with the critical-section
 * logger, TW_CFG_LOGGER_CRITICAL is then chosen automatically).
 *
 * Timestamp: DWT CYCCNT, the core clock cycle counter, free-running 32 bits
 * (wraps every 25.6 s at 168 MHz). ARMv6-M has no CYCCNT: define
 * TW_CFG_CM_TIMESTAMP_FN to a function of yours (a SysTick- or timer-based
 * counter) there.
 *
 * Interrupt lock: PRIMASK by default (masks everything but NMI/HardFault);
 * with TW_CFG_CM_BASEPRI=<prio> (ARMv7-M) only interrupts at that priority
 * and below are masked, so higher-priority handlers keep their latency but
 * must not log. Only used by TW_CFG_LOGGER_CRITICAL builds.
 *
 * Wait/wake: the consumer polls with WFE; a producer's wake is SEV. Any
 * interrupt also ends a WFE, so the tick interrupt bounds each poll.
 *
 * tw_port_ticks and tw_port_thread_id are weak: an RTOS integration
 * replaces them with its own tick counter and current-thread pointer.
 */
#include <stdint.h>

#include "tracewire/port.h"

#ifndef TW_CFG_CPU_HZ
#define TW_CFG_CPU_HZ 16000000u /* core clock: reset value of many parts */
#endif
#ifndef TW_CFG_CM_TICK_HZ
#define TW_CFG_CM_TICK_HZ 1000u
#endif

#define DEMCR      (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL   (*(volatile uint32_t *)0xE0001000u)

void tw_port_cm_init(void)
{
  DEMCR |= 1u << 24;  /* TRCENA: power the DWT */
  TW_CM_DWT_CYCCNT = 0;
  DWT_CTRL |= 1u;     /* CYCCNTENA */
}

uint32_t tw_port_timestamp(void)
{
  return tw__port_timestamp_inline();
}

uint32_t tw_port_timestamp_hz(void)
{
  return TW_CFG_CPU_HZ;
}

/* Ticks from CYCCNT. Called by the single consumer only, at least once per
 * 2^32 cycles while it waits (the wait loop does). */
__attribute__((weak)) uint32_t tw_port_ticks(void)
{
  static uint32_t last, rem, ticks;
  const uint32_t per_tick = TW_CFG_CPU_HZ / TW_CFG_CM_TICK_HZ;
  uint32_t now = tw_port_timestamp();
  rem += now - last;
  last = now;
  ticks += rem / per_tick;
  rem %= per_tick;
  return ticks;
}

__attribute__((weak)) uintptr_t tw_port_thread_id(void)
{
  return 1u; /* bare metal: one thread */
}

void tw_port_wait(uint32_t *word, uint32_t expect, uint32_t ticks)
{
  uint32_t start = tw_port_ticks();
  while (*(volatile uint32_t *)word == expect &&
         (ticks == 0xFFFFFFFFu || tw_port_ticks() - start < ticks))
    __asm volatile("wfe" ::: "memory");
}

void tw_port_wake(uint32_t *word)
{
  (void)word;
  __asm volatile("dsb\n\tsev" ::: "memory");
}

uint32_t tw_port_irq_lock(void)
{
  return tw__port_irq_lock_inline();
}

void tw_port_irq_unlock(uint32_t key)
{
  tw__port_irq_unlock_inline(key);
}
