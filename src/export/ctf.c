/*
 * CTF 1.8 writer: a trace directory that babeltrace2 and Trace Compass read.
 *
 *   OUT/metadata                 TSDL, written last (ctf_metadata.c)
 *   OUT/stream_<endpoint>_<core> one data stream per (endpoint, logger
 *                                instance), stream_instance_id = its index
 *
 * Layout (docs/exporters.md, "CTF"): native byte order, every integer
 * byte-aligned so nothing is ever padded. A packet is
 *   header  magic 0xC1FC1FC1, trace uuid[16], stream_id u32 (0),
 *           stream_instance_id u64                            32 bytes
 *   context timestamp_begin, timestamp_end (clock), content_size,
 *           packet_size (bits, equal: no padding), packet_seq_num,
 *           events_discarded (cumulative), endpoint u16, core u16  52 bytes
 *   events  header { id u16, timestamp u64 (clock) } + the fields of the
 *           event kind in vocabulary order, U8/U16/U32 as such, STRING as
 *           a NUL-terminated string (the target's bytes, a NUL in them
 *           as U+FFFD: docs/exporters.md, "Names and strings").
 * Each stream has one packet buffer (cfg.packet_bytes): memory is
 * streams x packet size whatever the trace length. A string is written
 * whole: an event too large for a packet gets a packet of its own, as
 * large as it needs.
 *
 * Clock: one clock class, `tw_target`. When the first event is a SYNC its
 * frequency is the clock's and events of streams at that frequency carry
 * their raw 64-bit ticks (the decoder already undid the 32-bit wrap);
 * other streams, and a trace not starting with a SYNC, are converted from
 * the decoder's nanoseconds (exact at 1 GHz). CTF readers need
 * non-decreasing time in a stream: a backwards step (which the decoder
 * reports and passes through) is written as the previous time.
 *
 * Event class ids: the vocabulary's event id; custom kinds (declared
 * in-band) get 0x200 + the order they were first seen, each declaration
 * of a kind declared again with other fields its own (the decoder gives
 * it its own descriptor: docs/exporters.md, "A custom kind declared
 * again").
 */
#include <stdlib.h>
#include <string.h>
#include "ctf_internal.h"

#define CTF_MAGIC 0xC1FC1FC1u
#define STR_MAX 4096u

static inline uint8_t *put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); return p + 2; }
static inline uint8_t *put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); return p + 4; }
static inline uint8_t *put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); return p + 8; }

static int ctf_open(struct tw_export *x)
{
  struct ctf *c = calloc(1, sizeof *c);
  if (!c)
    return tw__export_fail(x, TW_ENOMEM, "out of memory");
  x->state = c;
  if (x->cfg.packet_bytes < CTF_PKT_HDR + STR_MAX + 256)
    x->cfg.packet_bytes = CTF_PKT_HDR + STR_MAX + 256;
  return tw__mkdir(x, x->out);
}

static void make_uuid(struct ctf *c, const struct tw_event *ev)
{
  /* Deterministic: the same trace exports to the same bytes (golden
   * tests), different traces to different uuids. */
  uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
  uint64_t in[5] = {ev->ticks, ev->time_ns, (uint64_t)ev->id << 32 | ev->endpoint,
                    (uint64_t)ev->values[0] << 32 | ev->values[1], ev->seq};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < sizeof in; i++) {
      h[k] ^= ((const uint8_t *)in)[i] + (uint64_t)k;
      h[k] *= 0x100000001b3ull;
    }
  memcpy(c->uuid, h, 16);
  c->uuid[6] = (uint8_t)((c->uuid[6] & 0x0F) | 0x40);
  c->uuid[8] = (uint8_t)((c->uuid[8] & 0x3F) | 0x80);
}

static struct ctf_stream *stream_new(struct tw_export *x, struct ctf *c, const struct tw_event *ev)
{
  struct ctf_stream *s;
  char path[600];
  if (c->nstreams == CTF_STREAMS_MAX) {
    tw__export_fail(x, TW_ENOSPC, "%s: more than %u streams", x->out, CTF_STREAMS_MAX);
    return NULL;
  }
  s = &c->streams[c->nstreams];
  memset(s, 0, sizeof *s);
  s->endpoint = ev->endpoint;
  s->instance = ev->instance;
  s->index = (uint32_t)c->nstreams;
  s->cap = x->cfg.packet_bytes;
  if (!(s->buf = malloc(s->cap))) {
    tw__export_fail(x, TW_ENOMEM, "out of memory");
    return NULL;
  }
  s->len = CTF_PKT_HDR;
  snprintf(path, sizeof path, "%s/stream_%04x_%u", x->out, s->endpoint, s->instance);
  if (tw__wfile_open(x, &s->file, path) < 0) {
    free(s->buf);
    return NULL;
  }
  setvbuf(s->file.f, NULL, _IONBF, 0); /* whole packets: no second copy */
  c->nstreams++;
  return s;
}

