/* `tracewire summary`: the short account `make run` prints (README.md
 * "What make run prints" says what each line means).
 *
 * One pass with the decoder counts events and losses by cause; then the
 * analysis plugin (cli_an, as `analyze`) gives CPU load per task and the
 * detector findings. Everything printed is a function of the trace's
 * content: no paths, sizes of files or wall-clock rates, so the demo's
 * fixed seed gives a fixed text (tests/sh/demo_summary.sh compares it
 * with tests/golden/demo-summary-<scenario>.txt). */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_an.h"
#include "tracewire/model/rtos.h"
#include "tracewire/events_gen.h"

void tw_cli_summary_help(FILE *f)
{
  fputs("usage: tracewire summary [options] TRACE\n"
        "A short account of TRACE: events, drops by cause, CPU load per task, detector\n"
        "findings (priority inversion, deadlock, starvation, blocked at the end).\n"
        "`tracewire stats` and `tracewire analyze` have the details.\n\n"
        "options:\n"
        "  --starve-ms N     starvation threshold in ms (default 100)\n"
        "  -q, --quiet       no per-problem lines on stderr\n"
        "  -h, --help        this text\n"
        "exit status: 0 ok, 1 error, 2 usage, 3 input damaged (summary still printed)\n",
        f);
}

/* What the summary shows at most: it stays short on any trace (docs/cli.md,
 * "summary"); analyze has everything. */
#define SUMMARY_TASKS 16  /* per core */
#define SUMMARY_CORES 4
#define SUMMARY_GROUPS 12

/* What the decoder saw (first pass). */
struct counts {
  unsigned long long events, control, drops_records, streams;
  unsigned long long ring, pkts_lost, events_lost, unexplained, restarts;
  uint32_t freq_hz;
  int mixed_freq;
};

static int count_event(void *ctx, const struct tw_event *ev)
{
  struct counts *c = ctx;
  if (ev->module == TW_MOD_CONTROL) {
    c->control++;
    c->drops_records += ev->id == TW_EV_DROPS;
  } else {
    c->events++;
  }
  return 0;
}

static int count(const char *path, struct counts *c)
{
  struct tw_input t;
  memset(c, 0, sizeof *c);
  int rc = tw_input_open(&t, path);
  if (rc) {
    tw_input_close(&t);
    return rc;
  }
  t.quiet = 1; /* the analysis pass reports problems */
  t.on_event = count_event;
  t.ev_ctx = c;
  rc = tw_input_run(&t);
  for (size_t k = 0; rc == 0 && k < t.nsrc; k++)
    for (size_t i = 0; i < tw_decoder_nstreams(t.src[k].d); i++) {
      const struct tw_stream_stats *s = tw_decoder_stream(t.src[k].d, i);
      c->streams++;
      c->ring += s->ring_drops;
      c->pkts_lost += s->pkts_lost;
      c->events_lost += s->events_lost;
      c->unexplained += s->unexplained;
      c->restarts += s->restarts;
      if (c->freq_hz && s->freq_hz != c->freq_hz)
        c->mixed_freq = 1;
      c->freq_hz = s->freq_hz;
    }
  tw_input_close(&t);
  return rc < 0 ? TW_EXIT_ERROR : rc;
}

static void fmt_ns(char *buf, size_t cap, uint64_t ns)
{
  if (ns >= 1000000000ull)
    snprintf(buf, cap, "%.3f s", (double)ns / 1e9);
  else if (ns >= 1000000ull)
    snprintf(buf, cap, "%.3f ms", (double)ns / 1e6);
  else
    snprintf(buf, cap, "%.3f us", (double)ns / 1e3);
}

struct load {
  uint16_t task;
  int prio;
  uint64_t cpu_ns;
};

static int by_load(const void *x, const void *y)
{
  const struct load *a = x, *b = y;
  if (a->cpu_ns != b->cpu_ns)
    return a->cpu_ns < b->cpu_ns ? 1 : -1;
  return a->task < b->task ? -1 : a->task > b->task;
}

/* Where the summary is written before it is made safe for a terminal (it
 * quotes the target's names as they are: cli_put_text). */
static FILE *out;

