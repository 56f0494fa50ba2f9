/*
 * The hot path: one decoded event into the model and out to callbacks.
 * Kept in one file so the compiler sees all of it (the benchmark,
 * bench/bench_mti.c, holds it to a few ns per delivered event).
 *
 * Per event: component by stream index, source by the id table, the model
 * state (only for components someone can ask about it, see
 * mti_component.track), then, only for a "hot" source, counters, one
 * record fill of the fields some class selects, and the callbacks of each
 * active class.
 */
#include <string.h>
#include "model/mti_internal.h"
#include "tracewire/error.h"

#define unlikely(x) __builtin_expect(!!(x), 0)

/* ---- dispatch ------------------------------------------------------------------ */

static void put_uint(uint8_t *p, uint64_t v, unsigned size)
{
  switch (size) {
  case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
  case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
  case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
  default: memcpy(p, &v, size < 8 ? size : 8); break;
  }
}

static void put_var(uint8_t *p, const struct tw__mti_field_spec *f, const char *s, size_t len)
{
  MTI_EventFieldType_Size n = (MTI_EventFieldType_Size)(len < f->max_size ? len : f->max_size);
  memcpy(p - sizeof n, &n, sizeof n);
  if (n)
    memcpy(p, s, n);
  if (f->type == MTI_STRING)
    p[n] = 0;
}

/* Variable-size fields, after the numeric ones; out of line so the
 * numeric loop below makes no call and keeps its values in registers. */
static __attribute__((noinline)) void fill_strings(const struct mti_source *s, uint8_t *rec,
                                                   const struct tw_event *ev)
{
  for (int i = s->nnum; i < s->nops; i++) {
    const struct mti_fill_op *op = &s->ops[i];
    put_var(rec + op->off, &s->spec->fields[op->field], ev->str, ev->str ? ev->str_len : 0);
  }
}

/* Only the fields some class selects, by the precomputed steps: a record
 * is filled once per event, so this loop is the per-event cost of values. */
static inline void fill_numeric(const struct mti_source *s, uint8_t *rec,
                                const struct tw_event *ev)
{
  const struct mti_fill_op *op = s->ops, *end = op + s->nnum; /* rec stores may alias s */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* one load, mask and 8-byte store per field, no branch on the type:
   * the ops are in offset order and the record has 8 bytes of slack (see
   * build_ops in mti_source.c) */
  for (; op < end; op++) {
    const uint8_t *src = (const uint8_t *)ev + op->src_off;
    uint64_t v;
    if (op->mask >> 32) { /* the time: 8 bytes */
      memcpy(&v, src, 8);
    } else { /* 4 bytes: an 8-byte load across two fresh 4-byte stores of
              * the producer would miss store forwarding */
      uint32_t x;
      memcpy(&x, src, 4);
      v = x & op->mask;
    }
    memcpy(rec + op->off, &v, 8);
  }
#else
  for (; op < end; op++) {
    uint8_t *p = rec + op->off;
    switch (op->op) {
    case MTI_OP_U8: *p = (uint8_t)ev->values[op->src]; break;
    case MTI_OP_U16: { uint16_t x = (uint16_t)ev->values[op->src]; memcpy(p, &x, 2); break; }
    case MTI_OP_U32: memcpy(p, &ev->values[op->src], 4); break;
    case MTI_OP_U64: { uint64_t x = ev->values[op->src]; memcpy(p, &x, 8); break; }
    case MTI_OP_TIME: memcpy(p, &ev->time_ns, 8); break;
    case MTI_OP_SEQ: memcpy(p, &ev->seq, 4); break;
    default: break; /* strings come after nnum */
    }
  }
#endif
}

static inline void fill_from_event(const struct mti_source *s, uint8_t *rec,
                                   const struct tw_event *ev)
{
  fill_numeric(s, rec, ev);
  if (unlikely(s->nops > s->nnum))
    fill_strings(s, rec, ev);
}

void tw__mti_record_fill_given(const struct mti_source *s, uint8_t *rec,
                               const struct tw__mti_val *vals)
{
  const struct tw__mti_source_spec *spec = s->spec;
  for (int i = 0; i < spec->nfields; i++) {
    const struct tw__mti_field_spec *f = &spec->fields[i];
    uint8_t *p = rec + spec->offsets[i];
    if (f->size == 0)
      put_var(p, f, vals[i].s, vals[i].s ? vals[i].len : 0);
    else
      put_uint(p, vals[i].u, f->size);
  }
}

/* Calls are grouped by class: the id is rewritten only between classes. */
static inline void deliver(struct mti_source *s)
{
  MTI_EventRecord *rec = (MTI_EventRecord *)(void *)s->record;
  const struct mti_call *call = s->calls, *end = call + s->ncalls;
  for (; call < end; call++) {
    rec->event_class_id = call->id;
    call->fn(call->user, call->ec, rec);
  }
}

static void count(struct mti_source *s)
{
  for (size_t i = 0; i < s->n64; i++)
    ++*s->c64[i];
  for (size_t i = 0; i < s->n32; i++)
    ++*s->c32[i];
}

