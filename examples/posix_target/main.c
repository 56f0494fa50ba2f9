/*
 * tw_posix_target: the real target stack (kernel event logger, streamer,
 * command service, POSIX port) on a real link, playing a fixed script.
 *
 *   tw_posix_target --tcp HOST:PORT      connect to a host (tracewire record --from tcp-listen://)
 *   tw_posix_target --udp                bind a UDP port (printed), answer the first sender
 *   tw_posix_target --pty                open a pty, print the device path for serial://
 *   [--events N] [--overflow N] [--pad]   (--pad: every packet padded to the
 *                                          maximum with InvalidData)
 *
 * Everything runs in one thread and the clock is a counter the script
 * advances, so the stream is the same on every run and every transport:
 * the host's `print` output can be compared with a golden file byte for
 * byte, and the ring overflow (N events emitted without draining) drops an
 * exact, known number of events, printed on stderr as "target: dropped D".
 *
 * The target waits for the host's START (after GET_INFO, SET_MASK), plays
 * the script, stops itself (TRACE_STOP reason 1), flushes and closes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>
#include "tracewire/cmd.h"
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tracewire/events_gen.h"

#define EP 0x0007u

static int fd = -1, is_udp;
static struct sockaddr_storage peer;
static socklen_t peer_len;
static uint32_t fake_now;
static struct tw_streamer S;
static struct tw_cmd K;

static uint32_t clock_fn(void) { return fake_now; }

static int link_send(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  if (is_udp) {
    if (!peer_len)
      return TW_EBUSY; /* no host yet */
    return sendto(fd, p, len, 0, (struct sockaddr *)&peer, peer_len) == (ssize_t)len ? 0 : TW_EBUSY;
  }
  const char *b = p;
  while (len) {
    ssize_t n = write(fd, b, len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
      struct pollfd pf = { fd, POLLOUT, 0 };
      poll(&pf, 1, 100);
      continue;
    }
    if (n <= 0) {
      perror("target: write");
      exit(1);
    }
    b += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Commands from the host: reassemble messages from the byte stream. */
static uint8_t rx[4096];
static size_t rxlen;

static void pump_commands(int timeout_ms)
{
  struct pollfd pf = { fd, POLLIN, 0 };
  if (poll(&pf, 1, timeout_ms) <= 0)
    return;
  ssize_t n;
  if (is_udp) {
    peer_len = sizeof peer;
    n = recvfrom(fd, rx + rxlen, sizeof rx - rxlen, 0, (struct sockaddr *)&peer, &peer_len);
  } else {
    n = read(fd, rx + rxlen, sizeof rx - rxlen);
  }
  if (n <= 0)
    return;
  rxlen += (size_t)n;
  for (;;) {
    if (rxlen < 4)
      break;
    /* the length field frames a command, with a footer or without (TI's hosts) */
    size_t len = tw_cmd_frame(rx, rxlen);
    if (len && rxlen < len)
      break;
    if (!len)
      len = 4; /* not a message: drop a word and look again */
    else
      tw_cmd_receive(&K, rx, len);
    memmove(rx, rx + len, rxlen - len);
    rxlen -= len;
  }
}

static void drain(void)
{
  while (tw_streamer_poll(&S, 0) > 0)
    ;
}

static void tick(uint32_t dt) { fake_now += dt; }

/* The script: every kind of RTOS event, kernel events, a custom event. */
static void play(unsigned events, unsigned overflow)
{
  for (unsigned i = 0; i < events; i++) {
    uint16_t task = (uint16_t)(1 + i % 3);
    tick(10 + i % 7);
    switch (i % 9) {
    case 0: tw_task_switch_at(fake_now, task); break;
    case 1: tw_mutex_at(fake_now, task, 1, (uint8_t)(i / 9 % 5)); break;
    case 2: tw_sem_task_at(fake_now, task, 1, (uint8_t)(i / 9 % 3)); break;
    case 3: tw_sem_at(fake_now, 1, TW_SEM_Give); break;
    case 4: tw_event_task_at(fake_now, task, 2, (uint8_t)(i / 9 % 3)); break;
    case 5: tw_interrupt_at(fake_now, 17); break;
    case 6: tw_task_switch_at(fake_now, i & 1 ? TW_TASK_SWITCH_EnterInt : TW_TASK_SWITCH_LeaveInt); break;
    case 7: { uint32_t d[2] = {i % 4, i * 3}; tw_custom(28, d, 2); break; }
    default: tw_context_switch_at(fake_now, task); break;
    }
    if (i % 4 == 3)
      drain();
  }
  drain();
  /* the ring overflows: emitted without draining */
  for (unsigned i = 0; i < overflow; i++) {
    tick(3);
    tw_sem_at(fake_now, 2, TW_SEM_Give);
  }
  drain();
  for (unsigned i = 0; i < 5; i++) { /* carries the DROPS record */
    tick(5);
    tw_task_switch_at(fake_now, 1);
  }
  drain();
  /* byte-string custom events: snapshots, the BLOB split over records */
  static const char text[] = "hello from the target";
  uint8_t blob[100];
  for (unsigned i = 0; i < sizeof blob; i++)
    blob[i] = (uint8_t)(i * 37 + 1);
  tick(7);
  tw_custom_bytes(29, text, sizeof text - 1);
  drain();
  tick(7);
  tw_custom_bytes(30, blob, sizeof blob);
  drain();
}

static int open_tcp(const char *hp)
{
  char host[256];
  const char *colon = strrchr(hp, ':');
  if (!colon)
    return -1;
  snprintf(host, sizeof host, "%.*s", (int)(colon - hp), hp);
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
  if (getaddrinfo(host, colon + 1, &hints, &ai))
    return -1;
  int s = socket(ai->ai_family, SOCK_STREAM, 0);
  int rc = connect(s, ai->ai_addr, ai->ai_addrlen);
  freeaddrinfo(ai);
  return rc ? -1 : s;
}

static int open_udp(void)
{
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t l = sizeof a;
  if (bind(s, (struct sockaddr *)&a, sizeof a) || getsockname(s, (struct sockaddr *)&a, &l))
    return -1;
  printf("udp %u\n", ntohs(a.sin_port));
  fflush(stdout);
  return s;
}

static int open_pty(void)
{
  int m = posix_openpt(O_RDWR | O_NOCTTY);
  if (m < 0 || grantpt(m) || unlockpt(m))
    return -1;
  struct termios t;
  tcgetattr(m, &t);
  cfmakeraw(&t);
  tcsetattr(m, TCSANOW, &t);
  printf("pty %s\n", ptsname(m));
  fflush(stdout);
  return m;
}

int main(int argc, char **argv)
{
  unsigned events = 200, overflow = 60;
  int pad = 0;
  const char *mode = NULL, *arg = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--tcp") && i + 1 < argc)
      mode = "tcp", arg = argv[++i];
    else if (!strcmp(argv[i], "--udp"))
      mode = "udp";
    else if (!strcmp(argv[i], "--pty"))
      mode = "pty";
    else if (!strcmp(argv[i], "--events") && i + 1 < argc)
      events = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--overflow") && i + 1 < argc)
      overflow = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--pad"))
      pad = 1;
    else {
      fprintf(stderr, "usage: tw_posix_target (--tcp H:P | --udp | --pty) [--events N] [--overflow N] [--pad]\n");
      return 2;
    }
  }
  if (!mode)
    return 2;
  is_udp = !strcmp(mode, "udp");
  fd = !strcmp(mode, "tcp") ? open_tcp(arg) : is_udp ? open_udp() : open_pty();
  if (fd < 0) {
    perror("target: open link");
    return 1;
  }
  tw_klog_set_timer(clock_fn);
  tw_klog_register_collector();
  struct tw_streamer_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 1000000;
  cfg.send = link_send;
  cfg.endpoint = EP;
  cfg.module_id = 1;
  cfg.sync_ticks = 1000;
  cfg.initial_mask = 0xFFFFFFFFu;
  cfg.pad = (uint8_t)pad;
  if (tw_streamer_init(&S, &cfg) || tw_cmd_init(&K, EP, link_send, NULL, &S))
    return 1;
  tw_name_register(TW_OBJ_TASK, 1, "idle", 1);
  tw_name_register(TW_OBJ_TASK, 2, "sensor", 5);
  tw_name_register(TW_OBJ_TASK, 3, "control", 9);
  tw_name_register(TW_OBJ_MUTEX, 1, "bus_lock", 0);
  tw_name_register(TW_OBJ_SEM, 1, "adc_ready", 0);
  tw_custom_declare(28, 1, "Sample channel:U8 value:U32");
  tw_custom_declare(29, 1, "Log text:STR");
  tw_custom_declare(30, 0, "Dump data:BLOB");

  /* wait for START, then for its records (names, declarations) to go out */
  while (!tw_streamer_running(&S) || S.nwork) {
    pump_commands(20);
    tw_cmd_poll(&K);
    tw_streamer_poll(&S, 0);
  }
  play(events, overflow);
  struct tw_logger_stats ls;
  tw_logger_stats(tw_klog_logger(), &ls);
  tw_streamer_stop(&S, 1);
  while (tw_streamer_running(&S) || S.nwork || S.fill > TW_STREAMER_HDR_BYTES) {
    tw_streamer_poll(&S, 0);
    tw_streamer_flush(&S);
    pump_commands(1);
    tw_cmd_poll(&K);
  }
  fprintf(stderr, "target: dropped %u\n", ls.drops);
  /* answer what is still in flight (a STOP from the host) for a moment */
  for (int i = 0; i < 20; i++) {
    pump_commands(10);
    tw_cmd_poll(&K);
  }
  close(fd);
  return 0;
}
