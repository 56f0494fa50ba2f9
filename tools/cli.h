/* Shared by the `tracewire` subcommands: the command table, opening a trace
 * (a .twt or a raw packet file) with reader + decoder, diagnostics on
 * stderr naming the file and offset. */
#ifndef TRACEWIRE_TOOLS_CLI_H
#define TRACEWIRE_TOOLS_CLI_H

#include <stdio.h>
#include "tracewire/cmd.h"
#include "tracewire/host/decoder.h"
#include "tracewire/host/reader.h"
#include "tracewire/host/conn.h"

/* Exit codes (docs/cli.md). */
#define TW_EXIT_OK 0
#define TW_EXIT_ERROR 1    /* could not do the job: I/O, unreadable input */
#define TW_EXIT_USAGE 2    /* bad command line */
#define TW_EXIT_DAMAGED 3  /* done, but the input had damage (reported on stderr) */

#define TW_COMMAND(name, summary)                \
  int tw_cli_##name(int argc, char **argv);      \
  void tw_cli_##name##_help(FILE *f);
#include "commands.def"
#undef TW_COMMAND

struct cli_trace {
  const char *path;
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  int is_twt;
  int quiet;                   /* suppress per-diagnostic lines */
  unsigned long long damage;   /* skips, bad records, snapshot errors, truncation */
  unsigned long long diags;
  uint32_t info[TW_INFO_WORDS];
  int have_info, have_end, truncated;
  unsigned long long nsources;
  char source_uri[256];
};

int cli_trace_open(struct cli_trace *t, const char *path);
/* Decode to the end; events to fn. Returns 0, or an error already printed. */
int cli_trace_run(struct cli_trace *t);
void cli_trace_close(struct cli_trace *t);
void cli_diag(void *ctx, const struct tw_diag *d);
/* Exit status for a finished trace run. */
int cli_trace_status(const struct cli_trace *t);

void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "1.5" -> ns; -1 on a bad number. */
long long cli_parse_seconds(const char *s);

#endif
