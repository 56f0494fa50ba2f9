/*
 * A decoded event, as the host decoder hands it to the trace model,
 * exporters and analyses. Values are unpacked into host integers in the
 * order of the descriptor's fields; desc is never NULL (custom events get a
 * descriptor built from their in-band declaration).
 */
#ifndef TRACEWIRE_EVENT_H
#define TRACEWIRE_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/vocab.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TW_EVENT_MAX_VALUES 16

struct tw_event {
  uint64_t time_ns;      /* target time in ns since the stream's time origin */
  uint64_t ticks;        /* extended 64-bit target timestamp, clock ticks */
  uint32_t seq;          /* extended event sequence number in its stream */
  uint16_t endpoint;     /* packet source address */
  uint16_t instance;     /* logger instance id (one stream per core) */
  uint16_t id;           /* event id */
  uint16_t module;       /* module id */
  uint16_t stream;       /* index of (endpoint, instance) in the trace */
  uint16_t nvalues;
  const struct tw_event_desc *desc;
  uint32_t values[TW_EVENT_MAX_VALUES]; /* desc->fields order; STRING -> 0 */
  const char *str;       /* the STRING field's bytes (NAME, CUSTOM_DECL), else NULL */
  size_t str_len;
  uint32_t flags;        /* TW_EVENT_* below (appended: older readers ignore it) */
};

/* The record carried no timestamp (spec 000's HdrType_Event, or a snapshot
 * record without one): time_ns and ticks are those of the previous timed
 * record of the same stream (0 before the first), not a measurement. print
 * and every exporter say so (docs/wire-format.md, "Records without a
 * timestamp"). */
#define TW_EVENT_TIME_INFERRED 0x1u

/* The marker a viewer draws for this event: its marker field's constant's
 * (vocabulary, generated from events.def), else the event's default. The
 * one place an event's values turn into its marker. */
static inline enum tw_marker tw_event_marker_of(const struct tw_event *ev)
{
  const struct tw_event_desc *d = ev->desc;
  if (!d)
    return TW_MARKER_NONE;
  if (d->marker_field >= 0 && d->marker_field < (int)ev->nvalues)
    return tw_event_marker(d, ev->values[d->marker_field]);
  return d->default_marker;
}

#ifdef __cplusplus
}
#endif

#endif
