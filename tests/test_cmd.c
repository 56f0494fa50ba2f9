/* The command service: every reply path of docs/commands.md, each NACK,
 * the logger-control commands and their effect on the stream. */
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
#include "tw_target_reset.h"

#define EP 0x0005u
#define HOSTADR 0x0100u /* a host-side endpoint address */

static uint32_t fake_now;
static uint32_t fake_timer(void) { return fake_now; }

static struct tw_streamer S;
static struct tw_cmd K;
static struct cap EV;   /* event packets */
static struct cap RP;   /* replies */
static int refuse_left; /* replies: refuse this many offers, then accept */

static int reply_send(void *ctx, const void *p, size_t len)
{
  if (refuse_left > 0) {
    refuse_left--;
    return TW_EBUSY;
  }
  return cap_send(ctx, p, len);
}

static int setup(void **state)
{
  (void)state;
  struct tw_streamer_cfg cfg;
  tw_target_reset(fake_timer);
  fake_now = 100;
  refuse_left = 0;
  cap_init(&EV);
  cap_init(&RP);
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 32768;
  cfg.send = cap_send;
  cfg.send_ctx = &EV;
  cfg.endpoint = EP;
  cfg.module_id = 9;
  cfg.instance_id = 3;
  cfg.initial_mask = 0x3u;
  assert_int_equal(tw_streamer_init(&S, &cfg), 0);
  assert_int_equal(tw_cmd_init(&K, EP, reply_send, &RP, &S), 0);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  cap_free(&EV);
  cap_free(&RP);
  return 0;
}

/* A message packet image; returns its length. */
static size_t mk(uint8_t *out, enum tw_msg_type type, uint16_t svc, uint16_t cmd, uint16_t seq,
                 uint32_t tag, uint16_t dest, uint16_t src, const uint32_t *body, size_t nbody)
{
  size_t len = 16 + 4 * nbody + 4;
  tw_pkt_hdr h;
  tw_pkt_init_msg(&h, TW_ENDIAN_BIG, type, (uint32_t)len, svc, seq, cmd, tag, dest, src);
  memcpy(out, &h, 16);
  for (size_t i = 0; i < nbody; i++)
    tw_store_be32(out + 16 + 4 * i, body[i]);
  tw_store_be32(out + len - 4, tw_pkt_footer((uint32_t)len));
  return len;
}

/* Send a logger-service command from the host; returns the reply count. */
static size_t cmd(uint16_t svc, uint16_t id, uint16_t seq, const uint32_t *body, size_t nbody)
{
  uint8_t pkt[256];
  size_t n = mk(pkt, TW_MSG_CMD, svc, id, seq, 0xC0DE0000u + seq, EP, HOSTADR, body, nbody);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  return RP.npkts;
}

struct reply {
  uint32_t type, service, seq, cmd_id, tag, dest, src;
  uint32_t body[32];
  size_t nbody;
  const uint8_t *raw_body;
  int footerless;
};

static struct reply get_reply(size_t i)
{
  struct tw_pkt p;
  struct reply r = {0};
  assert_true(i < RP.npkts);
  int n = tw_pkt_parse(RP.buf + RP.off[i], RP.plen[i], 0, &p);
  if (n == TW_EFOOTER || n == TW_ESHORT) /* the reply to a command without a footer has none */
    n = tw_pkt_parse_ex(RP.buf + RP.off[i], RP.plen[i], 0, TW_PKT_NO_FOOTER, &p);
  assert_int_equal(n, (int)RP.plen[i]);
  assert_int_equal(p.hdr_type, TW_PKT_MSG);
  r.type = tw_pkt_get_msg_type(&p.hdr);
  r.service = tw_pkt_get_service_id(&p.hdr);
  r.seq = tw_pkt_get_seq(&p.hdr);
  r.cmd_id = tw_pkt_get_cmd_id(&p.hdr);
  r.tag = tw_pkt_get_tag(&p.hdr);
  r.dest = tw_pkt_get_dest(&p.hdr);
  r.src = tw_pkt_get_src(&p.hdr);
  r.nbody = p.payload_len / 4;
  r.raw_body = p.payload;
  for (size_t k = 0; k < r.nbody && k < 32; k++)
    r.body[k] = tw_pkt_word(&p, k);
  r.footerless = p.footerless;
  return r;
}

