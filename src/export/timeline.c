/* The timeline model (see timeline.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "timeline.h"

#define TL_EPS 64
#define TL_CORES 256
#define TL_FLOWS 4096u

enum { ST_UNKNOWN, ST_RUNNING, ST_READY, ST_BLOCKED };

struct tl_ep {
  uint16_t endpoint;
  uint8_t *task_state;    /* 65536, lazily */
  uint8_t *task_declared; /* 65536 bits */
  int32_t *sem;           /* 65536, lazily */
  uint8_t *sem_declared;
  int ready, ready_declared;
};

struct tl_core {
  uint16_t endpoint, instance;
  struct tl_track t_core, t_irq, t_load; /* made once: used on every event */
  char n_core[16], n_irq[24], n_load[24];
  int running; /* task, -1 none */
  int irq_depth, busy, declared, load_declared;
  uint64_t win_start, busy_ns, last_t;
};

struct tl_flow {
  uint64_t key, id;
};

#define TL_OPNAMES 256
struct tl_opname {
  const struct tw_event_desc *desc;
  uint32_t value;
  char s[64];
};

struct timeline {
  struct tl_opname opnames[TL_OPNAMES];
  struct tw_export *x;
  const struct tl_ops *ops;
  void *b;
  struct tl_ep eps[TL_EPS];
  size_t neps;
  struct tl_core cores[TL_CORES];
  size_t ncores;
  struct tl_flow *flows;
  size_t nflows;
  uint64_t next_flow, last_ts;
};

static uint64_t uuid(enum tl_kind k, uint16_t ep, uint32_t n)
{
  return (uint64_t)k << 56 | (uint64_t)ep << 40 | n;
}

static int bit(const uint8_t *m, uint32_t i) { return m[i >> 3] >> (i & 7) & 1; }
static void set_bit(uint8_t *m, uint32_t i) { m[i >> 3] = (uint8_t)(m[i >> 3] | 1u << (i & 7)); }

struct timeline *tw__tl_open(struct tw_export *x, const struct tl_ops *ops, void *backend)
{
  struct timeline *tl = calloc(1, sizeof *tl);
  if (!tl || !(tl->flows = calloc(TL_FLOWS, sizeof *tl->flows))) {
    free(tl);
    tw__export_fail(x, TW_ENOMEM, "out of memory");
    return NULL;
  }
  tl->x = x;
  tl->ops = ops;
  tl->b = backend;
  return tl;
}

/* ---- tracks ---------------------------------------------------------------- */

static struct tl_track process_track(uint16_t ep, char *name, size_t cap)
{
  snprintf(name, cap, "target %04x", ep);
  return (struct tl_track){uuid(TL_PROCESS, ep, 0), 0, TL_PROCESS, 0, ep, 0, name};
}

static struct tl_ep *ep_of(struct timeline *tl, uint16_t endpoint)
{
  char name[32];
  struct tl_track t;
  for (size_t i = 0; i < tl->neps; i++)
    if (tl->eps[i].endpoint == endpoint)
      return &tl->eps[i];
  if (tl->neps == TL_EPS)
    return NULL;
  struct tl_ep *e = &tl->eps[tl->neps];
  memset(e, 0, sizeof *e);
  e->endpoint = endpoint;
  if (!(e->task_state = calloc(65536, 1)) || !(e->task_declared = calloc(8192, 1))) {
    free(e->task_state);
    tw__export_fail(tl->x, TW_ENOMEM, "out of memory");
    return NULL;
  }
  tl->neps++;
  t = process_track(endpoint, name, sizeof name);
  tl->ops->track(tl->b, &t);
  return e;
}

static struct tl_track task_track(struct timeline *tl, uint16_t ep, uint32_t task, char *name,
                                  size_t cap)
{
  const char *n = tw__export_name(tl->x, ep, TW_OBJ_TASK, task);
  if (n)
    snprintf(name, cap, "%s", n);
  else
    snprintf(name, cap, "task %u", task);
  return (struct tl_track){uuid(TL_TASK, ep, task), uuid(TL_PROCESS, ep, 0), TL_TASK, 0, ep,
                           (int32_t)((uint32_t)ep << 16 | (task & 0xFFFF)), name};
}

/* The track of a task; its name (a lookup and a format) only when it is
 * declared or want_name asks: instants need the ids only. */
