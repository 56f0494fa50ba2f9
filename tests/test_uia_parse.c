/*
 * Bad input for tw_pkt_parse and tw_record_parse: every malformation yields
 * its own error code and nothing is read past the bytes given. Inputs are
 * copied into heap blocks of exactly their length, so under ASan any
 * over-read aborts the test. Also: big-endian payload packets decode on
 * this (little-endian) host, from hand-written bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tracewire/uia.h"

/* Parse a copy of buf[0..len) that ends exactly at len. */
static int parse_exact(const uint8_t *buf, size_t len, size_t max_len, struct tw_pkt *p)
{
  uint8_t *copy = malloc(len ? len : 1);
  assert_non_null(copy);
  memcpy(copy, buf, len);
  int rc = tw_pkt_parse(copy, len, max_len, p);
  if (rc > 0) /* keep the view valid: point it into the caller's buffer */
    p->payload = buf + (p->payload - copy);
  free(copy);
  return rc;
}

static int rec_exact(const uint8_t *buf, size_t len, enum tw_endian e, struct tw_record *r)
{
  uint8_t *copy = malloc(len ? len : 1);
  assert_non_null(copy);
  memcpy(copy, buf, len);
  int rc = tw_record_parse(copy, len, e, r);
  if (rc > 0)
    r->payload = buf + (r->payload - copy);
  free(copy);
  return rc;
}

/* A well-formed packet of type t with nwords payload words; returns length. */
static size_t make_pkt(uint8_t *b, uint32_t t, size_t nwords)
{
  tw_pkt_hdr h;
  size_t hb = tw_pkt_hdr_bytes(t);
  size_t len = hb + nwords * 4 + (t == TW_PKT_INVALID_DATA ? 0 : 4);
  switch (t) {
  case TW_PKT_MSG:
    tw_pkt_init_msg(&h, TW_ENDIAN_LITTLE, TW_MSG_RESULT, (uint32_t)len, 7, 1, 2, 3, TW_ADDR_HOST, 1);
    break;
  case TW_PKT_EVENT:
  case TW_PKT_EVENT_WITH_CRC:
    tw_pkt_init_event(&h, TW_ENDIAN_LITTLE, (uint32_t)len, 9, 0, 1, 0, TW_ADDR_HOST, 1);
    tw_pkt_set_hdr_type(&h, t);
    break;
  case TW_PKT_MIN_EVENT:
    tw_pkt_init_min_event(&h, TW_ENDIAN_LITTLE, 3);
    tw_pkt_set_min_length(&h, (uint32_t)len);
    break;
  default:
    tw_pkt_set_invalid(&h, (uint32_t)len);
  }
  memcpy(b, &h, hb < 16 ? hb : 16);
  if (t == TW_PKT_EVENT_WITH_CRC)
    tw_store_be32(b + 16, tw_crc16("app", 3));
  for (size_t i = 0; i < nwords; i++)
    tw_store_le32(b + hb + 4 * i, 0xC0DE0000u + (uint32_t)i);
  if (t != TW_PKT_INVALID_DATA)
    tw_store_be32(b + len - 4, tw_pkt_footer((uint32_t)len));
  return len;
}

static const uint32_t decoded_types[] = {
  TW_PKT_MSG, TW_PKT_EVENT, TW_PKT_EVENT_WITH_CRC, TW_PKT_MIN_EVENT, TW_PKT_INVALID_DATA,
};
#define NTYPES (sizeof decoded_types / sizeof decoded_types[0])

/* Rewrite the length field of the packet in b (whatever its type). */
static void poke_length(uint8_t *b, uint32_t t, uint32_t length)
{
  tw_pkt_hdr h;
  memcpy(&h.word1, b, 4);
  if (t == TW_PKT_MSG)
    tw_pkt_set_msg_length(&h, length);
  else if (t == TW_PKT_MIN_EVENT)
    tw_pkt_set_min_length(&h, length);
  else
    tw_pkt_set_event_length(&h, length);
  memcpy(b, &h.word1, 4);
}

