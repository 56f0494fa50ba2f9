/* Text and JSON output of the analysis results (docs/analyses.md, "JSON"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "an_internal.h"

static void jstr(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&') /* safe inside <script> too */
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

static const char *nm(const struct tw_an *a, unsigned kind, uint32_t n, char *buf, size_t cap)
{
  return tw_an_name(a, (enum tw_obj_kind)kind, n, buf, cap);
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

/* Contention ranking: total wait, then blocks, then number. */
static int before(const struct an_obj *m, uint32_t x, uint32_t y)
{
  double wx = m[x].wait ? m[x].wait->sum : 0, wy = m[y].wait ? m[y].wait->sum : 0;
  if (wx != wy)
    return wx > wy;
  if (m[x].blocks != m[y].blocks)
    return m[x].blocks > m[y].blocks;
  return x < y;
}

static size_t ranked_mutexes(const struct tw_an *a, uint32_t **out)
{
  size_t n = 0;
  *out = malloc((a->nobjs[TW_OBJ_MUTEX] + 1) * sizeof **out);
  if (!*out)
    return 0;
  for (size_t i = 0; i < a->nobjs[TW_OBJ_MUTEX]; i++)
    if (a->objs[TW_OBJ_MUTEX][i].used)
      (*out)[n++] = (uint32_t)i;
  /* insertion sort: few mutexes, and no global comparator context */
  const struct an_obj *m = a->objs[TW_OBJ_MUTEX];
  for (size_t i = 1; i < n; i++) {
    uint32_t v = (*out)[i];
    size_t j = i;
    for (; j > 0 && before(m, v, (*out)[j - 1]); j--)
      (*out)[j] = (*out)[j - 1];
    (*out)[j] = v;
  }
  return n;
}

static void jfinding(FILE *f, const struct tw_an *a, const struct tw_an_finding *fd)
{
  char b[128], text[512];
  fprintf(f, "{\"kind\":\"%s\",\"core\":%d,\"t0\":%" PRIu64 ",\"t1\":%" PRIu64
             ",\"ns\":%" PRIu64 ",\"across_gap\":%s,\"tasks\":[",
          tw_an_finding_name(fd->kind), fd->core, fd->t0, fd->t1, fd->ns,
          fd->across_gap ? "true" : "false");
  for (int i = 0; i < fd->ntasks; i++) {
    int prio = fd->tasks[i] < a->nnames[TW_OBJ_TASK] &&
                       a->names[TW_OBJ_TASK][fd->tasks[i]].have_prio
                   ? a->names[TW_OBJ_TASK][fd->tasks[i]].prio : -1;
    fprintf(f, "%s{\"task\":%u,\"name\":", i ? "," : "", fd->tasks[i]);
    jstr(f, nm(a, TW_OBJ_TASK, fd->tasks[i], b, sizeof b));
    fprintf(f, ",\"prio\":%d}", prio);
  }
  fputs("],\"objects\":[", f);
  for (int i = 0; i < fd->nobjs; i++) {
    fprintf(f, "%s{\"kind\":\"%s\",\"obj\":%u,\"name\":", i ? "," : "",
            tw_obj_kind_name(fd->obj_kinds[i]), fd->objs[i]);
    jstr(f, nm(a, fd->obj_kinds[i], fd->objs[i], b, sizeof b));
    fputc('}', f);
  }
  tw__an_finding_text(a, fd, text, sizeof text);
  fputs("],\"text\":", f);
  jstr(f, text);
  fputc('}', f);
}

static void jcore(FILE *f, const struct tw_an *a, size_t ci)
{
  const struct an_core *c = &a->cores[ci];
  char b[128];
  uint64_t dur = c->t1 - c->t0;
  fprintf(f, "{\"core\":%zu,\"name\":", ci);
  jstr(f, c->name ? c->name : "core");
  fprintf(f, ",\"t0\":%" PRIu64 ",\"t1\":%" PRIu64 ",\"duration_ns\":%" PRIu64
             ",\"events\":%" PRIu64 ",\"context_switches\":%" PRIu64
             ",\"switch_rate_hz\":%.3f,\"isr_ns\":%" PRIu64 ",\"isr_pct\":%.3f"
             ",\"untraced_ns\":%" PRIu64 ",\"max_nesting\":%d,\"window_ns\":%" PRIu64
             ",\"unmatched_leave\":%" PRIu64 ",\"time_backwards\":%" PRIu64
             ",\"release_latency\":",
          c->t0, c->t1, dur, c->events, c->switches,
          dur ? (double)c->switches * 1e9 / (double)dur : 0.0, c->isr_ns, pct(c->isr_ns, dur),
          c->unknown_ns, c->max_nesting, c->win_w, c->unmatched, c->backwards);
  jhist(f, c->latency, 1);
  fputs(",\"switches_per_window\":[", f);
  for (unsigned i = 0; i < nwin(c); i++)
    fprintf(f, "%s%" PRIu64, i ? "," : "", c->win_switches[i]);
  fputs("],\"tasks\":[", f);
  int first = 1;
  for (size_t i = 0; i < c->ntasks; i++) {
    const struct an_task *t = &c->tasks[i];
    struct tw_an_task_stats ts;
    if (!t->used || tw_an_task(a, (int)ci, (uint16_t)i, &ts) < 0)
      continue;
    fprintf(f, "%s{\"task\":%zu,\"name\":", first ? "" : ",", i);
    first = 0;
    jstr(f, nm(a, TW_OBJ_TASK, (uint32_t)i, b, sizeof b));
    fprintf(f, ",\"prio\":%d,\"state_end\":\"%s\"", ts.prio, tw_an_state_name(ts.state));
    if (ts.state == TW_AN_BLOCKED) {
      fprintf(f, ",\"waits_on\":{\"kind\":\"%s\",\"obj\":%u,\"name\":",
              tw_obj_kind_name(ts.wait_kind), ts.wait_obj);
      jstr(f, nm(a, ts.wait_kind, ts.wait_obj, b, sizeof b));
      fputc('}', f);
    }
    fprintf(f, ",\"cpu_ns\":%" PRIu64 ",\"cpu_pct\":%.3f,\"switches_in\":%" PRIu64
               ",\"state_ns\":{",
            t->cpu_ns, pct(t->cpu_ns, dur), t->switches_in);
    for (int s = 1; s < TW_AN_NSTATES; s++)
      fprintf(f, "%s\"%s\":%" PRIu64, s > 1 ? "," : "", tw_an_state_name((enum tw_an_state)s),
              t->ns[s]);
    fprintf(f, ",\"in_interrupt\":%" PRIu64, t->intr_ns);
    fputs("},\"release_latency\":", f);
    jhist(f, t->latency, 0);
    fputs(",\"load_permille\":", f);
    jload(f, c, t->win);
    fputc('}', f);
  }
  fputs("],\"irqs\":[", f);
  for (size_t i = 0; i < c->nirqs_used; i++) {
    const struct an_irq *q = &c->irqs[i];
    fprintf(f, "%s{\"irq\":%" PRId64 ",\"name\":", i ? "," : "",
            q->irq == TW_AN_IRQ_UNKNOWN ? (int64_t)-1 : (int64_t)q->irq);
    jstr(f, nm(a, TW_OBJ_IRQ, q->irq, b, sizeof b));
    fprintf(f, ",\"count\":%" PRIu64 ",\"nested\":%" PRIu64 ",\"max_depth\":%d,\"cpu_ns\":%" PRIu64
               ",\"cpu_pct\":%.3f,\"cut_by_loss\":%" PRIu64 ",\"duration\":",
            q->count, q->nested, q->max_depth, q->cpu_ns, pct(q->cpu_ns, dur), q->cut);
    jhist(f, q->dur, 1);
    fputs(",\"load_permille\":", f);
    jload(f, c, q->win);
    fputc('}', f);
  }
  fputs("]}", f);
}

static void jobjects(FILE *f, const struct tw_an *a)
{
  char b[128];
  int first = 1;
  fputs("\"objects\":[", f);
  for (unsigned k = TW_OBJ_SEM; k <= TW_OBJ_RSEM; k++) {
    for (size_t i = 0; i < a->nobjs[k]; i++) {
      const struct an_obj *o = &a->objs[k][i];
      if (!o->used)
        continue;
      fprintf(f, "%s{\"kind\":\"%s\",\"obj\":%zu,\"name\":", first ? "" : ",",
              tw_obj_kind_name((enum tw_obj_kind)k), i);
      first = 0;
      jstr(f, nm(a, k, (uint32_t)i, b, sizeof b));
      fprintf(f, ",\"waits\":%" PRIu64 ",\"releases\":%" PRIu64 ",\"type_counts\":[",
              o->blocks, o->releases);
      for (int t = 0; t < TW_AN_MAX_TYPES; t++)
        fprintf(f, "%s%" PRIu64, t ? "," : "", o->count[t]);
      fputs("],\"blocked\":", f);
      jhist(f, o->wait, 1);
      fputc('}', f);
    }
  }
  fputc(']', f);
}

void tw_an_write_json(const struct tw_an *a, FILE *f)
{
  char b[128];
  fprintf(f, "{\"starve_ns\":%" PRIu64 ",\"percentiles\":\"log-bucket, <=3.1%% error\",\"cores\":[",
          a->cfg.starve_ns);
  int first = 1;
  for (size_t i = 0; i < a->ncores; i++) {
    if (!a->cores[i].used || !a->cores[i].events)
      continue;
    if (!first)
      fputc(',', f);
    first = 0;
    jcore(f, a, i);
  }
  fputs("],\"mutexes\":[", f);
  uint32_t *rank;
  size_t n = ranked_mutexes(a, &rank);
  for (size_t r = 0; r < n; r++) {
    const struct an_obj *o = &a->objs[TW_OBJ_MUTEX][rank[r]];
    fprintf(f, "%s{\"mutex\":%u,\"rank\":%zu,\"name\":", r ? "," : "", rank[r], r + 1);
    jstr(f, nm(a, TW_OBJ_MUTEX, rank[r], b, sizeof b));
    fprintf(f, ",\"locks\":%" PRIu64 ",\"unlocks\":%" PRIu64 ",\"inc_locks\":%" PRIu64
               ",\"dec_locks\":%" PRIu64 ",\"blocks\":%" PRIu64 ",\"contended\":%" PRIu64
               ",\"max_depth\":%d,\"wait_total_ns\":%.0f,\"hold\":",
            o->count[0], o->count[1], o->count[2], o->count[3], o->blocks, o->contended,
            o->max_depth, o->wait ? o->wait->sum : 0.0);
    jhist(f, o->hold, 1);
    fputs(",\"wait\":", f);
    jhist(f, o->wait, 1);
    fputc('}', f);
  }
  free(rank);
  fputs("],", f);
  jobjects(f, a);
  fputs(",\"findings\":[", f);
  for (size_t i = 0; i < a->nfind; i++) {
    if (i)
      fputc(',', f);
    jfinding(f, a, &a->findings[i]);
  }
  static const char *const cause[] = {"ring", "packets", "unexplained"};
  fprintf(f, "],\"loss\":{\"ring_drops\":%" PRIu64 ",\"packets_lost\":%" PRIu64
             ",\"unexplained\":%" PRIu64 ",\"merged_entries\":%zu,\"gaps\":[",
          a->lost[0], a->lost[1], a->lost[2], a->loss_merged);
  for (size_t i = 0; i < a->nloss; i++)
    fprintf(f, "%s{\"t\":%" PRIu64 ",\"core\":%d,\"cause\":\"%s\",\"count\":%" PRIu64 "}",
            i ? "," : "", a->losses[i].t, a->losses[i].core, cause[a->losses[i].cause],
            a->losses[i].count);
  fputs("]}}\n", f);
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
  char n0[64], n1[64], n2[64], o0[64], d[32], t0[32], t1[32];
  fmt_ns(d, sizeof d, fd->ns);
  fmt_ns(t0, sizeof t0, fd->t0);
  fmt_ns(t1, sizeof t1, fd->t1);
  const char *gap = fd->across_gap ? " [events were lost in this window: may be wrong]" : "";
  switch (fd->kind) {
  case TW_AN_PRIO_INVERSION:
    snprintf(buf, cap, "%s blocked on %s held by lower-priority %s while %s%s ran: %s inverted, "
             "%s..%s%s",
             nm(a, TW_OBJ_TASK, fd->tasks[0], n0, sizeof n0),
             nm(a, TW_OBJ_MUTEX, fd->objs[0], o0, sizeof o0),
             nm(a, TW_OBJ_TASK, fd->tasks[1], n1, sizeof n1),
             fd->ntasks > 2 ? nm(a, TW_OBJ_TASK, fd->tasks[2], n2, sizeof n2) : "?",
             fd->ntasks > 3 ? " (and others)" : "", d, t0, t1, gap);
    break;
  case TW_AN_DEADLOCK: {
    size_t o = (size_t)snprintf(buf, cap, "wait-for cycle:");
    for (int i = 0; i < fd->ntasks && o < cap; i++)
      o += (size_t)snprintf(buf + o, cap - o, " %s waits for %s held by",
                            nm(a, TW_OBJ_TASK, fd->tasks[i], n0, sizeof n0),
                            i < fd->nobjs ? nm(a, TW_OBJ_MUTEX, fd->objs[i], o0, sizeof o0) : "?");
    if (o < cap)
      snprintf(buf + o, cap - o, " %s; from %s for %s%s",
               nm(a, TW_OBJ_TASK, fd->tasks[0], n0, sizeof n0), t0, d, gap);
    break;
  }
  case TW_AN_STARVATION:
    snprintf(buf, cap, "%s ready but not run for %s (%s..%s)%s",
             nm(a, TW_OBJ_TASK, fd->tasks[0], n0, sizeof n0), d, t0, t1, gap);
    break;
  case TW_AN_BLOCKED_AT_END:
    snprintf(buf, cap, "%s still blocked on %s at the end of the trace, since %s (%s)%s",
             nm(a, TW_OBJ_TASK, fd->tasks[0], n0, sizeof n0),
             nm(a, fd->obj_kinds[0], fd->objs[0], o0, sizeof o0), t0, d, gap);
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

void tw_an_write_text(const struct tw_an *a, FILE *f)
{
  char b[128], d[32];
  for (size_t ci = 0; ci < a->ncores; ci++) {
    const struct an_core *c = &a->cores[ci];
    if (!c->used || !c->events)
      continue;
    uint64_t dur = c->t1 - c->t0;
    fmt_ns(d, sizeof d, dur);
    fprintf(f, "== %s: %" PRIu64 " events over %s, %" PRIu64 " context switches (%.1f/s), "
               "interrupts %.2f%% CPU, max nesting %d\n",
            c->name ? c->name : "core", c->events, d, c->switches,
            dur ? (double)c->switches * 1e9 / (double)dur : 0.0, pct(c->isr_ns, dur),
            c->max_nesting);
    fprintf(f, "  tasks (CPU %%, state at end):\n");
    for (size_t i = 0; i < c->ntasks; i++) {
      const struct an_task *t = &c->tasks[i];
      if (!t->used)
        continue;
      fprintf(f, "    %-20s %6.2f%%  %-9s switches in %" PRIu64 "\n",
              nm(a, TW_OBJ_TASK, (uint32_t)i, b, sizeof b), pct(t->cpu_ns, dur),
              tw_an_state_name((enum tw_an_state)t->state), t->switches_in);
      thist(f, "release", t->latency);
    }
    if (c->nirqs_used)
      fprintf(f, "  interrupts (CPU %%, count, duration):\n");
    for (size_t i = 0; i < c->nirqs_used; i++) {
      const struct an_irq *q = &c->irqs[i];
      fprintf(f, "    %-20s %6.2f%%  %" PRIu64 " taken, %" PRIu64 " nested\n",
              nm(a, TW_OBJ_IRQ, q->irq, b, sizeof b), pct(q->cpu_ns, dur), q->count, q->nested);
      thist(f, "duration", q->dur);
    }
    if (c->latency && c->latency->n) {
      fprintf(f, "  interrupt -> released task running:\n");
      thist(f, "latency", c->latency);
    }
  }
  uint32_t *rank;
  size_t n = ranked_mutexes(a, &rank);
  if (n)
    fprintf(f, "== mutexes, most contended first:\n");
  for (size_t r = 0; r < n; r++) {
    const struct an_obj *o = &a->objs[TW_OBJ_MUTEX][rank[r]];
    fprintf(f, "  %zu. %-20s locks %" PRIu64 ", blocks %" PRIu64 ", max depth %d\n", r + 1,
            nm(a, TW_OBJ_MUTEX, rank[r], b, sizeof b), o->count[0], o->blocks, o->max_depth);
    thist(f, "hold", o->hold);
    thist(f, "wait", o->wait);
  }
  free(rank);
  for (unsigned k = TW_OBJ_SEM; k <= TW_OBJ_RSEM; k++)
    for (size_t i = 0; i < a->nobjs[k]; i++) {
      const struct an_obj *o = &a->objs[k][i];
      if (!o->used)
        continue;
      fprintf(f, "  %-6s %-20s waits %" PRIu64 ", releases %" PRIu64 "\n",
              tw_obj_kind_name((enum tw_obj_kind)k), nm(a, k, (uint32_t)i, b, sizeof b),
              o->blocks, o->releases);
      thist(f, "blocked", o->wait);
    }
  fprintf(f, "== findings: %zu\n", a->nfind);
  for (size_t i = 0; i < a->nfind; i++) {
    char text[512];
    tw__an_finding_text(a, &a->findings[i], text, sizeof text);
    fprintf(f, "  %s: %s\n", tw_an_finding_name(a->findings[i].kind), text);
  }
  fprintf(f, "== loss: %" PRIu64 " events dropped by the ring, %" PRIu64 " packets lost, %" PRIu64
             " unexplained\n", a->lost[0], a->lost[1], a->lost[2]);
  for (size_t i = 0; i < a->nloss && i < 20; i++) {
    fmt_ns(d, sizeof d, a->losses[i].t);
    fprintf(f, "  at %s: %" PRIu64 " %s\n", d, a->losses[i].count,
            a->losses[i].cause == TW_AN_LOSS_PACKETS ? "packets lost" :
            a->losses[i].cause == TW_AN_LOSS_RING ? "events dropped (ring)" : "events unexplained");
  }
  if (a->nloss > 20)
    fprintf(f, "  ... %zu more gaps (see --json)\n", a->nloss - 20);
}