/* The last reply echoes the command and has the given type. */
static struct reply expect(uint32_t type, uint16_t svc, uint16_t id, uint16_t seq)
{
  struct reply r = get_reply(RP.npkts - 1);
  assert_int_equal(r.type, type);
  assert_int_equal(r.service, svc);
  assert_int_equal(r.cmd_id, id);
  assert_int_equal(r.seq, seq);
  assert_int_equal(r.tag, 0xC0DE0000u + seq);
  assert_int_equal(r.dest, HOSTADR);
  assert_int_equal(r.src, EP);
  return r;
}

static void expect_nack(uint16_t svc, uint16_t id, uint16_t seq, uint32_t code)
{
  struct reply r = expect(TW_MSG_NACK_WITH_ERROR_CODE, svc, id, seq);
  assert_int_equal(r.nbody, 1);
  assert_int_equal(r.body[0], code);
}

static void test_service_not_supported(void **state)
{
  (void)state;
  assert_int_equal(cmd(0x123, 1, 1, NULL, 0), 1);
  expect_nack(0x123, 1, 1, TW_NACK_SERVICE_NOT_SUPPORTED);
}

static void test_cmd_not_supported(void **state)
{
  (void)state;
  cmd(TW_SVC_LOGGER, 99, 2, NULL, 0);
  expect_nack(TW_SVC_LOGGER, 99, 2, TW_NACK_CMD_NOT_SUPPORTED);
  cmd(TW_SVC_LOGGER, 0, 3, NULL, 0);
  expect_nack(TW_SVC_LOGGER, 0, 3, TW_NACK_CMD_NOT_SUPPORTED);
}

static void test_bad_message_length(void **state)
{
  (void)state;
  uint8_t pkt[256];
  /* SET_MASK needs exactly one word */
  cmd(TW_SVC_LOGGER, TW_LCMD_SET_MASK, 4, NULL, 0);
  expect_nack(TW_SVC_LOGGER, TW_LCMD_SET_MASK, 4, TW_NACK_BAD_MESSAGE_LENGTH);
  /* START takes no body */
  cmd(TW_SVC_LOGGER, TW_LCMD_START, 5, (uint32_t[]){1}, 1);
  expect_nack(TW_SVC_LOGGER, TW_LCMD_START, 5, TW_NACK_BAD_MESSAGE_LENGTH);
  assert_false(tw_streamer_running(&S));
  /* length field says more than was received */
  size_t n = mk(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 6, 0xC0DE0006u, EP, HOSTADR,
                (uint32_t[]){0, 0}, 2);
  assert_int_equal(tw_cmd_receive(&K, pkt, n - 4), 0);
  expect_nack(TW_SVC_LOGGER, TW_LCMD_GET_MASK, 6, TW_NACK_BAD_MESSAGE_LENGTH);
  /* longer than the endpoint's maximum */
  uint32_t big[40] = {0};
  n = mk(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 7, 0xC0DE0007u, EP, HOSTADR, big, 40);
  assert_true(n > TW_CFG_CMD_MAX_BYTES);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  expect_nack(TW_SVC_LOGGER, TW_LCMD_GET_MASK, 7, TW_NACK_BAD_MESSAGE_LENGTH);
  /* footer damaged: read as a command without one (TI's style), whose body
   * is then one word too long; the NACK comes in that style too */
  n = mk(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 8, 0xC0DE0008u, EP, HOSTADR, NULL, 0);
  pkt[n - 1] ^= 1;
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  expect_nack(TW_SVC_LOGGER, TW_LCMD_GET_MASK, 8, TW_NACK_BAD_MESSAGE_LENGTH);
  assert_true(get_reply(RP.npkts - 1).footerless);
  /* shorter than a message header */
  n = mk(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 11, 0xC0DE000Bu, EP, HOSTADR, NULL, 0);
  pkt[0] = (uint8_t)(pkt[0] & 0xF8); /* length field (b26-16) 12: no command has that */
  pkt[1] = 12;
  assert_int_equal(tw_cmd_receive(&K, pkt, 16), 0);
  expect_nack(TW_SVC_LOGGER, TW_LCMD_GET_MASK, 11, TW_NACK_BAD_MESSAGE_LENGTH);
}

