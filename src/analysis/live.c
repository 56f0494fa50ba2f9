/*
 * The live analysis behind `record --live` and `top` (tracewire/analysis/
 * live.h, docs/live.md).
 *
 * The queue. The recording thread copies each framed packet into a ring of
 * bytes; the worker decodes it in place and then frees the room. One
 * producer, one consumer, free-running 64-bit indices (they do not wrap in
 * practice): the producer owns head and publishes a record with a release
 * store of head after writing it; the consumer reads head with acquire (so
 * it sees the record's bytes), and releases the room with a release store
 * of tail after it has read them; the producer loads tail with acquire
 * before it reuses that room. A record never wraps: one that does not fit
 * before the end is preceded by a PAD record up to the end. A record that
 * does not fit at all is not queued (the view skips it; the recording has
 * it): the producer never waits.
 *
 * The end. tw_live_end sets `ended` (release) after its last packet's
 * head store; the worker that sees it (acquire) drains the queue once
 * more, so nothing queued before the end is lost, then finishes.
 *
 * The worker. It feeds the decoder of the packet's source, and the events
 * to the analysis engine (which feeds the state model). It samples the
 * model's cumulative CPU time per task and the engine's interrupt counts
 * every tenth of a window of trace time (tw_meter), and every publish_ns of
 * wall time builds a view and swaps it with the published one under a
 * mutex (the only lock; readers hold it for a copy).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "an_internal.h"
#include "tracewire/analysis/live.h"
#include "tracewire/error.h"
#include "tracewire/io/sys.h"
#include "tracewire/wire/decoder.h"

/* ---- windows ------------------------------------------------------------------------ */

void tw_meter_init(struct tw_meter *m, uint64_t span)
{
  memset(m, 0, sizeof *m);
  m->span = span ? span : 1;
}

void tw_meter_free(struct tw_meter *m)
{
  free(m->v);
  m->v = NULL;
  m->cap = m->width = 0;
}

#define LATEST TW_METER_SLOTS /* the row after the ring */

static uint64_t *row(const struct tw_meter *m, size_t slot) { return m->v + slot * m->cap; }

static int widen(struct tw_meter *m, size_t n)
{
  size_t cap = m->cap ? m->cap : 16;
  while (cap < n)
    cap *= 2;
  uint64_t *v = calloc((TW_METER_SLOTS + 1) * cap, sizeof *v);
  if (!v)
    return TW_ENOMEM;
  for (size_t s = 0; m->v && s <= TW_METER_SLOTS; s++)
    memcpy(v + s * cap, row(m, s), m->width * sizeof *v);
  free(m->v);
  m->v = v;
  m->cap = cap;
  return 0;
}

int tw_meter_add(struct tw_meter *m, uint64_t t, const uint64_t *v, size_t n)
{
  if (n > m->cap && widen(m, n) < 0)
    return TW_ENOMEM;
  if (!m->cap && widen(m, 1) < 0)
    return TW_ENOMEM;
  if (n > m->width)
    m->width = n;
  if (n) /* (no counters yet: v may be NULL) */
    memcpy(row(m, LATEST), v, n * sizeof *v);
  memset(row(m, LATEST) + n, 0, (m->width - n) * sizeof *v);
  m->t[LATEST] = t;
  m->have_latest = 1;
  size_t newest = (m->head + TW_METER_SLOTS - 1) % TW_METER_SLOTS;
  if (m->n && (t < m->t[newest] || t - m->t[newest] < m->span / 10))
    return 0; /* too close to the last kept one: only the latest moves */
  memcpy(row(m, m->head), row(m, LATEST), m->width * sizeof *v);
  m->t[m->head] = t;
  m->head = (m->head + 1) % TW_METER_SLOTS;
  if (m->n < TW_METER_SLOTS)
    m->n++;
  return 0;
}

/* The sample the window starts at: the newest at least span before the
 * latest, else the oldest. */
static size_t base_slot(const struct tw_meter *m)
{
  size_t oldest = (m->head + TW_METER_SLOTS - m->n) % TW_METER_SLOTS, best = oldest;
  for (size_t k = 0; k < m->n; k++) {
    size_t s = (oldest + k) % TW_METER_SLOTS;
    if (m->t[LATEST] - m->t[s] >= m->span)
      best = s;
  }
  return best;
}

