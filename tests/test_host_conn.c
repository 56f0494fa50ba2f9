/*
 * Every transport through its URI, on real loopback sockets and a pty:
 * tcp:// (connect), tcp-listen:// (accept), udp:// (datagrams, replies to
 * the sender or to ?target=), serial:// (termios on a pty), files; and the
 * URI errors. The peer side uses plain POSIX calls, not tracewire code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pty.h>
#include <sys/socket.h>
#include <unistd.h>
#include "host/helpers.h"
#include "tracewire/error.h"
// tw-test-libs: util

static int tcp_server(int *port)
{
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t l = sizeof a;
  assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(s, 1), 0);
  assert_int_equal(getsockname(s, (struct sockaddr *)&a, &l), 0);
  *port = ntohs(a.sin_port);
  return s;
}

/* Read everything until EOF through the reader; returns packets seen. */
static size_t count_packets(struct tw_conn *c)
{
  struct tw_reader *r;
  assert_int_equal(tw_reader_open(&r, c, NULL), 0);
  struct tw_pkt p;
  size_t n = 0;
  int rc;
  while ((rc = tw_reader_next(r, &p, 2000)) == 1)
    n++;
  assert_int_equal(rc, TW_EOF);
  assert_int_equal(tw_reader_stats(r)->skipped, 0);
  tw_reader_close(r);
  return n;
}

static struct stream_buf S;

static int setup(void **state)
{
  (void)state;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 256 };
  synth_stream(&S, 40, &cfg);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  free(S.data);
  return 0;
}

static void tcp_connect(void **state)
{
  (void)state;
  int port, srv = tcp_server(&port);
  char uri[64], err[256];
  snprintf(uri, sizeof uri, "tcp://127.0.0.1:%d", port);
  struct tw_conn *c;
  assert_int_equal(tw_conn_open(uri, &c, err, sizeof err), 0);
  int peer = accept(srv, NULL, NULL);
  assert_true(write(peer, S.data, S.len) == (ssize_t)S.len);
  assert_int_equal(tw_conn_write(c, "ping", 4), 0);
  char got[4];
  assert_int_equal(read(peer, got, 4), 4);
  assert_memory_equal(got, "ping", 4);
  close(peer);
  assert_int_equal(count_packets(c), 40);
  tw_conn_close(c);
  close(srv);
  /* nobody listening: an error that names the target */
  assert_true(tw_conn_open(uri, &c, err, sizeof err) < 0);
  assert_non_null(strstr(err, uri));
}

static void tcp_listen_on_loopback(void **state)
{
  (void)state;
  char err[256];
  struct tw_conn *c;
  assert_int_equal(tw_conn_open("tcp-listen://:0", &c, err, sizeof err), 0);
  int port = tw_conn_bound_port(c);
  assert_true(port > 0);
  /* bound to 127.0.0.1 unless an address is given */
  assert_string_equal(c->name, "tcp-listen://127.0.0.1:0");
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  assert_int_equal(connect(s, (struct sockaddr *)&to, sizeof to), 0);
  assert_true(write(s, S.data, S.len) == (ssize_t)S.len);
  shutdown(s, SHUT_WR);
  assert_int_equal(count_packets(c), 40);
  assert_int_equal(tw_conn_write(c, "pong", 4), 0);
  char got[4];
  assert_int_equal(read(s, got, 4), 4);
  close(s);
  tw_conn_close(c);
  /* nothing connected yet: a read times out with TW_EAGAIN, a write says not connected */
  assert_int_equal(tw_conn_open("tcp-listen://127.0.0.1:0", &c, err, sizeof err), 0);
  char b[16];
  assert_int_equal(tw_conn_read(c, b, sizeof b, 20), TW_EAGAIN);
  tw_conn_close(c);
}

