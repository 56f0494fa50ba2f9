/* Shared by `tracewire analyze` and `tracewire report`: the analysis
 * plugin (built in) over a trace, in the two passes `run` uses. */
#ifndef TRACEWIRE_TOOLS_CLI_AN_H
#define TRACEWIRE_TOOLS_CLI_AN_H

#include <stdint.h>
#include "tracewire/analysis/analysis.h"

struct cli_an {
  const char *path;
  uint64_t starve_ns;
  int quiet;
  size_t window;
  /* set before the second pass starts (range from the first pass) */
  void (*before)(void *ctx, struct tw_an *an, uint64_t t0, uint64_t t1);
  void *ctx;
  /* after tw_an_finish, before the engine goes */
  void (*after)(void *ctx, struct tw_an *an);
};

/* Returns a TW_EXIT_* status (errors already printed). */
int cli_an_run(const struct cli_an *o);

#endif
