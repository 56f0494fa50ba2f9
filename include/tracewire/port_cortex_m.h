/*
 * The Cortex-M port's hot primitives as inline functions (included by
 * tracewire/port.h on M-profile targets); src/port/cortex-m defines the
 * port contract's functions with these same bodies. Build options:
 *   TW_CFG_CM_BASEPRI=<prio>    lock by BASEPRI (ARMv7-M) instead of PRIMASK
 *   TW_CFG_CM_TIMESTAMP_FN=fn   timestamp from uint32_t fn(void) instead of
 *                               DWT CYCCNT (ARMv6-M has none)
 */
#ifndef TRACEWIRE_PORT_CORTEX_M_H
#define TRACEWIRE_PORT_CORTEX_M_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TW_CM_DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

#ifdef TW_CFG_CM_TIMESTAMP_FN
uint32_t TW_CFG_CM_TIMESTAMP_FN(void);
#endif

__attribute__((always_inline)) static inline uint32_t tw__port_timestamp_inline(void)
{
#ifdef TW_CFG_CM_TIMESTAMP_FN
  return TW_CFG_CM_TIMESTAMP_FN();
#else
  return TW_CM_DWT_CYCCNT;
#endif
}

__attribute__((always_inline)) static inline uint32_t tw__port_irq_lock_inline(void)
{
  uint32_t key;
#ifdef TW_CFG_CM_BASEPRI
  __asm volatile("mrs %0, basepri\n\tmsr basepri_max, %1"
                 : "=&r"(key) : "r"((uint32_t)(TW_CFG_CM_BASEPRI)) : "memory");
#else
  __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(key) :: "memory");
#endif
  return key;
}

__attribute__((always_inline)) static inline void tw__port_irq_unlock_inline(uint32_t key)
{
#ifdef TW_CFG_CM_BASEPRI
  __asm volatile("msr basepri, %0" :: "r"(key) : "memory");
#else
  __asm volatile("msr primask, %0" :: "r"(key) : "memory");
#endif
}

#ifdef __cplusplus
}
#endif

#endif
