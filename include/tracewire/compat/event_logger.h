/*
 * The seed's event logger API (Zephyr kernel event logger), kept with its
 * documented names, argument types and return values as a thin layer over
 * tracewire/logger.h and tracewire/klog.h. Differences a port of seed code
 * must know (docs/logger.md, "Seed compatibility"):
 *  - dropped counts are 8-bit here and saturate at 255 (the native API
 *    gives the exact 32-bit count);
 *  - -EMSGSIZE is -TW_CFG_EMSGSIZE: the platform's EMSGSIZE (Linux 90,
 *    macOS 40, newlib/Zephyr 122), chosen without including errno.h so the
 *    core stays freestanding; the POSIX port checks it against errno.h at
 *    compile time. Define TW_CFG_EMSGSIZE yourself for another libc;
 *  - void functions given NULL or zero sizes do nothing (counted as
 *    rejects); gets given NULL or a zero size return 0;
 *  - every word of the buffer holds events (the original keeps one free);
 *    any size from 2 words works, as in the original;
 *  - an event larger than the whole ring is dropped and counted, and the
 *    count comes with the next event, as in the original (the native
 *    tw_logger_put refuses it with TW_ETOOBIG instead);
 *  - timeouts are port ticks (POSIX: milliseconds).
 */
#ifndef TRACEWIRE_COMPAT_EVENT_LOGGER_H
#define TRACEWIRE_COMPAT_EVENT_LOGGER_H

#include <stdint.h>
#include "tracewire/logger.h"
#include "tracewire/klog.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TW_CFG_EMSGSIZE
#  if defined(__linux__)
#    define TW_CFG_EMSGSIZE 90
#  elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || \
        defined(__OpenBSD__)
#    define TW_CFG_EMSGSIZE 40
#  else
#    define TW_CFG_EMSGSIZE 122 /* newlib, picolibc, Zephyr */
#  endif
#endif

#define KERNEL_EVENT_LOGGER_CONTEXT_SWITCH_EVENT_ID TW_KLOG_CONTEXT_SWITCH_ID
#define KERNEL_EVENT_LOGGER_INTERRUPT_EVENT_ID      TW_KLOG_INTERRUPT_ID
#define KERNEL_EVENT_LOGGER_SLEEP_EVENT_ID          TW_KLOG_SLEEP_ID
/* Spelling used by the seed's retrieve-loop example. */
#define KERNEL_EVENT_CONTEXT_SWITCH_EVENT_ID KERNEL_EVENT_LOGGER_CONTEXT_SWITCH_EVENT_ID
#define KERNEL_EVENT_INTERRUPT_EVENT_ID      KERNEL_EVENT_LOGGER_INTERRUPT_EVENT_ID
#define KERNEL_EVENT_SLEEP_EVENT_ID          KERNEL_EVENT_LOGGER_SLEEP_EVENT_ID

#ifndef SIZE32_OF
#  define SIZE32_OF(x) (sizeof((x)) / sizeof(uint32_t))
#endif
#ifndef ARRAY_SIZE
#  define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

struct event_logger {
  struct tw_logger tw;
};

typedef uint32_t (*sys_k_timer_func_t)(void);

/* Generic logger. init/put: see tw_logger_init/put (any context for put).
 * gets: consumer thread only; return words copied, 0 (empty / timeout /
 * bad arguments) or -TW_CFG_EMSGSIZE (event stays, *buffer_size updated). */
void sys_event_logger_init(struct event_logger *logger,
                           uint32_t *logger_buffer, uint32_t buffer_size);
void sys_event_logger_put(struct event_logger *logger, uint16_t event_id,
                          uint32_t *event_data, uint8_t data_size);
int sys_event_logger_get(struct event_logger *logger, uint16_t *event_id,
                         uint8_t *dropped_event_count, uint32_t *buffer,
                         uint8_t *buffer_size);
int sys_event_logger_get_wait(struct event_logger *logger, uint16_t *event_id,
                              uint8_t *dropped_event_count, uint32_t *buffer,
                              uint8_t *buffer_size);
int sys_event_logger_get_wait_timeout(struct event_logger *logger,
                                      uint16_t *event_id,
                                      uint8_t *dropped_event_count,
                                      uint32_t *buffer, uint8_t *buffer_size,
                                      uint32_t timeout);

/* Kernel event logger (the global tw_klog). */
void sys_k_event_logger_set_timer(sys_k_timer_func_t func);
void sys_k_event_logger_set_mask(int value);
int sys_k_event_logger_get_mask(void);
int sys_k_must_log_event(int event_type);
void sys_k_event_logger_put(uint16_t event_id, uint32_t *event_data,
                            uint8_t data_size);
void sys_k_event_logger_put_timed(uint16_t event_id);
int sys_k_event_logger_get(uint16_t *event_id, uint8_t *dropped,
                           uint32_t *event_data, uint8_t *data_size);
int sys_k_event_logger_get_wait(uint16_t *event_id, uint8_t *dropped,
                                uint32_t *event_data, uint8_t *data_size);
int sys_k_event_logger_get_wait_timeout(uint16_t *event_id, uint8_t *dropped,
                                        uint32_t *event_data,
                                        uint8_t *data_size, uint32_t timeout);
void sys_k_event_logger_register_as_collector(void);

#ifdef __cplusplus
}
#endif

#endif
