/*
 * Exporters: decoded events (struct tw_event) to the formats other tools
 * read. docs/exporters.md maps tracewire's model onto each format.
 *
 *   ctf       CTF 1.8 trace directory (babeltrace2, Trace Compass): TSDL
 *             `metadata` from the vocabulary, one data stream per
 *             (endpoint, core)
 *   perfetto  native protobuf trace (.perfetto-trace, ui.perfetto.dev)
 *   json      Chrome Trace Event Format (chrome://tracing, Perfetto UI)
 *   csv       a directory with one CSV file per event kind
 *
 * Every exporter streams: memory is bounded by the configuration (packet
 * size, number of streams, names, objects), not by the length of the trace.
 * The same exporters are MTI plugins (tw_export_plugin_factory(); shared
 * libraries libtw_export_<format>.so): `tracewire export` runs the built-in
 * plugin over the trace model, `tracewire run --plugin` the .so.
 *
 * Context: one exporter belongs to one thread; none of these functions is
 * ISR-safe or reentrant. Errors: 0 or a negative TW_E*, with a message
 * naming the file and what failed in msg (may be NULL/0).
 */
#ifndef TRACEWIRE_EXPORT_EXPORT_H
#define TRACEWIRE_EXPORT_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/event.h"
#include "tracewire/mti.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tw_export_cfg {
  const char *format;        /* "ctf", "perfetto", "json", "csv" */
  const char *out;           /* directory (ctf, csv) or file (perfetto, json) */
  size_t packet_bytes;       /* CTF packet size bound; 0: 64 KiB */
  int64_t clock_offset_ns;   /* CTF clock offset (origin of the target clock) */
  uint64_t load_window_ns;   /* perfetto/json CPU-load window; 0: 1 ms */
};

struct tw_export;

/* Creates the output (directory or file; an existing directory is reused,
 * files in it overwritten). TW_ENOENT for an unknown format. */
int tw_export_open(struct tw_export **out, const struct tw_export_cfg *cfg, char *err,
                   size_t errcap);
/* One event, in time order per stream (streams may interleave). */
int tw_export_event(struct tw_export *x, const struct tw_event *ev);
/* Cumulative events lost in transport on (endpoint, instance) as the
 * decoder counted them so far; CTF adds it to events_discarded from the
 * next packet on. Optional. */
void tw_export_transport_loss(struct tw_export *x, uint16_t endpoint, uint16_t instance,
                              unsigned long long lost);
/* Finishes the output (CTF metadata, trailers), closes and frees x. The
 * first error of the whole export is returned with its message. */
int tw_export_close(struct tw_export *x, char *err, size_t errcap);
/* Events taken so far. */
unsigned long long tw_export_count(const struct tw_export *x);
/* The first error so far (0 none): a host can stop feeding early. */
int tw_export_error(const struct tw_export *x);

/* A clock offset written in seconds ("1700000000.25", "-0.5") as
 * nanoseconds, exactly: decimal digits with an optional leading '-' and
 * fraction (at most 9 decimals, more only when they are zeros), within
 * +-9223372036.854775807 s. No exponents, spaces, "inf" or hex. 0, or
 * TW_EINVAL with the reason in err (may be NULL/0). Pure; reentrant. */
int tw_export_parse_offset(const char *s, int64_t *ns, char *err, size_t errcap);

/* Format names, NULL-terminated. */
extern const char *const tw_export_formats[];

/* The MTI plugin factory of an exporter (NULL for an unknown format).
 * Parameters: out (STRING, required), packet_bytes (INT), clock_offset_ns
 * (INT), load_window_ns (INT). An instance registers a mask-0 event class
 * on every event source of every component (not the dump_state sources)
 * and exports TraceContext::GetCurrentEvent(); it writes the output when
 * released. Static: do not free. */
MTI_PluginFactory *tw_export_plugin_factory(const char *format);
/* The exporter of a built-in instance (one this factory instantiated, not
 * one from a .so), NULL before RegisterSimulation: lets the host feed it
 * what the model does not carry (tw_export_transport_loss). */
struct tw_export *tw_export_plugin_exporter(MTI_PluginInstance *instance);
/* After Release: the instance's first error (0 when none) and message. */
int tw_export_plugin_status(const char *format, char *err, size_t errcap);

#ifdef __cplusplus
}
#endif

#endif
