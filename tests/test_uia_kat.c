/*
 * Known-answer tests for the UIA wire format, written from the seed's bit
 * diagrams (spec 000 EventHdr, 001 UIAPacket), not from uia.h's field table:
 * the (word, msb, lsb) positions below are read off the diagrams. Each field
 * is driven to all ones, all zeros (in an all-ones header) and every single
 * bit, and checked both as a logical value and as exact big-endian bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tracewire/uia.h"

typedef uint32_t (*getter)(const tw_pkt_hdr *);
typedef void (*setter)(tw_pkt_hdr *, uint32_t);

struct kat {
  const char *diagram; /* which diagram the position is read from */
  int word;            /* 0-based: diagram "word1" is 0 */
  int msb, lsb;
  getter get;
  setter set;
};

#define K(diag, name, word, msb, lsb) { diag " " #name, word, msb, lsb, tw_pkt_get_##name, tw_pkt_set_##name }
static const struct kat kats[] = {
  /* HdrType_Msg word1 |H H H H|E|L*11|T*4|S*12| */
  K("Msg w1", hdr_type, 0, 31, 28),
  K("Msg w1", endian, 0, 27, 27),
  K("Msg w1", msg_length, 0, 26, 16),
  K("Msg w1", msg_type, 0, 15, 12),
  K("Msg w1", service_id, 0, 11, 0),
  /* HdrType_Msg word2 |S*16|C*16| */
  K("Msg w2", seq, 1, 31, 16),
  K("Msg w2", cmd_id, 1, 15, 0),
  /* HdrType_Msg word3 |T*32| */
  K("Msg w3", tag, 2, 31, 0),
  /* HdrType_Msg/EventPkt word4 |D*16|S*16| */
  K("Msg w4", dest, 3, 31, 16),
  K("Msg w4", src, 3, 15, 0),
  /* HdrType_EventPkt word1 |H*4|E|L*27| */
  K("EventPkt w1", event_length, 0, 26, 0),
  /* HdrType_EventPkt word2 |S*16|E*14|P*2| (also MinEventPkt word2) */
  K("EventPkt w2", event_seq, 1, 15, 2),
  K("EventPkt w2", priority, 1, 1, 0),
  /* HdrType_EventPkt word3 |D|I*15|M*16| */
  K("EventPkt w3", logger_dynamic, 2, 31, 31),
  K("EventPkt w3", logger_instance, 2, 30, 16),
  K("EventPkt w3", logger_module, 2, 15, 0),
  /* MinEventPkt word1 |H*4|E|D*5|R*6|L*16| */
  K("MinEventPkt w1", min_device, 0, 26, 22),
  K("MinEventPkt w1", min_reserved, 0, 21, 16),
  K("MinEventPkt w1", min_length, 0, 15, 0),
};

static uint32_t width_mask(int bits) { return bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1u; }

/* The bytes a header must have: fill (0x00 or 0xFF) with the field's bits
 * replaced by v, each word big-endian. Built byte by byte, not by the code
 * under test. */
static void expected_bytes(uint8_t exp[16], uint8_t fill, const struct kat *k, uint32_t v)
{
  memset(exp, fill, 16);
  for (int b = k->lsb; b <= k->msb; b++) {
    int byte = k->word * 4 + (3 - b / 8);
    uint8_t bit = (uint8_t)(1u << (b % 8));
    if ((v >> (b - k->lsb)) & 1u)
      exp[byte] |= bit;
    else
      exp[byte] &= (uint8_t)~bit;
  }
}

static void check(const struct kat *k, uint8_t fill, uint32_t v_in, uint32_t v_expect)
{
  tw_pkt_hdr h;
  uint8_t exp[16];
  memset(&h, fill, sizeof h);
  k->set(&h, v_in);
  expected_bytes(exp, fill, k, v_expect);
  if (memcmp(&h, exp, 16) != 0 || k->get(&h) != v_expect) {
    print_error("%s: set 0x%x in 0x%02x-filled header: got 0x%x, bytes differ: %d\n",
                k->diagram, v_in, fill, k->get(&h), memcmp(&h, exp, 16) != 0);
    fail();
  }
}

