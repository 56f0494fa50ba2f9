/*
 * Lengths and counts from the wire or a file are bounded before they size
 * anything (docs/reliability.md, "What is bounded where"): each case
 * below hands the host a length far beyond its bound and checks that it is
 * refused with a message, that nothing is read or allocated for it, and
 * that what follows is still decoded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <unistd.h>
#include "host/helpers.h"
#include "tracewire/error.h"
#include "tracewire/events_gen.h"
#include "tracewire/cmd.h"
#include "tracewire/wire/cmd_client.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/vocab.h"

struct skips {
  struct tw_skip s[8];
  int n;
};

static void on_skip(void *ctx, const struct tw_skip *k)
{
  struct skips *s = ctx;
  if (s->n < 8)
    s->s[s->n++] = *k;
}

/* A packet header announcing 128 MiB - 4 is skipped as an impossible
 * length (the reader's buffer is max_pkt + read size, fixed at open),
 * and the valid packet right after it is found. */
static void reader_refuses_huge_length(void **state)
{
  (void)state;
  struct stream_buf S;
  struct tw_synth_cfg cfg = {.pkt_bytes = 200};
  synth_stream(&S, 2, &cfg);
  uint8_t buf[8 + 4096];
  tw_store_be32(buf, (uint32_t)TW_PKT_EVENT << 28 | 0x7FFFFFCu);
  tw_store_be32(buf + 4, 0);
  memcpy(buf + 8, S.data, S.len);
  struct tw_conn *c;
  struct tw_reader *r;
  struct skips sk = {0};
  assert_int_equal(tw_conn_mem_open(buf, 8 + S.len, &c), 0);
  assert_int_equal(tw_reader_open(&r, c, &(struct tw_reader_cfg){.max_pkt_bytes = 1024}), 0);
  tw_reader_on_skip(r, on_skip, &sk);
  struct tw_pkt p;
  assert_int_equal(tw_reader_next(r, &p, 0), 1);
  assert_int_equal(tw_reader_pkt_offset(r), 8);
  assert_int_equal(sk.n, 1);
  assert_int_equal(sk.s[0].reason, TW_ETOOBIG);
  assert_int_equal(sk.s[0].count, 8);
  assert_int_equal(tw_reader_next(r, &p, 0), 1);
  assert_int_equal(tw_reader_next(r, &p, 0), TW_EOF);
  tw_reader_close(r);
  tw_conn_close(c);
  free(S.data);
}

static int sink_words(void *ctx, const uint32_t *w, size_t n)
{
  struct stream_buf *b = ctx;
  for (size_t i = 0; i < n; i++)
    tw_store_be32(b->data + b->len + 4 * i, w[i]);
  b->len += 4 * n;
  return 0;
}

/* A NAME snapshot of 4000 bytes against a 256-byte snapshot bound: the
 * decoder reports it and skips it (the reassembly buffer is sized by the
 * configuration once), and the event after it decodes. */
static void decoder_refuses_snapshot_beyond_bound(void **state)
{
  (void)state;
  struct stream_buf b = {.data = calloc(1, 65536)};
  b.len = TW_EVPKT_HDR_BYTES;
  static char big[4000];
  memset(big, 'x', sizeof big);
  uint32_t seq;
  assert_int_equal(tw_snapshot_encode(sink_words, &b, 0, &seq, 1, 10, TW_EV_NAME, TW_MOD_CONTROL,
                                      0, 0, 1, 0, 0, big, sizeof big, 256), 0);
  uint32_t w[8], task = 7;
  int n = tw_record_encode(w, 8, seq, 1, 20, TW_EV_TASK_SWITCH,
                           tw_event_desc_by_id(TW_EV_TASK_SWITCH)->module, &task, 1);
  assert_true(n > 0);
  sink_words(&b, w, (size_t)n);
  size_t len = b.len + TW_FOOTER_BYTES;
  tw_pkt_hdr h;
  tw_pkt_init_event(&h, TW_ENDIAN_BIG, (uint32_t)len, 0, 0, 1, 0, TW_ADDR_HOST, 1);
  memcpy(b.data, &h, sizeof h);
  tw_store_be32(b.data + b.len, tw_pkt_footer((uint32_t)len));
  struct tw_conn *c;
  struct tw_reader *r;
  struct tw_decoder *d;
  struct text t;
  memset(&t, 0, sizeof t);
  assert_int_equal(tw_conn_mem_open(b.data, len, &c), 0);
  assert_int_equal(tw_reader_open(&r, c, NULL), 0);
  assert_int_equal(tw_decoder_open(&d, &(struct tw_decoder_cfg){.max_snapshot = 256}), 0);
  t.d = d;
  tw_decoder_on_event(d, text_event, &t);
  tw_decoder_on_diag(d, text_diag, &t);
  assert_int_equal(tw_decoder_run(d, r), 0);
  assert_int_equal(count_diags(&t, TW_DIAG_SNAPSHOT), 1);
  assert_int_equal(t.events, 1);
  assert_non_null(strstr(t.buf, "TaskSwitch"));
  assert_int_equal(tw_decoder_stream(d, 0)->unexplained, 0);
  tw_decoder_close(d);
  tw_reader_close(r);
  tw_conn_close(c);
  free(t.buf);
  free(b.data);
}