static int task_declare(struct timeline *tl, struct tl_ep *e, uint32_t task, struct tl_track *t,
                        char *name, size_t cap, int want_name)
{
  task &= 0xFFFF;
  if (want_name || !bit(e->task_declared, task)) {
    *t = task_track(tl, e->endpoint, task, name, cap);
  } else {
    *t = (struct tl_track){uuid(TL_TASK, e->endpoint, task), uuid(TL_PROCESS, e->endpoint, 0),
                           TL_TASK, 0, e->endpoint, (int32_t)((uint32_t)e->endpoint << 16 | task),
                           ""};
  }
  if (!bit(e->task_declared, task & 0xFFFF)) {
    set_bit(e->task_declared, task & 0xFFFF);
    tl->ops->track(tl->b, t);
  }
  return 0;
}

static struct tl_track core_track(const struct tl_core *c, enum tl_kind k, char *name, size_t cap)
{
  snprintf(name, cap, k == TL_CORE ? "cpu%u" : k == TL_IRQ ? "cpu%u irq" : "cpu%u load %%",
           c->instance);
  return (struct tl_track){uuid(k, c->endpoint, c->instance), uuid(TL_PROCESS, c->endpoint, 0),
                           k, k == TL_LOAD, c->endpoint,
                           k == TL_LOAD ? 0
                                        : (int32_t)((uint32_t)c->endpoint << 16 | 0x8000u |
                                                    (k == TL_IRQ ? 0x4000u : 0) | c->instance),
                           name};
}

static struct tl_core *core_of(struct timeline *tl, const struct tw_event *ev)
{
  char name[32];
  struct tl_track t;
  for (size_t i = 0; i < tl->ncores; i++)
    if (tl->cores[i].endpoint == ev->endpoint && tl->cores[i].instance == ev->instance)
      return &tl->cores[i];
  if (tl->ncores == TL_CORES || !ep_of(tl, ev->endpoint))
    return NULL;
  struct tl_core *c = &tl->cores[tl->ncores++];
  memset(c, 0, sizeof *c);
  c->endpoint = ev->endpoint;
  c->instance = ev->instance;
  c->running = -1;
  c->win_start = ev->time_ns;
  c->last_t = ev->time_ns;
  c->t_core = core_track(c, TL_CORE, c->n_core, sizeof c->n_core);
  c->t_irq = core_track(c, TL_IRQ, c->n_irq, sizeof c->n_irq);
  c->t_load = core_track(c, TL_LOAD, c->n_load, sizeof c->n_load);
  tl->ops->track(tl->b, &c->t_core);
  tl->ops->track(tl->b, &c->t_irq);
  tl->ops->track(tl->b, &c->t_load);
  (void)name;
  (void)t;
  return c;
}

/* ---- counters ---------------------------------------------------------------- */

static void set_task_state(struct timeline *tl, struct tl_ep *e, uint64_t ts, uint32_t task,
                           int st)
{
  int old = e->task_state[task & 0xFFFF];
  if (old == st)
    return;
  e->task_state[task & 0xFFFF] = (uint8_t)st;
  e->ready += (st == ST_READY) - (old == ST_READY);
  {
    char name[32];
    struct tl_track t = {uuid(TL_READY, e->endpoint, 0), uuid(TL_PROCESS, e->endpoint, 0),
                         TL_READY, 1, e->endpoint, 0, name};
    snprintf(name, sizeof name, "ready tasks");
    if (!e->ready_declared) {
      e->ready_declared = 1;
      tl->ops->track(tl->b, &t);
    }
    tl->ops->counter(tl->b, ts, &t, e->ready);
  }
}

static void sem_add(struct timeline *tl, struct tl_ep *e, uint64_t ts, uint32_t sem, int d)
{
  char name[64];
  const char *n;
  struct tl_track t;
  sem &= 0xFFFF;
  if (!e->sem) {
    e->sem = calloc(65536, sizeof *e->sem);
    e->sem_declared = calloc(8192, 1);
    if (!e->sem || !e->sem_declared) {
      tw__export_fail(tl->x, TW_ENOMEM, "out of memory");
      return;
    }
  }
  e->sem[sem] += d;
  n = tw__export_name(tl->x, e->endpoint, TW_OBJ_SEM, sem);
  if (n)
    snprintf(name, sizeof name, "sem %s", n);
  else
    snprintf(name, sizeof name, "sem %u", sem);
  t = (struct tl_track){uuid(TL_SEM, e->endpoint, sem), uuid(TL_PROCESS, e->endpoint, 0), TL_SEM,
                        1, e->endpoint, 0, name};
  if (!bit(e->sem_declared, sem)) {
    set_bit(e->sem_declared, sem);
    tl->ops->track(tl->b, &t);
  }
  tl->ops->counter(tl->b, ts, &t, e->sem[sem]);
}

