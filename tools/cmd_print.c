/* `tracewire print`: one event per line (format: tracewire/wire/format.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"
#include "tracewire/wire/format.h"
#include "tracewire/wire/merge.h"

void tw_cli_print_help(FILE *f)
{
  fputs("usage: tracewire print [options] TRACE\n"
        "Print the events of TRACE (.twt or a raw packet file; - for stdin), one per line:\n"
        "  [seconds] (+delta) endpoint/instance Event: { field = value ... }, marker = M\n"
        "Streams are merged into one time order. Damage and losses go to stderr.\n\n"
        "options:\n"
        "  --filter event=NAME[,NAME...]  only these event kinds (Name or NAME)\n"
        "  --filter task=N|NAME           only events with a task field naming this task\n"
        "  --filter time=FROM..TO         only events in [FROM, TO] seconds (either may be empty)\n"
        "  --window N                     merge lookahead in events, 1..1048576 (default 4096)\n"
        "  -q, --quiet                    no per-problem lines on stderr\n"
        "  -h, --help                     this text\n"
        "exit status: 0 ok, 1 error, 2 usage, 3 input damaged\n", f);
}

#define MAX_KINDS 32

struct print_ctx {
  struct tw_input t;
  const char *kinds[MAX_KINDS];
  size_t nkinds;
  int task_named;           /* a task name matched a NAME record */
  const char *task;       /* number or name */
  long long t_from, t_to; /* ns, -1 open */
  uint64_t prev_ns;
  size_t used;              /* bytes in out */
  char out[1 << 16];        /* lines are formatted here, written in blocks */
};

#define LINE_MAX_BYTES 4096

static int flush_out(struct print_ctx *p)
{
  size_t n = p->used;
  p->used = 0;
  return fwrite(p->out, 1, n, stdout) == n ? 0 : TW_EIO;
}

static int kind_ok(const struct print_ctx *p, const struct tw_event *ev)
{
  if (!p->nkinds)
    return 1;
  for (size_t i = 0; i < p->nkinds; i++)
    if (!strcasecmp(p->kinds[i], ev->desc->seed_name) || !strcasecmp(p->kinds[i], ev->desc->name))
      return 1;
  return 0;
}

static int task_ok(struct print_ctx *p, const struct tw_event *ev)
{
  if (!p->task)
    return 1;
  unsigned long long n = 0;
  /* a number (decimal or 0x hex, strictly: " 5" is a name, and no task's) */
  int numeric = cli_parse_num(p->task, 0, 0xFFFFFFFFu, &n) == 0;
  for (unsigned i = 0; i < ev->nvalues; i++) {
    if (ev->desc->fields[i].obj != TW_OBJ_TASK)
      continue;
    if (numeric && ev->values[i] == n)
      return 1;
    const char *name = tw_decoder_name(tw_input_src_of(&p->t, ev)->d, ev->endpoint, TW_OBJ_TASK, ev->values[i]);
    if (!numeric && name && !strcmp(name, p->task))
      return p->task_named = 1;
  }
  return 0;
}

static int on_event(void *ctx, const struct tw_event *ev)
{
  struct print_ctx *p = ctx;
  if (p->t_from >= 0 && ev->time_ns < (uint64_t)p->t_from)
    return 0;
  if (p->t_to >= 0 && ev->time_ns > (uint64_t)p->t_to)
    return 0;
  if (!kind_ok(p, ev) || !task_ok(p, ev))
    return 0;
  if (sizeof p->out - p->used < LINE_MAX_BYTES && flush_out(p) < 0)
    return TW_EIO;
  const struct tw_input_src *src = tw_input_src_of(&p->t, ev);
  p->used += tw_event_format(p->out + p->used, LINE_MAX_BYTES, ev, src->d, p->prev_ns,
                             p->t.nsrc > 1 ? src->id : -1);
  p->prev_ns = ev->time_ns;
  return 0;
}

static int add_filter(struct print_ctx *p, char *arg)
{
  if (!strncmp(arg, "event=", 6)) {
    for (char *s = strtok(arg + 6, ","); s; s = strtok(NULL, ",")) {
      if (p->nkinds == MAX_KINDS) {
        cli_err("print: --filter event=: at most %d kinds", MAX_KINDS);
        return -1;
      }
      p->kinds[p->nkinds++] = s;
    }
    return p->nkinds ? 0 : -1;
  }
  if (!strncmp(arg, "task=", 5) && arg[5]) {
    p->task = arg + 5;
    return 0;
  }
  if (!strncmp(arg, "time=", 5)) {
    char *dots = strstr(arg + 5, "..");
    if (!dots)
      return -1;
    *dots = 0;
    p->t_from = arg[5] ? cli_parse_seconds(arg + 5) : -1;
    p->t_to = dots[2] ? cli_parse_seconds(dots + 2) : -1;
    if ((arg[5] && p->t_from < 0) || (dots[2] && p->t_to < 0))
      return -1;
    return 0;
  }
  return -1;
}

static int vocabulary_kind(const char *name)
{
  for (size_t i = 0; i < tw_event_ndescs; i++)
    if (!strcasecmp(name, tw_event_descs[i].seed_name) || !strcasecmp(name, tw_event_descs[i].name))
      return 1;
  return 0;
}

