/*
 * tw-demo-target: the modelled RTOS target, on the host.
 *
 * Runs one scenario of the workload model (sim/) and streams its trace the
 * way a device would: kernel event logger -> streamer -> UIA packets over a
 * real transport, a TCP connection to the recorder (tracewire record
 * listening on loopback) or a file. Commands from the host on the same
 * connection (set mask, stop, ...) go to the command service; STOP ends
 * the run. The model's clock is virtual, so the bytes sent are a pure
 * function of scenario and seed (absent commands): the QEMU firmware sends
 * the very same bytes (tests/sh/qemu_matches_host.sh).
 *
 *   tw-demo-target [--scenario NAME] [--seed N] [--duration US | --events N]
 *                  [--connect tcp://127.0.0.1:PORT | --out FILE] [--quiet]
 *                  [--model-log FILE] [--realtime]
 * --model-log writes every event the model emitted, one line each,
 * "<ticks> <id> <v0> <v1> ...", before the logger's mask and ring: what
 * tw-demo-dump prints for the decoded stream, for comparison.
 * --realtime paces the model to the wall clock (one model millisecond per
 * real one), for a host that wants to watch or stop a long run; timestamps
 * stay virtual. Over TCP the target lingers after the stream ends (until
 * the host is quiet for 200 ms, at most 2 s) to answer late commands.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tracewire/klog.h"
#include "tw_sim.h"
#include "tw_sim_link.h"

struct io {
  int fd;
  int is_socket;
  unsigned long long bytes;
};

static int io_write(void *ctx, const void *buf, size_t len)
{
  struct io *io = ctx;
  const char *p = buf;
  while (len) {
    ssize_t n = io->is_socket ? send(io->fd, p, len, MSG_NOSIGNAL) : write(io->fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      fprintf(stderr, "tw-demo-target: write to the link failed: %s\n", strerror(errno));
      return TW_EIO;
    }
    p += n;
    len -= (size_t)n;
    io->bytes += (unsigned long long)n;
  }
  return 0;
}

static int io_read(void *ctx, void *buf, size_t cap)
{
  struct io *io = ctx;
  ssize_t n = recv(io->fd, buf, cap, MSG_DONTWAIT);
  if (n > 0)
    return (int)n;
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    return 0;
  return TW_ECONNRESET; /* 0: the host closed; or a real error */
}

/* tcp://HOST:PORT, retried for a few seconds while the recorder starts. */
static int connect_tcp(const char *uri)
{
  char host[64];
  unsigned port;
  if (sscanf(uri, "tcp://%63[^:]:%u", host, &port) != 2 || port == 0 || port > 65535) {
    fprintf(stderr, "tw-demo-target: bad --connect '%s' (want tcp://127.0.0.1:PORT)\n", uri);
    return -1;
  }
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
    fprintf(stderr, "tw-demo-target: --connect: '%s' is not an IPv4 address\n", host);
    return -1;
  }
  for (int attempt = 0; attempt < 100; attempt++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
      break;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
      return fd;
    int e = errno;
    close(fd);
    if (e != ECONNREFUSED) {
      errno = e;
      break;
    }
    nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
  }
  fprintf(stderr, "tw-demo-target: cannot connect to %s: %s\n", uri, strerror(errno));
  return -1;
}

static void usage(void)
{
  fprintf(stderr,
          "usage: tw-demo-target [--scenario NAME] [--seed N] [--duration US | --events N]\n"
          "                      [--connect tcp://127.0.0.1:PORT | --out FILE] [--quiet]\n"
          "                      [--model-log FILE] [--realtime]\n"
          "scenarios:");
  for (int i = 0; i < TW_SIM_SC_COUNT; i++)
    fprintf(stderr, " %s", tw_sim_scenario_name((enum tw_sim_scenario)i));
  fprintf(stderr, "\n");
}

static void summary(const struct tw_sim *s, const struct tw_sim_link *l, const struct io *io,
                    const char *scenario, uint32_t seed)
{
  struct tw_logger_stats ls;
  struct tw_streamer_stats ss;
  tw_logger_stats(tw_klog_logger(), &ls);
  tw_streamer_stats(&l->streamer, &ss);
  fprintf(stderr,
          "tw-demo-target: scenario %s seed %u: %.3f ms virtual, %llu events emitted, "
          "%u taken, %u dropped (ring full); %u packets, %llu bytes\n",
          scenario, seed, (double)s->now / 1000.0, (unsigned long long)s->nevents, ss.events,
          ss.drops, ss.packets, io->bytes);
  for (unsigned i = 0; i < s->ntasks; i++)
    fprintf(stderr, "  task %2u %-10s prio %2u  cpu %5.1f%%\n", i, s->tasks[i].name,
            s->tasks[i].prio,
            s->now ? 100.0 * (double)(i ? s->tasks[i].cpu : s->idle) / (double)s->now : 0.0);
}