/* CPU load: the busy share of each window, as a counter at the window's
 * start. A stretch of whole windows in one state is one counter value. */
static void load_advance(struct timeline *tl, struct tl_core *c, uint64_t t)
{
  uint64_t w = tl->x->cfg.load_window_ns;
  const struct tl_track *tr = &c->t_load;
  if (t < c->last_t)
    t = c->last_t;
  while (t >= c->win_start + w) {
    uint64_t end = c->win_start + w;
    if (c->busy)
      c->busy_ns += end - c->last_t;
    tl->ops->counter(tl->b, c->win_start, tr, (int64_t)(c->busy_ns * 100 / w));
    c->busy_ns = 0;
    c->last_t = end;
    c->win_start = end;
    if (t >= c->win_start + w) { /* skip whole windows in one state */
      tl->ops->counter(tl->b, c->win_start, tr, c->busy ? 100 : 0);
      c->win_start += (t - c->win_start) / w * w;
      c->last_t = c->win_start;
    }
  }
  if (c->busy)
    c->busy_ns += t - c->last_t;
  c->last_t = t;
}

static int is_idle(struct timeline *tl, uint16_t ep, int task)
{
  const char *n = task < 0 ? NULL : tw__export_name(tl->x, ep, TW_OBJ_TASK, (uint32_t)task);
  return task < 0 || (n && strcasestr(n, "idle"));
}

/* ---- flows ------------------------------------------------------------------ */

static struct tl_flow *flow_slot(struct timeline *tl, uint64_t key, int insert)
{
  size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 50) & (TL_FLOWS - 1);
  for (size_t n = 0; n < TL_FLOWS; n++, i = (i + 1) & (TL_FLOWS - 1)) {
    if (tl->flows[i].key == key)
      return &tl->flows[i];
    if (!tl->flows[i].key)
      return insert && tl->nflows < TL_FLOWS / 2 ? &tl->flows[i] : NULL;
  }
  return NULL;
}

/* ---- events ------------------------------------------------------------------ */

static void task_switch(struct timeline *tl, struct tl_core *c, struct tl_ep *e,
                        const struct tw_event *ev)
{
  char name[64];
  struct tl_track t;
  const struct tl_track *ct = &c->t_core;
  uint32_t task = ev->values[0];
  if (task == TW_TASK_SWITCH_EnterInt || task == TW_TASK_SWITCH_LeaveInt) {
    if (task == TW_TASK_SWITCH_EnterInt) {
      c->irq_depth++;
      tl->ops->slice_begin(tl->b, ev->time_ns, &c->t_irq, "interrupt");
    } else if (c->irq_depth > 0) {
      c->irq_depth--;
      tl->ops->slice_end(tl->b, ev->time_ns, &c->t_irq);
    }
  } else {
    if (c->running >= 0) {
      tl->ops->slice_end(tl->b, ev->time_ns, ct);
      task_declare(tl, e, (uint32_t)c->running, &t, name, sizeof name, 0);
      tl->ops->slice_end(tl->b, ev->time_ns, &t);
      if (e->task_state[c->running] == ST_RUNNING)
        set_task_state(tl, e, ev->time_ns, (uint32_t)c->running, ST_READY);
    }
    c->running = (int)(task & 0xFFFF);
    task_declare(tl, e, task, &t, name, sizeof name, 1);
    tl->ops->slice_begin(tl->b, ev->time_ns, ct, t.name);
    tl->ops->slice_begin(tl->b, ev->time_ns, &t, "running");
    set_task_state(tl, e, ev->time_ns, task, ST_RUNNING);
  }
  c->busy = c->irq_depth > 0 || !is_idle(tl, c->endpoint, c->running);
}

/* Event name: "MutexEvent Lock" for an operation with a constant; made
 * once per (kind, constant) in a small cache, so backends see the same
 * pointer for the same name. */
