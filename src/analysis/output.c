/* Text and JSON output of the analysis results (docs/analyses.md, "JSON"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "an_internal.h"
#include "tracewire/wire/utf8.h"
#include "tracewire/error.h"

/* A JSON string of the NUL-terminated s, which may come from the target
 * (a name): valid UTF-8 whatever it held (each ill-formed subpart one
 * U+FFFD: tracewire/wire/utf8.h), and safe inside an HTML <script> block
 * as well (the report embeds it: no `<` can close the block or open a
 * comment). */
void tw__an_jstr(FILE *f, const char *s)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t n = strlen(s);
  fputc('"', f);
  for (size_t i = 0; i < n;) {
    unsigned char ch = u[i];
    int k = ch < 0x80 ? 1 : tw__utf8_step(u + i, n - i);
    if (k < 0)
      fputs("\\ufffd", f);
    else if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&') /* safe inside <script> too */
      fprintf(f, "\\u%04x", ch);
    else
      fwrite(u + i, 1, (size_t)k, f);
    i += (size_t)(k < 0 ? -k : k);
  }
  fputc('"', f);
}

/* The name of a numbered thing of endpoint ep, whole, or "kind N". */
static const char *nm_ep(const struct tw_an *a, uint16_t ep, unsigned kind, uint32_t n,
                         char *buf, size_t cap)
{
  const char *s = tw_rtos_name(a->m, ep, (enum tw_obj_kind)kind, n);
  if (s)
    return s;
  if (kind == TW_OBJ_IRQ && n == TW_AN_IRQ_UNKNOWN)
    snprintf(buf, cap, "irq ?");
  else
    snprintf(buf, cap, "%s %u", tw_obj_kind_name((enum tw_obj_kind)kind), (unsigned)n);
  return buf;
}

static const char *nm(const struct tw_an *a, int core, unsigned kind, uint32_t n, char *buf,
                      size_t cap)
{
  return tw_an_name(a, core, (enum tw_obj_kind)kind, n, buf, cap);
}

/* The engine's tasks listed on core ci, by task number (NULL when out of
 * memory: the caller reports it). */
