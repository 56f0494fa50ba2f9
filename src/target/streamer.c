/*
 * The streamer: logger events -> EventHdr records -> UIA event packets.
 *
 * Design (what the host relies on is in docs/streamer.md):
 *
 * - One packet under construction, in the caller's struct. A record is
 *   written straight into it; when the next record does not fit, the packet
 *   is finished (header, footer, optional InvalidData padding) and offered
 *   to the transport. A refused packet stays "held": nothing else is
 *   written until the transport takes it, and the logger's ring absorbs the
 *   back-pressure (its overflow becomes exact drop counts, below).
 *
 * - Every step that writes a record is restartable: state advances only
 *   after the record is in the packet. A logger event is taken into `pend`
 *   and written in up to two steps (DROPS record, then the event), so a
 *   refusal between them loses nothing and never reorders.
 *
 * - Sequence numbers: every record takes the next 16-bit event sequence
 *   number. When the logger reports d events dropped before event E, a
 *   DROPS record (count d) takes the next number, the counter then skips d,
 *   and E follows: the host sees a gap of exactly d announced by DROPS.
 *   A gap without a DROPS record is a lost packet.
 *
 * - Time: the logger's clock is 32 bits. The streamer observes it after
 *   every event it takes and at every poll, extending a 64-bit "now" by the
 *   difference. Observations are less than 2^31 ticks apart (SYNC and the
 *   polls see to it), so a difference of 2^31 or more is a reading a little
 *   *before* the last one (a timer stepping back), never a wrap: "now"
 *   stays where it was. Only the logger's rec.wraps (whole periods slept
 *   through) make a longer gap, and a SLEEP event re-anchors. An event's
 *   32-bit timestamp t becomes now + (int32_t)(t - now_lo): the nearest
 *   64-bit time with those low bits, correct while the event is within
 *   2^31 ticks of the observation. SLEEP events are anchored on their wake
 *   time and reach back (wake - sleep) + wraps * 2^32. Periodic SYNC
 *   records (every sync_ticks < 2^31) keep the collector observing.
 *
 * - A record the streamer makes up itself never steps stream time back.
 *   Events leave in ring order; an emitter reads the clock before it
 *   commits, so anything still in the ring, or still being emitted by a
 *   task the collector preempted, may be older than the latest reading.
 *   While recording, SYNC, NAME and CUSTOM_DECL therefore carry the stream
 *   time, the newest timestamp already written (`out_ts`), never a fresh
 *   reading: whatever follows was committed after what came before. Only
 *   TRACE_START (the ring was just emptied and the mask is not on yet) and
 *   TRACE_STOP (nothing follows it) carry the clock. Control records never
 *   drain the ring or change the collector's work: a START or GET_NAMES
 *   from the host mid-stream only adds records.
 *
 * - TW_CFG_STREAMER_MINIMAL (streamer.h lists what it leaves out) reads
 *   core 0's kernel logger in place instead of taking events into `pend`:
 *   room is made for an event's record and its DROPS record together
 *   before either is written, both are written, and only then is the
 *   event retired from the ring. A refusal leaves the event in the ring,
 *   untouched, so nothing needs to be restartable but the packet.
 */
#include <string.h>

#include "tracewire/events_gen.h"
#include "tracewire/port.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#if TW_CFG_STREAMER_MINIMAL
#include "tracewire/klog.h"
#include "logger_ring.h"
#endif

#define HDR TW_STREAMER_HDR_BYTES
/* a NAME or CUSTOM_DECL snapshot must fit one record in one packet, so
 * writing it is all-or-nothing */
#define SNAP_REC_MAX (40u + 4u + ((TW_CFG_DECL_MAX > TW_CFG_NAME_MAX ? TW_CFG_DECL_MAX : TW_CFG_NAME_MAX) + 3u) / 4u * 4u)
#define MIN_PKT (HDR + TW_FOOTER_BYTES + SNAP_REC_MAX)
_Static_assert(TW_CFG_MAX_PKT_BYTES >= MIN_PKT, "TW_CFG_MAX_PKT_BYTES too small for a NAME record");
_Static_assert(SNAP_REC_MAX <= TW_CFG_SNAP_MAX_REC_BYTES, "snapshot scratch too small");

/* ---- time ------------------------------------------------------------------ */

#if TW_CFG_STREAMER_MINIMAL /* the source: core 0's kernel logger */
#define SRC_NOW(s) tw_klog_timestamp()
#define SRC_FREQ(s) tw_klog_timestamp_hz()
#define SRC_CAPACITY(s) TW_CFG_KLOG_CAPACITY
#define COUNT(s, field, n) ((void)0) /* no statistics */
#else
#define SRC_NOW(s) (s)->cfg.source.now((s)->cfg.source.ctx)
#define SRC_FREQ(s) (s)->cfg.source.freq_hz
#define SRC_CAPACITY(s) (s)->cfg.source.capacity_words
#define COUNT(s, field, n) ((s)->st.field += (n))
#endif

/* Readings are at most sync_ticks < 2^31 apart (the design note), so
 * one 2^31 or more past the last is a reading a little before it (a
 * timer stepping back): "now" stays, and extend() places what that clock
 * stamps just before it. Only whole periods the logger reports (wraps)
 * make a longer gap. */
