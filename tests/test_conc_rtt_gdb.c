/*
 * record --from rtt+gdb:// against a fake GDB server with a fake target
 * behind it (tests/host/fake_gdb.h): the real target RTT code writing, the
 * real host transport reading through the GDB remote protocol. All-stop
 * (QEMU 7.2's way: halt, read, continue, and nothing sent while the
 * target runs) and non-stop (no halt at all), acks and no acks; and the
 * bad input: no control block in the range, a refused connection, error
 * replies, a corrupt control block, a target that resets, a target that
 * exits, a server that goes away.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "host/fake_gdb.h"
#include "tracewire/io/conn.h"
#include "tracewire/io/conn_rtt_gdb.h"
#include "tracewire/io/gdb.h"
#include "tracewire/error.h"

static char uri[256];

static int setup(void **state)
{
  (void)state;
  memset(&G, 0, sizeof G);
  G.total = 60000;
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  fg_stop();
  return 0;
}

static void start(const char *opts)
{
  assert_int_equal(fg_start(), 0);
  snprintf(uri, sizeof uri, "rtt+gdb://127.0.0.1:%d?addr=0x%x&size=0x%x&poll=1%s", G.port,
           G.base, FG_MEM, opts);
}

static unsigned long long ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000u + (unsigned long long)ts.tv_nsec / 1000000u;
}

/* Read n bytes (or until an error or 20 s); returns the count. */
static uint32_t read_n(struct tw_conn *c, uint8_t *buf, uint32_t n, int *rc)
{
  uint32_t got = 0;
  unsigned long long t0 = ms();
  *rc = 0;
  while (got < n && ms() - t0 < 20000) {
    int r = tw_conn_read(c, buf + got, n - got, 100);
    if (r > 0)
      got += (uint32_t)r;
    else if (r != TW_EAGAIN) {
      *rc = r;
      break;
    }
  }
  return got;
}

static void expect_pattern(const uint8_t *b, uint32_t n, uint32_t from)
{
  for (uint32_t i = 0; i < n; i++)
    if (b[i] != fg_pattern(from + i))
      fail_msg("byte %u: 0x%02x, expected 0x%02x", from + i, b[i], fg_pattern(from + i));
}

/* The stream arrives whole and in order, and a command goes down. */
static void stream_and_command(int nonstop)
{
  char err[512];
  struct tw_conn *c;
  int rc = tw_conn_open(uri, &c, err, sizeof err);
  if (rc)
    fail_msg("%s", err);
  assert_int_equal(c->connects, 1);
  static uint8_t buf[60000];
  uint32_t got = read_n(c, buf, G.total, &rc);
  assert_int_equal(rc, 0);
  assert_int_equal(got, G.total);
  expect_pattern(buf, got, 0);
  assert_int_equal(tw_conn_write(c, "hello", 5), 0);
  unsigned long long t0 = ms();
  while (FG_LOAD(&G.ngot) < 5 && ms() - t0 < 5000)
    (void)tw_conn_read(c, buf, sizeof buf, 10); /* polls carry the bytes down */
  assert_int_equal(FG_LOAD(&G.ngot), 5);
  assert_memory_equal(G.got, "hello", 5);
  const struct tw_gdb *g = tw_conn_rtt_gdb_client(c);
  assert_non_null(g);
  assert_int_equal(g->nonstop, nonstop);
  if (nonstop)
    assert_int_equal(g->halts, 0);
  else
    assert_true(g->halts > 0);
  tw_conn_close(c);
  assert_int_equal(FG_LOAD(&G.while_running), 0); /* nothing sent while it ran (all-stop) */
}

static void test_all_stop(void **state)
{
  (void)state;
  start("");
  stream_and_command(0);
}

static void test_all_stop_noack(void **state)
{
  (void)state;
  G.noack = 1;
  start("");
  stream_and_command(0);
}

static void test_non_stop(void **state)
{
  (void)state;
  G.nonstop = 1;
  start("");
  stream_and_command(1);
}

