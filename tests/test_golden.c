/* Golden test: the fixed script of tw_golden_script.h produces exactly
 * the EventPkt bytes in tests/golden/streamer_eventpkt.bin, and those
 * bytes decode to what the script did. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tw_golden_script.h"

static void test_golden_eventpkt(void **state)
{
  (void)state;
  static struct tw_streamer s;
  struct cap c;
  struct dstream d = {0};
  cap_init(&c);
  golden_run(&s, &c);
  decode_stream(c.buf, c.len, 0x0001, &d);
  /* the script's shape, independent of the file */
  assert_int_equal(d.r[0].id, TW_EV_TRACE_START);
  assert_int_equal(d.r[d.n - 1].id, TW_EV_TRACE_STOP);
  uint32_t drops = 0;
  unsigned anti = 0;
  for (size_t i = 0; i < d.n; i++) {
    if (d.r[i].id == TW_EV_DROPS)
      drops += d.r[i].w[0];
    anti += d.r[i].id == TW_EV_ANTI_SEM;
  }
  assert_true(drops > 0);
  assert_int_equal(anti + drops, 60);
  /* the first 48 bytes worked out by hand from seeds 000/001 */
  static const uint8_t head[] = {
    0xa0, 0x00, 0x00, 0x5c, /* EventPkt, little-endian payload, 92 bytes */
    0x00, 0x00, 0x00, 0x01, /* packet seq 0, first event seq 0, priority 1 */
    0x00, 0x02, 0x01, 0x01, /* static logger, instance 2, module 0x0101 */
    0xff, 0xff, 0x00, 0x01, /* dest HOST, src endpoint 1 */
    0x00, 0x00, 0x14, 0x08, /* EventHdr: EventWithTimestamp, 20 bytes, seq 0 */
    0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, /* ts 0x00000000FFFF0000 */
    0x03, 0x00, 0x00, 0x01, /* TRACE_START (0x100) << 16 | CONTROL (3) */
    0xff, 0xff, 0x01, 0x00, /* mask 0x0001FFFF */
    0x01, 0x00, 0x34, 0x18, /* EventHdr: snapshot with ts, 52 bytes, seq 1 */
  };
  if (!TW_HOST_BIG_ENDIAN)
    assert_memory_equal(c.buf, head, sizeof head);
  golden_check(&c, "streamer_eventpkt.bin");
  dstream_free(&d);
  cap_free(&c);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_golden_eventpkt) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
