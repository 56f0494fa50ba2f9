/*
 * Round-trip properties: random field values -> encode -> bytes -> decode
 * gives the same values, for every packet header type and every record
 * layout, TW_RT_CASES (default 100,000) cases each. The PRNG seed is
 * printed; rerun a failure with TW_SEED=<seed>.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "tracewire/uia.h"

static uint64_t rng_state;
static unsigned long cases = 100000;

/* splitmix64: tiny, full-period, good enough to pick field values */
static uint64_t rnd64(void)
{
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static uint32_t rnd(uint32_t bits) { return (uint32_t)rnd64() & (bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u); }
/* a multiple of 4 in [lo, hi] */
static uint32_t rnd_len(uint32_t lo, uint32_t hi)
{
  return lo + 4 * (uint32_t)(rnd64() % ((hi - lo) / 4 + 1));
}
/* Lengths near both ends are where bugs live: bias a quarter of the cases. */
static uint32_t rnd_len_biased(uint32_t lo, uint32_t hi)
{
  switch (rnd(3)) {
  case 0: return lo + 4 * rnd(2) > hi ? lo : lo + 4 * rnd(2);
  case 1: return hi - 4 * rnd(2) < lo ? hi : hi - 4 * rnd(2);
  default: return rnd_len(lo, hi);
  }
}

static uint8_t big[0x10000];

static int setup(void **state)
{
  (void)state;
  const char *s = getenv("TW_SEED");
  rng_state = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
  const char *c = getenv("TW_RT_CASES");
  if (c)
    cases = strtoul(c, NULL, 0);
  printf("test_uia_roundtrip: seed %llu, %lu cases per type (rerun: TW_SEED=%llu)\n",
         (unsigned long long)rng_state, cases, (unsigned long long)rng_state);
  return 0;
}

/* Header image to bytes, random first/last payload word, footer. */
static void frame(const tw_pkt_hdr *h, uint32_t hbytes, uint32_t len, int footer)
{
  memcpy(big, h, hbytes < 16 ? hbytes : 16);
  if (len >= hbytes + 8) {
    tw_store_le32(big + hbytes, 0x5A5A5A5A);
    tw_store_le32(big + len - 8, 0xA5A5A5A5);
  }
  if (footer)
    tw_store_be32(big + len - 4, tw_pkt_footer(len));
}

#define EQ(a, b) do { if ((uint64_t)(a) != (uint64_t)(b)) {                         \
    print_error("case %lu: %s = 0x%llx, expected 0x%llx\n", i, #a,                 \
                (unsigned long long)(a), (unsigned long long)(b)); fail(); } } while (0)

static void test_rt_msg(void **state)
{
  (void)state;
  for (unsigned long i = 0; i < cases; i++) {
    uint32_t e = rnd(1), type = rnd(4), len = rnd_len_biased(20, 2044), svc = rnd(12);
    uint32_t seq = rnd(16), cmd = rnd(16), tag = rnd(32), dest = rnd(16), src = rnd(16);
    tw_pkt_hdr h;
    tw_pkt_init_msg(&h, (enum tw_endian)e, (enum tw_msg_type)type, len, svc, seq, cmd, tag, dest, src);
    frame(&h, 16, len, 1);
    struct tw_pkt p;
    EQ(tw_pkt_parse(big, len, 0, &p), len);
    EQ(p.hdr_type, TW_PKT_MSG);
    EQ(p.endian, e);
    EQ(p.payload_len, len - 20);
    EQ(tw_pkt_get_msg_type(&p.hdr), type);
    EQ(tw_pkt_get_msg_length(&p.hdr), len);
    EQ(tw_pkt_get_service_id(&p.hdr), svc);
    EQ(tw_pkt_get_seq(&p.hdr), seq);
    EQ(tw_pkt_get_cmd_id(&p.hdr), cmd);
    EQ(tw_pkt_get_tag(&p.hdr), tag);
    EQ(tw_pkt_get_dest(&p.hdr), dest);
    EQ(tw_pkt_get_src(&p.hdr), src);
  }
}