static void observe(struct tw_streamer *s, uint32_t wraps)
{
  uint32_t lo = SRC_NOW(s), d = lo - s->now_lo;
  if (d >= 0x80000000u && !wraps)
    return;
  s->now += (uint64_t)d + ((uint64_t)wraps << 32);
  s->now_lo = lo;
}

/* The times control records carry (see the design note): the stream
 * time while events may still follow, the clock where none can. */
static uint64_t ctl_ts(const struct tw_streamer *s)
{
  return s->out_ts;
}

static uint64_t edge_ts(const struct tw_streamer *s)
{
  return s->now > s->out_ts ? s->now : s->out_ts;
}

static void wrote_ts(struct tw_streamer *s, uint64_t ts)
{
  if (ts > s->out_ts)
    s->out_ts = ts;
}

static uint64_t extend(const struct tw_streamer *s, uint32_t t)
{
  int32_t d = (int32_t)(t - s->now_lo);
  if (d < 0 && (uint64_t)-(int64_t)d > s->now)
    return 0; /* before the first observation: clamp rather than wrap */
  return s->now + (uint64_t)(int64_t)d;
}

/* ---- packets ----------------------------------------------------------------- */

/* The header words composed directly (the layout of uia.h's
 * TW_PKT_FIELDS; the golden tests hold them to tw_pkt_init_*): the generic
 * field accessors cost more code than the whole packet path. */
static void finish_header(struct tw_streamer *s, uint32_t length)
{
  uint32_t *h = s->pkt;
#if TW_CFG_MIN_EVENT_PKT
  h[0] = tw_htobe32((uint32_t)TW_PKT_MIN_EVENT << 28 | (uint32_t)TW_ENDIAN_NATIVE << 27 |
                    (s->cfg.endpoint & 0x1Fu) << 22 | (length & 0xFFFFu));
#else
  h[0] = tw_htobe32((uint32_t)TW_PKT_EVENT << 28 | (uint32_t)TW_ENDIAN_NATIVE << 27 |
                    (length & 0x07FFFFFFu));
  h[2] = tw_htobe32((s->cfg.instance_id & 0x7FFFu) << 16 | s->cfg.module_id);
  h[3] = tw_htobe32((uint32_t)TW_ADDR_HOST << 16 | s->cfg.endpoint);
#endif
  h[1] = tw_htobe32((uint32_t)s->pkt_seq << 16 | (s->first_seq & 0x3FFFu) << 2 |
                    (s->cfg.priority & 3u));
}

static uint32_t *claim(struct tw_streamer *s, uint32_t words);

/* The payload check (cfg.check): a PKT_CHECK record ends the packet, in
 * the room make_room() kept for it; it takes a sequence number like any
 * record, so a reader that knows nothing of it counts right. Its CRC word
 * is filled once the header is final: the CRC covers every byte of the
 * packet before that word. */
#define CHECK_WORDS 3u
#if TW_CFG_STREAMER_MINIMAL /* no payload check (streamer.h) */
#define CFG_CHECK(c) 0
#else
#define CFG_CHECK(c) ((c)->check)
#endif
#define CHECKED(s) CFG_CHECK(&(s)->cfg)

static void begin_check(struct tw_streamer *s)
{
  uint32_t seq = s->ev_seq;
  uint32_t *p = claim(s, CHECK_WORDS);
  p[0] = tw_evhdr_make(TW_REC_EVENT, CHECK_WORDS * 4, seq);
  p[1] = (uint32_t)TW_EV_PKT_CHECK << 16 | TW_MOD_CONTROL;
  p[2] = 0; /* the CRC: end_check() */
}

static void end_check(struct tw_streamer *s)
{
  s->pkt[s->fill / 4 - 1] = tw_crc16(s->pkt, s->fill - 4); /* payload order: native */
}

/* Finish and offer the packet under construction (or the held one). */
static int send_pkt(struct tw_streamer *s)
{
  if (!s->held && CHECKED(s) && s->fill > HDR)
    begin_check(s);
  uint32_t len = s->fill + TW_FOOTER_BYTES;
  uint32_t total = len;

  if (!s->held) {
    finish_header(s, len);
    if (CHECKED(s) && s->fill > HDR)
      end_check(s);
    tw_store_be32((uint8_t *)s->pkt + s->fill, tw_pkt_footer(len));
#if !TW_CFG_STREAMER_MINIMAL
    if (s->cfg.pad && len < s->max_bytes) {
      /* fixed-size buffer: the rest is one InvalidData "packet" */
      uint8_t *p = (uint8_t *)s->pkt + len;
      memset(p, 0, s->max_bytes - len);
      tw_pkt_set_invalid((tw_pkt_hdr *)(void *)p, s->max_bytes - len);
    }
#endif
  }
#if !TW_CFG_STREAMER_MINIMAL
  if (s->cfg.pad)
    total = s->max_bytes;
#endif
  int rc = s->cfg.send(s->cfg.send_ctx, s->pkt, total);
  if (rc) {
    s->held = 1;
    COUNT(s, refusals, 1);
    return rc < 0 ? rc : TW_EBUSY;
  }
  s->held = 0;
  s->pkt_seq++;
  COUNT(s, packets, 1);
  COUNT(s, bytes, total);
  s->fill = HDR;
  return 0;
}

