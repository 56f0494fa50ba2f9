/*
 * The RTOS state model (tracewire/model/rtos.h): tables, feeding and
 * queries. What the acts do is in rtos_acts.c, names in rtos_names.c;
 * docs/model.md is the reference for both.
 *
 * Lookups on the hot path are array reads: stream -> core, event id ->
 * its meaning rows (by index below ID_TABLE), (endpoint, number) -> task
 * by a two-level page table. An endpoint is found by a one-entry cache
 * in front of a short list (one per target).
 */
#include <stdlib.h>
#include <string.h>
#include "rtos_internal.h"
#include "tracewire/error.h"

/* ---- growth ----------------------------------------------------------------------- */

static int grow_ptrs(void *arrp, size_t *cap, size_t need)
{
  void ***arr = arrp;
  size_t n = *cap ? *cap : 16;
  void **a;
  if (need <= *cap)
    return 0;
  while (n < need)
    n *= 2;
  if (!(a = realloc(*arr, n * sizeof *a)))
    return TW_ENOMEM;
  memset(a + *cap, 0, (n - *cap) * sizeof *a);
  *arr = a;
  *cap = n;
  return 0;
}

/* The slot of `number` in a page table, allocating its page when asked. */
static void *page_slot_slow(struct pages *p, uint32_t number, size_t elem, int create)
{
  size_t pi = number >> PAGE_BITS;
  if (number >= MAX_NUMBER)
    return NULL;
  if (pi >= p->n) {
    if (!create || grow_ptrs(&p->page, &p->n, pi + 1) < 0)
      return NULL;
  }
  if (!p->page[pi]) {
    if (!create || !(p->page[pi] = calloc(PAGE_SIZE, elem)))
      return NULL;
  }
  return (char *)p->page[pi] + (number & (PAGE_SIZE - 1)) * elem;
}

static inline void *page_slot(struct pages *p, uint32_t number, size_t elem, int create)
{
  size_t pi = number >> PAGE_BITS;
  if (pi < p->n && p->page[pi]) /* the common case: two loads */
    return (char *)p->page[pi] + (number & (PAGE_SIZE - 1)) * elem;
  return page_slot_slow(p, number, elem, create);
}

static void pages_free(struct pages *p)
{
  for (size_t i = 0; i < p->n; i++)
    free(p->page[i]);
  free(p->page);
}

static int add_id(void *arrp, size_t *n, size_t *cap, void *item)
{
  void ***arr = arrp;
  if (*n == *cap && grow_ptrs(arr, cap, *n + 1) < 0)
    return TW_ENOMEM;
  (*arr)[(*n)++] = item;
  return 0;
}

/* ---- tasks, objects, endpoints, cores --------------------------------------------- */

struct rtask *tw__rtos_task_find(const struct rep *e, uint32_t number)
{
  struct rtask *t = page_slot((struct pages *)&e->tasks, number, sizeof *t, 0);
  return t && t->used ? t : NULL;
}

struct rtask *tw__rtos_task_get(struct tw_rtos *m, struct rep *e, uint32_t number)
{
  struct rtask *t = page_slot(&e->tasks, number, sizeof *t, 1);
  if (!t) {
    if (number >= MAX_NUMBER)
      m->out_of_range++;
    else
      m->oom++;
    return NULL;
  }
  if (t->used)
    return t;
  if (add_id(&m->tasks, &m->ntasks, &m->captasks, t) < 0 ||
      add_id(&e->tlist, &e->ntlist, &e->captlist, t) < 0) {
    if (m->ntasks && m->tasks[m->ntasks - 1] == t)
      m->ntasks--;
    m->oom++;
    return NULL;
  }
  t->used = 1;
  t->pub.id = (uint32_t)(m->ntasks - 1);
  t->pub.endpoint = e->endpoint;
  t->pub.number = (uint16_t)number;
  t->pub.base_prio = t->pub.prio = -1;
  t->pub.core = -1;
  t->pub.name = tw_rtos_name(m, e->endpoint, TW_OBJ_TASK, number);
  e->unknown++;
  return t;
}

struct robj *tw__rtos_obj_find(const struct rep *e, unsigned kind, uint32_t number)
{
  struct robj *o;
  if (kind >= TW_OBJ_COUNT)
    return NULL;
  o = page_slot((struct pages *)&e->objs[kind], number, sizeof *o, 0);
  return o && o->used ? o : NULL;
}

