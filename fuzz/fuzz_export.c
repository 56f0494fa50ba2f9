/*
 * libFuzzer target: decoded (and damaged) traces through every exporter
 * (CTF, Perfetto, Chrome JSON, CSV), exactly as `tracewire export` runs
 * them (tools/ in-process): the first pass, the exporter as an MTI plugin
 * over the trace model, the merge (CTF: per stream), the timeline that
 * Perfetto and JSON share, the CTF metadata. The input is the trace file
 * (.twt or raw packets) in a memfd; the format, the merge window and the
 * CTF packet size are picked from the input's size, so every input runs
 * one exporter and the corpus spreads over all four.
 *
 * Checked beyond ASan/UBSan: the command ends with an exit status for a
 * readable file (0, 1, 3), and a JSON file that was written is whole (its
 * array closed).
 * Seeds: fuzz/corpus/export (fuzz/seeds.sh).
 */
#include <sys/stat.h>
#include "fuzz_cli_common.h"
#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[128];

static void make_dir(void)
{
  snprintf(dir, sizeof dir, "/dev/shm/tw-fuzz-export-%d", (int)getpid());
  if (mkdir(dir, 0700) != 0 && access(dir, W_OK) != 0) {
    snprintf(dir, sizeof dir, "/tmp/tw-fuzz-export-%d", (int)getpid());
    if (mkdir(dir, 0700) != 0 && access(dir, W_OK) != 0)
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct memfile in, out;
  static const char *const formats[] = {"ctf", "perfetto", "json", "csv"};
  static const char *const windows[] = {"1", "2", "3", "17", "4096", "1048576"};
  static const char *const pkts[] = {"8192", "9000", "65536", "1048576"};
  if (!in.path[0]) {
    memfile_init(&in, "fuzz_export_in");
    memfile_init(&out, "fuzz_export_out");
    quiet_stdout();
    make_dir();
  }
  memfile_set(&in, data, size);
  memfile_set(&out, NULL, 0);
  const char *fmt = formats[size % 4];
  int to_dir = !strcmp(fmt, "ctf") || !strcmp(fmt, "csv");
  char outdir[192];
  snprintf(outdir, sizeof outdir, "%s/%s", dir, fmt);
  char *argv[] = {"export", in.path, "-f", (char *)fmt, "-o", to_dir ? outdir : out.path, "-q",
                  "--window", (char *)windows[size / 4 % 6], "--packet-bytes",
                  (char *)pkts[size / 24 % 4], NULL};
  int argc = sizeof argv / sizeof argv[0] - 1;
  if (strcmp(fmt, "ctf"))
    argc -= 2; /* packet size: CTF only */
  int rc = tw_cli_export(argc, argv);
  want_status(rc, fmt);
  if (rc != 1 && !to_dir) {
    size_t n;
    char *b = memfile_get(&out, &n);
    /* a trace with no events is an empty Trace message for Perfetto (0
     * bytes: fuzz/regress/export/perfetto-no-events); JSON always has its
     * object and array */
    if (!strcmp(fmt, "json") && (!n || !strchr(b, ']'))) {
      fprintf(stderr, "fuzz: export %s exit %d, but the file is %zu bytes\n", fmt, rc, n);
      abort();
    }
    free(b);
  }
  return 0;
}
