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

/* A trace recorded from several connections (record --from A --from B)
 * holds one byte stream per source id; each is framed and decoded on its
 * own (their endpoints may even have the same address), and the events
 * are merged. Events a command sees carry stream = source * CLI_STREAMS +
 * the decoder's stream index. */
#define CLI_MAX_SOURCES 8
#define CLI_STREAMS 64

struct cli_trace;

struct cli_src {
  struct cli_trace *t;
  int id;                      /* .twt source id; -1: every DATA chunk (raw file) */
  struct tw_conn *conn;
  struct tw_reader *r;
  struct tw_decoder *d;
  int done;
  uint64_t last_ns;            /* time of its last event: the scheduler's key */
  uint32_t info[TW_INFO_WORDS];
  int have_info;
  char uri[256];
};

struct cli_trace {
  const char *path;
  struct cli_src src[CLI_MAX_SOURCES];
  size_t nsrc;
  struct tw_decoder *d;        /* src[0].d: the decoder of a single-source trace */
  int is_twt;
  int quiet;                   /* suppress per-diagnostic lines */
  unsigned long long damage;   /* skips, bad records, snapshot errors, truncation */
  unsigned long long diags;
  int have_end, truncated;
  int indexed;                 /* cli_trace_window() used the time index */
  unsigned long long index_bytes;
  tw_event_fn on_event;        /* the command's consumer, set before run */
  void *ev_ctx;
};

int cli_trace_open(struct cli_trace *t, const char *path);
/* Decode to the end, events to t->on_event (several sources: the one
 * behind in time goes next). Returns 0, the consumer's value, or an
 * error already printed. */
int cli_trace_run(struct cli_trace *t);
struct tw_mti_system;
/* Run the trace into a trace model: start sys, decode everything, events
 * to feed(ctx, ev) in time order through a merge of `window` events (or
 * straight, each stream in its own order, when merged is 0), flush, stop.
 * Returns 0, feed's value, or a negative TW_E* (TW_ENOMEM, TW_ERANGE: no merge). */
int cli_trace_feed(struct cli_trace *t, struct tw_mti_system *sys, size_t window, int merged,
                   tw_event_fn feed, void *ctx);
/* Only events in [from, to] ns are wanted (-1: open end), so a .twt with
 * a time index (docs/trace-file.md) may be read from a point before from
 * up to a point after to instead of whole: the events in the window come
 * out exactly as a full read gives them. An index that does not hold up
 * is said in one line and the file read whole. Call after open, before
 * run. 0, or an exit status after an error already printed. */
int cli_trace_window(struct cli_trace *t, long long from, long long to);
/* File bytes read so far (the index included). */
unsigned long long cli_trace_bytes_read(const struct cli_trace *t);
/* The source (and so the decoder: names, streams) an event came from. */
static inline const struct cli_src *cli_src_of(const struct cli_trace *t, const struct tw_event *ev)
{
  return &t->src[ev->stream / CLI_STREAMS];
}
void cli_trace_close(struct cli_trace *t);
void cli_diag(void *ctx, const struct tw_diag *d);
/* Exit status for a finished trace run. */
int cli_trace_status(const struct cli_trace *t);

void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "1.5" -> ns; -1 on a bad number. */
long long cli_parse_seconds(const char *s);
/* "N", "NK", "NM", "NG" (decimal, powers of 1024) -> bytes; 0 for anything
 * else, including 0 itself and values that overflow. */
unsigned long long cli_parse_size(const char *s);
/* Decimal digits only (no sign, space or suffix) within [min, max] -> *out;
 * -1 for anything else. */
int cli_parse_uint(const char *s, unsigned long long min, unsigned long long max,
                   unsigned long long *out);
/* --window N of print, export, run: 1..TW_MERGE_MAX_WINDOW; otherwise a
 * usage error naming the option on stderr and -1. */
int cli_parse_window(const char *cmd, const char *arg, size_t *out);

#endif
