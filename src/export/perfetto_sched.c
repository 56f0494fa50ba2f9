/*
 * The scheduler as Perfetto's ftrace data (docs/exporters.md, "Perfetto"):
 * what trace_processor turns into its `sched`, `thread_state` and CPU irq
 * tables and the UI into CPU lanes, thread state tracks and "woken by".
 *
 * CPU N is the model's core N (order of first sight). Per CPU a bundle
 * (FtraceEventBundle, sequence 2) collects, until it holds
 * PF_BUNDLE_EVENTS or its thread-name table is half full:
 *   - context switches and wake-ups in CompactSched form: packed arrays,
 *     timestamps as deltas, thread names (comm) interned per bundle. The
 *     compact form has no prev_pid: trace_processor takes it from the
 *     CPU's previous switch, so each CPU's chain of switches is complete:
 *     it starts with one full sched_switch from the idle thread (pid 0)
 *     at the core's first event (a first compact switch would be
 *     dropped), and a core whose running task becomes unknown (a loss)
 *     switches to pid 0 until its next switch;
 *   - the full FtraceEvents: sched_blocked_reason right after a switch
 *     that leaves a task blocked, naming what it waits on (interned as a
 *     kernel symbol: thread_state.blocked_function), and each interrupt
 *     as irq_handler_entry/exit (the "Irq Cpu N" track), written when
 *     its outermost frame ends (its irq is named by then).
 * prev_state (Linux 4.4 bits, trace_processor's default): R+ (0x800) a
 * preempted task, S (0x1) a task waiting for time, a notification or a
 * reason the trace does not show, D (0x2) one waiting for an object or
 * its state, T (0x4) suspended, X (0x10) deleted, R (0) when the state is
 * not known (a mark follows).
 *
 * Switches only say the state of a task leaving a CPU, wake-ups only
 * "runnable". Any other change of a task that is not running (blocked,
 * suspended, deleted, or unknown after a loss) is a
 * GenericKernelTaskStateEvent on sequence 3, written once time has moved
 * past it, and dropped if a switch or wake-up of the task came at the
 * same instant: trace_processor orders events of one timestamp from
 * different queues in no promised order. After a sched event of the task
 * at the same instant (the switch a loss forces) it goes 1 ns later.
 */
#include <stdlib.h>
#include <string.h>
#include "perfetto_internal.h"
#include "text.h"

enum {
  PS_R = 0x0, PS_S = 0x1, PS_D = 0x2, PS_T = 0x4, PS_X = 0x10, PS_PREEMPTED = 0x800,
};
#define TRACE_FLAG_HARDIRQ 0x08u /* ftrace common_flags: in a hard interrupt */

/* ---- tables -------------------------------------------------------------------- */

static int grow(struct pf *pf, void *arrp, size_t *n, size_t i, size_t elem)
{
  return tw__grow_zeroed(arrp, n, i, elem) < 0 ? tw__pf_oom(pf) : 0;
}

static struct pf_cpu *cpu_of(struct pf *pf, uint32_t id)
{
  if (grow(pf, &pf->cpus, &pf->ncpus, id, sizeof *pf->cpus) < 0)
    return NULL;
  return &pf->cpus[id];
}

static struct pf_task *task_of(struct pf *pf, const struct tw_rtos_task *t)
{
  if (grow(pf, &pf->tasks, &pf->ntasks, t->id, sizeof *pf->tasks) < 0)
    return NULL;
  return &pf->tasks[t->id];
}

const char *tw__pf_comm(struct pf *pf, const struct tw_rtos_task *t, size_t *len)
{
  struct pf_task *pt = task_of(pf, t);
  char num[32];
  const char *s = t->name, *v;
  size_t n;
  if (!pt)
    return *len = 0, "";
  if (pt->comm && pt->comm_src == t->name)
    return *len = pt->comm_len, pt->comm;
  if (!s) {
    snprintf(num, sizeof num, "task %u", t->number);
    s = num;
  }
  v = tw__pf_utf8(pf, s, strlen(s), &n);
  free(pt->comm);
  if (!(pt->comm = malloc(n + 1))) {
    tw__pf_oom(pf);
    return *len = 0, "";
  }
  memcpy(pt->comm, v, n);
  pt->comm[n] = 0;
  pt->comm_len = n;
  pt->comm_src = t->name;
  return *len = n, pt->comm;
}