struct robj *tw__rtos_obj_get(struct tw_rtos *m, struct rep *e, unsigned kind, uint32_t number)
{
  struct robj *o;
  if (kind >= TW_OBJ_COUNT || kind == TW_OBJ_NONE)
    return NULL;
  if (!(o = page_slot(&e->objs[kind], number, sizeof *o, 1))) {
    if (number >= MAX_NUMBER)
      m->out_of_range++;
    else
      m->oom++;
    return NULL;
  }
  if (o->used)
    return o;
  if (add_id(&m->objs, &m->nobjs, &m->capobjs, o) < 0 ||
      add_id(&e->olist, &e->nolist, &e->capolist, o) < 0) {
    if (m->nobjs && m->objs[m->nobjs - 1] == o)
      m->nobjs--;
    m->oom++;
    return NULL;
  }
  o->used = 1;
  o->pub.id = (uint32_t)(m->nobjs - 1);
  o->pub.endpoint = e->endpoint;
  o->pub.kind = (uint8_t)kind;
  o->pub.number = number;
  o->pub.holder_known = 1; /* free until shown otherwise */
  o->pub.count_exact = 1;  /* 0 units until given: a count starts at 0 */
  o->pub.name = tw_rtos_name(m, e->endpoint, (enum tw_obj_kind)kind, number);
  return o;
}

static struct rep *ep_get(struct tw_rtos *m, uint16_t endpoint)
{
  struct rep *e;
  if (m->last_ep && m->last_ep->endpoint == endpoint)
    return m->last_ep;
  for (size_t i = 0; i < m->neps; i++)
    if (m->eps[i]->endpoint == endpoint)
      return m->last_ep = m->eps[i];
  if (!(e = calloc(1, sizeof *e)))
    return NULL;
  if (add_id(&m->eps, &m->neps, &m->capeps, e) < 0) {
    free(e);
    return NULL;
  }
  e->endpoint = endpoint;
  return m->last_ep = e;
}

static struct rcore *core_new(struct tw_rtos *m, const struct tw_event *ev)
{
  struct rep *e = ep_get(m, ev->endpoint);
  struct rcore *c;
  if (!e || grow_ptrs(&m->by_stream, &m->nby_stream, (size_t)ev->stream + 1) < 0 ||
      !(c = calloc(1, sizeof *c)))
    return NULL;
  if (add_id(&m->cores, &m->ncores, &m->capcores, c) < 0) {
    free(c);
    return NULL;
  }
  c->ep = e;
  c->pub.id = (uint32_t)(m->ncores - 1);
  c->pub.stream = ev->stream;
  c->pub.endpoint = ev->endpoint;
  c->pub.instance = ev->instance;
  c->pub.frames = c->frames;
  c->pub.t0 = c->pub.t = c->owner_since = ev->time_ns;
  m->by_stream[ev->stream] = c;
  return c;
}

static inline struct rcore *core_of(struct tw_rtos *m, const struct tw_event *ev)
{
  if (ev->stream < m->nby_stream && m->by_stream[ev->stream])
    return m->by_stream[ev->stream];
  return core_new(m, ev);
}

/* ---- meanings --------------------------------------------------------------------- */

static const struct tw_meaning *meaning_scan(const struct tw_meaning *r, uint16_t id, uint32_t v)
{
  for (; r < tw_meanings + tw_nmeanings && r->id == id; r++)
    if (r->any || r->value == v)
      return r;
  return NULL;
}

