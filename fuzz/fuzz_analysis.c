/*
 * libFuzzer target: decoded (and damaged) traces through the analyses and
 * the HTML report, exactly as `tracewire analyze [--json]`, `summary` and
 * `report` run them (tools/ in-process): the two passes, the trace model,
 * the analysis engine (task states, CPU load, interrupts, latencies, object
 * statistics, the detectors, the loss report), its text and JSON results,
 * and the report (timeline, bins, histograms, findings, the page). The
 * input is the trace file (a .twt or raw packets: the CLI tells them by
 * content), in a memfd.
 *
 * Checked beyond ASan/UBSan: every command ends (libFuzzer's -timeout: a
 * hang is a finding) with an exit status for a readable file (0, 1, 3:
 * fuzz_cli_common.h), analyze and summary agree on it, and a report that
 * was written is a whole page.
 * Seeds: fuzz/corpus/analysis (fuzz/seeds.sh: short recordings of every
 * scenario of the workload model, and bit-flipped copies).
 */
#include "fuzz_cli_common.h"
#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int call(int (*cmd)(int, char **), char **argv)
{
  int argc = 0;
  while (argv[argc])
    argc++;
  return cmd(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct memfile in, out;
  if (!in.path[0]) {
    memfile_init(&in, "fuzz_analysis_in");
    memfile_init(&out, "fuzz_analysis_report");
    quiet_stdout();
  }
  memfile_set(&in, data, size);
  memfile_set(&out, NULL, 0);
  char starve[16];
  snprintf(starve, sizeof starve, "%u", 1 + (unsigned)(size % 150)); /* ms */

  char *analyze[] = {"analyze", "-q", "--starve-ms", starve, in.path, NULL};
  char *json[] = {"analyze", "-q", "--json", in.path, NULL};
  char *summary[] = {"summary", "-q", in.path, NULL};
  char *report[] = {"report", "-q", "--max-events", size & 1 ? "50" : "2000000", in.path, "-o",
                    out.path, NULL};
  int a = call(tw_cli_analyze, analyze);
  want_status(a, "analyze");
  want_status(call(tw_cli_analyze, json), "analyze --json");
  int s = call(tw_cli_summary, summary);
  want_status(s, "summary");
  if (a != s) {
    fprintf(stderr, "fuzz: analyze exit %d, summary exit %d\n", a, s);
    abort();
  }
  int r = call(tw_cli_report, report);
  want_status(r, "report");
  if (r != 1) {
    size_t n;
    char *page = memfile_get(&out, &n);
    if (n < 8 || !strstr(page + (n > 64 ? n - 64 : 0), "</html>")) {
      fprintf(stderr, "fuzz: report exit %d but the page is not whole (%zu bytes)\n", r, n);
      abort();
    }
    free(page);
  }
  return 0;
}
