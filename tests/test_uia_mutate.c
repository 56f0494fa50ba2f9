/*
 * Hostile bytes: random buffers and single-bit mutations of valid packets
 * and records go through tw_pkt_parse / tw_record_parse / the reassembler.
 * Every input sits in a heap block of exactly its length, so under ASan
 * (CI runs this suite with -fsanitize=address,undefined) any read past the
 * end aborts. Beyond not crashing, each result must be self-consistent: an
 * error is one of the documented codes, a success describes bytes inside
 * the buffer. Seed printed; TW_SEED=<n> replays.
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

static uint64_t rng;
static uint32_t rnd(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

static int setup(void **state)
{
  (void)state;
  const char *s = getenv("TW_SEED");
  rng = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
  if (!rng)
    rng = 1;
  printf("test_uia_mutate: seed %llu (rerun: TW_SEED=%llu)\n", (unsigned long long)rng,
         (unsigned long long)rng);
  return 0;
}

static int pkt_code_ok(int rc)
{
  return rc == TW_ETRUNC || rc == TW_ESHORT || rc == TW_EALIGN || rc == TW_EHDRTYPE ||
         rc == TW_EFOOTER || rc == TW_ERESERVED || rc == TW_ETOOBIG;
}

static unsigned long n_ok, n_err;

static void check_pkt(const uint8_t *src, size_t len)
{
  uint8_t *b = malloc(len ? len : 1);
  assert_non_null(b);
  memcpy(b, src, len);
  struct tw_pkt p;
  int rc = tw_pkt_parse(b, len, 0, &p);
  if (rc < 0) {
    assert_true(pkt_code_ok(rc));
    n_err++;
  } else {
    n_ok++;
    assert_true(rc >= 4 && (size_t)rc <= len && rc % 4 == 0);
    assert_int_equal(p.length, rc);
    assert_true(p.payload >= b && p.payload + p.payload_len <= b + rc);
    /* the records inside, in the announced order */
    size_t off = 0;
    while (off < p.payload_len) {
      struct tw_record r;
      int n = tw_record_parse(p.payload + off, p.payload_len - off, p.endian, &r);
      if (n < 0)
        break;
      assert_true(r.payload >= p.payload + off && r.payload + r.payload_len <= p.payload + off + n);
      off += (size_t)n;
    }
  }
  free(b);
}

static void test_random_bytes(void **state)
{
  (void)state;
  uint8_t buf[96];
  for (int i = 0; i < 200000; i++) {
    size_t len = rnd() % sizeof buf;
    for (size_t k = 0; k < len; k++)
      buf[k] = (uint8_t)rnd();
    /* steer word 1 towards decoded types, plausible lengths and a
     * matching footer, so the deeper checks run too */
    if (len >= 4 && (rnd() & 1)) {
      static const uint8_t types[] = { 0, 2, 3, 9, 10 };
      uint8_t t = types[rnd() % 5];
      uint32_t l = (rnd() % 25) * 4;
      buf[0] = (uint8_t)(t << 4 | (buf[0] & 0x0F));
      if (t == 9) {
        buf[0] = (uint8_t)((buf[0] & 0xF8) | ((l >> 8) & 7));
        buf[1] = (uint8_t)l;
      } else if (t == 3) {
        if (rnd() & 1)
          buf[1] &= 0xC0; /* reserved bits clear */
        buf[2] = (uint8_t)(l >> 8);
        buf[3] = (uint8_t)l;
      } else {
        buf[0] &= 0xF8;
        buf[1] = 0;
        buf[2] = (uint8_t)(l >> 8);
        buf[3] = (uint8_t)l;
      }
      if (l >= 8 && l <= len && (rnd() & 1))
        tw_store_be32(buf + l - 4, tw_pkt_footer(l));
      if (t == 2 && len >= 20 && (rnd() & 1))
        buf[16] = buf[17] = 0;
    }
    check_pkt(buf, len);
  }
  printf("random bytes: %lu parsed, %lu rejected\n", n_ok, n_err);
  assert_true(n_ok > 1000); /* the success path was exercised too */
}

/* A valid event packet with three records (plain, timestamped, snapshot). */
static size_t make_valid(uint8_t *b, enum tw_endian e)
{
  uint32_t w[40];
  size_t n = 0;
  const uint32_t pl[2] = { 0x11112222u, 0x33334444u };
  n += (size_t)tw_record_encode(w + n, 40 - n, 1, 0, 0, 4, 2, pl, 1);
  n += (size_t)tw_record_encode(w + n, 40 - n, 2, 1, 0x1234567890ull, 5, 2, pl, 2);
  w[n++] = tw_evhdr_make(TW_REC_SNAPSHOT, 36, 3);
  w[n++] = 0x01040003u;
  w[n++] = 0;
  w[n++] = 0;
  w[n++] = 9;
  w[n++] = 0x100;
  w[n++] = 3u << 16 | 3u;
  w[n++] = 0;
  w[n++] = 0x00636261u; /* "abc" in a little-endian word; bytes don't matter */
  uint32_t len = (uint32_t)(16 + 4 * n + 4);
  tw_pkt_hdr h;
  tw_pkt_init_event(&h, e, len, 7, 0, 1, 0, TW_ADDR_HOST, 1);
  memcpy(b, &h, 16);
  for (size_t i = 0; i < n; i++)
    (e == TW_ENDIAN_BIG ? tw_store_be32 : tw_store_le32)(b + 16 + 4 * i, w[i]);
  tw_store_be32(b + len - 4, tw_pkt_footer(len));
  return len;
}

static void test_bit_flips_of_valid_packets(void **state)
{
  (void)state;
  uint8_t good[128], b[128];
  for (int ei = 0; ei < 2; ei++) {
    enum tw_endian e = ei ? TW_ENDIAN_BIG : TW_ENDIAN_LITTLE;
    size_t len = make_valid(good, e);
    struct tw_pkt p;
    assert_int_equal(tw_pkt_parse(good, len, 0, &p), (int)len);
    /* every single-bit flip of every byte, every truncation of each */
    for (size_t bit = 0; bit < len * 8; bit++) {
      memcpy(b, good, len);
      b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
      check_pkt(b, len);
      check_pkt(b, rnd() % len);
    }
  }
}

/* Random snapshot records into a small reassembler: it must never write
 * outside its buffer (ASan) and a completion must be self-consistent. */
static void test_reassembler_random_records(void **state)
{
  (void)state;
  uint8_t *out = malloc(64);
  assert_non_null(out);
  struct tw_snap_reasm ra;
  tw_snap_reasm_init(&ra, out, 64);
  static const uint8_t data[2048];
  for (int i = 0; i < 200000; i++) {
    struct tw_record r;
    memset(&r, 0, sizeof r);
    r.is_snapshot = 1;
    r.snap.snap_id = rnd() % 3;
    r.snap.total_len = (uint16_t)(rnd() % 100);
    r.snap.this_len = (uint16_t)(rnd() % ((uint32_t)r.snap.total_len + 1));
    r.snap.address = (rnd() & 1) ? ra.next_addr : rnd() % 256;
    r.payload = data;
    r.payload_len = r.snap.this_len;
    int rc = tw_snap_reasm_feed(&ra, &r);
    assert_true(rc == 0 || rc == 1 || rc == TW_ESNAPGAP || rc == TW_ESNAPLEN || rc == TW_ETOOBIG);
    if (rc == 1)
      assert_true(ra.complete && ra.got == ra.total && ra.total <= 64);
  }
  free(out);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_random_bytes),
    cmocka_unit_test(test_bit_flips_of_valid_packets),
    cmocka_unit_test(test_reassembler_random_records),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