static char path[64];

static void write_file(const void *d, size_t n)
{
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(d, 1, n, f), n);
  fclose(f);
}

/* The file header's own size field (regression: fuzz/regress/twt) and a
 * chunk length beyond TW_TWT_MAX_CHUNK are refused with the offset. */
static void twt_refuses_huge_sizes(void **state)
{
  (void)state;
  uint8_t f[32 + 24 + 8] = "TWTRACE";
  char err[256];
  struct tw_twt_reader *r;
  snprintf(path, sizeof path, "/tmp/tw_bounds_%d.twt", (int)getpid());
  tw_store_le32(f + 8, TW_TWT_VERSION);
  tw_store_le32(f + 12, 0xFFFFFF20u);
  write_file(f, 32);
  assert_int_equal(tw_twt_open(path, &r, err, sizeof err), TW_EBADMSG);
  assert_non_null(strstr(err, "damaged file header"));
  assert_non_null(strstr(err, "4294967072"));

  tw_store_le32(f + 12, TW_TWT_HDR_BYTES);
  uint8_t *ch = f + 32;
  uint32_t len = TW_TWT_MAX_CHUNK + 1;
  tw_store_le32(ch, TW_TWT_CHUNK_MAGIC);
  ch[4] = TW_TWT_DATA;
  tw_store_le32(ch + 8, len);
  tw_store_le32(ch + 12, tw_twt_check_word(len, TW_TWT_DATA, 0)); /* a consistent check word */
  write_file(f, sizeof f);
  assert_int_equal(tw_twt_open(path, &r, err, sizeof err), 0);
  struct tw_twt_chunk c;
  assert_int_equal(tw_twt_next(r, &c), TW_EBADMSG);
  assert_non_null(strstr(tw_twt_reader_error(r), "offset 32"));
  assert_int_equal(tw_twt_next(r, &c), 0);
  tw_twt_close_reader(r);
  unlink(path);
}

/* ---- the host's command client: a reply body larger than the reply ---- */

static uint8_t sent[TW_MSG_MAX_BYTES];
static size_t nsent;

static int capture_write(struct tw_conn *c, const void *buf, size_t n)
{
  (void)c;
  memcpy(sent, buf, n < sizeof sent ? n : sizeof sent);
  nsent = n;
  return 0;
}

static const struct tw_conn_ops capture_ops = {.scheme = "test", .write = capture_write};
static struct tw_cmd_client client;

/* The "target" answers the command just sent with a RESULT of 500 words
 * (the 11-bit message length allows 2047 bytes). */
static int huge_reply_pump(void *ctx, int timeout_ms)
{
  (void)ctx;
  (void)timeout_ms;
  static uint8_t rep[16 + 4 * 500 + 4];
  tw_pkt_hdr q, h;
  struct tw_pkt p;
  memcpy(&q, sent, sizeof q);
  tw_pkt_init_msg(&h, TW_ENDIAN_BIG, TW_MSG_RESULT, sizeof rep, tw_pkt_get_service_id(&q),
                  tw_pkt_get_seq(&q), tw_pkt_get_cmd_id(&q), tw_pkt_get_tag(&q), TW_ADDR_HOST, 5);
  memcpy(rep, &h, sizeof h);
  for (uint32_t i = 0; i < 500; i++)
    tw_store_be32(rep + 16 + 4 * i, 0xA0000000u + i);
  tw_store_be32(rep + sizeof rep - 4, tw_pkt_footer(sizeof rep));
  assert_int_equal(tw_pkt_parse(rep, sizeof rep, 0, &p), (int)sizeof rep);
  assert_int_equal(tw_cmd_client_msg(&client, &p), 1);
  return 0;
}

static void cmd_client_clamps_reply_body(void **state)
{
  (void)state;
  struct tw_conn conn;
  struct tw_cmd_reply_info r;
  tw__conn_init(&conn, &capture_ops, "test");
  tw_cmd_client_init(&client, &conn, huge_reply_pump, NULL);
  assert_int_equal(tw_cmd_call(&client, TW_SVC_LOGGER, TW_LCMD_GET_INFO, NULL, 0, &r), 0);
  assert_true(nsent > 0);
  assert_int_equal(r.nbody, sizeof r.body / sizeof r.body[0]);
  assert_int_equal(r.body[0], 0xA0000000u);
  assert_int_equal(r.body[r.nbody - 1], 0xA0000000u + r.nbody - 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(reader_refuses_huge_length),
    cmocka_unit_test(decoder_refuses_snapshot_beyond_bound),
    cmocka_unit_test(twt_refuses_huge_sizes),
    cmocka_unit_test(cmd_client_clamps_reply_body),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
