/*
 * tracewire instrumentation API for an RTOS port.
 *
 * Emitters (generated from events.def, see tracewire/events_gen.h):
 *   tw_task_switch(task), tw_mutex(task, mutex, type), tw_sem(sem, type),
 *   ... one per timed kernel/RTOS event, plus tw_<name>_at(ts, ...) taking
 *   the timestamp (e.g. tw_sleep_at(sleep_ts, wake_ts, irq)).
 * Each records { 32-bit timestamp, packed payload words } into the kernel
 * event logger under the event's id. Disabled at run time it costs one
 * load and one bit test of tw_trace_mask; with TW_CFG_TRACE=0 (everything)
 * or TW_CFG_EV_<NAME>=0 (one event) it compiles to nothing.
 *
 * Names: tasks, mutexes, semaphores ... are numbers on the wire. The target
 * registers a name per number (tw_name_register); the streamer sends the
 * table in-band as NAME snapshot records at START and on request, so the
 * host never needs the ELF. EnterInt (0xFFFE) and LeaveInt (0xFFFF) are
 * predefined task names.
 *
 * Custom events: declare them at run time (tw_custom_declare) with an id
 * the vocabulary does not use (28..32 keeps a mask bit), then record them
 * with tw_custom(). Declarations travel in-band as CUSTOM_DECL records.
 *
 * Freestanding; no allocation: the tables are static arrays sized by
 * TW_CFG_NAMES, TW_CFG_NAME_MAX and TW_CFG_CUSTOM_DECLS.
 */
#ifndef TRACEWIRE_TRACE_H
#define TRACEWIRE_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/error.h"
#include "tracewire/vocab.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TW_CFG_NAMES
#define TW_CFG_NAMES 48       /* registered names (a rename takes a new slot) */
#endif
#ifndef TW_CFG_NAME_MAX
#define TW_CFG_NAME_MAX 24    /* bytes of a name, NUL included */
#endif
#ifndef TW_CFG_CUSTOM_DECLS
#define TW_CFG_CUSTOM_DECLS 8
#endif
#ifndef TW_CFG_DECL_MAX
#define TW_CFG_DECL_MAX 48    /* bytes of a declaration string, NUL included */
#endif

#define TW_CUSTOM_MAX_WORDS 8 /* data words of a custom event */

/* Bit id-1 is set while event id (1..32) is recorded. Written by the
 * streamer (start, stop, set mask); read by every emitter. */
extern uint32_t tw_trace_mask;

/* always_inline: -Os would otherwise call it, which costs more than the
 * load and bit test it is (docs/performance.md). */
__attribute__((always_inline)) static inline int tw_trace_on(uint32_t id)
{
  /* relaxed: a stale bit only means one event more or less around a mask
   * change, which the protocol allows; no ordering with the data needed */
  return id - 1u < 32u && ((__atomic_load_n(&tw_trace_mask, __ATOMIC_RELAXED) >> (id - 1u)) & 1u);
}

/* The logger's timestamp clock. Any context. */
uint32_t tw_trace_now(void);
/* Append words[0..n) (timestamp first for timed events) to the kernel event
 * logger under id; a full ring counts a drop. Any context. */
void tw__trace_put(uint16_t id, const uint32_t *words, uint32_t n);
/* As tw__trace_put for a timed event whose words[0] the logger fills with
 * the clock once the event's place in the ring is taken: then nothing
 * recorded in between (an interrupt) can land after it with an earlier
 * time. */
void tw__trace_put_stamped(uint16_t id, const uint32_t *words, uint32_t n);

/* The emitters' usual put: event id with the timestamp read by the logger
 * and n (1 or 2) payload words in registers: hdr = id << 16 | (1 + n). Any
 * context; a full ring counts a drop. */
void tw__trace_put_now(uint32_t hdr, uint32_t a, uint32_t b);

#define TW_TRACE_ON(id) tw_trace_on(id)
#define TW_TRACE_PUT_NOW(id, n, a, b) \
  tw__trace_put_now((uint32_t)(id) << 16 | (1u + (uint32_t)(n)), (a), (b))
#define TW_TRACE_NOW() tw_trace_now()
#define TW_TRACE_PUT(id, w, n) tw__trace_put((uint16_t)(id), (w), (n))
#define TW_TRACE_PUT_STAMPED(id, w, n) tw__trace_put_stamped((uint16_t)(id), (w), (n))
#include "tracewire/events_gen.h"

/* ---- names ----------------------------------------------------------------- */

struct tw_name_entry {
  uint8_t kind;                 /* enum tw_obj_kind */
  uint8_t prio;                 /* task priority; 0 for other kinds */
  uint16_t number;
  char name[TW_CFG_NAME_MAX];
};

/* Name object `number` of `kind`. name is copied (truncated to
 * TW_CFG_NAME_MAX - 1 bytes). Registering a number again renames it (the
 * host keeps the last NAME record). Returns 0, TW_EINVAL (kind out of
 * range, NULL or empty name), TW_ENOSPC (table full: counted, see
 * tw_name_lost). Thread context, or an RTOS hook inside a critical
 * section; registrations are published to the collector in order
 * (release), and one registered while recording goes out as a NAME record
 * before any event the registering code records after it. */
