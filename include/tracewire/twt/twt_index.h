/*
 * The .twt time index (format, versioning and validation:
 * docs/trace-file.md, "Time index").
 *
 * The container only knows arrival time; users filter on target time,
 * which exists only after decoding (SYNC/INFO frequency, the 32-bit
 * timestamp's high half, names, custom declarations). So the index is made
 * by decoding: an indexer decodes every source's stream as the file is
 * written (the recorder) or rewritten (`tracewire index`), exactly as a
 * reader of the file would (same source rule, same INFO handling, same
 * reader and decoder configuration), and every TW_TWT_INDEX_EVERY bytes of
 * DATA writes an INDEX chunk: per source, a packet boundary (file offset of
 * the chunk to start reading at, stream offset there, the stream offset of
 * the boundary), the reader's packet count and the decoder's checkpoint
 * (tw_decoder_save()). A reader that starts there decodes the rest of the
 * stream byte for byte as one that came from the start.
 *
 * At a clean close a TOC chunk lists the INDEX chunks with, per source,
 * the largest event time before each point and the smallest after it:
 * start at the last point whose "largest before" is below FROM, stop at
 * the first whose "smallest after" is above TO, and no event in [FROM, TO]
 * is missed even when time went backwards. END (then 32 bytes) points at
 * the TOC, so a reader finds it from the end of the file without a scan.
 *
 * Context: one thread per indexer or index.
 */
#ifndef TRACEWIRE_TWT_TWT_INDEX_H
#define TRACEWIRE_TWT_TWT_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/twt/trace_file.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TW_TWT_INDEX_EVERY (1u << 20)
/* Sources a reader decodes separately (trace/input.h: TW_INPUT_MAX_SOURCES). */
#define TW_TWT_INDEX_SOURCES 8
/* The decoder configuration readers use (trace/input.h): the checkpoints
 * are made with it. */
#define TW_TWT_INDEX_STREAMS 64

/* ---- building (the writer uses it; see tw_twt_writer_index()) ---------- */

struct tw_twt_indexer;
int tw_twt_indexer_open(struct tw_twt_indexer **out, unsigned long long every);
void tw_twt_indexer_close(struct tw_twt_indexer *ix);
/* A chunk just written at c->file_offset. 1: an index point is due now,
 * 0: not, TW_ENOMEM: indexing stopped (the file stays valid, unindexed). */
int tw_twt_indexer_chunk(struct tw_twt_indexer *ix, const struct tw_twt_chunk *c);
/* The INDEX payload for a point whose chunk goes to file offset foff. 1 and
 * *p, *len (valid until the next call), or 0: no point possible here (a
 * packet or snapshot spans it; retried after the next DATA chunk). */
int tw_twt_indexer_point(struct tw_twt_indexer *ix, unsigned long long foff, const uint8_t **p,
                         size_t *len);
/* The TOC payload at a clean close (decodes what is left first). 1, or 0
 * when there is nothing to list. */
int tw_twt_indexer_toc(struct tw_twt_indexer *ix, const uint8_t **p, size_t *len);

/* ---- using -------------------------------------------------------------- */

struct tw_twt_index;

/* Where a source resumes. */
struct tw_twt_resume {
  int id;                         /* source id; -1: every DATA chunk */
  int in_sync;                    /* framing state, 0..7 (tw_reader_resume_point) */
  unsigned long long foff;        /* read chunks from this file offset on */
  unsigned long long soff;        /* the source's stream offset there */
  unsigned long long resume;      /* stream offset of the packet boundary */
  unsigned long long packets;     /* packets the reader had returned */
  uint64_t last_ns;               /* time of the source's last event before */
  const uint8_t *state;           /* decoder checkpoint */
  size_t state_len;
};

/* 1 and *out: the file has a valid TOC; 0: no index (not indexed, or not
 * closed cleanly: END missing); TW_EBADMSG/TW_ESYS: an index that does not
 * hold up (err says what, where). Only the END, TOC are read. */
int tw_twt_index_load(const char *path, struct tw_twt_index **out, char *err, size_t errcap);
void tw_twt_index_free(struct tw_twt_index *ix);
size_t tw_twt_index_nsources(const struct tw_twt_index *ix);
size_t tw_twt_index_npoints(const struct tw_twt_index *ix);
int tw_twt_index_source(const struct tw_twt_index *ix, size_t i);
/* 1 if source i's event times went backwards somewhere (in decode order,
 * across its streams). A windowed read is then not guaranteed to merge
 * equal and out-of-order times as a full read does: readers do not use
 * the index for such a trace (docs/trace-file.md). */
int tw_twt_index_backwards(const struct tw_twt_index *ix, size_t i);
/* The point to start source i at so no event >= from is missed, or -1:
 * from the start. */
long tw_twt_index_start(const struct tw_twt_index *ix, size_t i, uint64_t from);
/* The first point after which source i has no event <= to, or -1. */
long tw_twt_index_stop(const struct tw_twt_index *ix, size_t i, uint64_t to);
/* Read and check point k's INDEX chunk: out[nsources] filled (pointers
 * valid until the next call). 0, or TW_EBADMSG/TW_ESYS with err set. */
int tw_twt_index_point(struct tw_twt_index *ix, long k, struct tw_twt_resume *out, char *err,
                       size_t errcap);
/* File bytes the index read (for the "how much was read" accounting). */
unsigned long long tw_twt_index_bytes_read(const struct tw_twt_index *ix);

/* ---- adding an index to a file (`tracewire index`) ------------------------ */

struct tw_twt_reindex {
  unsigned long long every;   /* bytes of DATA between points (0: TW_TWT_INDEX_EVERY) */
  /* progress: called about every 64 MiB copied (optional) */
  void (*on_progress)(void *ctx, unsigned long long done, unsigned long long total);
  void *progress_ctx;
  /* out */
  int clean;                  /* the input had END, so the output has it (and a TOC) */
  unsigned long long damaged; /* damaged regions of the input, left out */
  unsigned long long chunks;  /* chunks copied */
  char damage[400];           /* the first damage, said ("" when none) */
};

/* Rewrite `in` through an indexing writer (the chunks, their arrival times
 * and the file's creation and END times kept; an old index dropped; a
 * damaged chunk header's bytes left out, as every reader does), then read
 * the new file back and check that it holds exactly the chunks copied, an
 * END if and only if `in` had one, and an index that loads. To `out`, or
 * with out NULL in place: into a temporary file beside `in` that is renamed
 * over it only once verified, and only if `in` had no damage (TW_EBADMSG
 * otherwise, with the reason: a copy without the damaged parts must be
 * asked for with an `out`); on any failure `in` is left byte for byte as
 * it was. `in` is an input of this process meanwhile (io/file.h), so `out`
 * may not be the same file. 0 (rw filled), or TW_E* with err set. */
int tw_twt_reindex(const char *in, const char *out, struct tw_twt_reindex *rw, char *err,
                   size_t errcap);

#ifdef __cplusplus
}
#endif

#endif
