/*
 * tw-freertos-app: the application of app.c on the real FreeRTOS kernel
 * (POSIX port), traced, streaming over TCP to `tracewire record`.
 *
 *   tw-freertos-app --connect tcp://127.0.0.1:PORT [--run-ms N]
 *
 * What a FreeRTOS project does to add tracewire (README.md, "FreeRTOS"):
 *   1. FreeRTOSConfig.h: configUSE_TRACE_FACILITY 1, and at its end
 *      #include "tracewire/hooks/freertos_trace.h"
 *   2. build the target library (src/common, src/target, a port) and the
 *      glue src/port/freertos/tw_freertos.c with the application
 *   3. a transport: the streamer's send function, and for host commands
 *      a receive function (here: the TCP socket below)
 *   4. start the collector task (tw_freertos_start) before the scheduler
 * and, for the interrupts it wants to see, traceISR_ENTER()/traceISR_EXIT().
 *
 * The host's START starts the application (app.c); after --run-ms it stops
 * it and tracing, prints its own counts on stderr (app_print_counts) and
 * exits 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "FreeRTOS.h"
#include "task.h"

#include "tracewire/cmd.h"
#include "tracewire/freertos.h"
#include "tracewire/klog.h"
#include "tracewire/port.h"
#include "tracewire/streamer.h"

#include "app.h"

#define ENDPOINT 0x0F01u

static int sock = -1;
static struct tw_streamer streamer;
static struct tw_cmd cmd;
static struct tw_freertos_collector collector;

/* ---- the transport: one TCP connection ----------------------------------------- */

/* The whole packet, or the run is over: a recorder that went away. The
 * tick signal interrupts system calls in a task's thread: EINTR is retried. */
static int tcp_send(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  const char *b = p;
  while (len) {
    ssize_t n = send(sock, b, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      fprintf(stderr, "tw-freertos-app: send: %s\n", n < 0 ? strerror(errno) : "closed");
      exit(1);
    }
    b += n;
    len -= (size_t)n;
  }
  return 0;
}

static size_t tcp_receive(void *ctx, void *buf, size_t cap)
{
  (void)ctx;
  ssize_t n;
  do
    n = recv(sock, buf, cap, MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  return n > 0 ? (size_t)n : 0;
}

/* tcp://HOST:PORT, retried for a few seconds while the recorder starts. */
static int connect_tcp(const char *uri)
{
  char host[64];
  unsigned port = 0;
  struct sockaddr_in a = { .sin_family = AF_INET };
  if (sscanf(uri, "tcp://%63[^:]:%u", host, &port) != 2 || port == 0 || port > 65535 ||
      inet_pton(AF_INET, host, &a.sin_addr) != 1) {
    fprintf(stderr, "tw-freertos-app: bad --connect '%s' (want tcp://127.0.0.1:PORT)\n", uri);
    return -1;
  }
  a.sin_port = htons((uint16_t)port);
  for (int i = 0; i < 100; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
      break;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
      int one = 1;
      (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    close(fd);
    nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
  }
  fprintf(stderr, "tw-freertos-app: cannot connect to %s: %s\n", uri, strerror(errno));
  return -1;
}

/* ---- FreeRTOS hooks and the end of the run ----------------------------------------- */

void vApplicationTickHook(void)
{
  app_tick_hook();
}

void app_platform_log(const char *text)
{
  fprintf(stderr, "%s\n", text);
}

void app_platform_finish(int status)
{
  app_print_counts(app_platform_log);
  struct tw_streamer_stats st;
  tw_streamer_stats(&streamer, &st);
  fprintf(stderr, "tw-freertos-app: %lu events, %lu dropped (announced), %lu packets, %lu bytes\n",
          (unsigned long)st.events, (unsigned long)st.drops, (unsigned long)st.packets,
          (unsigned long)st.bytes);
  /* half-close, then let the recorder finish reading before the exit */
  shutdown(sock, SHUT_WR);
  char buf[256];
  for (int i = 0; i < 50 && recv(sock, buf, sizeof buf, 0) > 0; i++)
    ;
  close(sock);
  exit(status);
}

int main(int argc, char **argv)
{
  const char *uri = NULL;
  unsigned run_ms = 1000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--connect") && i + 1 < argc)
      uri = argv[++i];
    else if (!strcmp(argv[i], "--run-ms") && i + 1 < argc)
      run_ms = (unsigned)strtoul(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "usage: tw-freertos-app --connect tcp://127.0.0.1:PORT [--run-ms N]\n");
      return 2;
    }
  }
  if (!uri || run_ms < 400) {
    fprintf(stderr, "tw-freertos-app: need --connect, and --run-ms of at least 400\n");
    return 2;
  }
  if ((sock = connect_tcp(uri)) < 0)
    return 1;

  uint32_t hz = tw_port_timestamp_hz(); /* calibrates, in thread context */
  struct tw_streamer_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = hz;
  cfg.send = tcp_send;
  cfg.endpoint = ENDPOINT;
  cfg.module_id = 1;
  cfg.sync_ticks = hz / 4;   /* the 32-bit clock wraps in about a second */
  cfg.flush_ticks = hz / 50; /* a partial packet waits at most 20 ms */
  cfg.initial_mask = 0xFFFFFFFFu;
  if (tw_streamer_init(&streamer, &cfg) || tw_cmd_init(&cmd, ENDPOINT, tcp_send, NULL, &streamer)) {
    fprintf(stderr, "tw-freertos-app: streamer or command service setup failed\n");
    return 1;
  }
  collector.streamer = &streamer;
  collector.cmd = &cmd;
  collector.receive = tcp_receive;
  collector.period_ticks = pdMS_TO_TICKS(10);
  if (tw_freertos_start(&collector, "tw", configMINIMAL_STACK_SIZE * 2, 2)) {
    fprintf(stderr, "tw-freertos-app: cannot create the collector task\n");
    return 1;
  }
  app_start(&collector, run_ms);
  vTaskStartScheduler();
  fprintf(stderr, "tw-freertos-app: the scheduler returned\n");
  return 1;
}