static void rt_event(int with_crc)
{
  uint32_t hb = with_crc ? 20 : 16;
  for (unsigned long i = 0; i < cases; i++) {
    uint32_t e = rnd(1), len = rnd_len_biased(hb + 4, 0xFFFC), seq = rnd(16), evseq = rnd(14);
    uint32_t pri = rnd(2), dyn = rnd(1), inst = rnd(15), mod = rnd(16), dest = rnd(16);
    uint32_t src = rnd(16), crc = rnd(16);
    tw_pkt_hdr h;
    tw_pkt_init_event(&h, (enum tw_endian)e, len, seq, pri, mod, inst, dest, src);
    tw_pkt_set_event_seq(&h, evseq);
    tw_pkt_set_logger_dynamic(&h, dyn);
    if (with_crc)
      tw_pkt_set_hdr_type(&h, TW_PKT_EVENT_WITH_CRC);
    frame(&h, hb, len, 1);
    if (with_crc)
      tw_store_be32(big + 16, crc);
    struct tw_pkt p;
    EQ(tw_pkt_parse(big, len, 0, &p), len);
    EQ(p.hdr_type, with_crc ? TW_PKT_EVENT_WITH_CRC : TW_PKT_EVENT);
    EQ(p.endian, e);
    EQ(p.length, len);
    EQ(p.payload_len, len - hb - 4);
    EQ(p.crc, with_crc ? crc : 0);
    EQ(tw_pkt_get_event_length(&p.hdr), len);
    EQ(tw_pkt_get_seq(&p.hdr), seq);
    EQ(tw_pkt_get_event_seq(&p.hdr), evseq);
    EQ(tw_pkt_get_priority(&p.hdr), pri);
    EQ(tw_pkt_get_logger_dynamic(&p.hdr), dyn);
    EQ(tw_pkt_get_logger_instance(&p.hdr), inst);
    EQ(tw_pkt_get_logger_module(&p.hdr), mod);
    EQ(tw_pkt_get_dest(&p.hdr), dest);
    EQ(tw_pkt_get_src(&p.hdr), src);
  }
}
static void test_rt_event(void **state) { (void)state; rt_event(0); }
static void test_rt_event_crc(void **state) { (void)state; rt_event(1); }

static void test_rt_min_event(void **state)
{
  (void)state;
  for (unsigned long i = 0; i < cases; i++) {
    uint32_t e = rnd(1), dev = rnd(5), len = rnd_len_biased(12, 0xFFFC), seq = rnd(16);
    uint32_t evseq = rnd(14), pri = rnd(2);
    tw_pkt_hdr h;
    memset(&h, 0xEE, sizeof h); /* words 3-4 are not part of this header */
    tw_pkt_init_min_event(&h, (enum tw_endian)e, dev);
    tw_pkt_set_min_length(&h, len);
    tw_pkt_set_seq(&h, seq);
    tw_pkt_set_event_seq(&h, evseq);
    tw_pkt_set_priority(&h, pri);
    frame(&h, 8, len, 1);
    struct tw_pkt p;
    EQ(tw_pkt_parse(big, len, 0, &p), len);
    EQ(p.hdr_type, TW_PKT_MIN_EVENT);
    EQ(p.endian, e);
    EQ(p.payload_len, len - 12);
    EQ(p.hdr.word3, 0);
    EQ(p.hdr.word4, 0);
    EQ(tw_pkt_get_min_device(&p.hdr), dev);
    EQ(tw_pkt_get_min_length(&p.hdr), len);
    EQ(tw_pkt_get_seq(&p.hdr), seq);
    EQ(tw_pkt_get_event_seq(&p.hdr), evseq);
    EQ(tw_pkt_get_priority(&p.hdr), pri);
  }
}

static void test_rt_invalid(void **state)
{
  (void)state;
  for (unsigned long i = 0; i < cases; i++) {
    uint32_t len = rnd_len_biased(4, sizeof big);
    tw_pkt_hdr h;
    tw_pkt_set_invalid(&h, len);
    frame(&h, 4, len, 0);
    struct tw_pkt p;
    EQ(tw_pkt_parse(big, len, 0, &p), len);
    EQ(p.hdr_type, TW_PKT_INVALID_DATA);
    EQ(p.length, len);
    EQ(p.payload_len, 0);
  }
}

/* Records: random layout and fields, words in a random sender order. */
static void put(uint8_t *b, size_t i, uint32_t v, enum tw_endian e)
{
  (e == TW_ENDIAN_BIG ? tw_store_be32 : tw_store_le32)(b + 4 * i, v);
}

static void rt_record(int with_ts)
{
  static uint32_t words[512], payload[512];
  for (unsigned long i = 0; i < cases; i++) {
    enum tw_endian e = (enum tw_endian)rnd(1);
    uint32_t seq = rnd(16), id = rnd(16), mod = rnd(16);
    uint64_t ts = rnd64();
    size_t np = rnd(3) == 0 ? rnd64() % (with_ts ? 508 : 510) : rnd(3);
    for (size_t k = 0; k < np; k++)
      payload[k] = rnd(32);
    int n = tw_record_encode(words, 512, seq, with_ts, ts, (uint16_t)id, (uint16_t)mod, payload, np);
    EQ(n, np + (with_ts ? 4 : 2));
    for (int k = 0; k < n; k++)
      put(big, (size_t)k, words[k], e);
    struct tw_record r;
    EQ(tw_record_parse(big, (size_t)n * 4, e, &r), n * 4);
    EQ(r.type, with_ts ? TW_REC_EVENT_TS : TW_REC_EVENT);
    EQ(r.length, n * 4);
    EQ(r.seq, seq);
    EQ(r.has_ts, with_ts);
    EQ(r.ts, with_ts ? ts : 0);
    EQ(r.event_id, id);
    EQ(r.module_id, mod);
    EQ(r.is_snapshot, 0);
    EQ(r.payload_len, np * 4);
    for (size_t k = 0; k < np; k++)
      EQ(tw_record_word(&r, k), payload[k]);
  }
}
static void test_rt_record_plain(void **state) { (void)state; rt_record(0); }
static void test_rt_record_ts(void **state) { (void)state; rt_record(1); }