static const struct an_task **core_tasks(const struct tw_an *a, size_t ci, size_t *n)
{
  const struct an_task **v = malloc((a->ntasks + 1) * sizeof *v);
  *n = 0;
  if (!v)
    return NULL;
  for (size_t i = 0; i < a->ntasks; i++)
    if (tw__an_listed(a, &a->tasks[i], ci))
      v[(*n)++] = &a->tasks[i];
  for (size_t i = 1; i < *n; i++) { /* insertion sort: tasks come nearly in order */
    const struct an_task *x = v[i];
    size_t j = i;
    for (; j > 0 && v[j - 1]->t->number > x->t->number; j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
  return v;
}

/* Objects of the kinds a..b, by kind, endpoint and number. */
static int obj_before(const struct tw_rtos_obj *x, const struct tw_rtos_obj *y)
{
  if (x->kind != y->kind)
    return x->kind < y->kind;
  if (x->endpoint != y->endpoint)
    return x->endpoint < y->endpoint;
  return x->number < y->number;
}

static const struct an_obj **objects(const struct tw_an *a, unsigned k0, unsigned k1, size_t *n)
{
  const struct an_obj **v = malloc((a->nobjs + 1) * sizeof *v);
  *n = 0;
  if (!v)
    return NULL;
  for (size_t i = 0; i < a->nobjs; i++)
    if (a->objs[i].o && a->objs[i].o->kind >= k0 && a->objs[i].o->kind <= k1)
      v[(*n)++] = &a->objs[i];
  for (size_t i = 1; i < *n; i++) {
    const struct an_obj *x = v[i];
    size_t j = i;
    for (; j > 0 && obj_before(x->o, v[j - 1]->o); j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
  return v;
}

static void jhist(FILE *f, const struct tw_hist *h, int buckets)
{
  static const struct tw_hist empty;
  if (!h)
    h = &empty;
  fprintf(f, "{\"n\":%" PRIu64 ",\"min\":%" PRIu64 ",\"mean\":%.0f,\"p50\":%" PRIu64
             ",\"p99\":%" PRIu64 ",\"max\":%" PRIu64, h->n, h->min, tw_hist_mean(h),
          tw_hist_pct(h, 50), tw_hist_pct(h, 99), h->max);
  if (buckets) {
    fputs(",\"buckets\":[", f);
    int first = 1;
    for (unsigned i = 0; i < TW_HIST_EXP * TW_HIST_SUB; i++)
      if (h->b[i]) {
        fprintf(f, "%s[%" PRIu64 ",%" PRIu64 "]", first ? "" : ",", tw_hist_bucket_lo(i), h->b[i]);
        first = 0;
      }
    fputc(']', f);
  }
  fputc('}', f);
}

/* Recording restarts: gaps of unknown size. */
static size_t restarts(const struct tw_an *a)
{
  size_t n = 0;
  for (size_t i = 0; i < a->nloss; i++)
    n += a->losses[i].cause == TW_AN_LOSS_STOPPED;
  return n;
}

static unsigned nwin(const struct an_core *c)
{
  uint64_t n = (c->t1 - c->t0) / c->win_w + 1;
  return n > TW_AN_WINDOWS ? TW_AN_WINDOWS : (unsigned)n;
}

static void jload(FILE *f, const struct an_core *c, const uint64_t *w)
{
  unsigned n = nwin(c);
  fputc('[', f);
  for (unsigned i = 0; i < n; i++)
    /* win_w is 1000 ns times a power of two: dividing by win_w / 1000 is
     * exact, and w[i] * 1000 would wrap for windows of months. */
    fprintf(f, "%s%u", i ? "," : "", w ? (unsigned)(w[i] / (c->win_w / 1000)) : 0u);
  fputc(']', f);
}

static double pct(uint64_t part, uint64_t whole)
{
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Contention ranking: total wait, then blocks, then endpoint and number. */
static int before(const struct an_obj *x, const struct an_obj *y)
{
  double wx = x->wait ? x->wait->sum : 0, wy = y->wait ? y->wait->sum : 0;
  if (wx != wy)
    return wx > wy;
  if (x->blocks != y->blocks)
    return x->blocks > y->blocks;
  return obj_before(x->o, y->o);
}

static const struct an_obj **ranked_mutexes(const struct tw_an *a, size_t *n)
{
  const struct an_obj **v = objects(a, TW_OBJ_MUTEX, TW_OBJ_MUTEX, n);
  for (size_t i = 1; v && i < *n; i++) { /* insertion sort: few mutexes */
    const struct an_obj *x = v[i];
    size_t j = i;
    for (; j > 0 && before(x, v[j - 1]); j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
  return v;
}

/* The state a task ended in; a deleted one says so (it left the analyses). */
static const char *end_state(const struct an_task *t)
{
  if (t->t->now.state == TW_RTOS_DELETED)
    return tw_rtos_state_name(TW_RTOS_DELETED);
  return tw_an_state_name((enum tw_an_state)t->state);
}

static int task_prio(const struct tw_an *a, int core, uint32_t number)
{
  const struct tw_rtos_core *mc = core >= 0 ? tw_rtos_core_at(a->m, (size_t)core) : NULL;
  const struct tw_rtos_task *t = mc ? tw_rtos_task(a->m, mc->endpoint, number) : NULL;
  return t ? t->base_prio : -1;
}

static void jfinding(FILE *f, const struct tw_an *a, const struct tw_an_finding *fd,
                     size_t group)
{
  char b[128], text[1024];
  fprintf(f, "{\"kind\":\"%s\",\"core\":%d,\"t0\":%" PRIu64 ",\"t1\":%" PRIu64
             ",\"ns\":%" PRIu64 ",\"across_gap\":%s,",
          tw_an_finding_name(fd->kind), fd->core, fd->t0, fd->t1, fd->ns,
          fd->across_gap ? "true" : "false");
  if (fd->kind == TW_AN_PRIO_INVERSION)
    fprintf(f, "\"bounded\":%s,", fd->bounded ? "true" : "false");
  fputs("\"tasks\":[", f);
  for (int i = 0; i < fd->ntasks; i++) {
    fprintf(f, "%s{\"task\":%u,\"name\":", i ? "," : "", fd->tasks[i]);
    tw__an_jstr(f, nm(a, fd->core, TW_OBJ_TASK, fd->tasks[i], b, sizeof b));
    fprintf(f, ",\"prio\":%d}", task_prio(a, fd->core, fd->tasks[i]));
  }
  fputs("],\"objects\":[", f);
  for (int i = 0; i < fd->nobjs; i++) {
    fprintf(f, "%s{\"kind\":\"%s\",\"obj\":%u,\"name\":", i ? "," : "",
            tw_obj_kind_name(fd->obj_kinds[i]), fd->objs[i]);
    tw__an_jstr(f, nm(a, fd->core, fd->obj_kinds[i], fd->objs[i], b, sizeof b));
    fputc('}', f);
  }
  tw__an_finding_text(a, fd, text, sizeof text);
  fputs("],\"text\":", f);
  tw__an_jstr(f, text);
  if (group != SIZE_MAX)
    fprintf(f, ",\"group\":%zu", group);
  fputc('}', f);
}

static void jtasks(FILE *f, const struct tw_an *a, int core, const uint16_t *tasks, int n)
{
  char b[128];
  fputc('[', f);
  for (int i = 0; i < n; i++) {
    fprintf(f, "%s{\"task\":%u,\"name\":", i ? "," : "", tasks[i]);
    tw__an_jstr(f, nm(a, core, TW_OBJ_TASK, tasks[i], b, sizeof b));
    fprintf(f, ",\"prio\":%d}", task_prio(a, core, tasks[i]));
  }
  fputc(']', f);
}

/* A group (docs/analyses.md, "JSON"): its key, counts, times and worst
 * instance in full. */
static void jgroup(FILE *f, const struct tw_an *a, const struct tw_an_group *g)
{
  char b[128], text[1400];
  fprintf(f, "{\"kind\":\"%s\",\"bounded\":%s,\"core\":%d,\"endpoint\":%u,\"count\":%" PRIu64
             ",\"across_gap\":%" PRIu64 ",\"first\":%" PRIu64 ",\"last\":%" PRIu64
             ",\"total_ns\":%" PRIu64 ",\"tasks\":",
          tw_an_finding_name(g->kind), g->bounded ? "true" : "false", g->core, g->endpoint,
          g->count, g->across_gap, g->first,
          g->last, g->total_ns);
  jtasks(f, a, g->core, g->tasks, g->ntasks);
  fputs(",\"objects\":[", f);
  for (int i = 0; i < g->nobjs; i++) {
    fprintf(f, "%s{\"kind\":\"%s\",\"obj\":%u,\"name\":", i ? "," : "",
            tw_obj_kind_name(g->obj_kinds[i]), g->objs[i]);
    tw__an_jstr(f, nm(a, g->core, g->obj_kinds[i], g->objs[i], b, sizeof b));
    fputc('}', f);
  }
  fputs("],\"others\":", f);
  jtasks(f, a, g->core, g->others, g->nothers);
  fprintf(f, ",\"worst_index\":%lld,\"worst\":",
          g->worst_index == SIZE_MAX ? -1LL : (long long)g->worst_index);
  jfinding(f, a, &g->worst, SIZE_MAX);
  tw_an_group_text(a, g, text, sizeof text);
  fputs(",\"text\":", f);
  tw__an_jstr(f, text);
  fputc('}', f);
}

static void jtask(FILE *f, const struct tw_an *a, const struct an_core *c, size_t ci,
                  const struct an_task *t, int first)
{
  char b[128];
  uint64_t dur = c->t1 - c->t0;
  struct tw_an_task_stats ts;
  if (tw_an_task(a, (int)ci, t->t->number, &ts) < 0)
    return;
  fprintf(f, "%s{\"task\":%u,\"name\":", first ? "" : ",", t->t->number);
  tw__an_jstr(f, nm(a, (int)ci, TW_OBJ_TASK, t->t->number, b, sizeof b));
  fprintf(f, ",\"prio\":%d,\"state_end\":\"%s\"", ts.prio, end_state(t));
  if (ts.state == TW_AN_BLOCKED)
    fprintf(f, ",\"waits_for\":\"%s\"", tw_rtos_wait_name((enum tw_rtos_wait)ts.wait));
  if (ts.inherits)
    fprintf(f, ",\"inheritance\":{\"count\":%" PRIu64 ",\"max_prio\":%d,\"ns\":%" PRIu64 "}",
            ts.inherits, ts.inherited_max, ts.inherited_ns);
  if (ts.state == TW_AN_BLOCKED && ts.wait_kind) {
    fprintf(f, ",\"waits_on\":{\"kind\":\"%s\",\"obj\":%u,\"name\":",
            tw_obj_kind_name(ts.wait_kind), ts.wait_obj);
    tw__an_jstr(f, nm(a, (int)ci, ts.wait_kind, ts.wait_obj, b, sizeof b));
    fputc('}', f);
  }
  const struct an_load *l = t->t->id < c->nload ? &c->load[t->t->id] : NULL;
  fprintf(f, ",\"home\":%s,\"cpu_ns\":%" PRIu64 ",\"cpu_pct\":%.3f,\"switches_in\":%" PRIu64
             ",\"state_ns\":{",
          ts.home ? "true" : "false", ts.cpu_ns, pct(ts.cpu_ns, dur), ts.switches_in);
  for (int s = 1; s < TW_AN_NSTATES; s++)
    fprintf(f, "%s\"%s\":%" PRIu64, s > 1 ? "," : "", tw_an_state_name((enum tw_an_state)s),
            t->ns[s]);
  fprintf(f, ",\"in_interrupt\":%" PRIu64, l ? l->intr_ns : 0);
  fputs("},\"release_latency\":", f);
  jhist(f, t->latency, 0);
  fputs(",\"load_permille\":", f);
  jload(f, c, l ? l->win : NULL);
  fputc('}', f);
}

static int jcore(FILE *f, const struct tw_an *a, size_t ci)
{
  const struct an_core *c = &a->cores[ci];
  char b[128];
  uint64_t dur = c->t1 - c->t0;
  size_t n;
  const struct an_task **tasks = core_tasks(a, ci, &n);
  fprintf(f, "{\"core\":%zu,\"endpoint\":%u,\"name\":", ci, c->mc->endpoint);
  tw__an_jstr(f, c->name ? c->name : "core");
  fprintf(f, ",\"t0\":%" PRIu64 ",\"t1\":%" PRIu64 ",\"duration_ns\":%" PRIu64
             ",\"events\":%" PRIu64 ",\"context_switches\":%" PRIu64
             ",\"switch_rate_hz\":%.3f,\"isr_ns\":%" PRIu64 ",\"isr_pct\":%.3f"
             ",\"untraced_ns\":%" PRIu64 ",\"max_nesting\":%d,\"window_ns\":%" PRIu64
             ",\"unmatched_leave\":%" PRIu64 ",\"time_backwards\":%" PRIu64
             ",\"release_latency\":",
          c->t0, c->t1, dur, c->events, c->switches,
          dur ? (double)c->switches * 1e9 / (double)dur : 0.0, c->isr_ns, pct(c->isr_ns, dur),
          c->unknown_ns, c->mc->max_depth, c->win_w, c->mc->unmatched_exits, c->mc->backwards);
  jhist(f, c->latency, 1);
  fputs(",\"switches_per_window\":[", f);
  for (unsigned i = 0; i < nwin(c); i++)
    fprintf(f, "%s%" PRIu64, i ? "," : "", c->win_switches[i]);
  fputs("],\"tasks\":[", f);
  for (size_t i = 0; tasks && i < n; i++)
    jtask(f, a, c, ci, tasks[i], i == 0);
  free(tasks);
  fputs("],\"irqs\":[", f);
  for (size_t i = 0, first = 1; i < c->nirqs_used; i++) {
    const struct an_irq *q = &c->irqs[i];
    if (!tw__an_irq_listed(q))
      continue;
    fprintf(f, "%s{\"irq\":%" PRId64 ",\"name\":", first ? "" : ",",
            q->irq == TW_AN_IRQ_UNKNOWN ? (int64_t)-1 : (int64_t)q->irq);
    tw__an_jstr(f, nm(a, (int)ci, TW_OBJ_IRQ, q->irq, b, sizeof b));
    fprintf(f, ",\"count\":%" PRIu64 ",\"nested\":%" PRIu64 ",\"max_depth\":%d,\"cpu_ns\":%" PRIu64
               ",\"cpu_pct\":%.3f,\"cut_by_loss\":%" PRIu64 ",\"duration\":",
            q->count, q->nested, q->max_depth, q->cpu_ns, pct(q->cpu_ns, dur), q->cut);
    jhist(f, q->dur, 1);
    fputs(",\"load_permille\":", f);
    jload(f, c, q->win);
    fputc('}', f);
    first = 0;
  }
  fputs("]}", f);
  return tasks || !a->ntasks ? 0 : TW_ENOMEM;
}

static int jobjects(FILE *f, const struct tw_an *a)
{
  char b[128];
  size_t n;
  const struct an_obj **v = objects(a, TW_OBJ_SEM, TW_OBJ_COUNT - 1, &n);
  fputs("\"objects\":[", f);
  for (size_t i = 0; v && i < n; i++) {
    const struct an_obj *x = v[i];
    const struct tw_rtos_obj *o = x->o;
    fprintf(f, "%s{\"kind\":\"%s\",\"endpoint\":%u,\"obj\":%u,\"name\":", i ? "," : "",
            tw_obj_kind_name((enum tw_obj_kind)o->kind), o->endpoint, o->number);
    tw__an_jstr(f, nm_ep(a, o->endpoint, o->kind, o->number, b, sizeof b));
    fprintf(f, ",\"waits\":%" PRIu64 ",\"releases\":%" PRIu64 ",\"type_counts\":[",
            x->blocks, x->releases);
    for (int t = 0; t < TW_AN_MAX_TYPES; t++)
      fprintf(f, "%s%" PRIu64, t ? "," : "", x->count[t]);
    fputs("],\"blocked\":", f);
    jhist(f, x->wait, 1);
    fputc('}', f);
  }
  fputc(']', f);
  free(v);
  return v || !a->nobjs ? 0 : TW_ENOMEM;
}

/* The file's error, or the engine's: the results may be incomplete. */
static int written(const struct tw_an *a, FILE *f, int rc)
{
  if (fflush(f) != 0 || ferror(f))
    return TW_EIO;
  return rc ? rc : a->err;
}

int tw_an_write_json(const struct tw_an *a, FILE *f)
{
  return tw__an_write_json(a, f, 1);
}

int tw__an_write_json(const struct tw_an *a, FILE *f, int instances)
{
  char b[128];
  int rc = 0, first = 1;
  size_t n;
  fprintf(f, "{\"starve_ns\":%" PRIu64 ",\"percentiles\":\"log-bucket, <=3.1%% error\",\"cores\":[",
          a->cfg.starve_ns);
  for (size_t i = 0; i < a->ncores; i++) {
    if (!a->cores[i].mc || !a->cores[i].in_span)
      continue;
    if (!first)
      fputc(',', f);
    first = 0;
    rc = rc ? rc : jcore(f, a, i);
  }
  fputs("],\"mutexes\":[", f);
  const struct an_obj **rank = ranked_mutexes(a, &n);
  for (size_t r = 0; rank && r < n; r++) {
    const struct an_obj *o = rank[r];
    fprintf(f, "%s{\"mutex\":%u,\"endpoint\":%u,\"rank\":%zu,\"name\":", r ? "," : "",
            o->o->number, o->o->endpoint, r + 1);
    tw__an_jstr(f, nm_ep(a, o->o->endpoint, TW_OBJ_MUTEX, o->o->number, b, sizeof b));
    fprintf(f, ",\"locks\":%" PRIu64 ",\"unlocks\":%" PRIu64 ",\"inc_locks\":%" PRIu64
               ",\"dec_locks\":%" PRIu64 ",\"blocks\":%" PRIu64 ",\"contended\":%" PRIu64
               ",\"max_depth\":%d,\"wait_total_ns\":%.0f,\"hold\":",
            o->lock_ops[AN_LOCKS], o->lock_ops[AN_UNLOCKS], o->lock_ops[AN_INC_LOCKS],
            o->lock_ops[AN_DEC_LOCKS], o->blocks, o->contended,
            o->max_depth, o->wait ? o->wait->sum : 0.0);
    jhist(f, o->hold, 1);
    fputs(",\"wait\":", f);
    jhist(f, o->wait, 1);
    fputc('}', f);
  }
  if (!rank && a->nobjs)
    rc = rc ? rc : TW_ENOMEM;
  free(rank);
  fputs("],", f);
  rc = rc ? rc : jobjects(f, a);
  fprintf(f, ",\"findings_total\":%zu,\"findings\":[", a->nfind + a->nfind_dropped);
  for (size_t i = 0; instances && i < a->nfind; i++) {
    if (i)
      fputc(',', f);
    jfinding(f, a, &a->findings[i], tw_an_finding_group(a, i));
  }
  fputs("],\"finding_groups\":[", f);
  for (size_t i = 0; i < a->ngroups; i++) {
    if (i)
      fputc(',', f);
    jgroup(f, a, &a->groups[i]);
  }
  fprintf(f, "],\"loss\":{\"ring_drops\":%" PRIu64 ",\"packets_lost\":%" PRIu64
             ",\"unexplained\":%" PRIu64 ",\"restarts\":%zu,\"merged_entries\":%zu,\"gaps\":[",
          a->lost[TW_AN_LOSS_RING], a->lost[TW_AN_LOSS_PACKETS], a->lost[TW_AN_LOSS_UNEXPLAINED],
          restarts(a), a->loss_merged);
  for (size_t i = 0; i < a->nloss; i++)
    fprintf(f, "%s{\"t\":%" PRIu64 ",\"core\":%d,\"cause\":\"%s\",\"count\":%" PRIu64 "}",
            i ? "," : "", a->losses[i].t, a->losses[i].core,
            tw_rtos_cause_name((enum tw_rtos_loss_cause)a->losses[i].cause), a->losses[i].count);
  fputs("]}}\n", f);
  return written(a, f, rc);
}

/* ---- text ------------------------------------------------------------------ */

static void fmt_ns(char *buf, size_t cap, uint64_t ns)
{
  if (ns >= 1000000000ull)
    snprintf(buf, cap, "%.3f s", (double)ns / 1e9);
  else if (ns >= 1000000ull)
    snprintf(buf, cap, "%.3f ms", (double)ns / 1e6);
  else if (ns >= 1000ull)
    snprintf(buf, cap, "%.3f us", (double)ns / 1e3);
  else
    snprintf(buf, cap, "%" PRIu64 " ns", ns);
}

void tw__an_finding_text(const struct tw_an *a, const struct tw_an_finding *fd, char *buf,
                         size_t cap)
{
  char n0[128], n1[128], n2[128], o0[128], d[32], t0[32], t1[32];
  int c = fd->core;
  fmt_ns(d, sizeof d, fd->ns);
  fmt_ns(t0, sizeof t0, fd->t0);
  fmt_ns(t1, sizeof t1, fd->t1);
  const char *gap = fd->across_gap ? " [events were lost in this window: may be wrong]" : "";
  switch (fd->kind) {
  case TW_AN_PRIO_INVERSION:
    if (fd->bounded) {
      snprintf(buf, cap, "%s blocked on %s held by lower-priority %s, bounded by priority "
               "inheritance (%s inherited its priority): waited %s, %s..%s%s",
               nm(a, c, TW_OBJ_TASK, fd->tasks[0], n0, sizeof n0),
               nm(a, c, fd->obj_kinds[0], fd->objs[0], o0, sizeof o0),
               nm(a, c, TW_OBJ_TASK, fd->tasks[1], n1, sizeof n1),
               nm(a, c, TW_OBJ_TASK, fd->tasks[1], n2, sizeof n2), d, t0, t1, gap);
      break;
    }
    snprintf(buf, cap, "%s blocked on %s held by lower-priority %s while %s%s ran: %s inverted, "
             "%s..%s%s",
             nm(a, c, TW_OBJ_TASK, fd->tasks[0], n0, sizeof n0),
             nm(a, c, fd->obj_kinds[0], fd->objs[0], o0, sizeof o0),
             nm(a, c, TW_OBJ_TASK, fd->tasks[1], n1, sizeof n1),
             fd->ntasks > 2 ? nm(a, c, TW_OBJ_TASK, fd->tasks[2], n2, sizeof n2) : "?",
             fd->ntasks > 3 ? " (and others)" : "", d, t0, t1, gap);
    break;
  case TW_AN_DEADLOCK: {
    size_t o = (size_t)snprintf(buf, cap, "wait-for cycle:");
    for (int i = 0; i < fd->ntasks && o < cap; i++)
      o += (size_t)snprintf(buf + o, cap - o, " %s waits for %s held by",
                            nm(a, c, TW_OBJ_TASK, fd->tasks[i], n0, sizeof n0),
                            i < fd->nobjs ? nm(a, c, fd->obj_kinds[i], fd->objs[i], o0, sizeof o0)
                                          : "?");
    if (o < cap)
      snprintf(buf + o, cap - o, " %s; from %s for %s%s",
               nm(a, c, TW_OBJ_TASK, fd->tasks[0], n0, sizeof n0), t0, d, gap);
    break;
  }
  case TW_AN_STARVATION:
    snprintf(buf, cap, "%s ready but not run for %s (%s..%s)%s",
             nm(a, c, TW_OBJ_TASK, fd->tasks[0], n0, sizeof n0), d, t0, t1, gap);
    break;
  case TW_AN_BLOCKED_AT_END:
    snprintf(buf, cap, "%s still blocked on %s at the end of the trace, since %s (%s)%s",
             nm(a, c, TW_OBJ_TASK, fd->tasks[0], n0, sizeof n0),
             nm(a, c, fd->obj_kinds[0], fd->objs[0], o0, sizeof o0), t0, d, gap);
    break;
  default:
    snprintf(buf, cap, "?");
  }
}

static void thist(FILE *f, const char *label, const struct tw_hist *h)
{
  char a[32], b[32], c[32], d[32], e[32];
  if (!h || !h->n)
    return;
  fmt_ns(a, sizeof a, h->min);
  fmt_ns(b, sizeof b, (uint64_t)tw_hist_mean(h));
  fmt_ns(c, sizeof c, tw_hist_pct(h, 50));
  fmt_ns(d, sizeof d, tw_hist_pct(h, 99));
  fmt_ns(e, sizeof e, h->max);
  fprintf(f, "      %-8s n=%" PRIu64 " min %s  mean %s  p50 %s  p99 %s  max %s\n", label, h->n, a,
          b, c, d, e);
}

static void text_core(const struct tw_an *a, FILE *f, size_t ci)
{
  char b[128], d[32];
  const struct an_core *c = &a->cores[ci];
  uint64_t dur = c->t1 - c->t0;
  size_t n;
  const struct an_task **tasks = core_tasks(a, ci, &n);
  fmt_ns(d, sizeof d, dur);
  fprintf(f, "== %s: %" PRIu64 " events over %s, %" PRIu64 " context switches (%.1f/s), "
             "interrupts %.2f%% CPU, max nesting %d\n",
          c->name ? c->name : "core", c->events, d, c->switches,
          dur ? (double)c->switches * 1e9 / (double)dur : 0.0, pct(c->isr_ns, dur),
          c->mc->max_depth);
  fprintf(f, "  tasks (CPU %%, state at end):\n");
  for (size_t i = 0; tasks && i < n; i++) {
    const struct an_task *t = tasks[i];
    char st[160], o[128], inh[32];
    const struct tw_rtos_phase *p = &t->t->now;
    if (t->state == TW_AN_BLOCKED && (p->wait == TW_RTOS_WAIT_OBJECT ||
                                      p->wait == TW_RTOS_WAIT_CONDITION))
      snprintf(st, sizeof st, "blocked on %s",
               nm(a, (int)ci, (enum tw_obj_kind)p->wait_kind, p->wait_obj, o, sizeof o));
    else if (t->state == TW_AN_BLOCKED)
      snprintf(st, sizeof st, "blocked (%s)", tw_rtos_wait_name((enum tw_rtos_wait)p->wait));
    else
      snprintf(st, sizeof st, "%s", end_state(t));
    const struct an_load *l = t->t->id < c->nload ? &c->load[t->t->id] : NULL;
    fprintf(f, "    %-20s %6.2f%%  %-9s switches in %" PRIu64 "%s\n",
            nm(a, (int)ci, TW_OBJ_TASK, t->t->number, b, sizeof b), pct(l ? l->cpu_ns : 0, dur),
            st, l ? l->switches_in : 0, t->core == (int)ci ? "" : " (last ran on another core)");
    if (t->inh_count) {
      fmt_ns(inh, sizeof inh, t->inh_ns);
      fprintf(f, "      inherited priority %" PRIu64 " time%s, up to %d, for %s\n", t->inh_count,
              t->inh_count == 1 ? "" : "s", t->inh_max, inh);
    }
    thist(f, "release", t->latency);
  }
  free(tasks);
  for (size_t i = 0, head = 0; i < c->nirqs_used; i++) {
    const struct an_irq *q = &c->irqs[i];
    if (!tw__an_irq_listed(q))
      continue;
    if (!head++)
      fprintf(f, "  interrupts (CPU %%, count, duration):\n");
    fprintf(f, "    %-20s %6.2f%%  %" PRIu64 " taken, %" PRIu64 " nested\n",
            nm(a, (int)ci, TW_OBJ_IRQ, q->irq, b, sizeof b), pct(q->cpu_ns, dur), q->count,
            q->nested);
    thist(f, "duration", q->dur);
  }
  if (c->latency && c->latency->n) {
    fprintf(f, "  interrupt -> released task running:\n");
    thist(f, "latency", c->latency);
  }
}

static void text_objects(const struct tw_an *a, FILE *f)
{
  char b[128];
  size_t n;
  const struct an_obj **rank = ranked_mutexes(a, &n);
  if (rank && n)
    fprintf(f, "== mutexes, most contended first:\n");
  for (size_t r = 0; rank && r < n; r++) {
    const struct an_obj *o = rank[r];
    fprintf(f, "  %zu. %-20s locks %" PRIu64 ", blocks %" PRIu64 ", max depth %d\n", r + 1,
            nm_ep(a, o->o->endpoint, TW_OBJ_MUTEX, o->o->number, b, sizeof b), o->lock_ops[AN_LOCKS],
            o->blocks, o->max_depth);
    thist(f, "hold", o->hold);
    thist(f, "wait", o->wait);
  }
  free(rank);
  const struct an_obj **v = objects(a, TW_OBJ_SEM, TW_OBJ_COUNT - 1, &n);
  for (size_t i = 0; v && i < n; i++) {
    const struct tw_rtos_obj *o = v[i]->o;
    fprintf(f, "  %-6s %-20s waits %" PRIu64 ", releases %" PRIu64 "\n",
            tw_obj_kind_name((enum tw_obj_kind)o->kind),
            nm_ep(a, o->endpoint, o->kind, o->number, b, sizeof b), v[i]->blocks,
            v[i]->releases);
    thist(f, "blocked", v[i]->wait);
  }
  free(v);
}

static const char *cause_text(enum tw_an_loss_cause c)
{
  switch (c) {
  case TW_AN_LOSS_PACKETS: return "packets lost";
  case TW_AN_LOSS_RING: return "events dropped (ring)";
  case TW_AN_LOSS_STOPPED: return "recording stopped and restarted";
  default: return "events unexplained";
  }
}

int tw_an_write_text(const struct tw_an *a, FILE *f)
{
  char d[32];
  size_t nr = restarts(a);
  for (size_t ci = 0; ci < a->ncores; ci++)
    if (a->cores[ci].mc && a->cores[ci].in_span)
      text_core(a, f, ci);
  text_objects(a, f);
  fprintf(f, "== findings: %zu", a->nfind + a->nfind_dropped);
  if (a->ngroups)
    fprintf(f, " in %zu group%s, worst first (every instance: --json)", a->ngroups,
            a->ngroups == 1 ? "" : "s");
  fputc('\n', f);
  for (size_t i = 0; i < a->ngroups; i++) {
    char text[1400];
    tw_an_group_text(a, &a->groups[i], text, sizeof text);
    fprintf(f, "  %s: %s\n", tw_an_finding_name(a->groups[i].kind), text);
  }
  fprintf(f, "== loss: %" PRIu64 " events dropped by the ring, %" PRIu64 " packets lost, %" PRIu64
             " unexplained", a->lost[TW_AN_LOSS_RING], a->lost[TW_AN_LOSS_PACKETS],
          a->lost[TW_AN_LOSS_UNEXPLAINED]);
  if (nr)
    fprintf(f, ", %zu recording restart%s", nr, nr == 1 ? "" : "s");
  fputc('\n', f);
  for (size_t i = 0; i < a->nloss && i < 20; i++) {
    fmt_ns(d, sizeof d, a->losses[i].t);
    if (a->losses[i].cause == TW_AN_LOSS_STOPPED)
      fprintf(f, "  at %s: %s\n", d, cause_text(a->losses[i].cause));
    else
      fprintf(f, "  at %s: %" PRIu64 " %s\n", d, a->losses[i].count,
              cause_text(a->losses[i].cause));
  }
  if (a->nloss > 20)
    fprintf(f, "  ... %zu more gaps (see --json)\n", a->nloss - 20);
  if (a->err)
    fprintf(f, "== incomplete: %s while analysing\n", tw_strerror(a->err));
  return written(a, f, 0);
}
