/*
 * libFuzzer target: the .twt trace-file reader (src/twt/trace_file.c) and
 * the trace as a byte source (src/twt/conn_twt.c) feeding the reader and
 * decoder, i.e. what `tracewire print/stats/info` do with a file someone
 * handed them. The input is the file; it lives in a memfd so each run
 * costs no disk I/O.
 *
 * Checked beyond memory safety: chunks come in increasing file order,
 * inside the file, and a chunk's length never exceeds TW_TWT_MAX_CHUNK
 * (the bound that sizes the reader's buffer). The time index
 * (twt_index.h): a point that passes validation resumes inside the file,
 * and decoding from it (decoder checkpoint restored, reader resumed, the
 * source seeked and limited) is as memory-safe as from the start.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracewire/error.h"
#include "tracewire/io/conn.h"
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/reader.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/twt/conn_twt.h"
#include "tracewire/twt/twt_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int ignore_event(void *ctx, const struct tw_event *ev)
{
  (void)ctx;
  (void)ev;
  return 0;
}

static void walk_chunks(const char *path, size_t size)
{
  struct tw_twt_reader *r;
  char err[256];
  if (tw_twt_open(path, &r, err, sizeof err) < 0)
    return;
  unsigned long long last = 0;
  struct tw_twt_chunk c;
  int rc, n = 0;
  while ((rc = tw_twt_next(r, &c)) == 1) {
    if (c.file_offset < last || c.len > TW_TWT_MAX_CHUNK ||
        c.file_offset + TW_TWT_CHUNK_HDR_BYTES + c.len > size + (c.truncated ? 0 : 0))
      abort();
    volatile uint8_t sink = 0;
    if (c.len)
      sink ^= c.data[0] ^ c.data[c.len - 1];
    (void)sink;
    last = c.file_offset + 1;
    if (++n > 100000)
      abort(); /* a file of this size cannot hold that many chunks */
  }
  (void)tw_twt_created_ns(r);
  (void)strlen(tw_twt_reader_error(r));
  tw_twt_close_reader(r);
}

static void decode(const char *path, int source)
{
  struct tw_conn *src;
  struct tw_reader *rd;
  struct tw_decoder *d;
  char err[256];
  if (tw_conn_twt_open(path, source, &src, err, sizeof err) < 0)
    return;
  if (tw_reader_open(&rd, src, &(struct tw_reader_cfg){.max_pkt_bytes = 4096}) < 0 ||
      tw_decoder_open(&d, &(struct tw_decoder_cfg){.max_streams = 4, .max_names = 16,
                                                    .max_custom = 4, .max_snapshot = 256}) < 0)
    abort();
  tw_decoder_on_event(d, ignore_event, NULL);
  (void)tw_decoder_run(d, rd);
  for (unsigned long long off = 0; off < 64; off += 13)
    (void)tw_conn_locate(src, off);
  tw_decoder_close(d);
  tw_reader_close(rd);
  tw_conn_close(src);
}

static void resume_at(const char *path, const struct tw_twt_resume *at, unsigned long long stop)
{
  struct tw_conn *src;
  struct tw_reader *rd;
  struct tw_decoder *d;
  char err[256];
  if (tw_conn_twt_open(path, at->id, &src, err, sizeof err) < 0)
    return;
  if (tw_reader_open(&rd, src, NULL) < 0 ||
      tw_decoder_open(&d, &(struct tw_decoder_cfg){.max_streams = TW_TWT_INDEX_STREAMS}) < 0)
    abort();
  tw_decoder_on_event(d, ignore_event, NULL);
  if (tw_decoder_restore(d, at->state, at->state_len) == 0 &&
      tw_conn_twt_seek(src, at->foff, at->soff, at->resume) == 0 &&
      tw_reader_resume(rd, at->resume, at->packets, at->in_sync) == 0) {
    if (stop)
      tw_conn_twt_limit(src, stop);
    (void)tw_decoder_run(d, rd);
  }
  tw_decoder_close(d);
  tw_reader_close(rd);
  tw_conn_close(src);
}

static void use_index(const char *path, size_t size)
{
  struct tw_twt_index *ix;
  struct tw_twt_resume at[TW_TWT_INDEX_SOURCES];
  char why[256];
  if (tw_twt_index_load(path, &ix, why, sizeof why) != 1)
    return;
  size_t ns = tw_twt_index_nsources(ix);
  if (ns == 0 || ns > TW_TWT_INDEX_SOURCES)
    abort();
  (void)tw_twt_index_stop(ix, 0, 1000);
  for (long k = tw_twt_index_start(ix, 0, UINT64_MAX); k >= 0 && k > tw_twt_index_start(ix, 0, UINT64_MAX) - 3; k--) {
    if (tw_twt_index_point(ix, k, at, why, sizeof why) < 0)
      continue;
    for (size_t i = 0; i < ns; i++) {
      if (at[i].foff + TW_TWT_CHUNK_HDR_BYTES > size || at[i].resume < at[i].soff)
        abort(); /* validation let through a point outside the file */
      resume_at(path, &at[i], k % 2 ? at[i].resume + 100 : 0);
    }
  }
  tw_twt_index_free(ix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int fd = -1;
  static char path[64];
  if (fd < 0) {
    fd = memfd_create("fuzz_twt", 0);
    if (fd < 0)
      abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
    abort();
  (void)tw_twt_probe(path);
  walk_chunks(path, size);
  decode(path, -1);
  decode(path, 1);
  use_index(path, size);
  return 0;
}
