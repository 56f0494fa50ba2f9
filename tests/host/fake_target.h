/*
 * A fake target for record's integration tests, run in a thread: it
 * behaves like the firmware's command service (answers GET_INFO, SET_MASK,
 * START, STOP and counts them in T) and a test streams packets after
 * START with write_all(). The loopback socket plumbing both ends of a
 * tcp:// or tcp-listen:// link need is here too, and the per-case
 * fixture: the stream S the target sends, the trace's directory, the
 * tw_sys table record runs with. Include after <cmocka.h>.
 *
 * Header of static inline functions, like helpers.h: each test program is
 * one .c file (tests/CMakeLists.txt), and the target's state T is per
 * program anyway.
 */
#ifndef TW_TEST_HOST_FAKE_TARGET_H
#define TW_TEST_HOST_FAKE_TARGET_H

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "host/helpers.h"
#include "host/record_run.h"
#include "tracewire/io/sys.h"
#include "tracewire/cmd.h"
#include "tracewire/uia.h"

struct target {
  unsigned gets, masks, starts, stops; /* commands received, all connections */
  unsigned long long tx;               /* bytes sent to record, all connections */
  int failed;                          /* what went wrong, for the main thread */
  char why[128];
};
static struct target T;

static inline unsigned long long now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000u + (unsigned long long)ts.tv_nsec / 1000000u;
}

static inline void target_fail(const char *why)
{
  if (!T.failed)
    snprintf(T.why, sizeof T.why, "fake target: %s (errno %d)", why, errno);
  T.failed = 1;
}

/* cmocka asserts only in the main thread: the target's failure is told here */
static inline void assert_target_ok(void)
{
  if (T.failed)
    fail_msg("%s", T.why);
}

/* n bytes within deadline; a pty master reads EIO while no slave is open
 * (record opening or re-opening it): wait, like for "nothing yet". */