/* Room for `bytes` more record bytes; may send the current packet. */
static int make_room(struct tw_streamer *s, uint32_t bytes)
{
  if (s->held)
    return TW_EBUSY;
  if (HDR + bytes + s->tail > s->max_bytes)
    return TW_ETOOBIG;
  if (s->fill + bytes + s->tail > s->max_bytes) {
    int rc = send_pkt(s);
    if (rc)
      return rc;
  }
#if !TW_CFG_STREAMER_MINIMAL /* the timed flush */
  if (s->fill == HDR)
    s->first_ts = s->now;
#endif
  return 0;
}

static uint32_t *claim(struct tw_streamer *s, uint32_t words)
{
  uint32_t *p = s->pkt + s->fill / 4;
  if (s->fill == HDR)
    s->first_seq = s->ev_seq;
  s->fill += words * 4;
  s->ev_seq++;
  COUNT(s, records, 1);
  return p;
}

/* Claim a record of `words` words (room made) and write its first words:
 * EventHdr of `type`, the 64-bit time for the timestamped types, the id
 * word. Returns where the rest goes. */
static uint32_t *record(struct tw_streamer *s, uint32_t type, uint64_t ts, uint32_t idword,
                        uint32_t words)
{
  uint32_t seq = s->ev_seq;
  uint32_t *p = claim(s, words);
  *p++ = tw_evhdr_make(type, words * 4, seq);
  if (type == TW_REC_EVENT_TS || type == TW_REC_SNAPSHOT_TS) {
    *p++ = (uint32_t)ts;
    *p++ = (uint32_t)(ts >> 32);
    wrote_ts(s, ts);
  }
  *p++ = idword;
  return p;
}

static uint32_t id_word(uint32_t id, uint32_t module)
{
  return id << 16 | module;
}

/* An event record: header, [ts], id word, payload. */
static int write_record(struct tw_streamer *s, int with_ts, uint64_t ts, uint16_t id,
                        uint16_t module, const uint32_t *payload, uint32_t n)
{
  uint32_t words = (with_ts ? 4u : 2u) + n;
  int rc = make_room(s, words * 4);
  if (rc)
    return rc;
  uint32_t *p = record(s, with_ts ? TW_REC_EVENT_TS : TW_REC_EVENT, ts, id_word(id, module), words);
  for (uint32_t k = 0; k < n; k++)
    p[k] = payload[k];
  return 0;
}

#define CTL_BYTES 20u /* a control record: EventHdr, time, id word, value */

static int write_control(struct tw_streamer *s, uint16_t id, uint64_t ts, uint32_t v)
{
  return write_record(s, 1, ts, id, TW_MOD_CONTROL, &v, 1);
}

/* Claim a snapshot record of `words` words (room made) and write its
 * header, the layout tw_snapshot_encode() gives a record: snapshot id
 * s->snap_id, file, line and format 0. Returns its data area, whose last
 * word is zeroed for the padding. */
static uint8_t *snap_record(struct tw_streamer *s, uint32_t words, int timed, uint64_t ts,
                            uint32_t idword, uint32_t addr, uint32_t total, uint32_t part)
{
  uint32_t *p = record(s, timed ? TW_REC_SNAPSHOT_TS : TW_REC_SNAPSHOT, ts, idword, words);
  p[words - (timed ? 4u : 2u) - 1u] = 0; /* the padding of the data's last word */
  *p++ = 0;                            /* file */
  *p++ = 0;                            /* line */
  *p++ = s->snap_id;
  *p++ = addr;                         /* address: offset in the bytes */
  *p++ = total << 16 | part;
  *p++ = 0;                            /* format */
  return (uint8_t *)p;
}

/* One NAME or CUSTOM_DECL snapshot, all in one record (SNAP_REC_MAX):
 * the packed word (native order) then the string's bytes. */
static int write_snapshot(struct tw_streamer *s, uint16_t id, uint32_t packed, const char *str)
{
  uint32_t len = 0;
  while (str[len])
    len++;
  uint32_t words = 11u + (len + 3u) / 4u;
  int rc = make_room(s, words * 4);
  if (rc)
    return rc;
  uint8_t *d = snap_record(s, words, 1, ctl_ts(s), id_word(id, TW_MOD_CONTROL), 0, 4u + len,
                           4u + len);
  *(uint32_t *)(void *)d = packed; /* d is word-aligned */
  for (uint32_t i = 0; i < len; i++)
    d[4u + i] = (uint8_t)str[i];
  s->snap_id++;
  return 0;
}

/* ---- logger events ----------------------------------------------------------- */

/* A SLEEP event re-anchors the clock: the sleep began within reach of the
 * last observation (t_sleep, extended), and the wake is that plus what the
 * timestamps show plus the whole periods slept (wraps). */
static void wake_anchor(struct tw_streamer *s, uint64_t t_sleep, uint32_t sleep, uint32_t wake,
                        uint32_t wraps)
{
  uint64_t t_wake = t_sleep + (uint32_t)(wake - sleep) + ((uint64_t)wraps << 32);
  if (t_wake > s->now) { /* never move the clock backwards */
    s->now = t_wake;
    s->now_lo = wake;
  }
}

/* What the record of event `id` is: 1 when timed (its first data word
 * is the timestamp, not repeated in the payload), and its module. Ids
 * the vocabulary does not have are custom events. */
