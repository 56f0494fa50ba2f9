/*
 * `tracewire record --reconnect` started before the target exists: the
 * firmware engineer starts the recorder, then powers or flashes the board.
 * Run in-process (tw_cli) with a fake target in a thread that behaves like
 * the firmware's command service (answers GET_INFO, SET_MASK, START, STOP;
 * streams only after START).
 *   - tcp://: nothing listens at the start; after ~1 s the target listens;
 *     record connects, starts it, and the trace holds the whole stream;
 *   - serial://: the device node is absent (open: ENOENT, injected through
 *     tw_sys) for the first opens, then the pty opens;
 *   - a target that never appears: --duration ends the recording with exit
 *     status 1, the trace closed cleanly with no data; Ctrl-C ends it too;
 *   - what must stay an immediate error: a refused connect without
 *     --reconnect, a host name that does not resolve, permission denied
 *     on the device, a device that is not a tty (with --reconnect).
 */
// tw-test-libs: tw_cli
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "cli.h"
#include "host/fake_target.h"
#include "host/helpers.h"
#include "tracewire/cmd.h"
#include "tracewire/twt/conn_twt.h"
#include "tracewire/io/sys.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/error.h"

/* One session of a board that just booted: START, the whole stream, STOP
 * (record sends it at --idle: the target is connected and answered). */
static void serve_session(int fd)
{
  if (serve_until(fd, TW_LCMD_START, 5000) < 0)
    return target_fail("no START");
  if (write_all(fd, S.data, S.len) < 0)
    return target_fail("stream");
  wait_received();
  if (serve_until(fd, TW_LCMD_STOP, 5000) < 0)
    target_fail("no STOP at the end");
}

/* A loopback port nobody listens on (bound a moment ago, then released). */
static int free_port(void)
{
  int fd = listen_on(0);
  assert_true(fd >= 0);
  int port = port_of(fd);
  close(fd);
  return port;
}

/* ---- what record said and wrote ------------------------------------------ */

static size_t count_str(const char *hay, const char *needle)
{
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p++)
    n++;
  return n;
}

static const char *const NOTES[] = {"to appear (", "target appeared"};
enum { NOTE_WAITING, NOTE_APPEARED };

/* The recorded trace decodes to exactly the events of the stream sent:
 * nothing skipped, lost or unexplained. */
static void assert_trace_whole(void)
{
  struct tw_conn *src;
  struct tw_reader *rd;
  struct text got, want;
  struct tw_decoder *d = decode_twt(twt, &got, &src, &rd);
  assert_int_equal(tw_reader_stats(rd)->skipped, 0);
  assert_int_equal(tw_decoder_nstreams(d), 1);
  const struct tw_stream_stats *st = tw_decoder_stream(d, 0);
  assert_int_equal(st->pkts_lost, 0);
  assert_int_equal(st->events_lost, 0);
  assert_int_equal(st->unexplained, 0);
  tw_decoder_close(decode_mem(S.data, S.len, &want));
  assert_true(want.events > 0);
  assert_int_equal(got.events, want.events);
  assert_string_equal(got.buf, want.buf);
  free(want.buf);
  tw_decoder_close(d);
  tw_reader_close(rd);
  tw_conn_close(src);
  free(got.buf);
}

static int setup(void **state)
{
  (void)state;
  fixture_setup(60, "/tmp/tw_wait_XXXXXX");
  return 0;
}

/* ---- (a) tcp://: the target starts listening a second after record ---------- */

static int late_port;

static void *late_tcp_target(void *arg)
{
  (void)arg;
  usleep(1000000); /* powering up: connection refused meanwhile */
  int lfd = listen_on(late_port);
  if (lfd < 0)
    return target_fail("listen"), NULL;
  int fd = accept_within(lfd, 5000);
  close(lfd);
  if (fd < 0)
    return target_fail("no connection from record"), NULL;
  serve_session(fd);
  close(fd);
  return NULL;
}

