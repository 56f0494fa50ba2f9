/* `tracewire stats`: counts per kind and task, drops by cause, duration, rates. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

void tw_cli_stats_help(FILE *f)
{
  fputs("usage: tracewire stats [-q] TRACE\n"
        "Per stream: packets, events, duration, rate, and losses by cause:\n"
        "  ring overflow (the target's DROPS records), lost in transport (packet\n"
        "  sequence gaps and the events they carried), unexplained sequence gaps.\n"
        "Then events per kind, events per task, bytes skipped, unknown event ids.\n"
        "exit status: 0 ok, 1 error, 2 usage, 3 input damaged\n", f);
}

#define MAX_KINDS 512
#define MAX_TASKS 1024

struct kind_count { const struct tw_event_desc *desc; unsigned long long n; };
struct task_count { uint16_t src, ep; uint32_t task; unsigned long long n; };

/* Per event: a kind and maybe a task to count. Both are found through
 * open-addressing hashes (slot -> index + 1), so the cost does not grow
 * with the number of kinds and tasks (a linear search made stats on a
 * big capture twice as slow as info). */
#define KIND_SLOTS (2 * MAX_KINDS)
#define TASK_SLOTS (2 * MAX_TASKS)

struct stats_ctx {
  struct tw_input *t;
  struct kind_count kinds[MAX_KINDS];
  size_t nkinds;
  struct task_count tasks[MAX_TASKS];
  size_t ntasks;
  unsigned long long events, kinds_over, tasks_over;
  uint16_t kind_slot[KIND_SLOTS];
  uint16_t task_slot[TASK_SLOTS];
};

static size_t hash64(uint64_t k, size_t slots)
{
  return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & (slots - 1);
}

static void count_kind(struct stats_ctx *s, const struct tw_event_desc *desc)
{
  size_t h = hash64((uint64_t)(uintptr_t)desc, KIND_SLOTS);
  while (s->kind_slot[h] && s->kinds[s->kind_slot[h] - 1].desc != desc)
    h = (h + 1) & (KIND_SLOTS - 1);
  if (!s->kind_slot[h]) {
    if (s->nkinds == MAX_KINDS) {
      s->kinds_over++;
      return;
    }
    s->kinds[s->nkinds].desc = desc;
    s->kind_slot[h] = (uint16_t)++s->nkinds;
  }
  s->kinds[s->kind_slot[h] - 1].n++;
}

static void count_task(struct stats_ctx *s, uint16_t src, uint16_t ep, uint32_t task)
{
  uint64_t key = (uint64_t)src << 48 | (uint64_t)ep << 32 | task;
  size_t h = hash64(key, TASK_SLOTS);
  for (;;) {
    uint16_t k = s->task_slot[h];
    if (!k)
      break;
    const struct task_count *c = &s->tasks[k - 1];
    if (c->task == task && c->ep == ep && c->src == src)
      break;
    h = (h + 1) & (TASK_SLOTS - 1);
  }
  if (!s->task_slot[h]) {
    if (s->ntasks == MAX_TASKS) {
      s->tasks_over++;
      return;
    }
    s->tasks[s->ntasks] = (struct task_count){ src, ep, task, 0 };
    s->task_slot[h] = (uint16_t)++s->ntasks;
  }
  s->tasks[s->task_slot[h] - 1].n++;
}

static int on_event(void *ctx, const struct tw_event *ev)
{
  struct stats_ctx *s = ctx;
  s->events++;
  count_kind(s, ev->desc);
  for (unsigned f = 0; f < ev->nvalues; f++) {
    if (ev->desc->fields[f].obj != TW_OBJ_TASK)
      continue;
    if ((int)f == ev->desc->marker_field && tw_event_enum_name(ev->desc, ev->values[f]))
      break; /* EnterInt / LeaveInt: not a task */
    count_task(s, (uint16_t)(ev->stream / TW_INPUT_STREAMS), ev->endpoint, ev->values[f]);
    break;
  }
  return 0;
}

static int by_count(const void *a, const void *b)
{
  const struct kind_count *x = a, *y = b;
  return x->n != y->n ? (x->n < y->n ? 1 : -1) : strcmp(x->desc->seed_name, y->desc->seed_name);
}

static int by_task(const void *a, const void *b)
{
  const struct task_count *x = a, *y = b;
  if (x->src != y->src)
    return x->src < y->src ? -1 : 1;
  return x->ep != y->ep ? (x->ep < y->ep ? -1 : 1) : x->task < y->task ? -1 : x->task > y->task;
}

