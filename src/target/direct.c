/*
 * Direct recording (include/tracewire/direct.h): with TW_CFG_DIRECT=1 this
 * file provides the emitters' hooks (tw__trace_put_now, tw__trace_put,
 * tw_trace_now) in place of the kernel event logger, and writes every
 * event as a packet of its own into an RTT up channel.
 *
 * One lock, held for the whole packet: it reads the clock (so stream time
 * never steps back between packets), assigns the sequence numbers, checks
 * the room and writes the words. The channel's buffer is a power of two of
 * 4-byte words, so a word lands at buf[wr / 4] and wr advances by masking;
 * the write offset is published with release once the packet is whole, so
 * a host never sees part of one (the RTT ordering of src/target/rtt.c: the
 * host's read offset with acquire before its bytes are reused).
 *
 * Packets carry records exactly as the streamer writes them; what differs
 * is the packing (one event per packet) and where the control records
 * ride: a SYNC due rides in front of the next event, carrying its time,
 * then the DROPS record for the events lost before it, then the event.
 */
#include "tracewire/direct.h"

#if TW_CFG_DIRECT
#include "tracewire/events_gen.h"
#include "tracewire/port.h"
#include "tracewire/trace.h"
#include "tracewire/uia.h"

_Static_assert(!TW_CFG_CUSTOM_DECLS, "direct recording needs TW_CFG_CUSTOM_DECLS=0");

#if TW_CFG_MIN_EVENT_PKT
#define PKT_HDR_WORDS 2u
#else
#define PKT_HDR_WORDS 4u
#endif
#define CTL_WORDS 5u /* EventHdr, timestamp, id word, value */

static struct {
  struct tw_rtt_chan *ch;
  uint32_t *buf;
  uint32_t size;         /* bytes, a power of two */
  uint64_t now;          /* the clock extended to 64 bits */
  uint32_t now_lo;       /* its low word at the last reading */
  uint32_t last_sync;    /* the clock's low word at the last SYNC */
  uint32_t sync_ticks;
  uint32_t freq;
  uint32_t lost;         /* events not yet announced by a DROPS record */
  uint32_t snap_id;
  uint16_t ev_seq, pkt_seq, endpoint;
  uint8_t running;
  struct tw_direct_stats st;
} d;

/* A packet being written at wr (bytes); first: its first word's offset. */
struct pw {
  uint32_t wr, first;
};

static void w32(struct pw *p, uint32_t v)
{
  d.buf[p->wr / 4u] = v;
  p->wr = (p->wr + 4u) & (d.size - 1u);
}

/* Room for `bytes` at the write offset, as the channel's mode says:
 * 1 when the packet may be written. */
static int room(uint32_t wr, uint32_t bytes)
{
  struct tw_rtt_chan *c = d.ch;
  uint32_t mode = c->flags & TW_RTT_MODE_MASK;
  for (;;) {
    /* acquire: the host has read what lies below rd before it moved it */
    uint32_t rd = __atomic_load_n(&c->rd, __ATOMIC_ACQUIRE);
    if (rd >= d.size || rd % 4u)
      rd = wr; /* nonsense from the host: take the channel as drained */
    if (((rd - wr - 1u) & (d.size - 1u)) >= bytes)
      return 1;
    if (mode == TW_RTT_OVERWRITE) {
      /* post-mortem: drop the oldest words, keep the newest */
      __atomic_store_n(&c->rd, (wr + bytes + 4u) & (d.size - 1u), __ATOMIC_RELEASE);
      return 1;
    }
    if (mode != TW_RTT_BLOCK)
      return 0;
  }
}

/* Open a packet of `words` words (header and footer included) or return 0
 * when it does not fit. */
static int open_pkt(struct pw *p, uint32_t words)
{
  p->wr = p->first = d.ch->wr;
  if (!room(p->wr, words * 4u))
    return 0;
  p->wr = (p->wr + PKT_HDR_WORDS * 4u) & (d.size - 1u); /* header at close */
  return 1;
}