static int custom_kind(const struct tw_input *t, const char *name)
{
  const struct tw_event_desc *d;
  uint16_t ep;
  for (size_t k = 0; k < t->nsrc; k++)
    for (size_t i = 0; (d = tw_decoder_custom_at(t->src[k].d, i, &ep)); i++)
      if (!strcasecmp(name, d->name))
        return 1;
  return 0;
}

/* A name that matched nothing is a usage error listing what exists: event
 * kinds (the vocabulary's, then this trace's custom ones; only known once
 * it is read) and the trace's task names. 0, or TW_EXIT_USAGE. */
static int check_names(const struct print_ctx *p)
{
  int rc = 0;
  for (size_t i = 0; i < p->nkinds; i++) {
    if (vocabulary_kind(p->kinds[i]) || custom_kind(&p->t, p->kinds[i]))
      continue;
    fprintf(stderr, "tracewire: print: --filter event=%s: no such event kind; the kinds are:",
            p->kinds[i]);
    for (size_t k = 0; k < tw_event_ndescs; k++)
      fprintf(stderr, " %s", tw_event_descs[k].seed_name);
    const struct tw_event_desc *d;
    uint16_t ep;
    for (size_t k = 0; k < p->t.nsrc; k++)
      for (size_t j = 0; (d = tw_decoder_custom_at(p->t.src[k].d, j, &ep)); j++)
        fprintf(stderr, " %s (custom)", d->name);
    fputc('\n', stderr);
    rc = TW_EXIT_USAGE;
  }
  unsigned long long number_given;
  if (p->task && cli_parse_num(p->task, 0, 0xFFFFFFFFu, &number_given) < 0 && !p->task_named) {
    uint16_t ep;
    enum tw_obj_kind kind;
    uint32_t number;
    const char *name;
    size_t n = 0;
    fprintf(stderr, "tracewire: print: --filter task=%s: no task of that name in the trace; "
            "its tasks are:", p->task);
    for (size_t k = 0; k < p->t.nsrc; k++)
      for (size_t i = 0; tw_decoder_name_at(p->t.src[k].d, i, &ep, &kind, &number, &name); i++)
        if (kind == TW_OBJ_TASK)
          fprintf(stderr, "%s %s (%u)", n++ ? "," : "", name, number);
    fprintf(stderr, "%s\n", n ? "" : " none named");
    rc = TW_EXIT_USAGE;
  }
  return rc;
}

int tw_cli_print(int argc, char **argv)
{
  static const struct option opts[] = {
    {"filter", required_argument, 0, 'f'}, {"window", required_argument, 0, 'w'},
    {"quiet", no_argument, 0, 'q'}, {0, 0, 0, 0},
  };
  struct print_ctx *p = calloc(1, sizeof *p);
  size_t window = 4096;
  int quiet = 0, c;
  p->t_from = p->t_to = -1;
  optind = 1;
  while ((c = getopt_long(argc, argv, "f:w:q", opts, NULL)) != -1) {
    switch (c) {
    case 'f':
      if (add_filter(p, optarg) < 0) {
        cli_err("print: bad filter '%s' (event=..., task=..., time=FROM..TO)", optarg);
        free(p);
        return TW_EXIT_USAGE;
      }
      break;
    case 'w':
      if (cli_parse_window("print", optarg, &window) < 0) {
        free(p);
        return TW_EXIT_USAGE;
      }
      break;
    case 'q': quiet = 1; break;
    default: tw_cli_print_help(stderr); free(p); return TW_EXIT_USAGE;
    }
  }
  if (optind != argc - 1) {
    tw_cli_print_help(stderr);
    free(p);
    return TW_EXIT_USAGE;
  }
  if (cli_stdout_not_input("print", argv[optind]) < 0) {
    free(p);
    return TW_EXIT_ERROR;
  }
  int rc = tw_input_open(&p->t, argv[optind]);
  if (rc) {
    free(p);
    return rc;
  }
  p->t.quiet = quiet;
  if ((rc = tw_input_window(&p->t, p->t_from, p->t_to)) != 0) {
    tw_input_close(&p->t);
    free(p);
    return rc;
  }
  struct tw_merge *m;
  if ((rc = tw_merge_open(&m, window, on_event, p)) < 0) {
    cli_err("print: merge of %zu events: %s", window, tw_strerror(rc));
    tw_input_close(&p->t);
    free(p);
    return TW_EXIT_ERROR;
  }
  p->t.on_event = tw_merge_push;
  p->t.ev_ctx = m;
  rc = tw_input_run(&p->t);
  if (rc == 0)
    rc = tw_merge_flush(m);
  if (rc == 0)
    rc = flush_out(p);
  tw_merge_close(m);
  if (fflush(stdout) != 0 || rc == TW_EIO) {
    cli_err("print: writing the output failed");
    rc = TW_EXIT_ERROR;
  } else {
    rc = rc ? TW_EXIT_ERROR : cli_trace_status(&p->t);
  }
  if (rc != TW_EXIT_ERROR && check_names(p))
    rc = TW_EXIT_USAGE;
  tw_input_close(&p->t);
  free(p);
  return rc;
}
