/*
 * The .twt trace file: what `tracewire record` writes (docs/trace-file.md).
 *
 *   file header   32 bytes: "TWTRACE\0", u32 version (1), u32 header bytes
 *                 (32), u64 wall-clock ns at creation, u32 flags (0),
 *                 u32 reserved (0)
 *   chunk*        24-byte chunk header + payload:
 *                 u32 magic 0x4B435754 ("TWCK"), u16 type, u16 source id,
 *                 u32 payload bytes, u32 check (see below), u64 arrival
 *                 (wall-clock ns when the bytes were received)
 *   All integers little-endian. A payload is at most TW_TWT_MAX_CHUNK bytes.
 *   check = payload bytes XOR type XOR source << 16 XOR 0x5457: a
 *   damaged chunk header is detected without reading the payload.
 *
 * Chunk types: SOURCE (the URI of a source id), DATA (bytes exactly as the
 * transport delivered them: packets, and any garbage between them), INFO
 * (a target's GET_INFO reply body, big-endian words as received; the
 * chunk's source id says whose), NOTE (text),
 * END (the footer, written by a clean stop: u64 data bytes, u64 data
 * chunks, u64 wall-clock ns at the end, and in an indexed file u64 file
 * offset of the TOC), INDEX and TOC (the time index: twt_index.h).
 * Readers skip chunk types they do not know, so the index needed no new
 * version (docs/trace-file.md).
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

#define TW_TWT_MAGIC "TWTRACE"
#define TW_TWT_VERSION 1u
#define TW_TWT_HDR_BYTES 32u
/* A reader accepts a larger header (a later version's) up to this size. */
#define TW_TWT_MAX_HDR 4096u
#define TW_TWT_CHUNK_HDR_BYTES 24u
#define TW_TWT_CHUNK_MAGIC 0x4B435754u
#define TW_TWT_MAX_CHUNK (4u << 20)

enum tw_twt_chunk_type {
  TW_TWT_SOURCE = 1, TW_TWT_DATA = 2, TW_TWT_INFO = 3, TW_TWT_NOTE = 4, TW_TWT_END = 5,
  TW_TWT_INDEX = 6, TW_TWT_TOC = 7
};

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

/* Create (truncate) path and write the file header. */
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
 * (which was returned first, truncated set) / TW_EBADMSG for a damaged
 * chunk header (see tw_twt_reader_error()). */
int tw_twt_next(struct tw_twt_reader *r, struct tw_twt_chunk *c);
uint64_t tw_twt_created_ns(const struct tw_twt_reader *r);
/* Go on reading at file offset off, which must be a chunk header (a time
 * index says where; a wrong offset reads as a damaged chunk header). */
int tw_twt_seek(struct tw_twt_reader *r, unsigned long long off);
/* Bytes read from the file so far (seeking costs none). */
unsigned long long tw_twt_bytes_read(const struct tw_twt_reader *r);
const char *tw_twt_reader_error(const struct tw_twt_reader *r);
void tw_twt_close_reader(struct tw_twt_reader *r);

#endif