static int event_kind(uint32_t id, uint16_t *module, const struct tw_custom_decl **decl)
{
  uint32_t w = tw_event_wire(id); /* not the descriptor tables: hosts' */
  *decl = NULL;
  if (w && !(TW_EVW_FLAGS(w) & TW_EVF_STREAMER)) {
    *module = (uint16_t)TW_EVW_MODULE(w);
    return (TW_EVW_FLAGS(w) & TW_EVF_TIMED) != 0;
  }
  *decl = tw_custom_find((uint16_t)id);
  *module = TW_MOD_CUSTOM;
  return *decl && (*decl)->timed;
}

#if TW_CFG_STREAMER_MINIMAL
/* ---- logger events, read in place (the minimal configuration) ------------------ */

#define KCAP TW_CFG_KLOG_CAPACITY /* a constant: a mask when a power of two */

/* The event v at the ring's tail into the packet, after the DROPS record
 * that announces the events lost before it: room for both first, so both
 * are written or neither. 0, or < 0 with nothing written. */
static int write_in_place(struct tw_streamer *s, struct tw_logger *l, const struct tw__ring_ev *v)
{
  uint32_t id = v->hdr >> 16, n = v->hdr & 0xFFu, drops = s->pdrops + v->dropped;
  uint16_t module;
  const struct tw_custom_decl *c; /* none: STR/BLOB events need the general streamer */
  uint32_t first = event_kind(id, &module, &c) && n ? 1u : 0u; /* where the payload starts */
  uint32_t words = (first ? 4u : 2u) + n - first;
  int rc = make_room(s, words * 4u + (drops ? CTL_BYTES : 0u));
  if (rc == TW_ETOOBIG) {
    /* the two can never fit one packet: the event is lost on the
     * target, announced with the next one's drops */
    s->pdrops = drops + 1u;
    return 0;
  }
  if (rc)
    return rc;
  /* extended from the last observation, which was before the event's
   * commit or within 2^31 ticks after it: only SLEEP events carry wraps
   * (the kernel logger's tw_klog_sleep_exit), and they re-anchor */
  uint64_t ts = first ? extend(s, tw__ring_word(l, v, 0, KCAP)) : s->now;
  if (id == TW_EV_SLEEP && n >= 3)
    wake_anchor(s, ts, tw__ring_word(l, v, 0, KCAP), tw__ring_word(l, v, 1, KCAP), v->wraps);
  observe(s, 0);
  if (drops) {
    (void)write_control(s, TW_EV_DROPS, ts, drops); /* the room is there */
    s->ev_seq = (uint16_t)(s->ev_seq + drops); /* skip exactly the dropped */
    s->pdrops = 0;
  }
  uint32_t *p = record(s, first ? TW_REC_EVENT_TS : TW_REC_EVENT, ts, id_word(id, module), words);
  for (uint32_t k = first; k < n; k++)
    *p++ = tw__ring_word(l, v, k, KCAP);
  return 0;
}

/* Write and retire the event at the ring's tail; while stopped, retire
 * it only. 1 taken, 0 none, < 0 blocked (it stays in the ring). Never
 * waits: `timeout` is for the general source's sake. */
static int drain_one(struct tw_streamer *s, uint32_t timeout)
{
  struct tw_logger *l = tw_klog_logger();
  struct tw__ring_ev v;
  (void)timeout;
  if (!tw__ring_peek(l, &v, KCAP))
    return 0;
  if (s->running) {
    int rc = write_in_place(s, l, &v);
    if (rc)
      return rc;
  }
  tw__ring_retire(l, &v, KCAP);
  return 1;
}

static void discard_ring(struct tw_streamer *s, uint32_t budget)
{
  while (budget-- && drain_one(s, 0) > 0) /* stopped: retired only */
    ;
}

static uint32_t source_take_drops(struct tw_streamer *s)
{
  (void)s;
  return tw_logger_take_drops(tw_klog_logger());
}

static void source_set_mask(struct tw_streamer *s, uint32_t mask)
{
  (void)s;
  tw_klog_set_mask(mask); /* ignored unless TW_CFG_KLOG_DYNAMIC */
}

#else /* !TW_CFG_STREAMER_MINIMAL */

static void take(struct tw_streamer *s, const struct tw_src_rec *rec, int n)
{
  uint64_t ts;

  s->st.events++;
  if (rec->id == TW_EV_SLEEP && n >= 3) {
    ts = extend(s, s->pdata[0]);
    wake_anchor(s, ts, s->pdata[0], s->pdata[1], rec->wraps);
    observe(s, 0);
  } else {
    observe(s, rec->wraps);
    ts = n ? extend(s, s->pdata[0]) : s->now;
  }
  if (!s->running) {
    s->st.discarded++;
    return;
  }
  s->prec = *rec;
  s->prec.size = (uint16_t)n;
  s->pts = ts;
  s->pdrops += rec->dropped;
  s->st.drops += rec->dropped;
  s->pend = s->pdrops ? 1 : 2;
}

/* A STR/BLOB custom event: payload { len, bytes... } becomes snapshot
 * records of at most one packet each. Restartable: s->poff is how far the
 * bytes went out; the snapshot id advances only when all did. */
static int write_bytes(struct tw_streamer *s, int timed, const uint32_t *payload, uint32_t n)
{
  uint32_t len = n ? payload[0] : 0;
  const uint8_t *bytes = (const uint8_t *)(payload + 1);
  uint32_t hwords = timed ? 10u : 8u;
  uint32_t room = (s->max_bytes - HDR - s->tail - hwords * 4) & ~3u;

  if (n && len > (n - 1) * 4)
    len = (n - 1) * 4; /* never read past what the logger gave */
  do {
    uint32_t part = len - s->poff < room ? len - s->poff : room;
    uint32_t words = hwords + (part + 3) / 4;
    int rc = make_room(s, words * 4);
    if (rc)
      return rc;
    uint8_t *d = snap_record(s, words, timed, s->pts, (uint32_t)s->prec.id << 16 | TW_MOD_CUSTOM,
                             s->poff, len, part);
    memcpy(d, bytes + s->poff, part);
    s->poff += part;
  } while (s->poff < len);
  s->poff = 0;
  s->snap_id++;
  return 0;
}

static int write_event(struct tw_streamer *s)
{
  uint16_t module;
  const struct tw_custom_decl *c;
  int timed = event_kind(s->prec.id, &module, &c);
  uint32_t n = s->prec.size;
  const uint32_t *payload = s->pdata;
  if (timed && n) {
    payload++;
    n--;
  }
  if (c && c->bytes)
    return write_bytes(s, timed, payload, n);
  int rc = write_record(s, timed, s->pts, s->prec.id, module, payload, n);
  if (rc == TW_ETOOBIG) {
    /* can never fit a packet: lost on the target, announced as a drop */
    s->st.oversize++;
    s->pdrops++;
    return 0;
  }
  return rc;
}

/* ---- names registered while recording -------------------------------------------- */

static uint32_t name_packed(const struct tw_name_entry *e);

static int names_queued(const struct tw_streamer *s)
{
  for (unsigned i = 0; i < s->nwork; i++)
    if (s->work[i] == TW_SW_NAMES)
      return 1;
  return 0;
}

/* NAMES_LOST when the count of refused registrations moved. */
static int report_lost(struct tw_streamer *s)
{
  uint32_t lost = tw_name_lost();
  if (lost == s->lost_sent)
    return 0;
  int rc = write_control(s, TW_EV_NAMES_LOST, ctl_ts(s), lost);
  if (!rc)
    s->lost_sent = lost;
  return rc;
}

/* The names registered since the last ones went out, each before any
 * event recorded after its registration: the caller runs this before it
 * writes an event it took from the ring (a registration is published
 * before the registering code's later puts, and the ring hands events out
 * with acquire). Not while a dump of the whole table is queued: the dump
 * covers them. */
static int send_new_names(struct tw_streamer *s)
{
  if (!s->running || names_queued(s) || s->cfg.secondary)
    return 0;
  while (s->names_sent < tw_name_count()) {
    const struct tw_name_entry *e = tw_name_at(s->names_sent);
    int rc = write_snapshot(s, TW_EV_NAME, name_packed(e), e->name);
    if (rc)
      return rc;
    s->names_sent++;
  }
  return report_lost(s);
}

static int write_pending(struct tw_streamer *s)
{
  int rc;

  if ((rc = send_new_names(s)))
    return rc;
  if (s->pend == 1) {
    rc = write_control(s, TW_EV_DROPS, s->pts, s->pdrops);
    if (rc)
      return rc;
    s->ev_seq = (uint16_t)(s->ev_seq + s->pdrops); /* skip exactly the dropped */
    s->pdrops = 0;
    s->pend = 2;
  }
  if (s->pend == 2) {
    rc = write_event(s);
    if (rc)
      return rc;
    s->pend = 0;
  }
  return 0;
}

/* Take and write one event. 1 taken, 0 none, < 0 blocked. */
static int drain_one(struct tw_streamer *s, uint32_t timeout)
{
  struct tw_src_rec rec = {0};
  int n;

  if (s->pend) {
    int rc = write_pending(s);
    return rc ? rc : 1;
  }
  if (timeout && s->cfg.source.get_wait)
    n = s->cfg.source.get_wait(s->cfg.source.ctx, &rec, s->pdata, TW_EVENT_MAX_DATA, timeout);
  else
    n = s->cfg.source.get(s->cfg.source.ctx, &rec, s->pdata, TW_EVENT_MAX_DATA);
  if (n <= 0)
    return 0; /* nothing; TW_EMSGSIZE cannot happen with a 255-word buffer */
  take(s, &rec, n);
  if (s->pend) {
    int rc = write_pending(s);
    if (rc)
      return rc;
  }
  return 1;
}

/* While stopped the ring is kept empty: take (and so discard) up to
 * `budget` events. */
static void discard_ring(struct tw_streamer *s, uint32_t budget)
{
  struct tw_src_rec rec;
  for (uint32_t i = 0; i < budget; i++) {
    int n = s->cfg.source.get(s->cfg.source.ctx, &rec, s->pdata, TW_EVENT_MAX_DATA);
    if (n <= 0)
      return;
    take(s, &rec, n);
  }
}

static uint32_t source_take_drops(struct tw_streamer *s)
{
  return s->cfg.source.take_drops ? s->cfg.source.take_drops(s->cfg.source.ctx) : 0;
}