static void close_pkt(struct pw *p, uint32_t words, uint16_t first_seq)
{
  uint32_t len = words * 4u, at = p->first;
  w32(p, tw_htobe32(len << 16 | TW_FOOTER_MAGIC));
#if TW_CFG_MIN_EVENT_PKT
  d.buf[at / 4u] = tw_htobe32((uint32_t)TW_PKT_MIN_EVENT << 28 | (uint32_t)TW_ENDIAN_NATIVE << 27 |
                              (d.endpoint & 0x1Fu) << 22 | len);
#else
  d.buf[at / 4u] = tw_htobe32((uint32_t)TW_PKT_EVENT << 28 | (uint32_t)TW_ENDIAN_NATIVE << 27 | len);
  d.buf[((at + 8u) & (d.size - 1u)) / 4u] = tw_htobe32(0); /* logger module/instance 0 */
  d.buf[((at + 12u) & (d.size - 1u)) / 4u] = tw_htobe32((uint32_t)TW_ADDR_HOST << 16 | d.endpoint);
#endif
  d.buf[((at + 4u) & (d.size - 1u)) / 4u] =
      tw_htobe32((uint32_t)d.pkt_seq++ << 16 | (first_seq & 0x3FFFu) << 2);
  /* release: the whole packet is in RAM before the host sees it */
  __atomic_store_n(&d.ch->wr, p->wr, __ATOMIC_RELEASE);
  d.st.packets++;
  d.st.bytes += len;
}

/* A record's first words: EventHdr, 64-bit time, id word. */
static void rec_head(struct pw *p, uint32_t type, uint32_t words, uint64_t ts, uint32_t idword)
{
  w32(p, tw_evhdr_make(type, words * 4u, d.ev_seq++));
  if (type & 1u) { /* the _TS types */
    w32(p, (uint32_t)ts);
    w32(p, (uint32_t)(ts >> 32));
  }
  w32(p, idword);
}

static void control(struct pw *p, uint16_t id, uint64_t ts, uint32_t v)
{
  rec_head(p, TW_REC_EVENT_TS, CTL_WORDS, ts, (uint32_t)id << 16 | TW_MOD_CONTROL);
  w32(p, v);
}

static void read_clock(void)
{
  uint32_t lo = tw__port_timestamp_inline();
  d.now += lo - d.now_lo;
  d.now_lo = lo;
}

/* One event: id, n words, w[0] its timestamp (stamp = 0) or the clock's
 * (stamp = 1, w[0] unused). Interrupts locked by the caller. */
static void put_event(uint32_t id, const uint32_t *w, uint32_t n, int stamp)
{
  uint32_t ew = tw_event_wire(id);
  if (!d.ch || !ew || !(TW_EVW_FLAGS(ew) & TW_EVF_TIMED) || n < 1u || n > 4u)
    return; /* the vocabulary's timed events only (custom events are not built) */
  read_clock();
  uint64_t ts = d.now;
  if (!stamp) { /* the 64-bit time nearest the clock with these low bits */
    int32_t dt = (int32_t)(w[0] - d.now_lo);
    ts = dt < 0 && (uint64_t)-(int64_t)dt > d.now ? 0 : d.now + (uint64_t)(int64_t)dt;
  }
  int sync = d.now_lo - d.last_sync >= d.sync_ticks;
  uint32_t rec = 3u + n, words = PKT_HDR_WORDS + rec + 1u + (sync ? CTL_WORDS : 0u) +
                 (d.lost ? CTL_WORDS : 0u);
  struct pw p;
  if (!open_pkt(&p, words)) {
    d.lost++;
    d.st.drops++;
    return;
  }
  uint16_t first = d.ev_seq;
  if (sync) {
    control(&p, TW_EV_SYNC, ts, d.freq);
    d.last_sync = d.now_lo;
  }
  if (d.lost) {
    control(&p, TW_EV_DROPS, ts, d.lost);
    d.ev_seq = (uint16_t)(d.ev_seq + d.lost); /* skip exactly the lost */
    d.lost = 0;
  }
  rec_head(&p, TW_REC_EVENT_TS, rec, ts, id << 16 | TW_EVW_MODULE(ew));
  for (uint32_t k = 1; k < n; k++)
    w32(&p, w[k]);
  close_pkt(&p, words, first);
  d.st.events++;
}

void tw__trace_put_now(uint32_t hdr, uint32_t a, uint32_t b)
{
  uint32_t w[3] = { 0, a, b };
  uint32_t key = tw__port_irq_lock_inline();
  put_event(hdr >> 16, w, hdr & 0xFFu, 1);
  tw__port_irq_unlock_inline(key);
}

void tw__trace_put(uint16_t id, const uint32_t *words, uint32_t n)
{
  uint32_t key = tw__port_irq_lock_inline();
  put_event(id, words, n, 0);
  tw__port_irq_unlock_inline(key);
}

uint32_t tw_trace_now(void)
{
  return tw__port_timestamp_inline();
}

