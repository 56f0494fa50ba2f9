/*
 * tw-soak: a long run of the whole pipeline with faults, checking that no
 * event is ever lost without being reported.
 *
 *   target thread   the workload model (sim/, a scenario) -> kernel event
 *                   logger -> streamer -> packets -> a TCP connection to
 *                   the host over loopback. The link injects faults
 *                   (seeded, so a run can be repeated):
 *                     disconnect  the connection is cut in the middle of a
 *                                 packet (reset or close), the next few
 *                                 packets are lost while "down", then the
 *                                 target connects again;
 *                     corruption  a bit of a packet's framing (header type and
 *                                 length word, footer) is flipped, or
 *                                 garbage bytes are sent between packets;
 *                     payload     (--flip-every, with the streamer's payload
 *                                 check on) a bit anywhere in a packet is
 *                                 flipped: header, records, check, footer.
 *   host thread     tcp-listen (reconnect mode) -> reader -> decoder, the
 *                   same code `tracewire record` runs.
 *
 * At the end the target stops cleanly (TRACE_STOP, flushed, no faults) and
 * the books must balance exactly, per the loss model of decoder.h:
 *
 *   sent   = records the streamer put in packets + events the logger ring
 *            dropped (both consume event sequence numbers)
 *   host   = records decoded + events reported lost in transport (sequence
 *            gaps at packet loss) + ring drops reported by DROPS records
 *            + unexplained gaps
 *   sent == host, and the model's own count: emitted events == events the
 *   streamer took from the logger + events the logger dropped.
 *
 * With --flip-every the values are checked too: a second decoder (the
 * truth) reads every packet as the target sent it, before any fault, and
 * keeps a hash of each event by its extended sequence number; every event
 * the host decodes must hash the same (a flipped packet must be dropped
 * and counted lost, never decoded with a wrong value), and every event
 * must have been checked (none so late that the truth forgot it).
 *
 * Any mismatch, a decoder "unexplained" gap with no fault to explain it, a
 * wrong value, or a hang (watchdog) fails the run (exit 1). Prints one
 * summary line.
 *
 *   tw-soak [--events N] [--seed S] [--scenario NAME]
 *           [--disconnect-every N] [--corrupt-every N]   (in packets; 0 = never)
 *           [--flip-every N]   (in packets; turns the payload check on)
 *           [--no-check]       (the flips without the check: to see them get through)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tracewire/error.h"
#include "tracewire/io/conn.h"
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/reader.h"
#include "tw_sim.h"
#include "tw_sim_link.h"

struct faults {
  uint32_t rng;
  uint32_t disconnect_every, corrupt_every, flip_every; /* mean packets between faults */
  int on;                                   /* off for the clean finish */
  unsigned long long disconnects, resets, flips, garbage, dropped_pkts, pkts, pflips;
};

/* ---- the truth: what each event was when the target sent it ------------- */

#define TRUTH_SLOTS (1u << 20) /* far more events than are ever in flight */

static struct {
  struct tw_decoder *d;
  struct { uint64_t seq, hash; } slot[TRUTH_SLOTS];
  unsigned long long checked, wrong, forgotten;
} truth;

static uint64_t event_hash(const struct tw_event *ev)
{
  uint64_t h = 0xCBF29CE484222325ull;
  uint64_t v[4] = {ev->module, ev->id, ev->ticks, ev->nvalues};
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 0x100000001B3ull)
  for (int i = 0; i < 4; i++)
    MIX(v[i]);
  for (unsigned i = 0; i < ev->nvalues; i++)
    MIX(ev->values[i]);
  for (size_t i = 0; ev->str && i < ev->str_len; i++)
    MIX((uint8_t)ev->str[i]);
#undef MIX
  return h;
}

/* Target thread: published before the packet is sent (release on seq). */
static int truth_event(void *ctx, const struct tw_event *ev)
{
  (void)ctx;
  unsigned i = ev->seq % TRUTH_SLOTS;
  __atomic_store_n(&truth.slot[i].hash, event_hash(ev), __ATOMIC_RELAXED);
  __atomic_store_n(&truth.slot[i].seq, (uint64_t)ev->seq + 1, __ATOMIC_RELEASE);
  return 0;
}

static void truth_packet(const void *buf, size_t len)
{
  struct tw_pkt pkt;
  if (truth.d && tw_pkt_parse(buf, len, 0, &pkt) > 0)
    tw_decoder_packet(truth.d, &pkt, 0, 0);
}

