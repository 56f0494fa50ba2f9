/*
 * One decoded event as one line of text, in the spirit of babeltrace2's
 * text output (docs/host.md, "print format"):
 *
 *   [0.001234000] (+0.000001000) 0001/0 MutexEvent: { task = 2 "sensor_task", mutex = 1 "bus_lock", type = Lock }, marker = Up
 *
 * time in seconds since the target clock's zero, the delta to the previous
 * printed event, endpoint (hex address) / logger instance, the event's seed
 * name, fields in descriptor order with object names and enum constants,
 * the marker a viewer draws (when the event has one), and ", time =
 * inferred" when the record had no timestamp (TW_EVENT_TIME_INFERRED: the
 * time is the stream's previous timed record's).
 *
 * Context: pure function of its arguments (names from the decoder).
 */
#ifndef TRACEWIRE_WIRE_FORMAT_H
#define TRACEWIRE_WIRE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/event.h"
#include "tracewire/wire/decoder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes at most cap-1 bytes plus a NUL (with a trailing '\n'); returns the
 * length written (cut lines end "...\n"). cap >= 64. source >= 0 prefixes
 * the endpoint with "source:" (a trace recorded from several connections). */
size_t tw_event_format(char *buf, size_t cap, const struct tw_event *ev,
                       const struct tw_decoder *d, uint64_t prev_ns, int source);

/* A one-word field's raw value (tw_event.values[i]) as text, as print and
 * CSV show it: decimal for U8..U32 and ENUM8, and (sign-extended from `bits`) for I8..I32;
 * F32 in the fewest %g digits that read back to the same float, or "nan",
 * "inf", "-inf". Returns the length (< cap; cap >= 32 never cuts). Pure;
 * any thread. */
size_t tw_field_value_text(char *buf, size_t cap, enum tw_field_type type, uint8_t bits,
                           uint32_t raw);

/* s[0..n) escaped as print escapes the target's strings and names (`"`
 * and `\` backslashed, every byte outside printable ASCII as \xNN;
 * docs/cli.md), without quotes, NUL-terminated and cut to cap - 1 bytes;
 * returns the length the whole text needs, as snprintf does (at most
 * 4 * n). For commands that print target names other than in events
 * (info, stats). Pure; any thread. */
size_t tw_text_escape(char *buf, size_t cap, const char *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif
