/* `tracewire report`: the analyses and a zoomable timeline as one
 * self-contained HTML file (docs/analyses.md, "Report"). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_an.h"
#include "tracewire/error.h"
#include "tracewire/io/file.h"
#include "tracewire/analysis/report.h"

void tw_cli_report_help(FILE *f)
{
  fputs("usage: tracewire report [options] TRACE -o REPORT.html\n"
        "Write one self-contained HTML file (no network, no external files): timeline with a\n"
        "lane per task, interrupt, mutex and semaphore and the seed-002 markers, CPU load,\n"
        "distributions, detector findings linked to the timeline, and the loss report.\n\n"
        "options:\n"
        "  -o FILE            the report (required; - for standard output)\n"
        "  --starve-ms N      starvation threshold in ms (default 100)\n"
        "  --max-events N     events and intervals embedded individually (default 2000000);\n"
        "                     zoomed-out bins always cover the whole trace\n"
        "  -q, --quiet        no per-problem lines on stderr\n"
        "  -h, --help         this text\n"
        "exit status: 0 ok, 1 error, 2 usage, 3 input damaged (report still written)\n",
        f);
}

struct job {
  const char *trace, *out;
  uint64_t max_detail;
  struct tw_report *rep;
  int rc;
};

static void before(void *ctx, struct tw_an *an, uint64_t t0, uint64_t t1)
{
  struct job *j = ctx;
  struct tw_report_cfg cfg = {t0, t1, j->max_detail, j->trace};
  if (tw_report_open(&j->rep, &cfg) < 0) {
    cli_err("report: cannot create temporary files");
    j->rc = TW_EXIT_ERROR;
    return;
  }
  tw_an_observe(an, tw_report_item, j->rep);
}

static void after(void *ctx, struct tw_an *an)
{
  struct job *j = ctx;
  if (!j->rep)
    return;
  char err[400];
  FILE *f = tw_file_fopen_w(j->out, err, sizeof err); /* never over the trace; - is stdout */
  if (!f) {
    cli_err("report: %s", err);
    j->rc = TW_EXIT_ERROR;
    return;
  }
  int rc = tw_report_write(j->rep, an, f);
  if ((f == stdout ? fflush(f) : fclose(f)) != 0 && !rc)
    rc = TW_EIO;
  if (rc < 0) {
    cli_err("report: %s: %s", j->out, tw_strerror(rc));
    j->rc = TW_EXIT_ERROR;
  }
}

int tw_cli_report(int argc, char **argv)
{
  static const struct option opts[] = {
    {"starve-ms", required_argument, 0, 's'}, {"max-events", required_argument, 0, 'm'},
    {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  struct job j = {0};
  struct cli_an run = {0};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'o': j.out = optarg; break;
    case 's': {
      unsigned long long ms;
      if (cli_opt_num("report", "--starve-ms", optarg, 1, 86400000u, &ms) < 0)
        return TW_EXIT_USAGE;
      run.starve_ns = ms * 1000000ull;
      break;
    }
    case 'm': {
      unsigned long long n;
      if (cli_opt_num("report", "--max-events", optarg, 1, 1000000000u, &n) < 0)
        return TW_EXIT_USAGE;
      j.max_detail = n;
      break;
    }
    case 'q': run.quiet = 1; break;
    case 'h': tw_cli_report_help(stdout); return TW_EXIT_OK;
    default: tw_cli_report_help(stderr); return TW_EXIT_USAGE;
    }
  }
  if (optind != argc - 1 || !j.out) {
    tw_cli_report_help(stderr);
    return TW_EXIT_USAGE;
  }
  j.trace = run.path = argv[optind];
  run.before = before;
  run.after = after;
  run.ctx = &j;
  int rc = cli_an_run(&run);
  tw_report_close(j.rep);
  if (j.rc)
    return j.rc;
  if ((rc == TW_EXIT_OK || rc == TW_EXIT_DAMAGED) && strcmp(j.out, "-"))
    fprintf(stderr, "tracewire: wrote %s (open it in a browser)\n", j.out);
  return rc;
}