int tw_direct_init(const struct tw_direct_cfg *cfg)
{
  if (!cfg || !cfg->rtt || cfg->channel >= TW_CFG_RTT_UP || cfg->sync_ticks > 0x7FFFFFFFu)
    return TW_EINVAL;
  struct tw_rtt_chan *c = &cfg->rtt->up[cfg->channel];
  if (c->size < 256u || (c->size & (c->size - 1u)) || c->buf % 4u || c->wr % 4u)
    return TW_EINVAL;
  d = (__typeof__(d)){ 0 };
  d.ch = c;
  d.buf = (uint32_t *)(uintptr_t)c->buf;
  d.size = c->size;
  d.freq = cfg->freq_hz;
  d.endpoint = cfg->endpoint;
  d.sync_ticks = cfg->sync_ticks ? cfg->sync_ticks : 1u << 30;
  d.now_lo = tw__port_timestamp_inline();
  d.now = d.now_lo;
  return 0;
}

/* Words of the NAME packet of entry e. */
static uint32_t name_words(const struct tw_name_entry *e, uint32_t *len)
{
  *len = 0;
  while (e->name[*len])
    (*len)++;
  return PKT_HDR_WORDS + 11u + (*len + 3u) / 4u + 1u;
}

static void name_pkt(const struct tw_name_entry *e)
{
  uint32_t len, words = name_words(e, &len), rec = words - PKT_HDR_WORDS - 1u;
  struct pw p;
  (void)open_pkt(&p, words); /* the room was checked for all of them */
  uint16_t first = d.ev_seq;
  rec_head(&p, TW_REC_SNAPSHOT_TS, rec, d.now, (uint32_t)TW_EV_NAME << 16 | TW_MOD_CONTROL);
  w32(&p, 0);                          /* file */
  w32(&p, 0);                          /* line */
  w32(&p, d.snap_id++);
  w32(&p, 0);                          /* address */
  w32(&p, (4u + len) << 16 | (4u + len));
  w32(&p, 0);                          /* format */
  w32(&p, (uint32_t)e->kind | (uint32_t)e->prio << 8 | (uint32_t)e->number << 16);
  for (uint32_t i = 0; i < len; i += 4) {
    uint32_t v = 0;
    for (uint32_t k = 0; k < 4u && i + k < len; k++)
      ((uint8_t *)&v)[k] = (uint8_t)e->name[i + k]; /* memory order: the bytes as they are */
    w32(&p, v);
  }
  close_pkt(&p, words, first);
}

int tw_direct_start(uint32_t mask)
{
  if (!d.ch)
    return TW_EINVAL;
  uint32_t key = tw__port_irq_lock_inline(), n = tw_name_count(), len;
  int was = d.running;
  uint32_t words = PKT_HDR_WORDS + CTL_WORDS * (was ? 1u : 2u) + 1u, total = words;
  for (uint32_t i = 0; i < n; i++)
    total += name_words(tw_name_at(i), &len);
  struct pw p;
  if (!open_pkt(&p, total)) {
    tw__port_irq_unlock_inline(key);
    return TW_EBUSY;
  }
  read_clock();
  uint16_t first = d.ev_seq;
  control(&p, TW_EV_SYNC, d.now, d.freq); /* the clock first */
  d.last_sync = d.now_lo;
  if (!was)
    control(&p, TW_EV_TRACE_START, d.now, mask);
  close_pkt(&p, words, first);
  for (uint32_t i = 0; i < n; i++)
    name_pkt(tw_name_at(i));
  d.running = 1;
  __atomic_store_n(&tw_trace_mask, mask, __ATOMIC_RELAXED);
  tw__port_irq_unlock_inline(key);
  return 0;
}

int tw_direct_stop(uint32_t reason)
{
  __atomic_store_n(&tw_trace_mask, 0u, __ATOMIC_RELAXED);
  if (!d.running)
    return 0;
  uint32_t key = tw__port_irq_lock_inline(), words = PKT_HDR_WORDS + CTL_WORDS + 1u;
  struct pw p;
  int ok = open_pkt(&p, words);
  if (ok) {
    read_clock();
    uint16_t first = d.ev_seq;
    control(&p, TW_EV_TRACE_STOP, d.now, reason);
    close_pkt(&p, words, first);
    d.running = 0;
  }
  tw__port_irq_unlock_inline(key);
  return ok ? 0 : TW_EBUSY;
}

void tw_direct_stats(struct tw_direct_stats *st)
{
  *st = d.st;
}

#endif /* TW_CFG_DIRECT */
