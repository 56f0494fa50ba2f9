/* tw-scenario: a scripted RTOS trace with known answers, as raw UIA event
 * packets (tracewire/analysis/scenario.h). Example:
 *   tw-scenario --cycles 50 --inversion 10 --drops 30 --deadlock -o demo.uia
 *   tracewire analyze demo.uia */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "tracewire/error.h"
#include "tracewire/analysis/scenario.h"

static void usage(FILE *f)
{
  fputs("usage: tw-scenario [--cycles N] [--inversion CYCLE] [--drops CYCLE] [--deadlock] -o FILE\n",
        f);
}

int main(int argc, char **argv)
{
  static const struct option opts[] = {
    {"cycles", required_argument, 0, 'c'}, {"inversion", required_argument, 0, 'i'},
    {"drops", required_argument, 0, 'd'}, {"deadlock", no_argument, 0, 'D'},
    {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  struct tw_scn_cfg cfg = {20, -1, 0, -1};
  const char *out = NULL;
  int c;
  while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    switch (c) {
    case 'c': cfg.cycles = strtoull(optarg, NULL, 0); break;
    case 'i': cfg.inversion_at = strtoll(optarg, NULL, 0); break;
    case 'd': cfg.drops_at = strtoll(optarg, NULL, 0); break;
    case 'D': cfg.deadlock = 1; break;
    case 'o': out = optarg; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (!out || optind != argc) {
    usage(stderr);
    return 2;
  }
  FILE *f = fopen(out, "wb");
  if (!f) {
    perror(out);
    return 1;
  }
  int rc = tw_scn_write(&cfg, f);
  if (fclose(f) != 0 && !rc)
    rc = TW_EIO;
  if (rc) {
    fprintf(stderr, "tw-scenario: %s: %s\n", out, tw_strerror(rc));
    return 1;
  }
  return 0;
}
