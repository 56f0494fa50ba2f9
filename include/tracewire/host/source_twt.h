/* The .twt source's extra: see the chunks that are not stream bytes. */
#ifndef TRACEWIRE_HOST_SOURCE_TWT_H
#define TRACEWIRE_HOST_SOURCE_TWT_H

#include "tracewire/host/source.h"
#include "tracewire/host/trace_file.h"

/* Called for every SOURCE/INFO/NOTE/END chunk (c set, err 0), and once for
 * a truncated or damaged tail (c NULL, err TW_ETRUNC/TW_EBADMSG, msg says
 * where). Same thread as the reads. */
typedef void (*tw_twt_chunk_fn)(void *ctx, const struct tw_twt_chunk *c, int err, const char *msg);
/* Only for sources from tw_source_twt_open(). */
void tw_source_twt_on_chunk(struct tw_source *s, tw_twt_chunk_fn fn, void *ctx);

#endif
