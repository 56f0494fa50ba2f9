/*
 * The golden script: a fixed sequence of emitter calls, name and custom
 * declarations, an overflow and a stop, on a test clock. Its packet bytes
 * are checked in under tests/golden/ (little-endian targets). Rewrite them
 * with TW_UPDATE_GOLDEN=1 after an intended change, and say why in the
 * commit.
 */
#ifndef TW_GOLDEN_SCRIPT_H
#define TW_GOLDEN_SCRIPT_H

#include <stdio.h>
#include <stdlib.h>

#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tw_stream_test.h"
#include "tw_target_reset.h"

static uint32_t golden_now;
static uint32_t golden_timer(void) { return golden_now; }

static void golden_run(struct tw_streamer *s, struct cap *c)
{
  struct tw_streamer_cfg cfg;
  tw_target_reset(golden_timer);
  golden_now = 0xFFFF0000u; /* wraps during the script */
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 48000000;
  cfg.send = cap_send;
  cfg.send_ctx = c;
  cfg.endpoint = 0x0001;
  cfg.module_id = 0x0101;
  cfg.instance_id = 2;
  cfg.priority = 1;
  cfg.sync_ticks = 0x00100000;
  cfg.initial_mask = 0x0001FFFFu; /* ids 1..17 */
  assert_int_equal(tw_streamer_init(s, &cfg), 0);

  assert_int_equal(tw_name_register(TW_OBJ_TASK, 1, "main", 5), 0);
  assert_int_equal(tw_name_register(TW_OBJ_TASK, 2, "worker", 3), 0);
  assert_int_equal(tw_name_register(TW_OBJ_MUTEX, 1, "bus", 0), 0);
  assert_int_equal(tw_name_register(TW_OBJ_SEM, 4, "rx_ready", 0), 0);
  assert_int_equal(tw_custom_declare(28, 1, "Temp sensor:U8 milli_c:U32"), 0);
  assert_int_equal(tw_streamer_start(s), 0);
  assert_true(tw_streamer_poll(s, 0) >= 0);

  golden_now = 0xFFFF1000u;
  tw_task_switch_at(0xFFFF0100u, 1);
  tw_mutex_at(0xFFFF0200u, 1, 1, TW_MUTEX_Lock);
  tw_task_switch_at(0xFFFF0300u, TW_TASK_SWITCH_EnterInt);
  tw_sem_at(0xFFFF0310u, 4, TW_SEM_Give);
  tw_task_switch_at(0xFFFF0320u, TW_TASK_SWITCH_LeaveInt);
  tw_sem_task_at(0xFFFF0400u, 2, 4, TW_SEM_TASK_Take);
  tw_mutex_at(0xFFFF0500u, 2, 1, TW_MUTEX_Block);
  tw_multi_event_task_at(0xFFFF0600u, 2, 3, TW_MULTI_EVENT_TASK_Consume, 1);
  tw_res_sem_task_at(0xFFFF0700u, 1, 2, TW_RES_SEM_TASK_Pass);
  tw_custom(28, (uint32_t[]){3, 21500}, 2);
  assert_true(tw_streamer_poll(s, 0) >= 0);

  golden_now = 0x00000800u; /* the clock wrapped */
  tw_mutex_at(0x00000100u, 1, 1, TW_MUTEX_Unlock);
  tw_interrupt_at(0x00000200u, 17);
  tw_context_switch_at(0x00000300u, 0x20001000u);
  assert_true(tw_streamer_poll(s, 0) >= 0);

  /* overflow: 60 events into a 128-word ring with no poll in between */
  for (uint32_t i = 0; i < 60; i++)
    tw_anti_sem_at(0x00001000u + i, (uint16_t)i, TW_ANTI_SEM_Sub);
  assert_true(tw_streamer_poll(s, 0) >= 0);
  tw_event_at(0x00002000u, 6, TW_EVENT_Trigger);
  golden_now = 0x00200000u; /* past sync_ticks: a SYNC record */
  assert_true(tw_streamer_poll(s, 0) >= 0);
  assert_int_equal(tw_streamer_stop(s, 0), 0);
  assert_true(tw_streamer_poll(s, 0) >= 0);
}

/* Compare with tests/golden/<name>, or rewrite it when TW_UPDATE_GOLDEN=1. */
static void golden_check(const struct cap *c, const char *name)
{
  char path[512];
  snprintf(path, sizeof path, "%s/tests/golden/%s", TW_SOURCE_DIR, name);
  if (TW_HOST_BIG_ENDIAN)
    skip(); /* payloads are in the sender's order; the files are little-endian */
  const char *up = getenv("TW_UPDATE_GOLDEN");
  if (up && *up == '1') {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(c->buf, 1, c->len, f), c->len);
    fclose(f);
    fprintf(stderr, "golden: rewrote %s (%zu bytes)\n", path, c->len);
    return;
  }
  FILE *f = fopen(path, "rb");
  if (!f)
    fail_msg("golden file %s missing (create it with TW_UPDATE_GOLDEN=1)", path);
  static uint8_t want[65536];
  size_t n = fread(want, 1, sizeof want, f);
  fclose(f);
  size_t i = 0;
  while (i < n && i < c->len && want[i] == c->buf[i])
    i++;
  if (i != n || n != c->len)
    fail_msg("%s: first difference at byte %zu (expected %zu bytes, got %zu): "
             "expected 0x%02x, got 0x%02x", path, i, n, c->len,
             i < n ? want[i] : 0, i < c->len ? c->buf[i] : 0);
}

#endif