static void print_load(struct tw_an *an, int core, int ncores)
{
  struct tw_an_core_stats cs;
  if (tw_an_core(an, core, &cs) < 0)
    return;
  double span = cs.t1 > cs.t0 ? (double)(cs.t1 - cs.t0) : 1.0;
  static struct load l[0x10000];
  size_t n = 0;
  const struct tw_rtos *m = tw_an_model(an);
  const struct tw_rtos_core *mc = tw_rtos_core_at(m, (size_t)core);
  for (size_t i = 0; mc && i < tw_rtos_ntasks(m) && n < sizeof l / sizeof l[0]; i++) {
    const struct tw_rtos_task *t = tw_rtos_task_at(m, i); /* the tasks the model knows */
    struct tw_an_task_stats ts;
    if (t->endpoint == mc->endpoint && tw_an_task(an, core, t->number, &ts) == 0)
      l[n++] = (struct load){ t->number, ts.prio, ts.cpu_ns };
  }
  qsort(l, n, sizeof l[0], by_load);
  char dur[32];
  fmt_ns(dur, sizeof dur, cs.t1 - cs.t0);
  if (ncores > 1)
    fprintf(out, "CPU load  core %d: ", core);
  else
    fprintf(out, "CPU load  ");
  fprintf(out, "%zu tasks over %s; interrupts %.1f%%", n, dur, 100.0 * (double)cs.isr_ns / span);
  if (cs.unknown_ns) /* before the first switch, and after lost events until the next */
    fprintf(out, ", not known %.1f%%", 100.0 * (double)cs.unknown_ns / span);
  fprintf(out, ", the rest by task:\n");
  for (size_t i = 0; i < n && i < SUMMARY_TASKS; i++) {
    char name[64];
    fprintf(out, "            %-16s %5.1f%%", tw_an_name(an, core, TW_OBJ_TASK, l[i].task, name, sizeof name),
           100.0 * (double)l[i].cpu_ns / span);
    if (l[i].prio >= 0)
      fprintf(out, "  prio %d", l[i].prio);
    fputc('\n', out);
  }
  if (n > SUMMARY_TASKS) {
    uint64_t rest = 0;
    for (size_t i = SUMMARY_TASKS; i < n; i++)
      rest += l[i].cpu_ns;
    fprintf(out, "            ... %zu more tasks %5.1f%% together\n", n - SUMMARY_TASKS,
           100.0 * (double)rest / span);
  }
}

/* "4210 times, 2.001 ms..12.400 s" */
static const char *times(const struct tw_an_group *g, char *buf, size_t cap)
{
  char first[32], last[32];
  fmt_ns(first, sizeof first, g->first);
  fmt_ns(last, sizeof last, g->last);
  snprintf(buf, cap, "%llu times %s..%s", (unsigned long long)g->count, first, last);
  return buf;
}

static void print_finding(struct tw_an *an, const struct tw_an_finding *f,
                          const struct tw_an_group *g, int ncores)
{
  char a[64], b[64], o[64], d[32], t0[32], t1[32], tm[128];
  fmt_ns(d, sizeof d, f->ns);
  fmt_ns(t0, sizeof t0, f->t0);
  fmt_ns(t1, sizeof t1, f->t1);
  const char *task0 = f->ntasks > 0 ? tw_an_name(an, f->core, TW_OBJ_TASK, f->tasks[0], a, sizeof a) : "?";
  const char *obj0 = f->nobjs > 0 ? tw_an_name(an, f->core, f->obj_kinds[0], f->objs[0], o, sizeof o) : "?";
  fprintf(out, "            ");
  switch (f->kind) {
  case TW_AN_PRIO_INVERSION:
    fprintf(out, "priority inversion: %s waited on %s held by lower-priority %s", task0, obj0,
           f->ntasks > 1 ? tw_an_name(an, f->core, TW_OBJ_TASK, f->tasks[1], b, sizeof b) : "?");
    if (g->count > 1)
      fprintf(out, ": %s", times(g, tm, sizeof tm));
    fprintf(out, "%s %s (%s..%s)%s", g->count > 1 ? ", worst" : " for", d, t0, t1,
           f->bounded ? ", bounded by priority inheritance" : "");
    break;
  case TW_AN_DEADLOCK:
    fprintf(out, "deadlock:");
    for (int i = 0; i < f->ntasks; i++) /* task i waits for object i, held by task i + 1 */
      fprintf(out, "%s %s waits for %s held by %s", i ? "," : "",
             tw_an_name(an, f->core, TW_OBJ_TASK, f->tasks[i], a, sizeof a),
             i < f->nobjs ? tw_an_name(an, f->core, f->obj_kinds[i], f->objs[i], o, sizeof o) : "?",
             tw_an_name(an, f->core, TW_OBJ_TASK, f->tasks[(i + 1) % f->ntasks], b, sizeof b));
    if (g->count > 1)
      fprintf(out, ": %s, worst %s from %s", times(g, tm, sizeof tm), d, t0);
    else
      fprintf(out, " (from %s)", t0);
    break;
  case TW_AN_STARVATION:
    fprintf(out, "starvation: %s ready but not run", task0);
    if (g->count > 1)
      fprintf(out, ": %s, worst", times(g, tm, sizeof tm));
    fprintf(out, " for %s (%s..%s)", d, t0, t1);
    break;
  case TW_AN_BLOCKED_AT_END:
    fprintf(out, "blocked at end: %s on %s since %s", task0, obj0, t0);
    break;
  default:
    fprintf(out, "%s", tw_an_finding_name(f->kind));
    if (g->count > 1)
      fprintf(out, ": %s", times(g, tm, sizeof tm));
  }
  if (ncores > 1) /* the same tasks may be on several targets */
    fprintf(out, " [core %d]", f->core);
  /* the detector's own caveat: events were lost where it looked */
  if (g->count > 1 && g->across_gap)
    fprintf(out, " [events lost in %llu of them]", (unsigned long long)g->across_gap);
  else if (g->count <= 1 && f->across_gap)
    fprintf(out, " [events lost here]");
  fputc('\n', out);
}