static void test_valid_packets_parse(void **state)
{
  (void)state;
  uint8_t b[256];
  for (size_t i = 0; i < NTYPES; i++) {
    uint32_t t = decoded_types[i];
    for (size_t n = 0; n < 5; n++) {
      size_t len = make_pkt(b, t, n);
      struct tw_pkt p;
      assert_int_equal(parse_exact(b, len, 0, &p), (int)len);
      assert_int_equal(p.hdr_type, t);
      assert_int_equal(p.length, len);
      if (t == TW_PKT_INVALID_DATA) {
        assert_int_equal(p.payload_len, 0); /* padding: nothing to decode */
        continue;
      }
      assert_int_equal(p.payload_len, n * 4);
      assert_ptr_equal(p.payload, b + tw_pkt_hdr_bytes(t));
      for (size_t k = 0; k < n; k++)
        assert_int_equal(tw_load_le32(p.payload + 4 * k), 0xC0DE0000u + k);
      assert_int_equal(p.crc, t == TW_PKT_EVENT_WITH_CRC ? tw_crc16("app", 3) : 0);
    }
  }
}

static void test_etrunc_every_prefix(void **state)
{
  (void)state;
  uint8_t b[256];
  struct tw_pkt p;
  for (size_t i = 0; i < NTYPES; i++) {
    size_t len = make_pkt(b, decoded_types[i], 3);
    for (size_t k = 0; k < len; k++) {
      assert_int_equal(parse_exact(b, k, 0, &p), TW_ETRUNC);
      if (k >= 4) /* a stream reader learns how much to wait for */
        assert_int_equal(p.length, len);
    }
  }
  assert_int_equal(tw_pkt_parse(b, 0, 0, &p), TW_ETRUNC);
}

static void test_ehdrtype_for_undecoded_types(void **state)
{
  (void)state;
  uint8_t b[64];
  for (uint32_t t = 0; t < 16; t++) {
    if (tw_pkt_hdr_bytes(t))
      continue;
    size_t len = make_pkt(b, TW_PKT_EVENT, 2);
    tw_pkt_hdr h;
    memcpy(&h.word1, b, 4);
    tw_pkt_set_hdr_type(&h, t);
    memcpy(b, &h.word1, 4);
    struct tw_pkt p;
    assert_int_equal(parse_exact(b, len, 0, &p), TW_EHDRTYPE);
    assert_int_equal(parse_exact(b, 4, 0, &p), TW_EHDRTYPE); /* known from word 1 alone */
  }
}

static void test_ealign(void **state)
{
  (void)state;
  uint8_t b[64];
  struct tw_pkt p;
  for (size_t i = 0; i < NTYPES; i++) {
    uint32_t t = decoded_types[i];
    size_t len = make_pkt(b, t, 2);
    for (uint32_t off = 1; off < 4; off++) {
      poke_length(b, t, (uint32_t)len - 4 + off);
      assert_int_equal(parse_exact(b, len, 0, &p), TW_EALIGN);
    }
  }
}

static void test_eshort(void **state)
{
  (void)state;
  uint8_t b[64];
  struct tw_pkt p;
  for (size_t i = 0; i < NTYPES; i++) {
    uint32_t t = decoded_types[i];
    size_t len = make_pkt(b, t, 2);
    uint32_t min = tw_pkt_hdr_bytes(t) + (t == TW_PKT_INVALID_DATA ? 0 : 4);
    for (uint32_t l = 0; l < min; l += 4) {
      poke_length(b, t, l);
      assert_int_equal(parse_exact(b, len, 0, &p), TW_ESHORT);
    }
    poke_length(b, t, min); /* the shortest legal packet */
    if (t != TW_PKT_INVALID_DATA)
      tw_store_be32(b + min - 4, tw_pkt_footer(min));
    assert_int_equal(parse_exact(b, len, 0, &p), (int)min);
    assert_int_equal(p.payload_len, 0);
  }
}