/* Host thread: the event must be what the target sent under its number. */
static void truth_check(const struct tw_event *ev)
{
  unsigned i = ev->seq % TRUTH_SLOTS;
  if (__atomic_load_n(&truth.slot[i].seq, __ATOMIC_ACQUIRE) != (uint64_t)ev->seq + 1) {
    truth.forgotten++;
    return;
  }
  truth.checked++;
  if (__atomic_load_n(&truth.slot[i].hash, __ATOMIC_RELAXED) != event_hash(ev)) {
    if (!truth.wrong++)
      fprintf(stderr, "tw-soak: event %u (%s) decoded with a wrong value\n", ev->seq,
              ev->desc ? ev->desc->name : "?");
  }
}

struct target {
  int port, fd;
  struct faults f;
  int down;               /* packets still to lose before reconnecting */
  unsigned long long bytes;
};

static struct tw_sim sim;
static struct tw_sim_link link_;
static int target_done;

static uint32_t rnd(uint32_t *x)
{
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

static int one_in(uint32_t *x, uint32_t n) { return n && rnd(x) % n == 0; }

static int tcp_connect(int port)
{
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < 500; i++) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
      int one = 1; /* small packets, sent one by one: no Nagle delay */
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    if (fd >= 0)
      close(fd);
    usleep(2000);
  }
  fprintf(stderr, "tw-soak: cannot connect to 127.0.0.1:%d: %s\n", port, strerror(errno));
  exit(1);
}

static void send_all(struct target *t, const void *buf, size_t len)
{
  const char *p = buf;
  while (len) {
    ssize_t n = send(t->fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      fprintf(stderr, "tw-soak: send: %s\n", strerror(errno));
      exit(1);
    }
    p += n;
    len -= (size_t)n;
    t->bytes += (unsigned long long)n;
  }
}

/* Cut the connection after part of this packet: by reset (SO_LINGER 0,
 * like a crashed peer) or an orderly close. */
