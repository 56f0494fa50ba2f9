/*
 * The smallest program that records and streams a trace, linked to
 * measure what the recording stack costs in flash and RAM
 * (scripts/size-check.sh, `make size`; docs/performance.md).
 *
 * Minimal configuration (TW_CFG_DIRECT=1, TW_CFG_CUSTOM_DECLS=0,
 * TW_CFG_MIN_EVENT_PKT=1): kernel/RTOS events framed into packets straight
 * into one transport, an RTT up channel (direct recording,
 * tracewire/direct.h), names, no command service, no custom events.
 * Streamed configuration (TW_CFG_STREAMER_MINIMAL=1, TW_CFG_LOGGER_WAKE=0,
 * the same two): the same program through the event logger ring, the
 * minimal streamer and its packets, into the RTT up channel. Both record
 * from start-up on and never stop, emitting a task switch and a mutex
 * event (the emitters' 1- and 2-word put). Full configuration (the
 * defaults): the event logger ring, the streamer, the command service on
 * the RTT down channel, custom events, the kernel hooks, STOP and
 * statistics, as the firmware demo links them.
 *
 * The application's own code (this file, the emitters inlined into it,
 * start-up) is not counted; every object of the recording stack is, and
 * whatever it pulls from the C library is shown apart.
 */
#include <stdint.h>

#include "tracewire/direct.h"
#include "tracewire/port.h"
#include "tracewire/rtt.h"
#include "tracewire/trace.h"
#if !TW_CFG_DIRECT
#include "tracewire/cmd.h"
#include "tracewire/klog.h"
#include "tracewire/streamer.h"
#endif

static struct tw_rtt_cb rtt;
static uint32_t up_buf[1024 / 4]; /* aligned: direct recording writes words */
int main(void);
void tw_size_reset(void);

#if TW_CFG_DIRECT
int main(void)
{
  tw_port_cm_init();
  tw_rtt_init(&rtt);
  tw_rtt_config_up(&rtt, 0, "tracewire", up_buf, sizeof up_buf, TW_RTT_SKIP);
  tw_name_register(TW_OBJ_TASK, 1, "main", 1);
  const struct tw_direct_cfg cfg = { .rtt = &rtt, .freq_hz = 16000000u, .endpoint = 1 };
  if (tw_direct_init(&cfg) < 0)
    return 1;
  while (tw_direct_start(~0u) == TW_EBUSY)
    ;
  for (uint32_t i = 0;; i++) {
    tw_task_switch((uint16_t)i);
    tw_mutex(1, 2, TW_MUTEX_Lock);
  }
}
#elif TW_CFG_STREAMER_MINIMAL
struct tw_streamer tw_size_streamer;

int main(void)
{
  struct tw_streamer *s = &tw_size_streamer;
  tw_port_cm_init();
  tw_rtt_init(&rtt);
  tw_rtt_config_up(&rtt, 0, "tracewire", up_buf, sizeof up_buf, TW_RTT_SKIP);
  tw_name_register(TW_OBJ_TASK, 1, "main", 1);
  const struct tw_streamer_cfg cfg = { .send = tw_rtt_send, .send_ctx = &rtt, .endpoint = 1,
                                       .initial_mask = ~0u };
  if (tw_streamer_init(s, &cfg) < 0 || tw_streamer_start(s) < 0)
    return 1;
  for (uint32_t i = 0;; i++) {
    tw_task_switch((uint16_t)i);
    tw_mutex(1, 2, TW_MUTEX_Lock);
    tw_streamer_poll(s, 0);
  }
}
#else
static uint8_t down_buf[64];
struct tw_streamer tw_size_streamer;
static struct tw_cmd cmd;

int main(void)
{
  struct tw_streamer *s = &tw_size_streamer;
  tw_port_cm_init();
  tw_rtt_init(&rtt);
  tw_rtt_config_up(&rtt, 0, "tracewire", up_buf, sizeof up_buf, TW_RTT_SKIP);
  tw_rtt_config_down(&rtt, 0, "tracewire", down_buf, sizeof down_buf);
  tw_name_register(TW_OBJ_TASK, 1, "main", 1);
  struct tw_streamer_cfg cfg = { .send = tw_rtt_send, .send_ctx = &rtt, .initial_mask = ~0u };
  tw_source_klog(&cfg.source);
  if (tw_streamer_init(s, &cfg) < 0 || tw_streamer_start(s) < 0)
    return 1;
  tw_custom_declare(20, 1, "Sample v:U32");
  tw_cmd_init(&cmd, TW_ADDR_DEFAULT, tw_rtt_send, &rtt, s);
  for (uint32_t i = 0;; i++) {
    tw_task_switch((uint16_t)i);
    tw_mutex(1, 2, TW_MUTEX_Lock);
    uint8_t msg[TW_CFG_CMD_MAX_BYTES];
    int n = tw_rtt_read(&rtt, 0, msg, sizeof msg);
    if (n > 0)
      tw_cmd_receive(&cmd, msg, (size_t)n);
    tw_cmd_poll(&cmd);
    tw_custom(20, &i, 1);
    tw_custom_bytes(21, "x", 1);
    tw_klog_context_switch(1, 2);
    tw_klog_interrupt(3);
    tw_klog_sleep_enter();
    tw_klog_sleep_exit(3, 0);
    if (i == 1000)
      tw_streamer_stop(s, 1);
    tw_streamer_poll(s, 0);
  }
}
#endif

/* Start-up: the vector table's reset entry. */
extern uint32_t __stack_top;
__attribute__((section(".vectors"), used)) static void (*const vectors[2])(void) = {
  (void (*)(void))(uintptr_t)&__stack_top, tw_size_reset,
};

void tw_size_reset(void)
{
  main();
  for (;;)
    ;
}