static void test_bad_endpoint_address(void **state)
{
  (void)state;
  uint8_t pkt[64];
  size_t n = mk(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 9, 9, EP, TW_ADDR_BROADCAST, NULL, 0);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  struct reply r = get_reply(RP.npkts - 1);
  assert_int_equal(r.type, TW_MSG_NACK_WITH_ERROR_CODE);
  assert_int_equal(r.body[0], TW_NACK_BAD_ENDPOINT_ADDRESS);
  assert_int_equal(r.dest, TW_ADDR_BROADCAST); /* the stated source */
  n = mk(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 10, 10, EP, EP, NULL, 0);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  r = get_reply(RP.npkts - 1);
  assert_int_equal(r.body[0], TW_NACK_BAD_ENDPOINT_ADDRESS);
  assert_int_equal(r.seq, 10);
}

static void test_set_mask_bad_data_echoes_body(void **state)
{
  (void)state;
  uint32_t bad = 1u << 27; /* id 28: neither vocabulary nor declared */
  cmd(TW_SVC_LOGGER, TW_LCMD_SET_MASK, 11, &bad, 1);
  struct reply r = expect(TW_MSG_NACK_BAD_DATA, TW_SVC_LOGGER, TW_LCMD_SET_MASK, 11);
  assert_int_equal(r.nbody, 1);
  assert_int_equal(r.body[0], bad);
  assert_int_equal(tw_streamer_get_mask(&S), 0x3u); /* unchanged */
  /* once declared, the bit is accepted */
  assert_int_equal(tw_custom_declare(28, 0, "Ev a:U32"), 0);
  cmd(TW_SVC_LOGGER, TW_LCMD_SET_MASK, 12, &bad, 1);
  r = expect(TW_MSG_RESULT, TW_SVC_LOGGER, TW_LCMD_SET_MASK, 12);
  assert_int_equal(r.body[0], bad);
  cmd(TW_SVC_LOGGER, TW_LCMD_GET_MASK, 13, NULL, 0);
  r = expect(TW_MSG_RESULT, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 13);
  assert_int_equal(r.nbody, 1);
  assert_int_equal(r.body[0], bad);
}

/* ---- commands as TI's hosts send them (issue 18) ------------------------------ */

/* A command written from the 001 diagrams: header words big-endian, the
 * body words in the order the E bit (word 1 b27) says, a footer or none. */
static size_t ti_cmd(uint8_t *out, int big, int footer, uint16_t id, uint16_t seq,
                     const uint32_t *body, size_t nbody)
{
  size_t len = 16 + 4 * nbody + (footer ? 4 : 0), k = 0;
  uint32_t hdr[4] = {
    9u << 28 | (uint32_t)big << 27 | (uint32_t)len << 16 | 1u << 12 | TW_SVC_LOGGER,
    (uint32_t)seq << 16 | id, 0xC0DE0000u + seq, (uint32_t)EP << 16 | HOSTADR}; /* tag as expect() wants */
  for (int i = 0; i < 4; i++, k += 4)
    tw_store_be32(out + k, hdr[i]);
  for (size_t i = 0; i < nbody; i++, k += 4)
    big ? tw_store_be32(out + k, body[i]) : tw_store_le32(out + k, body[i]);
  if (footer)
    tw_store_be32(out + k, (uint32_t)len << 16 | 0x7777u);
  return len;
}

/* TI's RTA host: a little-endian SET_MASK 0x30 with no footer. Read by the E
 * bit (0x30, not 0x30000000), answered in its style: little-endian body, no
 * footer. */