static inline void dispatch(struct mti_source *s, const struct tw_event *ev)
{
  if (unlikely(s->n64 | s->n32))
    count(s);
  if (s->ncalls) {
    fill_from_event(s, s->record, ev);
    deliver(s);
  }
}

static __attribute__((noinline)) void dispatch_general(struct mti_source *s,
                                                      const struct tw_event *ev)
{
  dispatch(s, ev);
}

void tw__mti_source_emit(struct mti_source *s, const struct tw__mti_val *vals)
{
  if (!s || !s->hot)
    return;
  count(s);
  if (s->ncalls) {
    tw__mti_record_fill_given(s, s->record, vals);
    deliver(s);
  }
}

static struct mti_component *comp_slow(struct tw_mti_system *sys, const struct tw_event *ev)
{
  if (tw_mti_system_add_component(sys, ev->stream, ev->endpoint, ev->instance, NULL) < 0)
    return NULL;
  return sys->by_stream[ev->stream];
}

static int index_slow(struct tw_mti_system *sys, const struct tw_event *ev)
{
  int idx = tw__mti_source_index(sys, ev->id);
  if (idx < 0 && ev->desc && ev->desc->id == ev->id &&
      tw_mti_system_declare_event(sys, ev->desc) == 0)
    idx = tw__mti_source_index(sys, ev->id);
  if (idx < 0)
    sys->unknown++;
  return idx;
}

/* The part of feed for events someone listens to or the model keeps:
 * out of line, so the early exit above stays a handful of instructions. */
static __attribute__((noinline)) int feed_hot(struct tw_mti_system *sys,
                                              struct mti_component *c, int idx, unsigned f,
                                              const struct tw_event *ev)
{
  struct mti_source *s = c->sources[idx];
  sys->gate |= MTI_GATE_IN_FEED;
  sys->cur_event = ev;
  sys->cur_comp = c;
  /* State first: the event's callbacks (and DumpState from them) see the
   * state including this event; TASKS/MUTEXES/SEMAPHORES changes the event
   * causes are delivered before it. */
  if (f & (MTI_F_STATE | MTI_F_NAME))
    tw__mti_state_update(c, ev);
  if (f & MTI_F_HOT)
    dispatch(s, ev);
  sys->gate &= (uint8_t)~MTI_GATE_IN_FEED;
  return 0;
}

/* The common case of a plugin listening and no model state to keep. */
static __attribute__((noinline)) int feed_listen(struct tw_mti_system *sys,
                                                 struct mti_component *c, int idx,
                                                 const struct tw_event *ev)
{
  struct mti_source *s = c->sources[idx];
  sys->gate |= MTI_GATE_IN_FEED;
  sys->cur_event = ev; /* stale after the event: TraceContext checks the gate */
  sys->cur_comp = c;
  if (s->one_call) { /* no loops: one callee-saved register instead of four */
    const struct mti_call *call = s->calls;
    MTI_EventRecord *rec = (MTI_EventRecord *)(void *)s->record;
    fill_numeric(s, s->record, ev);
    rec->event_class_id = call->id;
    call->fn(call->user, call->ec, rec);
  } else {
    dispatch_general(s, ev);
  }
  sys->gate &= (uint8_t)~MTI_GATE_IN_FEED;
  return 0;
}

static __attribute__((noinline)) int feed_slow(struct tw_mti_system *sys,
                                               const struct tw_event *ev)
{
  struct mti_component *c = NULL;
  int idx;
  unsigned f;
  if (sys->gate) /* stopped, or from a callback: events do not nest */
    return sys->gate & MTI_GATE_IN_FEED ? TW_EBUSY : TW_EINVAL;
  if (ev->stream < sys->nby_stream)
    c = sys->by_stream[ev->stream];
  if (!c && !(c = comp_slow(sys, ev)))
    return TW_ENOMEM;
  if ((idx = index_slow(sys, ev)) < 0)
    return 0;
  f = c->flags[idx];
  return f ? feed_hot(sys, c, idx, f, ev) : 0;
}

int tw_mti_system_feed(struct tw_mti_system *sys, const struct tw_event *ev)
{
  struct mti_component *c;
  unsigned f;
  int idx;
  /* separate tests: each a predicted branch, cheaper than or-ing setcc's */
  if (unlikely(sys->gate) || unlikely(ev->stream >= sys->nby_stream) ||
      unlikely(ev->id >= TW__MTI_ID_TABLE))
    return feed_slow(sys, ev);
  c = sys->by_stream[ev->stream];
  idx = sys->id_index[ev->id];
  if (unlikely(!c || idx < 0))
    return feed_slow(sys, ev);
  f = c->flags[idx];
  if (!f)
    return 0; /* nobody listens and nothing to remember */
  if (f == MTI_F_HOT)
    return feed_listen(sys, c, idx, ev);
  return feed_hot(sys, c, idx, f, ev);
}