uint64_t tw_meter_delta(const struct tw_meter *m, size_t i, uint64_t *covered)
{
  if (covered)
    *covered = 0;
  if (!m->have_latest || !m->n)
    return 0;
  size_t b = base_slot(m);
  if (covered)
    *covered = m->t[LATEST] - m->t[b];
  if (i >= m->width)
    return 0;
  uint64_t now = row(m, LATEST)[i], then = row(m, b)[i];
  return now > then ? now - then : 0;
}

double tw_meter_rate(const struct tw_meter *m, size_t i)
{
  uint64_t cov;
  uint64_t d = tw_meter_delta(m, i, &cov);
  return cov ? (double)d * 1e9 / (double)cov : 0.0;
}

/* ---- sorting ------------------------------------------------------------------------ */

static int cmp_num(double x, double y) { return x > y ? -1 : x < y; }

static int cmp_task(const void *px, const void *py, void *ctx)
{
  const struct tw_live_task *x = px, *y = py;
  int c = 0;
  switch (*(const enum tw_live_sort *)ctx) {
  case TW_LIVE_SORT_WINDOW:
    c = cmp_num(x->cpu_window, y->cpu_window);
    c = c ? c : cmp_num(x->cpu_total, y->cpu_total);
    break;
  case TW_LIVE_SORT_TOTAL:
    c = cmp_num(x->cpu_total, y->cpu_total);
    c = c ? c : cmp_num(x->cpu_window, y->cpu_window);
    break;
  case TW_LIVE_SORT_PRIO: c = cmp_num(x->prio, y->prio); break;
  case TW_LIVE_SORT_NAME: c = strcmp(x->name, y->name); break;
  default: break;
  }
  if (c)
    return c;
  if (x->endpoint != y->endpoint)
    return x->endpoint < y->endpoint ? -1 : 1;
  return x->number < y->number ? -1 : x->number > y->number;
}

void tw_live_sort(struct tw_live_view *v, enum tw_live_sort by)
{
  qsort_r(v->tasks, v->ntasks, sizeof v->tasks[0], cmp_task, &by);
}

const char *tw_live_sort_name(enum tw_live_sort by)
{
  switch (by) {
  case TW_LIVE_SORT_WINDOW: return "cpu, last second";
  case TW_LIVE_SORT_TOTAL: return "cpu since start";
  case TW_LIVE_SORT_PRIO: return "priority";
  case TW_LIVE_SORT_NAME: return "name";
  default: return "?";
  }
}

/* ---- the queue ---------------------------------------------------------------------- */

enum { REC_PAD, REC_PKT, REC_SKIP, REC_FREQ };

struct rec_hdr {
  uint32_t len;              /* the whole record, header included, a multiple of 8 */
  uint8_t type;
  uint8_t unused;
  uint16_t source;
};
_Static_assert(sizeof(struct rec_hdr) == 8, "records are 8-aligned");

struct rec_pkt {
  struct tw_pkt pkt;         /* payload pointer not used: the bytes follow */
  unsigned long long offset, number;
};

struct rec_freq {
  uint32_t hz;
  uint16_t endpoint;
};

struct src {
  struct tw_live *l;
  uint16_t id;
  struct tw_decoder *d;
};

struct irqcol {
  int core;
  size_t k;                  /* in the engine core's irq table */
};

struct tw_live {
  struct tw_live_cfg cfg;
  uint8_t *q;
  size_t qcap;
  _Atomic uint64_t head, tail, skipped;
  _Atomic int stop, ended;
  uint64_t phead;            /* producer: head (its own copy) */
  pthread_t th;
  int started;
  pthread_mutex_t mu;
  struct tw_live_view *pub, *work; /* published (under mu), being built (worker) */
  /* the worker's */
  struct tw_an *an;
  struct src *srcs;
  uint64_t events, packets;
  struct tw_meter tasks_m, irqs_m;
  struct irqcol *irqcols;
  size_t nirqcols, capirqcols;
  uint64_t *vals;
  size_t capvals;
  uint64_t last_sample, last_pub;
  int sampled;               /* a window sample was taken (the first at the first packet) */
  uint64_t *seen;            /* per group (by seq): its count at the last snapshot */
  size_t capseen;
  int finished;
};

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Room for a record of body bytes (and a PAD before it if it would wrap):
 * its body, or NULL when it does not fit (*next: the head after it). */
