/*
 * `tracewire record --reconnect` against a target that goes away and comes
 * back, the way a board does when it resets, run in-process (tw_cli) with
 * a fake target in a thread that behaves like the firmware's command
 * service: it answers GET_INFO, SET_MASK and START, and streams only after
 * START. Every case checks that record sent the start-up commands again to
 * the returning target, and the recovered trace accounts for the loss
 * exactly: the cut packet as skipped bytes, the missing packets and their
 * events as sequence gaps, nothing unexplained.
 *   - tcp://: the target's server resets the connection mid-packet, stops
 *     listening (connection refused) for a while, then listens again;
 *   - tcp-listen://: the target resets and connects again;
 *   - serial://: the device read fails with EIO, the device node is gone
 *     (open: ENOENT) a few times, then opens again (fault injection through
 *     tw_sys on a pty);
 *   - tcp-listen:// with a target that stops answering commands after a
 *     reconnect: said once, and what it sends is recorded;
 *   - tcp:// with a target that never comes back: --duration still ends
 *     the recording, exit 0, the disconnect reported, the reconnect
 *     attempts paced by the backoff.
 * The fake target waits until record has read everything it sent before
 * it cuts the link (record's reads are counted through tw_sys), so the
 * loss is exactly what the test chose, not what the scheduler allowed.
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

static const size_t cut_pkt = 80, resume_pkt = 83; /* packets 80..82 never arrive whole */

static int serve_until_start(int fd, int timeout_ms)
{
  return serve_until(fd, TW_LCMD_START, timeout_ms);
}

