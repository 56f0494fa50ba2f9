/* Synthetic target (see include/tracewire/wire/synth.h). Native byte order:
 * records are host-order words, as a target of the host's endianness would
 * send them. */
#include <string.h>
#include "tracewire/wire/synth.h"
#include "tracewire/error.h"
#include "tracewire/uia.h"
#include "tracewire/vocab.h"
#include "tracewire/events_gen.h"

#define SYNTH_CUSTOM_ID 28 /* the first id events.def leaves to users */
/* Snapshot records are kept small so that names longer than 8 bytes span
 * several (reassembly): 10 header words and 12 data bytes. */
#define SNAP_REC_BYTES (10 * 4 + 12)
_Static_assert(TW_SYNTH_MIN_PKT_BYTES == TW_EVPKT_HDR_BYTES + SNAP_REC_BYTES + TW_FOOTER_BYTES,
               "the minimum packet holds one snapshot record");
_Static_assert(4 * (4 + 9) <= SNAP_REC_BYTES, "and any event record (event())");
static const char custom_decl[] = "Sensor channel:U8 level:U16 raw:U32";

static uint32_t rnd(struct tw_synth *g)
{
  g->rng ^= g->rng << 13;
  g->rng ^= g->rng >> 17;
  g->rng ^= g->rng << 5;
  return g->rng;
}

int tw_synth_init(struct tw_synth *g, const struct tw_synth_cfg *cfg)
{
  int rc = 0;
  memset(g, 0, sizeof *g);
  if (cfg)
    g->cfg = *cfg;
  if (!g->cfg.endpoint)
    g->cfg.endpoint = 1;
  if (!g->cfg.instances || g->cfg.instances > TW_SYNTH_MAX_STREAMS)
    g->cfg.instances = 1;
  if (!g->cfg.endpoints || g->cfg.endpoints * g->cfg.instances > TW_SYNTH_MAX_STREAMS)
    g->cfg.endpoints = 1;
  if (!g->cfg.freq_hz)
    g->cfg.freq_hz = 1000000;
  if (g->cfg.pkt_bytes > TW_EVPKT_MAX_BYTES) {
    g->cfg.pkt_bytes = 1024;
    rc = TW_ERANGE;
  } else if (!g->cfg.pkt_bytes) {
    g->cfg.pkt_bytes = 1024;
  } else if (g->cfg.pkt_bytes < TW_SYNTH_MIN_PKT_BYTES) {
    g->cfg.pkt_bytes = TW_SYNTH_MIN_PKT_BYTES; /* below, no record fits */
    rc = TW_ERANGE;
  }
  if (!g->cfg.drop_count)
    g->cfg.drop_count = 3;
  g->rng = g->cfg.seed ? g->cfg.seed : 0x2545F491u;
  g->ticks = g->cfg.start_ticks ? g->cfg.start_ticks : 1000;
  return rc;
}

struct out {
  uint8_t *p, *end;
};

static int room(const struct out *o, size_t words) { return (size_t)(o->end - o->p) >= 4 * words; }

static void put_words(struct out *o, const uint32_t *w, size_t n)
{
  memcpy(o->p, w, 4 * n);
  o->p += 4 * n;
}

static int sink(void *ctx, const uint32_t *words, size_t n)
{
  struct out *o = ctx;
  if (!room(o, n))
    return -1;
  put_words(o, words, n);
  return 0;
}

static int event(struct tw_synth *g, struct out *o, unsigned inst, uint16_t id, uint16_t module,
                 const uint32_t *payload, size_t n)
{
  uint32_t rec[4 + 9], p32[9];
  /* ts32: a timed event as the kernel logger leaves it, the low 32 bits of
   * the clock as the first payload word and no 64-bit timestamp */
  int ts32 = g->cfg.ts32 && module != TW_MOD_CONTROL && n < 9;
  if (ts32) {
    p32[0] = (uint32_t)g->ticks;
    memcpy(p32 + 1, payload, 4 * n);
    payload = p32;
    n++;
  }
  if (!room(o, 4 + n))
    return 0;
  int w = tw_record_encode(rec, 13, g->ev_seq[inst]++, !ts32, g->ticks, id, module, payload, n);
  put_words(o, rec, (size_t)w);
  g->events++;
  return 1;
}