static uint8_t *reserve(struct tw_live *l, uint8_t type, uint16_t source, size_t body,
                        uint64_t *next)
{
  size_t need = align8(sizeof(struct rec_hdr) + body), mask = l->qcap - 1;
  uint64_t head = l->phead;
  uint64_t tail = atomic_load_explicit(&l->tail, memory_order_acquire);
  size_t to_end = l->qcap - (size_t)(head & mask), pad = to_end < need ? to_end : 0;
  if (need > l->qcap / 2 || l->qcap - (size_t)(head - tail) < pad + need)
    return NULL;
  if (pad) {
    struct rec_hdr h = {.len = (uint32_t)pad, .type = REC_PAD};
    memcpy(l->q + (head & mask), &h, sizeof h);
    head += pad;
  }
  struct rec_hdr h = {.len = (uint32_t)need, .type = type, .source = source};
  memcpy(l->q + (head & mask), &h, sizeof h);
  *next = head + need;
  return l->q + (head & mask) + sizeof h;
}

static void commit(struct tw_live *l, uint64_t next)
{
  l->phead = next;
  /* release: the record's bytes are written before the consumer sees head */
  atomic_store_explicit(&l->head, next, memory_order_release);
}

void tw_live_packet(struct tw_live *l, uint16_t source, const struct tw_pkt *pkt,
                    unsigned long long offset, unsigned long long number)
{
  uint64_t next;
  uint8_t *p = reserve(l, REC_PKT, source, sizeof(struct rec_pkt) + pkt->payload_len, &next);
  if (!p) {
    atomic_fetch_add_explicit(&l->skipped, 1, memory_order_relaxed);
    return;
  }
  struct rec_pkt r = {.pkt = *pkt, .offset = offset, .number = number};
  r.pkt.payload = NULL;
  memcpy(p, &r, sizeof r);
  if (pkt->payload_len)
    memcpy(p + sizeof r, pkt->payload, pkt->payload_len);
  commit(l, next);
}

void tw_live_skip(struct tw_live *l, uint16_t source, const struct tw_skip *sk)
{
  uint64_t next;
  uint8_t *p = reserve(l, REC_SKIP, source, sizeof *sk, &next);
  if (!p)
    return; /* the view misses a damage report; the recorder's own decoder has it */
  memcpy(p, sk, sizeof *sk);
  commit(l, next);
}

void tw_live_freq(struct tw_live *l, uint16_t source, uint16_t endpoint, uint32_t hz)
{
  uint64_t next;
  struct rec_freq f = {.hz = hz, .endpoint = endpoint};
  uint8_t *p = NULL;
  /* rare and it matters (every time after it depends on it): wait for room, briefly */
  for (int tries = 0; !(p = reserve(l, REC_FREQ, source, sizeof f, &next)) && tries < 1000; tries++)
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  if (!p)
    return;
  memcpy(p, &f, sizeof f);
  commit(l, next);
}

void tw_live_end(struct tw_live *l)
{
  atomic_store_explicit(&l->ended, 1, memory_order_release);
}

uint64_t tw_live_skipped(const struct tw_live *l)
{
  return atomic_load_explicit(&((struct tw_live *)(uintptr_t)l)->skipped, memory_order_relaxed);
}

/* ---- the worker: decoding and analysing --------------------------------------------- */

static int on_event(void *ctx, const struct tw_event *ev)
{
  struct src *s = ctx;
  struct tw_live *l = s->l;
  l->events++;
  if (l->cfg.sources <= 1) {
    tw_an_feed(l->an, ev); /* an allocation failure is kept: tw_an_error, the view's err */
    return 0;
  }
  struct tw_event e = *ev; /* streams of several sources kept apart */
  e.stream = (uint16_t)(s->id * l->cfg.streams + ev->stream);
  tw_an_feed(l->an, &e);
  return 0;
}

