/* The .twt source's extra: see the chunks that are not stream bytes. */
#ifndef TRACEWIRE_HOST_CONN_TWT_H
#define TRACEWIRE_HOST_CONN_TWT_H

#include "tracewire/host/conn.h"
#include "tracewire/host/trace_file.h"

/* Called for every SOURCE/INFO/NOTE/END chunk (c set, err 0), and once for
 * a truncated or damaged tail (c NULL, err TW_ETRUNC/TW_EBADMSG, msg says
 * where). Same thread as the reads. */
typedef void (*tw_twt_chunk_fn)(void *ctx, const struct tw_twt_chunk *c, int err, const char *msg);
/* Only for sources from tw_conn_twt_open(). */
void tw_conn_twt_on_chunk(struct tw_conn *s, tw_twt_chunk_fn fn, void *ctx);

#endif