static void source_set_mask(struct tw_streamer *s, uint32_t mask)
{
  if (s->cfg.source.set_mask)
    s->cfg.source.set_mask(s->cfg.source.ctx, mask);
}
#endif /* TW_CFG_STREAMER_MINIMAL */

/* ---- queued work --------------------------------------------------------------- */

static void apply_mask(struct tw_streamer *s, uint32_t mask)
{
  __atomic_store_n(&tw_trace_mask, mask, __ATOMIC_RELAXED);
  source_set_mask(s, mask);
}

#if !TW_CFG_STREAMER_MINIMAL
static int push_work(struct tw_streamer *s, int w)
{
  if (s->nwork >= sizeof s->work / sizeof s->work[0])
    return TW_EBUSY;
  s->work[s->nwork++] = w;
  return 0;
}

static void pop_work(struct tw_streamer *s)
{
  for (unsigned i = 1; i < s->nwork; i++)
    s->work[i - 1] = s->work[i];
  s->nwork--;
  s->cursor = 0;
}
#endif

static uint32_t name_packed(const struct tw_name_entry *e)
{
  return (uint32_t)e->kind | (uint32_t)e->prio << 8 | (uint32_t)e->number << 16;
}

#if TW_CFG_CUSTOM_DECLS
static uint32_t decl_packed(const struct tw_custom_decl *c)
{
  return (uint32_t)c->id | (uint32_t)c->timed << 16 | (uint32_t)c->nfields << 24;
}
#endif

/* START: SYNC first, so the host has the clock from the first record of the
 * first packet on; then TRACE_START unless already recording. Both go into
 * one packet. A START while recording (a host attaching mid-stream) gets
 * the SYNC too. */
static int start_step(struct tw_streamer *s)
{
  uint32_t words = s->running ? 5u : 10u; /* one or two control records */
  int rc;
  if (!s->running) /* what the ring took while stopped must not follow */
    discard_ring(s, SRC_CAPACITY(s) ? SRC_CAPACITY(s) + 1 : TW_CFG_STREAMER_BATCH);
  if ((rc = make_room(s, words * 4)))
    return rc;
  uint64_t ts = s->running ? ctl_ts(s) : edge_ts(s);
  if ((rc = write_control(s, TW_EV_SYNC, ts, SRC_FREQ(s))))
    return rc;
#if !TW_CFG_STREAMER_MINIMAL
  s->last_sync = s->now;
#endif
  if (!s->running) {
    if ((rc = write_control(s, TW_EV_TRACE_START, ts, s->mask)))
      return rc;
    s->running = 1;
#if !TW_CFG_STREAMER_MINIMAL
    s->names_sent = 0; /* the dump that follows sends them all */
#endif
    apply_mask(s, s->mask);
  }
  return 0;
}

/* Drops no event carried (the ring overflowed after its last event went
 * in, or an event too large for any packet was the last): a DROPS record
 * of their own, before TRACE_STOP, so every drop of a recording is
 * announced within it. Restartable: taken drops wait in pdrops. */
static int announce_stop_drops(struct tw_streamer *s)
{
  uint32_t d = source_take_drops(s);
  s->pdrops += d;
  COUNT(s, drops, d);
  if (!s->pdrops)
    return 0;
  int rc = write_control(s, TW_EV_DROPS, edge_ts(s), s->pdrops);
  if (rc)
    return rc;
  s->ev_seq = (uint16_t)(s->ev_seq + s->pdrops); /* as before an event */
  s->pdrops = 0;
  return 0;
}

#if TW_CFG_STREAMER_MINIMAL
/* What start() and stop() asked for, done by the polls in this order:
 * START, the names, STOP. No queue: start() while a STOP is due is
 * refused, so the order never needs more. */
#define DUE_START 1u
#define DUE_NAMES 2u
#define DUE_STOP 4u

static int names_step(struct tw_streamer *s)
{
  int rc;
  while (s->cursor < tw_name_count()) {
    const struct tw_name_entry *e = tw_name_at(s->cursor);
    if ((rc = write_snapshot(s, TW_EV_NAME, name_packed(e), e->name)))
      return rc;
    s->cursor++;
  }
  /* the whole table went out: say how many names it could not hold */
  uint32_t lost = tw_name_lost();
  return lost ? write_control(s, TW_EV_NAMES_LOST, ctl_ts(s), lost) : 0;
}

/* What was recorded before the stop goes out before TRACE_STOP (bounded
 * by what the ring could hold: kernel hooks of a non-dynamic logger keep
 * recording whatever the mask says), then the drops no event carried and
 * TRACE_STOP. Restartable, as every step. */
static int stop_step(struct tw_streamer *s)
{
  int rc = 0;
  if (!s->running)
    return 0;
  while (s->stop_budget && (rc = drain_one(s, 0)) > 0)
    s->stop_budget--;
  if (rc < 0 || (rc = announce_stop_drops(s)) ||
      (rc = write_control(s, TW_EV_TRACE_STOP, edge_ts(s), s->stop_reason)))
    return rc;
  s->running = 0;
  return 0;
}