static int index_meanings(struct tw_rtos *m)
{
  size_t nslots = 0;
  if (!(m->row_marker = malloc(tw_nmeanings + 1)))
    return TW_ENOMEM;
  for (size_t i = tw_nmeanings; i-- > 0;) { /* backwards: the first row of an id wins */
    const struct tw_meaning *r = &tw_meanings[i];
    const struct tw_event_desc *d = tw_event_desc_by_id(r->id);
    if (r->id < ID_TABLE)
      m->by_id[r->id] = r;
    m->row_marker[i] = (uint8_t)(!d ? TW_MARKER_NONE : r->any ? d->default_marker
                                                     : tw_event_marker(d, r->value));
  }
  /* the row of each small marker value, as the scan finds it */
  for (size_t id = 0; id < ID_TABLE; id++)
    if (m->by_id[id])
      nslots++;
  if (!(m->by_val = calloc((size_t)nslots + 1, sizeof *m->by_val)))
    return TW_ENOMEM;
  nslots = 0;
  for (size_t id = 0; id < ID_TABLE; id++) {
    if (!m->by_id[id])
      continue;
    m->val_slot[id] = (uint16_t)++nslots;
    for (uint32_t v = 0; v < VAL_TABLE; v++)
      m->by_val[nslots][v] = meaning_scan(m->by_id[id], (uint16_t)id, v);
  }
  return 0;
}

static inline const struct tw_meaning *meaning_of(const struct tw_rtos *m,
                                                  const struct tw_event *ev)
{
  uint32_t v;
  uint16_t slot;
  int mf;
  if (ev->id >= ID_TABLE)
    return NULL; /* no vocabulary event lives there */
  if (!(slot = m->val_slot[ev->id]) || !ev->desc || ev->desc->id != ev->id ||
      ev->module == TW_MOD_CUSTOM)
    return NULL; /* a custom event that reuses an id means nothing */
  mf = ev->desc->marker_field;
  v = mf >= 0 && mf < ev->nvalues ? ev->values[mf] : 0;
  if (v < VAL_TABLE)
    return m->by_val[slot][v];
  return meaning_scan(m->by_id[ev->id], ev->id, v);
}

/* ---- feeding ------------------------------------------------------------------------ */

void tw__rtos_emit_all(struct tw_rtos *m, const struct tw_rtos_change *ch)
{
  uint32_t bit = TW_RTOS_CH_BIT(ch->kind);
  for (int i = 0; i < m->nobs; i++)
    if (m->obs[i].kinds & bit)
      m->obs[i].fn(m->obs[i].ctx, ch);
}

static void apply_pending(struct tw_rtos *m, struct rcore *c, uint64_t t)
{
  c->has_pending = 0;
  for (int k = 0; k < TW_RTOS_NCAUSES; k++) {
    uint64_t n = c->pending[k];
    c->pending[k] = 0;
    if (n)
      tw__rtos_apply_loss(m, c, t, (enum tw_rtos_loss_cause)k, n);
  }
}

int tw_rtos_feed(struct tw_rtos *m, const struct tw_event *ev)
{
  return tw__rtos_feed_as(m, ev, NULL);
}

int tw__rtos_feed_as(struct tw_rtos *m, const struct tw_event *ev, const struct tw_meaning *as)
{
  struct rcore *c;
  const struct tw_meaning *mn;
  uint64_t oom = m->oom, t;
  if (m->finished)
    return TW_EINVAL;
  if (!(c = core_of(m, ev))) {
    m->oom++;
    return TW_ENOMEM;
  }
  t = ev->time_ns;
  if (t < c->pub.t) { /* the decoder passes a step back through: hold time still */
    c->pub.backwards++;
    t = c->pub.t;
  }
  c->pub.t = t;
  c->pub.events++;
  m->ev = ev;
  m->mn = NULL;
  m->evtask = NULL;
  if (c->has_pending)
    apply_pending(m, c, t);
  mn = m->mn = as ? as : meaning_of(m, ev);
  /* filled field by field (every field of an EVENT change): zeroing the
   * whole struct on each event costs more than the rest of the feed */
  struct tw_rtos_change ch;
  ch.kind = TW_RTOS_CH_EVENT;
  ch.why = mn ? mn->act : TW_ACT_NONE;
  ch.t = t;
  ch.ev = ev;
  ch.core = &c->pub;
  ch.task = NULL;
  ch.obj = NULL;
  ch.meaning = mn;
  ch.marker = TW_MARKER_NONE;
  ch.value = 0;
  ch.obj_kind = TW_OBJ_NONE;
  ch.obj_number = 0;
  if (mn)
    tw__rtos_act(m, c, mn, ev, t, &ch);
  if (m->ntouched)
    tw__rtos_flush_objs(m);
  if (m->nobs) {
    /* a row for one constant has its marker; a catch-all row may stand for
     * several values, which the vocabulary then says */
    ch.marker = mn && !mn->any && !as ? (enum tw_marker)m->row_marker[mn->row]
                                      : tw_event_marker_of(ev);
    tw__rtos_emit(m, &ch);
  }
  m->ev = NULL;
  m->mn = NULL;
  m->evtask = NULL;
  return m->oom != oom ? TW_ENOMEM : 0;
}