static void reset_close(int fd)
{
  struct linger lg = {.l_onoff = 1, .l_linger = 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  close(fd);
}

/* Part one: the stream up to half of packet cut_pkt; part two: from
 * packet resume_pkt to the end. */
static int send_part1(int fd)
{
  return write_all(fd, S.data, S.off[cut_pkt] + S.plen[cut_pkt] / 2);
}

static int send_part2(int fd)
{
  return write_all(fd, S.data + S.off[resume_pkt], S.len - S.off[resume_pkt]);
}

/* ---- what record said and wrote ------------------------------------------ */

static const char *const NOTES[] = {"target disconnected at stream byte",
                                     "target connected again"};
enum { NOTE_DOWN, NOTE_UP };

/* Decode the trace; *out gets the stats of stream 0, *skipped the reader's. */
static void decode_trace(struct tw_stream_stats *out, unsigned long long *skipped,
                         unsigned long long *events, size_t *loss_diags)
{
  struct tw_conn *src;
  struct tw_reader *rd;
  struct text got;
  struct tw_decoder *d = decode_twt(twt, &got, &src, &rd);
  assert_true(tw_decoder_nstreams(d) >= 1);
  *out = *tw_decoder_stream(d, 0);
  *skipped = tw_reader_stats(rd)->skipped;
  *events = got.events;
  *loss_diags = count_diags(&got, TW_DIAG_PKT_LOSS);
  tw_decoder_close(d);
  tw_reader_close(rd);
  tw_conn_close(src);
  free(got.buf);
}

/* Packets cut_pkt..resume_pkt-1 are lost, half of cut_pkt arrived: the
 * trace must say exactly that. */
static void assert_loss_exact(void)
{
  struct tw_stream_stats st;
  unsigned long long skipped, events;
  size_t loss_diags;
  decode_trace(&st, &skipped, &events, &loss_diags);
  assert_int_equal(st.pkts_lost, resume_pkt - cut_pkt);
  /* the events those packets carried, from the generator's own count */
  unsigned long long lost = (uint16_t)(S.seq_before[resume_pkt] - S.seq_before[cut_pkt]);
  unsigned long long ring_in_gap = S.drops_before[resume_pkt] - S.drops_before[cut_pkt];
  assert_int_equal(st.events_lost + st.unexplained, lost);
  assert_int_equal(st.unexplained, 0);
  assert_int_equal(st.ring_drops + ring_in_gap, S.drops_before[S.npkts]);
  assert_int_equal(skipped, S.plen[cut_pkt] / 2);
  assert_int_equal(loss_diags, 1);
  assert_true(events > 0);
}

static int setup(void **state)
{
  (void)state;
  fixture_setup(200, "/tmp/tw_reconn_XXXXXX");
  return 0;
}

/* ---- tcp:// ---------------------------------------------------------------- */

static int tcp_lfd;

static void *tcp_server_target(void *arg)
{
  (void)arg;
  int port = port_of(tcp_lfd);
  int fd = accept_within(tcp_lfd, 5000);
  if (fd < 0 || serve_until_start(fd, 5000) < 0 || send_part1(fd) < 0) {
    target_fail("first connection");
    return NULL;
  }
  wait_received();
  /* the board resets: its server goes first (so record's next attempt is
   * refused, not queued), then the connection, mid-packet */
  close(tcp_lfd);
  reset_close(fd);
  usleep(600000); /* booting: connection refused */
  if ((tcp_lfd = listen_on(port)) < 0) {
    target_fail("listen again");
    return NULL;
  }
  fd = accept_within(tcp_lfd, 5000);
  if (fd < 0 || serve_until_start(fd, 5000) < 0 || send_part2(fd) < 0) {
    target_fail("second connection: no START");
    return NULL;
  }
  wait_received();
  close(tcp_lfd);
  tcp_lfd = -1;
  close(fd); /* the end: record reconnects in vain until --idle */
  return NULL;
}

static void tcp_target_reset_refused_back(void **state)
{
  (void)state;
  tcp_lfd = listen_on(0);
  assert_true(tcp_lfd >= 0);
  char uri[64];
  snprintf(uri, sizeof uri, "tcp://127.0.0.1:%d", port_of(tcp_lfd));
  tw_sys_set(&fault);
  char *argv[] = {"record", "--from", uri, "-o", twt, "-q", "--mask", "0xffff",
                  "--reconnect", "--idle", "2", NULL};
  unsigned long long took;
  int rc = record_against(tcp_server_target, 11, argv, &took);
  if (tcp_lfd >= 0)
    close(tcp_lfd);
  assert_target_ok();
  assert_int_equal(rc, TW_EXIT_OK);
  /* the start-up commands went to both sessions of the target */
  assert_int_equal(T.gets, 2);
  assert_int_equal(T.masks, 2);
  assert_int_equal(T.starts, 2);
  assert_int_equal(T.stops, 0); /* gone at the end: nobody to stop */
  /* refused attempts were paced: the first connect, a handful while the
   * server was down (600 ms) and while --idle ran out (2 s) */
  assert_in_range(connect_calls, 4, 25);
  assert_true(took < 10000);
  char *e = slurp(errpath);
  assert_non_null(strstr(e, "target disconnected at stream byte"));
  assert_non_null(strstr(e, "target connected again"));
  free(e);
  struct twt_census k = twt_census(twt, NOTES, 2);
  assert_int_equal(k.note[NOTE_UP], 1);
  assert_int_equal(k.note[NOTE_DOWN], 2); /* the reset and the final close */
  assert_int_equal(k.type[TW_TWT_INFO], 2);
  assert_int_equal(k.type[TW_TWT_END], 1);
  assert_loss_exact();
}

/* ---- tcp-listen:// --------------------------------------------------------- */

static void *tcp_client_target(void *arg)
{
  (void)arg;
  unsigned long long deadline = now_ms() + 5000;
  int port;
  while (!(port = __atomic_load_n(&listen_port, __ATOMIC_ACQUIRE)) && now_ms() < deadline)
    usleep(1000);
  int fd = connect_to(port);
  if (fd < 0 || serve_until_start(fd, 5000) < 0 || send_part1(fd) < 0) {
    target_fail("first connection");
    return NULL;
  }
  wait_received();
  reset_close(fd);
  usleep(100000);
  fd = connect_to(port);
  if (fd < 0 || serve_until_start(fd, 5000) < 0 || send_part2(fd) < 0) {
    target_fail("second connection: no START");
    return NULL;
  }
  wait_received();
  close(fd);
  return NULL;
}

static void tcp_listen_target_reconnects_gets_start(void **state)
{
  (void)state;
  fault.bind = bind_seen_port;
  tw_sys_set(&fault);
  char *argv[] = {"record", "--from", "tcp-listen://:0", "-o", twt, "-q", "--reconnect",
                  "--idle", "1", NULL};
  int rc = record_against(tcp_client_target, 9, argv, NULL);
  assert_target_ok();
  assert_int_equal(rc, TW_EXIT_OK);
  assert_int_equal(T.gets, 2);
  assert_int_equal(T.masks, 0); /* no --mask */
  assert_int_equal(T.starts, 2);
  struct twt_census k = twt_census(twt, NOTES, 2);
  assert_int_equal(k.note[NOTE_UP], 1);
  assert_int_equal(k.note[NOTE_DOWN], 2);
  assert_int_equal(k.type[TW_TWT_INFO], 2);
  assert_loss_exact();
}

/* ---- a target that stops answering ---------------------------------------- */

/* Session 1 answers and streams packets 0..49; sessions 2 and 3 stream
 * 50..99 and 100..199 at once and never answer (a firmware build without
 * the command service): each holds its connection while record's GET_INFO
 * attempts run out, then goes. Cuts fall between packets: nothing lost. */
static void *silent_target(void *arg)
{
  (void)arg;
  unsigned long long deadline = now_ms() + 5000;
  int port;
  while (!(port = __atomic_load_n(&listen_port, __ATOMIC_ACQUIRE)) && now_ms() < deadline)
    usleep(1000);
  int fd = connect_to(port);
  if (fd < 0 || serve_until_start(fd, 5000) < 0 || write_all(fd, S.data, S.off[50]) < 0)
    return target_fail("first session"), NULL;
  wait_received();
  close(fd);
  static const size_t from[] = {50, 100}, to[] = {100, 200};
  for (int i = 0; i < 2; i++) {
    usleep(50000);
    fd = connect_to(port);
    size_t end = to[i] < S.npkts ? S.off[to[i]] : S.len;
    if (fd < 0 || write_all(fd, S.data + S.off[from[i]], end - S.off[from[i]]) < 0)
      return target_fail("silent session"), NULL;
    wait_received();
    usleep(2300000); /* 4 attempts of 500 ms */
    close(fd);
  }
  return NULL;
}

static void silent_target_said_once_recorded(void **state)
{
  (void)state;
  fault.bind = bind_seen_port;
  tw_sys_set(&fault);
  char *argv[] = {"record", "--from", "tcp-listen://:0", "-o", twt, "-q", "--reconnect",
                  "--idle", "3", NULL};
  int rc = record_against(silent_target, 9, argv, NULL);
  assert_target_ok();
  assert_int_equal(rc, TW_EXIT_OK);
  assert_int_equal(T.gets, 1);
  assert_int_equal(T.starts, 1);
  char *e = slurp(errpath);
  const char *first = strstr(e, "no reply to GET_INFO");
  assert_non_null(first);
  assert_null(strstr(first + 1, "no reply to GET_INFO")); /* said once */
  assert_non_null(strstr(e, "recording what the target sends"));
  free(e);
  struct twt_census k = twt_census(twt, NOTES, 2);
  assert_int_equal(k.note[NOTE_UP], 2);
  assert_int_equal(k.type[TW_TWT_INFO], 1);
  /* and what the silent sessions sent is all there */
  struct tw_stream_stats st;
  unsigned long long skipped, events;
  size_t loss_diags;
  decode_trace(&st, &skipped, &events, &loss_diags);
  assert_int_equal(skipped, 0);
  assert_int_equal(st.pkts_lost, 0);
  assert_int_equal(st.unexplained, 0);
  struct text want;
  tw_decoder_close(decode_mem(S.data, S.len, &want));
  assert_int_equal(events, want.events);
  free(want.buf);
}

/* ---- serial:// ------------------------------------------------------------- */

static char pts[64];
static int serial_fd = -1;      /* record's descriptor of the device (atomic) */
static int serial_opens;        /* successful opens of pts (atomic) */
static int enoent_left;         /* opens still to fail (atomic) */
static unsigned long long eio_at; /* rx_bytes at which the device "goes away" (0: done) */

static int serial_open(const char *p, int flags, int mode)
{
  if (strcmp(p, pts) == 0) {
    if (__atomic_load_n(&enoent_left, __ATOMIC_ACQUIRE) > 0) {
      __atomic_sub_fetch(&enoent_left, 1, __ATOMIC_ACQ_REL);
      errno = ENOENT; /* the USB device is re-enumerating */
      return -1;
    }
    int fd = open(p, flags, mode);
    if (fd >= 0) {
      __atomic_store_n(&serial_fd, fd, __ATOMIC_RELEASE);
      __atomic_add_fetch(&serial_opens, 1, __ATOMIC_ACQ_REL);
    }
    return fd;
  }
  return tw_sys_default.open(p, flags, mode);
}

static int device_gone_now(int fd)
{
  unsigned long long at = __atomic_load_n(&eio_at, __ATOMIC_ACQUIRE);
  return at && fd == __atomic_load_n(&serial_fd, __ATOMIC_ACQUIRE) &&
         __atomic_load_n(&rx_bytes, __ATOMIC_ACQUIRE) >= at;
}

/* A device that disappears wakes its reader (POLLERR), whose read fails. */
static int serial_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
  if (n == 1 && device_gone_now(fds[0].fd)) {
    fds[0].revents = POLLIN | POLLERR;
    return 1;
  }
  return poll(fds, n, timeout_ms);
}

