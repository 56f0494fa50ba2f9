/*
 * Decode throughput on one core: a large synthetic trace in memory, framed
 * by the reader and decoded to struct tw_event (every field unpacked), with
 * an event callback that only counts. Reports MB/s and events/s; the peer
 * in the same run is memcpy of the same bytes (the ceiling of any decoder
 * that reads its input once), so the ratio says how close decoding gets.
 *
 *   bench_decode [MiB]   (default 512)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/reader.h"
#include "tracewire/io/conn.h"
#include "tracewire/wire/synth.h"

static double clock_s(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
/* CPU time of this thread: on a shared machine wall time also counts the
 * time other processes had the core; both are printed. */
static double now(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }
static double wall(void) { return clock_s(CLOCK_MONOTONIC); }

static int count(void *ctx, const struct tw_event *ev)
{
  unsigned long long *n = ctx;
  *n += 1 + (ev->values[0] & 0); /* touch the event like a consumer would */
  return 0;
}

int main(int argc, char **argv)
{
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 512;
  size_t size = mib << 20, len = 0;
  uint8_t *trace = malloc(size + 65536), *copy = malloc(size + 65536);
  if (!trace || !copy)
    return 1;
  struct tw_synth g;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 4096 };
  tw_synth_init(&g, &cfg);
  while (len < size)
    len += tw_synth_packet(&g, trace + len, 65536);

  double best = 1e9, best_copy = 1e9, best_wall = 1e9;
  unsigned long long events = 0;
  for (int rep = 0; rep < 3; rep++) {
    struct tw_conn *src;
    struct tw_reader *r;
    struct tw_decoder *d;
    struct tw_reader_cfg rc = { .read_bytes = 1 << 20 };
    tw_conn_mem_open(trace, len, &src);
    tw_reader_open(&r, src, &rc);
    tw_decoder_open(&d, NULL);
    events = 0;
    tw_decoder_on_event(d, count, &events);
    double w0 = wall(), t0 = now();
    tw_decoder_run(d, r);
    double t = now() - t0, w = wall() - w0;
    if (t < best)
      best = t;
    if (w < best_wall)
      best_wall = w;
    tw_decoder_close(d);
    tw_reader_close(r);
    tw_conn_close(src);
    t0 = now();
    memcpy(copy, trace, len);
    __asm__ volatile("" : : "r"(copy) : "memory"); /* the copy is used */
    t = now() - t0;
    if (t < best_copy)
      best_copy = t;
  }
  if (events != g.events) {
    fprintf(stderr, "bench_decode: decoded %llu events, generated %llu\n", events, g.events);
    return 1;
  }
  double mbs = (double)len / best / 1e6, eps = (double)events / best;
  double copy_mbs = (double)len / best_copy / 1e6;
  printf("bench_decode: %.0f MB trace, %llu events (%.1f bytes/event)\n", (double)len / 1e6, events,
         (double)len / (double)events);
  printf("bench_decode: decode %.0f MB/s, %.1f M events/s (one core, thread CPU time, best of 3)\n",
         mbs, eps / 1e6);
  printf("bench_decode: wall clock %.0f MB/s (includes time other processes held the core)\n",
         (double)len / best_wall / 1e6);
  printf("bench_decode: peer memcpy %.0f MB/s (CPU time); decode/memcpy = %.3f\n", copy_mbs, mbs / copy_mbs);
  printf("bench_decode: target >= 1000 MB/s: %s\n", mbs >= 1000 ? "met" : "NOT met");
  free(trace);
  free(copy);
  return 0;
}
