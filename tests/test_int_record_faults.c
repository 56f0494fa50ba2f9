/*
 * `tracewire record` under injected faults, run in-process (tw_cli) with
 * a system-call table that fails where a real machine would:
 *   - the disk fills up (ENOSPC, after a short write) while the trace is
 *     written: recording stops with a message naming the file, the exit
 *     status is 1, and the trace holds exactly a prefix of the received
 *     stream in whole chunks: it reads back with no damage reported and
 *     decodes to the events of that prefix;
 *   - the target disconnects mid-packet and reconnects (--reconnect): the
 *     recording goes on, the disconnect is written into the trace and
 *     said on stderr, and the packets that were in flight are reported
 *     lost (exactly) by the decoder, never silently dropped;
 *   - reads from the source come back short, interrupted (EINTR) and
 *     "not yet" (EAGAIN): the trace is the stream, byte for byte.
 * Also: `record` listens on loopback unless told otherwise (the address
 * handed to bind() is checked through the table).
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
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "host/helpers.h"
#include "host/record_run.h"
#include "tracewire/twt/conn_twt.h"
#include "tracewire/io/sys.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/error.h"

static struct tw_sys fault;
static char dir[64], raw[96], twt[96];
static struct stream_buf S;
static size_t budget;   /* bytes the disk still takes */
static int twt_fd = -1; /* the trace file's descriptor */
static unsigned calls;

static int track_open(const char *p, int flags, int mode)
{
  int fd = tw_sys_default.open(p, flags, mode);
  if (fd >= 0 && strcmp(p, twt) == 0 && (flags & O_WRONLY))
    twt_fd = fd;
  return fd;
}

static ssize_t full_disk_write(int fd, const void *buf, size_t n)
{
  if (fd != twt_fd)
    return write(fd, buf, n);
  if (budget == 0) {
    errno = ENOSPC;
    return -1;
  }
  if (n > budget)
    n = budget; /* the last write is short, as on a real full disk */
  ssize_t k = write(fd, buf, n);
  if (k > 0)
    budget -= (size_t)k;
  return k;
}

static ssize_t choppy_read(int fd, void *buf, size_t n)
{
  calls++;
  if (calls % 3 == 0) {
    errno = EINTR;
    return -1;
  }
  if (calls % 7 == 0) {
    errno = EAGAIN;
    return -1;
  }
  size_t k = 1 + calls % 61;
  return read(fd, buf, n < k ? n : k);
}

/* a source that delivers at most ~1 KB per read, so the trace gets many
 * DATA chunks and the disk can fill up between two of them */
static ssize_t small_read(int fd, void *buf, size_t n)
{
  return read(fd, buf, n < 997 ? n : 997);
}

static char *slurp(const char *p, size_t *len)
{
  FILE *f = fopen(p, "rb");
  assert_non_null(f);
  char *b = malloc(1 << 24);
  *len = fread(b, 1, (1 << 24) - 1, f);
  b[*len] = 0;
  fclose(f);
  return b;
}

/* The trace's DATA bytes back as one stream; *err gets the first error. */
static uint8_t *trace_bytes(size_t *len, int *err)
{
  struct tw_conn *c;
  char e[256];
  assert_int_equal(tw_conn_twt_open(twt, -1, &c, e, sizeof e), 0);
  uint8_t *b = malloc(S.len + 65536);
  *len = 0;
  int n;
  while ((n = tw_conn_read(c, b + *len, 4096, 0)) > 0)
    *len += (size_t)n;
  *err = n == TW_EOF ? 0 : n;
  tw_conn_close(c);
  return b;
}

static int setup(void **state)
{
  (void)state;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 300, .drop_every = 40 };
  synth_stream(&S, 200, &cfg);
  snprintf(dir, sizeof dir, "/tmp/tw_recfault_XXXXXX");
  assert_non_null(mkdtemp(dir));
  snprintf(raw, sizeof raw, "%s/in.bin", dir);
  snprintf(twt, sizeof twt, "%s/out.twt", dir);
  snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
  FILE *f = fopen(raw, "wb");
  assert_int_equal(fwrite(S.data, 1, S.len, f), S.len);
  fclose(f);
  fault = tw_sys_default;
  twt_fd = -1;
  calls = 0;
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  tw_sys_set(NULL);
  unlink(raw);
  unlink(twt);
  unlink(errpath);
  rmdir(dir);
  free(S.data);
  return 0;
}

