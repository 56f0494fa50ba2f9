/*
 * wire-demo: the wire format end to end, with no target and no transport.
 *
 * Two simulated cores record a short RTOS scenario (task switches, an
 * interrupt, a mutex handed over under contention, a semaphore): core 1 is
 * little-endian, core 2 big-endian. Each event becomes a UIA record with a
 * 64-bit timestamp, the records are packed into UIA event packets of at
 * most UIAPacket_maxPktLengthInBytes (128) bytes, the packets go to a file,
 * and the file is read back with tw_pkt_parse / tw_record_parse and
 * printed. The event ids, field layouts and enum names come from
 * include/tracewire/events.def through X-macros: nothing here lists events.
 *
 * usage: tw_wire_demo [out.uia]     exit 0 when every event came back intact
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracewire/uia.h"

/* ---- the vocabulary, from events.def ------------------------------------ */

enum demo_ft { U8 = 8, U16 = 16, U32 = 32, ENUM8 = 8 + 0x100, STRING = 0 };

#define TW_EVENT(name, id, module, flags, seed, mf, marker, doc) EV_##name = id,
#define TW_FIELD(ev, field, type, obj, doc)
#define TW_ENUMV(ev, c, value, marker, doc)
enum demo_event_id {
#include "tracewire/events.def"
};
#undef TW_EVENT
#undef TW_FIELD
#undef TW_ENUMV

/* the constants, as EV_<EVENT>_<Constant> */
#define TW_EVENT(name, id, module, flags, seed, mf, marker, doc)
#define TW_FIELD(ev, field, type, obj, doc)
#define TW_ENUMV(ev, c, value, marker, doc) EV_##ev##_##c = value,
enum demo_constant {
#include "tracewire/events.def"
};
#undef TW_EVENT
#undef TW_FIELD
#undef TW_ENUMV

struct ev_name { uint16_t id; const char *seed_name; const char *marker_field; };
static const struct ev_name ev_names[] = {
#define TW_EVENT(name, id, module, flags, seed, mf, marker, doc) { id, seed, #mf },
#define TW_FIELD(ev, field, type, obj, doc)
#define TW_ENUMV(ev, c, value, marker, doc)
#include "tracewire/events.def"
#undef TW_EVENT
#undef TW_FIELD
#undef TW_ENUMV
};

struct field { uint16_t ev; const char *name; int type; };
static const struct field fields[] = {
#define TW_EVENT(name, id, module, flags, seed, mf, marker, doc)
#define TW_FIELD(ev, field, type, obj, doc) { EV_##ev, #field, type },
#define TW_ENUMV(ev, c, value, marker, doc)
#include "tracewire/events.def"
#undef TW_EVENT
#undef TW_FIELD
#undef TW_ENUMV
};

struct enumv { uint16_t ev; const char *name; uint32_t value; };
static const struct enumv enumvs[] = {
#define TW_EVENT(name, id, module, flags, seed, mf, marker, doc)
#define TW_FIELD(ev, field, type, obj, doc)
#define TW_ENUMV(ev, c, value, marker, doc) { EV_##ev, #c, value },
#include "tracewire/events.def"
#undef TW_EVENT
#undef TW_FIELD
#undef TW_ENUMV
};

#define N(a) (sizeof (a) / sizeof (a)[0])
#define MAX_WORDS 8

static const struct ev_name *event_desc(uint16_t id)
{
  static const struct ev_name unknown = { 0, "?", "-" };
  for (size_t i = 0; i < N(ev_names); i++)
    if (ev_names[i].id == id)
      return &ev_names[i];
  return &unknown;
}

static const char *enum_name(uint16_t ev, uint32_t v)
{
  for (size_t i = 0; i < N(enumvs); i++)
    if (enumvs[i].ev == ev && enumvs[i].value == v)
      return enumvs[i].name;
  return NULL;
}

/* The packing rule of docs/wire-format.md "Event payloads": fields in row
 * order from bit 0 of word 0, each aligned to its own width, a field that
 * does not fit in the rest of a word starting the next one. Calls fn for
 * each packed field with its (word, shift, bits); returns the word count. */
typedef void (*field_fn)(void *ctx, size_t k, const struct field *f, unsigned word, unsigned shift,
                         unsigned bits);
static unsigned layout(uint16_t ev, field_fn fn, void *ctx)
{
  unsigned pos = 0;
  size_t k = 0;
  for (size_t i = 0; i < N(fields); i++) {
    const struct field *f = &fields[i];
    unsigned bits = (unsigned)f->type & 0xFFu;
    if (f->ev != ev || bits == 0)
      continue;
    pos = (pos + bits - 1) / bits * bits;
    if (pos % 32 + bits > 32)
      pos = (pos + 31) / 32 * 32;
    fn(ctx, k++, f, pos / 32, pos % 32, bits);
    pos += bits;
  }
  return (pos + 31) / 32;
}

