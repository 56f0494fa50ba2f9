/*
 * `tracewire index`: give a .twt trace a time index (docs/trace-file.md,
 * "Time index"), for traces recorded before `record` wrote one or by
 * another writer. The trace is rewritten chunk by chunk through an indexing
 * writer (the same code `record` uses), so the index is exactly the one
 * record would have written; the chunks, their arrival times and the
 * file's creation and end times are kept, an index already there is
 * replaced. A file that was not closed cleanly (no END) stays so: its
 * chunks are copied, and its damaged or truncated tail is left out with a
 * message, as every reader does. In place: a temporary file next to TRACE,
 * renamed over it only when complete.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/twt/twt_index.h"
#include "tracewire/io/sys.h"
#include "tracewire/error.h"

void tw_cli_index_help(FILE *f)
{
  fputs("usage: tracewire index [options] TRACE.twt\n"
        "Add a time index to TRACE (rewritten in place, or to -o OUT): `print --filter\n"
        "time=FROM..TO` then reads only the part of the file around the window.\n"
        "`record` writes one already.\n\n"
        "options:\n"
        "  -o OUT              write the indexed trace to OUT, leave TRACE as it is\n"
        "  --every N[K|M]      an index point every N bytes of data (default 1M)\n"
        "  -h, --help          this text\n"
        "exit status: 0 ok, 1 error, 2 usage, 3 input damaged (the readable part was kept)\n", f);
}

/* Copy every chunk but an old index and END; 0, or 1 for a damaged tail. */
static int copy_chunks(struct tw_twt_reader *r, struct tw_twt_writer *w, int *clean, uint64_t *end_ns)
{
  struct tw_twt_chunk c;
  int rc;
  while ((rc = tw_twt_next(r, &c)) == 1) {
    if (c.type == TW_TWT_INDEX || c.type == TW_TWT_TOC)
      continue;
    if (c.type == TW_TWT_END) {
      *clean = 1;
      *end_ns = c.len >= 24 ? tw_load_le32(c.data + 16) | (uint64_t)tw_load_le32(c.data + 20) << 32 : 0;
      continue;
    }
    if (tw_twt_write(w, c.type, c.source, c.arrival_ns, c.data, c.len) < 0)
      return TW_EIO;
  }
  if (rc < 0) {
    cli_err("%s", tw_twt_reader_error(r));
    return 1;
  }
  return 0;
}

int tw_cli_index(int argc, char **argv)
{
  static const struct option opts[] = {
    {"every", required_argument, 0, 'e'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
  };
  const char *out = NULL;
  unsigned long long every = 0;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:e:h", opts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'e':
      if (!(every = cli_parse_size(optarg))) {
        cli_err("index: bad --every '%s' (bytes, K or M)", optarg);
        return TW_EXIT_USAGE;
      }
      break;
    case 'h': tw_cli_index_help(stdout); return TW_EXIT_OK;
    default: tw_cli_index_help(stderr); return TW_EXIT_USAGE;
    }
  }
  if (optind != argc - 1) {
    tw_cli_index_help(stderr);
    return TW_EXIT_USAGE;
  }
  const char *in = argv[optind];
  char tmp[4096], err[512];
  if (!out) {
    snprintf(tmp, sizeof tmp, "%s.index-tmp", in);
    out = tmp;
  }
  struct tw_twt_reader *r;
  struct tw_twt_writer *w;
  if (tw_twt_open(in, &r, err, sizeof err) < 0) {
    cli_err("index: %s", err);
    return TW_EXIT_ERROR;
  }
  if (tw_twt_create(out, &w, err, sizeof err) < 0) {
    cli_err("index: %s", err);
    tw_twt_close_reader(r);
    return TW_EXIT_ERROR;
  }
  int clean = 0;
  uint64_t end_ns = 0;
  int rc = tw_twt_writer_index(w, every);
  tw_twt_writer_times(w, tw_twt_created_ns(r), 0);
  if (rc == 0)
    rc = copy_chunks(r, w, &clean, &end_ns);
  tw_twt_close_reader(r);
  if (rc >= 0 && clean)
    tw_twt_writer_times(w, 0, end_ns);
  int wrc = tw_twt_close(w, rc >= 0 && clean);
  if (rc < 0 || wrc < 0) {
    cli_err("index: %s: %s", out, wrc < 0 ? "writing failed" : tw_strerror(rc));
    unlink(out);
    return TW_EXIT_ERROR;
  }
  if (out == tmp && rename(tmp, in) != 0) {
    cli_err("index: cannot replace %s with %s", in, tmp);
    unlink(tmp);
    return TW_EXIT_ERROR;
  }
  if (!clean)
    cli_err("index: %s was not closed cleanly (no END): copied, but readers will not use the index",
            in);
  return rc == 1 ? TW_EXIT_DAMAGED : TW_EXIT_OK;
}