static void test_mode_halt_on_a_nonstop_server(void **state)
{
  (void)state;
  G.nonstop = 1;
  start("&mode=halt");
  char err[512];
  struct tw_conn *c;
  assert_int_equal(tw_conn_open(uri, &c, err, sizeof err), 0);
  assert_int_equal(tw_conn_rtt_gdb_client(c)->nonstop, 0);
  tw_conn_close(c);
}

static void test_no_control_block(void **state)
{
  (void)state;
  G.no_cb = 1;
  start("&find=300");
  char err[512], range[64];
  struct tw_conn *c;
  int rc = tw_conn_open(uri, &c, err, sizeof err);
  assert_int_equal(rc, TW_ENOENT);
  snprintf(range, sizeof range, "0x%08x..0x%08x", G.base, G.base + FG_MEM - 1u);
  assert_non_null(strstr(err, "no RTT control block"));
  assert_non_null(strstr(err, range));
  assert_non_null(strstr(err, "?cb="));
  assert_non_null(strstr(err, "addr="));
}

static void test_refused(void **state)
{
  (void)state;
  start("");
  snprintf(uri, sizeof uri, "rtt+gdb://127.0.0.1:1?find=100");
  char err[512];
  struct tw_conn *c;
  assert_true(tw_conn_open(uri, &c, err, sizeof err) < 0);
  assert_non_null(strstr(err, "refused"));
}

static void test_bad_options(void **state)
{
  (void)state;
  char err[512];
  struct tw_conn *c;
  assert_int_equal(tw_conn_open("rtt+gdb://127.0.0.1:1?bogus=1", &c, err, sizeof err), TW_EINVAL);
  assert_non_null(strstr(err, "bogus=1"));
  assert_int_equal(tw_conn_open("rtt+gdb://127.0.0.1:1?addr=0xffffff00&size=4096", &c, err,
                                sizeof err), TW_EINVAL);
  assert_int_equal(tw_conn_open("rtt+gdb://nohostport", &c, err, sizeof err), TW_EINVAL);
  start(""); /* (teardown stops the fake) */
}

static void test_error_replies(void **state)
{
  (void)state;
  G.mem_error = 1;
  start("&find=200");
  char err[512];
  struct tw_conn *c;
  int rc = tw_conn_open(uri, &c, err, sizeof err);
  assert_int_equal(rc, TW_ENOENT);
  assert_non_null(strstr(err, "no RTT control block"));
  assert_non_null(strstr(err, "could not be read"));
  assert_non_null(strstr(err, "error reply 'E01'"));
}

/* A range that runs past the target's RAM: the part it has is searched. */
static void test_range_past_ram(void **state)
{
  (void)state;
  start("");
  snprintf(uri, sizeof uri, "rtt+gdb://127.0.0.1:%d?addr=0x%x&size=0x%x&poll=1", G.port,
           G.base, 2 * FG_MEM);
  char err[512];
  struct tw_conn *c;
  int rc = tw_conn_open(uri, &c, err, sizeof err);
  if (rc)
    fail_msg("%s", err);
  static uint8_t buf[1000];
  assert_int_equal(read_n(c, buf, sizeof buf, &rc), sizeof buf);
  expect_pattern(buf, sizeof buf, 0);
  tw_conn_close(c);
}

static void test_corrupt_control_block(void **state)
{
  (void)state;
  start("");
  char err[512];
  struct tw_conn *c;
  assert_int_equal(tw_conn_open(uri, &c, err, sizeof err), 0);
  static uint8_t buf[4096];
  int rc;
  assert_int_equal(read_n(c, buf, 1000, &rc), 1000);
  FG_STORE(&G.corrupt, 1);
  unsigned long long t0 = ms();
  while (ms() - t0 < 5000 && (rc = tw_conn_read(c, buf, sizeof buf, 50)) != TW_EPROTO)
    assert_true(rc > 0 || rc == TW_EAGAIN);
  assert_int_equal(rc, TW_EPROTO);
  assert_non_null(strstr(tw_conn_error(c), "outside"));
  assert_non_null(strstr(tw_conn_error(c), "corrupt"));
  tw_conn_close(c);
}