static void test_ti_style_command_little_endian_no_footer(void **state)
{
  (void)state;
  uint8_t pkt[64];
  size_t n = ti_cmd(pkt, 0, 0, TW_LCMD_SET_MASK, 30, (uint32_t[]){0x30}, 1);
  assert_int_equal(n, 20);
  assert_int_equal(tw_cmd_frame(pkt, n), 20);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  struct reply r = expect(TW_MSG_RESULT, TW_SVC_LOGGER, TW_LCMD_SET_MASK, 30);
  assert_int_equal(tw_streamer_get_mask(&S), 0x30u);
  assert_int_equal(r.body[0], 0x30u);
  assert_true(r.footerless);
  const uint8_t *raw = RP.buf + RP.off[RP.npkts - 1];
  assert_int_equal(RP.plen[RP.npkts - 1], 20);       /* header + one word, no footer */
  assert_int_equal(raw[0] & 0x08, 0);                 /* E = 0 */
  assert_memory_equal(raw + 16, "\x30\0\0\0", 4);    /* little-endian */
  /* the same with a footer, big-endian: answered big-endian with a footer */
  n = ti_cmd(pkt, 1, 1, TW_LCMD_SET_MASK, 31, (uint32_t[]){0x3}, 1);
  assert_int_equal(tw_cmd_frame(pkt, n), 24);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  r = expect(TW_MSG_RESULT, TW_SVC_LOGGER, TW_LCMD_SET_MASK, 31);
  assert_false(r.footerless);
  raw = RP.buf + RP.off[RP.npkts - 1];
  assert_int_equal(RP.plen[RP.npkts - 1], 24);
  assert_memory_equal(raw + 16, "\0\0\0\x03", 4);
  assert_int_equal(tw_streamer_get_mask(&S), 0x3u);
}

/* A footer-less command with no body (16 bytes) is framed and answered;
 * NACK codes and echoed bodies follow the command's byte order. */
static void test_ti_style_empty_command_and_nacks(void **state)
{
  (void)state;
  uint8_t pkt[64];
  size_t n = ti_cmd(pkt, 0, 0, TW_LCMD_GET_MASK, 32, NULL, 0);
  assert_int_equal(n, 16);
  assert_int_equal(tw_cmd_frame(pkt, n), 16);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  struct reply r = expect(TW_MSG_RESULT, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 32);
  assert_int_equal(r.body[0], tw_streamer_get_mask(&S));
  assert_true(r.footerless);
  /* START with a body: NACK BAD_MESSAGE_LENGTH, the code little-endian */
  n = ti_cmd(pkt, 0, 0, TW_LCMD_START, 33, (uint32_t[]){7}, 1);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  r = expect(TW_MSG_NACK_WITH_ERROR_CODE, TW_SVC_LOGGER, TW_LCMD_START, 33);
  assert_int_equal(r.body[0], TW_NACK_BAD_MESSAGE_LENGTH);
  assert_int_equal(r.raw_body[0], TW_NACK_BAD_MESSAGE_LENGTH);
  /* an unknown mask bit: the body echoed as it came */
  n = ti_cmd(pkt, 0, 0, TW_LCMD_SET_MASK, 34, (uint32_t[]){1u << 30}, 1); /* id 31: unknown */
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  r = expect(TW_MSG_NACK_BAD_DATA, TW_SVC_LOGGER, TW_LCMD_SET_MASK, 34);
  assert_memory_equal(r.raw_body, pkt + 16, 4);
  /* framing: not a message, or a length no command has */
  uint8_t junk[8] = {0xA0, 0, 0, 0x10};
  assert_int_equal(tw_cmd_frame(junk, 8), 0);
  n = ti_cmd(pkt, 0, 0, TW_LCMD_GET_MASK, 35, NULL, 0);
  pkt[1] = 14;
  assert_int_equal(tw_cmd_frame(pkt, n), 0);
  assert_int_equal(tw_cmd_frame(pkt, 3), 0);
}

static void test_flowctrl(void **state)
{
  (void)state;
  uint8_t pkt[64];
  size_t before = RP.npkts;
  size_t n = mk(pkt, TW_MSG_FLOWCTRL, 0, 0, 14, 0xC0DE000Eu, EP, HOSTADR, (uint32_t[]){(uint32_t)-40}, 1);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  assert_int_equal(RP.npkts, before); /* no reply to a valid FLOWCTRL */
  assert_int_equal(S.congestion, -40);
  n = mk(pkt, TW_MSG_FLOWCTRL, 0, 0, 15, 0xC0DE000Fu, EP, HOSTADR, (uint32_t[]){101}, 1);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  struct reply r = expect(TW_MSG_NACK_BAD_DATA, 0, 0, 15);
  assert_int_equal(r.body[0], 101);
  assert_int_equal(S.congestion, -40);
}