static void test_every_field_extremes_and_single_bits(void **state)
{
  (void)state;
  for (size_t i = 0; i < sizeof kats / sizeof kats[0]; i++) {
    const struct kat *k = &kats[i];
    int bits = k->msb - k->lsb + 1;
    uint32_t m = width_mask(bits);
    check(k, 0x00, m, m);              /* all ones in a zero header */
    check(k, 0x00, 0xFFFFFFFFu, m);    /* extra high bits are dropped */
    check(k, 0xFF, 0, 0);              /* all zeros in an all-ones header */
    check(k, 0xFF, m, m);
    for (int b = 0; b < bits; b++) {
      check(k, 0x00, 1u << b, 1u << b); /* one bit */
      check(k, 0xFF, m & ~(1u << b), m & ~(1u << b));
    }
  }
}

static void expect_hdr(const tw_pkt_hdr *h, const uint8_t *exp, size_t n)
{
  assert_memory_equal(h, exp, n);
}

static void test_init_msg_golden(void **state)
{
  (void)state;
  tw_pkt_hdr h;
  memset(&h, 0xA5, sizeof h);
  tw_pkt_init_msg(&h, TW_ENDIAN_BIG, TW_MSG_CMD, 24, 0x123, 0xBEEF, 0x0042, 0xDEADBEEF,
                  TW_ADDR_HOST, TW_ADDR_DEFAULT);
  static const uint8_t exp[16] = {
    0x98, 0x18, 0x11, 0x23, /* Msg(9) E=1 L=24 T=CMD(1) S=0x123 */
    0xBE, 0xEF, 0x00, 0x42, 0xDE, 0xAD, 0xBE, 0xEF, 0xFF, 0xFF, 0x00, 0x01,
  };
  expect_hdr(&h, exp, 16);
  assert_int_equal(tw_pkt_get_length(&h), 24);
  assert_int_equal(tw_pkt_get_msg_type(&h), TW_MSG_CMD);
}

static void test_init_event_golden(void **state)
{
  (void)state;
  tw_pkt_hdr h;
  memset(&h, 0xA5, sizeof h);
  tw_pkt_init_event(&h, TW_ENDIAN_LITTLE, 0x40, 0x1234, 2, 0x8001, 0x7ABC, TW_ADDR_HOST, 1);
  static const uint8_t exp[16] = {
    0xA0, 0x00, 0x00, 0x40, /* EventPkt(10) E=0 L=0x40 */
    0x12, 0x34, 0x00, 0x02, /* S=0x1234 E=0 P=2 */
    0x7A, 0xBC, 0x80, 0x01, /* D=0 I=0x7ABC M=0x8001 */
    0xFF, 0xFF, 0x00, 0x01,
  };
  expect_hdr(&h, exp, 16);
  assert_int_equal(tw_pkt_get_length(&h), 0x40);
  /* an instance id of 16 bits loses its top bit, which is D's place */
  tw_pkt_init_event(&h, TW_ENDIAN_LITTLE, 0x40, 0, 0, 0, 0xFFFF, 0, 0);
  assert_int_equal(tw_pkt_get_logger_instance(&h), 0x7FFF);
  assert_int_equal(tw_pkt_get_logger_dynamic(&h), 0);
}

static void test_init_min_event_golden(void **state)
{
  (void)state;
  tw_pkt_hdr h;
  memset(&h, 0xA5, sizeof h);
  tw_pkt_init_min_event(&h, TW_ENDIAN_BIG, 0x1F);
  static const uint8_t exp[16] = {
    0x3F, 0xC0, 0x00, 0x00, /* MinEventPkt(3) E=1 D=31 R=0 L=0 */
    0x00, 0x00, 0x00, 0x00,
    0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, /* not part of the 2-word header */
  };
  expect_hdr(&h, exp, 16);
  tw_pkt_set_min_length(&h, 0x1234);
  assert_int_equal(tw_pkt_get_length(&h), 0x1234);
}

