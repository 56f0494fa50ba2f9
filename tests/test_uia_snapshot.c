/*
 * Snapshot records: split by tw_snapshot_encode, parsed by tw_record_parse,
 * reassembled by tw_snap_reasm_*; lost records detected from the address
 * field (spec 000: "this field can be used to detect dropped records").
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tracewire/uia.h"

#define MAXREC 64
struct sink {
  int n;
  uint8_t rec[MAXREC][TW_CFG_SNAP_MAX_REC_BYTES];
  size_t len[MAXREC];
  int fail_at; /* return an error at this record (0: never) */
};

static int collect(void *ctx, const uint32_t *words, size_t nwords)
{
  struct sink *s = ctx;
  if (s->fail_at && s->n + 1 == s->fail_at)
    return TW_EIO;
  assert_true(s->n < MAXREC);
  memcpy(s->rec[s->n], words, nwords * 4);
  s->len[s->n++] = nwords * 4;
  return 0;
}

static uint8_t data[1000];

static void fill(void)
{
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t)(i * 31 + 7);
}

static void parse(struct sink *s, int i, struct tw_record *r)
{
  assert_int_equal(tw_record_parse(s->rec[i], s->len[i], TW_ENDIAN_NATIVE, r), (int)s->len[i]);
}

static void test_split_layout(void **state)
{
  (void)state;
  fill();
  static struct sink s;
  memset(&s, 0, sizeof s);
  uint32_t next = 0;
  /* 64-byte records, no timestamp: 32 bytes of header, 32 of data each */
  assert_int_equal(tw_snapshot_encode(collect, &s, 0xFFFE, &next, 0, 0, 0x104, 3, 0xF11E, 77,
                                      9, 0x20001000, 0xF0F0, data, 300, 64), 0);
  assert_int_equal(s.n, 10);
  assert_int_equal(next, 8); /* 0xFFFE + 10, wrapped to 16 bits */
  for (int i = 0; i < s.n; i++) {
    struct tw_record r;
    parse(&s, i, &r);
    uint32_t this_len = i < 9 ? 32 : 300 - 9 * 32;
    assert_int_equal(r.type, TW_REC_SNAPSHOT);
    assert_int_equal(r.seq, (0xFFFEu + (uint32_t)i) & 0xFFFF);
    assert_int_equal(r.event_id, 0x104);
    assert_int_equal(r.module_id, 3);
    assert_int_equal(r.snap.file, 0xF11E);
    assert_int_equal(r.snap.line, 77);
    assert_int_equal(r.snap.snap_id, 9);
    assert_int_equal(r.snap.address, 0x20001000u + 32u * (uint32_t)i);
    assert_int_equal(r.snap.total_len, 300);
    assert_int_equal(r.snap.this_len, this_len);
    assert_int_equal(r.snap.format, 0xF0F0);
    assert_int_equal(r.length, 32 + ((this_len + 3) & ~3u));
    assert_memory_equal(r.payload, data + 32 * i, this_len);
  }
}

static void test_reassemble_with_timestamp(void **state)
{
  (void)state;
  fill();
  static struct sink s;
  memset(&s, 0, sizeof s);
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 1, 0x0123456789ABCDEFull, 0x104, 3,
                                      0, 0, 1, 0x1000, 0, data, 1000, 0), 0);
  /* max_rec_bytes 0 -> the configured maximum: 40-byte header */
  size_t chunk = TW_CFG_SNAP_MAX_REC_BYTES - 40;
  assert_int_equal(s.n, (int)((1000 + chunk - 1) / chunk));
  uint8_t out[1000];
  struct tw_snap_reasm ra;
  tw_snap_reasm_init(&ra, out, sizeof out);
  for (int i = 0; i < s.n; i++) {
    struct tw_record r;
    parse(&s, i, &r);
    assert_int_equal(r.ts, 0x0123456789ABCDEFull);
    int rc = tw_snap_reasm_feed(&ra, &r);
    assert_int_equal(rc, i == s.n - 1 ? 1 : 0);
  }
  assert_int_equal(ra.total, 1000);
  assert_int_equal(ra.snap_id, 1);
  assert_int_equal(ra.event_id, 0x104);
  assert_memory_equal(out, data, 1000);
}