static void on_diag(void *ctx, const struct tw_diag *g)
{
  struct src *s = ctx;
  struct tw_live *l = s->l;
  if (g->stream < 0)
    return;
  uint16_t stream = (uint16_t)(l->cfg.sources > 1 ? s->id * l->cfg.streams + (size_t)g->stream
                                                   : (size_t)g->stream);
  if (g->kind == TW_DIAG_PKT_LOSS)
    tw_an_loss(l->an, stream, TW_AN_LOSS_PACKETS, g->count);
  else if (g->kind == TW_DIAG_EVT_GAP)
    tw_an_loss(l->an, stream, TW_AN_LOSS_UNEXPLAINED, g->count);
}

static uint64_t trace_now(const struct tw_rtos *m);
static void sample(struct tw_live *l, uint64_t now);

static void consume(struct tw_live *l, const struct rec_hdr *h, const uint8_t *body)
{
  if (h->source >= l->cfg.sources)
    return;
  struct src *s = &l->srcs[h->source];
  if (h->type == REC_PKT) {
    struct rec_pkt r;
    memcpy(&r, body, sizeof r);
    r.pkt.payload = body + sizeof r;
    l->packets++;
    tw_decoder_packet(s->d, &r.pkt, r.offset, r.number);
    uint64_t now = trace_now(tw_an_model(l->an)); /* a window sample every tenth */
    if (!l->sampled || now - l->last_sample >= l->cfg.window_ns / 10)
      sample(l, now);
  } else if (h->type == REC_SKIP) {
    struct tw_skip sk;
    memcpy(&sk, body, sizeof sk);
    tw_decoder_skip(s->d, &sk);
  } else if (h->type == REC_FREQ) {
    struct rec_freq f;
    memcpy(&f, body, sizeof f);
    tw_decoder_set_freq(s->d, f.endpoint, f.hz);
  }
}

/* Up to max records; how many were there. */
static int drain(struct tw_live *l, int max)
{
  uint64_t tail = atomic_load_explicit(&l->tail, memory_order_relaxed);
  uint64_t head = atomic_load_explicit(&l->head, memory_order_acquire);
  size_t mask = l->qcap - 1;
  int n = 0;
  while (tail != head && n < max) {
    struct rec_hdr h;
    memcpy(&h, l->q + (tail & mask), sizeof h);
    if (h.type != REC_PAD) {
      consume(l, &h, l->q + (tail & mask) + sizeof h);
      n++;
    }
    tail += h.len;
    /* release: done reading the record before the producer may reuse it */
    atomic_store_explicit(&l->tail, tail, memory_order_release);
  }
  return n;
}

/* ---- the worker: windows and the view -------------------------------------------- */

static uint64_t trace_now(const struct tw_rtos *m)
{
  uint64_t t = 0;
  for (size_t i = 0; i < tw_rtos_ncores(m); i++)
    if (tw_rtos_core_at(m, i)->t > t)
      t = tw_rtos_core_at(m, i)->t;
  return t;
}

/* The engine's core of a model core id: its span is the analyses' (first
 * to last event they count: recording control records are not), so the
 * shares are those `analyze` and `summary` give. */
static const struct an_core *span_core(const struct tw_an *a, int id)
{
  if (id < 0 || (size_t)id >= a->ncores || !a->cores[id].mc || !a->cores[id].in_span)
    return NULL;
  return &a->cores[id];
}

/* A task's running time up to its core's latest counted event: the model
 * charges lazily (when the owner changes), so the running stretch since is
 * added. */
static uint64_t cpu_now(const struct tw_an *a, const struct tw_rtos_task *t)
{
  const struct tw_rtos_core *c = t->core >= 0 ? tw_rtos_core_at(a->m, (size_t)t->core) : NULL;
  const struct an_core *ac = span_core(a, t->core);
  uint64_t ns = t->cpu_ns, since, end = ac && c && ac->t1 < c->t ? ac->t1 : c ? c->t : 0;
  if (c && c->running == t && c->running_known &&
      (c->owner == TW_RTOS_OWN_TASK || c->owner == TW_RTOS_OWN_IDLE) &&
      end > (since = tw_rtos_core_charged(c)))
    ns += end - since;
  return ns;
}

