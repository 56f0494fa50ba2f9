/* The vocabulary tables generated from events.def: lookups, the packing
 * rule, the seed's constants and markers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tracewire/events_gen.h"
#include "tracewire/vocab.h"

static void test_sorted_unique_ids(void **state)
{
  (void)state;
  assert_int_equal(tw_event_ndescs, TW_EV_COUNT);
  for (size_t i = 1; i < tw_event_ndescs; i++)
    assert_true(tw_event_descs[i - 1].id < tw_event_descs[i].id);
  for (size_t i = 0; i < tw_event_ndescs; i++)
    assert_ptr_equal(tw_event_desc_by_id(tw_event_descs[i].id), &tw_event_descs[i]);
  assert_null(tw_event_desc_by_id(0));
  assert_null(tw_event_desc_by_id(28));
  assert_null(tw_event_desc_by_id(0xFFFF));
}

/* Every field lies inside its payload, aligned to its width, no overlap. */
static void test_packing_rule(void **state)
{
  (void)state;
  for (size_t i = 0; i < tw_event_ndescs; i++) {
    const struct tw_event_desc *d = &tw_event_descs[i];
    uint32_t used[4] = {0};
    for (uint8_t f = 0; f < d->nfields; f++) {
      const struct tw_field_desc *fd = &d->fields[f];
      if (fd->type == TW_FT_STRING) {
        assert_int_equal(fd->bits, 0);
        assert_int_equal(f, d->nfields - 1);
        continue;
      }
      assert_true(fd->word < d->payload_words);
      assert_int_equal(fd->shift % fd->bits, 0);
      assert_true(fd->shift + fd->bits <= 32);
      uint32_t m = fd->bits == 32 ? 0xFFFFFFFFu : ((1u << fd->bits) - 1u) << fd->shift;
      assert_int_equal(used[fd->word] & m, 0);
      used[fd->word] |= m;
    }
    assert_true(strlen(d->doc) > 0); /* hosted build keeps the doc strings */
    if (d->id <= 32)
      assert_true(d->flags & TW_EVF_TIMED);
    else
      assert_true(d->flags & TW_EVF_STREAMER);
  }
}

static void test_mutex_layout_and_markers(void **state)
{
  (void)state;
  const struct tw_event_desc *d = tw_event_desc_by_id(TW_EV_MUTEX);
  assert_non_null(d);
  assert_string_equal(d->seed_name, "MutexEvent");
  assert_int_equal(d->payload_words, 2);
  assert_int_equal(TW_EV_MUTEX_WORDS, 2);
  assert_string_equal(d->fields[1].name, "mutex");
  assert_int_equal(d->fields[1].word, 0);
  assert_int_equal(d->fields[1].shift, 16);
  assert_int_equal(d->fields[2].word, 1);
  uint32_t w[2] = {7u | 9u << 16, TW_MUTEX_Block};
  assert_int_equal(tw_field_get(&d->fields[0], w), 7);
  assert_int_equal(tw_field_get(&d->fields[1], w), 9);
  assert_int_equal(tw_field_get(&d->fields[2], w), 4);
  assert_int_equal(tw_event_marker(d, TW_MUTEX_Block), TW_MARKER_UP_BLOCK);
  assert_string_equal(tw_marker_name(tw_event_marker(d, TW_MUTEX_IncLock)), "Inc");
  assert_string_equal(tw_event_enum_name(d, 3), "DecLock");
  assert_null(tw_event_enum_name(d, 5));
  assert_int_equal(tw_event_marker(d, 5), TW_MARKER_NONE);
}

static void test_task_switch_markers(void **state)
{
  (void)state;
  const struct tw_event_desc *d = tw_event_desc_by_id(TW_EV_TASK_SWITCH);
  assert_int_equal(tw_event_marker(d, TW_TASK_SWITCH_EnterInt), TW_MARKER_UP);
  assert_int_equal(tw_event_marker(d, TW_TASK_SWITCH_LeaveInt), TW_MARKER_DOWN);
  assert_int_equal(tw_event_marker(d, 3), TW_MARKER_PUSH);
  assert_string_equal(tw_marker_name(TW_MARKER_UP_UP_PUSH), "UpUpPush");
  assert_string_equal(tw_obj_kind_name(TW_OBJ_MUTEX), "mutex");
  assert_string_equal(tw_marker_name((enum tw_marker)99), "?");
}

/* The seed's member order of ResSemEventTask: ToTask, Wait, Pass, Block, Take. */
static void test_seed_orders(void **state)
{
  (void)state;
  static const char *const rs[] = {"ToTask", "Wait", "Pass", "Block", "Take"};
  const struct tw_event_desc *d = tw_event_desc_by_id(TW_EV_RES_SEM_TASK);
  assert_int_equal(d->nenums, 5);
  for (uint32_t v = 0; v < 5; v++)
    assert_string_equal(tw_event_enum_name(d, v), rs[v]);
  assert_int_equal(TW_RES_SEM_TASK_Take, 4);
  assert_int_equal(TW_MULTI_SEM_TASK_Take, 2);
  d = tw_event_desc_by_id(TW_EV_MULTI_SEM_TASK);
  assert_int_equal(d->fields[3].word, 1);
  assert_int_equal(d->fields[3].shift, 8);
  d = tw_event_desc_by_id(TW_EV_NAME);
  assert_int_equal(d->payload_words, 1);
  assert_int_equal(d->fields[2].shift, 16);
}

/* tw_event_wire (generated, for target code) says what the descriptor
 * tables say, for every 16-bit id. */
static void test_event_wire_matches_descs(void **state)
{
  (void)state;
  for (uint32_t id = 0; id <= 0xFFFFu; id++) {
    const struct tw_event_desc *d = tw_event_desc_by_id((uint16_t)id);
    uint32_t w = tw_event_wire(id);
    if (!d) {
      assert_int_equal(w, 0);
      continue;
    }
    assert_int_equal(TW_EVW_MODULE(w), d->module);
    assert_int_equal(TW_EVW_FLAGS(w), d->flags);
  }
  assert_int_equal(tw_event_wire(0x10000u), 0);
  assert_int_equal(TW_EV_MAX_ID, tw_event_descs[tw_event_ndescs - 1].id);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sorted_unique_ids),
    cmocka_unit_test(test_packing_rule),
    cmocka_unit_test(test_mutex_layout_and_markers),
    cmocka_unit_test(test_task_switch_markers),
    cmocka_unit_test(test_seed_orders),
    cmocka_unit_test(test_event_wire_matches_descs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