static void cut(struct target *t, const uint8_t *pkt, size_t len)
{
  struct faults *f = &t->f;
  send_all(t, pkt, 1 + rnd(&f->rng) % (len - 1));
  if (rnd(&f->rng) & 1) {
    struct linger lg = {.l_onoff = 1, .l_linger = 0};
    setsockopt(t->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    f->resets++;
  }
  close(t->fd);
  t->fd = -1;
  f->disconnects++;
  t->down = (int)(rnd(&f->rng) % 4); /* packets lost while the link is down */
}

static int link_write(void *ctx, const void *buf, size_t len)
{
  struct target *t = ctx;
  struct faults *f = &t->f;
  uint8_t copy[TW_CFG_MAX_PKT_BYTES];
  f->pkts++;
  truth_packet(buf, len);
  if (t->fd < 0) {
    if (t->down > 0 && f->on) {
      t->down--;
      f->dropped_pkts++;
      return 0;
    }
    t->fd = tcp_connect(t->port);
  }
  if (f->on && len > 1 && one_in(&f->rng, f->disconnect_every)) {
    cut(t, buf, len);
    return 0;
  }
  if (f->on && len <= sizeof copy && one_in(&f->rng, f->flip_every)) {
    /* anywhere: only the payload check can catch most of these */
    memcpy(copy, buf, len);
    size_t at = rnd(&f->rng) % len;
    copy[at] ^= (uint8_t)(1u << rnd(&f->rng) % 8);
    f->pflips++;
    send_all(t, copy, len);
    return 0;
  }
  if (f->on && len <= sizeof copy && one_in(&f->rng, f->corrupt_every)) {
    memcpy(copy, buf, len);
    if (rnd(&f->rng) & 1) {
      /* a flipped bit in the framing: the header's type/length word or
       * the footer. (UIA packets carry no checksum of their contents, so a
       * flip inside the payload is undetectable by design; see
       * docs/reliability.md, "What corruption is detected".) */
      size_t at = (rnd(&f->rng) & 1) ? rnd(&f->rng) % 4 : len - 1 - rnd(&f->rng) % 4;
      unsigned bit = rnd(&f->rng) % 8;
      if (at == 0 && bit == 3)
        bit = 7; /* not the endianness bit: it frames nothing, so a flip is undetectable */
      copy[at] ^= (uint8_t)(1u << bit);
      f->flips++;
      buf = copy;
    } else {
      uint8_t junk[37];
      size_t n = 1 + rnd(&f->rng) % sizeof junk;
      for (size_t i = 0; i < n; i++)
        junk[i] = (uint8_t)rnd(&f->rng);
      send_all(t, junk, n);
      f->garbage++;
    }
  }
  send_all(t, buf, len);
  return 0;
}

struct host {
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  unsigned long long model_events; /* kernel/RTOS events received */
  int stopped;                     /* TRACE_STOP seen */
};

static int on_event(void *ctx, const struct tw_event *ev)
{
  struct host *h = ctx;
  if (truth.d)
    truth_check(ev);
  if (ev->module == TW_MOD_CONTROL && ev->desc && !strcmp(ev->desc->name, "TRACE_STOP"))
    h->stopped = 1;
  else if (ev->module != TW_MOD_CONTROL)
    h->model_events++;
  return 0;
}

static void *host_main(void *arg)
{
  struct host *h = arg;
  struct tw_pkt pkt;
  for (;;) {
    int n = tw_reader_next(h->r, &pkt, 100);
    if (n == 1) {
      tw_decoder_packet(h->d, &pkt, tw_reader_pkt_offset(h->r), tw_reader_pkt_number(h->r));
      continue;
    }
    if (n == TW_EAGAIN) {
      /* done when the target finished and its TRACE_STOP is in */
      if (h->stopped && __atomic_load_n(&target_done, __ATOMIC_ACQUIRE))
        return NULL;
      continue;
    }
    fprintf(stderr, "tw-soak: host: %s (%d)\n", tw_conn_error(h->src), n);
    exit(1);
  }
}

static void *watchdog(void *arg)
{
  unsigned secs = *(unsigned *)arg;
  sleep(secs);
  fprintf(stderr, "tw-soak: no end after %u s: a hang\n", secs);
  _exit(1);
}

static int link_drain(void *ctx) { return tw_sim_link_drain(ctx); }

int main(int argc, char **argv)
{
  unsigned long long events = 2000000;
  uint32_t seed = 1, disc = 3000, corr = 1000, pflip = 0;
  int no_check = 0;
  const char *scenario = "demo";
  unsigned timeout = 3600;
  for (int i = 1; i < argc; i += 2) {
    if (!strcmp(argv[i], "--no-check")) {
      no_check = 1;
      i--;
      continue;
    }
    if (i + 1 == argc) {
      fprintf(stderr, "tw-soak: %s: a value is missing\n", argv[i]);
      return 2;
    }
    if (!strcmp(argv[i], "--events")) events = strtoull(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--seed")) seed = (uint32_t)strtoul(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--scenario")) scenario = argv[i + 1];
    else if (!strcmp(argv[i], "--disconnect-every")) disc = (uint32_t)strtoul(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--corrupt-every")) corr = (uint32_t)strtoul(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--flip-every")) pflip = (uint32_t)strtoul(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--timeout")) timeout = (unsigned)strtoul(argv[i + 1], NULL, 0);
    else {
      fprintf(stderr, "usage: tw-soak [--events N] [--seed S] [--scenario NAME] "
                      "[--disconnect-every PKTS] [--corrupt-every PKTS] [--flip-every PKTS] "
                      "[--no-check] [--timeout S]\n");
      return 2;
    }
  }
  int sc = tw_sim_scenario_parse(scenario);
  if (sc < 0) {
    fprintf(stderr, "tw-soak: unknown scenario '%s'\n", scenario);
    return 2;
  }
  pthread_t wd, ht;
  pthread_create(&wd, NULL, watchdog, &timeout);
  pthread_detach(wd);

  struct host h = {0};
  char err[256];
  int port;
  if (tw_conn_tcp_listen("127.0.0.1", "0", &port, &h.src, err, sizeof err) < 0) {
    fprintf(stderr, "tw-soak: %s\n", err);
    return 1;
  }
  h.src->reconnect = 1;
  if (tw_reader_open(&h.r, h.src, NULL) < 0 || tw_decoder_open(&h.d, NULL) < 0)
    return 1;
  tw_decoder_on_event(h.d, on_event, &h);
  pthread_create(&ht, NULL, host_main, &h);

  struct target t = {.port = port, .fd = -1};
  t.f = (struct faults){.rng = seed * 2654435761u | 1u, .disconnect_every = disc,
                        .corrupt_every = corr, .flip_every = pflip, .on = 1};
  if (pflip) {
    if (tw_decoder_open(&truth.d, NULL) < 0)
      return 1;
    tw_decoder_on_event(truth.d, truth_event, NULL);
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  tw_sim_init(&sim, seed);
  if (tw_sim_scenario_setup(&sim, (enum tw_sim_scenario)sc) < 0 ||
      tw_sim_set_collector(&sim, 10, link_drain, &link_) < 0)
    return 1;
  tw_sim_register_names(&sim);
  if (tw_sim_link_init_opts(&link_, link_write, NULL, &t, TW_SIM_HZ, TW_SIM_LINK_ALL_EVENTS,
                            pflip && !no_check ? TW_SIM_LINK_CHECK : 0) < 0)
    return 1;
  tw_sim_run(&sim, UINT64_MAX, events);
  t.f.on = 0; /* the end is clean: the last packets must arrive to close the books */
  if (tw_sim_link_finish(&link_) < 0) {
    fprintf(stderr, "tw-soak: finishing the stream failed\n");
    return 1;
  }
  __atomic_store_n(&target_done, 1, __ATOMIC_RELEASE);
  pthread_join(ht, NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (t.fd >= 0)
    close(t.fd);

  struct tw_streamer_stats ss;
  tw_streamer_stats(&link_.streamer, &ss);
  unsigned long long recs = 0, lost = 0, ring = 0, unexpl = 0, pkts_lost = 0, bad_check = 0;
  unsigned long long checked = 0;
  for (size_t i = 0; i < tw_decoder_nstreams(h.d); i++) {
    const struct tw_stream_stats *st = tw_decoder_stream(h.d, i);
    recs += st->records;
    lost += st->events_lost;
    ring += st->ring_drops;
    unexpl += st->unexplained;
    pkts_lost += st->pkts_lost;
    bad_check += st->check_failed;
    checked += st->checked;
  }
  const struct tw_reader_stats *rs = tw_reader_stats(h.r);
  unsigned long long sent = (unsigned long long)ss.records + ss.drops;
  unsigned long long got = recs + lost + ring + unexpl;
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  int ok = sent == got && sim.nevents == (unsigned long long)ss.events + ss.drops && unexpl == 0 &&
           !truth.wrong && !truth.forgotten;
  printf("tw-soak: %s: %llu events emitted by the model (%s, seed %u) in %.1f s (%.2f M events/s);\n"
         "  target: %llu records sent + %llu ring drops = %llu sequence numbers; %llu packets, "
         "%llu bytes\n"
         "  faults: %llu disconnects (%llu resets), %llu packets lost while down, %llu bit flips, "
         "%llu garbage runs\n"
         "  host:   %llu records received + %llu lost in transport (%llu packets) + %llu ring drops "
         "+ %llu unexplained = %llu; %llu bytes skipped in %llu regions, %llu reconnects\n"
         "  lost unaccounted: %lld\n",
         ok ? "PASS" : "FAIL", (unsigned long long)sim.nevents, scenario, seed, secs,
         (double)sim.nevents / secs / 1e6, (unsigned long long)ss.records,
         (unsigned long long)ss.drops, sent, t.f.pkts, t.bytes, t.f.disconnects, t.f.resets,
         t.f.dropped_pkts, t.f.flips, t.f.garbage, recs, lost, pkts_lost, ring, unexpl, got,
         rs->skipped, rs->skips, h.src->disconnects, (long long)(sent - got));
  if (pflip)
    printf("  payload: %llu bits flipped anywhere in a packet; %llu packets verified, %llu failed "
           "their check (dropped, counted lost);\n"
           "           %llu events checked against what was sent: %llu with a wrong value, %llu "
           "not checkable\n", t.f.pflips, checked, bad_check, truth.checked, truth.wrong,
           truth.forgotten);
  if (sim.nevents != (unsigned long long)ss.events + ss.drops)
    printf("  model: %llu emitted but the streamer took %u and the ring dropped %u\n",
           (unsigned long long)sim.nevents, ss.events, ss.drops);
  tw_decoder_close(h.d);
  tw_decoder_close(truth.d);
  tw_reader_close(h.r);
  tw_conn_close(h.src);
  return ok ? 0 : 1;
}