static int grow_vals(struct tw_live *l, size_t n)
{
  return tw__an_grow(NULL, &l->vals, &l->capvals, n, sizeof *l->vals);
}

/* New interrupt sources get a column, in order of first sight. */
static void find_irqs(struct tw_live *l)
{
  const struct tw_an *a = l->an;
  for (size_t ci = 0; ci < a->ncores; ci++) {
    const struct an_core *c = &a->cores[ci];
    for (size_t k = 0; c->mc && k < c->nirqs_used; k++) {
      int known = 0;
      for (size_t j = 0; j < l->nirqcols && !known; j++)
        known = l->irqcols[j].core == (int)ci && l->irqcols[j].k == k;
      if (known)
        continue;
      if (l->nirqcols == l->capirqcols) {
        size_t cap = l->capirqcols ? 2 * l->capirqcols : 16;
        struct irqcol *v = realloc(l->irqcols, cap * sizeof *v);
        if (!v)
          return;
        l->irqcols = v;
        l->capirqcols = cap;
      }
      l->irqcols[l->nirqcols++] = (struct irqcol){(int)ci, k};
    }
  }
}

static void sample(struct tw_live *l, uint64_t now)
{
  const struct tw_rtos *m = tw_an_model(l->an);
  size_t nt = tw_rtos_ntasks(m);
  if (grow_vals(l, nt) == 0) {
    for (size_t i = 0; i < nt; i++)
      l->vals[i] = cpu_now(l->an, tw_rtos_task_at(m, i));
    tw_meter_add(&l->tasks_m, now, l->vals, nt);
  }
  find_irqs(l);
  if (grow_vals(l, l->nirqcols) == 0) {
    for (size_t j = 0; j < l->nirqcols; j++)
      l->vals[j] = l->an->cores[l->irqcols[j].core].irqs[l->irqcols[j].k].count;
    tw_meter_add(&l->irqs_m, now, l->vals, l->nirqcols);
  }
  l->last_sample = now;
  l->sampled = 1;
}

/* Names are whole in the model; a view row holds TW_LIVE_NAME - 1 bytes,
 * cut before a UTF-8 sequence rather than inside one. */
static void copy_name(char *dst, const char *s)
{
  size_t n = strlen(s);
  if (n >= TW_LIVE_NAME) {
    n = TW_LIVE_NAME - 1;
    while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
      n--;
  }
  memcpy(dst, s, n);
  dst[n] = 0;
}