static struct ctf_stream *stream_of(struct tw_export *x, struct ctf *c, const struct tw_event *ev)
{
  struct ctf_stream *s = c->last;
  if (s && s->endpoint == ev->endpoint && s->instance == ev->instance)
    return s;
  for (size_t i = 0; i < c->nstreams; i++)
    if (c->streams[i].endpoint == ev->endpoint && c->streams[i].instance == ev->instance)
      return c->last = &c->streams[i];
  return c->last = stream_new(x, c, ev);
}

static int write_packet(struct tw_export *x, struct ctf *c, struct ctf_stream *s,
                        unsigned long long discarded)
{
  uint8_t *p = s->buf;
  uint64_t bits = (uint64_t)s->len * 8;
  p = put32(p, CTF_MAGIC);
  memcpy(p, c->uuid, 16);
  p += 16;
  p = put32(p, 0);
  p = put64(p, s->index);
  p = put64(p, s->ts_begin);
  p = put64(p, s->ts_last);
  p = put64(p, bits);
  p = put64(p, bits);
  p = put64(p, s->packets);
  p = put64(p, discarded);
  p = put16(p, s->endpoint);
  put16(p, s->instance);
  if (fwrite(s->buf, 1, s->len, s->file.f) != s->len)
    return tw__export_fail(x, TW_EIO, "%s: write failed (packet %llu)", s->file.path,
                           (unsigned long long)s->packets);
  s->packets++;
  s->nev = 0;
  s->len = CTF_PKT_HDR;
  return 0;
}

/* A stream starts with an empty packet saying "nothing discarded yet":
 * CTF readers count discarded events as the difference between
 * consecutive packets, so without it the first packet's drops would be
 * reported without a number. */
static int flush_packet(struct tw_export *x, struct ctf *c, struct ctf_stream *s)
{
  if (!s->packets) {
    size_t len = s->len;
    uint64_t last = s->ts_last;
    s->len = CTF_PKT_HDR;
    s->ts_last = s->ts_begin;
    if (write_packet(x, c, s, 0) < 0)
      return x->err;
    /* the events stay in the buffer after the header space */
    s->len = len;
    s->ts_last = last;
  }
  return write_packet(x, c, s, tw__export_lost(x, s->endpoint, s->instance));
}

uint16_t tw__ctf_class_id(struct tw_export *x, struct ctf *c, const struct tw_event_desc *d)
{
  if (d->module != TW_MOD_CUSTOM)
    return d->id;
  if (c->last_custom == d)
    return c->last_custom_id;
  for (size_t i = 0; i < c->ncustom; i++)
    if (c->custom[i] == d) {
      c->last_custom = d;
      return c->last_custom_id = (uint16_t)(CTF_CUSTOM_BASE + i);
    }
  if (c->ncustom == CTF_CUSTOM_MAX) {
    tw__export_fail(x, TW_ENOSPC, "%s: more than %u custom event kinds", x->out,
                    CTF_CUSTOM_MAX);
    return 0;
  }
  if (!(c->custom_tsdl[c->ncustom] = tw__ctf_event_tsdl(d, CTF_CUSTOM_BASE + (unsigned)c->ncustom, 0))) {
    tw__export_fail(x, TW_ENOMEM, "out of memory");
    return 0;
  }
  c->custom[c->ncustom] = d;
  c->last_custom = d;
  return c->last_custom_id = (uint16_t)(CTF_CUSTOM_BASE + c->ncustom++);
}

/* The twin class of cls for an event whose time was inferred, declared
 * (custom kinds: its TSDL made) at first use. */
static uint16_t inferred_class(struct tw_export *x, struct ctf *c, const struct tw_event_desc *d,
                               uint16_t cls)
{
  if (!(c->inferred_used[cls / 8] >> (cls % 8) & 1)) {
    size_t i = cls - CTF_CUSTOM_BASE;
    if (d->module == TW_MOD_CUSTOM &&
        !(c->custom_tsdl_inferred[i] = tw__ctf_event_tsdl(d, cls, 1))) {
      tw__export_fail(x, TW_ENOMEM, "out of memory");
      return 0;
    }
    c->inferred_used[cls / 8] |= (uint8_t)(1u << (cls % 8));
  }
  return (uint16_t)(cls | CTF_INFERRED_CLASS);
}

static uint64_t clock_value(struct ctf *c, struct ctf_stream *s, const struct tw_event *ev)
{
  uint64_t v;
  if (s->freq == c->clock_freq)
    v = ev->ticks;
  else if (c->clock_freq == 1000000000u)
    v = ev->time_ns;
  else
    v = ev->time_ns / 1000000000u * c->clock_freq +
        ev->time_ns % 1000000000u * c->clock_freq / 1000000000u;
  if (s->started && v < s->ts_last) {
    c->clamped++;
    v = s->ts_last;
  }
  return v;
}

/* The bytes the event's string takes in the stream (put_fields), at least
 * STR_MAX: events are flushed as if each string might be that long, so the
 * packets of ordinary traces do not depend on their strings. */
