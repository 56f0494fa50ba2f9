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
#include "host/mti_internal.h"
#include "tracewire/error.h"

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

/* Only the fields some class selects: a record is filled once per event,
 * so this loop is the per-event cost of the values. */
static inline void fill_from_event(const struct mti_source *s, uint8_t *rec, const struct tw_event *ev)
{
  const struct tw__mti_source_spec *spec = s->spec;
  for (MTI_FieldMask m = s->fill_mask; m; m &= m - 1) {
    int i = __builtin_ctz(m);
    const struct tw__mti_field_spec *f = &spec->fields[i];
    uint8_t *p = rec + spec->offsets[i];
    switch (f->fill) {
    case MTI_FILL_VALUE: put_uint(p, ev->values[f->src_index], f->size); break;
    case MTI_FILL_STRING: put_var(p, f, ev->str, ev->str ? ev->str_len : 0); break;
    case MTI_FILL_TIME: put_uint(p, ev->time_ns, 8); break;
    case MTI_FILL_SEQ: put_uint(p, ev->seq, 4); break;
    case MTI_FILL_GIVEN: break;
    }
  }
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

static inline void deliver(struct mti_source *s)
{
  MTI_EventRecord *rec = (MTI_EventRecord *)(void *)s->record;
  for (size_t i = 0; i < s->nactive; i++) {
    const struct mti_class *c = s->active[i];
    rec->event_class_id = c->id;
    for (size_t k = 0; k < c->ncbs; k++)
      c->cbs[k].fn(c->cbs[k].user, &c->base, rec);
  }
}

static inline void count(struct mti_source *s)
{
  for (size_t i = 0; i < s->n64; i++)
    ++*s->c64[i];
  for (size_t i = 0; i < s->n32; i++)
    ++*s->c32[i];
}

static inline void dispatch(struct mti_source *s, const struct tw_event *ev)
{
  count(s);
  if (s->nactive) {
    fill_from_event(s, s->record, ev);
    deliver(s);
  }
}

void tw__mti_source_emit(struct mti_source *s, const struct tw__mti_val *vals)
{
  if (!s || !s->hot)
    return;
  count(s);
  if (s->nactive) {
    tw__mti_record_fill_given(s, s->record, vals);
    deliver(s);
  }
}

#define unlikely(x) __builtin_expect(!!(x), 0)

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

int tw_mti_system_feed(struct tw_mti_system *sys, const struct tw_event *ev)
{
  struct mti_component *c = NULL;
  struct mti_source *s;
  unsigned f;
  int idx;
  if (unlikely(!sys->running))
    return TW_EINVAL;
  if (unlikely(sys->in_feed)) /* from a callback: events do not nest */
    return TW_EBUSY;
  if (ev->stream < sys->nby_stream)
    c = sys->by_stream[ev->stream];
  if (unlikely(!c) && !(c = comp_slow(sys, ev)))
    return TW_ENOMEM;
  idx = ev->id < TW__MTI_ID_TABLE ? sys->id_index[ev->id] : -1;
  if (unlikely(idx < 0) && (idx = index_slow(sys, ev)) < 0)
    return 0;
  if (!(f = c->flags[idx]))
    return 0; /* nobody listens and nothing to remember */
  s = c->sources[idx];
  sys->in_feed = true;
  sys->cur_event = ev;
  sys->cur_comp = c;
  /* State first: the event's callbacks (and DumpState from them) see the
   * state including this event; TASKS/MUTEXES/SEMAPHORES changes the event
   * causes are delivered before it. */
  if (f & (MTI_F_STATE | MTI_F_NAME))
    tw__mti_state_update(c, s, ev);
  if (f & MTI_F_HOT)
    dispatch(s, ev);
  sys->cur_event = NULL;
  sys->cur_comp = NULL;
  sys->in_feed = false;
  return 0;
}