static ssize_t serial_read(int fd, void *buf, size_t n)
{
  if (device_gone_now(fd)) {
    __atomic_store_n(&eio_at, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&enoent_left, 3, __ATOMIC_RELEASE);
    errno = EIO;
    return -1;
  }
  return count_read(fd, buf, n);
}

static int pty_master;

static void *serial_target(void *arg)
{
  (void)arg;
  if (serve_until_start(pty_master, 5000) < 0)
    return target_fail("first session: no START"), NULL;
  /* the device goes away once record has read all of part one */
  __atomic_store_n(&eio_at, T.tx + S.off[cut_pkt] + S.plen[cut_pkt] / 2, __ATOMIC_RELEASE);
  if (send_part1(pty_master) < 0)
    return target_fail("part 1"), NULL;
  unsigned long long deadline = now_ms() + 5000;
  while (__atomic_load_n(&serial_opens, __ATOMIC_ACQUIRE) < 2 && now_ms() < deadline)
    usleep(2000);
  if (serve_until_start(pty_master, 5000) < 0 || send_part2(pty_master) < 0)
    return target_fail("second session: no START"), NULL;
  wait_received();
  if (serve_until(pty_master, TW_LCMD_STOP, 5000) < 0)
    target_fail("no STOP at the end");
  return NULL;
}