static double pct(uint64_t part, uint64_t whole)
{
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void view_tasks(struct tw_live *l, struct tw_live_view *v)
{
  const struct tw_rtos *m = tw_an_model(l->an);
  uint64_t covered;
  char buf[64];
  tw_meter_delta(&l->tasks_m, 0, &covered);
  v->window_ns = covered;
  for (size_t i = 0; i < tw_rtos_ntasks(m); i++) {
    const struct tw_rtos_task *t = tw_rtos_task_at(m, i);
    if (t->now.state == TW_RTOS_DELETED)
      continue;
    if (i >= l->an->ntasks || !l->an->tasks[i].t || !l->an->tasks[i].seen)
      continue; /* only named (not in the analyses yet: as analyze lists them) */
    if (v->ntasks_total++ >= TW_LIVE_TASKS)
      continue;
    struct tw_live_task *r = &v->tasks[v->ntasks++];
    const struct an_core *c = span_core(l->an, t->core);
    memset(r, 0, sizeof *r);
    snprintf(buf, sizeof buf, "task %u", t->number);
    copy_name(r->name, t->name ? t->name : buf);
    r->endpoint = t->endpoint;
    r->number = t->number;
    r->core = t->core;
    r->prio = t->prio;
    r->state = t->now.state;
    r->wait = t->now.wait;
    r->idle = t->idle;
    if (t->now.state == TW_RTOS_BLOCKED &&
        (t->now.wait == TW_RTOS_WAIT_OBJECT || t->now.wait == TW_RTOS_WAIT_CONDITION)) {
      const char *on = tw_rtos_name(m, t->endpoint, (enum tw_obj_kind)t->now.wait_kind,
                                    t->now.wait_obj);
      snprintf(buf, sizeof buf, "%s %u", tw_obj_kind_name((enum tw_obj_kind)t->now.wait_kind),
               (unsigned)t->now.wait_obj);
      copy_name(r->waits_on, on ? on : buf);
    }
    uint64_t total = cpu_now(l->an, t);
    r->cpu_total = c ? pct(total, c->t1 - c->t0) : 0.0;
    r->cpu_window = covered ? pct(tw_meter_delta(&l->tasks_m, i, NULL), covered) : r->cpu_total;
  }
}

static void view_irqs(struct tw_live *l, struct tw_live_view *v)
{
  char buf[TW_LIVE_NAME];
  for (size_t j = 0; j < l->nirqcols; j++) {
    const struct an_irq *q = &l->an->cores[l->irqcols[j].core].irqs[l->irqcols[j].k];
    if (!q->count) /* a frame the engine keeps but no entry of it counted */
      continue;
    if (v->nirqs_total++ >= TW_LIVE_IRQS)
      continue;
    struct tw_live_irq *r = &v->irqs[v->nirqs++];
    r->core = l->irqcols[j].core;
    r->irq = q->irq;
    r->count = q->count;
    r->per_s = tw_meter_rate(&l->irqs_m, j);
    copy_name(r->name, tw_an_name(l->an, r->core, TW_OBJ_IRQ, q->irq, buf, sizeof buf));
  }
}

/* A group's tasks and objects in a few words (its key, named). */
static const char *gtask(const struct tw_an *a, const struct tw_an_group *g, int i, char *buf,
                         size_t cap)
{
  return i < g->ntasks ? tw_an_name(a, g->core, TW_OBJ_TASK, g->tasks[i], buf, cap) : "?";
}

static const char *gobj(const struct tw_an *a, const struct tw_an_group *g, int i, char *buf,
                        size_t cap)
{
  return i < g->nobjs ? tw_an_name(a, g->core, (enum tw_obj_kind)g->obj_kinds[i], g->objs[i], buf,
                                   cap)
                      : "?";
}

static void group_what(const struct tw_an *a, const struct tw_an_group *g, char *b, size_t cap)
{
  char t0[64], t1[64], o0[64];
  size_t o = 0;
  switch (g->kind) {
  case TW_AN_PRIO_INVERSION:
    snprintf(b, cap, "%s on %s held by %s%s", gtask(a, g, 0, t0, sizeof t0),
             gobj(a, g, 0, o0, sizeof o0), gtask(a, g, 1, t1, sizeof t1),
             g->bounded ? " (bounded)" : "");
    break;
  case TW_AN_DEADLOCK: /* tasks[i] waits on objs[i], held by tasks[i + 1] */
    for (int i = 0; i < g->ntasks && o < cap; i++)
      o += (size_t)snprintf(b + o, cap - o, "%s -> %s -> ", gtask(a, g, i, t0, sizeof t0),
                            gobj(a, g, i, o0, sizeof o0));
    if (o < cap)
      snprintf(b + o, cap - o, "%s", gtask(a, g, 0, t0, sizeof t0));
    break;
  case TW_AN_STARVATION:
    snprintf(b, cap, "%s ready, not run", gtask(a, g, 0, t0, sizeof t0));
    break;
  case TW_AN_BLOCKED_AT_END:
    snprintf(b, cap, "%s on %s", gtask(a, g, 0, t0, sizeof t0), gobj(a, g, 0, o0, sizeof o0));
    break;
  default:
    snprintf(b, cap, "%s", gtask(a, g, 0, t0, sizeof t0));
  }
}

static int cmp_gidx(const void *x, const void *y, void *ctx)
{
  const struct tw_an_group *const *g = ctx;
  return tw_an_group_cmp(g[*(const size_t *)x], g[*(const size_t *)y]);
}

/* Room for a count per group (by seq), to tell what is new. */
static int grow_seen(struct tw_live *l, size_t n)
{
  return tw__an_grow(NULL, &l->seen, &l->capseen, n, sizeof *l->seen);
}

static void view_groups(struct tw_live *l, struct tw_live_view *v)
{
  struct tw_an *a = l->an;
  size_t n = tw_an_ngroups(a);
  v->ngroups_total = n;
  const struct tw_an_group **gp = malloc((n + 1) * sizeof *gp);
  size_t *idx = malloc((n + 1) * sizeof *idx);
  if (!gp || !idx || grow_seen(l, n) < 0) {
    free(gp);
    free(idx);
    return; /* this snapshot without groups; the next one tries again */
  }
  for (size_t i = 0; i < n; i++) {
    gp[i] = tw_an_group_at(a, i);
    idx[i] = i;
    v->findings += gp[i]->count;
  }
  qsort_r(idx, n, sizeof *idx, cmp_gidx, gp);
  for (size_t k = 0; k < n; k++) {
    const struct tw_an_group *g = gp[idx[k]];
    uint64_t before = g->seq < l->capseen ? l->seen[g->seq] : 0;
    if (k < TW_LIVE_GROUPS) {
      struct tw_live_group *r = &v->groups[v->ngroups++];
      r->kind = g->kind;
      r->core = g->core;
      r->count = g->count;
      r->across_gap = g->across_gap;
      r->first = g->first;
      r->last = g->last;
      r->worst_ns = g->worst.ns;
      r->worst_t0 = g->worst.t0;
      r->new_count = g->count - before;
      group_what(a, g, r->what, sizeof r->what);
      tw_an_group_text(a, g, r->text, sizeof r->text);
    }
  }
  for (size_t i = 0; i < n; i++)
    if (gp[i]->seq < l->capseen)
      l->seen[gp[i]->seq] = gp[i]->count;
  free(gp);
  free(idx);
}

static void publish(struct tw_live *l)
{
  struct tw_live_view *v = l->work;
  const struct tw_rtos *m = tw_an_model(l->an);
  uint64_t seq = l->pub->seq + 1, span = 0, irq = 0, unknown = 0;
  memset(v, 0, sizeof *v);
  v->seq = seq;
  v->finished = l->finished;
  v->err = tw_an_error(l->an);
  v->events = l->events;
  v->packets = l->packets;
  v->view_skipped = tw_live_skipped(l);
  v->t0 = UINT64_MAX;
  for (size_t i = 0; i < tw_rtos_ncores(m); i++) { /* the analyses' spans and times */
    const struct an_core *c = span_core(l->an, (int)i);
    if (!c)
      continue;
    v->ncores++;
    v->t0 = c->t0 < v->t0 ? c->t0 : v->t0;
    v->t = c->t1 > v->t ? c->t1 : v->t;
    span += c->t1 - c->t0;
    irq += c->isr_ns;
    unknown += c->unknown_ns;
  }
  v->t0 = v->ncores ? v->t0 : 0;
  v->irq_pct = pct(irq, span);
  v->unknown_pct = pct(unknown, span);
  sample(l, trace_now(m)); /* the latest values (kept as a window sample only if due) */
  view_tasks(l, v);
  view_irqs(l, v);
  view_groups(l, v);
  pthread_mutex_lock(&l->mu);
  l->work = l->pub;
  l->pub = v;
  pthread_mutex_unlock(&l->mu);
}

static void *worker(void *arg)
{
  struct tw_live *l = arg;
  if (l->cfg.low_priority) {
#ifdef SCHED_IDLE
    struct sched_param sp = {.sched_priority = 0};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp); /* best effort */
#endif
  }
  int raised = 0;
  (void)raised; /* (without SCHED_IDLE: unused) */
  while (!atomic_load_explicit(&l->stop, memory_order_relaxed)) {
    int end_seen = atomic_load_explicit(&l->ended, memory_order_acquire);
#ifdef SCHED_IDLE
    if (end_seen && l->cfg.low_priority && !raised) { /* the recording is over: the backlog now */
      struct sched_param sp = {.sched_priority = 0};
      pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
      raised = 1;
    }
#endif
    int n = drain(l, 256), ended = 0;
    if (!n && !l->finished && end_seen) {
      while (drain(l, 1 << 20)) /* what was queued before the end */
        ;
      tw_an_finish(l->an);
      l->finished = ended = 1;
    }
    uint64_t wall = tw_sys_mono_ns();
    if (ended || (!l->finished && wall - l->last_pub >= l->cfg.publish_ns)) {
      publish(l);
      l->last_pub = wall;
    }
    if (!n)
      nanosleep(&(struct timespec){0, l->finished ? 20000000 : 2000000}, NULL);
  }
  return NULL;
}

