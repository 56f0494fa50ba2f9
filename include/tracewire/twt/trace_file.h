/*
 * The .twt trace file's writer and reader: what `tracewire record` writes
 * (docs/trace-file.md). The bytes on disk: tracewire/twt/layout.h.
 *
 * Truncation: chunks are written whole, one write() each; a crash leaves
 * a prefix of whole chunks plus at most one partial chunk. Readers deliver
 * the partial chunk's bytes (flagged truncated) and then report the
 * truncation (file offset, bytes). A file without END was not stopped
 * cleanly; everything before the damage is still read.
 *
 * Context: one thread per writer or reader.
 */
#ifndef TRACEWIRE_TWT_TRACE_FILE_H
#define TRACEWIRE_TWT_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/twt/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tw_twt_chunk {
  uint16_t type, source;
  uint32_t len;
  uint64_t arrival_ns;
  unsigned long long file_offset; /* of the chunk header */
  int truncated;                  /* the file ends inside this chunk: len is what is there */
  const uint8_t *data;            /* valid until the next call */
};

struct tw_twt_writer;
struct tw_twt_reader;

/* Create path ("-": standard output), truncated, but never over a file this
 * process reads (io/file.h: TW_EEXIST with the message). The file header
 * goes out with the first chunk, so the file may be a pipe. */
int tw_twt_create(const char *path, struct tw_twt_writer **out, char *err, size_t errcap);
/* Append one chunk (payloads above TW_TWT_MAX_CHUNK are split). */
int tw_twt_write(struct tw_twt_writer *w, uint16_t type, uint16_t source, uint64_t arrival_ns,
                 const void *data, size_t len);
/* Keep a time index from now on (before the first chunk): an INDEX chunk
 * every `every` bytes of DATA (0: TW_TWT_INDEX_EVERY), a TOC at a clean
 * close. Costs decoding the stream as it is written. TW_ENOMEM. */
int tw_twt_writer_index(struct tw_twt_writer *w, unsigned long long every);
/* Header creation time and END time to write instead of now (rewriting an
 * existing trace keeps its times); 0 leaves now. Before the first chunk. */
void tw_twt_writer_times(struct tw_twt_writer *w, uint64_t created_ns, uint64_t end_ns);
/* Write END (if clean), fsync and close. Returns the first error seen. */
int tw_twt_close(struct tw_twt_writer *w, int clean);
const char *tw_twt_writer_error(const struct tw_twt_writer *w);
unsigned long long tw_twt_data_bytes(const struct tw_twt_writer *w);

/* 1 if the file at path starts with the .twt magic, 0 if not, <0 on error. */
int tw_twt_probe(const char *path);
int tw_twt_open(const char *path, struct tw_twt_reader **out, char *err, size_t errcap);
/* Next chunk: 1, 0 at the end, or TW_ETRUNC after a partial last chunk
 * (which was returned first, truncated set; the end), or TW_EBADMSG for a
 * damaged chunk header: the bytes up to the next valid chunk header were
 * skipped (tw_twt_reader_error() says where and how many) and the next
 * call goes on from there. */
int tw_twt_next(struct tw_twt_reader *r, struct tw_twt_chunk *c);
uint64_t tw_twt_created_ns(const struct tw_twt_reader *r);
/* The name messages give the file (default: the path opened; a copy of
 * standard input is opened under another path than the user gave). */
void tw_twt_reader_name(struct tw_twt_reader *r, const char *name);
/* Go on reading at file offset off, which must be a chunk header (a time
 * index says where; a wrong offset reads as a damaged chunk header). */
int tw_twt_seek(struct tw_twt_reader *r, unsigned long long off);
/* Bytes read from the file so far (seeking costs none). */
unsigned long long tw_twt_bytes_read(const struct tw_twt_reader *r);
const char *tw_twt_reader_error(const struct tw_twt_reader *r);
void tw_twt_close_reader(struct tw_twt_reader *r);

#ifdef __cplusplus
}
#endif

#endif