static void tcp_target_appears_later(void **state)
{
  (void)state;
  late_port = free_port();
  char uri[64], want[160];
  snprintf(uri, sizeof uri, "tcp://127.0.0.1:%d", late_port);
  tw_sys_set(&fault);
  char *argv[] = {"record", "--from", uri, "-o", twt, "-q", "--mask", "0xffff",
                  "--reconnect", "--idle", "1", NULL};
  unsigned long long took;
  int rc = record_against(late_tcp_target, 11, argv, &took);
  assert_target_ok();
  assert_int_equal(rc, TW_EXIT_OK);
  assert_true(took < 8000);
  /* the start-up path of a first connection, once */
  assert_int_equal(T.gets, 1);
  assert_int_equal(T.masks, 1);
  assert_int_equal(T.starts, 1);
  assert_int_equal(T.stops, 1);
  /* refused for ~1 s: attempts at 0, 50, 150, 350, 750 ms, ~1.5 s */
  assert_in_range(connect_calls, 3, 10);
  char *e = slurp(errpath);
  snprintf(want, sizeof want, "waiting for %s to appear (connect: Connection refused)", uri);
  assert_int_equal(count_str(e, want), 1); /* said once */
  assert_int_equal(count_str(e, "target appeared"), 1);
  assert_null(strstr(e, "never appeared"));
  free(e);
  struct twt_census k = twt_census(twt, NOTES, 2);
  assert_int_equal(k.type[TW_TWT_SOURCE], 1);
  assert_int_equal(k.note[NOTE_WAITING], 1);
  assert_int_equal(k.note[NOTE_APPEARED], 1);
  assert_int_equal(k.type[TW_TWT_INFO], 1);
  assert_int_equal(k.type[TW_TWT_END], 1);
  assert_trace_whole();
}

/* ---- (b) serial://: the device node appears after a few opens ----------------- */

static char pts[64];
static int serial_opens; /* successful opens of pts (atomic) */
static int enoent_left;  /* opens still to fail (atomic) */
static int open_errno;   /* what they fail with */

static int serial_open(const char *p, int flags, int mode)
{
  if (strcmp(p, pts) == 0) {
    if (__atomic_load_n(&enoent_left, __ATOMIC_ACQUIRE) > 0) {
      __atomic_sub_fetch(&enoent_left, 1, __ATOMIC_ACQ_REL);
      errno = open_errno;
      return -1;
    }
    int fd = open(p, flags, mode);
    if (fd >= 0)
      __atomic_add_fetch(&serial_opens, 1, __ATOMIC_ACQ_REL);
    return fd;
  }
  return tw_sys_default.open(p, flags, mode);
}

static int pty_master;

static void *serial_target(void *arg)
{
  (void)arg;
  serve_session(pty_master);
  return NULL;
}

static void open_pty(void)
{
  pty_master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  assert_true(pty_master >= 0);
  assert_int_equal(grantpt(pty_master), 0);
  assert_int_equal(unlockpt(pty_master), 0);
  snprintf(pts, sizeof pts, "%s", ptsname(pty_master));
  serial_opens = 0;
}

static void serial_device_appears_later(void **state)
{
  (void)state;
  open_pty();
  enoent_left = 4;
  open_errno = ENOENT;
  fault.open = serial_open;
  tw_sys_set(&fault);
  char uri[96], want[200];
  snprintf(uri, sizeof uri, "serial://%s", pts);
  char *argv[] = {"record", "--from", uri, "-o", twt, "-q", "--reconnect", "--idle", "1", NULL};
  int rc = record_against(serial_target, 9, argv, NULL);
  close(pty_master);
  assert_target_ok();
  assert_int_equal(rc, TW_EXIT_OK);
  assert_int_equal(enoent_left, 0); /* every failed open was tried... */
  assert_int_equal(serial_opens, 1); /* ...then the device opened once */
  assert_int_equal(T.gets, 1);
  assert_int_equal(T.starts, 1);
  assert_int_equal(T.stops, 1);
  char *e = slurp(errpath);
  snprintf(want, sizeof want, "waiting for serial://%s?baud=115200 to appear (open: %s)", pts,
           strerror(ENOENT));
  assert_int_equal(count_str(e, want), 1);
  assert_int_equal(count_str(e, "target appeared"), 1);
  free(e);
  struct twt_census k = twt_census(twt, NOTES, 2);
  assert_int_equal(k.note[NOTE_WAITING], 1);
  assert_int_equal(k.type[TW_TWT_INFO], 1);
  assert_int_equal(k.type[TW_TWT_END], 1);
  assert_trace_whole();
}

/* ---- (c) a target that never appears ---------------------------------------- */

static void assert_empty_trace_closed(void)
{
  struct twt_census k = twt_census(twt, NOTES, 2);
  assert_int_equal(k.type[TW_TWT_SOURCE], 1);
  assert_int_equal(k.note[NOTE_WAITING], 1);
  assert_int_equal(k.note[NOTE_APPEARED], 0);
  assert_int_equal(k.type[TW_TWT_DATA], 0);
  assert_int_equal(k.type[TW_TWT_INFO], 0);
  assert_int_equal(k.type[TW_TWT_END], 1); /* closed cleanly */
  char *e = slurp(errpath);
  assert_int_equal(count_str(e, "to appear ("), 1);
  assert_int_equal(count_str(e, "the target never appeared; nothing was recorded from it"), 1);
  free(e);
}