static void test_etoobig(void **state)
{
  (void)state;
  uint8_t b[64];
  struct tw_pkt p;
  size_t len = make_pkt(b, TW_PKT_EVENT, 4); /* 36 bytes */
  assert_int_equal(parse_exact(b, len, 36, &p), 36);
  assert_int_equal(parse_exact(b, len, 32, &p), TW_ETOOBIG);
  /* the footer holds 16 bits of length: EventPkt stops at 0xFFFC */
  poke_length(b, TW_PKT_EVENT, 0x10000);
  assert_int_equal(parse_exact(b, len, 0, &p), TW_ETOOBIG);
  poke_length(b, TW_PKT_EVENT, 0xFFFC);
  assert_int_equal(parse_exact(b, len, 0, &p), TW_ETRUNC);
  /* a max_len above the buffer does not hide truncation */
  assert_int_equal(parse_exact(b, len, 0x10000, &p), TW_ETRUNC);
}

static void test_efooter(void **state)
{
  (void)state;
  uint8_t b[64];
  struct tw_pkt p;
  for (size_t i = 0; i < NTYPES; i++) {
    uint32_t t = decoded_types[i];
    if (t == TW_PKT_INVALID_DATA)
      continue;
    size_t len = make_pkt(b, t, 2);
    b[len - 1] ^= 0x01; /* magic */
    assert_int_equal(parse_exact(b, len, 0, &p), TW_EFOOTER);
    b[len - 1] ^= 0x01;
    b[len - 3] ^= 0x04; /* footer length */
    assert_int_equal(parse_exact(b, len, 0, &p), TW_EFOOTER);
    b[len - 3] ^= 0x04;
    assert_int_equal(parse_exact(b, len, 0, &p), (int)len);
  }
}

static void test_ereserved(void **state)
{
  (void)state;
  uint8_t b[64];
  struct tw_pkt p;
  /* MinEventPkt word 1 bits 21..16 */
  size_t len = make_pkt(b, TW_PKT_MIN_EVENT, 1);
  for (int bit = 16; bit <= 21; bit++) {
    uint8_t c[64];
    memcpy(c, b, len);
    c[3 - bit / 8] |= (uint8_t)(1u << (bit % 8));
    assert_int_equal(parse_exact(c, len, 0, &p), TW_ERESERVED);
  }
  /* EventPktWithCRC word 5 bits 31..16 (docs/wire-format.md "The CRC word") */
  len = make_pkt(b, TW_PKT_EVENT_WITH_CRC, 1);
  for (int bit = 16; bit <= 31; bit++) {
    uint8_t c[64];
    memcpy(c, b, len);
    c[16 + 3 - bit / 8] |= (uint8_t)(1u << (bit % 8));
    assert_int_equal(parse_exact(c, len, 0, &p), TW_ERESERVED);
  }
  tw_store_be32(b + 16, 0x0000FFFFu); /* all 16 CRC bits are data */
  assert_int_equal(parse_exact(b, len, 0, &p), (int)len);
  assert_int_equal(p.crc, 0xFFFF);
  /* InvalidData bit 27 */
  len = make_pkt(b, TW_PKT_INVALID_DATA, 1);
  b[0] |= 0x08;
  assert_int_equal(parse_exact(b, len, 0, &p), TW_ERESERVED);
}

/* A stream: EventPkt, InvalidData padding, Msg, back to back. */
static void test_stream_with_padding(void **state)
{
  (void)state;
  uint8_t b[256];
  size_t n1 = make_pkt(b, TW_PKT_EVENT, 2);
  size_t n2 = make_pkt(b + n1, TW_PKT_INVALID_DATA, 5);
  size_t n3 = make_pkt(b + n1 + n2, TW_PKT_MSG, 1);
  size_t total = n1 + n2 + n3, off = 0;
  uint32_t types[3];
  int k = 0;
  while (off < total) {
    struct tw_pkt p;
    int rc = parse_exact(b + off, total - off, 0, &p);
    assert_true(rc > 0);
    types[k++] = p.hdr_type;
    off += (size_t)rc;
  }
  assert_int_equal(k, 3);
  assert_int_equal(types[0], TW_PKT_EVENT);
  assert_int_equal(types[1], TW_PKT_INVALID_DATA);
  assert_int_equal(types[2], TW_PKT_MSG);
}

