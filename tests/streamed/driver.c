/*
 * The streamed minimal configuration (TW_CFG_STREAMER_MINIMAL=1: the
 * event logger ring, the minimal streamer, its packets, an RTT up channel)
 * on the host, for tests/sh/streamed_record.sh. One thread plays target
 * and probe: it emits a fixed script of kernel/RTOS events, polls the
 * streamer, and copies what the RTT channel holds to argv[1], as a probe
 * would; the clock advances 10 ticks an event, so every run gives the
 * same bytes. Built also without TW_CFG_STREAMER_MINIMAL (the general
 * streamer over tw_source_klog, flush_ticks 0) so the script checks that
 * both put the same events on the wire; and for a Cortex-M3 under QEMU
 * (mps2-an385, tests/sh/streamed_qemu.sh: the Cortex-M port, the script's
 * clock through TW_CFG_CM_TIMESTAMP_FN), where the probe's bytes leave
 * through UART0 and the counts through semihosting, to show that the
 * target writes the very bytes the host build does.
 *
 *   driver OUT [refuse]       (host)
 *   qemu ... -append refuse   (target; the bytes on UART0)
 *
 * The script: names, START, 100 rounds of a task switch and a mutex event
 * polled and drained at once, a burst of 60 semaphore events the ring
 * cannot hold (dropped, counted), a sleep of more than 2^32 ticks with its
 * wraps, an object event through the emitters' general put, an event too
 * large for any packet (seed API: lost on the target, counted), STOP.
 * With "refuse", a phase where the probe stops reading: the channel fills,
 * the streamer's packets are refused and the ring overflows (the general
 * streamer holds packets differently, so this phase is run on the minimal
 * one only). Prints "emitted N dropped D": the events the script emitted
 * (the oversize one included) and the logger's drops plus the oversize.
 */
#include <stdio.h>
#include <string.h>

#include "tracewire/klog.h"
#include "tracewire/port.h"
#include "tracewire/rtt.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"

/* a clock the script moves, so the streamers' own readings do not shift
 * the events' times */
static uint64_t clk = 1000;

#if defined(__arm__)
#include "fw.h"

uint32_t tw_test_clock(void); /* TW_CFG_CM_TIMESTAMP_FN */
uint32_t tw_test_clock(void) { return (uint32_t)clk; }

static uint8_t mem[8192] __attribute__((aligned(4)));
static void out_byte(uint8_t b) { tw_fw_uart_write(&b, 1); }

static int refusing(void)
{
  static char line[128];
  return tw_fw_cmdline(line, sizeof line) == 0 && strstr(line, "refuse") != NULL;
}

static void report(uint32_t emitted, uint32_t dropped)
{
  char line[48] = "emitted ", *p = line + 8;
  uint32_t v[2] = { emitted, dropped };
  for (int i = 0; i < 2; i++) {
    char d[12], *q = d + sizeof d;
    do
      *--q = (char)('0' + v[i] % 10u);
    while ((v[i] /= 10u) != 0);
    while (q < d + sizeof d)
      *p++ = *q++;
    if (!i)
      for (const char *t = " dropped "; *t;)
        *p++ = *t++;
  }
  *p++ = '\n';
  *p = 0;
  tw_fw_log(line);
}
#else
#include <sys/mman.h>

/* the port: one thread, no lock needed */
static uint32_t ticks;
uint32_t tw_port_timestamp(void) { return (uint32_t)clk; }
uint32_t tw_port_timestamp_hz(void) { return 1000000; }
uint32_t tw_port_ticks(void) { return ++ticks; }
uintptr_t tw_port_thread_id(void) { return 1; }
void tw_port_wait(uint32_t *word, uint32_t expect, uint32_t t) { (void)word; (void)expect; (void)t; }
void tw_port_wake(uint32_t *word) { (void)word; }
uint32_t tw_port_irq_lock(void) { return 0; }
void tw_port_irq_unlock(uint32_t key) { (void)key; }
uint32_t tw_port_core_id(void) { return 0; }

static FILE *out;
static void out_byte(uint8_t b) { fputc(b, out); }
static void report(uint32_t emitted, uint32_t dropped) { printf("emitted %u dropped %u\n", emitted, dropped); }
#endif

static struct tw_rtt_cb *cb;
static uint8_t *up;
static struct tw_streamer s;
static uint32_t emitted, oversize;