static void test_reset_with_reconnect(void **state)
{
  (void)state;
  start("");
  char err[512];
  struct tw_conn *c;
  assert_int_equal(tw_conn_open_waiting(uri, &c, err, sizeof err), 0);
  static uint8_t buf[4096];
  int rc;
  assert_int_equal(read_n(c, buf, 1000, &rc), 1000);
  assert_int_equal(c->connects, 1);
  FG_STORE(&G.corrupt, 1); /* the block fails its checks ... */
  unsigned long long t0 = ms();
  while (ms() - t0 < 5000 && c->disconnects == 0)
    assert_true((rc = tw_conn_read(c, buf, sizeof buf, 20)) > 0 || rc == TW_EAGAIN);
  assert_int_equal(c->disconnects, 1);
  assert_non_null(strstr(tw_conn_error(c), "target lost"));
  FG_STORE(&G.reinit, 1); /* ... then the target, reset, makes it again */
  while (ms() - t0 < 10000 && c->connects < 2)
    assert_true((rc = tw_conn_read(c, buf, sizeof buf, 20)) > 0 || rc == TW_EAGAIN);
  assert_int_equal(c->connects, 2);
  assert_true(read_n(c, buf, 500, &rc) == 500); /* and it streams again */
  tw_conn_close(c);
}

static void test_target_exits(void **state)
{
  (void)state;
  start("");
  char err[512];
  struct tw_conn *c;
  assert_int_equal(tw_conn_open(uri, &c, err, sizeof err), 0);
  static uint8_t buf[4096];
  int rc;
  assert_int_equal(read_n(c, buf, 100, &rc), 100);
  FG_STORE(&G.exit_code, 0);
  unsigned long long t0 = ms();
  while (ms() - t0 < 5000 && ((rc = tw_conn_read(c, buf, sizeof buf, 50)) > 0 || rc == TW_EAGAIN))
    ;
  assert_int_equal(rc, TW_EOF);
  /* the W packet, or (when the server's close raced our next request and
   * the kernel dropped the W with the reset) the closed connection */
  if (!strstr(tw_conn_error(c), "exited") && !strstr(tw_conn_error(c), "closed the connection"))
    fail_msg("%s", tw_conn_error(c));
  tw_conn_close(c);
}

static void test_server_goes_away_with_reconnect(void **state)
{
  (void)state;
  start("");
  char err[512];
  struct tw_conn *c;
  assert_int_equal(tw_conn_open_waiting(uri, &c, err, sizeof err), 0);
  static uint8_t buf[4096];
  int rc;
  assert_int_equal(read_n(c, buf, 100, &rc), 100);
  FG_STORE(&G.drop, 1);
  unsigned long long t0 = ms();
  while (ms() - t0 < 10000 && c->connects < 2)
    assert_true((rc = tw_conn_read(c, buf, sizeof buf, 20)) > 0 || rc == TW_EAGAIN);
  assert_int_equal(c->connects, 2);
  assert_true(c->disconnects >= 1);
  assert_true(FG_LOAD(&G.connections) >= 2);
  tw_conn_close(c);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_all_stop, setup, teardown),
    cmocka_unit_test_setup_teardown(test_all_stop_noack, setup, teardown),
    cmocka_unit_test_setup_teardown(test_non_stop, setup, teardown),
    cmocka_unit_test_setup_teardown(test_mode_halt_on_a_nonstop_server, setup, teardown),
    cmocka_unit_test_setup_teardown(test_no_control_block, setup, teardown),
    cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
    cmocka_unit_test_setup_teardown(test_bad_options, setup, teardown),
    cmocka_unit_test_setup_teardown(test_error_replies, setup, teardown),
    cmocka_unit_test_setup_teardown(test_range_past_ram, setup, teardown),
    cmocka_unit_test_setup_teardown(test_corrupt_control_block, setup, teardown),
    cmocka_unit_test_setup_teardown(test_reset_with_reconnect, setup, teardown),
    cmocka_unit_test_setup_teardown(test_target_exits, setup, teardown),
    cmocka_unit_test_setup_teardown(test_server_goes_away_with_reconnect, setup, teardown),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]); /* one case by name, by hand */
  signal(SIGPIPE, SIG_IGN); /* as record does: a closed server is an error, not a signal */
  return cmocka_run_group_tests(tests, NULL, NULL);
}