/* ---- bundles -------------------------------------------------------------------- */

static void packed(struct pbuf *b, unsigned field, const struct pbuf *a)
{
  if (a->n)
    pb_bytes(b, field, a->p, a->n);
}

/* The ftrace sequence's next packet: its flags, and the kernel symbols
 * interned since the last one. */
static void ftrace_head(struct pf *pf, struct pbuf *b)
{
  pb_uint(b, TP_SEQ_ID, PF_SEQ_FTRACE);
  pb_uint(b, TP_SEQ_FLAGS, pf->ftrace_cleared ? SEQ_NEEDS_INCREMENTAL_STATE
                                              : SEQ_INCREMENTAL_STATE_CLEARED);
  pf->ftrace_cleared = 1;
  if (pf->ksyms.n) {
    pb_bytes(b, TP_INTERNED, pf->ksyms.p, pf->ksyms.n);
    pf->ksyms.n = 0;
  }
}

static void bundle_flush(struct pf *pf, uint32_t id)
{
  struct pf_cpu *c = &pf->cpus[id];
  struct pbuf *b = &pf->tmp;
  size_t need = c->comm.n + c->ev.n + pf->ksyms.n + 256, fb, cs;
  if (!c->nsw && !c->nwk && !c->ev.n)
    return;
  for (int i = 0; i < PF_NARR; i++)
    need += c->a[i].n + 16;
  b->n = 0;
  if (pb_room(b, need) < 0) {
    tw__pf_oom(pf);
    return;
  }
  ftrace_head(pf, b);
  fb = pb_open(b, TP_FTRACE);
  pb_uint(b, FB_CPU, id);
  if (c->ev.n) {
    memcpy(b->p + b->n, c->ev.p, c->ev.n); /* `event` fields, tags included */
    b->n += c->ev.n;
  }
  if (c->nsw || c->nwk) {
    cs = pb_open(b, FB_COMPACT);
    memcpy(b->p + b->n, c->comm.p, c->comm.n); /* intern_table entries */
    b->n += c->comm.n;
    packed(b, CS_SW_TS, &c->a[PF_SW_TS]);
    packed(b, CS_SW_STATE, &c->a[PF_SW_STATE]);
    packed(b, CS_SW_PID, &c->a[PF_SW_PID]);
    packed(b, CS_SW_PRIO, &c->a[PF_SW_PRIO]);
    packed(b, CS_SW_COMM, &c->a[PF_SW_COMM]);
    packed(b, CS_WK_TS, &c->a[PF_WK_TS]);
    packed(b, CS_WK_PID, &c->a[PF_WK_PID]);
    packed(b, CS_WK_CPU, &c->a[PF_WK_CPU]);
    packed(b, CS_WK_PRIO, &c->a[PF_WK_PRIO]);
    packed(b, CS_WK_COMM, &c->a[PF_WK_COMM]);
    if (c->irqflags) /* all zero is the same as none */
      packed(b, CS_WK_FLAGS, &c->a[PF_WK_FLAGS]);
    pb_close(b, cs);
  }
  pb_close(b, fb);
  tw__pf_packet(pf, b);
  for (int i = 0; i < PF_NARR; i++)
    c->a[i].n = 0;
  c->comm.n = c->ev.n = 0;
  c->n = c->nsw = c->nwk = c->ncomm = c->irqflags = 0;
  memset(c->comm_key, 0, sizeof c->comm_key);
}

/* Room in the arrays for PF_ROOM_EVENTS more events (an event adds at
 * most one varint, ten bytes, to an array): checked once per that many
 * events rather than per array and event. */
