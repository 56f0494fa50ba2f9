/*
 * What the payload check costs the target (docs/wire-format.md, "Payload
 * check"): the streamer turning logger events into packets, with
 * cfg.check off (the peer) and on, in the same run, per event and per
 * packet; and the CRC itself over one full default packet (128 bytes).
 *
 * The streamer runs exactly as on a target: kernel event logger ring ->
 * tw_streamer_poll() -> packets to a send function (here one that takes
 * the packet and does nothing else). A batch of SEM events (3 ring words
 * each) fills the ring, the streamer drains it; best of ROUNDS batches.
 *   usage: bench_check [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tracewire/uia.h"
#include "../tests/tw_target_reset.h"

#define BATCH 40u /* SEM events per batch: 120 words of the 128-word ring */

static uint32_t fake_now;
static uint32_t timer(void) { return fake_now; }
static unsigned long long sent_pkts, sent_bytes;
static volatile uint32_t sink_word;

static int sink(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  sink_word ^= *(const uint32_t *)p; /* touch it, as a transport would */
  sent_pkts++;
  sent_bytes += len;
  return 0;
}

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

struct result {
  double ns_event, ns_packet, bytes_per_packet;
};

/* Best of rounds: time of draining a full ring through the streamer. */
static struct result run(int check, int rounds)
{
  static struct tw_streamer s;
  struct tw_streamer_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  tw_target_reset(timer);
  fake_now = 1000;
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 1000000;
  cfg.send = sink;
  cfg.endpoint = 1;
  cfg.initial_mask = 0xFFFFFFFFu;
  cfg.check = (uint8_t)check;
  if (tw_streamer_init(&s, &cfg) < 0 || tw_streamer_start(&s) < 0) {
    fprintf(stderr, "bench_check: streamer init failed\n");
    exit(1);
  }
  for (int i = 0; i < 16; i++)
    tw_streamer_poll(&s, 0);
  double best = 1e30;
  unsigned long long pkts = 0, bytes = 0;
  for (int r = 0; r < rounds; r++) {
    for (unsigned i = 0; i < BATCH; i++) {
      fake_now += 3;
      tw_sem_at(fake_now, (uint16_t)i, TW_SEM_Give);
    }
    unsigned long long p0 = sent_pkts, b0 = sent_bytes;
    double t0 = now_ns();
    while (tw_streamer_poll(&s, 0) > 0)
      ;
    tw_streamer_flush(&s);
    double t = now_ns() - t0;
    if (t < best) {
      best = t;
      pkts = sent_pkts - p0;
      bytes = sent_bytes - b0;
    }
  }
  struct result res = { best / BATCH, pkts ? best / (double)pkts : 0,
                        pkts ? (double)bytes / (double)pkts : 0 };
  return res;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 20000;
  if (rounds < 1)
    rounds = 1;
  struct result off = run(0, rounds), on = run(1, rounds);
  uint8_t pkt[TW_CFG_MAX_PKT_BYTES];
  for (size_t i = 0; i < sizeof pkt; i++)
    pkt[i] = (uint8_t)(i * 37u);
  double best = 1e30;
  for (int r = 0; r < rounds; r++) {
    double t0 = now_ns();
    for (int k = 0; k < 16; k++) {
      pkt[0] = (uint8_t)k;
      sink_word ^= tw_crc16(pkt, sizeof pkt - 4);
    }
    double t = (now_ns() - t0) / 16;
    if (t < best)
      best = t;
  }
  printf("bench_check: streamer %.1f ns/event, %.0f ns/packet (%.0f B) without the payload check;"
         " %.1f ns/event, %.0f ns/packet (%.0f B) with it: %+.0f%% per event, %+.0f ns per packet;"
         " CRC of a %u-byte packet %.0f ns (%.0f MB/s)\n",
         off.ns_event, off.ns_packet, off.bytes_per_packet, on.ns_event, on.ns_packet,
         on.bytes_per_packet, 100.0 * (on.ns_event - off.ns_event) / off.ns_event,
         on.ns_packet - off.ns_packet, TW_CFG_MAX_PKT_BYTES - 4, best,
         (double)(TW_CFG_MAX_PKT_BYTES - 4) / best * 1e3);
  return 0;
}