/* Pack field values by the descriptor (the events.def packing rule). */
static size_t pack(const struct tw_event_desc *d, const uint32_t *v, uint32_t *w)
{
  memset(w, 0, 4 * d->payload_words);
  for (unsigned i = 0; i < d->nfields; i++) {
    const struct tw_field_desc *f = &d->fields[i];
    if (f->type == TW_FT_STRING)
      continue;
    uint32_t m = f->bits >= 32 ? 0xFFFFFFFFu : (1u << f->bits) - 1u;
    w[f->word] |= (v[i] & m) << f->shift;
  }
  return d->payload_words;
}

/* Snapshot records into a packet: the first `skip` went into earlier ones;
 * stops at the first that does not fit. */
struct snap_out {
  struct out *o;
  unsigned skip, put;
};

static int snap_sink(void *ctx, const uint32_t *words, size_t n)
{
  struct snap_out *s = ctx;
  if (s->skip) {
    s->skip--;
    return 0;
  }
  if (sink(s->o, words, n) < 0)
    return -1;
  s->put++;
  return 0;
}

/* A snapshot, continued from where the last packet left it; 1 once its
 * last record is out. Every record is encoded again from the start (they
 * are few and small) so that each keeps its offset and sequence number. */
static int snapshot(struct tw_synth *g, struct out *o, unsigned inst, uint16_t id,
                    const uint32_t *fixed, size_t nfixed, const char *s)
{
  uint8_t data[256];
  size_t n = 4 * nfixed, sl = strlen(s) + 1;
  memcpy(data, fixed, n);
  memcpy(data + n, s, sl);
  n += sl;
  struct tw_synth_snap *ps = &g->pre_snap[inst];
  if (!ps->sent) { /* a new one */
    ps->id = (uint32_t)g->events + 1;
    ps->seq0 = g->ev_seq[inst];
    ps->ticks = g->ticks;
  }
  struct snap_out so = {.o = o, .skip = ps->sent};
  uint32_t seq_out;
  int rc = tw_snapshot_encode(snap_sink, &so, ps->seq0, &seq_out, 1, ps->ticks, id,
                              TW_MOD_CONTROL, 0, 0, ps->id, 0x20000000u, 0, data, n,
                              SNAP_REC_BYTES);
  ps->sent += so.put;
  g->ev_seq[inst] = (uint16_t)(ps->seq0 + ps->sent);
  if (rc)
    return 0; /* out of room: the rest goes into the next packet */
  ps->sent = 0;
  g->events++;
  return 1;
}

static const struct { uint8_t kind, prio; uint16_t number; const char *name; } names[] = {
  {TW_OBJ_TASK, 1, 1, "idle"}, {TW_OBJ_TASK, 5, 2, "sensor_task"}, {TW_OBJ_TASK, 9, 3, "control_loop"},
  {TW_OBJ_MUTEX, 0, 1, "bus_lock"}, {TW_OBJ_SEM, 0, 1, "adc_ready"}, {TW_OBJ_IRQ, 0, 17, "TIM2"},
};

#define NNAMES (sizeof names / sizeof names[0])
enum { PRE_SYNC, PRE_START, PRE_NAMES, PRE_DECL = PRE_NAMES + NNAMES, PRE_DONE };

/* One preamble item (enum above); 0 when it did not fit (whole or, for a
 * snapshot, its rest). */
static int preamble_item(struct tw_synth *g, struct out *o, unsigned inst, unsigned step)
{
  uint32_t v = 0xFFFFFFFFu; /* TRACE_START's mask */
  if (step == PRE_SYNC)
    return event(g, o, inst, TW_EV_SYNC, TW_MOD_CONTROL, &g->cfg.freq_hz, 1);
  if (step == PRE_START)
    return !g->cfg.control || event(g, o, inst, 0x100, TW_MOD_CONTROL, &v, 1);
  if (!g->cfg.names)
    return 1;
  if (step < PRE_DECL) {
    size_t i = step - PRE_NAMES;
    v = names[i].kind | (uint32_t)names[i].prio << 8 | (uint32_t)names[i].number << 16;
    return snapshot(g, o, inst, TW_EV_NAME, &v, 1, names[i].name);
  }
  v = SYNTH_CUSTOM_ID | 1u << 16 | 3u << 24; /* id, timed, nfields */
  return snapshot(g, o, inst, TW_EV_CUSTOM_DECL, &v, 1, custom_decl);
}

/* 1 once the whole preamble of the stream is out. */
static int preamble(struct tw_synth *g, struct out *o, unsigned inst)
{
  while (g->pre_step[inst] < PRE_DONE) {
    if (!preamble_item(g, o, inst, g->pre_step[inst]))
      return 0;
    g->pre_step[inst]++;
  }
  return 1;
}

