/*
 * tw_ftypes_target OUT.bin: the real target stack (kernel event logger,
 * streamer, POSIX port) logging a custom event with signed and float
 * fields, the way firmware would:
 *
 *   tw_custom_declare(40, 1, "Thermo temp:F32 err:I32 trim:I8 dt:I16 raw:U32");
 *   uint32_t w[5] = { tw_word_f32(t), tw_word_i32(e), tw_word_i32(trim), ... };
 *   tw_custom(40, w, 5);
 *
 * The stream goes to OUT.bin as a host would receive it. The values are
 * fixed and chosen at the edges (INT32_MIN, -128, -0.0, NaN, infinities,
 * the smallest denormal, FLT_MAX), so tests/sh/ftypes_e2e.sh can check
 * every consumer prints them back exactly. The clock is a counter: the same
 * bytes every run.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tracewire/klog.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"

#define EP 0x0009u
#define THERMO 40

static FILE *out;
static uint32_t fake_now = 100;
static struct tw_streamer S;

static uint32_t clock_fn(void) { return fake_now; }

static int to_file(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  return fwrite(p, 1, len, out) == len ? 0 : TW_EBUSY;
}

static void drain(void)
{
  while (tw_streamer_poll(&S, 0) > 0)
    ;
}

static const struct { float temp; int32_t err; int8_t trim; int16_t dt; uint32_t raw; } rows[] = {
  {21.5f, -5, -1, -300, 7},
  {-21.5f, INT32_MIN, -128, -32768, 0xFFFFFFFFu},
  {0.1f, INT32_MAX, 127, 32767, 0},
  {-0.0f, 0, 0, 0, 1},
  {FLT_MAX, -1, 1, 1, 2},
  {1e-45f, 123456789, -2, -2, 3}, /* the smallest denormal */
  {NAN, -42, 42, -1234, 4},
  {INFINITY, 1, -100, 1000, 5},
  {-INFINITY, -1000000, 100, -1000, 6},
  {3.14159274f, -7, -7, -7, 8},
};

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: tw_ftypes_target OUT.bin\n");
    return 2;
  }
  if (!(out = fopen(argv[1], "wb"))) {
    perror(argv[1]);
    return 1;
  }
  tw_klog_set_timer(clock_fn);
  tw_klog_register_collector();
  struct tw_streamer_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 1000000;
  cfg.send = to_file;
  cfg.endpoint = EP;
  cfg.module_id = 1;
  cfg.sync_ticks = 100000;
  cfg.initial_mask = 0xFFFFFFFFu;
  if (tw_streamer_init(&S, &cfg) ||
      tw_custom_declare(THERMO, 1, "Thermo temp:F32 err:I32 trim:I8 dt:I16 raw:U32") ||
      tw_streamer_start(&S))
    return 1;
  drain();
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    /* an I8/I16 word may carry the int's upper bits: the host keeps 8/16 */
    uint32_t w[5] = {tw_word_f32(rows[i].temp), tw_word_i32(rows[i].err),
                     tw_word_i32(rows[i].trim), tw_word_i32(rows[i].dt), rows[i].raw};
    fake_now += 10;
    tw_custom(THERMO, w, 5);
    drain();
  }
  tw_streamer_stop(&S, 1);
  while (tw_streamer_running(&S) || S.nwork || S.fill > TW_STREAMER_HDR_BYTES) {
    tw_streamer_poll(&S, 0);
    tw_streamer_flush(&S);
  }
  return fclose(out) == 0 ? 0 : 1;
}
