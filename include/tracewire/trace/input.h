/*
 * A recorded trace opened for reading: a .twt (one or several sources, a
 * time index) or a raw packet file, framed and decoded, events to one
 * consumer in an order a small merge can sort.
 *
 * A trace recorded from several connections (record --from A --from B)
 * holds one byte stream per source id; each is framed and decoded on its
 * own (their endpoints may even have the same address), and the events
 * are merged. Events the consumer sees carry stream = source *
 * TW_INPUT_STREAMS + the decoder's stream index.
 *
 * Errors: damage in the input is counted (damage) and, unless quiet, said
 * on stderr one line each, naming the file, source, offset and stream.
 * Failures are said on stderr too ("tracewire: <file>: ...") and returned
 * as TW_INPUT_REPORTED, so a caller does not report them twice.
 *
 * What a file holds is told by its content, never by its name or by
 * seeking: "-" (standard input), a FIFO or a pipe is peeked at; a raw packet
 * stream is then read as it comes, a .twt is copied to an unlinked
 * temporary file first (its sources are read separately, and an index
 * seeks), as is anything tw_input_spool() was asked to make re-readable
 * (commands that read a trace twice). Devices other than terminals are
 * refused: they never end (/dev/zero) or hold nothing (/dev/null).
 *
 * Every file opened for reading is registered as an input of the process
 * (tracewire/io/file.h) until closed, so no library writer can write over
 * it.
 *
 * Context: one thread per struct tw_input. The struct is opened in place
 * (its sources point back at it): do not copy or move it while open.
 */
#ifndef TRACEWIRE_TRACE_INPUT_H
#define TRACEWIRE_TRACE_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/cmd.h"
#include "tracewire/io/conn.h"
#include "tracewire/io/file.h"
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/reader.h"
#include "tracewire/twt/twt_index.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A failure already written on stderr (the CLI's exit status for it, 1).
 * Positive, so it cannot be mistaken for a TW_E* code a consumer returns. */
#define TW_INPUT_REPORTED 1

/* The index is made for readers like this one: same limits. */
#define TW_INPUT_MAX_SOURCES TW_TWT_INDEX_SOURCES
#define TW_INPUT_STREAMS TW_TWT_INDEX_STREAMS

struct tw_input;

struct tw_input_src {
  struct tw_input *t;
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

struct tw_input {
  const char *path;
  struct tw_input_src src[TW_INPUT_MAX_SOURCES];
  size_t nsrc;
  struct tw_decoder *d;        /* src[0].d: the decoder of a single-source trace */
  int is_twt;
  int quiet;                   /* suppress per-diagnostic lines */
  unsigned long long damage;   /* skips, bad records, snapshot errors, truncation */
  unsigned long long damage_said; /* of those, said on stderr (not quiet) */
  unsigned long long diags;
  int have_end, truncated;
  int indexed;                 /* tw_input_window() used the time index */
  unsigned long long index_bytes;
  tw_event_fn on_event;        /* the consumer, set before run */
  void *ev_ctx;
  /* Long work: called about every 250 ms of a run with the bytes read so
   * far and the total to read (0: unknown, a stream), and once at the end
   * with done == total. Optional, set before run. */
  void (*on_progress)(void *ctx, unsigned long long done, unsigned long long total);
  void *progress_ctx;
  unsigned long long total_bytes; /* what a full read reads (0: unknown) */
  /* internal */
  const char *open_path;       /* what the sources open: path, or a copy of a stream */
  char copy_path[64];
  int copy_fd;                 /* the copy this input made (-1: none) */
  struct tw_file_id guard;
  unsigned long long progress_at;
};

/* Open path ("-": standard input; a .twt or raw packets, by content). 0
 * or TW_INPUT_REPORTED; closing after a failed open is allowed. */
int tw_input_open(struct tw_input *t, const char *path);
/* Make path readable more than once (for a command that reads the trace
 * twice): a stream (standard input, a FIFO) is copied to an unlinked
 * temporary file, which later tw_input_open(path) calls read. Nothing to
 * do for a regular file. 0 or TW_INPUT_REPORTED; tw_input_unspool()
 * drops the copy. */
int tw_input_spool(const char *path);
void tw_input_unspool(const char *path);
/* Decode to the end, events to t->on_event (several sources: the one
 * behind in time goes next). Returns 0, the consumer's value, a negative
 * TW_E* from a source that failed silently (TW_EIO), or TW_INPUT_REPORTED. */
int tw_input_run(struct tw_input *t);
struct tw_mti_system;
/* Run the trace into a trace model: start sys, decode everything, events
 * to feed(ctx, ev) in time order through a merge of `window` events (or
 * straight, each stream in its own order, when merged is 0), flush, stop.
 * Returns what tw_input_run() does, feed's value, or TW_ENOMEM, TW_ERANGE
 * (no merge). */
int tw_input_feed(struct tw_input *t, struct tw_mti_system *sys, size_t window, int merged,
                  tw_event_fn feed, void *ctx);
/* Only events in [from, to] ns are wanted (-1: open end), so a .twt with
 * a time index (docs/trace-file.md) may be read from a point before from
 * up to a point after to instead of whole: the events in the window come
 * out exactly as a full read gives them. An index that does not hold up
 * is said in one line and the file read whole. Call after open, before
 * run. 0 or TW_INPUT_REPORTED. */
int tw_input_window(struct tw_input *t, long long from, long long to);
/* Whether the .twt has a time index readers would use: its number of
 * points (>0), 0 for none, or <0 with the reason it does not hold up in
 * why (twt_index.h, tw_twt_index_load()). */
long tw_input_index_points(const struct tw_input *t, char *why, size_t whycap);
/* File bytes read so far (the index included). */
unsigned long long tw_input_bytes_read(const struct tw_input *t);
/* The source (and so the decoder: names, streams) an event came from. */
static inline const struct tw_input_src *tw_input_src_of(const struct tw_input *t,
                                                         const struct tw_event *ev)
{
  return &t->src[ev->stream / TW_INPUT_STREAMS];
}
void tw_input_close(struct tw_input *t);
/* The diagnostics printer open() installs on every decoder (ctx: the
 * struct tw_input_src); callers that hook diagnostics chain to it. */
void tw_input_diag(void *ctx, const struct tw_diag *d);

#ifdef __cplusplus
}
#endif

#endif