/* ---- lifetime ----------------------------------------------------------------------- */

int tw_live_open(struct tw_live **out, const struct tw_live_cfg *cfg)
{
  struct tw_live *l = calloc(1, sizeof *l);
  int rc = TW_ENOMEM;
  *out = NULL;
  if (!l)
    return TW_ENOMEM;
  l->cfg = *cfg;
  if (!l->cfg.queue_bytes)
    l->cfg.queue_bytes = 8u << 20;
  if (!l->cfg.publish_ns)
    l->cfg.publish_ns = 200000000ull;
  if (!l->cfg.window_ns)
    l->cfg.window_ns = 1000000000ull;
  if (!l->cfg.sources)
    l->cfg.sources = 1;
  if (!l->cfg.streams)
    l->cfg.streams = 64;
  for (l->qcap = 1u << 20; l->qcap < l->cfg.queue_bytes; l->qcap *= 2)
    ; /* a power of two, at least 1 MiB (two of the largest packets) */
  tw_meter_init(&l->tasks_m, l->cfg.window_ns);
  tw_meter_init(&l->irqs_m, l->cfg.window_ns);
  pthread_mutex_init(&l->mu, NULL);
  struct tw_an_cfg acfg = {.starve_ns = cfg->starve_ns, .recent_findings = 1024};
  l->q = malloc(l->qcap);
  l->pub = calloc(1, sizeof *l->pub);
  l->work = calloc(1, sizeof *l->work);
  l->srcs = calloc(l->cfg.sources, sizeof *l->srcs);
  if (!l->q || !l->pub || !l->work || !l->srcs || (rc = tw_an_create(&l->an, &acfg)) < 0)
    goto fail;
  for (size_t k = 0; k < l->cfg.sources; k++) {
    struct tw_decoder_cfg dcfg = {.max_streams = l->cfg.streams};
    l->srcs[k] = (struct src){.l = l, .id = (uint16_t)k};
    if ((rc = tw_decoder_open(&l->srcs[k].d, &dcfg)) < 0)
      goto fail;
    tw_decoder_on_event(l->srcs[k].d, on_event, &l->srcs[k]);
    tw_decoder_on_diag(l->srcs[k].d, on_diag, &l->srcs[k]);
  }
  if (pthread_create(&l->th, NULL, worker, l) != 0) {
    rc = TW_EIO;
    goto fail;
  }
  l->started = 1;
  *out = l;
  return 0;
fail:
  tw_live_close(l);
  return rc < 0 ? rc : TW_ENOMEM;
}

void tw_live_close(struct tw_live *l)
{
  if (!l)
    return;
  if (l->started) {
    atomic_store_explicit(&l->stop, 1, memory_order_relaxed);
    pthread_join(l->th, NULL);
  }
  for (size_t k = 0; l->srcs && k < l->cfg.sources; k++)
    tw_decoder_close(l->srcs[k].d);
  tw_an_destroy(l->an);
  tw_meter_free(&l->tasks_m);
  tw_meter_free(&l->irqs_m);
  pthread_mutex_destroy(&l->mu);
  free(l->srcs);
  free(l->irqcols);
  free(l->vals);
  free(l->seen);
  free(l->pub);
  free(l->work);
  free(l->q);
  free(l);
}

void tw_live_snapshot(struct tw_live *l, struct tw_live_view *out)
{
  pthread_mutex_lock(&l->mu);
  memcpy(out, l->pub, sizeof *out);
  pthread_mutex_unlock(&l->mu);
}