struct ctx {
  const struct counts *c;
  int failed;
};

static void print_to_out(void *vctx, struct tw_an *an)
{
  const struct counts *c = ((struct ctx *)vctx)->c;
  unsigned long long lost = c->ring + c->events_lost + c->unexplained;
  fprintf(out, "events    %llu kernel/RTOS events and %llu control records from %llu stream%s",
         c->events, c->control, c->streams, c->streams == 1 ? "" : "s");
  if (c->mixed_freq)
    fprintf(out, " (clocks differ)\n");
  else
    fprintf(out, " (clock %" PRIu32 " Hz)\n", c->freq_hz);
  fprintf(out, "drops     %llu events lost: ring overflow %llu (%llu DROPS records), transport %llu "
         "(%llu packets), unexplained %llu\n",
         lost, c->ring, c->drops_records, c->events_lost, c->pkts_lost, c->unexplained);
  if (c->restarts) /* not loss: the target started its sequence numbers again */
    fprintf(out, "restarts  %llu: the target started again; what it sent before each restart and "
           "did not arrive is not counted\n", c->restarts);
  int ncores = tw_an_ncores(an);
  for (int core = 0; core < ncores && core < SUMMARY_CORES; core++)
    print_load(an, core, ncores);
  if (ncores > SUMMARY_CORES)
    fprintf(out, "CPU load  ... %d more cores (tracewire analyze)\n", ncores - SUMMARY_CORES);
  size_t ng = tw_an_ngroups(an);
  unsigned long long nf = 0, kinds[TW_AN_NKINDS] = {0};
  for (size_t i = 0; i < ng; i++) { /* the groups count every instance */
    const struct tw_an_group *g = tw_an_group_at(an, i);
    nf += g->count;
    if ((unsigned)g->kind < TW_AN_NKINDS)
      kinds[g->kind] += g->count;
  }
  fprintf(out, "findings  %llu", nf);
  if (nf)
    fprintf(out, " in %zu group%s", ng, ng == 1 ? "" : "s");
  fprintf(out, ": priority inversion %llu, deadlock %llu, starvation %llu, blocked at end %llu\n",
         kinds[TW_AN_PRIO_INVERSION], kinds[TW_AN_DEADLOCK], kinds[TW_AN_STARVATION],
         kinds[TW_AN_BLOCKED_AT_END]);
  for (size_t i = 0; i < ng && i < SUMMARY_GROUPS; i++) { /* worst first */
    const struct tw_an_group *g = tw_an_group_at(an, i);
    print_finding(an, &g->worst, g, ncores);
  }
  if (ng > SUMMARY_GROUPS)
    fprintf(out, "            ... %zu more groups (tracewire analyze lists them all)\n",
           ng - SUMMARY_GROUPS);
}

static void print(void *vctx, struct tw_an *an)
{
  char *buf = NULL;
  size_t len = 0;
  out = open_memstream(&buf, &len);
  if (out) {
    print_to_out(vctx, an);
    if (fclose(out) == 0)
      cli_put_text(stdout, buf, len);
    else
      ((struct ctx *)vctx)->failed = 1;
  } else {
    ((struct ctx *)vctx)->failed = 1;
  }
  if (((struct ctx *)vctx)->failed)
    cli_err("summary: out of memory for the summary");
  free(buf);
  out = NULL;
  fflush(stdout);
}

int tw_cli_summary(int argc, char **argv)
{
  static const struct option opts[] = {
    {"starve-ms", required_argument, 0, 's'}, {"quiet", no_argument, 0, 'q'},
    {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  struct cli_an run = {0};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
    switch (c) {
    case 's': {
      unsigned long long ms;
      if (cli_opt_num("summary", "--starve-ms", optarg, 1, 86400000u, &ms) < 0)
        return TW_EXIT_USAGE;
      run.starve_ns = ms * 1000000ull;
      break;
    }
    case 'q': run.quiet = 1; break;
    case 'h': tw_cli_summary_help(stdout); return TW_EXIT_OK;
    default: tw_cli_summary_help(stderr); return TW_EXIT_USAGE;
    }
  }
  if (optind != argc - 1) {
    tw_cli_summary_help(stderr);
    return TW_EXIT_USAGE;
  }
  run.path = argv[optind];
  /* several passes: a stream (stdin, a FIFO) is read from a copy */
  if (tw_input_spool(run.path) != 0)
    return TW_EXIT_ERROR;
  struct counts counts;
  int rc = count(run.path, &counts);
  if (rc != TW_EXIT_ERROR) {
    struct ctx ctx = { &counts };
    run.after = print;
    run.ctx = &ctx;
    rc = cli_an_run(&run);
    if (ctx.failed)
      rc = TW_EXIT_ERROR;
  }
  tw_input_unspool(run.path);
  return cli_stdout_status("summary", rc);
}