static const char *op_name(struct timeline *tl, const struct tw_event *ev)
{
  const struct tw_event_desc *d = ev->desc;
  uint32_t v = d->marker_field >= 0 && (unsigned)d->marker_field < ev->nvalues
                   ? ev->values[d->marker_field] : 0;
  const char *k = d->marker_field >= 0 ? tw_event_enum_name(d, v) : NULL;
  const char *n = d->seed_name ? d->seed_name : d->name;
  struct tl_opname *e;
  if (!k)
    return n;
  e = &tl->opnames[(((uintptr_t)d >> 4) * 31 + v) & (TL_OPNAMES - 1)];
  if (e->desc != d || e->value != v) {
    e->desc = d;
    e->value = v;
    snprintf(e->s, sizeof e->s, "%s %s", n, k);
  }
  return e->s;
}

static unsigned fill_args(struct timeline *tl, const struct tw_event *ev, struct tl_arg *a,
                          char (*names)[64])
{
  const struct tw_event_desc *d = ev->desc;
  unsigned n = 0;
  enum tw_marker m;
  for (unsigned i = 0; i < d->nfields && n + 3 < TL_MAX_ARGS; i++) {
    const struct tw_field_desc *f = &d->fields[i];
    uint32_t v = i < ev->nvalues ? ev->values[i] : 0;
    const char *s = NULL;
    if (f->type == TW_FT_STRING) {
      snprintf(names[n], 64, "%.*s", (int)(ev->str ? strnlen(ev->str, ev->str_len) : 0),
               ev->str ? ev->str : "");
      s = names[n];
    } else if ((int)i == d->marker_field && tw_event_enum_name(d, v)) {
      s = tw_event_enum_name(d, v);
    } else if (f->obj == TW_OBJ_OBJKIND) {
      s = tw_obj_kind_name((enum tw_obj_kind)v);
    } else if (f->obj != TW_OBJ_NONE) {
      const char *on = tw__export_name(tl->x, ev->endpoint, f->obj, v);
      if (on) {
        snprintf(names[n], 64, "%u %s", v, on);
        s = names[n];
      }
    }
    a[n] = (struct tl_arg){f->name, s, v};
    if (!s && tw_field_type_signed(f->type)) {
      a[n].kind = TL_NUM_INT;
      a[n].inum = tw_field_i32(f, v);
    } else if (!s && f->type == TW_FT_F32) {
      a[n].kind = TL_NUM_FLOAT;
      a[n].fnum = tw_f32_from_bits(v);
    }
    n++;
  }
  m = d->marker_field >= 0 && (unsigned)d->marker_field < ev->nvalues
          ? tw_event_marker(d, ev->values[d->marker_field]) : d->default_marker;
  if (m != TW_MARKER_NONE)
    a[n++] = (struct tl_arg){"marker", tw_marker_name(m), 0};
  if (ev->flags & TW_EVENT_TIME_INFERRED)
    a[n++] = (struct tl_arg){"time", "inferred", 0};
  return n;
}

static void sync_op(struct timeline *tl, struct tl_core *c, struct tl_ep *e,
                    const struct tw_event *ev, const struct tl_track *where)
{
  const struct tw_event_desc *d = ev->desc;
  int tf = tw__field_of(d, TW_OBJ_TASK), of = tw__object_field(d);
  enum tw_marker m = d->marker_field >= 0 && (unsigned)d->marker_field < ev->nvalues
                         ? tw_event_marker(d, ev->values[d->marker_field]) : d->default_marker;
  uint64_t flow_out = 0, flow_in = 0;
  struct tl_arg args[TL_MAX_ARGS];
  char names[TL_MAX_ARGS][64];
  unsigned nargs;
  (void)c;
  if (of >= 0 && (unsigned)of < ev->nvalues) {
    uint64_t key = (uint64_t)ev->endpoint << 40 | (uint64_t)d->fields[of].obj << 32 |
                   ev->values[of] | 1ull << 63;
    struct tl_flow *fl;
    if (tf < 0 && (m == TW_MARKER_UP || m == TW_MARKER_UP_UP || m == TW_MARKER_UP_UP_PUSH ||
                   m == TW_MARKER_UP_PUSH)) {
      if ((fl = flow_slot(tl, key, 1))) {
        if (!fl->key)
          tl->nflows++;
        fl->key = key;
        fl->id = flow_out = ++tl->next_flow;
      }
    } else if (tf >= 0 && m == TW_MARKER_UP_PUSH && (fl = flow_slot(tl, key, 0)) && fl->id) {
      flow_in = fl->id;
      fl->id = 0; /* one release per give; the slot stays for reuse */
    }
    if (d->fields[of].obj == TW_OBJ_SEM) {
      uint32_t s = ev->values[of];
      if (m == TW_MARKER_UP)
        sem_add(tl, e, ev->time_ns, s, 1); /* Give */
      else if (m == TW_MARKER_DOWN || m == TW_MARKER_UP_PUSH)
        sem_add(tl, e, ev->time_ns, s, -1); /* Take, or a give consumed by ToTask */
    }
  }
  if (tf >= 0 && (unsigned)tf < ev->nvalues) {
    uint32_t task = ev->values[tf] & 0xFFFF;
    if (m == TW_MARKER_UP_BLOCK || m == TW_MARKER_DOWN_BLOCK || m == TW_MARKER_WAIT)
      set_task_state(tl, e, ev->time_ns, task, ST_BLOCKED);
    else if (m == TW_MARKER_UP_PUSH && e->task_state[task] != ST_RUNNING)
      set_task_state(tl, e, ev->time_ns, task, ST_READY);
  }
  nargs = fill_args(tl, ev, args, names);
  tl->ops->instant(tl->b, ev->time_ns, where, op_name(tl, ev), args, nargs, flow_out,
                   flow_in);
}