#define PF_ROOM_EVENTS 64u
static int bundle_room(struct pf *pf, struct pf_cpu *c)
{
  size_t left = PF_ROOM_EVENTS;
  for (int i = 0; i < PF_NARR; i++) {
    if (pb_room(&c->a[i], 16 * PF_ROOM_EVENTS) < 0)
      return tw__pf_oom(pf);
    if ((c->a[i].cap - c->a[i].n) / 16 < left)
      left = (c->a[i].cap - c->a[i].n) / 16;
  }
  c->left = (unsigned)left;
  return 0;
}

/* Room in the CPU's bundle for one more event and its arrays (the full
 * events, c->ev, reserve their own). */
static struct pf_cpu *bundle(struct pf *pf, uint32_t id)
{
  struct pf_cpu *c = id < pf->ncpus ? &pf->cpus[id] : cpu_of(pf, id);
  if (!c)
    return NULL;
  if (c->n >= PF_BUNDLE_EVENTS || c->ncomm >= PF_COMM_SLOTS / 2)
    bundle_flush(pf, id);
  if (!c->left && bundle_room(pf, c) < 0)
    return NULL;
  c->left--;
  c->n++;
  return c;
}

/* Index of t's name (NULL: the idle thread) in the bundle's table. */
static uint32_t comm_index(struct pf *pf, struct pf_cpu *c, const struct tw_rtos_task *t)
{
  uint32_t key = t ? t->id + 1 : 0xFFFFFFFFu, i = (key * 0x9E3779B1u) >> 24;
  const char *s = "swapper";
  size_t len = 7;
  for (; c->comm_key[i]; i = (i + 1) & (PF_COMM_SLOTS - 1))
    if (c->comm_key[i] == key)
      return c->comm_idx[i];
  if (t)
    s = tw__pf_comm(pf, t, &len);
  if (pb_room(&c->comm, len + 16) < 0) {
    tw__pf_oom(pf);
    return 0;
  }
  pb_bytes(&c->comm, CS_INTERN, s, len);
  c->comm_key[i] = key;
  c->comm_idx[i] = (uint16_t)c->ncomm;
  return c->ncomm++;
}

static int32_t tid_of(struct pf *pf, const struct tw_rtos_task *t)
{
  return t ? tw__tl_tid(pf->tl, t) : 0;
}

/* ---- blocked reasons --------------------------------------------------------------- */

static uint64_t ksym_new(struct pf *pf, const char *s, size_t n)
{
  size_t at, len;
  const char *v = tw__pf_utf8(pf, s, n, &len);
  uint64_t iid = ++pf->next_ksym;
  if (pb_room(&pf->ksyms, len + 32) < 0) {
    tw__pf_oom(pf);
    return 0;
  }
  at = pb_open(&pf->ksyms, ID_KERNEL_SYMBOLS);
  pb_uint(&pf->ksyms, IN_IID, iid);
  pb_bytes(&pf->ksyms, IN_NAME, v, len);
  pb_close(&pf->ksyms, at);
  return iid;
}

/* What a blocked task waits on, as an interned kernel symbol: "sem 1
 * adc_ready", "rsem 2 buffers (its state)", "delay", "notification". */
static uint64_t wait_symbol(struct pf *pf, const struct tw_rtos_task *t)
{
  static const char *const why[TW_RTOS_NWAITS] = {
    [TW_RTOS_WAIT_NONE] = "blocked", [TW_RTOS_WAIT_TIME] = "delay",
    [TW_RTOS_WAIT_NOTIFY] = "notification",
    [TW_RTOS_WAIT_UNSEEN] = "not traced (a lower-priority task ran)"};
  const struct tw_rtos_phase *p = &t->now;
  const struct tw_rtos_obj *o;
  char s[512];
  int n, cond = p->wait == TW_RTOS_WAIT_CONDITION;
  size_t slot;
  if (p->wait != TW_RTOS_WAIT_OBJECT && !cond) {
    unsigned w = p->wait < TW_RTOS_NWAITS ? p->wait : TW_RTOS_WAIT_NONE;
    if (!why[w])
      w = TW_RTOS_WAIT_NONE;
    if (!pf->ksym_wait[w])
      pf->ksym_wait[w] = ksym_new(pf, why[w], strlen(why[w]));
    return pf->ksym_wait[w];
  }
  o = tw_rtos_obj(pf->m, t->endpoint, (enum tw_obj_kind)p->wait_kind, p->wait_obj);
  slot = o ? (size_t)o->id * 2 + (size_t)cond : 0;
  if (o && slot < pf->nksym_obj && pf->ksym_obj[slot])
    return pf->ksym_obj[slot];
  n = snprintf(s, sizeof s, "%s %u%s%.400s%s", tw_obj_kind_name((enum tw_obj_kind)p->wait_kind),
               p->wait_obj, o && o->name ? " " : "", o && o->name ? o->name : "",
               cond ? " (its state)" : "");
  if (!o) /* not kept by the model: not cached either */
    return ksym_new(pf, s, (size_t)n);
  if (grow(pf, &pf->ksym_obj, &pf->nksym_obj, slot, sizeof *pf->ksym_obj) < 0)
    return 0;
  if (!pf->ksym_obj[slot]) /* objects are seldom renamed once blocked on: the first name */
    pf->ksym_obj[slot] = ksym_new(pf, s, (size_t)n);
  return pf->ksym_obj[slot];
}