struct pack_ctx { const uint32_t *values; uint32_t *words; };
static void pack_one(void *ctx, size_t k, const struct field *f, unsigned word, unsigned shift,
                     unsigned bits)
{
  struct pack_ctx *c = ctx;
  (void)f;
  uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
  c->words[word] |= (c->values[k] & mask) << shift;
}

struct print_ctx { uint16_t ev; const uint32_t *words; uint32_t *values; char *out; size_t cap; };
static void print_one(void *ctx, size_t k, const struct field *f, unsigned word, unsigned shift,
                      unsigned bits)
{
  struct print_ctx *c = ctx;
  uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
  uint32_t v = (c->words[word] >> shift) & mask;
  if (k < 4)
    c->values[k] = v;
  /* the marker field's values have names (EnterInt, Lock, Take...) */
  const char *en = !strcmp(f->name, event_desc(c->ev)->marker_field) ? enum_name(c->ev, v) : NULL;
  size_t n = strlen(c->out);
  if (en)
    snprintf(c->out + n, c->cap - n, " %s=%s", f->name, en);
  else
    snprintf(c->out + n, c->cap - n, " %s=%u", f->name, (unsigned)v);
}

/* ---- the scenario --------------------------------------------------------- */

struct ev { uint8_t core; uint64_t ts; uint16_t id; uint32_t v[4]; };
static const struct ev script[] = {
  { 1, 1000, EV_TASK_SWITCH, { 1 } },            /* task 1 runs */
  { 1, 1040, EV_MUTEX, { 1, 7, 0 } },            /* task 1 locks mutex 7 */
  { 2, 1100, EV_TASK_SWITCH, { 3 } },            /* core 2: task 3 runs */
  { 1, 1210, EV_TASK_SWITCH, { EV_TASK_SWITCH_EnterInt } }, /* interrupt entered */
  { 1, 1215, EV_SEM, { 2, 1 } },                 /* ISR gives semaphore 2 */
  { 1, 1230, EV_TASK_SWITCH, { EV_TASK_SWITCH_LeaveInt } }, /* interrupt left */
  { 1, 1231, EV_TASK_SWITCH, { 2 } },            /* task 2 preempts */
  { 1, 1250, EV_SEM_TASK, { 2, 2, 1 } },         /* task 2 takes semaphore 2 */
  { 1, 1300, EV_MUTEX, { 2, 7, 4 } },            /* task 2 blocks on mutex 7 */
  { 1, 1301, EV_TASK_SWITCH, { 1 } },
  { 2, 1320, EV_MUTEX, { 3, 9, 0 } },            /* core 2: task 3 locks mutex 9 */
  { 1, 1400, EV_MUTEX, { 1, 7, 1 } },            /* task 1 unlocks mutex 7 */
  { 1, 1401, EV_TASK_SWITCH, { 2 } },            /* task 2 gets it */
  { 1, 1402, EV_MUTEX, { 2, 7, 0 } },
  { 2, 1450, EV_MUTEX, { 3, 9, 1 } },
  { 1, 1500, EV_MUTEX, { 2, 7, 1 } },
  { 2, 1600, EV_TASK_SWITCH, { 4 } },
  { 1, 1700, EV_TASK_SWITCH, { 1 } },
};

/* ---- sender: records into packets ----------------------------------------- */

struct sender {
  uint16_t src;
  enum tw_endian order;     /* the simulated core's byte order */
  uint16_t pkt_seq, ev_seq;
  uint8_t pkt[TW_CFG_MAX_PKT_BYTES];
  size_t fill;              /* bytes of records in pkt */
  uint16_t first_ev_seq;
  FILE *out;
  int packets;
};

static int flush(struct sender *s)
{
  if (!s->fill)
    return 0;
  uint32_t len = (uint32_t)(TW_EVPKT_HDR_BYTES + s->fill + TW_FOOTER_BYTES);
  tw_pkt_hdr h;
  tw_pkt_init_event(&h, s->order, len, s->pkt_seq++, 0, 0x0001, 0, TW_ADDR_HOST, s->src);
  tw_pkt_set_event_seq(&h, s->first_ev_seq);
  memcpy(s->pkt, &h, sizeof h);
  tw_store_be32(s->pkt + TW_EVPKT_HDR_BYTES + s->fill, tw_pkt_footer(len));
  s->fill = 0;
  s->packets++;
  return fwrite(s->pkt, 1, len, s->out) == len ? 0 : -1;
}