/* One scripted event: every vocabulary event with a field desc, in turn. */
static int scripted(struct tw_synth *g, struct out *o, unsigned inst)
{
  uint32_t v[8], w[8];
  unsigned k = g->step % 18;
  g->ticks += 1 + rnd(g) % 50;
  if (g->cfg.control && g->step % 400 == 399 && g->restart_step != g->step) {
    v[0] = 1; /* TRACE_STOP reason: application */
    v[1] = 0xFFFFFFFFu;
    if (!room(o, 12) || !event(g, o, inst, 0x101, TW_MOD_CONTROL, v, 1) ||
        !event(g, o, inst, 0x100, TW_MOD_CONTROL, v + 1, 1))
      return 0;
    g->restart_step = g->step;
  }
  if (g->cfg.drop_every && g->events && g->events % g->cfg.drop_every == 0) {
    v[0] = g->cfg.drop_count;
    if (!event(g, o, inst, TW_EV_DROPS, TW_MOD_CONTROL, v, 1))
      return 0;
    g->drops += g->cfg.drop_count;
  }
  if (k == 17) { /* the custom event: channel U8, level U16, raw U32 */
    if (!g->cfg.names) {
      g->step++;
      return 1;
    }
    w[0] = rnd(g) & 7;       /* one word per field (tw_custom_declare) */
    w[1] = rnd(g) & UINT16_MAX; /* level: U16 */
    w[2] = rnd(g);
    if (!event(g, o, inst, SYNTH_CUSTOM_ID, TW_MOD_CUSTOM, w, 3))
      return 0;
    g->step++;
    return 1;
  }
  const struct tw_event_desc *d = tw_event_desc_by_id((uint16_t)(k + 1));
  if (!d)
    return 1;
  for (unsigned i = 0; i < d->nfields; i++) {
    uint32_t r = rnd(g);
    v[i] = d->fields[i].obj == TW_OBJ_TASK ? 1 + r % 3 : d->fields[i].obj != TW_OBJ_NONE ? 1 + r % 2
         : r;
  }
  if (d->marker_field >= 0 && d->nenums && g->cfg.switches &&
      d->fields[d->marker_field].obj == TW_OBJ_TASK) {
    /* a task switch, or an interrupt entered (1 in 4) and then left */
    if (g->in_irq[inst])
      v[d->marker_field] = TW_TASK_SWITCH_LeaveInt;
    else if (rnd(g) % 4 == 0)
      v[d->marker_field] = TW_TASK_SWITCH_EnterInt;
    g->in_irq[inst] = v[d->marker_field] == TW_TASK_SWITCH_EnterInt;
  } else if (d->marker_field >= 0 && d->nenums) {
    v[d->marker_field] = d->enums[rnd(g) % d->nenums].value;
  }
  size_t n = pack(d, v, w);
  if (!event(g, o, inst, d->id, d->module, w, n))
    return 0;
  g->step++;
  return 1;
}

size_t tw_synth_packet(struct tw_synth *g, uint8_t *buf, size_t cap)
{
  size_t len = cap < g->cfg.pkt_bytes ? cap : g->cfg.pkt_bytes;
  len &= ~(size_t)3;
  if (len < TW_SYNTH_MIN_PKT_BYTES)
    return 0; /* not even the header, one record and the footer */
  unsigned inst = g->next_inst++ % (g->cfg.instances * g->cfg.endpoints);
  struct out o = { buf + TW_EVPKT_HDR_BYTES, buf + len - TW_FOOTER_BYTES };
  uint16_t first_seq = g->ev_seq[inst];
  if (preamble(g, &o, inst))
    while (scripted(g, &o, inst))
      ;
  uint32_t length = (uint32_t)(o.p - buf) + TW_FOOTER_BYTES;
  tw_pkt_hdr h;
  tw_pkt_init_event(&h, TW_ENDIAN_NATIVE, length, g->pkt_seq[inst]++, 0, 1,
                    inst % g->cfg.instances, TW_ADDR_HOST,
                    (uint16_t)(g->cfg.endpoint + inst / g->cfg.instances));
  tw_pkt_set_event_seq(&h, first_seq & 0x3FFFu);
  memcpy(buf, &h, sizeof h);
  tw_store_be32(o.p, tw_pkt_footer(length));
  g->packets++;
  return length;
}
