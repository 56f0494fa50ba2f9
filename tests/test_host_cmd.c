/*
 * The host command client against the real target: streamer + command
 * service (src/target) in this process, behind a tw_conn whose writes go
 * to tw_cmd_receive() and whose reads return what the target sent (replies
 * and event packets on one byte stream, as over TCP). Covers: replies
 * matched by sequence and tag, NACK codes by name, retry after a lost
 * command, timeout, a stale reply ignored, events decoded while waiting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "host/helpers.h"
#include "tracewire/cmd.h"
#include "tracewire/events_gen.h"
#include "tracewire/klog.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tracewire/wire/cmd_client.h"
#include "tracewire/error.h"

#define EP 0x0042u

static struct tw_streamer S;
static struct tw_cmd K;
static uint32_t now;
static uint8_t t2h[1 << 20];
static size_t t2h_len, t2h_pos;
static int drop_writes;      /* commands lost on the way to the target */
static int inject_stale;     /* a reply with a wrong tag goes first */

static uint32_t clock_fn(void) { return now; }

static int target_send(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  if (inject_stale && len >= 16 && (tw_load_be32(p) >> 28) == TW_PKT_MSG) {
    inject_stale = 0;
    uint8_t copy[256];
    memcpy(copy, p, len);
    copy[11] ^= 0x55; /* tag */
    memcpy(t2h + t2h_len, copy, len);
    t2h_len += len;
  }
  memcpy(t2h + t2h_len, p, len);
  t2h_len += len;
  return 0;
}

static int loop_read(struct tw_conn *c, void *buf, size_t cap, int timeout_ms)
{
  (void)timeout_ms;
  tw_cmd_poll(&K);
  tw_streamer_poll(&S, 0);
  tw_streamer_flush(&S);
  size_t n = t2h_len - t2h_pos;
  if (!n)
    return TW_EAGAIN;
  if (n > cap)
    n = cap;
  memcpy(buf, t2h + t2h_pos, n);
  t2h_pos += n;
  c->nread += n;
  return (int)n;
}

static int loop_write(struct tw_conn *c, const void *buf, size_t n)
{
  (void)c;
  if (drop_writes > 0) {
    drop_writes--;
    return 0;
  }
  return tw_cmd_receive(&K, buf, n) == 0 ? 0 : TW_EIO;
}

static void loop_close(struct tw_conn *c) { (void)c; }

static const struct tw_conn_ops loop_ops = {
  .scheme = "loop", .read = loop_read, .write = loop_write, .close = loop_close,
};

struct host {
  struct tw_conn conn;
  struct tw_reader *r;
  struct tw_decoder *d;
  struct tw_cmd_client cc;
  struct text t;
};
static struct host H;

static void on_msg(void *ctx, const struct tw_pkt *p) { tw_cmd_client_msg(ctx, p); }

static int pump(void *ctx, int timeout_ms)
{
  struct host *h = ctx;
  struct tw_pkt p;
  int n = tw_reader_next(h->r, &p, timeout_ms);
  if (n != 1)
    return n;
  return tw_decoder_packet(h->d, &p, tw_reader_pkt_offset(h->r), tw_reader_pkt_number(h->r));
}

static int setup(void **state)
{
  (void)state;
  now = 100;
  t2h_len = t2h_pos = 0;
  drop_writes = inject_stale = 0;
  tw_klog_set_timer(clock_fn);
  struct tw_streamer_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 1000000;
  cfg.send = target_send;
  cfg.endpoint = EP;
  cfg.module_id = 1;
  assert_int_equal(tw_streamer_init(&S, &cfg), 0);
  assert_int_equal(tw_cmd_init(&K, EP, target_send, NULL, &S), 0);
  memset(&H, 0, sizeof H);
  tw__conn_init(&H.conn, &loop_ops, "loop://target");
  assert_int_equal(tw_reader_open(&H.r, &H.conn, NULL), 0);
  assert_int_equal(tw_decoder_open(&H.d, NULL), 0);
  H.t.d = H.d;
  tw_decoder_on_event(H.d, text_event, &H.t);
  tw_decoder_on_msg(H.d, on_msg, &H.cc);
  tw_cmd_client_init(&H.cc, &H.conn, pump, &H);
  H.cc.timeout_ms = 30;
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  tw_decoder_close(H.d);
  tw_reader_close(H.r);
  free(H.t.buf);
  return 0;
}