void tw_rtos_loss(struct tw_rtos *m, uint16_t stream, enum tw_rtos_loss_cause cause,
                  uint64_t count)
{
  struct rcore *c = stream < m->nby_stream ? m->by_stream[stream] : NULL;
  if (!c || (unsigned)cause >= TW_RTOS_NCAUSES || !count || m->finished)
    return; /* a stream with no event yet has no state to lose */
  c->pending[cause] += count;
  c->has_pending = 1;
}

void tw_rtos_finish(struct tw_rtos *m)
{
  if (m->finished)
    return;
  for (size_t i = 0; i < m->ncores; i++) {
    struct rcore *c = m->cores[i];
    if (c->has_pending)
      apply_pending(m, c, c->pub.t);
    if (m->ntouched)
      tw__rtos_flush_objs(m);
    tw__rtos_end(m, c);
  }
  m->finished = 1;
}

/* ---- lifetime -------------------------------------------------------------------------- */

int tw_rtos_create(struct tw_rtos **out)
{
  struct tw_rtos *m = calloc(1, sizeof *m);
  *out = NULL;
  if (!m)
    return TW_ENOMEM;
  if (index_meanings(m) < 0) {
    free(m->row_marker);
    free(m->by_val);
    free(m);
    return TW_ENOMEM;
  }
  *out = m;
  return 0;
}

void tw_rtos_destroy(struct tw_rtos *m)
{
  if (!m)
    return;
  for (size_t i = 0; i < m->neps; i++) {
    pages_free(&m->eps[i]->tasks);
    free(m->eps[i]->tlist);
    free(m->eps[i]->olist);
    for (unsigned k = 0; k < TW_OBJ_COUNT; k++)
      pages_free(&m->eps[i]->objs[k]);
    free(m->eps[i]);
  }
  for (size_t i = 0; i < m->ncores; i++)
    free(m->cores[i]);
  free(m->eps);
  free(m->cores);
  free(m->by_stream);
  free(m->tasks);
  free(m->objs);
  tw__rtos_names_free(m);
  free(m->row_marker);
  free(m->by_val);
  free(m);
}

static void wants(struct tw_rtos *m)
{
  m->want = 0;
  m->all_want_all = 1;
  for (int i = 0; i < m->nobs; i++) {
    m->want |= m->obs[i].kinds;
    m->all_want_all &= m->obs[i].kinds == TW_RTOS_CH_ALL;
  }
}

int tw_rtos_observe_kinds(struct tw_rtos *m, tw_rtos_fn fn, void *ctx, uint32_t kinds)
{
  if (m->nobs == TW_RTOS_MAX_OBSERVERS)
    return TW_ENOSPC;
  m->obs[m->nobs++] = (struct observer){fn, ctx, kinds & TW_RTOS_CH_ALL};
  wants(m);
  return 0;
}

int tw_rtos_observe(struct tw_rtos *m, tw_rtos_fn fn, void *ctx)
{
  return tw_rtos_observe_kinds(m, fn, ctx, TW_RTOS_CH_ALL);
}

void tw_rtos_unobserve(struct tw_rtos *m, tw_rtos_fn fn, void *ctx)
{
  for (int i = 0; i < m->nobs; i++)
    if (m->obs[i].fn == fn && m->obs[i].ctx == ctx) {
      memmove(&m->obs[i], &m->obs[i + 1], (size_t)(m->nobs - i - 1) * sizeof m->obs[0]);
      m->nobs--;
      wants(m);
      return;
    }
}

/* ---- queries ---------------------------------------------------------------------------- */

const struct tw_rtos_core *tw_rtos_core_of(const struct tw_rtos *m, uint16_t stream)
{
  return stream < m->nby_stream && m->by_stream[stream] ? &m->by_stream[stream]->pub : NULL;
}

size_t tw_rtos_ncores(const struct tw_rtos *m) { return m->ncores; }

