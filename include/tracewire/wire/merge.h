/*
 * Several streams (endpoints, logger instances) into one time order: a
 * k-way merge with bounded lookahead. At most `window` events are held (in
 * one queue per stream, each sorted on (time_ns, arrival order)); when more
 * are, the earliest held event on that key is released. Within a stream the order is kept (ties break by
 * arrival), and across streams the order is exact whenever no stream lags
 * the others by more than `window` events. When the first `window` events
 * all come from one stream, they are released and later events of that
 * stream pass straight through (no copy) until another stream appears;
 * from then on everything is held again. A stream that first appears
 * after that point can only be ordered from its arrival on.
 *
 * Memory: window events plus their strings (bounded by the decoder's
 * max_snapshot); window is at most TW_MERGE_MAX_WINDOW (about 120 MB of
 * held events), so its storage size cannot overflow. Context: one thread.
 */
#ifndef TRACEWIRE_WIRE_MERGE_H
#define TRACEWIRE_WIRE_MERGE_H

#include <stddef.h>
#include "tracewire/event.h"
#include "tracewire/wire/decoder.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TW_MERGE_MAX_WINDOW (1u << 20)

struct tw_merge;

/* window: 1..TW_MERGE_MAX_WINDOW (0 means 1); TW_ERANGE beyond,
 * TW_ENOMEM. */
int tw_merge_open(struct tw_merge **out, size_t window, tw_event_fn sink, void *ctx);
void tw_merge_close(struct tw_merge *m);
/* Take one event (copied). Returns the sink's nonzero value, or 0. Usable as
 * a decoder's event callback with m as ctx. */
int tw_merge_push(void *m, const struct tw_event *ev);
/* Release everything held, in order. */
int tw_merge_flush(struct tw_merge *m);
/* Events that came out later than an event already released. */
unsigned long long tw_merge_late(const struct tw_merge *m);

#ifdef __cplusplus
}
#endif

#endif
