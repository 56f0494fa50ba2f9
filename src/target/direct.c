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
 * is the packing: one event per packet, and the control records due
 * before an event (a SYNC, carrying its time; the DROPS of the events
 * lost before it) in a packet of their own just before it.
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
/* the largest packet: SYNC, DROPS and a 4-word event, or a NAME record */
#define EV_PKT_WORDS (2u * CTL_WORDS + 4u + 3u)
#define NAME_PKT_WORDS (11u + (TW_CFG_NAME_MAX + 3u) / 4u)
#define PKT_MAX_WORDS (PKT_HDR_WORDS + 1u + (EV_PKT_WORDS > NAME_PKT_WORDS ? EV_PKT_WORDS : NAME_PKT_WORDS))

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

/* A packet built in words (header first, footer last) before it is
 * copied into the channel in one go: the channel's mask and the room
 * check are paid once a packet rather than once a word. */
struct pkt {
  uint32_t n;            /* words so far */
  uint16_t first_seq;
  uint32_t w[PKT_MAX_WORDS];
};

__attribute__((always_inline)) static inline void pkt_open(struct pkt *p)
{
  p->n = PKT_HDR_WORDS; /* the header is written at close, with the length */
  p->first_seq = d.ev_seq;
}

/* A record's first words: EventHdr, 64-bit time, id word. */
__attribute__((always_inline)) static inline void rec_head(struct pkt *p, uint32_t type,
                                                          uint32_t words, uint64_t ts, uint32_t idword)
{
  uint32_t *w = p->w + p->n;
  w[0] = tw_evhdr_make(type, words * 4u, d.ev_seq++);
  w[1] = (uint32_t)ts;
  w[2] = (uint32_t)(ts >> 32);
  w[3] = idword;
  p->n += 4u;
}

static void control(struct pkt *p, uint16_t id, uint64_t ts, uint32_t v)
{
  rec_head(p, TW_REC_EVENT_TS, CTL_WORDS, ts, (uint32_t)id << 16 | TW_MOD_CONTROL);
  p->w[p->n++] = v;
}

/* A packet's first header word (wire image), for its length. */
static uint32_t hdr_word(uint32_t len)
{
#if TW_CFG_MIN_EVENT_PKT
  return tw_htobe32((uint32_t)TW_PKT_MIN_EVENT << 28 | (uint32_t)TW_ENDIAN_NATIVE << 27 |
                    (d.endpoint & 0x1Fu) << 22 | len);
#else
  return tw_htobe32((uint32_t)TW_PKT_EVENT << 28 | (uint32_t)TW_ENDIAN_NATIVE << 27 | len);
#endif
}

/* Room for `bytes` at the write offset wr, as the channel's mode says:
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

/* Header and footer, then into the channel: 1, or 0 when it does not fit
 * (nothing written). Interrupts locked. */
static int pkt_close(struct pkt *p)
{
  uint32_t len = (p->n + 1u) * 4u, wr = d.ch->wr;
  if (!room(wr, len))
    return 0;
  p->w[p->n] = tw_htobe32(len << 16 | TW_FOOTER_MAGIC);
  p->w[0] = hdr_word(len);
#if !TW_CFG_MIN_EVENT_PKT
  p->w[2] = 0; /* logger module and instance 0 */
  p->w[3] = tw_htobe32((uint32_t)TW_ADDR_HOST << 16 | d.endpoint);
#endif
  p->w[1] = tw_htobe32((uint32_t)d.pkt_seq++ << 16 | (p->first_seq & 0x3FFFu) << 2);
  uint32_t *dst = d.buf + wr / 4u, *end = d.buf + d.size / 4u;
  const uint32_t *src = p->w, *last = p->w + p->n;
  do {
    *dst++ = *src;
    if (dst == end)
      dst = d.buf; /* the channel wraps */
  } while (src++ != last);
  /* release: the whole packet is in RAM before the host sees it */
  __atomic_store_n(&d.ch->wr, (uint32_t)(dst - d.buf) * 4u, __ATOMIC_RELEASE);
  d.st.packets++;
  d.st.bytes += len;
  return 1;
}

__attribute__((always_inline)) static inline void read_clock(void)
{
  uint32_t lo = tw__port_timestamp_inline();
  d.now += lo - d.now_lo;
  d.now_lo = lo;
}

/* The SYNC and DROPS due before the next event, in a packet of their own:
 * 1 when nothing was due or it is written, 0 when it did not fit. */