void tw__tl_event(struct timeline *tl, const struct tw_event *ev)
{
  struct tl_core *c = core_of(tl, ev);
  struct tl_ep *e = c ? ep_of(tl, ev->endpoint) : NULL;
  char tname[64];
  struct tl_track where;
  int tf;
  if (!c || !e)
    return;
  if (ev->time_ns > tl->last_ts)
    tl->last_ts = ev->time_ns;
  load_advance(tl, c, ev->time_ns);
  if (ev->id == TW_EV_TASK_SWITCH && ev->nvalues) {
    /* a slice has no arguments to carry the mark: an instant says it */
    if (ev->flags & TW_EVENT_TIME_INFERRED) {
      struct tl_arg a = {"event", ev->desc->seed_name, 0};
      tl->ops->instant(tl->b, ev->time_ns, &c->t_core, "time inferred", &a, 1, 0, 0);
    }
    task_switch(tl, c, e, ev);
    return;
  }
  if (ev->id == TW_EV_NAME && ev->nvalues >= 3 && ev->values[0] == TW_OBJ_TASK &&
      bit(e->task_declared, ev->values[2] & 0xFFFF)) {
    where = task_track(tl, ev->endpoint, ev->values[2] & 0xFFFF, tname, sizeof tname);
    tl->ops->track(tl->b, &where); /* renamed */
  }
  tf = tw__field_of(ev->desc, TW_OBJ_TASK);
  if (ev->desc->module == TW_MOD_RTOS && tf >= 0 && (unsigned)tf < ev->nvalues)
    task_declare(tl, e, ev->values[tf], &where, tname, sizeof tname, 0);
  else
    where = ev->id == TW_EV_INTERRUPT ? c->t_irq : c->t_core;
  sync_op(tl, c, e, ev, &where);
}

void tw__tl_finish(struct timeline *tl)
{
  char cname[32], tname[64];
  for (size_t i = 0; i < tl->ncores; i++) {
    struct tl_core *c = &tl->cores[i];
    struct tl_ep *e = ep_of(tl, c->endpoint);
    struct tl_track t = core_track(c, TL_IRQ, cname, sizeof cname);
    for (; c->irq_depth > 0; c->irq_depth--)
      tl->ops->slice_end(tl->b, tl->last_ts, &t);
    if (c->running >= 0 && e) {
      t = core_track(c, TL_CORE, cname, sizeof cname);
      tl->ops->slice_end(tl->b, tl->last_ts, &t);
      t = task_track(tl, c->endpoint, (uint32_t)c->running, tname, sizeof tname);
      tl->ops->slice_end(tl->b, tl->last_ts, &t);
      c->running = -1;
    }
  }
}

void tw__tl_close(struct timeline *tl)
{
  if (!tl)
    return;
  for (size_t i = 0; i < tl->neps; i++) {
    free(tl->eps[i].task_state);
    free(tl->eps[i].task_declared);
    free(tl->eps[i].sem);
    free(tl->eps[i].sem_declared);
  }
  free(tl->flows);
  free(tl);
}