/* Replies the transport refuses wait in order; a command finding the queue
 * full is not executed and gets QUEUE_FULL. */
static void test_queue_full(void **state)
{
  (void)state;
  refuse_left = 3;
  cmd(TW_SVC_LOGGER, TW_LCMD_GET_MASK, 20, NULL, 0);  /* refused, queued */
  cmd(TW_SVC_LOGGER, TW_LCMD_GET_INFO, 21, NULL, 0);  /* head refused, queued */
  assert_int_equal(RP.npkts, 0);
  uint32_t m = 0x1u;
  cmd(TW_SVC_LOGGER, TW_LCMD_SET_MASK, 22, &m, 1);    /* head refused: full */
  assert_int_equal(RP.npkts, 1);
  expect_nack(TW_SVC_LOGGER, TW_LCMD_SET_MASK, 22, TW_NACK_QUEUE_FULL);
  assert_int_equal(tw_streamer_get_mask(&S), 0x3u);   /* not executed */
  assert_int_equal(tw_cmd_poll(&K), 0);
  assert_int_equal(RP.npkts, 3);
  assert_int_equal(get_reply(1).seq, 20);              /* in command order */
  assert_int_equal(get_reply(2).seq, 21);
  assert_int_equal(get_reply(2).nbody, TW_INFO_WORDS);
}

static void test_flush_ack_and_queue_full(void **state)
{
  (void)state;
  cmd(TW_SVC_LOGGER, TW_LCMD_START, 30, NULL, 0);
  expect(TW_MSG_ACK, TW_SVC_LOGGER, TW_LCMD_START, 30);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  size_t before = EV.npkts;
  EV.busy = 1;
  tw_interrupt_at(150, 6); /* id 2: in the mask 0x3 */
  (void)tw_streamer_poll(&S, 0);
  cmd(TW_SVC_LOGGER, TW_LCMD_FLUSH, 31, NULL, 0);
  expect_nack(TW_SVC_LOGGER, TW_LCMD_FLUSH, 31, TW_NACK_QUEUE_FULL);
  EV.busy = 0;
  cmd(TW_SVC_LOGGER, TW_LCMD_FLUSH, 32, NULL, 0);
  expect(TW_MSG_ACK, TW_SVC_LOGGER, TW_LCMD_FLUSH, 32);
  assert_true(EV.npkts > before);
  cmd(TW_SVC_LOGGER, TW_LCMD_STOP, 33, NULL, 0);
  expect(TW_MSG_ACK, TW_SVC_LOGGER, TW_LCMD_STOP, 33);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  struct dstream d = {0};
  decode_stream(EV.buf, EV.len, EP, &d);
  assert_int_equal(d.r[0].id, TW_EV_SYNC); /* the clock first */
  assert_int_equal(d.r[1].id, TW_EV_TRACE_START);
  assert_int_equal(d.r[1].w[0], 0x3u);
  assert_int_equal(d.r[d.n - 1].id, TW_EV_TRACE_STOP);
  assert_int_equal(d.r[d.n - 1].w[0], 0); /* reason: command */
  assert_int_equal(d.r[d.n - 2].id, TW_EV_INTERRUPT);
  assert_int_equal(d.r[d.n - 2].w[0], 6);
  dstream_free(&d);
}

/* Work the collector has not done yet fills the streamer's queue: START,
 * STOP and GET_NAMES are then refused with QUEUE_FULL, not lost. */