/* The same event packet from a big-endian and a little-endian target,
 * written by hand: header and footer identical (network order), the
 * record words in each sender's order, announced by the E bit. */
static const uint8_t be_pkt[32] = {
  0xA8, 0x00, 0x00, 0x20, /* EventPkt, E=1 (big), length 32 */
  0x00, 0x01, 0x00, 0x00, /* packet seq 1 */
  0x00, 0x00, 0x00, 0x02, /* logger module 2 */
  0xFF, 0xFF, 0x00, 0x01, /* dest HOST, src 1 */
  0x00, 0x0C, 0x00, 0x05, /* EventHdr: Event, length 12, seq 5 */
  0x00, 0x04, 0x00, 0x02, /* event 4 (TASK_SWITCH), module 2 */
  0x00, 0x00, 0x00, 0x03, /* payload word: 3 */
  0x00, 0x20, 0x77, 0x77, /* footer */
};
static const uint8_t le_pkt[32] = {
  0xA0, 0x00, 0x00, 0x20, 0x00, 0x01, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x02, 0xFF, 0xFF, 0x00, 0x01,
  0x05, 0x00, 0x0C, 0x00, 0x02, 0x00, 0x04, 0x00,
  0x03, 0x00, 0x00, 0x00, 0x00, 0x20, 0x77, 0x77,
};

static void check_task_switch_pkt(const uint8_t *bytes, enum tw_endian e)
{
  struct tw_pkt p;
  struct tw_record r;
  assert_int_equal(parse_exact(bytes, 32, 128, &p), 32);
  assert_int_equal(p.endian, e);
  assert_int_equal(tw_pkt_get_seq(&p.hdr), 1);
  assert_int_equal(tw_pkt_get_logger_module(&p.hdr), 2);
  assert_int_equal(tw_pkt_get_src(&p.hdr), 1);
  assert_int_equal(p.payload_len, 12);
  assert_int_equal(rec_exact(p.payload, p.payload_len, p.endian, &r), 12);
  assert_int_equal(r.type, TW_REC_EVENT);
  assert_int_equal(r.seq, 5);
  assert_int_equal(r.event_id, 4);
  assert_int_equal(r.module_id, 2);
  assert_int_equal(r.payload_len, 4);
  assert_int_equal(tw_record_word(&r, 0), 3);
}

static void test_big_endian_payload_on_this_host(void **state)
{
  (void)state;
  check_task_switch_pkt(be_pkt, TW_ENDIAN_BIG);
  check_task_switch_pkt(le_pkt, TW_ENDIAN_LITTLE);
  /* a big-endian timestamped record: ts words low then high, each BE */
  static const uint8_t rec[16] = {
    0x08, 0x10, 0x00, 0x07, 0x55, 0x66, 0x77, 0x88, 0x11, 0x22, 0x33, 0x44, 0x01, 0x00, 0x00, 0x01,
  };
  struct tw_record r;
  assert_int_equal(rec_exact(rec, 16, TW_ENDIAN_BIG, &r), 16);
  assert_true(r.has_ts);
  assert_int_equal(r.ts, 0x1122334455667788ull);
  assert_int_equal(r.event_id, 0x0100);
  assert_int_equal(r.module_id, 1);
  assert_int_equal(r.seq, 7);
}

/* ---- records ------------------------------------------------------------- */

