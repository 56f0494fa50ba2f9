/*
 * The event vocabulary as data: descriptors derived from events.def by
 * tools/gen/gen_events.py (src/common/events_desc.c, committed, checked
 * fresh by a test). Decoders, the trace model, exporters and docs read
 * these; nothing else lists events.
 *
 * Freestanding (the target uses the same tables for names and mask
 * validation). Read-only data: any context.
 */
#ifndef TRACEWIRE_VOCAB_H
#define TRACEWIRE_VOCAB_H

#include "tracewire/cdefs.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tw_marker {
  TW_MARKER_NONE, TW_MARKER_UP, TW_MARKER_DOWN, TW_MARKER_PUSH,
  TW_MARKER_UP_BLOCK, TW_MARKER_DOWN_BLOCK, TW_MARKER_UP_UP, TW_MARKER_UP_PUSH,
  TW_MARKER_UP_UP_PUSH, TW_MARKER_INC, TW_MARKER_DEC, TW_MARKER_WAIT,
  TW_MARKER_PASS, TW_MARKER_COUNT
};

/* Appended values never renumber old ones (plugins and tools switch on
 * them). I8..I32 are two's complement in the low `bits` of the data word;
 * F32 is an IEEE-754 single, the word's 32 bits. Decoded values stay raw
 * bits (zero-extended): read them with tw_field_i32() / tw_f32_from_bits(). */
enum tw_field_type {
  TW_FT_U8, TW_FT_U16, TW_FT_U32, TW_FT_ENUM8, TW_FT_STRING,
  TW_FT_I8, TW_FT_I16, TW_FT_I32, TW_FT_F32
};

/* Numbered object kinds; also the wire value of NAME.kind. Appended
 * values never renumber old ones (QUEUE.. came with the FreeRTOS events:
 * message queues, event groups, software timers, stream buffers). */
enum tw_obj_kind {
  TW_OBJ_NONE, TW_OBJ_TASK, TW_OBJ_MUTEX, TW_OBJ_SEM, TW_OBJ_EVENT,
  TW_OBJ_MSEM, TW_OBJ_MEVENT, TW_OBJ_ASEM, TW_OBJ_RSEM, TW_OBJ_IRQ,
  TW_OBJ_THREAD, TW_OBJ_OBJKIND, TW_OBJ_QUEUE, TW_OBJ_EGROUP, TW_OBJ_TIMER,
  TW_OBJ_SBUF, TW_OBJ_COUNT
};

/* Record module ids (bottom 16 bits of the id word). */
enum tw_module { TW_MOD_KERNEL = 1, TW_MOD_RTOS = 2, TW_MOD_CONTROL = 3, TW_MOD_CUSTOM = 4 };

#define TW_EVF_TIMED    0x01u /* first logger word is the 32-bit timestamp */
#define TW_EVF_STREAMER 0x02u /* produced by the streamer; no mask bit */

struct tw_enum_desc {
  const char *name;        /* seed constant name: "Lock", "EnterInt" */
  uint32_t value;
  enum tw_marker marker;
  const char *doc;
};

struct tw_field_desc {
  const char *name;        /* "task" */
  enum tw_field_type type;
  uint8_t word;            /* payload word index (after the timestamp word) */
  uint8_t shift;           /* bit offset in that word */
  uint8_t bits;            /* 8, 16, 32; 0 for STRING (snapshot data) */
  enum tw_obj_kind obj;
  const char *doc;
};

struct tw_event_desc {
  uint16_t id;             /* wire and logger id */
  uint16_t module;         /* enum tw_module */
  uint8_t flags;           /* TW_EVF_* */
  uint8_t nfields;
  uint8_t payload_words;   /* packed words after the timestamp word */
  int8_t marker_field;     /* index into fields, or -1 */
  enum tw_marker default_marker;
  uint8_t nenums;
  const char *name;        /* "MUTEX" */
  const char *seed_name;   /* "MutexEvent" */
  const char *doc;
  const struct tw_field_desc *fields;
  const struct tw_enum_desc *enums;
};

extern const struct tw_event_desc tw_event_descs[];
extern const size_t tw_event_ndescs;

/* NULL for an id the vocabulary does not define. */
const struct tw_event_desc *tw_event_desc_by_id(uint16_t id);
/* The marker for a value of the event's marker field. */
enum tw_marker tw_event_marker(const struct tw_event_desc *d, uint32_t marker_value);
/* Enum constant name for a value of the marker field, or NULL. */
const char *tw_event_enum_name(const struct tw_event_desc *d, uint32_t value);
const char *tw_marker_name(enum tw_marker m);   /* "UpBlock" */
const char *tw_obj_kind_name(enum tw_obj_kind k); /* "mutex" */
/* Value of a packed field from host-order payload words. */
static inline uint32_t tw_field_get(const struct tw_field_desc *f, const uint32_t *words)
{
  uint32_t w = words[f->word] >> f->shift;
  return f->bits >= 32 ? w : (w & ((1u << f->bits) - 1u));
}

static inline int tw_field_type_signed(enum tw_field_type t)
{
  return t == TW_FT_I8 || t == TW_FT_I16 || t == TW_FT_I32;
}

/* Raw field bits (low `bits` of raw) as a signed value. Written without
 * shifts or casts of out-of-range values, which C leaves to the
 * implementation. */
static inline int32_t tw_field_sext(uint32_t raw, unsigned bits)
{
  uint32_t mask = bits >= 32 || bits == 0 ? 0xFFFFFFFFu : (1u << bits) - 1u;
  uint32_t sign = bits >= 32 || bits == 0 ? 0x80000000u : 1u << (bits - 1);
  raw &= mask;
  return (raw & sign) ? -(int32_t)(~raw & mask) - 1 : (int32_t)raw;
}

static inline int32_t tw_field_i32(const struct tw_field_desc *f, uint32_t raw)
{
  return tw_field_sext(raw, f->bits);
}

/* A float's bits and back. Reading a union member other than the one last
 * stored reinterprets the bytes in C11 (6.5.2.3, note 95): no UB, no libc,
 * so the target may use it too. */
static inline uint32_t tw_f32_to_bits(float v)
{
  union { float f; uint32_t u; } x;
  x.f = v;
  return x.u;
}

static inline float tw_f32_from_bits(uint32_t bits)
{
  union { float f; uint32_t u; } x;
  x.u = bits;
  return x.f;
}

TW_STATIC_ASSERT(sizeof(float) == sizeof(uint32_t), "F32 fields need a 32-bit float");

#ifdef __cplusplus
}
#endif

#endif