static void info_start_events_stop(void **state)
{
  (void)state;
  struct tw_cmd_reply_info r;
  assert_int_equal(tw_cmd_call(&H.cc, TW_SVC_LOGGER, TW_LCMD_GET_INFO, NULL, 0, &r), 0);
  assert_int_equal(r.type, TW_MSG_RESULT);
  assert_int_equal(r.nbody, TW_INFO_WORDS);
  assert_int_equal(r.body[TW_INFO_TS_FREQ_HZ], 1000000);
  assert_int_equal(r.body[TW_INFO_ENDPOINT], EP);
  assert_int_equal(H.cc.dest, EP); /* learnt from the reply */
  uint32_t mask = 1u << (TW_EV_SEM - 1);
  assert_int_equal(tw_cmd_call(&H.cc, TW_SVC_LOGGER, TW_LCMD_SET_MASK, &mask, 1, &r), 0);
  assert_int_equal(r.body[0], mask);
  assert_int_equal(tw_cmd_call(&H.cc, TW_SVC_LOGGER, TW_LCMD_START, NULL, 0, &r), 0);
  assert_int_equal(r.type, TW_MSG_ACK);
  for (int i = 0; i < 20; i++) {
    now += 10;
    tw_sem_at(now, (uint16_t)i, TW_SEM_Give);
    tw_mutex_at(now, 1, 1, TW_MUTEX_Lock); /* not in the mask */
    tw_streamer_poll(&S, 0);
  }
  assert_int_equal(tw_cmd_call(&H.cc, TW_SVC_LOGGER, TW_LCMD_STOP, NULL, 0, &r), 0);
  while (pump(&H, 0) == 0)
    ;
  /* the event packets that shared the link with the replies were decoded */
  assert_non_null(strstr(H.t.buf, "TraceStart: { mask = 32 }"));
  assert_non_null(strstr(H.t.buf, "SemEvent: { sem = 19, type = Give }"));
  assert_non_null(strstr(H.t.buf, "TraceStop: { reason = 0 }"));
  assert_null(strstr(H.t.buf, "MutexEvent"));
  assert_int_equal(H.cc.stale, 0);
}

static void nacks_reported_by_name(void **state)
{
  (void)state;
  struct tw_cmd_reply_info r;
  assert_int_equal(tw_cmd_call(&H.cc, TW_SVC_LOGGER, 99, NULL, 0, &r), TW_ENACK);
  assert_int_equal(r.type, TW_MSG_NACK_WITH_ERROR_CODE);
  assert_int_equal(r.nack, TW_NACK_CMD_NOT_SUPPORTED);
  assert_non_null(strstr(tw_cmd_client_error(&H.cc), "NACK CMD_NOT_SUPPORTED"));
  assert_int_equal(tw_cmd_call(&H.cc, 0x123, 1, NULL, 0, &r), TW_ENACK);
  assert_non_null(strstr(tw_cmd_client_error(&H.cc), "SERVICE_NOT_SUPPORTED"));
  uint32_t two[2] = {1, 2};
  assert_int_equal(tw_cmd_call(&H.cc, TW_SVC_LOGGER, TW_LCMD_SET_MASK, two, 2, &r), TW_ENACK);
  assert_non_null(strstr(tw_cmd_client_error(&H.cc), "BAD_MESSAGE_LENGTH"));
  uint32_t bad = 1u << 30; /* id 31: neither vocabulary nor declared */
  assert_int_equal(tw_cmd_call(&H.cc, TW_SVC_LOGGER, TW_LCMD_SET_MASK, &bad, 1, &r), TW_ENACK);
  assert_int_equal(r.type, TW_MSG_NACK_BAD_DATA);
  assert_int_equal(r.body[0], bad); /* the body echoed */
}

static void lost_command_retried_then_timeout(void **state)
{
  (void)state;
  struct tw_cmd_reply_info r;
  drop_writes = 1;
  assert_int_equal(tw_cmd_call(&H.cc, TW_SVC_LOGGER, TW_LCMD_GET_MASK, NULL, 0, &r), 0);
  assert_int_equal(r.attempts, 2);
  drop_writes = 100;
  H.cc.retries = 2;
  assert_int_equal(tw_cmd_call(&H.cc, TW_SVC_LOGGER, TW_LCMD_GET_MASK, NULL, 0, &r), TW_ETIMEDOUT);
  assert_int_equal(r.attempts, 3);
  assert_non_null(strstr(tw_cmd_client_error(&H.cc), "no reply to GET_MASK"));
  drop_writes = 0;
  /* a stale reply (another tag) is ignored; the right one is taken */
  inject_stale = 1;
  assert_int_equal(tw_cmd_call(&H.cc, TW_SVC_LOGGER, TW_LCMD_GET_MASK, NULL, 0, &r), 0);
  assert_int_equal(r.attempts, 1);
  assert_int_equal(H.cc.stale, 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(info_start_events_stop, setup, teardown),
    cmocka_unit_test_setup_teardown(nacks_reported_by_name, setup, teardown),
    cmocka_unit_test_setup_teardown(lost_command_retried_then_timeout, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