static void blocked_reason(struct pf *pf, struct pf_cpu *c, uint64_t ts, int32_t tid,
                           uint64_t iid)
{
  size_t e, br;
  if (!iid)
    return;
  if (pb_room(&c->ev, 64) < 0) {
    tw__pf_oom(pf);
    return;
  }
  e = pb_open(&c->ev, FB_EVENT);
  pb_uint(&c->ev, FE_TIMESTAMP, ts);
  br = pb_open(&c->ev, FE_BLOCKED_REASON);
  pb_uint(&c->ev, BR_PID, (uint32_t)tid);
  pb_uint(&c->ev, BR_CALLER, iid);
  pb_close(&c->ev, br);
  pb_close(&c->ev, e);
}

/* ---- state marks ----------------------------------------------------------------------- */

/* A sched event of t at ts: a pending mark at or after it lasted no time. */
static void touched(struct pf *pf, const struct tw_rtos_task *t, uint64_t ts)
{
  struct pf_task *pt;
  if (!t || !(pt = task_of(pf, t)))
    return;
  if (pt->mark && pf->marks[pt->mark - 1].at >= ts) {
    pf->marks[pt->mark - 1].live = 0;
    pt->mark = 0;
  }
  pt->sched_at = ts + 1;
}

/* Drops the marks replaced or cancelled while time stood still (a clock
 * that does not move must not grow the table): at most one per task
 * stays. */
static void marks_compact(struct pf *pf)
{
  size_t k = pf->mark0;
  for (size_t i = pf->mark0; i < pf->nmarks; i++) {
    if (!pf->marks[i].live)
      continue;
    pf->marks[k] = pf->marks[i];
    pf->tasks[pf->marks[k].task].mark = (uint32_t)k + 1;
    k++;
  }
  pf->nmarks = k;
}

static void mark(struct pf *pf, const struct tw_rtos_change *ch, uint8_t state, uint64_t ksym)
{
  struct pf_task *pt = task_of(pf, ch->task);
  struct pf_mark *m;
  if (!pt)
    return;
  if (pt->mark) /* replaced within two nanoseconds: it lasted no time */
    pf->marks[pt->mark - 1].live = 0;
  if (pf->nmarks == pf->capmarks)
    marks_compact(pf);
  if (pf->nmarks == pf->capmarks &&
      grow(pf, &pf->marks, &pf->capmarks, pf->nmarks, sizeof *pf->marks) < 0)
    return;
  m = &pf->marks[pf->nmarks++];
  *m = (struct pf_mark){.task = ch->task->id, .cpu = ch->core->id, .state = state, .live = 1,
                        .at = pt->sched_at == ch->t + 1 ? ch->t + 1 : ch->t, .ksym = ksym};
  pt->mark = (uint32_t)pf->nmarks;
}