static void test_work_queue_full(void **state)
{
  (void)state;
  cmd(TW_SVC_LOGGER, TW_LCMD_START, 70, NULL, 0);   /* START, NAMES, DECLS */
  expect(TW_MSG_ACK, TW_SVC_LOGGER, TW_LCMD_START, 70);
  cmd(TW_SVC_LOGGER, TW_LCMD_START, 71, NULL, 0);
  expect_nack(TW_SVC_LOGGER, TW_LCMD_START, 71, TW_NACK_QUEUE_FULL);
  cmd(TW_SVC_LOGGER, TW_LCMD_GET_NAMES, 72, NULL, 0);
  expect_nack(TW_SVC_LOGGER, TW_LCMD_GET_NAMES, 72, TW_NACK_QUEUE_FULL);
  cmd(TW_SVC_LOGGER, TW_LCMD_STOP, 73, NULL, 0);    /* the fourth slot */
  expect(TW_MSG_ACK, TW_SVC_LOGGER, TW_LCMD_STOP, 73);
  cmd(TW_SVC_LOGGER, TW_LCMD_STOP, 74, NULL, 0);
  expect_nack(TW_SVC_LOGGER, TW_LCMD_STOP, 74, TW_NACK_QUEUE_FULL);
  assert_true(tw_streamer_poll(&S, 0) >= 0);        /* the collector catches up */
  assert_false(tw_streamer_running(&S));
  cmd(TW_SVC_LOGGER, TW_LCMD_START, 75, NULL, 0);
  expect(TW_MSG_ACK, TW_SVC_LOGGER, TW_LCMD_START, 75);
  struct dstream d = {0};
  decode_stream(EV.buf, EV.len, EP, &d);
  assert_int_equal(d.r[1].id, TW_EV_TRACE_START);
  assert_int_equal(d.r[d.n - 1].id, TW_EV_TRACE_STOP);
  dstream_free(&d);
}

static void test_info_names_stats(void **state)
{
  (void)state;
  cmd(TW_SVC_LOGGER, TW_LCMD_GET_INFO, 40, NULL, 0);
  struct reply r = expect(TW_MSG_RESULT, TW_SVC_LOGGER, TW_LCMD_GET_INFO, 40);
  assert_int_equal(r.nbody, TW_INFO_WORDS);
  assert_int_equal(r.body[TW_INFO_PROTOCOL], TW_CMD_PROTOCOL_VERSION);
  assert_int_equal(r.body[TW_INFO_ENDIAN], TW_ENDIAN_NATIVE);
  assert_int_equal(r.body[TW_INFO_TS_FREQ_HZ], 32768);
  assert_int_equal(r.body[TW_INFO_TS_BITS], 32);
  assert_int_equal(r.body[TW_INFO_CAPACITY], TW_CFG_KLOG_CAPACITY);
  assert_int_equal(r.body[TW_INFO_MAX_PKT], TW_CFG_MAX_PKT_BYTES);
  assert_int_equal(r.body[TW_INFO_ENDPOINT], EP);
  assert_int_equal(r.body[TW_INFO_LOGGER], 3u << 16 | 9u);
  assert_int_equal(r.body[TW_INFO_VOCAB], TW_EV_PKT_CHECK);
  assert_int_equal(r.body[TW_INFO_STATE], 0);
  assert_int_equal(r.body[TW_INFO_MASK], 0x3u);

  assert_int_equal(tw_name_register(TW_OBJ_SEM, 2, "tx_done", 0), 0);
  cmd(TW_SVC_LOGGER, TW_LCMD_START, 41, NULL, 0);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  cmd(TW_SVC_LOGGER, TW_LCMD_GET_NAMES, 42, NULL, 0);
  r = expect(TW_MSG_RESULT, TW_SVC_LOGGER, TW_LCMD_GET_NAMES, 42);
  assert_int_equal(r.nbody, 2);
  assert_int_equal(r.body[0], 3); /* EnterInt, LeaveInt, tx_done */
  assert_int_equal(r.body[1], 0);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  assert_int_equal(tw_streamer_flush(&S), 0);
  struct dstream d = {0};
  decode_stream(EV.buf, EV.len, EP, &d);
  unsigned names = 0;
  for (size_t i = 0; i < d.n; i++)
    names += d.r[i].id == TW_EV_NAME;
  assert_int_equal(names, 6); /* at START and on request */
  dstream_free(&d);

  cmd(TW_SVC_LOGGER, TW_LCMD_GET_STATS, 43, NULL, 0);
  r = expect(TW_MSG_RESULT, TW_SVC_LOGGER, TW_LCMD_GET_STATS, 43);
  assert_int_equal(r.nbody, TW_STAT_WORDS);
  assert_int_equal(r.body[TW_STAT_CMDS], 4);
  assert_int_equal(r.body[TW_STAT_RECORDS], 8); /* SYNC, TRACE_START, 6 NAME */
  assert_int_equal(r.body[TW_STAT_PACKETS], EV.npkts);
  assert_int_equal(r.body[TW_STAT_BYTES], EV.len);
  cmd(TW_SVC_LOGGER, TW_LCMD_RESET_STATS, 44, NULL, 0);
  expect(TW_MSG_ACK, TW_SVC_LOGGER, TW_LCMD_RESET_STATS, 44);
  cmd(TW_SVC_LOGGER, TW_LCMD_GET_STATS, 45, NULL, 0);
  r = expect(TW_MSG_RESULT, TW_SVC_LOGGER, TW_LCMD_GET_STATS, 45);
  assert_int_equal(r.body[TW_STAT_CMDS], 1); /* this one */
  assert_int_equal(r.body[TW_STAT_RECORDS], 0);
  assert_int_equal(r.body[TW_STAT_PACKETS], 0);
}