static size_t str_room(const struct tw_event *ev)
{
  size_t n = 1;
  for (size_t k = 0; ev->str && k < ev->str_len; k++)
    n += ev->str[k] ? 1 : 3;
  return n > STR_MAX ? n : STR_MAX;
}

/* A packet is packet_bytes unless one event alone is larger: then that
 * event's packet is as large as it needs (no string is ever cut). */
static int packet_room(struct tw_export *x, struct ctf_stream *s, size_t need)
{
  uint8_t *b;
  if (s->len + need <= s->cap)
    return 0;
  if (!(b = realloc(s->buf, s->len + need))) {
    return tw__export_fail(x, TW_ENOMEM, "%s: out of memory for a %zu-byte event",
                           s->file.path, need);
  }
  s->buf = b;
  s->cap = s->len + need;
  return 0;
}

static uint8_t *put_fields(uint8_t *p, const struct tw_event *ev)
{
  const struct tw_event_desc *d = ev->desc;
  for (unsigned i = 0; i < d->nfields; i++) {
    uint32_t v = i < ev->nvalues ? ev->values[i] : 0;
    switch (d->fields[i].type) {
    case TW_FT_U8:
    case TW_FT_I8:
    case TW_FT_ENUM8: *p++ = (uint8_t)v; break;
    case TW_FT_U16:
    case TW_FT_I16: p = put16(p, (uint16_t)v); break;
    case TW_FT_U32:
    case TW_FT_I32:
    case TW_FT_F32: p = put32(p, v); break; /* the bits, in the trace's byte order */
    case TW_FT_STRING: /* whole; a NUL (which would end it) as U+FFFD */
      for (size_t k = 0; ev->str && k < ev->str_len; k++)
        if (ev->str[k]) {
          *p++ = (uint8_t)ev->str[k];
        } else {
          memcpy(p, "\xEF\xBF\xBD", 3);
          p += 3;
        }
      *p++ = 0;
      break;
    }
  }
  return p;
}

static int ctf_event(struct tw_export *x, const struct tw_event *ev)
{
  struct ctf *c = x->state;
  struct ctf_stream *s;
  uint64_t v;
  uint16_t cls;
  uint8_t *p;
  size_t room;
  if (!c->clock_set) {
    c->clock_set = 1;
    c->clock_freq = ev->id == TW_EV_SYNC && ev->values[0] ? ev->values[0] : 1000000000u;
    make_uuid(c, ev);
  }
  if (!(s = stream_of(x, c, ev)))
    return x->err;
  if (ev->id == TW_EV_SYNC && ev->values[0])
    s->freq = ev->values[0];
  cls = tw__ctf_class_id(x, c, ev->desc);
  if (!x->err && (ev->flags & TW_EVENT_TIME_INFERRED))
    cls = inferred_class(x, c, ev->desc, cls);
  if (x->err)
    return x->err;
  /* worst case: header, context byte, 16 words and one string */
  room = 10 + !!(cls & CTF_INFERRED_CLASS) + 4 * TW_EVENT_MAX_VALUES + str_room(ev);
  if (s->len + room > x->cfg.packet_bytes && s->nev && flush_packet(x, c, s) < 0)
    return x->err;
  if (packet_room(x, s, room) < 0)
    return x->err;
  v = clock_value(c, s, ev);
  if (!s->nev)
    s->ts_begin = v;
  p = s->buf + s->len;
  p = put16(p, cls);
  p = put64(p, v);
  if (cls & CTF_INFERRED_CLASS)
    *p++ = 1; /* the twin's context: time_inferred */
  p = put_fields(p, ev);
  s->len = (size_t)(p - s->buf);
  s->ts_last = v;
  s->started = 1;
  s->nev++;
  return 0;
}

static int ctf_finish(struct tw_export *x)
{
  struct ctf *c = x->state;
  for (size_t i = 0; i < c->nstreams; i++) {
    struct ctf_stream *s = &c->streams[i];
    if (s->nev && !x->err)
      flush_packet(x, c, s);
    tw__wfile_close(x, &s->file);
  }
  if (!c->clock_set) { /* an empty trace is still a valid CTF trace */
    c->clock_freq = 1000000000u;
    memset(c->uuid, 0x11, sizeof c->uuid);
    c->uuid[6] = 0x41;
    c->uuid[8] = 0x91;
  }
  return tw__ctf_write_metadata(x, c);
}

static void ctf_free(struct tw_export *x)
{
  struct ctf *c = x->state;
  if (!c)
    return;
  for (size_t i = 0; i < c->nstreams; i++) {
    if (c->streams[i].file.f)
      tw__wfile_close(x, &c->streams[i].file);
    free(c->streams[i].buf);
  }
  for (size_t i = 0; i < c->ncustom; i++) {
    free(c->custom_tsdl[i]);
    free(c->custom_tsdl_inferred[i]);
  }
  free(c);
  x->state = NULL;
}

const struct tw__export_ops tw__export_ctf = {"ctf", ctf_open, ctf_event, ctf_finish, ctf_free};