static void test_missing_middle_record(void **state)
{
  (void)state;
  fill();
  static struct sink s;
  memset(&s, 0, sizeof s);
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 0, 0, 1, 1, 0, 0, 5, 0x8000, 0,
                                      data, 200, 64), 0);
  assert_int_equal(s.n, 7);
  uint32_t next = 0;
  assert_int_equal(tw_snapshot_encode(collect, &s, 7, &next, 0, 0, 1, 1, 0, 0, 6, 0x9000, 0,
                                      data + 500, 40, 64), 0);
  assert_int_equal(s.n, 9);
  uint8_t out[256];
  struct tw_snap_reasm ra;
  tw_snap_reasm_init(&ra, out, sizeof out);
  struct tw_record r;
  parse(&s, 0, &r);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 0);
  parse(&s, 1, &r);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 0);
  /* record 2 is lost: record 3's address does not continue record 1 */
  parse(&s, 3, &r);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), TW_ESNAPGAP);
  assert_false(ra.complete);
  /* the rest of snapshot 5 is ignored, not reported again */
  for (int i = 4; i < 7; i++) {
    parse(&s, i, &r);
    assert_int_equal(tw_snap_reasm_feed(&ra, &r), 0);
    assert_false(ra.complete);
  }
  /* snapshot 6 reassembles normally */
  parse(&s, 7, &r);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 0);
  parse(&s, 8, &r);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 1);
  assert_int_equal(ra.snap_id, 6);
  assert_memory_equal(out, data + 500, 40);
}

static void test_missing_last_record_then_new_snapshot(void **state)
{
  (void)state;
  fill();
  static struct sink s;
  memset(&s, 0, sizeof s);
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 0, 0, 1, 1, 0, 0, 5, 0, 0, data, 64, 64), 0);
  assert_int_equal(tw_snapshot_encode(collect, &s, 2, NULL, 0, 0, 1, 1, 0, 0, 6, 0, 0, data + 7, 20, 64), 0);
  assert_int_equal(s.n, 3);
  uint8_t out[256];
  struct tw_snap_reasm ra;
  tw_snap_reasm_init(&ra, out, sizeof out);
  struct tw_record r;
  parse(&s, 0, &r);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 0);
  /* record 1 (end of snapshot 5) lost; snapshot 6 fits one record */
  parse(&s, 2, &r);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), TW_ESNAPGAP);
  assert_true(ra.complete);
  assert_int_equal(ra.snap_id, 6);
  assert_int_equal(ra.total, 20);
  assert_memory_equal(out, data + 7, 20);
}

static void test_reasm_bad_lengths(void **state)
{
  (void)state;
  fill();
  static struct sink s;
  memset(&s, 0, sizeof s);
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 0, 0, 1, 1, 0, 0, 5, 0, 0, data, 100, 64), 0);
  uint8_t small[50];
  struct tw_snap_reasm ra;
  tw_snap_reasm_init(&ra, small, sizeof small);
  struct tw_record r;
  parse(&s, 0, &r);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), TW_ETOOBIG); /* 100 > 50 */
  for (int i = 1; i < s.n; i++) {
    parse(&s, i, &r);
    assert_int_equal(tw_snap_reasm_feed(&ra, &r), 0); /* skipped, never written */
  }
  /* total changes within one id */
  uint8_t out[256];
  tw_snap_reasm_init(&ra, out, sizeof out);
  parse(&s, 0, &r);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 0);
  parse(&s, 1, &r);
  r.snap.total_len = 99;
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), TW_ESNAPLEN);
  /* data beyond total: three records of 32 claim a total of 40 */
  tw_snap_reasm_init(&ra, out, sizeof out);
  for (int i = 0; i < 2; i++) {
    parse(&s, i, &r);
    r.snap.total_len = 40;
    assert_int_equal(tw_snap_reasm_feed(&ra, &r), i == 0 ? 0 : TW_ESNAPLEN);
  }
  /* not a snapshot record */
  uint32_t w[2];
  assert_int_equal(tw_record_encode(w, 2, 0, 0, 0, 1, 1, NULL, 0), 2);
  assert_int_equal(tw_record_parse((const uint8_t *)w, 8, TW_ENDIAN_NATIVE, &r), 8);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), TW_EINVAL);
}