static void full_disk_ends_recording_with_a_readable_prefix(void **state)
{
  (void)state;
  fault.open = track_open;
  fault.write = full_disk_write;
  fault.read = small_read;
  budget = 32 + 24 + 64 + 24 + S.len / 3; /* header, SOURCE chunk, a third of the data */
  tw_sys_set(&fault);
  char *argv[] = {"record", "--from", raw, "-o", twt, "-q", NULL};
  int rc = run_record(6, argv);
  tw_sys_set(NULL);
  assert_int_equal(rc, TW_EXIT_ERROR);
  size_t elen;
  char *e = slurp(errpath, &elen);
  assert_non_null(strstr(e, "No space left on device"));
  assert_non_null(strstr(e, "recording stopped"));
  assert_non_null(strstr(e, twt));
  free(e);

  /* whole chunks only: the reader sees no damage, just no END */
  struct tw_twt_reader *r;
  struct tw_twt_chunk c;
  char err[256];
  assert_int_equal(tw_twt_open(twt, &r, err, sizeof err), 0);
  int n, ends = 0;
  while ((n = tw_twt_next(r, &c)) == 1) {
    assert_false(c.truncated);
    ends += c.type == TW_TWT_END;
  }
  assert_int_equal(n, 0);
  assert_int_equal(ends, 0);
  tw_twt_close_reader(r);

  /* a prefix of the stream, and it decodes like that prefix does */
  size_t len;
  int rerr;
  uint8_t *b = trace_bytes(&len, &rerr);
  assert_int_equal(rerr, 0);
  assert_true(len > 0 && len < S.len);
  assert_memory_equal(b, S.data, len);
  struct text got, want;
  struct tw_conn *src;
  struct tw_reader *rd;
  struct tw_decoder *d = decode_twt(twt, &got, &src, &rd);
  struct tw_decoder *d2 = decode_mem(S.data, len, &want);
  assert_true(got.events > 0);
  assert_int_equal(got.events, want.events);
  assert_memory_equal(got.buf, want.buf, want.len);
  tw_decoder_close(d2);
  tw_decoder_close(d);
  tw_reader_close(rd);
  tw_conn_close(src);
  free(got.buf);
  free(want.buf);
  free(b);
}

static void choppy_source_reads_change_nothing(void **state)
{
  (void)state;
  fault.read = choppy_read;
  tw_sys_set(&fault);
  char *argv[] = {"record", "--from", raw, "-o", twt, "-q", NULL};
  int rc = run_record(6, argv);
  tw_sys_set(NULL);
  assert_int_equal(rc, TW_EXIT_OK);
  assert_true(calls > 100);
  size_t len;
  int rerr;
  uint8_t *b = trace_bytes(&len, &rerr);
  assert_int_equal(rerr, 0);
  assert_int_equal(len, S.len);
  assert_memory_equal(b, S.data, S.len);
  free(b);
}

/* ---- disconnect and reconnect ------------------------------------------ */

static size_t cut_pkt = 80, resume_pkt = 83; /* packets 80..82 never arrive whole */

static int connect_to(int port)
{
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < 200; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
      return fd;
    close(fd);
    usleep(10000);
  }
  return -1;
}

static void send_all(int fd, const uint8_t *p, size_t n)
{
  while (n) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0)
      abort();
    p += k;
    n -= (size_t)k;
  }
}

