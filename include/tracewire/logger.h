/*
 * tracewire event logger: a multi-producer, single-consumer ring of 32-bit
 * words carrying variable-size events (native API; the seed's
 * sys_event_logger_* names live in tracewire/compat/event_logger.h).
 *
 * An event is a 16-bit id and 1..255 data words. Producers are any threads
 * and interrupt handlers, including an interrupt that preempts a producer
 * halfway through a put; there is exactly one consumer. A put that does not
 * fit is dropped and counted exactly (32 bits); the count is handed to the
 * consumer with the next event retrieved. See docs/logger.md and the design
 * note at the top of src/target/event_logger.c (memory ordering).
 *
 * Capacity: any number of words from 2 to TW_LOGGER_MAX_WORDS (2^30), all
 * of them usable (no power of two needed, no spare slot). The struct is
 * visible so loggers can be allocated statically:
 *
 *     TW_LOGGER_DEFINE(my_log, 255);    // static ring of 255 words, ready
 *
 * Freestanding; no allocation.
 */
#ifndef TRACEWIRE_LOGGER_H
#define TRACEWIRE_LOGGER_H

#include "tracewire/cdefs.h"

#include <stdint.h>
#include "tracewire/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 (automatic where a 32-bit CAS is not lock-free, e.g. Cortex-M0): ring
 * reservation runs under tw_port_irq_lock() instead of a CAS loop. */
#ifndef TW_CFG_LOGGER_CRITICAL
#  if defined(__GCC_ATOMIC_INT_LOCK_FREE) && __GCC_ATOMIC_INT_LOCK_FREE == 2
#    define TW_CFG_LOGGER_CRITICAL 0
#  else
#    define TW_CFG_LOGGER_CRITICAL 1
#  endif
#endif

/* 0: puts never wake a consumer (saving each put a barrier, a load and a
 * branch), and tw_logger_get_wait looks again once a tick instead of
 * sleeping until a put wakes it: for a consumer that polls anyway (the
 * minimal configuration's streamer, docs/performance.md). */
#ifndef TW_CFG_LOGGER_WAKE
#  define TW_CFG_LOGGER_WAKE 1
#endif

#define TW_LOGGER_MAX_DATA 255u           /* data words per event */
#define TW_LOGGER_MAX_WORDS 0x40000000u    /* ring capacity limit, words */
#define TW_WAIT_FOREVER    0xFFFFFFFFu     /* timeout for tw_logger_get_wait */

/* All fields are private to event_logger.c; visible for static allocation.
 * head (next word producers reserve) and tail (next word the consumer
 * reads) are "mirror" indices in [0, 2 * cap): the slot is the index or
 * the index - cap, the words in use head - tail modulo 2 * cap. */
struct tw_logger {
  uint32_t head;          /* producers: CAS (or locked store) */
  uint32_t tail;          /* consumer writes (release), producers read */
  uint32_t drops_pending; /* drops not yet attached to an event */
  uint32_t waiting;       /* 1 while the consumer sleeps in get_wait */
  uint32_t cap;           /* capacity, words */
  uint32_t *buf;          /* cap words; 0 marks an uncommitted header */
  uint32_t drops_total;   /* statistics (see struct tw_logger_stats) */
  uint32_t rejects;
  uint32_t retrieved;     /* consumer-only */
  uint32_t whole_drops;   /* drops of an event that fills the whole ring */
};

#define TW_LOGGER_INITIALIZER(buffer, words) \
  { 0u, 0u, 0u, 0u, (uint32_t)(words), (buffer), 0u, 0u, 0u, 0u }