static int put_due(uint64_t ts)
{
  int sync = d.now_lo - d.last_sync >= d.sync_ticks;
  if (!sync && !d.lost)
    return 1;
  struct pkt p;
  pkt_open(&p);
  if (sync)
    control(&p, TW_EV_SYNC, ts, d.freq);
  if (d.lost) {
    control(&p, TW_EV_DROPS, ts, d.lost);
    d.ev_seq = (uint16_t)(d.ev_seq + d.lost); /* skip exactly the lost */
  }
  if (!pkt_close(&p)) {
    d.ev_seq = p.first_seq;
    return 0;
  }
  if (sync)
    d.last_sync = d.now_lo;
  d.lost = 0;
  return 1;
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
  struct tw_rtt_chan *c = d.ch;
  uint32_t wr = c->wr, rd = __atomic_load_n(&c->rd, __ATOMIC_ACQUIRE);
  uint32_t len = (PKT_HDR_WORDS + 4u + n) * 4u, mod = TW_EVW_MODULE(ew);
  if (!d.lost && d.now_lo - d.last_sync < d.sync_ticks && wr + len <= d.size && rd < d.size &&
      ((rd - wr - 1u) & (d.size - 1u)) >= len) {
    /* the usual event: nothing due before it, room at once, no wrap: its
     * words straight into the channel at fixed offsets */
    uint32_t *q = d.buf + wr / 4u;
    q[0] = hdr_word(len);
    q[1] = tw_htobe32((uint32_t)d.pkt_seq++ << 16 | (d.ev_seq & 0x3FFFu) << 2);
#if !TW_CFG_MIN_EVENT_PKT
    q[2] = 0;
    q[3] = tw_htobe32((uint32_t)TW_ADDR_HOST << 16 | d.endpoint);
#endif
    q += PKT_HDR_WORDS;
    q[0] = tw_evhdr_make(TW_REC_EVENT_TS, (3u + n) * 4u, d.ev_seq++);
    q[1] = (uint32_t)ts;
    q[2] = (uint32_t)(ts >> 32);
    q[3] = id << 16 | mod;
    for (uint32_t k = 1; k < n; k++)
      q[3u + k] = w[k];
    q[3u + n] = tw_htobe32(len << 16 | TW_FOOTER_MAGIC);
    /* release: the whole packet is in RAM before the host sees it */
    __atomic_store_n(&c->wr, (wr + len) & (d.size - 1u), __ATOMIC_RELEASE);
    d.st.events++;
    d.st.packets++;
    d.st.bytes += len;
    return;
  }
  struct pkt p;
  if (put_due(ts)) {
    pkt_open(&p);
    rec_head(&p, TW_REC_EVENT_TS, 3u + n, ts, id << 16 | mod);
    for (uint32_t k = 1; k < n; k++)
      p.w[p.n++] = w[k];
    if (pkt_close(&p)) {
      d.st.events++;
      return;
    }
    d.ev_seq = p.first_seq; /* its sequence number unused */
  }
  d.lost++; /* announced by the next DROPS */
  d.st.drops++;
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

void tw__trace_put_stamped(uint16_t id, const uint32_t *words, uint32_t n)
{
  uint32_t key = tw__port_irq_lock_inline();
  put_event(id, words, n, 1);
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

/* The NAME packet of entry e. */
static void name_pkt(struct pkt *p, const struct tw_name_entry *e)
{
  uint32_t len = 0;
  while (e->name[len])
    len++;
  pkt_open(p);
  rec_head(p, TW_REC_SNAPSHOT_TS, 11u + (len + 3u) / 4u, d.now,
           (uint32_t)TW_EV_NAME << 16 | TW_MOD_CONTROL);
  uint32_t *w = p->w + p->n;
  w[0] = 0;                          /* file */
  w[1] = 0;                          /* line */
  w[2] = d.snap_id++;
  w[3] = 0;                          /* address */
  w[4] = (4u + len) << 16 | (4u + len);
  w[5] = 0;                          /* format */
  w[6] = (uint32_t)e->kind | (uint32_t)e->prio << 8 | (uint32_t)e->number << 16;
  p->n += 7u;
  for (uint32_t i = 0; i < len; i += 4) {
    uint32_t v = 0;
    for (uint32_t k = 0; k < 4u && i + k < len; k++)
      ((uint8_t *)&v)[k] = (uint8_t)e->name[i + k]; /* the bytes in memory order */
    p->w[p->n++] = v;
  }
}

int tw_direct_start(uint32_t mask)
{
  if (!d.ch)
    return TW_EINVAL;
  uint32_t key = tw__port_irq_lock_inline(), n = tw_name_count();
  struct pkt p;
  read_clock();
  pkt_open(&p);
  control(&p, TW_EV_SYNC, d.now, d.freq); /* the clock first */
  if (!d.running)
    control(&p, TW_EV_TRACE_START, d.now, mask);
  int ok = pkt_close(&p);
  if (ok) {
    d.last_sync = d.now_lo;
    d.running = 1;
    __atomic_store_n(&tw_trace_mask, mask, __ATOMIC_RELAXED);
  }
  for (uint32_t i = 0; ok && i < n; i++) {
    name_pkt(&p, tw_name_at(i));
    ok = pkt_close(&p);
  }
  if (!ok) /* what was written stays; a start again repeats SYNC and names */
    d.ev_seq = p.first_seq;
  tw__port_irq_unlock_inline(key);
  return ok ? 0 : TW_EBUSY;
}

int tw_direct_stop(uint32_t reason)
{
  __atomic_store_n(&tw_trace_mask, 0u, __ATOMIC_RELAXED);
  if (!d.running)
    return 0;
  uint32_t key = tw__port_irq_lock_inline();
  struct pkt p;
  read_clock();
  pkt_open(&p);
  control(&p, TW_EV_TRACE_STOP, d.now, reason);
  int ok = pkt_close(&p);
  if (ok)
    d.running = 0;
  else
    d.ev_seq = p.first_seq;
  tw__port_irq_unlock_inline(key);
  return ok ? 0 : TW_EBUSY;
}

void tw_direct_stats(struct tw_direct_stats *st)
{
  *st = d.st;
}

#endif /* TW_CFG_DIRECT */