static void test_empty_snapshot_and_encode_errors(void **state)
{
  (void)state;
  static struct sink s;
  memset(&s, 0, sizeof s);
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 0, 0, 1, 1, 0, 0, 5, 0, 0, NULL, 0, 64), 0);
  assert_int_equal(s.n, 1);
  struct tw_record r;
  parse(&s, 0, &r);
  assert_int_equal(r.length, 32);
  assert_int_equal(r.snap.total_len, 0);
  uint8_t out[4];
  struct tw_snap_reasm ra;
  tw_snap_reasm_init(&ra, out, sizeof out);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 1);
  assert_int_equal(ra.total, 0);

  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 0, 0, 1, 1, 0, 0, 5, 0, 0, data, 10, 32),
                   TW_EINVAL); /* 32 bytes: header only, no room for data */
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 1, 0, 1, 1, 0, 0, 5, 0, 0, data, 10, 40),
                   TW_EINVAL);
  static uint8_t huge[0x10000];
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 0, 0, 1, 1, 0, 0, 5, 0, 0, huge,
                                      sizeof huge, 0), TW_ETOOBIG); /* total is 16 bits */
  /* a sink error stops the split and is returned */
  memset(&s, 0, sizeof s);
  s.fail_at = 3;
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 0, 0, 1, 1, 0, 0, 5, 0, 0, data, 300, 64),
                   TW_EIO);
  assert_int_equal(s.n, 2);
}

/* Snapshot data is a byte string, not words: a big-endian target's records
 * carry header words big-endian and data bytes in memory order. */
static void test_big_endian_snapshot(void **state)
{
  (void)state;
  fill();
  static struct sink s;
  memset(&s, 0, sizeof s);
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 0, 0, 0x104, 3, 0, 0, 5, 0x40, 0,
                                      "task-main", 9, 64), 0);
  assert_int_equal(s.n, 1);
  uint8_t be[64];
  uint32_t w;
  for (int k = 0; k < 8; k++) {
    memcpy(&w, s.rec[0] + 4 * k, 4);
    tw_store_be32(be + 4 * k, w);
  }
  memcpy(be + 32, s.rec[0] + 32, s.len[0] - 32);
  struct tw_record r;
  assert_int_equal(tw_record_parse(be, s.len[0], TW_ENDIAN_BIG, &r), 44);
  assert_int_equal(r.event_id, 0x104);
  assert_int_equal(r.snap.address, 0x40);
  assert_int_equal(r.snap.this_len, 9);
  assert_memory_equal(r.payload, "task-main", 9);
  assert_memory_equal(be + 41, "\0\0\0", 3); /* padding is zero */
}

/* Target addresses are 32-bit and wrap: a snapshot at the top of the
 * address space still advances record by record and reassembles. */
static void test_address_wraps(void **state)
{
  (void)state;
  fill();
  static struct sink s;
  memset(&s, 0, sizeof s);
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 0, 0, 1, 1, 0, 0, 3, 0xFFFFFFF0u, 0,
                                      data, 100, 64), 0);
  assert_int_equal(s.n, 4);
  uint8_t out[128];
  struct tw_snap_reasm ra;
  tw_snap_reasm_init(&ra, out, sizeof out);
  struct tw_record r;
  for (int i = 0; i < 4; i++) {
    parse(&s, i, &r);
    assert_int_equal(r.snap.address, 0xFFFFFFF0u + 32u * (uint32_t)i);
    assert_int_equal(tw_snap_reasm_feed(&ra, &r), i == 3 ? 1 : 0);
  }
  assert_memory_equal(out, data, 100);
  /* the same id reused after completion starts a new snapshot */
  parse(&s, 0, &r);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 0);
  assert_false(ra.complete);
}

/* max_rec_bytes is rounded down to whole words and clamped to the
 * encoder's scratch record (TW_CFG_SNAP_MAX_REC_BYTES). */
static void test_record_size_limits(void **state)
{
  (void)state;
  fill();
  static struct sink s;
  memset(&s, 0, sizeof s);
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 0, 0, 1, 1, 0, 0, 1, 0, 0, data, 100, 63), 0);
  for (int i = 0; i < s.n; i++)
    assert_true(s.len[i] <= 60);
  assert_int_equal(s.n, 4); /* 28 data bytes per 60-byte record */
  memset(&s, 0, sizeof s);
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 1, 0, 1, 1, 0, 0, 1, 0, 0, data, 1000,
                                      TW_REC_MAX_BYTES), 0);
  for (int i = 0; i < s.n; i++)
    assert_true(s.len[i] <= TW_CFG_SNAP_MAX_REC_BYTES);
  assert_int_equal(s.len[0], TW_CFG_SNAP_MAX_REC_BYTES);
  /* the smallest record that carries data: header + one word */
  memset(&s, 0, sizeof s);
  assert_int_equal(tw_snapshot_encode(collect, &s, 0, NULL, 0, 0, 1, 1, 0, 0, 1, 0, 0, data, 9, 36), 0);
  assert_int_equal(s.n, 3);
  struct tw_record r;
  parse(&s, 2, &r);
  assert_int_equal(r.snap.this_len, 1);
  assert_int_equal(r.snap.address, 8);
}