static int due_step(struct tw_streamer *s)
{
  int rc;
  if (s->due & DUE_START) {
    if ((rc = start_step(s)))
      return rc;
    s->cursor = 0;
    s->due &= ~DUE_START;
  }
  if (s->due & DUE_NAMES) {
    if ((rc = names_step(s)))
      return rc;
    s->due &= ~DUE_NAMES;
  }
  if (s->due & DUE_STOP) {
    if ((rc = stop_step(s)))
      return rc;
    s->due &= ~DUE_STOP;
    return tw_streamer_flush(s); /* refused: held, offered again by the next poll */
  }
  return 0;
}
#else
/* One step of the head work item. 0 progress (or done), < 0 blocked. */
static int work_step(struct tw_streamer *s)
{
  int rc = 0;

  switch (s->work[0]) {
  case TW_SW_START:
    if ((rc = start_step(s)))
      return rc;
    pop_work(s);
    return 0;
  case TW_SW_NAMES:
    if (s->cursor < tw_name_count()) {
      const struct tw_name_entry *e = tw_name_at(s->cursor);
      rc = write_snapshot(s, TW_EV_NAME, name_packed(e), e->name);
      if (!rc)
        s->cursor++;
      return rc;
    }
    /* the whole table went out: say how many names it could not hold */
    s->lost_sent = 0;
    if (tw_name_lost() && (rc = report_lost(s)))
      return rc;
    if (s->cursor > s->names_sent)
      s->names_sent = s->cursor;
    pop_work(s);
    return 0;
#if TW_CFG_CUSTOM_DECLS
  case TW_SW_DECLS:
    if (s->cursor < tw_custom_count()) {
      const struct tw_custom_decl *c = tw_custom_at(s->cursor);
      rc = write_snapshot(s, TW_EV_CUSTOM_DECL, decl_packed(c), c->decl);
      if (!rc)
        s->cursor++;
      return rc;
    }
    pop_work(s);
    return 0;
#endif
  case TW_SW_STOP:
    if (s->running) {
      /* what was recorded before the stop goes out before TRACE_STOP;
       * bounded by what the ring could hold, since kernel hooks of a
       * non-dynamic logger keep recording whatever the mask says */
      while (s->stop_budget && (rc = drain_one(s, 0)) > 0)
        s->stop_budget--;
      if (rc < 0)
        return rc;
      if ((rc = announce_stop_drops(s)))
        return rc;
      rc = write_control(s, TW_EV_TRACE_STOP, edge_ts(s), s->stop_reason);
      if (rc)
        return rc;
      s->running = 0;
    }
    pop_work(s);
    rc = tw_streamer_flush(s);
    return rc;
  default:
    pop_work(s);
    return 0;
  }
}
#endif

/* ---- public ---------------------------------------------------------------------- */

int tw_streamer_init(struct tw_streamer *s, const struct tw_streamer_cfg *cfg)
{
  if (!s || !cfg || !cfg->send || cfg->priority > 3)
    return TW_EINVAL;
  uint32_t max = cfg->max_pkt_bytes ? cfg->max_pkt_bytes : TW_CFG_MAX_PKT_BYTES;
  uint32_t tail = TW_FOOTER_BYTES + (CFG_CHECK(cfg) ? CHECK_WORDS * 4 : 0);
  if (max % 4 || max > TW_CFG_MAX_PKT_BYTES || max < MIN_PKT - TW_FOOTER_BYTES + tail)
    return TW_EINVAL;
#if !TW_CFG_STREAMER_MINIMAL
  if (!cfg->source.get || !cfg->source.now || cfg->sync_ticks > 0x7FFFFFFFu)
    return TW_EINVAL;
#endif
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  s->max_bytes = max;
  s->tail = tail;
  s->fill = HDR;
  s->mask = cfg->initial_mask;
  s->now_lo = SRC_NOW(s);
  s->now = s->now_lo;
#if !TW_CFG_STREAMER_MINIMAL
  if (!s->cfg.sync_ticks)
    s->cfg.sync_ticks = 1u << 30;
  s->last_sync = s->now;
#endif
  return 0;
}

#if TW_CFG_STREAMER_MINIMAL
int tw_streamer_start(struct tw_streamer *s)
{
  if (s->due & DUE_STOP)
    return TW_EBUSY;
  s->due |= DUE_START | DUE_NAMES;
  return 0;
}