static void mark_write(struct pf *pf, const struct pf_mark *mk)
{
  const struct tw_rtos_task *t = tw_rtos_task_at(pf->m, mk->task);
  int32_t tid = tid_of(pf, t);
  struct pbuf *o;
  struct pf_cpu *c;
  size_t pkt, at;
  if (!tw__pf_room(pf, 64))
    return;
  o = &pf->out; /* straight into the output, as a track event */
  pkt = pb_open(o, TRACE_PACKET);
  tw__pf_timestamp(pf, o, PF_SEQ_STATE, mk->at);
  pb_uint(o, TP_SEQ_ID, PF_SEQ_STATE);
  pb_uint(o, TP_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
  at = pb_open(o, TP_TASK_STATE); /* no comm: a missing one renames nothing */
  pb_uint(o, GK_TID, (uint32_t)tid);
  pb_uint(o, GK_STATE, mk->state); /* written even when 0 (unknown): it is the point */
  pb_close(o, at);
  pb_close(o, pkt);
  if (mk->ksym && (c = bundle(pf, mk->cpu)) != NULL)
    blocked_reason(pf, c, mk->at + 1, tid, mk->ksym);
}

void tw__pf_sched_time(struct pf *pf, uint64_t now)
{
  while (pf->mark0 < pf->nmarks && pf->marks[pf->mark0].at + 1 < now) {
    struct pf_mark *mk = &pf->marks[pf->mark0++];
    if (mk->live) {
      pf->tasks[mk->task].mark = 0;
      mark_write(pf, mk);
    }
  }
  if (pf->mark0 == pf->nmarks)
    pf->mark0 = pf->nmarks = 0;
}

/* ---- the hooks ------------------------------------------------------------------------ */

static int64_t prev_state(const struct tw_rtos_task *t)
{
  if (!t)
    return PS_R;
  switch (t->now.state) {
  case TW_RTOS_READY:
    return PS_PREEMPTED;
  case TW_RTOS_BLOCKED:
    return t->now.wait == TW_RTOS_WAIT_OBJECT || t->now.wait == TW_RTOS_WAIT_CONDITION ? PS_D
                                                                                       : PS_S;
  case TW_RTOS_SUSPENDED:
    return PS_T;
  case TW_RTOS_DELETED:
    return PS_X;
  default: /* unknown (a mark follows), or still running elsewhere */
    return PS_R;
  }
}

static int32_t prio_of(const struct tw_rtos_task *t)
{
  return t ? t->prio : 0;
}

/* The idle thread at the core's first event: each CPU's chain of
 * compact switches then has a previous switch from the start. */
static void sched_cpu(void *bk, const struct tw_rtos_change *ch)
{
  struct pf *pf = bk;
  struct pbuf *b = &pf->tmp;
  size_t fb, e, ss;
  if (!cpu_of(pf, ch->core->id))
    return;
  if (ch->core->id >= 1024u) { /* trace_processor refuses a bundle for a CPU above it */
    tw__export_fail(pf->x, TW_ENOSPC, "%s: more than 1024 cores: Perfetto has no CPU for core "
                    "%u of endpoint %04x", pf->x->out, ch->core->instance, ch->core->endpoint);
    return;
  }
  b->n = 0;
  if (pb_room(b, 128 + pf->ksyms.n) < 0) {
    tw__pf_oom(pf);
    return;
  }
  ftrace_head(pf, b);
  fb = pb_open(b, TP_FTRACE);
  pb_uint(b, FB_CPU, ch->core->id);
  e = pb_open(b, FB_EVENT);
  pb_uint(b, FE_TIMESTAMP, ch->core->t0);
  ss = pb_open(b, FE_SCHED_SWITCH);
  pb_bytes(b, SS_PREV_COMM, "swapper", 7);
  pb_uint(b, SS_PREV_PID, 0);
  pb_uint(b, SS_PREV_PRIO, 0);
  pb_uint(b, SS_PREV_STATE, PS_R);
  pb_bytes(b, SS_NEXT_COMM, "swapper", 7);
  pb_uint(b, SS_NEXT_PID, 0);
  pb_uint(b, SS_NEXT_PRIO, 0);
  pb_close(b, ss);
  pb_close(b, e);
  pb_close(b, fb);
  tw__pf_packet(pf, b);
  pf->cpus[ch->core->id].used = 1;
  pf->cpus[ch->core->id].last_sw = ch->core->t0;
}

static void sched_switch(void *bk, const struct tw_rtos_change *ch)
{
  struct pf *pf = bk;
  struct pf_cpu *c = bundle(pf, ch->core->id);
  const struct tw_rtos_task *prev = ch->prev, *next = ch->task;
  uint64_t ts = ch->t;
  if (!c)
    return;
  if (c->nsw && ts < c->last_sw)
    ts = c->last_sw; /* the model holds a core's time; kept so the deltas are */
  pb_varint(&c->a[PF_SW_TS], c->nsw ? ts - c->last_sw : ts);
  pb_varint(&c->a[PF_SW_STATE], (uint64_t)prev_state(prev));
  pb_varint(&c->a[PF_SW_PID], (uint64_t)(int64_t)tid_of(pf, next));
  pb_varint(&c->a[PF_SW_PRIO], (uint64_t)(int64_t)prio_of(next));
  pb_varint(&c->a[PF_SW_COMM], comm_index(pf, c, next));
  c->last_sw = ts;
  c->nsw++;
  touched(pf, prev, ts);
  touched(pf, next, ts);
  if (prev && prev->now.state == TW_RTOS_BLOCKED)
    blocked_reason(pf, c, ts, tid_of(pf, prev), wait_symbol(pf, prev));
}

static void waking(struct pf *pf, const struct tw_rtos_change *ch)
{
  const struct tw_rtos_task *t = ch->task;
  struct pf_cpu *c = bundle(pf, ch->core->id);
  uint32_t target = t->core >= 0 ? (uint32_t)t->core : ch->core->id;
  uint64_t ts = ch->t;
  unsigned flags = ch->core->depth > 0 ? TRACE_FLAG_HARDIRQ : 0;
  if (!c)
    return;
  if (c->nwk && ts < c->last_wk)
    ts = c->last_wk;
  pb_varint(&c->a[PF_WK_TS], c->nwk ? ts - c->last_wk : ts);
  pb_varint(&c->a[PF_WK_PID], (uint64_t)(int64_t)tid_of(pf, t));
  pb_varint(&c->a[PF_WK_CPU], target);
  pb_varint(&c->a[PF_WK_PRIO], (uint64_t)(int64_t)prio_of(t));
  pb_varint(&c->a[PF_WK_COMM], comm_index(pf, c, t));
  pb_varint(&c->a[PF_WK_FLAGS], flags);
  c->irqflags |= flags;
  c->last_wk = ts;
  c->nwk++;
  touched(pf, t, ts);
}

static void sched_state(void *bk, const struct tw_rtos_change *ch)
{
  struct pf *pf = bk;
  const struct tw_rtos_task *t = ch->task;
  switch (t->now.state) {
  case TW_RTOS_READY:
    if (ch->old.state != TW_RTOS_READY && ch->old.state != TW_RTOS_RUNNING)
      waking(pf, ch);
    break;
  case TW_RTOS_BLOCKED:
    mark(pf, ch, prev_state(t) == PS_D ? GK_UNINTERRUPTIBLE : GK_SLEEP, wait_symbol(pf, t));
    break;
  case TW_RTOS_SUSPENDED:
    mark(pf, ch, GK_STOPPED, 0);
    break;
  case TW_RTOS_DELETED:
    mark(pf, ch, GK_DESTROYED, 0);
    break;
  case TW_RTOS_UNKNOWN:
    mark(pf, ch, GK_UNKNOWN, 0);
    break;
  default:
    break;
  }
}

static void irq_write(struct pf *pf, struct pf_cpu *c, const struct pf_frame *f, int entry)
{
  size_t e, h, len = 0;
  const char *name = NULL;
  char num[32];
  if (entry) {
    if (f->irq != TW_RTOS_IRQ_UNNAMED &&
        !(name = tw_rtos_name(pf->m, f->endpoint, TW_OBJ_IRQ, f->irq))) {
      snprintf(num, sizeof num, "irq %u", f->irq);
      name = num;
    }
    if (!name)
      name = "unknown";
    name = tw__pf_utf8(pf, name, strlen(name), &len); /* whole: no limit */
  }
  if (pb_room(&c->ev, len + 64) < 0) {
    tw__pf_oom(pf);
    return;
  }
  e = pb_open(&c->ev, FB_EVENT);
  pb_uint(&c->ev, FE_TIMESTAMP, entry ? f->since : f->end);
  h = pb_open(&c->ev, entry ? FE_IRQ_ENTRY : FE_IRQ_EXIT);
  if (f->irq != TW_RTOS_IRQ_UNNAMED)
    pb_uint(&c->ev, IRQ_IRQ, f->irq);
  if (entry) {
    pb_bytes(&c->ev, IRQ_NAME, name, len);
  } else {
    pb_uint(&c->ev, IRQ_RET, f->cut ? 0 : 1); /* 1: handled; a frame cut by a loss: not seen */
  }
  pb_close(&c->ev, h);
  pb_close(&c->ev, e);
}

/* Frames end innermost first; they are written when the outermost ends,
 * entries outer first, so nesting survives equal timestamps. */
static void frames_write(struct pf *pf, struct pf_cpu *c)
{
  for (int i = c->nframes - 1; i >= 0; i--)
    irq_write(pf, c, &c->frames[i], 1);
  for (int i = 0; i < c->nframes; i++)
    irq_write(pf, c, &c->frames[i], 0);
  c->nframes = 0;
}

static void sched_irq(void *bk, const struct tw_rtos_change *ch)
{
  struct pf *pf = bk;
  struct pf_cpu *c = bundle(pf, ch->core->id);
  if (!c)
    return;
  if (c->nframes < TW_RTOS_MAX_NEST)
    c->frames[c->nframes++] = (struct pf_frame){.since = ch->frame->since, .end = ch->t,
                                                .irq = ch->frame->irq,
                                                .endpoint = ch->core->endpoint,
                                                .cut = (uint8_t)ch->cut};
  if (ch->depth <= 1)
    frames_write(pf, c);
}

static void sched_rename(void *bk, const struct tw_rtos_change *ch)
{
  (void)bk; /* tw__pf_comm sees the model's new name pointer */
  (void)ch;
}

const struct tl_sched_ops tw__pf_sched = {.cpu = sched_cpu, .sw = sched_switch,
                                          .state = sched_state, .irq = sched_irq,
                                          .rename = sched_rename};

/* The end: pending marks, interrupts still open (ended at the last
 * event), every bundle. */
void tw__pf_sched_finish(struct pf *pf)
{
  tw__pf_sched_time(pf, UINT64_MAX);
  for (size_t i = 0; i < tw_rtos_ncores(pf->m); i++) {
    const struct tw_rtos_core *mc = tw_rtos_core_at(pf->m, i);
    struct pf_cpu *c;
    if (mc->depth <= 0 || !(c = bundle(pf, mc->id)))
      continue;
    for (int d = mc->depth - 1; d >= 0 && c->nframes < TW_RTOS_MAX_NEST; d--)
      c->frames[c->nframes++] = (struct pf_frame){.since = mc->frames[d].since, .end = pf->now,
                                                  .irq = mc->frames[d].irq,
                                                  .endpoint = mc->endpoint};
    frames_write(pf, c);
  }
  for (size_t i = 0; i < pf->ncpus; i++)
    if (pf->cpus[i].used)
      bundle_flush(pf, (uint32_t)i);
}

void tw__pf_sched_free(struct pf *pf)
{
  for (size_t i = 0; i < pf->ncpus; i++) {
    for (int k = 0; k < PF_NARR; k++)
      pb_free(&pf->cpus[i].a[k]);
    pb_free(&pf->cpus[i].comm);
    pb_free(&pf->cpus[i].ev);
  }
  for (size_t i = 0; i < pf->ntasks; i++)
    free(pf->tasks[i].comm);
  free(pf->cpus);
  free(pf->tasks);
  free(pf->marks);
  free(pf->ksym_obj);
  pb_free(&pf->ksyms);
}