static inline int read_full(int fd, uint8_t *p, size_t n, unsigned long long deadline)
{
  while (n) {
    if (now_ms() >= deadline)
      return -1;
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    if (poll(&pf, 1, 20) <= 0)
      continue;
    ssize_t k = read(fd, p, n);
    if (k == 0)
      return -1;
    if (k < 0) {
      if (errno == EIO || errno == EAGAIN || errno == EINTR) {
        usleep(10000);
        continue;
      }
      return -1;
    }
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

static inline int write_all(int fd, const uint8_t *p, size_t n)
{
  T.tx += n;
  while (n) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

static inline void reply(int fd, const tw_pkt_hdr *cmd, enum tw_msg_type type,
                         const uint32_t *body, size_t nbody)
{
  uint8_t m[256];
  uint32_t len = TW_MSG_HDR_BYTES + 4 * (uint32_t)nbody + TW_FOOTER_BYTES;
  tw_pkt_hdr h;
  tw_pkt_init_msg(&h, TW_ENDIAN_BIG, type, len, tw_pkt_get_service_id(cmd), tw_pkt_get_seq(cmd),
                  tw_pkt_get_cmd_id(cmd), tw_pkt_get_tag(cmd), tw_pkt_get_src(cmd), TW_ADDR_DEFAULT);
  memcpy(m, &h, sizeof h);
  for (size_t i = 0; i < nbody; i++)
    tw_store_be32(m + TW_MSG_HDR_BYTES + 4 * i, body[i]);
  tw_store_be32(m + len - 4, tw_pkt_footer(len));
  if (write_all(fd, m, len) < 0)
    target_fail("reply");
}

/* Answer commands until `until` (answered) or the deadline: 0 on `until`. */
static inline int serve_until(int fd, uint16_t until, int timeout_ms)
{
  unsigned long long deadline = now_ms() + (unsigned long long)timeout_ms;
  for (;;) {
    uint8_t m[TW_MSG_MAX_BYTES + 1];
    struct tw_pkt pkt;
    if (read_full(fd, m, 4, deadline) < 0)
      return -1;
    uint32_t len = (tw_load_be32(m) >> 16) & 0x7FFu;
    if (len < TW_MSG_HDR_BYTES + TW_FOOTER_BYTES || read_full(fd, m + 4, len - 4, deadline) < 0 ||
        tw_pkt_parse(m, len, 0, &pkt) != (int)len || pkt.hdr_type != TW_PKT_MSG ||
        tw_pkt_get_msg_type(&pkt.hdr) != TW_MSG_CMD) {
      target_fail("not a command message");
      return -1;
    }
    uint32_t info[TW_INFO_WORDS] = {0}, mask;
    switch (tw_pkt_get_cmd_id(&pkt.hdr)) {
    case TW_LCMD_GET_INFO:
      T.gets++;
      info[TW_INFO_ENDPOINT] = TW_ADDR_DEFAULT; /* the synthetic stream's endpoint */
      info[TW_INFO_TS_FREQ_HZ] = 1000000;       /* and its clock */
      reply(fd, &pkt.hdr, TW_MSG_RESULT, info, TW_INFO_WORDS);
      break;
    case TW_LCMD_SET_MASK:
      T.masks++;
      mask = pkt.payload_len >= 4 ? tw_pkt_word(&pkt, 0) : 0;
      reply(fd, &pkt.hdr, TW_MSG_RESULT, &mask, 1);
      break;
    case TW_LCMD_START:
      T.starts++;
      reply(fd, &pkt.hdr, TW_MSG_ACK, NULL, 0);
      break;
    case TW_LCMD_STOP:
      T.stops++;
      reply(fd, &pkt.hdr, TW_MSG_ACK, NULL, 0);
      break;
    default:
      target_fail("unexpected command");
      return -1;
    }
    if (tw_pkt_get_cmd_id(&pkt.hdr) == until)
      return 0;
  }
}

/* Until record has read all T.tx bytes (counted by count_read): then
 * cutting the link loses exactly what the test did not send. */
static inline void wait_received(void)
{
  unsigned long long deadline = now_ms() + 10000;
  while (__atomic_load_n(&rx_bytes, __ATOMIC_ACQUIRE) < T.tx)
    if (now_ms() > deadline) {
      target_fail("record did not read what was sent");
      return;
    } else {
      usleep(2000);
    }
}

/* ---- loopback sockets ------------------------------------------------------ */

static inline int listen_on(int port)
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static inline int port_of(int fd)
{
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  getsockname(fd, (struct sockaddr *)&a, &len);
  return ntohs(a.sin_port);
}

static inline int accept_within(int lfd, int timeout_ms)
{
  struct pollfd pf = {.fd = lfd, .events = POLLIN};
  if (poll(&pf, 1, timeout_ms) != 1)
    return -1;
  return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

/* record's tcp-listen:// side may not be listening yet: retry for ~3 s */
static inline int connect_to(int port)
{
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < 300; i++) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
      return fd;
    close(fd);
    usleep(10000);
  }
  return -1;
}

/* ---- what record said ------------------------------------------------------ */

/* record with argv, while `thread` (a fake target, or whatever plays
 * against record) runs beside it; the fault table the test installed is
 * removed afterwards. Returns record's exit status, *took_ms its run time
 * (when wanted). */
static inline int record_against(void *(*thread)(void *), int argc, char **argv,
                                 unsigned long long *took_ms)
{
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, thread, NULL), 0);
  unsigned long long t0 = now_ms();
  int rc = run_record(argc, argv);
  if (took_ms)
    *took_ms = now_ms() - t0;
  pthread_join(t, NULL);
  tw_sys_set(NULL);
  return rc;
}

static inline char *slurp(const char *p)
{
  FILE *f = fopen(p, "rb");
  assert_non_null(f);
  char *b = calloc(1, 1 << 20);
  size_t n = fread(b, 1, (1 << 20) - 1, f);
  b[n] = 0;
  fclose(f);
  return b;
}

/* ---- the fixture of a case ------------------------------------------------ */

static struct tw_sys fault; /* record's system calls, counted or failed by the test */
static char dir[64], twt[96];
static struct stream_buf S; /* what the target streams */

/* A fresh stream of npkts packets and a fresh directory (mkdtemp(tmpl))
 * for each case; record's reads and connects are counted. */
static inline void fixture_setup(size_t npkts, const char *tmpl)
{
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 300, .drop_every = 40 };
  synth_stream(&S, npkts, &cfg);
  snprintf(dir, sizeof dir, "%s", tmpl);
  assert_non_null(mkdtemp(dir));
  snprintf(twt, sizeof twt, "%s/out.twt", dir);
  snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
  fault = tw_sys_default;
  fault.read = count_read;
  fault.connect = count_connect;
  memset(&T, 0, sizeof T);
  rx_bytes = 0;
  connect_calls = 0;
  listen_port = 0;
  signal(SIGPIPE, SIG_IGN); /* a target gone mid-write must not end the test */
}

static inline int fixture_teardown(void **state)
{
  (void)state;
  tw_sys_set(NULL);
  unlink(twt);
  unlink(errpath);
  rmdir(dir);
  free(S.data);
  return 0;
}

#endif