int tw_streamer_stop(struct tw_streamer *s, uint32_t reason)
{
  s->due |= DUE_STOP;
#else
int tw_streamer_start(struct tw_streamer *s)
{
  if (s->nwork + 3 > sizeof s->work / sizeof s->work[0])
    return TW_EBUSY;
  push_work(s, TW_SW_START);
  if (!s->cfg.secondary) {
    push_work(s, TW_SW_NAMES);
    push_work(s, TW_SW_DECLS);
  }
  return 0;
}

int tw_streamer_stop(struct tw_streamer *s, uint32_t reason)
{
  int rc = push_work(s, TW_SW_STOP);
  if (rc)
    return rc;
#endif
  s->stop_reason = reason;
  s->stop_budget = SRC_CAPACITY(s) ? SRC_CAPACITY(s) : 0xFFFFFFFFu;
  /* emitters stop at once; the ring is drained before TRACE_STOP */
  apply_mask(s, 0);
  return 0;
}

#if !TW_CFG_STREAMER_MINIMAL
int tw_streamer_send_names(struct tw_streamer *s, uint32_t *names, uint32_t *decls)
{
  if (s->nwork + 2 > sizeof s->work / sizeof s->work[0])
    return TW_EBUSY;
  push_work(s, TW_SW_NAMES);
  push_work(s, TW_SW_DECLS);
  if (names)
    *names = tw_name_count();
  if (decls)
    *decls = tw_custom_count();
  return 0;
}
#endif

static int stop_queued(const struct tw_streamer *s)
{
#if TW_CFG_STREAMER_MINIMAL
  return (s->due & DUE_STOP) != 0;
#else
  for (unsigned i = 0; i < s->nwork; i++)
    if (s->work[i] == TW_SW_STOP)
      return 1;
  return 0;
#endif
}

void tw_streamer_set_mask(struct tw_streamer *s, uint32_t mask)
{
  s->mask = mask;
  if (s->running && !stop_queued(s))
    apply_mask(s, mask);
}

uint32_t tw_streamer_get_mask(const struct tw_streamer *s)
{
  return s->mask;
}

#if !TW_CFG_STREAMER_MINIMAL
void tw_streamer_set_congestion(struct tw_streamer *s, int level)
{
  s->congestion = level < -100 ? -100 : level > 100 ? 100 : level;
}

uint32_t tw_streamer_flush_delay(const struct tw_streamer *s)
{
  /* flush_ticks * (100 + congestion) / 100 without a 64-bit division
   * (the C library's would be most of the streamer's size); the same
   * value, modulo 2^32 */
  uint32_t t = s->cfg.flush_ticks, f = (uint32_t)(100 + s->congestion);
  return t / 100u * f + t % 100u * f / 100u;
}
#endif

int tw_streamer_flush(struct tw_streamer *s)
{
  if (!s->held && s->fill == HDR)
    return 0;
  return send_pkt(s);
}

int tw_streamer_idle(const struct tw_streamer *s)
{
#if TW_CFG_STREAMER_MINIMAL
  return !s->due && !s->held && s->fill == HDR;
#else
  return !s->nwork && !s->pend && !s->held && s->fill == HDR;
#endif
}

#if TW_CFG_STREAMER_MINIMAL
int tw_streamer_poll(struct tw_streamer *s, uint32_t timeout)
{
  int rc, taken = 0;

  (void)timeout; /* never waits: the caller paces the polls */
  if (s->held && (rc = send_pkt(s)))
    return rc;
  observe(s, 0);
  if (s->due && (rc = due_step(s)))
    return rc;
  /* recording, events are written; stopped, discarded (a non-dynamic
   * logger records kernel events whatever the mask says) */
  while ((rc = drain_one(s, 0)) > 0)
    if (++taken == TW_CFG_STREAMER_BATCH)
      return taken;
  if (rc < 0)
    return rc;
  /* the ring is empty: what the packet holds goes out now (no timed
   * flush to wait for) */
  if (s->fill > HDR && (rc = send_pkt(s)))
    return rc;
  return taken;
}
#else
int tw_streamer_poll(struct tw_streamer *s, uint32_t timeout)
{
  int rc, taken = 0;

  if (s->held && (rc = send_pkt(s))) {
    /* the link is busy: back off instead of spinning on it; the ring
     * keeps recording (and counting drops) meanwhile */
    if (timeout)
      tw__wait(&s->backoff, 0, timeout);
    return rc;
  }
  observe(s, 0);
  /* an event taken before the work came is older than any control record */
  if (s->nwork && s->pend && (rc = write_pending(s)))
    return rc;
  while (s->nwork)
    if ((rc = work_step(s)))
      return rc;
  if (s->running || s->pend) {
    for (int i = 0; i < TW_CFG_STREAMER_BATCH; i++) {
      rc = drain_one(s, i == 0 && !s->pend ? timeout : 0);
      if (rc < 0)
        return rc;
      if (!rc)
        break;
      taken++;
    }
  } else {
    /* stopped: keep the ring empty, discarding (a non-dynamic logger
     * records kernel events whatever the mask says) */
    uint32_t before = s->st.events;
    discard_ring(s, TW_CFG_STREAMER_BATCH);
    taken = (int)(s->st.events - before);
  }
  /* names registered with no event after them yet (a queue added to
   * the registry) go out now rather than with the next event */
  if (!s->pend && (rc = send_new_names(s)))
    return rc;
  observe(s, 0);
  if (s->running && s->now - s->last_sync >= s->cfg.sync_ticks) {
    if ((rc = write_control(s, TW_EV_SYNC, ctl_ts(s), s->cfg.source.freq_hz)))
      return rc;
    s->last_sync = s->now;
  }
  if (s->fill > HDR && s->now - s->first_ts >= tw_streamer_flush_delay(s) &&
      (s->cfg.flush_ticks || s->congestion == -100)) {
    rc = send_pkt(s);
    if (rc)
      return rc;
  }
  return taken;
}

void tw_streamer_stats(const struct tw_streamer *s, struct tw_streamer_stats *st)
{
  *st = s->st;
}

void tw_streamer_reset_stats(struct tw_streamer *s)
{
  memset(&s->st, 0, sizeof s->st);
}
#endif /* TW_CFG_STREAMER_MINIMAL */
