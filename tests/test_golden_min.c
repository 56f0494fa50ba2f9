/* Golden test of the MinEventPkt build option (TW_CFG_MIN_EVENT_PKT=1):
 * the streamer is compiled into this test with the option set; the same
 * script must give exactly tests/golden/streamer_minpkt.bin. */
#define TW_CFG_MIN_EVENT_PKT 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "target/streamer.c"
#include "tw_golden_script.h"

static void test_golden_minpkt(void **state)
{
  (void)state;
  static struct tw_streamer s;
  struct cap c;
  struct dstream d = {0};
  cap_init(&c);
  golden_run(&s, &c);
  decode_stream(c.buf, c.len, 0x0001, &d);
  for (size_t i = 0; i < c.npkts; i++) {
    tw_pkt_hdr h;
    memcpy(&h, c.buf + c.off[i], 8);
    assert_int_equal(tw_pkt_get_hdr_type(&h), TW_PKT_MIN_EVENT);
    assert_int_equal(tw_pkt_get_min_device(&h), 1);
    assert_int_equal(tw_pkt_get_min_length(&h), c.plen[i]);
  }
  assert_int_equal(d.r[d.n - 1].id, TW_EV_TRACE_STOP);
  golden_check(&c, "streamer_minpkt.bin");
  dstream_free(&d);
  cap_free(&c);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_golden_minpkt) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