int tw_name_register(enum tw_obj_kind kind, uint16_t number, const char *name, uint8_t prio);

/* Entries 0..n-1 are complete and never change: the two predefined task
 * names (EnterInt, LeaveInt) followed by the registered ones. Any context. */
uint32_t tw_name_count(void);
const struct tw_name_entry *tw_name_at(uint32_t i);
/* Registrations refused because the table was full (TW_ENOSPC), since
 * start-up or the last reset: the streamer reports it in the trace
 * (NAMES_LOST records), so a missing name is never silent. Any context. */
uint32_t tw_name_lost(void);
/* Forget every registered name and the lost count (tests; thread context,
 * tracing stopped). */
void tw_name_reset(void);

/* ---- custom events ------------------------------------------------------- */

#ifndef TW_CFG_BYTES_MAX
#define TW_CFG_BYTES_MAX 128  /* bytes of one string/blob custom event */
#endif

struct tw_custom_decl {
  uint16_t id;
  uint8_t timed;                /* 1: first data word is the timestamp */
  uint8_t nfields;
  uint8_t bytes;                /* 1: one STR or BLOB field (snapshot data) */
  char decl[TW_CFG_DECL_MAX];   /* "Name field:U8 field:U16 ..." */
};

/* Declare custom event `id`: decl is "Name field:TYPE ..." with TYPE one
 * of U8 U16 U32 (unsigned), I8 I16 I32 (two's complement) or F32 (IEEE-754
 * single), one 32-bit word per field (tw_word_i32 / tw_word_f32 make the
 * word); or "Name field:STR" /
 * "Name field:BLOB", a single field of bytes recorded with
 * tw_custom_bytes() and streamed as snapshot records. Returns 0, TW_EINVAL (id used
 * by the vocabulary or 0, bad declaration syntax or too long), TW_EEXIST
 * (id declared), TW_ENOSPC (table full). Thread context. */
#if TW_CFG_CUSTOM_DECLS
int tw_custom_declare(uint16_t id, int timed, const char *decl);
uint32_t tw_custom_count(void);
const struct tw_custom_decl *tw_custom_at(uint32_t i);
const struct tw_custom_decl *tw_custom_find(uint16_t id);
void tw_custom_reset(void);

/* Record custom event id with n data words (n <= TW_CUSTOM_MAX_WORDS; the
 * timestamp is added first when the declaration says timed). Ids 1..32
 * obey the mask; others are recorded while tracing runs (mask != 0).
 * Any context; void: a full ring counts a drop, and so does an event too
 * large to record (n > TW_CUSTOM_MAX_WORDS, or larger than the ring),
 * announced to the host by DROPS (docs/instrumentation.md). */
void tw_custom(uint16_t id, const uint32_t *data, uint32_t n);
#endif

/* Data words for I8/I16/I32 and F32 fields of tw_custom(): the value's
 * bits, without undefined behaviour (a signed-to-unsigned conversion is
 * modular; a float goes through a union). The host keeps the low 8/16 bits
 * of an I8/I16 word, so any int in range works. Pure; any context. */
static inline uint32_t tw_word_i32(int32_t v) { return (uint32_t)v; }
static inline uint32_t tw_word_f32(float v) { return tw_f32_to_bits(v); }
/* Record a STR/BLOB custom event: len bytes (<= TW_CFG_BYTES_MAX; longer
 * is cut) go through the logger as { [timestamp], len, bytes packed in
 * native-order words } and leave the target as snapshot records holding
 * the bytes. Same mask rule, context and drops as tw_custom(); a ring
 * too small for the event drops it. TW_CFG_BYTES_MAX is at most 1012 (one
 * logger event; checked at build time). */
#if TW_CFG_CUSTOM_DECLS
void tw_custom_bytes(uint16_t id, const void *data, uint32_t len);
#else
/* Built without custom events (TW_CFG_CUSTOM_DECLS=0, the minimal
 * configuration of docs/performance.md): the table is empty, declaring
 * one is refused (TW_ENOSPC) and recording one does nothing. Inline, so
 * whatever would handle them (the streamer's CUSTOM_DECL and STR/BLOB
 * records) compiles away. */
static inline int tw_custom_declare(uint16_t id, int timed, const char *decl)
{
  (void)id; (void)timed; (void)decl;
  return TW_ENOSPC;
}
static inline uint32_t tw_custom_count(void) { return 0; }
static inline const struct tw_custom_decl *tw_custom_at(uint32_t i) { (void)i; return NULL; }
static inline const struct tw_custom_decl *tw_custom_find(uint16_t id) { (void)id; return NULL; }
static inline void tw_custom_reset(void) {}
static inline void tw_custom(uint16_t id, const uint32_t *data, uint32_t n)
{
  (void)id; (void)data; (void)n;
}
static inline void tw_custom_bytes(uint16_t id, const void *data, uint32_t len)
{
  (void)id; (void)data; (void)len;
}
#endif

#ifdef __cplusplus
}
#endif

#endif