/* Not for this endpoint, not a command, not a message: no reply, counted. */
static void test_ignored_and_malformed(void **state)
{
  (void)state;
  uint8_t pkt[64];
  size_t n = mk(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 50, 50, EP + 1, HOSTADR, NULL, 0);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  n = mk(pkt, TW_MSG_ACK, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 51, 51, EP, HOSTADR, NULL, 0);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  assert_int_equal(RP.npkts, 0);
  assert_int_equal(K.ignored, 2);
  assert_int_equal(tw_cmd_receive(&K, pkt, 12), TW_EBADMSG);
  pkt[0] = 0xA0; /* an EventPkt, not a message */
  assert_int_equal(tw_cmd_receive(&K, pkt, n), TW_EBADMSG);
  assert_int_equal(K.malformed, 2);
  assert_int_equal(RP.npkts, 0);
  /* BROADCAST reaches this endpoint */
  n = mk(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 52, 0xC0DE0034u, TW_ADDR_BROADCAST,
         HOSTADR, NULL, 0);
  assert_int_equal(tw_cmd_receive(&K, pkt, n), 0);
  expect(TW_MSG_RESULT, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 52);
}

static void echo_service(void *ctx, const struct tw_cmd_msg *m, struct tw_cmd_reply *r)
{
  (*(int *)ctx)++;
  r->type = TW_MSG_RESULT;
  r->body[0] = m->body_len;
  r->body_len = 4;
}

static void test_user_service(void **state)
{
  (void)state;
  static int calls;
  assert_int_equal(tw_cmd_register(&K, 0x801, echo_service, &calls), 0);
  assert_int_equal(tw_cmd_register(&K, 0x801, echo_service, &calls), TW_EEXIST);
  assert_int_equal(tw_cmd_register(&K, 0, echo_service, &calls), TW_EINVAL);
  assert_int_equal(tw_cmd_register(&K, 0x1000, echo_service, &calls), TW_EINVAL);
  for (uint16_t i = 0; K.nsvc < TW_CFG_CMD_SERVICES; i++)
    assert_int_equal(tw_cmd_register(&K, (uint16_t)(0x900 + i), echo_service, &calls), 0);
  assert_int_equal(tw_cmd_register(&K, 0xA00, echo_service, &calls), TW_ENOSPC);
  cmd(0x801, 77, 60, (uint32_t[]){1, 2, 3}, 3);
  struct reply r = expect(TW_MSG_RESULT, 0x801, 77, 60);
  assert_int_equal(r.body[0], 12);
  assert_int_equal(calls, 1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
  const struct CMUnitTest tests[] = {
    T(test_service_not_supported), T(test_cmd_not_supported), T(test_bad_message_length),
    T(test_bad_endpoint_address), T(test_set_mask_bad_data_echoes_body), T(test_flowctrl),
    T(test_queue_full), T(test_flush_ack_and_queue_full), T(test_work_queue_full), T(test_info_names_stats),
    T(test_ignored_and_malformed), T(test_user_service),
    T(test_ti_style_command_little_endian_no_footer), T(test_ti_style_empty_command_and_nacks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
