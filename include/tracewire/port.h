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

/* SMP builds only (TW_CFG_CORES > 1, tracewire/klog_config.h): the index
 * of the core running the caller, 0..TW_CFG_CORES-1; any context, cheap
 * (every event asks). Supplied by the RTOS integration (FreeRTOS:
 * portGET_CORE_ID(), src/port/freertos/), never called otherwise. An
 * event recorded while its task migrates lands in either core's ring:
 * both are multi-producer, nothing is lost. */
uint32_t tw_port_core_id(void);

/* Mask interrupts (and on POSIX, signals plus other threads) and return a
 * key restoring the previous state. Nestable through the key. Any context.
 * Used by the core only where CAS is not lock-free. */
uint32_t tw_port_irq_lock(void);
void tw_port_irq_unlock(uint32_t key);

/* ---- pluggable sleeping -------------------------------------------------------
 * How the collector sleeps and is woken can be replaced at run time, for
 * an RTOS whose tasks must block through the scheduler (a futex or WFE
 * would stop the whole system: docs/porting-freertos.md). The core (the
 * logger's get_wait and wake-up, the streamer's back-off) calls the
 * installed waiter, or the port's tw_port_ticks/wait/wake when none is.
 * Same contracts as those three; wake is called by producers in any
 * context, including inside an RTOS's own trace hooks, and must not
 * block. src/port/freertos/ installs one (task notifications). */
struct tw_waiter {
  uint32_t (*ticks)(void);
  void (*wait)(uint32_t *word, uint32_t expect, uint32_t ticks);
  void (*wake)(uint32_t *word);
};

/* Install w (all three functions set), or NULL for the port's own. The
 * struct must outlive its use. Thread context, before the collector and
 * the producers run (or while none sleeps). */
void tw_port_set_waiter(const struct tw_waiter *w);

/* What the core calls: the waiter's function, or the port's. */
uint32_t tw__ticks(void);
void tw__wait(uint32_t *word, uint32_t expect, uint32_t ticks);
void tw__wake(uint32_t *word);

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