static size_t put_words(uint8_t *b, const uint32_t *w, size_t n, enum tw_endian e)
{
  for (size_t i = 0; i < n; i++)
    (e == TW_ENDIAN_BIG ? tw_store_be32 : tw_store_le32)(b + 4 * i, w[i]);
  return n * 4;
}

static void test_record_errors(void **state)
{
  (void)state;
  uint8_t b[64];
  struct tw_record r;
  static const uint32_t layout[] = { 8, 16, 32, 40 };
  for (int ei = 0; ei < 2; ei++) {
    enum tw_endian e = ei ? TW_ENDIAN_BIG : TW_ENDIAN_LITTLE;
    for (uint32_t k = 0; k < 4; k++) {
      uint32_t w[12] = { 0 };
      w[0] = tw_evhdr_make(k, layout[k] + 4, 1);
      size_t len = put_words(b, w, layout[k] / 4 + 1, e);
      assert_int_equal(rec_exact(b, len, e, &r), (int)len);
      for (size_t pre = 0; pre < len; pre++)
        assert_int_equal(rec_exact(b, pre, e, &r), TW_ETRUNC);
      for (uint32_t l = 0; l < layout[k]; l += 4) {
        w[0] = tw_evhdr_make(k, l, 1);
        put_words(b, w, 1, e);
        assert_int_equal(rec_exact(b, len, e, &r), TW_ESHORT);
      }
      for (uint32_t off = 1; off < 4; off++) {
        w[0] = tw_evhdr_make(k, layout[k] + off, 1);
        put_words(b, w, 1, e);
        assert_int_equal(rec_exact(b, len, e, &r), TW_EALIGN);
      }
    }
    for (uint32_t k = 4; k < 32; k++) {
      uint32_t w0 = tw_evhdr_make(k, 8, 0);
      put_words(b, &w0, 1, e);
      assert_int_equal(rec_exact(b, 8, e, &r), TW_EHDRTYPE);
    }
  }
}

static void test_record_snapshot_lengths(void **state)
{
  (void)state;
  uint8_t b[64];
  struct tw_record r;
  /* snapshot, 8 data bytes of room; fields file..format then data */
  uint32_t w[10] = { tw_evhdr_make(TW_REC_SNAPSHOT, 40, 3), 0x01040003u, 0x2000, 42, 7,
                     0x1000, 0, 0x3000, 0x64636261u, 0x68676665u };
  w[6] = 8u << 16 | 8u; /* total 8, this 8 */
  assert_int_equal(rec_exact(b, put_words(b, w, 10, TW_ENDIAN_LITTLE), TW_ENDIAN_LITTLE, &r), 40);
  assert_true(r.is_snapshot);
  assert_int_equal(r.snap.file, 0x2000);
  assert_int_equal(r.snap.line, 42);
  assert_int_equal(r.snap.snap_id, 7);
  assert_int_equal(r.snap.address, 0x1000);
  assert_int_equal(r.snap.format, 0x3000);
  assert_int_equal(r.payload_len, 8);
  assert_memory_equal(r.payload, "abcdefgh", 8);
  w[6] = 12u << 16 | 9u; /* this > room in the record */
  assert_int_equal(rec_exact(b, put_words(b, w, 10, TW_ENDIAN_LITTLE), TW_ENDIAN_LITTLE, &r),
                   TW_ESNAPLEN);
  w[6] = 4u << 16 | 8u; /* this > total */
  assert_int_equal(rec_exact(b, put_words(b, w, 10, TW_ENDIAN_LITTLE), TW_ENDIAN_LITTLE, &r),
                   TW_ESNAPLEN);
  w[6] = 7u << 16 | 9u; /* this > total, and 7 is not the room either */
  assert_int_equal(rec_exact(b, put_words(b, w, 10, TW_ENDIAN_LITTLE), TW_ENDIAN_LITTLE, &r),
                   TW_ESNAPLEN);
  /* TI's layout (its loggers' writeMemoryRange): this record's data in
   * whole words, which is its room, above; the total below */
  w[6] = 8u << 16 | 9u; /* the first 8 of 9 bytes */
  assert_int_equal(rec_exact(b, put_words(b, w, 10, TW_ENDIAN_LITTLE), TW_ENDIAN_LITTLE, &r), 40);
  assert_true(r.snap.ti_layout);
  assert_int_equal(r.snap.total_len, 9);
  assert_int_equal(r.snap.this_len, 8);
  w[6] = 8u << 16 | 5u; /* a lone record of 5 bytes, padded to 8 */
  assert_int_equal(rec_exact(b, put_words(b, w, 10, TW_ENDIAN_LITTLE), TW_ENDIAN_LITTLE, &r), 40);
  assert_true(r.snap.ti_layout);
  assert_int_equal(r.snap.total_len, 5);
  assert_int_equal(r.snap.this_len, 8);
  w[6] = 8u << 16 | 8u; /* both layouts agree */
  assert_int_equal(rec_exact(b, put_words(b, w, 10, TW_ENDIAN_LITTLE), TW_ENDIAN_LITTLE, &r), 40);
  assert_false(r.snap.ti_layout);
  w[6] = 100u << 16 | 5u; /* partial record, padded */
  assert_int_equal(rec_exact(b, put_words(b, w, 10, TW_ENDIAN_LITTLE), TW_ENDIAN_LITTLE, &r), 40);
  assert_int_equal(r.payload_len, 5);
}