int tw_cli_stats(int argc, char **argv)
{
  int quiet = 0, c;
  optind = 1;
  while ((c = getopt(argc, argv, "q")) != -1) {
    if (c == 'q')
      quiet = 1;
    else {
      tw_cli_stats_help(stderr);
      return TW_EXIT_USAGE;
    }
  }
  if (optind != argc - 1) {
    tw_cli_stats_help(stderr);
    return TW_EXIT_USAGE;
  }
  struct tw_input t;
  if (cli_stdout_not_input("stats", argv[optind]) < 0)
    return TW_EXIT_ERROR;
  int rc = tw_input_open(&t, argv[optind]);
  if (rc)
    return rc;
  t.quiet = quiet;
  struct stats_ctx *s = calloc(1, sizeof *s);
  s->t = &t;
  t.on_event = on_event;
  t.ev_ctx = s;
  struct cli_progress prog;
  cli_progress_input(&prog, &t, "stats", quiet);
  rc = tw_input_run(&t);
  cli_progress_end(&prog);
  if (rc) {
    tw_input_close(&t);
    free(s);
    return TW_EXIT_ERROR;
  }
  unsigned long long bytes = 0, packets = 0, skipped = 0, skips = 0;
  for (size_t k = 0; k < t.nsrc; k++) {
    const struct tw_reader_stats *rs = tw_reader_stats(t.src[k].r);
    bytes += rs->bytes;
    packets += rs->packets;
    skipped += rs->skipped;
    skips += rs->skips;
  }
  printf("trace: %s\n", t.path);
  printf("bytes: %llu, packets: %llu, events: %llu\n", bytes, packets, s->events);
  printf("skipped: %llu bytes in %llu regions%s\n", skipped, skips,
         t.truncated ? " (trace file truncated)" : "");
  unsigned long long ring = 0, lost_p = 0, lost_e = 0, unexpl = 0, restarts = 0;
  for (size_t k = 0; k < t.nsrc; k++)
  for (size_t i = 0; i < tw_decoder_nstreams(t.src[k].d); i++) {
    struct tw_decoder *d = t.src[k].d;
    const struct tw_stream_stats *st = tw_decoder_stream(d, i);
    uint64_t span = st->have_time ? tw_decoder_ticks_to_ns(d, (int)i, st->last_ticks) -
                                        tw_decoder_ticks_to_ns(d, (int)i, st->first_ticks) : 0;
    if (t.nsrc > 1)
      printf("source %d (%s) ", t.src[k].id, t.src[k].uri);
    printf("stream %04x/%u: packets %llu, events %llu, clock %u Hz, duration %llu.%09llu s",
           st->endpoint, st->instance, st->packets, st->events, st->freq_hz,
           (unsigned long long)(span / 1000000000u), (unsigned long long)(span % 1000000000u));
    if (span)
      printf(", %.1f events/s", (double)st->events * 1e9 / (double)span);
    printf("\n  drops: ring overflow %llu events; lost in transport %llu packets (%llu events); "
           "unexplained %llu events\n", st->ring_drops, st->pkts_lost, st->events_lost, st->unexplained);
    if (st->restarts)
      printf("  restarts: %llu (the target started its sequence numbers again; not loss)\n",
             st->restarts);
    if (st->checked || st->check_failed)
      printf("  payload checks: %llu packets verified, %llu dropped (damaged: their events are "
             "in the transport loss)\n", st->checked, st->check_failed);
    if (st->backwards || st->snap_errors || st->bad_records || st->unknown)
      printf("  problems: time backwards %llu, snapshot errors %llu, bad records %llu, unknown ids %llu\n",
             st->backwards, st->snap_errors, st->bad_records, st->unknown);
    ring += st->ring_drops;
    lost_p += st->pkts_lost;
    lost_e += st->events_lost;
    unexpl += st->unexplained;
    restarts += st->restarts;
  }
  printf("drops total: ring overflow %llu; transport %llu packets (%llu events); unexplained %llu\n",
         ring, lost_p, lost_e, unexpl);
  if (restarts)
    printf("restarts total: %llu\n", restarts);
  qsort(s->kinds, s->nkinds, sizeof s->kinds[0], by_count);
  printf("events by kind:\n");
  for (size_t i = 0; i < s->nkinds; i++) {
    printf("  ");
    size_t w = cli_put_name(stdout, s->kinds[i].desc->seed_name); /* custom: the target's */
    printf("%*s %llu\n", w < 22 ? (int)(22 - w) : 0, "", s->kinds[i].n);
  }
  qsort(s->tasks, s->ntasks, sizeof s->tasks[0], by_task);
  if (s->ntasks)
    printf("events by task:\n");
  for (size_t i = 0; i < s->ntasks; i++) {
    const char *name = tw_decoder_name(t.src[s->tasks[i].src].d, s->tasks[i].ep, TW_OBJ_TASK,
                                       s->tasks[i].task);
    if (t.nsrc > 1)
      printf("  %d:", t.src[s->tasks[i].src].id);
    else
      printf("  ");
    printf("%04x task %u", s->tasks[i].ep, s->tasks[i].task);
    if (name) {
      printf(" \"");
      cli_put_name(stdout, name);
      printf("\"");
    }
    printf(" %llu\n", s->tasks[i].n);
  }
  if (s->kinds_over || s->tasks_over)
    printf("not counted above: %llu events of more than %d kinds, %llu of more than %d tasks\n",
           s->kinds_over, MAX_KINDS, s->tasks_over, MAX_TASKS);
  uint16_t ep, mod, id;
  unsigned long long n;
  for (size_t k = 0; k < t.nsrc; k++)
    for (size_t i = 0; tw_decoder_unknown_at(t.src[k].d, i, &ep, &mod, &id, &n); i++)
      printf("unknown event id %u (module %u) from %04x: %llu records skipped\n", id, mod, ep, n);
  rc = cli_stdout_status("stats", cli_trace_status(&t));
  tw_input_close(&t);
  free(s);
  return rc;
}
