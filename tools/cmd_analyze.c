/* `tracewire analyze`: task states, CPU load, interrupts, latencies, object
 * statistics, detectors and the loss report (docs/analyses.md). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_an.h"

void tw_cli_analyze_help(FILE *f)
{
  fputs("usage: tracewire analyze [options] TRACE\n"
        "Analyse TRACE (.twt or raw packets): CPU load per task and interrupt, context\n"
        "switches, interrupt durations and nesting, interrupt-to-task latency, mutex hold and\n"
        "wait times, semaphore/event waits, and the detectors: priority inversion, deadlock,\n"
        "starvation, tasks blocked at the end; events lost and where (docs/analyses.md).\n\n"
        "options:\n"
        "  --json            all results as one JSON object\n"
        "  --starve-ms N     starvation threshold in ms (default 100)\n"
        "  -q, --quiet       no per-problem lines on stderr\n"
        "  -h, --help        this text\n"
        "exit status: 0 ok, 1 error, 2 usage, 3 input damaged (results still written)\n",
        f);
}

struct opts {
  int json, failed;
};

static void print(void *ctx, struct tw_an *an)
{
  struct opts *o = ctx;
  int rc;
  if (o->json) {
    rc = tw_an_write_json(an, stdout);
  } else { /* made safe for a terminal: it quotes the target's names */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    rc = mem ? tw_an_write_text(an, mem) : TW_ENOMEM;
    if (mem && fclose(mem) != 0 && rc == 0)
      rc = TW_ENOMEM;
    if (rc == 0)
      cli_put_text(stdout, buf, len);
    free(buf);
  }
  if (rc == TW_ENOMEM) {
    cli_err("analyze: out of memory for the results");
    o->failed = 1;
  } else if (rc == TW_EIO) {
    cli_err("analyze: writing the results failed");
    o->failed = 1;
  }
}

int tw_cli_analyze(int argc, char **argv)
{
  static const struct option opts[] = {
    {"json", no_argument, 0, 'j'}, {"starve-ms", required_argument, 0, 's'},
    {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  struct opts o = {0};
  struct cli_an run = {0};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
    switch (c) {
    case 'j': o.json = 1; break;
    case 's': {
      unsigned long long ms;
      if (cli_opt_num("analyze", "--starve-ms", optarg, 1, 86400000u, &ms) < 0)
        return TW_EXIT_USAGE;
      run.starve_ns = ms * 1000000ull;
      break;
    }
    case 'q': run.quiet = 1; break;
    case 'h': tw_cli_analyze_help(stdout); return TW_EXIT_OK;
    default: tw_cli_analyze_help(stderr); return TW_EXIT_USAGE;
    }
  }
  if (optind != argc - 1) {
    tw_cli_analyze_help(stderr);
    return TW_EXIT_USAGE;
  }
  run.path = argv[optind];
  run.after = print;
  run.ctx = &o;
  int rc = cli_an_run(&run);
  return o.failed ? TW_EXIT_ERROR : cli_stdout_status("analyze", rc);
}
