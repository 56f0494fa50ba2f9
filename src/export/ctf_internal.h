/* Shared by the CTF writer (ctf.c) and its metadata generator
 * (ctf_metadata.c). */
#ifndef TW_CTF_INTERNAL_H
#define TW_CTF_INTERNAL_H

#include "export_internal.h"

#define CTF_PKT_HDR 84u /* packet.header 32 + packet.context 52 */
#define CTF_STREAMS_MAX 256u
#define CTF_CUSTOM_MAX 256u
#define CTF_CUSTOM_BASE 0x200u
/* An event whose time was inferred (TW_EVENT_TIME_INFERRED) is written
 * under its kind's twin class: id | CTF_INFERRED_CLASS, the same name and
 * fields, and an event context `time_inferred` (always 1). A twin is
 * declared only when used, so a trace without such events exports exactly
 * as before. */
#define CTF_INFERRED_CLASS 0x8000u

struct ctf_stream {
  uint16_t endpoint, instance;
  uint32_t index;
  uint32_t freq;      /* from this stream's SYNC; 0 unknown */
  struct tw__wfile file;
  uint8_t *buf;       /* one packet, header space first */
  size_t len, cap;    /* cap: packet_bytes, more for one larger event */
  uint64_t ts_begin, ts_last, packets;
  unsigned nev;
  int started;
};

struct ctf {
  struct ctf_stream streams[CTF_STREAMS_MAX];
  size_t nstreams;
  struct ctf_stream *last;
  /* custom kinds: the decoder's descriptor is the key while events flow;
   * its TSDL is written at first sight, since the descriptor may be gone
   * by the time the metadata is */
  const struct tw_event_desc *custom[CTF_CUSTOM_MAX];
  char *custom_tsdl[CTF_CUSTOM_MAX];
  char *custom_tsdl_inferred[CTF_CUSTOM_MAX]; /* twins, when used */
  uint8_t inferred_used[CTF_INFERRED_CLASS / 8]; /* by class id */
  size_t ncustom;
  const struct tw_event_desc *last_custom;
  uint16_t last_custom_id;
  uint32_t clock_freq;
  int clock_set;
  uint8_t uuid[16];
  unsigned long long clamped;
};

uint16_t tw__ctf_class_id(struct tw_export *x, struct ctf *c, const struct tw_event_desc *d);
int tw__ctf_write_metadata(struct tw_export *x, struct ctf *c);
/* The TSDL event block of a kind (malloc'd), NULL when out of memory;
 * inferred: its twin (above). */
char *tw__ctf_event_tsdl(const struct tw_event_desc *d, unsigned id, int inferred);

#endif