/* Snapshot records written word by word from the spec 000 layout, and (ti)
 * with the length word as TI's loggers write it: this record's data rounded
 * to whole words in the upper half (= the record's room), the total in the
 * lower. The one pattern both could mean (a record with room for exactly
 * the rounded total, announcing a shorter this_len) reads as TI's
 * (docs/wire-format.md), so the seed cases here leave it out. */
static void rt_snapshot_layout(int with_ts, int ti_arg)
{
  int ti = ti_arg;
  for (unsigned long i = 0; i < cases; i++) {
    enum tw_endian e = (enum tw_endian)rnd(1);
    uint32_t hw = with_ts ? 10 : 8;
    uint32_t room = rnd(2) ? rnd(6) * 4 : (uint32_t)(rnd64() % (512 - hw)) * 4;
    uint32_t this_len = room ? room - rnd(2) : 0; /* up to 3 bytes of padding */
    if (this_len > room) this_len = 0;
    uint32_t total = this_len + rnd(rnd(1) ? 16 : 2);
    if (total > 0xFFFF) total = 0xFFFF;
    if (!ti && total == room && this_len < total)
      total += 4; /* not the pattern that reads as TI's */
    if (ti) { /* a first or middle record (total > room) or a lone one */
      this_len = room;
      total = rnd(1) ? room + 1 + rnd(12) : (room ? room - rnd(2) : 0);
      if (total > 0xFFFF) total = 0xFFFF;
      if (total == room)
        ti = 0; /* both layouts read it the same: the seed's */
    }
    uint32_t seq = rnd(16), id = rnd(16), mod = rnd(16), file = rnd(32), line = rnd(32);
    uint32_t snap = rnd(32), addr = rnd(32), fmt = rnd(32);
    uint64_t ts = rnd64();
    uint32_t len = hw * 4 + room;
    size_t k = 0;
    put(big, k++, tw_evhdr_make(with_ts ? TW_REC_SNAPSHOT_TS : TW_REC_SNAPSHOT, len, seq), e);
    if (with_ts) {
      put(big, k++, (uint32_t)ts, e);
      put(big, k++, (uint32_t)(ts >> 32), e);
    }
    put(big, k++, id << 16 | mod, e);
    put(big, k++, file, e);
    put(big, k++, line, e);
    put(big, k++, snap, e);
    put(big, k++, addr, e);
    put(big, k++, ti ? room << 16 | total : total << 16 | this_len, e);
    put(big, k++, fmt, e);
    for (uint32_t b = 0; b < room; b++)
      big[k * 4 + b] = (uint8_t)(b * 7 + i);
    struct tw_record r;
    EQ(tw_record_parse(big, len, e, &r), len);
    EQ(r.type, with_ts ? TW_REC_SNAPSHOT_TS : TW_REC_SNAPSHOT);
    EQ(r.seq, seq);
    EQ(r.ts, with_ts ? ts : 0);
    EQ(r.event_id, id);
    EQ(r.module_id, mod);
    EQ(r.is_snapshot, 1);
    EQ(r.snap.file, file);
    EQ(r.snap.line, line);
    EQ(r.snap.snap_id, snap);
    EQ(r.snap.address, addr);
    EQ(r.snap.total_len, total);
    EQ(r.snap.this_len, this_len);
    EQ(r.snap.format, fmt);
    EQ(r.snap.ti_layout, ti);
    EQ(r.payload_len, this_len);
    EQ(r.payload - big, hw * 4);
    ti = ti_arg;
  }
}
static void rt_snapshot(int with_ts) { rt_snapshot_layout(with_ts, 0); }
static void test_rt_snapshot(void **state) { (void)state; rt_snapshot(0); }
static void test_rt_snapshot_ts(void **state) { (void)state; rt_snapshot(1); }
static void test_rt_snapshot_ti(void **state) { (void)state; rt_snapshot_layout(0, 1); }
static void test_rt_snapshot_ts_ti(void **state) { (void)state; rt_snapshot_layout(1, 1); }

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rt_msg),
    cmocka_unit_test(test_rt_event),
    cmocka_unit_test(test_rt_event_crc),
    cmocka_unit_test(test_rt_min_event),
    cmocka_unit_test(test_rt_invalid),
    cmocka_unit_test(test_rt_record_plain),
    cmocka_unit_test(test_rt_record_ts),
    cmocka_unit_test(test_rt_snapshot),
    cmocka_unit_test(test_rt_snapshot_ts),
    cmocka_unit_test(test_rt_snapshot_ti),
    cmocka_unit_test(test_rt_snapshot_ts_ti),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