static int send_event(struct sender *s, const struct ev *e)
{
  uint32_t payload[MAX_WORDS] = { 0 }, rec[MAX_WORDS + 4];
  struct pack_ctx pc = { e->v, payload };
  unsigned nw = layout(e->id, pack_one, &pc);
  int n = tw_record_encode(rec, N(rec), s->ev_seq, 1, e->ts, e->id, 0x0002, payload, nw);
  if (n < 0)
    return n;
  size_t bytes = (size_t)n * 4;
  if (TW_EVPKT_HDR_BYTES + s->fill + bytes + TW_FOOTER_BYTES > sizeof s->pkt && flush(s))
    return -1;
  if (!s->fill)
    s->first_ev_seq = s->ev_seq;
  for (int i = 0; i < n; i++) /* the core's own byte order */
    (s->order == TW_ENDIAN_BIG ? tw_store_be32 : tw_store_le32)(
        s->pkt + TW_EVPKT_HDR_BYTES + s->fill + 4 * (size_t)i, rec[i]);
  s->fill += bytes;
  s->ev_seq++;
  return 0;
}

/* ---- receiver: packets back into events ------------------------------------ */

/* The k-th event decoded from a core must be the k-th the core sent. */
static int matches_script(unsigned core, int k, uint64_t ts, uint16_t id, const uint32_t *v)
{
  for (size_t i = 0; i < N(script); i++) {
    if (script[i].core != core || k--)
      continue;
    return script[i].ts == ts && script[i].id == id && !memcmp(script[i].v, v, sizeof script[i].v);
  }
  return 0;
}

static int decode_file(const char *path, int *events)
{
  int seen[3] = { 0 };
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  static uint8_t buf[1 << 16];
  size_t len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  size_t off = 0;
  int pkt_no = 0;
  while (off < len) {
    struct tw_pkt p;
    int rc = tw_pkt_parse(buf + off, len - off, TW_CFG_MAX_PKT_BYTES, &p);
    if (rc < 0) {
      fprintf(stderr, "%s: packet %d at byte %zu: %s\n", path, pkt_no, off, tw_strerror(rc));
      return -1;
    }
    printf("packet %d: src %u seq %u, %u bytes, payload %s-endian\n", pkt_no,
           (unsigned)tw_pkt_get_src(&p.hdr), (unsigned)tw_pkt_get_seq(&p.hdr), (unsigned)p.length,
           p.endian == TW_ENDIAN_BIG ? "big" : "little");
    size_t roff = 0;
    while (roff < p.payload_len) {
      struct tw_record r;
      int rn = tw_record_parse(p.payload + roff, p.payload_len - roff, p.endian, &r);
      if (rn < 0) {
        fprintf(stderr, "%s: packet %d at byte %zu, record at payload byte %zu: %s\n", path,
                pkt_no, off, roff, tw_strerror(rn));
        return -1;
      }
      uint32_t words[MAX_WORDS] = { 0 };
      for (size_t i = 0; i < r.payload_len / 4 && i < MAX_WORDS; i++)
        words[i] = tw_record_word(&r, i);
      char line[160] = "";
      uint32_t values[4] = { 0 };
      struct print_ctx pc = { r.event_id, words, values, line, sizeof line };
      layout(r.event_id, print_one, &pc);
      unsigned core = (unsigned)tw_pkt_get_src(&p.hdr);
      printf("  core %u  t=%-6llu seq %-3u %-14s%s\n", core, (unsigned long long)r.ts,
             (unsigned)r.seq, event_desc(r.event_id)->seed_name, line);
      if (core < 1 || core > 2 || !matches_script(core, seen[core]++, r.ts, r.event_id, values)) {
        fprintf(stderr, "%s: packet %d, record %u of core %u differs from what was sent\n", path,
                pkt_no, (unsigned)r.seq, core);
        return -1;
      }
      roff += (size_t)rn;
      (*events)++;
    }
    off += (size_t)rc;
    pkt_no++;
  }
  return 0;
}

int main(int argc, char **argv)
{
  const char *path = argc > 1 ? argv[1] : "wire-demo.uia";
  FILE *out = fopen(path, "wb");
  if (!out) {
    perror(path);
    return 1;
  }
  struct sender cores[2] = {
    { .src = 1, .order = TW_ENDIAN_LITTLE, .out = out },
    { .src = 2, .order = TW_ENDIAN_BIG, .out = out },
  };
  for (size_t i = 0; i < N(script); i++)
    if (send_event(&cores[script[i].core - 1], &script[i])) {
      fprintf(stderr, "wire-demo: encoding event %zu failed\n", i);
      return 1;
    }
  if (flush(&cores[0]) || flush(&cores[1]) || fclose(out)) {
    perror(path);
    return 1;
  }
  printf("wire-demo: %zu events -> %d UIA event packets (<= %d bytes each) in %s\n\n", N(script),
         cores[0].packets + cores[1].packets, TW_CFG_MAX_PKT_BYTES, path);
  int events = 0;
  if (decode_file(path, &events))
    return 1;
  if (events != (int)N(script)) {
    fprintf(stderr, "wire-demo: decoded %d events, expected %zu\n", events, N(script));
    return 1;
  }
  printf("\nwire-demo: all %d events decoded intact\n", events);
  return 0;
}