static void tcp_never_appears_duration_ends(void **state)
{
  (void)state;
  char uri[64];
  snprintf(uri, sizeof uri, "tcp://127.0.0.1:%d", free_port());
  tw_sys_set(&fault);
  char *argv[] = {"record", "--from", uri, "-o", twt, "-q", "--reconnect", "--duration", "2",
                  NULL};
  unsigned long long t0 = now_ms();
  int rc = run_record(9, argv);
  unsigned long long took = now_ms() - t0;
  tw_sys_set(NULL);
  assert_int_equal(rc, TW_EXIT_ERROR); /* docs/cli.md: nothing recorded is a failure */
  assert_in_range(took, 1900, 3500);
  /* 2 s of refused attempts paced by the backoff, not a busy loop */
  assert_in_range(connect_calls, 4, 10);
  assert_empty_trace_closed();
}

static pthread_t main_thread;

static void *ctrl_c(void *arg)
{
  (void)arg;
  usleep(500000);
  pthread_kill(main_thread, SIGINT);
  return NULL;
}

static void serial_never_appears_ctrl_c_ends(void **state)
{
  (void)state;
  open_pty();
  enoent_left = 1 << 30;
  open_errno = ENODEV; /* a node without its device: also waited for */
  fault.open = serial_open;
  tw_sys_set(&fault);
  char uri[96];
  snprintf(uri, sizeof uri, "serial://%s", pts);
  char *argv[] = {"record", "--from", uri, "-o", twt, "-q", "--reconnect", "--duration", "20",
                  NULL};
  main_thread = pthread_self();
  unsigned long long took;
  int rc = record_against(ctrl_c, 9, argv, &took);
  close(pty_master);
  signal(SIGINT, SIG_DFL);
  assert_int_equal(rc, TW_EXIT_ERROR);
  assert_in_range(took, 450, 2000);
  assert_int_equal(serial_opens, 0);
  assert_empty_trace_closed();
}

/* ---- (d), (e): errors that stay immediate ----------------------------------- */

static void assert_immediate_error(int argc, char **argv, const char *want)
{
  unsigned long long t0 = now_ms();
  int rc = run_record(argc, argv);
  unsigned long long took = now_ms() - t0;
  assert_int_equal(rc, TW_EXIT_ERROR);
  assert_true(took < 1500);
  char *e = slurp(errpath);
  if (!strstr(e, want))
    fail_msg("stderr lacks \"%s\": %s", want, e);
  assert_null(strstr(e, "waiting for"));
  free(e);
}

static void refused_without_reconnect_is_an_error(void **state)
{
  (void)state;
  char uri[64], want[160];
  snprintf(uri, sizeof uri, "tcp://127.0.0.1:%d", free_port());
  snprintf(want, sizeof want, "record: %s: connect: Connection refused", uri);
  char *argv[] = {"record", "--from", uri, "-o", twt, "-q", "--duration", "5", NULL};
  assert_immediate_error(8, argv, want);
}

static void unknown_host_with_reconnect_is_an_error(void **state)
{
  (void)state;
  /* .invalid never resolves (RFC 2606) */
  char *argv[] = {"record", "--from", "tcp://no-such-board.invalid:9000", "-o", twt, "-q",
                  "--reconnect", "--duration", "5", NULL};
  assert_immediate_error(9, argv, "record: tcp://no-such-board.invalid:9000: ");
}

static void serial_unhealable_with_reconnect_is_an_error(void **state)
{
  (void)state;
  open_pty();
  enoent_left = 1 << 30;
  open_errno = EACCES; /* not in the dialout group: waiting will not help */
  fault.open = serial_open;
  tw_sys_set(&fault);
  char uri[96], want[200];
  snprintf(uri, sizeof uri, "serial://%s", pts);
  snprintf(want, sizeof want, "record: serial://%s?baud=115200: open: %s", pts, strerror(EACCES));
  char *argv[] = {"record", "--from", uri, "-o", twt, "-q", "--reconnect", "--duration", "5",
                  NULL};
  assert_immediate_error(9, argv, want);
  tw_sys_set(NULL);
  close(pty_master);
  /* a path that is not a tty */
  char *argv2[] = {"record", "--from", "serial:///dev/null", "-o", twt, "-q", "--reconnect",
                   "--duration", "5", NULL};
  assert_immediate_error(9, argv2, "record: serial:///dev/null?baud=115200: tcgetattr: ");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(tcp_target_appears_later, setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(serial_device_appears_later, setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(tcp_never_appears_duration_ends, setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(serial_never_appears_ctrl_c_ends, setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(refused_without_reconnect_is_an_error, setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(unknown_host_with_reconnect_is_an_error, setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(serial_unhealable_with_reconnect_is_an_error, setup,
                                    fixture_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
