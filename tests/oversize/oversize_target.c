/*
 * tw-oversize-target OUT.bin: the real target stack (kernel event logger,
 * general streamer, POSIX port) of a small build, a 32-word ring, sending
 * custom string events through tw_custom_bytes(): a 10 KB one (cut to
 * TW_CFG_BYTES_MAX = 128 bytes, 35 words: more than the ring holds) after
 * a task switch and before another, a short one that fits, and another
 * 10 KB one as the recording's last event. Neither large one can be
 * recorded; each must reach the host as a drop (docs/instrumentation.md):
 * the first in the DROPS before the next task switch, the last in the
 * DROPS STOP writes before TRACE_STOP. tests/sh/oversize_drop.sh decodes
 * OUT.bin with the tracewire CLI. The clock is a counter: the same bytes
 * every run. Prints "emitted E dropped D" (events emitted, of which D
 * could not be recorded).
 */
#include <stdio.h>
#include <string.h>
#include "tracewire/events_gen.h"
#include "tracewire/klog.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"

#define EP 0x0009u
enum { K_TEXT = 29 };

_Static_assert(TW_CFG_KLOG_CAPACITY < 3 + (TW_CFG_BYTES_MAX + 3) / 4,
               "the ring must be too small for the largest string event");

static FILE *out;
static uint32_t fake_now = 100;
static struct tw_streamer S;
static char big[10240];

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

int main(int argc, char **argv)
{
  struct tw_streamer_cfg cfg = {
    .send = to_file,
    .endpoint = EP,
    .module_id = 1,
    .initial_mask = 0xFFFFFFFFu,
  };
  if (argc != 2) {
    fprintf(stderr, "usage: tw-oversize-target OUT.bin\n");
    return 2;
  }
  if (!(out = fopen(argv[1], "wb"))) {
    perror(argv[1]);
    return 1;
  }
  memset(big, 'x', sizeof big);
  tw_klog_set_timer(clock_fn);
  tw_klog_register_collector();
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 1000000;
  if (tw_streamer_init(&S, &cfg) || tw_custom_declare(K_TEXT, 1, "Log text:STR") ||
      tw_name_register(TW_OBJ_TASK, 1, "idle", 0) || tw_name_register(TW_OBJ_TASK, 2, "app", 1) ||
      tw_streamer_start(&S))
    return 1;
  drain();
  fake_now += 10;
  tw_task_switch(1);
  drain();
  fake_now += 10;
  tw_custom_bytes(K_TEXT, big, sizeof big); /* cannot be recorded */
  fake_now += 10;
  tw_task_switch(2);
  drain();
  fake_now += 10;
  tw_custom_bytes(K_TEXT, "fits", 4);
  drain();
  fake_now += 10;
  tw_custom_bytes(K_TEXT, big, sizeof big); /* the last: cannot be recorded */
  fake_now += 10;
  tw_streamer_stop(&S, 1);
  while (!tw_streamer_idle(&S))
    if (tw_streamer_poll(&S, 0) < 0)
      return 1;
  printf("emitted 5 dropped 2\n");
  return fclose(out) == 0 ? 0 : 1;
}