static void log_event(void *ctx, const struct tw_sim_event *ev)
{
  FILE *f = ctx;
  fprintf(f, "%llu %u", (unsigned long long)ev->time, ev->id);
  for (unsigned i = 0; i < ev->nfields; i++)
    fprintf(f, " %u", ev->f[i]);
  fputc('\n', f);
}

static struct tw_sim sim;
static struct tw_sim_link link_;
static int realtime;

static uint32_t wall_ms(void *ctx)
{
  (void)ctx;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

static void pause_1ms(void *ctx)
{
  (void)ctx;
  nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
}

/* The collector's work, paced to the wall clock with --realtime. */
static int drain(void *ctx)
{
  static uint32_t t0;
  if (realtime) {
    if (!t0)
      t0 = wall_ms(NULL) | 1u;
    while ((uint64_t)(uint32_t)(wall_ms(NULL) - t0) * 1000u < sim.now)
      pause_1ms(NULL);
  }
  return tw_sim_link_drain(ctx);
}

int main(int argc, char **argv)
{
  const char *scenario = "demo", *connect_to = NULL, *out = NULL, *model_log = NULL;
  uint32_t seed = 1;
  uint64_t duration = 0, max_events = 0;
  int quiet = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--quiet")) {
      quiet = 1;
      continue;
    }
    if (!strcmp(a, "--realtime")) {
      realtime = 1;
      continue;
    }
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage();
      return 0;
    }
    if (!v) {
      usage();
      return 2;
    }
    i++;
    if (!strcmp(a, "--scenario")) scenario = v;
    else if (!strcmp(a, "--seed")) seed = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(a, "--duration")) duration = strtoull(v, NULL, 0);
    else if (!strcmp(a, "--events")) max_events = strtoull(v, NULL, 0);
    else if (!strcmp(a, "--connect")) connect_to = v;
    else if (!strcmp(a, "--out")) out = v;
    else if (!strcmp(a, "--model-log")) model_log = v;
    else {
      usage();
      return 2;
    }
  }
  int sc = tw_sim_scenario_parse(scenario);
  if (sc < 0) {
    fprintf(stderr, "tw-demo-target: unknown scenario '%s'\n", scenario);
    usage();
    return 2;
  }
  struct io io = { -1, 0, 0 };
  if (connect_to) {
    io.fd = connect_tcp(connect_to);
    io.is_socket = 1;
  } else if (out) {
    io.fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (io.fd < 0)
      fprintf(stderr, "tw-demo-target: cannot create %s: %s\n", out, strerror(errno));
  } else {
    fprintf(stderr, "tw-demo-target: need --connect or --out\n");
    usage();
    return 2;
  }
  if (io.fd < 0)
    return 1;

  FILE *mlog = NULL;
  if (model_log && !(mlog = fopen(model_log, "w"))) {
    fprintf(stderr, "tw-demo-target: cannot create %s: %s\n", model_log, strerror(errno));
    return 1;
  }
  tw_sim_init(&sim, seed);
  if (mlog)
    tw_sim_set_observer(&sim, log_event, mlog);
  int r = tw_sim_scenario_setup(&sim, (enum tw_sim_scenario)sc);
  if (r >= 0)
    r = tw_sim_set_collector(&sim, 10, drain, &link_);
  if (r >= 0) {
    tw_sim_register_names(&sim);
    r = tw_sim_link_init(&link_, io_write, io.is_socket ? io_read : NULL, &io, TW_SIM_HZ,
                         TW_SIM_LINK_ALL_EVENTS);
  }
  if (r < 0) {
    fprintf(stderr, "tw-demo-target: setting up scenario %s: %s\n", scenario, tw_strerror(r));
    return 1;
  }
  if (!duration)
    duration = tw_sim_scenario_duration((enum tw_sim_scenario)sc);
  tw_sim_run(&sim, duration, max_events);
  r = tw_sim_link_finish(&link_);
  if (io.is_socket) {
    const struct tw_link_clock clk = { wall_ms, pause_1ms, NULL };
    tw_sim_link_linger(&link_, &clk, 200, 2000);
  }
  if (!quiet)
    summary(&sim, &link_, &io, scenario, seed);
  close(io.fd);
  if (mlog)
    fclose(mlog);
  if (r < 0) {
    fprintf(stderr, "tw-demo-target: finishing the stream: %s\n", tw_strerror(r));
    return 1;
  }
  return 0;
}