/* A zero-filled static ring and a logger over it, usable without init. */
#define TW_LOGGER_DEFINE(name, words)                                          \
  TW_STATIC_ASSERT((words) >= 2 && (words) <= TW_LOGGER_MAX_WORDS,            \
                   "logger capacity must be 2..TW_LOGGER_MAX_WORDS words");    \
  static uint32_t name##_ring[(words)];                                        \
  struct tw_logger name = TW_LOGGER_INITIALIZER(name##_ring, (words))

/* What the consumer learns about a retrieved event besides its data. */
struct tw_logger_rec {
  uint16_t id;       /* event id */
  uint16_t size;     /* data words of the event (also on TW_EMSGSIZE) */
  uint32_t dropped;  /* exact count of events dropped since the previous one */
  uint32_t wraps;    /* whole 2^32 periods of the timestamp clock that elapsed
                        on top of what the event's timestamps show (long
                        sleeps, see tw_klog_sleep_exit); usually 0 */
};

struct tw_logger_stats {
  uint32_t puts;       /* events accepted: retrieved + still in the ring */
  uint32_t retrieved;  /* events handed to the consumer */
  uint32_t drops;      /* events dropped because the ring was full */
  uint32_t rejects;    /* puts refused for bad arguments (NULL, 0 words,
                          larger than the ring, bad id) */
  uint32_t pending_drops; /* drops not yet reported with an event */
  uint32_t used_words; /* head - tail at the time of the call */
  uint32_t capacity;   /* ring size in words */
};

/* Initialise over a caller-provided ring of `words` 32-bit words (2 to
 * TW_LOGGER_MAX_WORDS). Zeroes the ring. TW_EINVAL on NULL or a bad size.
 * Thread context, before any producer or consumer uses the logger. */
int tw_logger_init(struct tw_logger *l, uint32_t *buffer, uint32_t words);

/* Append one event of n data words (1..255). Returns 0; TW_ENOSPC when the
 * ring is full (the event is dropped and counted); TW_EINVAL for NULL
 * arguments or n == 0; TW_ETOOBIG when the event could never fit
 * (n > 255 or 1 + n > capacity): rejected and counted, never truncated.
 * Any context: threads and interrupt handlers, reentrant, lock-free unless
 * TW_CFG_LOGGER_CRITICAL. Wakes a consumer blocked in get_wait. */
int tw_logger_put(struct tw_logger *l, uint16_t id, const uint32_t *data,
                  uint32_t n);

/* Retrieve the oldest event (FIFO). Returns the number of data words
 * copied (>= 1); 0 when nothing is ready; TW_EMSGSIZE when cap < the
 * event's size: the event stays in the ring, rec->id and rec->size
 * describe it and rec->dropped is 0 (the drops come with the successful
 * retrieval, so nothing is counted twice); TW_EINVAL on NULL or cap == 0.
 * Single consumer: one thread at a time, never an interrupt handler. */
int tw_logger_get(struct tw_logger *l, struct tw_logger_rec *rec,
                  uint32_t *buf, uint32_t cap);

/* As tw_logger_get(), blocking up to `timeout` ticks of the installed waiter
 * (tw_port_set_waiter; else the port's tw_port_ticks:
 * ms on POSIX) for an event; TW_WAIT_FOREVER never times out. Returns 0
 * only on timeout. Consumer thread only. */
int tw_logger_get_wait(struct tw_logger *l, struct tw_logger_rec *rec,
                       uint32_t *buf, uint32_t cap, uint32_t timeout);

/* Words in use (committed or being written), as one relaxed look at both
 * indices: a snapshot for deciding when to look again ("has the collector
 * caught up?"), not a count to rely on. Any context. */
static inline uint32_t tw_logger_used(const struct tw_logger *l)
{
  /* mirror indices (struct tw_logger): the difference modulo 2 * cap */
  uint32_t u = __atomic_load_n(&l->head, __ATOMIC_RELAXED) - __atomic_load_n(&l->tail, __ATOMIC_RELAXED);
  return (int32_t)u < 0 ? u + 2u * l->cap : u;
}

/* Take the drops not yet attached to an event (they are then the
 * caller's to report; each drop is reported exactly once, here or with a
 * later event). The streamer announces them before TRACE_STOP. Consumer
 * thread. */
uint32_t tw_logger_take_drops(struct tw_logger *l);

/* Snapshot of the counters. Consumer thread (walks the committed events). */
void tw_logger_stats(struct tw_logger *l, struct tw_logger_stats *st);

/* Zero retrieved, drops and rejects (pending drops still reach the next
 * event). Consumer thread. */
void tw_logger_stats_reset(struct tw_logger *l);

/* Cross-file internal: put with an optional leading word (a timestamp) and
 * an optional "wraps" extension word (nonzero wraps only). Returns as
 * tw_logger_put. Any context. */
int tw__logger_put(struct tw_logger *l, uint16_t id, const uint32_t *first,
                   const uint32_t *data, uint32_t n, uint32_t wraps);
/* Count a refused put (bad id at a higher layer). Any context. */
void tw__logger_reject(struct tw_logger *l);
/* Count a drop to be told with the next event. Any context. The seed API
 * (compat/event_logger.h) counts an event larger than the whole ring so,
 * as seed 004's original does; the native put rejects it (TW_ETOOBIG). */
void tw__logger_drop(struct tw_logger *l);

#ifdef __cplusplus
}
#endif

#endif