static void test_invalid_padding_golden(void **state)
{
  (void)state;
  tw_pkt_hdr h;
  memset(&h, 0xA5, sizeof h);
  tw_pkt_set_invalid(&h, 0x100);
  static const uint8_t exp[4] = { 0x00, 0x00, 0x01, 0x00 };
  expect_hdr(&h, exp, 4);
  assert_memory_equal((uint8_t *)&h + 4, "\xA5\xA5\xA5\xA5", 4); /* only word 1 written */
  assert_int_equal(tw_pkt_get_length(&h), 0x100);
  tw_pkt_set_invalid(&h, 0x07FFFFFF);
  assert_memory_equal(&h, "\x07\xFF\xFF\xFF", 4); /* bit 27 stays 0 */
}

static void test_footer_golden(void **state)
{
  (void)state;
  uint8_t b[4];
  tw_store_be32(b, tw_pkt_footer(0x40));
  assert_memory_equal(b, "\x00\x40\x77\x77", 4);
  tw_store_be32(b, tw_pkt_footer(0xFFFC));
  assert_memory_equal(b, "\xFF\xFC\x77\x77", 4);
  tw_store_be32(b, tw_pkt_footer(0));
  assert_memory_equal(b, "\x00\x00\x77\x77", 4);
}

static void test_hdr_bytes_and_length_by_type(void **state)
{
  (void)state;
  assert_int_equal(tw_pkt_hdr_bytes(TW_PKT_MSG), 16);
  assert_int_equal(tw_pkt_hdr_bytes(TW_PKT_EVENT), 16);
  assert_int_equal(tw_pkt_hdr_bytes(TW_PKT_EVENT_WITH_CRC), 20);
  assert_int_equal(tw_pkt_hdr_bytes(TW_PKT_MIN_EVENT), 8);
  assert_int_equal(tw_pkt_hdr_bytes(TW_PKT_INVALID_DATA), 4);
  for (uint32_t t = 0; t < 16; t++) {
    int decoded = t == TW_PKT_MSG || t == TW_PKT_EVENT || t == TW_PKT_EVENT_WITH_CRC ||
                  t == TW_PKT_MIN_EVENT || t == TW_PKT_INVALID_DATA;
    assert_int_equal(tw_pkt_hdr_bytes(t) != 0, decoded);
  }
  /* each type reads its own length field from the same all-ones word 1 */
  tw_pkt_hdr h;
  memset(&h, 0xFF, sizeof h);
  tw_pkt_set_hdr_type(&h, TW_PKT_MSG);
  assert_int_equal(tw_pkt_get_length(&h), 0x7FF);
  tw_pkt_set_hdr_type(&h, TW_PKT_EVENT);
  assert_int_equal(tw_pkt_get_length(&h), 0x07FFFFFF);
  tw_pkt_set_hdr_type(&h, TW_PKT_MIN_EVENT);
  assert_int_equal(tw_pkt_get_length(&h), 0xFFFF);
}