const struct tw_rtos_core *tw_rtos_core_at(const struct tw_rtos *m, size_t id)
{
  return id < m->ncores ? &m->cores[id]->pub : NULL;
}

_Static_assert(offsetof(struct rcore, pub) == 0, "tw_rtos_core_charged: pub comes first");

uint64_t tw_rtos_core_charged(const struct tw_rtos_core *c)
{
  /* pub is rcore's first member: the public pointer is the rcore's */
  return ((const struct rcore *)(const void *)c)->owner_since;
}

static const struct rep *ep_find(const struct tw_rtos *m, uint16_t endpoint)
{
  for (size_t i = 0; i < m->neps; i++)
    if (m->eps[i]->endpoint == endpoint)
      return m->eps[i];
  return NULL;
}

const struct tw_rtos_task *tw_rtos_task(const struct tw_rtos *m, uint16_t endpoint,
                                        uint32_t number)
{
  const struct rep *e = ep_find(m, endpoint);
  struct rtask *t = e ? tw__rtos_task_find(e, number) : NULL;
  return t ? &t->pub : NULL;
}

size_t tw_rtos_ntasks(const struct tw_rtos *m) { return m->ntasks; }

const struct tw_rtos_task *tw_rtos_task_at(const struct tw_rtos *m, size_t id)
{
  return id < m->ntasks ? &m->tasks[id]->pub : NULL;
}

const struct tw_rtos_obj *tw_rtos_obj(const struct tw_rtos *m, uint16_t endpoint,
                                      enum tw_obj_kind kind, uint32_t number)
{
  const struct rep *e = ep_find(m, endpoint);
  struct robj *o = e ? tw__rtos_obj_find(e, (unsigned)kind, number) : NULL;
  return o ? &o->pub : NULL;
}

size_t tw_rtos_nobjs(const struct tw_rtos *m) { return m->nobjs; }

const struct tw_rtos_obj *tw_rtos_obj_at(const struct tw_rtos *m, size_t id)
{
  return id < m->nobjs ? &m->objs[id]->pub : NULL;
}

uint64_t tw_rtos_epoch(const struct tw_rtos *m, uint16_t endpoint)
{
  const struct rep *e = ep_find(m, endpoint);
  return e ? e->epoch : 0;
}

uint32_t tw_rtos_ready(const struct tw_rtos *m, uint16_t endpoint, uint32_t *unknown)
{
  const struct rep *e = ep_find(m, endpoint);
  if (unknown)
    *unknown = e ? e->unknown : 0;
  return e ? e->ready : 0;
}

uint64_t tw_rtos_oom(const struct tw_rtos *m) { return m->oom; }

const char *tw_rtos_state_name(enum tw_rtos_state s)
{
  static const char *const n[TW_RTOS_NSTATES] = {
    [TW_RTOS_UNKNOWN] = "unknown", [TW_RTOS_RUNNING] = "running", [TW_RTOS_READY] = "ready",
    [TW_RTOS_BLOCKED] = "blocked", [TW_RTOS_SUSPENDED] = "suspended",
    [TW_RTOS_DELETED] = "deleted"};
  return (unsigned)s < TW_RTOS_NSTATES ? n[s] : "?";
}

const char *tw_rtos_wait_name(enum tw_rtos_wait w)
{
  static const char *const n[TW_RTOS_NWAITS] = {
    [TW_RTOS_WAIT_NONE] = "none", [TW_RTOS_WAIT_OBJECT] = "object",
    [TW_RTOS_WAIT_CONDITION] = "condition", [TW_RTOS_WAIT_TIME] = "time",
    [TW_RTOS_WAIT_NOTIFY] = "notification", [TW_RTOS_WAIT_UNSEEN] = "unseen"};
  return (unsigned)w < TW_RTOS_NWAITS ? n[w] : "?";
}

const char *tw_rtos_cause_name(enum tw_rtos_loss_cause c)
{
  static const char *const n[TW_RTOS_NCAUSES] = {
    [TW_RTOS_LOSS_RING] = "ring", [TW_RTOS_LOSS_PACKETS] = "packets",
    [TW_RTOS_LOSS_UNEXPLAINED] = "unexplained", [TW_RTOS_LOSS_STOPPED] = "stopped"};
  return (unsigned)c < TW_RTOS_NCAUSES ? n[c] : "?";
}
