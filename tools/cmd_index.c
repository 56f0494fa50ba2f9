/*
 * `tracewire index`: give a .twt trace a time index (docs/trace-file.md,
 * "Time index"), for traces recorded before `record` wrote one or by
 * another writer. The work is the library's (tw_twt_reindex(): copy
 * through the indexing writer, read the copy back and verify it, replace
 * in place only then and only an undamaged file); this parses the
 * command line and says what happened.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tracewire/twt/twt_index.h"
#include "tracewire/error.h"

void tw_cli_index_help(FILE *f)
{
  fputs("usage: tracewire index [options] TRACE.twt\n"
        "Add a time index to TRACE (rewritten in place, or to -o OUT): `print --filter\n"
        "time=FROM..TO` then reads only the part of the file around the window.\n"
        "`record` writes one already. The new file is read back and checked before it\n"
        "replaces TRACE; a TRACE with damage is not replaced (use -o OUT for an indexed\n"
        "copy without the damaged parts).\n\n"
        "options:\n"
        "  -o OUT              write the indexed trace to OUT (- for standard output),\n"
        "                      leave TRACE as it is\n"
        "  --every N[K|M]      an index point every N bytes of data (default 1M)\n"
        "  -q, --quiet         no progress line\n"
        "  -h, --help          this text\n"
        "exit status: 0 ok, 1 error, 2 usage, 3 input damaged (the readable part was kept)\n", f);
}

int tw_cli_index(int argc, char **argv)
{
  static const struct option opts[] = {
    {"every", required_argument, 0, 'e'}, {"quiet", no_argument, 0, 'q'},
    {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
  };
  const char *out = NULL;
  struct tw_twt_reindex rw = {0};
  int c, quiet = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:e:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'e':
      if (!(rw.every = cli_parse_size(optarg))) {
        cli_err("index: --every '%s': want a number of bytes from 1, with K, M or G", optarg);
        return TW_EXIT_USAGE;
      }
      break;
    case 'q': quiet = 1; break;
    case 'h': tw_cli_index_help(stdout); return TW_EXIT_OK;
    default: tw_cli_index_help(stderr); return TW_EXIT_USAGE;
    }
  }
  if (optind != argc - 1) {
    tw_cli_index_help(stderr);
    return TW_EXIT_USAGE;
  }
  const char *in = argv[optind];
  char err[1024];
  struct cli_progress prog;
  cli_progress_init(&prog, "index", quiet);
  rw.on_progress = cli_progress;
  rw.progress_ctx = &prog;
  int rc = tw_twt_reindex(in, out, &rw, err, sizeof err);
  cli_progress_end(&prog);
  if (rc < 0) {
    cli_err("index: %s", err);
    return TW_EXIT_ERROR;
  }
  if (rw.damaged)
    cli_err("index: %s: %llu damaged region%s left out of %s (first: %s)", in, rw.damaged,
            rw.damaged == 1 ? "" : "s", out, rw.damage);
  if (!rw.clean)
    cli_err("index: %s was not closed cleanly (no END): copied, but readers will not use the index",
            in);
  return rw.damaged ? TW_EXIT_DAMAGED : TW_EXIT_OK;
}
