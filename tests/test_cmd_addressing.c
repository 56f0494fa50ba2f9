/*
 * The command service acts only on messages addressed to its endpoint (or
 * BROADCAST): commands that would change the target (STOP, SET_MASK,
 * RESET_STATS) sent to another endpoint or to the HOST address are
 * ignored and counted, with no reply and no effect. A target on a shared
 * link (RS-485, a UDP broadcast domain) must not obey its neighbour's
 * commands.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tracewire/cmd.h"
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tw_stream_test.h"

#define EP 0x0005u
#define HOSTADR 0x0100u

static uint32_t fake_now;
static uint32_t fake_timer(void) { return fake_now; }
static struct tw_streamer S;
static struct tw_cmd K;
static struct cap EV, RP;

static int setup(void **state)
{
  (void)state;
  struct tw_streamer_cfg cfg;
  struct tw_logger_rec rec;
  uint32_t buf[TW_EVENT_MAX_DATA];
  tw_klog_set_timer(fake_timer);
  __atomic_store_n(&tw_trace_mask, 0, __ATOMIC_RELAXED);
  while (tw_klog_get(&rec, buf, TW_EVENT_MAX_DATA) > 0)
    ;
  fake_now = 100;
  cap_init(&EV);
  cap_init(&RP);
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 32768;
  cfg.send = cap_send;
  cfg.send_ctx = &EV;
  cfg.endpoint = EP;
  cfg.initial_mask = 0x3u;
  assert_int_equal(tw_streamer_init(&S, &cfg), 0);
  assert_int_equal(tw_cmd_init(&K, EP, cap_send, &RP, &S), 0);
  assert_int_equal(tw_streamer_start(&S), 0);
  for (int i = 0; i < 64 && S.nwork; i++)
    (void)tw_streamer_poll(&S, 0); /* START takes effect in the streamer's thread */
  assert_true(tw_streamer_running(&S));
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  cap_free(&EV);
  cap_free(&RP);
  return 0;
}

static size_t mk(uint8_t *out, uint16_t cmd, uint16_t dest, const uint32_t *body, size_t nbody)
{
  size_t len = 16 + 4 * nbody + 4;
  tw_pkt_hdr h;
  tw_pkt_init_msg(&h, TW_ENDIAN_BIG, TW_MSG_CMD, (uint32_t)len, TW_SVC_LOGGER, 1, cmd, 0x1234, dest,
                  HOSTADR);
  memcpy(out, &h, 16);
  for (size_t i = 0; i < nbody; i++)
    tw_store_be32(out + 16 + 4 * i, body[i]);
  tw_store_be32(out + len - 4, tw_pkt_footer((uint32_t)len));
  return len;
}

static void foreign_commands_have_no_effect(void **state)
{
  (void)state;
  static const uint16_t others[] = {EP + 1, EP - 1, TW_ADDR_HOST, 0x0000u, 0xFFFDu};
  uint8_t pkt[64];
  uint32_t mask = 0x1u;
  unsigned sent = 0;
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    size_t n = mk(pkt, TW_LCMD_SET_MASK, others[i], &mask, 1);
    assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
    n = mk(pkt, TW_LCMD_STOP, others[i], NULL, 0);
    assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
    n = mk(pkt, TW_LCMD_RESET_STATS, others[i], NULL, 0);
    assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
    sent += 3;
  }
  assert_int_equal(RP.npkts, 0);
  assert_int_equal(K.ignored, sent);
  assert_int_equal(K.cmds, 0);
  assert_true(tw_streamer_running(&S));
  assert_int_equal(tw_streamer_get_mask(&S), 0x3u);

  /* the same STOP addressed to this endpoint is obeyed, and answered */
  size_t n = mk(pkt, TW_LCMD_STOP, EP, NULL, 0);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  assert_int_equal(RP.npkts, 1);
  for (int i = 0; i < 64 && S.nwork; i++)
    (void)tw_streamer_poll(&S, 0);
  assert_false(tw_streamer_running(&S));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(foreign_commands_have_no_effect, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