static void serial_device_gone_reopened(void **state)
{
  (void)state;
  pty_master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  assert_true(pty_master >= 0);
  assert_int_equal(grantpt(pty_master), 0);
  assert_int_equal(unlockpt(pty_master), 0);
  snprintf(pts, sizeof pts, "%s", ptsname(pty_master));
  serial_fd = -1;
  serial_opens = enoent_left = 0;
  eio_at = 0;
  fault.open = serial_open;
  fault.poll = serial_poll;
  fault.read = serial_read;
  tw_sys_set(&fault);
  char uri[96];
  snprintf(uri, sizeof uri, "serial://%s", pts);
  char *argv[] = {"record", "--from", uri, "-o", twt, "-q", "--reconnect", "--idle", "1", NULL};
  int rc = record_against(serial_target, 9, argv, NULL);
  close(pty_master);
  assert_target_ok();
  assert_int_equal(rc, TW_EXIT_OK);
  assert_int_equal(serial_opens, 2);
  assert_int_equal(enoent_left, 0); /* all three failed opens were tried */
  assert_int_equal(T.gets, 2);
  assert_int_equal(T.starts, 2);
  assert_int_equal(T.stops, 1); /* to the device as re-opened */
  char *e = slurp(errpath);
  assert_non_null(strstr(e, "target disconnected at stream byte"));
  assert_non_null(strstr(e, "re-opening the device"));
  free(e);
  struct twt_census k = twt_census(twt, NOTES, 2);
  assert_int_equal(k.note[NOTE_UP], 1);
  assert_int_equal(k.note[NOTE_DOWN], 1);
  assert_int_equal(k.type[TW_TWT_INFO], 2);
  assert_loss_exact();
}

/* ---- a target that never comes back ----------------------------------------- */

static void *vanishing_target(void *arg)
{
  (void)arg;
  int fd = accept_within(tcp_lfd, 5000);
  if (fd < 0 || serve_until_start(fd, 5000) < 0 || write_all(fd, S.data, S.off[10]) < 0)
    return target_fail("the only connection"), NULL;
  wait_received();
  close(tcp_lfd);
  tcp_lfd = -1;
  close(fd);
  return NULL;
}

static void tcp_target_never_back_duration_ends(void **state)
{
  (void)state;
  tcp_lfd = listen_on(0);
  assert_true(tcp_lfd >= 0);
  char uri[64];
  snprintf(uri, sizeof uri, "tcp://127.0.0.1:%d", port_of(tcp_lfd));
  tw_sys_set(&fault);
  char *argv[] = {"record", "--from", uri, "-o", twt, "-q", "--reconnect", "--duration", "2",
                  NULL};
  unsigned long long took;
  int rc = record_against(vanishing_target, 9, argv, &took);
  if (tcp_lfd >= 0)
    close(tcp_lfd);
  assert_target_ok();
  assert_int_equal(rc, TW_EXIT_OK);
  assert_in_range(took, 1900, 4000);
  assert_int_equal(T.starts, 1);
  assert_int_equal(T.stops, 0); /* not connected at the end: STOP is not tried */
  /* ~1.8 s of refused attempts at 50, 100, 200, 400, 800, 1000 ms: a few */
  assert_in_range(connect_calls, 3, 12);
  char *e = slurp(errpath);
  assert_non_null(strstr(e, "target disconnected at stream byte"));
  assert_null(strstr(e, "error"));
  free(e);
  struct twt_census k = twt_census(twt, NOTES, 2);
  assert_int_equal(k.note[NOTE_DOWN], 1);
  assert_int_equal(k.note[NOTE_UP], 0);
  assert_int_equal(k.type[TW_TWT_END], 1); /* closed cleanly */
  struct tw_stream_stats st;
  unsigned long long skipped, events;
  size_t loss_diags;
  decode_trace(&st, &skipped, &events, &loss_diags);
  assert_int_equal(skipped, 0);
  assert_int_equal(st.pkts_lost, 0);
  assert_true(events > 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(tcp_target_reset_refused_back, setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(tcp_listen_target_reconnects_gets_start, setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(silent_target_said_once_recorded, setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(serial_device_gone_reopened, setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(tcp_target_never_back_duration_ends, setup, fixture_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
