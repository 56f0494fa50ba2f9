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

#include <stddef.h>
#include <stdint.h>

enum tw_marker {
  TW_MARKER_NONE, TW_MARKER_UP, TW_MARKER_DOWN, TW_MARKER_PUSH,
  TW_MARKER_UP_BLOCK, TW_MARKER_DOWN_BLOCK, TW_MARKER_UP_UP, TW_MARKER_UP_PUSH,
  TW_MARKER_UP_UP_PUSH, TW_MARKER_INC, TW_MARKER_DEC, TW_MARKER_WAIT,
  TW_MARKER_PASS, TW_MARKER_COUNT
};

enum tw_field_type { TW_FT_U8, TW_FT_U16, TW_FT_U32, TW_FT_ENUM8, TW_FT_STRING };

/* Numbered object kinds; also the wire value of NAME.kind. */
enum tw_obj_kind {
  TW_OBJ_NONE, TW_OBJ_TASK, TW_OBJ_MUTEX, TW_OBJ_SEM, TW_OBJ_EVENT,
  TW_OBJ_MSEM, TW_OBJ_MEVENT, TW_OBJ_ASEM, TW_OBJ_RSEM, TW_OBJ_IRQ,
  TW_OBJ_THREAD, TW_OBJ_OBJKIND, TW_OBJ_COUNT
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

#endif