/* EventHdr |H*5|L*11|S*16|: positions from the spec 000 diagram. */
static void test_evhdr_fields(void **state)
{
  (void)state;
  assert_int_equal(tw_evhdr_make(0x1F, 0, 0), 0xF8000000u);
  assert_int_equal(tw_evhdr_make(0, 0x7FF, 0), 0x07FF0000u);
  assert_int_equal(tw_evhdr_make(0, 0, 0xFFFF), 0x0000FFFFu);
  assert_int_equal(tw_evhdr_make(0xFF, 0xFFFF, 0xFFFFF), 0xFFFFFFFFu); /* masked */
  assert_int_equal(tw_evhdr_make(0, 0, 0), 0);
  for (int b = 0; b < 32; b++) {
    uint32_t w = 1u << b;
    uint32_t t = b >= 27 ? 1u << (b - 27) : 0;
    uint32_t l = b >= 16 && b < 27 ? 1u << (b - 16) : 0;
    uint32_t s = b < 16 ? 1u << b : 0;
    assert_int_equal(tw_evhdr_type(w), t);
    assert_int_equal(tw_evhdr_length(w), l);
    assert_int_equal(tw_evhdr_seq(w), s);
    assert_int_equal(tw_evhdr_make(t, l, s), w);
    /* each setter on an all-ones word clears exactly its own bits */
    uint32_t cleared = 0xFFFFFFFFu;
    if (t) cleared = tw_evhdr_with_type(cleared, 0x1F & ~t);
    if (l) cleared = tw_evhdr_with_length(cleared, 0x7FF & ~l);
    if (s) cleared = tw_evhdr_with_seq(cleared, 0xFFFF & ~s);
    assert_int_equal(cleared, ~w);
  }
  assert_int_equal(tw_evhdr_with_type(0, 0xFFFFFFFF), 0xF8000000u);
  assert_int_equal(tw_evhdr_with_length(0, 0xFFFFFFFF), 0x07FF0000u);
  assert_int_equal(tw_evhdr_with_seq(0, 0xFFFFFFFF), 0x0000FFFFu);
  assert_int_equal(tw_evhdr_with_type(0xFFFFFFFFu, 0), 0x07FFFFFFu);
  assert_int_equal(tw_evhdr_with_length(0xFFFFFFFFu, 0), 0xF800FFFFu);
  assert_int_equal(tw_evhdr_with_seq(0xFFFFFFFFu, 0), 0xFFFF0000u);
}

/* A timestamped record from a little-endian sender, byte for byte. */
static void test_record_encode_golden(void **state)
{
  (void)state;
  uint32_t w[8];
  const uint32_t payload[] = { 0xAABBCCDDu };
  int n = tw_record_encode(w, 8, 0x1234, 1, 0x1122334455667788ull, 5, 2, payload, 1);
  assert_int_equal(n, 5);
  uint8_t b[sizeof w];
  for (int i = 0; i < n; i++)
    tw_store_le32(b + 4 * i, w[i]);
  static const uint8_t exp[20] = {
    0x34, 0x12, 0x14, 0x08, /* H=1 (EventWithTimestamp) L=20 S=0x1234 */
    0x88, 0x77, 0x66, 0x55, /* timestamp lower 32 bits */
    0x44, 0x33, 0x22, 0x11, /* timestamp upper 32 bits */
    0x02, 0x00, 0x05, 0x00, /* event id 5 (top), module id 2 (bottom) */
    0xDD, 0xCC, 0xBB, 0xAA,
  };
  assert_memory_equal(b, exp, 20);
  /* the plain layout: header, id word, payload */
  n = tw_record_encode(w, 8, 0xFFFF, 0, 0, 0xFFFF, 0xFFFF, payload, 1);
  assert_int_equal(n, 3);
  assert_int_equal(w[0], 0x000CFFFFu);
  assert_int_equal(w[1], 0xFFFFFFFFu);
}

static void test_crc16_ccitt_false(void **state)
{
  (void)state;
  assert_int_equal(tw_crc16("123456789", 9), 0x29B1); /* the catalogue's check value */
  assert_int_equal(tw_crc16("", 0), 0xFFFF);           /* init, no xorout */
  assert_int_equal(tw_crc16("A", 1), 0xB915);
}

/* EventPktWithCRC word 5 |R*16|C*16| (docs/wire-format.md "The CRC word"):
 * each CRC bit placed by hand in the wire bytes, read back through parse. */
static void test_crc_word_bits(void **state)
{
  (void)state;
  uint8_t b[24];
  tw_pkt_hdr h;
  tw_pkt_init_event(&h, TW_ENDIAN_LITTLE, 24, 0, 0, 0, 0, 0, 0);
  tw_pkt_set_hdr_type(&h, TW_PKT_EVENT_WITH_CRC);
  memcpy(b, &h, 16);
  memcpy(b + 20, "\x00\x18\x77\x77", 4);
  assert_memory_equal(b, "\x20\x00\x00\x18", 4); /* type 2, length 24 */
  struct tw_pkt p;
  for (int bit = -1; bit < 16; bit++) {
    memset(b + 16, 0, 4);
    if (bit >= 0)
      b[16 + 3 - bit / 8] = (uint8_t)(1u << (bit % 8));
    assert_int_equal(tw_pkt_parse(b, 24, 0, &p), 24);
    assert_int_equal(p.crc, bit < 0 ? 0 : 1u << bit);
  }
  memcpy(b + 16, "\x00\x00\xFF\xFF", 4);
  assert_int_equal(tw_pkt_parse(b, 24, 0, &p), 24);
  assert_int_equal(p.crc, 0xFFFF);
  assert_int_equal(p.payload_len, 0);
}