static void test_record_encode_errors(void **state)
{
  (void)state;
  static uint32_t dst[600], payload[600];
  assert_int_equal(tw_record_encode(dst, 3, 0, 0, 0, 1, 1, payload, 2), TW_ENOSPC);
  assert_int_equal(tw_record_encode(dst, 4, 0, 0, 0, 1, 1, payload, 2), 4);
  assert_int_equal(tw_record_encode(dst, 5, 0, 1, 0, 1, 1, payload, 2), TW_ENOSPC);
  /* 2044 bytes is the largest record: 511 words */
  assert_int_equal(tw_record_encode(dst, 600, 0, 0, 0, 1, 1, payload, 509), 511);
  assert_int_equal(tw_evhdr_length(dst[0]), 2044);
  assert_int_equal(tw_record_encode(dst, 600, 0, 0, 0, 1, 1, payload, 510), TW_ETOOBIG);
  assert_int_equal(tw_record_encode(dst, 600, 0, 1, 0, 1, 1, payload, 507), 511);
  assert_int_equal(tw_record_encode(dst, 600, 0, 1, 0, 1, 1, payload, 508), TW_ETOOBIG);
}

static void test_error_codes_are_distinct_and_named(void **state)
{
  (void)state;
  const int codes[] = { TW_ETRUNC, TW_ESHORT, TW_EALIGN, TW_EHDRTYPE, TW_EFOOTER,
                        TW_ERESERVED, TW_ETOOBIG, TW_ESNAPGAP, TW_ESNAPLEN };
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
    assert_true(codes[i] < 0);
    assert_string_not_equal(tw_strerror(codes[i]), "unknown error");
    for (size_t j = 0; j < i; j++)
      assert_int_not_equal(codes[i], codes[j]);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_valid_packets_parse),
    cmocka_unit_test(test_etrunc_every_prefix),
    cmocka_unit_test(test_ehdrtype_for_undecoded_types),
    cmocka_unit_test(test_ealign),
    cmocka_unit_test(test_eshort),
    cmocka_unit_test(test_etoobig),
    cmocka_unit_test(test_efooter),
    cmocka_unit_test(test_ereserved),
    cmocka_unit_test(test_stream_with_padding),
    cmocka_unit_test(test_big_endian_payload_on_this_host),
    cmocka_unit_test(test_record_errors),
    cmocka_unit_test(test_record_snapshot_lengths),
    cmocka_unit_test(test_record_encode_errors),
    cmocka_unit_test(test_error_codes_are_distinct_and_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
