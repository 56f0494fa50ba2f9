/*
 * The wire-level rules docs/wire-format.md states about events.def:
 * event ids vs kernel-logger mask bits (the seed 004 contradiction) and the
 * payload packing rule, checked against every row of the vocabulary.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tracewire/uia.h"

enum { TIMED = 1, STREAMER = 2 };
enum { KERNEL = 1, RTOS = 2, CONTROL = 3, CUSTOM = 4 };
enum { U8 = 8, U16 = 16, U32 = 32, ENUM8 = 8, STRING = 0 };

struct row { const char *name; uint32_t id; int module, flags; };
static const struct row rows[] = {
#define TW_EVENT(name, id, module, flags, seed, mf, marker, doc) { #name, id, module, flags },
#define TW_FIELD(ev, field, type, obj, doc)
#define TW_ENUMV(ev, c, value, marker, doc)
#include "tracewire/events.def"
#undef TW_EVENT
#undef TW_FIELD
#undef TW_ENUMV
};

struct frow { const char *ev, *field; unsigned bits; };
static const struct frow frows[] = {
#define TW_EVENT(name, id, module, flags, seed, mf, marker, doc)
#define TW_FIELD(ev, field, type, obj, doc) { #ev, #field, type },
#define TW_ENUMV(ev, c, value, marker, doc)
#include "tracewire/events.def"
#undef TW_EVENT
#undef TW_FIELD
#undef TW_ENUMV
};

#define N(a) (sizeof (a) / sizeof (a)[0])

static void test_event_ids_and_mask_bits(void **state)
{
  (void)state;
  /* 004's predefined events take ids 1..3, in the seed's order */
  assert_string_equal(rows[0].name, "CONTEXT_SWITCH");
  assert_int_equal(rows[0].id, 1);
  assert_string_equal(rows[1].name, "INTERRUPT");
  assert_int_equal(rows[1].id, 2);
  assert_string_equal(rows[2].name, "SLEEP");
  assert_int_equal(rows[2].id, 3);
  uint32_t mask_used = 0;
  for (size_t i = 0; i < N(rows); i++) {
    for (size_t j = 0; j < i; j++)
      assert_int_not_equal(rows[i].id, rows[j].id); /* never reused */
    if (rows[i].flags & STREAMER) {
      assert_true(rows[i].id > 32); /* no mask bit: always on */
      continue;
    }
    /* every maskable event has bit id-1 of a 32-bit mask */
    assert_true(rows[i].id >= 1 && rows[i].id <= 32);
    mask_used |= 1u << (rows[i].id - 1);
  }
  /* ids 1..27 are tracewire's; 28..32 (bits 27..31) stay free for users */
  assert_int_equal(mask_used, 0x07FFFFFFu);
}

struct slot { unsigned word, shift; };

/* The rule, stated once: row order from bit 0 of word 0, each field
 * aligned to its own width, a field that does not fit starts the next
 * word; STRING fields are not packed. Returns the word count. */
static unsigned pack(const char *ev, struct slot *out, size_t cap)
{
  unsigned pos = 0;
  size_t k = 0;
  for (size_t i = 0; i < N(frows); i++) {
    unsigned bits = frows[i].bits;
    if (strcmp(frows[i].ev, ev) || !bits)
      continue;
    pos = (pos + bits - 1) / bits * bits;
    if (pos % 32 + bits > 32)
      pos = (pos + 31) / 32 * 32;
    assert_true(k < cap);
    out[k].word = pos / 32;
    out[k++].shift = pos % 32;
    pos += bits;
  }
  return (pos + 31) / 32;
}

static void expect(const char *ev, unsigned words, const struct slot *exp, size_t n)
{
  struct slot got[16];
  memset(got, 0xFF, sizeof got);
  assert_int_equal(pack(ev, got, 16), words);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(got[i].word, exp[i].word);
    assert_int_equal(got[i].shift, exp[i].shift);
  }
}

static void test_payload_packing_rule(void **state)
{
  (void)state;
  /* worked by hand from the rule in docs/wire-format.md "Event payloads" */
  expect("CONTEXT_SWITCH", 1, (const struct slot[]){ { 0, 0 } }, 1);
  expect("SLEEP", 2, (const struct slot[]){ { 0, 0 }, { 1, 0 } }, 2);
  expect("TASK_SWITCH", 1, (const struct slot[]){ { 0, 0 } }, 1);
  expect("MUTEX", 2, (const struct slot[]){ { 0, 0 }, { 0, 16 }, { 1, 0 } }, 3);
  expect("SEM", 1, (const struct slot[]){ { 0, 0 }, { 0, 16 } }, 2);
  expect("MULTI_SEM", 1, (const struct slot[]){ { 0, 0 }, { 0, 16 }, { 0, 24 } }, 3);
  expect("MULTI_SEM_TASK", 2, (const struct slot[]){ { 0, 0 }, { 0, 16 }, { 1, 0 }, { 1, 8 } }, 4);
  expect("NAME", 1, (const struct slot[]){ { 0, 0 }, { 0, 8 }, { 0, 16 } }, 3);
  expect("CUSTOM_DECL", 1, (const struct slot[]){ { 0, 0 }, { 0, 16 }, { 0, 24 } }, 3);
  /* every event's packed payload fits a 128-byte packet with its record header */
  for (size_t i = 0; i < N(rows); i++) {
    struct slot s[16];
    unsigned w = pack(rows[i].name, s, 16);
    assert_true(TW_EVPKT_HDR_BYTES + 16 + 4 * w + TW_FOOTER_BYTES <= TW_CFG_MAX_PKT_BYTES);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_event_ids_and_mask_bits),
    cmocka_unit_test(test_payload_packing_rule),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
