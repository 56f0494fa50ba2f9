/* A .twt file as a connection (its DATA chunks as the byte stream), and its
 * extra: the chunks that are not stream bytes. */
#ifndef TRACEWIRE_TWT_CONN_TWT_H
#define TRACEWIRE_TWT_CONN_TWT_H

#include "tracewire/io/conn.h"
#include "tracewire/twt/trace_file.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A .twt trace file (trace_file.h) as the byte stream of one source id
 * (-1: every source's chunks in file order). Lives with the file format,
 * above the transports: io/ knows nothing of .twt. */
int tw_conn_twt_open(const char *path, int source_id, struct tw_conn **out, char *err, size_t errcap);

/* The name its messages give the file (tw_twt_reader_name()). */
void tw_conn_twt_name(struct tw_conn *s, const char *name);

/* Called for every SOURCE/INFO/NOTE/END chunk (c set, err 0), once for a
 * truncated tail (c NULL, err TW_ETRUNC: the stream ends there), and for
 * each damaged chunk header (c NULL, err TW_EBADMSG: the bytes to the next
 * chunk header are skipped, the stream goes on); msg says where. Same
 * thread as the reads. */
typedef void (*tw_twt_chunk_fn)(void *ctx, const struct tw_twt_chunk *c, int err, const char *msg);
/* Only for sources from tw_conn_twt_open(). */
void tw_conn_twt_on_chunk(struct tw_conn *s, tw_twt_chunk_fn fn, void *ctx);

/* Start at a time index's resume point (twt_index.h): chunks from file
 * offset foff, where the source's stream offset is soff; the bytes before
 * stream offset resume are dropped. Before the first read; TW_EINVAL. */
int tw_conn_twt_seek(struct tw_conn *s, unsigned long long foff, unsigned long long soff,
                     unsigned long long resume);
/* The stream ends at stream offset stop (a packet boundary). */
void tw_conn_twt_limit(struct tw_conn *s, unsigned long long stop);
/* File bytes read so far. */
unsigned long long tw_conn_twt_bytes_read(const struct tw_conn *s);

#ifdef __cplusplus
}
#endif

#endif