/* the probe: copy [rd, wr) out and move rd */
static void drain(void)
{
  struct tw_rtt_chan *c = &cb->up[0];
  uint32_t wr = __atomic_load_n(&c->wr, __ATOMIC_ACQUIRE), rd = c->rd;
  while (rd != wr) {
    out_byte(up[rd]);
    rd = (rd + 1) % c->size;
  }
  __atomic_store_n(&c->rd, rd, __ATOMIC_RELEASE);
}

/* poll until the streamer has nothing left to do, the probe reading */
static int settle(void)
{
  for (int i = 0; i < 1000; i++) {
    (void)tw_streamer_poll(&s, 0);
    if (tw_streamer_running(&s) && !tw_logger_used(tw_klog_logger()))
      (void)tw_streamer_flush(&s); /* the general streamer: no timed flush here */
    drain();
    if (tw_streamer_idle(&s) && !tw_logger_used(tw_klog_logger()))
      return 0;
  }
  return -1;
}

#if defined(__arm__)
int main(void)
{
  int refuse = refusing();
  tw_fw_uart_init();
#else
int main(int argc, char **argv)
{
  uint8_t *mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  int refuse = argc == 3 && !strcmp(argv[2], "refuse");
  if (argc < 2 || mem == MAP_FAILED || !(out = fopen(argv[1], "wb")))
    return 2;
#endif
  cb = (struct tw_rtt_cb *)(void *)mem;
  up = mem + 1024;
  char *name = (char *)mem + 512; /* a name the block points to: in 32-bit memory too */
  strcpy(name, "tracewire");
  if (tw_rtt_init(cb) || tw_rtt_config_up(cb, 0, name, up, 1024, TW_RTT_SKIP))
    return 2;
  tw_name_register(TW_OBJ_TASK, 1, "idle", 0);
  tw_name_register(TW_OBJ_TASK, 2, "worker", 3);
  tw_name_register(TW_OBJ_MUTEX, 7, "lock", 0);
  struct tw_streamer_cfg cfg = { .send = tw_rtt_send, .send_ctx = cb, .endpoint = 1 };
  cfg.initial_mask = 0xFFFFFFFFu;
#if !TW_CFG_STREAMER_MINIMAL
  tw_source_klog(&cfg.source);
#endif
  if (tw_streamer_init(&s, &cfg) || tw_streamer_start(&s) || settle())
    return 3;
  for (int i = 0; i < 100; i++) { /* polled and drained at once: nothing lost */
    clk += 10;
    tw_task_switch((uint16_t)(1 + i % 2));
    clk += 10;
    tw_mutex(2, 7, (uint8_t)(i % 2 ? TW_MUTEX_Unlock : TW_MUTEX_Lock));
    emitted += 2;
    (void)tw_streamer_poll(&s, 0);
    drain();
  }
  for (int i = 0; i < 60; i++, emitted++, clk += 10) /* not polled: the ring overflows */
    tw_sem(9, TW_SEM_Give);
  if (settle())
    return 4;
  clk += 10;
  tw_task_switch(1); /* carries the DROPS record */
  emitted++;
  /* a sleep of 2^32 + 500 ticks: the clock shows 500, wraps says the rest */
  tw_klog_sleep_enter();
  clk += (1ull << 32) + 500u;
  tw_klog_sleep_exit(3, 1);
  clk += 10;
  tw_object(3, TW_OBJ_TASK, 0, 0, 0, 42); /* 4 words: the general put */
  emitted += 2;
  static const uint32_t big[40];
  if (tw_klog_put(30, big, 40) == 0) /* never fits a packet: a drop */
    emitted++, oversize++;
  clk += 10;
  tw_task_switch(2);
  emitted++;
  if (settle())
    return 5;
  if (refuse) { /* the probe stops reading: packets are refused, the ring overflows */
    for (int i = 0; i < 400; i++, emitted++) {
      clk += 10;
      tw_mutex(2, 7, TW_MUTEX_Lock);
      if (i % 8 == 7)
        (void)tw_streamer_poll(&s, 0);
    }
    if (settle()) /* reading again: what was held goes out, then the DROPS */
      return 6;
    clk += 10;
    tw_task_switch(1);
    emitted++;
  }
  if (tw_streamer_stop(&s, 1) || settle() || tw_streamer_running(&s))
    return 7;
  struct tw_logger_stats st;
  tw_logger_stats(tw_klog_logger(), &st);
  report(emitted, st.drops + oversize);
#if defined(__arm__)
  return 0;
#else
  return fclose(out) ? 8 : 0;
#endif
}