/* ---- TI's layout -------------------------------------------------------- */

/* A snapshot as TI's loggers write it (LoggerStopMode / LoggerStreamer
 * writeMemoryRange): the data rounded up to whole words is cut into records
 * of at most max_data_words words; each record's length word is its own
 * data (whole words, in bytes) in the upper half and the total length in
 * bytes in the lower; the address advances by the whole words written. The
 * words here follow that description, not tracewire's encoder. */
static size_t ti_records(uint8_t out[][128], size_t *lens, const uint8_t *bytes, uint32_t total,
                         uint32_t addr, uint32_t max_data_words, uint32_t snap_id)
{
  uint32_t left = (total + 3) / 4, n = 0, off = 0;
  do {
    uint32_t words = left > max_data_words ? max_data_words : left;
    uint32_t w[8 + 32] = {0}, k = 0;
    w[k++] = 2u << 27 | (32u + 4u * words) << 16 | n; /* HdrType_EventWithSnapshotId */
    w[k++] = 0x0105u << 16 | 0x8042u;                 /* event id, module id */
    w[k++] = 0xF11E;                                  /* file name pointer */
    w[k++] = 321;                                     /* line */
    w[k++] = snap_id;
    w[k++] = addr + off;
    w[k++] = (4u * words) << 16 | total;
    w[k++] = 0xF0F0;                                  /* format pointer */
    uint32_t copy = total - off < 4u * words ? total - off : 4u * words;
    memcpy(&w[k], bytes + off, copy);
    memcpy(out[n], w, (k + words) * 4);
    lens[n++] = (k + words) * 4;
    off += 4u * words;
    left -= words;
  } while (left);
  return n;
}

static void test_ti_layout_reassembled(void **state)
{
  (void)state;
  fill();
  static uint8_t recs[8][128];
  size_t lens[8];
  uint8_t buf[256];
  struct tw_snap_reasm ra;
  struct tw_record r;
  /* 70 bytes in records of at most 10 data words: 40 + 32 (30 and 2 of padding) */
  size_t n = ti_records(recs, lens, data, 70, 0x20001000, 10, 5);
  assert_int_equal(n, 2);
  tw_snap_reasm_init(&ra, buf, sizeof buf);
  assert_int_equal(tw_record_parse(recs[0], lens[0], TW_ENDIAN_NATIVE, &r), (int)lens[0]);
  assert_true(r.snap.ti_layout);
  assert_int_equal(r.snap.total_len, 70);
  assert_int_equal(r.snap.this_len, 40);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 0);
  assert_int_equal(tw_record_parse(recs[1], lens[1], TW_ENDIAN_NATIVE, &r), (int)lens[1]);
  assert_int_equal(r.snap.this_len, 32);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 1);
  assert_int_equal(ra.total, 70);
  assert_memory_equal(buf, data, 70);
  /* a lone record with a length that is no multiple of 4: 13 bytes */
  n = ti_records(recs, lens, data + 100, 13, 0x20002000, 10, 6);
  assert_int_equal(n, 1);
  assert_int_equal(tw_record_parse(recs[0], lens[0], TW_ENDIAN_NATIVE, &r), (int)lens[0]);
  assert_true(r.snap.ti_layout);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 1);
  assert_int_equal(ra.total, 13);
  assert_memory_equal(buf, data + 100, 13);
  /* a lost middle record still shows in the address */
  n = ti_records(recs, lens, data, 100, 0x20003000, 8, 7);
  assert_int_equal(n, 4);
  assert_int_equal(tw_record_parse(recs[0], lens[0], TW_ENDIAN_NATIVE, &r), (int)lens[0]);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), 0);
  assert_int_equal(tw_record_parse(recs[2], lens[2], TW_ENDIAN_NATIVE, &r), (int)lens[2]);
  assert_int_equal(tw_snap_reasm_feed(&ra, &r), TW_ESNAPGAP);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_split_layout),
    cmocka_unit_test(test_reassemble_with_timestamp),
    cmocka_unit_test(test_missing_middle_record),
    cmocka_unit_test(test_missing_last_record_then_new_snapshot),
    cmocka_unit_test(test_reasm_bad_lengths),
    cmocka_unit_test(test_empty_snapshot_and_encode_errors),
    cmocka_unit_test(test_big_endian_snapshot),
    cmocka_unit_test(test_address_wraps),
    cmocka_unit_test(test_record_size_limits),
    cmocka_unit_test(test_ti_layout_reassembled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
