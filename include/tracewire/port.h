/*
 * The port contract: the few primitives a platform supplies. Everything
 * else (ring reservation, drop accounting, blocking gets with timeouts,
 * collector exclusion) is derived in the freestanding core from these.
 *
 * Shipped ports: src/port/posix (pthreads, Linux futex; first-class, every
 * host test runs on it) and src/port/cortex-m (PRIMASK/BASEPRI, DWT CYCCNT,
 * WFE polling). A new port implements every function below in one .c file.
 *
 * Atomicity: the core uses the compiler's __atomic builtins on 32-bit words.
 * Where a 32-bit compare-and-swap is not lock-free (Cortex-M0/M0+, see
 * TW_CFG_LOGGER_CRITICAL in tracewire/logger.h) the core instead wraps its
 * read-modify-write steps in tw_port_irq_lock()/tw_port_irq_unlock().
 */
#ifndef TRACEWIRE_PORT_H
#define TRACEWIRE_PORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Free-running 32-bit timestamp counter (wraps). Any context, including
 * interrupt handlers; must be cheap (it is read on every timed event).
 * POSIX: low 32 bits of the TSC on x86-64, else CLOCK_MONOTONIC ns.
 * Cortex-M: DWT CYCCNT (enabled by tw_port_cm_init()). */
uint32_t tw_port_timestamp(void);

/* Counting rate of tw_port_timestamp() in Hz (0 if unknown). Thread
 * context (the POSIX port may calibrate on its first call). */
uint32_t tw_port_timestamp_hz(void);

/* Free-running system tick counter in which get_wait timeouts are given.
 * POSIX: milliseconds (CLOCK_MONOTONIC). Cortex-M: TW_CFG_CM_TICK_HZ ticks
 * derived from CYCCNT (weak; an RTOS integration overrides it). Thread. */
uint32_t tw_port_ticks(void);

/* Identity of the calling thread, for collector exclusion. Thread context;
 * never 0 for a real thread. */
uintptr_t tw_port_thread_id(void);

/* Block the calling thread while *word == expect, for at most `ticks`
 * ticks. May return early or spuriously: callers re-check. Thread context
 * (the single consumer of a logger). */
void tw_port_wait(uint32_t *word, uint32_t expect, uint32_t ticks);

/* Wake a thread blocked in tw_port_wait() on `word`. Any context,
 * including interrupt handlers (POSIX: async-signal-safe). */
void tw_port_wake(uint32_t *word);

/* Mask interrupts (and on POSIX, signals plus other threads) and return a
 * key restoring the previous state. Nestable through the key. Any context.
 * Used by the core only where CAS is not lock-free. */
uint32_t tw_port_irq_lock(void);
void tw_port_irq_unlock(uint32_t key);

/* Cortex-M port only: enable the DWT cycle counter (TRCENA, CYCCNTENA).
 * Call once at boot, before the first timestamp. Thread context. */
void tw_port_cm_init(void);

/* The hot path's primitives inline: the emitters' put (kernel logger)
 * reads the clock and, with TW_CFG_LOGGER_CRITICAL, locks interrupts on
 * every event, where a call would cost more than the primitive. A port
 * with inline versions provides them in its own header, included here for
 * its architecture; elsewhere they are the functions above. */
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#include "tracewire/port_cortex_m.h"
#else
#define tw__port_timestamp_inline tw_port_timestamp
#define tw__port_irq_lock_inline tw_port_irq_lock
#define tw__port_irq_unlock_inline tw_port_irq_unlock
#endif

#ifdef __cplusplus
}
#endif

#endif