static void test_byte_order_helpers(void **state)
{
  (void)state;
  uint8_t b[4];
  tw_store_be32(b, 0x01020304);
  assert_memory_equal(b, "\x01\x02\x03\x04", 4);
  assert_int_equal(tw_load_be32(b), 0x01020304);
  assert_int_equal(tw_load_le32(b), 0x04030201);
  tw_store_le32(b, 0x01020304);
  assert_memory_equal(b, "\x04\x03\x02\x01", 4);
  uint32_t img = tw_htobe32(0x01020304);
  assert_memory_equal(&img, "\x01\x02\x03\x04", 4);
  uint16_t img16 = tw_htobe16(0x0102);
  assert_memory_equal(&img16, "\x01\x02", 2);
  assert_int_equal(tw_be32toh(img), 0x01020304);
}

static void test_nack_names(void **state)
{
  (void)state;
  assert_string_equal(tw_nack_name(TW_NACK_NO_REASON_SPECIFIED), "NO_REASON_SPECIFIED");
  assert_string_equal(tw_nack_name(TW_NACK_SERVICE_NOT_SUPPORTED), "SERVICE_NOT_SUPPORTED");
  assert_string_equal(tw_nack_name(TW_NACK_CMD_NOT_SUPPORTED), "CMD_NOT_SUPPORTED");
  assert_string_equal(tw_nack_name(TW_NACK_QUEUE_FULL), "QUEUE_FULL");
  assert_string_equal(tw_nack_name(TW_NACK_BAD_ENDPOINT_ADDRESS), "BAD_ENDPOINT_ADDRESS");
  assert_string_equal(tw_nack_name(TW_NACK_BAD_MESSAGE_LENGTH), "BAD_MESSAGE_LENGTH");
  assert_string_equal(tw_nack_name(6), "?");
  assert_string_equal(tw_nack_name(0xFFFFFFFFu), "?");
}

/* docs/wire-format.md "Addresses": the constants win over setDestAdrs prose. */
static void test_addresses(void **state)
{
  (void)state;
  assert_int_equal(TW_ADDR_BROADCAST, 0xFFFE);
  assert_int_equal(TW_ADDR_HOST, 0xFFFF);
  assert_int_equal(TW_ADDR_DEFAULT, 1);
  tw_pkt_hdr h;
  tw_pkt_init_msg(&h, TW_ENDIAN_LITTLE, TW_MSG_CMD, 20, 1, 0, 0, 0, TW_ADDR_BROADCAST, TW_ADDR_HOST);
  assert_memory_equal((uint8_t *)&h + 12, "\xFF\xFE\xFF\xFF", 4);
  assert_int_equal(TW_MSG_EVENT, TW_MSG_NOTIFY);
  assert_int_equal(TW_MSG_NOTIFY, 4);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_field_extremes_and_single_bits),
    cmocka_unit_test(test_init_msg_golden),
    cmocka_unit_test(test_init_event_golden),
    cmocka_unit_test(test_init_min_event_golden),
    cmocka_unit_test(test_invalid_padding_golden),
    cmocka_unit_test(test_footer_golden),
    cmocka_unit_test(test_hdr_bytes_and_length_by_type),
    cmocka_unit_test(test_evhdr_fields),
    cmocka_unit_test(test_record_encode_golden),
    cmocka_unit_test(test_crc16_ccitt_false),
    cmocka_unit_test(test_crc_word_bits),
    cmocka_unit_test(test_byte_order_helpers),
    cmocka_unit_test(test_nack_names),
    cmocka_unit_test(test_addresses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