static void *target(void *arg)
{
  (void)arg;
  while (!__atomic_load_n(&listen_port, __ATOMIC_ACQUIRE))
    usleep(1000);
  int fd = connect_to(listen_port);
  if (fd < 0)
    abort();
  /* up to half of packet cut_pkt, then the connection dies (reset) */
  send_all(fd, S.data, S.off[cut_pkt] + S.plen[cut_pkt] / 2);
  struct linger lg = {.l_onoff = 1, .l_linger = 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  usleep(100000);
  close(fd);
  usleep(100000);
  fd = connect_to(listen_port);
  if (fd < 0)
    abort();
  send_all(fd, S.data + S.off[resume_pkt], S.len - S.off[resume_pkt]);
  usleep(100000);
  close(fd);
  return NULL;
}

static void disconnect_reconnect_loss_reported(void **state)
{
  (void)state;
  pthread_t t;
  listen_port = 0;
  fault.bind = bind_seen_port;
  tw_sys_set(&fault);
  assert_int_equal(pthread_create(&t, NULL, target, NULL), 0);
  char *argv[] = {"record", "--from", "tcp-listen://:0", "-o", twt, "-q", "--no-commands",
                  "--reconnect", "--idle", "1", NULL};
  int rc = run_record(10, argv);
  pthread_join(t, NULL);
  tw_sys_set(NULL);
  assert_int_equal(rc, TW_EXIT_OK);
  size_t elen;
  char *e = slurp(errpath, &elen);
  assert_non_null(strstr(e, "target disconnected at stream byte"));
  free(e);

  /* the trace: the stream with packets 80..82 missing and half of 80 */
  struct tw_conn *src;
  struct tw_reader *rd;
  struct text got;
  char err[256];
  struct tw_decoder *d = decode_twt(twt, &got, &src, &rd);
  const struct tw_stream_stats *st = tw_decoder_stream(d, 0);
  assert_int_equal(st->pkts_lost, resume_pkt - cut_pkt);
  /* the events those packets carried, from the generator's own count */
  unsigned long long lost = (uint16_t)(S.seq_before[resume_pkt] - S.seq_before[cut_pkt]);
  unsigned long long ring_in_gap = S.drops_before[resume_pkt] - S.drops_before[cut_pkt];
  assert_int_equal(st->events_lost + st->unexplained, lost);
  assert_int_equal(st->unexplained, 0);
  assert_int_equal(st->ring_drops + ring_in_gap, S.drops_before[S.npkts]);
  assert_int_equal(tw_reader_stats(rd)->skipped, S.plen[cut_pkt] / 2);
  assert_int_equal(count_diags(&got, TW_DIAG_PKT_LOSS), 1);
  tw_decoder_close(d);
  tw_reader_close(rd);
  tw_conn_close(src);
  free(got.buf);

  /* the disconnect is in the trace itself */
  struct tw_twt_reader *r;
  struct tw_twt_chunk c;
  int notes = 0;
  assert_int_equal(tw_twt_open(twt, &r, err, sizeof err), 0);
  while (tw_twt_next(r, &c) == 1)
    notes += c.type == TW_TWT_NOTE && c.len > 20 && memmem(c.data, c.len, "disconnected", 12);
  tw_twt_close_reader(r);
  assert_int_equal(notes, 2); /* the cut, and the target's final close */
}

/* ---- where record listens ------------------------------------------------ */

static char bound_addr[64];

static int bind_spy(int fd, const struct sockaddr *a, socklen_t len)
{
  if (a->sa_family == AF_INET)
    inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, bound_addr, sizeof bound_addr);
  else if (a->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, bound_addr, sizeof bound_addr);
  return bind(fd, a, len);
}

static void listens_on_loopback_unless_told(void **state)
{
  (void)state;
  static const struct {
    const char *uri, *want;
  } cases[] = {
    {"tcp-listen://:0", "127.0.0.1"},
    {"udp://:0", "127.0.0.1"},
    {"tcp-listen://0.0.0.0:0", "0.0.0.0"}, /* told otherwise */
  };
  fault.bind = bind_spy;
  tw_sys_set(&fault);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct tw_conn *c;
    char err[256];
    bound_addr[0] = 0;
    assert_int_equal(tw_conn_open(cases[i].uri, &c, err, sizeof err), 0);
    assert_string_equal(bound_addr, cases[i].want);
    tw_conn_close(c);
  }
  tw_sys_set(NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(full_disk_ends_recording_with_a_readable_prefix, setup, teardown),
    cmocka_unit_test_setup_teardown(choppy_source_reads_change_nothing, setup, teardown),
    cmocka_unit_test_setup_teardown(disconnect_reconnect_loss_reported, setup, teardown),
    cmocka_unit_test_setup_teardown(listens_on_loopback_unless_told, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