static void udp_datagrams_and_replies(void **state)
{
  (void)state;
  char err[256], uri[80];
  int peer = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in pa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t pl = sizeof pa;
  assert_int_equal(bind(peer, (struct sockaddr *)&pa, sizeof pa), 0);
  assert_int_equal(getsockname(peer, (struct sockaddr *)&pa, &pl), 0);
  snprintf(uri, sizeof uri, "udp://:0?target=127.0.0.1:%d", ntohs(pa.sin_port));
  struct tw_conn *c;
  assert_int_equal(tw_conn_open(uri, &c, err, sizeof err), 0);
  /* a command before any datagram goes to ?target= */
  assert_int_equal(tw_conn_write(c, "cmd1", 4), 0);
  char got[8];
  struct sockaddr_in from;
  socklen_t fl = sizeof from;
  assert_int_equal(recvfrom(peer, got, sizeof got, 0, (struct sockaddr *)&from, &fl), 4);
  /* one packet per datagram, back to the conn's port */
  for (size_t i = 0; i < S.npkts; i++)
    assert_true(sendto(peer, S.data + S.off[i], S.plen[i], 0, (struct sockaddr *)&from, fl) ==
                (ssize_t)S.plen[i]);
  struct tw_reader *r;
  assert_int_equal(tw_reader_open(&r, c, NULL), 0);
  struct tw_pkt p;
  size_t n = 0;
  while (n < S.npkts && tw_reader_next(r, &p, 1000) == 1)
    n++;
  assert_int_equal(n, S.npkts);
  assert_int_equal(tw_reader_next(r, &p, 20), TW_EAGAIN); /* no end of stream on UDP */
  tw_reader_close(r);
  tw_conn_close(c);
  close(peer);
}

static void serial_on_a_pty(void **state)
{
  (void)state;
  int m, s;
  char name[128], uri[160], err[256];
  assert_int_equal(openpty(&m, &s, name, NULL, NULL), 0);
  snprintf(uri, sizeof uri, "serial://%s?baud=921600", name);
  struct tw_conn *c;
  assert_int_equal(tw_conn_open(uri, &c, err, sizeof err), 0);
  struct termios t;
  assert_int_equal(tcgetattr(c->fd, &t), 0);
  assert_int_equal(cfgetispeed(&t), B921600);
  assert_int_equal(t.c_cflag & CSIZE, CS8);
  assert_int_equal(t.c_cflag & (PARENB | CSTOPB), 0);
  assert_int_equal(t.c_lflag & ICANON, 0);
  close(s);
  /* raw: every byte value passes untouched */
  assert_true(write(m, S.data, S.len) == (ssize_t)S.len);
  assert_int_equal(tw_conn_write(c, "\x00\x11\x13\xff", 4), 0);
  unsigned char got[4];
  assert_int_equal(read(m, got, 4), 4);
  assert_memory_equal(got, "\x00\x11\x13\xff", 4);
  struct tw_reader *r;
  assert_int_equal(tw_reader_open(&r, c, NULL), 0);
  struct tw_pkt p;
  size_t n = 0;
  while (n < S.npkts && tw_reader_next(r, &p, 1000) == 1)
    n++;
  assert_int_equal(n, S.npkts);
  close(m); /* the other side hangs up: the end of the stream */
  assert_int_equal(tw_reader_next(r, &p, 1000), TW_EOF);
  tw_reader_close(r);
  tw_conn_close(c);
  assert_true(tw_conn_open("serial:///dev/null?baud=12345", &c, err, sizeof err) == TW_EINVAL);
  assert_non_null(strstr(err, "baud"));
}

static void uri_errors_and_files(void **state)
{
  (void)state;
  char err[256];
  struct tw_conn *c;
  assert_int_equal(tw_conn_open("bogus://x", &c, err, sizeof err), TW_EINVAL);
  assert_non_null(strstr(err, "unknown scheme"));
  assert_int_equal(tw_conn_open("tcp://nohostport", &c, err, sizeof err), TW_EINVAL);
  assert_int_equal(tw_conn_open("udp://:1?tgt=x", &c, err, sizeof err), TW_EINVAL);
  assert_int_equal(tw_conn_open("/nonexistent/trace.bin", &c, err, sizeof err), TW_ENOENT);
  assert_non_null(strstr(err, "/nonexistent/trace.bin"));
  char path[64];
  snprintf(path, sizeof path, "/tmp/tw_test_conn_%d", (int)getpid());
  FILE *f = fopen(path, "wb");
  fwrite(S.data, 1, S.len, f);
  fclose(f);
  char uri[96];
  snprintf(uri, sizeof uri, "file://%s", path);
  assert_int_equal(tw_conn_open(uri, &c, err, sizeof err), 0);
  assert_int_equal(tw_conn_write(c, "x", 1), TW_ENOTSUP);
  assert_int_equal(count_packets(c), 40);
  tw_conn_close(c);
  unlink(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(tcp_connect),
    cmocka_unit_test(tcp_listen_on_loopback),
    cmocka_unit_test(udp_datagrams_and_replies),
    cmocka_unit_test(serial_on_a_pty),
    cmocka_unit_test(uri_errors_and_files),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
