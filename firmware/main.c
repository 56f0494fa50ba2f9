/*
 * tracewire firmware for QEMU mps2-an385 (Cortex-M3): the workload model
 * (sim/) streaming its trace over UART0 and taking commands on the same
 * UART, exactly as examples/demo-target does over TCP on the host. Same
 * sources, same virtual clock, so the same scenario and seed produce the
 * same bytes.
 *
 * Options come from the semihosting command line (QEMU -append):
 *   --scenario NAME   (demo)      --seed N (1)
 *   --duration US     (the scenario's)   --events N (no limit)
 *   --until-stop      run until the host sends STOP (bounded by
 *                     --duration when given, else 10 s of virtual time),
 *                     paced to real time (one model millisecond per
 *                     SysTick millisecond) so the host has time to talk
 *   --transport rtt   stream over RTT (rtt.c: up channel 0, blocking, and
 *                     commands on down channel 0) instead of UART0, for a
 *                     host reading memory through QEMU's gdbstub
 *                     (record --from rtt+gdb://); before it exits the
 *                     firmware waits until the host has read everything
 *   --flood N         instead of the model: N MutexEvents as fast as the
 *                     core emits them, through the kernel logger and the
 *                     streamer, for the transports' throughput bench
 *                     (scripts/bench-rtt.sh); no commands
 * After the stream ends the firmware lingers (up to 2 s, until the link is
 * quiet for 200 ms) answering late commands, so the host gets its replies
 * and QEMU never closes a socket with unread bytes (which resets it).
 * The run ends with a semihosting exit whose status QEMU returns: 0 when
 * the stream finished, FW_EXIT_* (fw.h) otherwise.
 */
#include "fw.h"
#include "tracewire/klog.h"
#include "tracewire/rtt.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tw_sim.h"
#include "tw_sim_link.h"

static struct tw_sim sim;
static struct tw_sim_link link_;

static int uart_write(void *ctx, const void *buf, size_t len)
{
  (void)ctx;
  tw_fw_uart_write(buf, len);
  return 0;
}

static int uart_read(void *ctx, void *buf, size_t cap)
{
  (void)ctx;
  return (int)tw_fw_uart_read(buf, cap);
}

/* RTT: the control block first in RAM (the linker script puts .bss.rtt
 * there), so a host finds it at the start of its default search range. */
__attribute__((section(".bss.rtt"))) static struct tw_rtt_cb rtt;
__attribute__((section(".bss.rtt"))) static uint8_t rtt_up[16384];
__attribute__((section(".bss.rtt"))) static uint8_t rtt_down[512];

static int rtt_write(void *ctx, const void *buf, size_t len)
{
  (void)ctx;
  return tw_rtt_write(&rtt, 0, buf, (uint32_t)len) == (int)len ? 0 : -1;
}

static int rtt_read(void *ctx, void *buf, size_t cap)
{
  (void)ctx;
  int n = tw_rtt_read(&rtt, 0, buf, (uint32_t)cap);
  return n < 0 ? 0 : n;
}

static int pace;

/* The collector's work, paced to real time when asked. */
static int drain(void *ctx)
{
  if (pace)
    while ((uint64_t)tw_fw_ms() * 1000u < sim.now)
      __asm__ volatile("wfi");
  return tw_sim_link_drain(ctx);
}

static uint32_t now_ms(void *ctx)
{
  (void)ctx;
  return tw_fw_ms();
}

static int str_eq(const char *a, const char *b)
{
  while (*a && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

static uint64_t to_u64(const char *s)
{
  uint64_t v = 0;
  while (*s >= '0' && *s <= '9')
    v = v * 10u + (uint64_t)(*s++ - '0');
  return v;
}

struct opts {
  const char *scenario;
  uint32_t seed;
  uint64_t duration, events;
  int until_stop;
  int rtt;
  uint64_t flood;
};

/* Split the command line in place on spaces; the first word is the image. */
static void parse(char *line, struct opts *o)
{
  char *argv[16];
  int argc = 0;
  for (char *p = line; *p && argc < 16;) {
    while (*p == ' ')
      *p++ = 0;
    if (*p)
      argv[argc++] = p;
    while (*p && *p != ' ')
      p++;
  }
  for (int i = 0; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : "";
    if (str_eq(argv[i], "--scenario")) o->scenario = v, i++;
    else if (str_eq(argv[i], "--seed")) o->seed = (uint32_t)to_u64(v), i++;
    else if (str_eq(argv[i], "--duration")) o->duration = to_u64(v), i++;
    else if (str_eq(argv[i], "--events")) o->events = to_u64(v), i++;
    else if (str_eq(argv[i], "--until-stop")) o->until_stop = 1;
    else if (str_eq(argv[i], "--transport")) o->rtt = str_eq(v, "rtt"), i++;
    else if (str_eq(argv[i], "--flood")) o->flood = to_u64(v), i++;
  }
}

/* The throughput bench's producer: events as fast as they come, through
 * the real kernel logger and streamer to the chosen transport. */
static tw_link_write_fn flood_write;

static int flood_send(void *ctx, const void *pkt, size_t len)
{
  (void)ctx;
  return flood_write(0, pkt, len) < 0 ? TW_EIO : 0;
}

static int flood(uint64_t n, tw_link_write_fn write)
{
  static struct tw_streamer s;
  struct tw_streamer_cfg cfg = { .send = flood_send, .endpoint = TW_ADDR_DEFAULT,
                                 .initial_mask = 0xFFFFFFFFu };
  flood_write = write;
  tw_source_klog(&cfg.source);
  if (tw_streamer_init(&s, &cfg) < 0 || tw_streamer_start(&s) < 0)
    return FW_EXIT_SETUP;
  while (s.nwork) /* START in force (the mask on) before the first event */
    (void)tw_streamer_poll(&s, 0);
  for (uint64_t i = 0; i < n; i++) {
    tw_mutex((uint16_t)(i & 7u), 2, (uint8_t)(i & 1u));
    if ((i & 15u) == 15u) /* a 128-word ring holds 32 of them */
      while (tw_streamer_poll(&s, 0) > 0)
        ;
  }
  tw_streamer_stop(&s, 1);
  for (int i = 0; i < 1000 && (s.nwork || s.pend); i++)
    (void)tw_streamer_poll(&s, 0);
  return tw_streamer_flush(&s) < 0 ? FW_EXIT_STREAM : 0;
}

int main(void)
{
  static char line[256];
  struct opts o = { "demo", 1, 0, 0, 0, 0, 0 };
  if (tw_fw_cmdline(line, sizeof line) == 0)
    parse(line, &o);
  int sc = tw_sim_scenario_parse(o.scenario);
  if (sc < 0) {
    tw_fw_log("tracewire fw: unknown scenario\n");
    return FW_EXIT_SETUP;
  }
  tw_fw_uart_init();
  tw_fw_clock_init();
  if (o.rtt && (tw_rtt_init(&rtt) < 0 ||
                tw_rtt_config_up(&rtt, 0, "tracewire", rtt_up, sizeof rtt_up, TW_RTT_BLOCK) < 0 ||
                tw_rtt_config_down(&rtt, 0, "tracewire", rtt_down, sizeof rtt_down) < 0)) {
    tw_fw_log("tracewire fw: RTT set-up failed\n");
    return FW_EXIT_SETUP;
  }
  if (o.flood) {
    int rc = flood(o.flood, o.rtt ? rtt_write : uart_write);
    for (uint32_t t0 = tw_fw_ms(); o.rtt && tw_rtt_unread(&rtt, 0) && tw_fw_ms() - t0 < 10000u;)
      __asm__ volatile("wfi"); /* the host reads the rest */
    return rc;
  }
  pace = o.until_stop;
  tw_sim_init(&sim, o.seed);
  if (tw_sim_scenario_setup(&sim, (enum tw_sim_scenario)sc) < 0 ||
      tw_sim_set_collector(&sim, 10, drain, &link_) < 0) {
    tw_fw_log("tracewire fw: scenario set-up failed\n");
    return FW_EXIT_SETUP;
  }
  tw_sim_register_names(&sim);
  if (tw_sim_link_init(&link_, o.rtt ? rtt_write : uart_write, o.rtt ? rtt_read : uart_read, 0,
                       TW_SIM_HZ, TW_SIM_LINK_ALL_EVENTS) < 0) {
    tw_fw_log("tracewire fw: streamer set-up failed\n");
    return FW_EXIT_SETUP;
  }
  uint64_t until = o.duration ? o.duration : tw_sim_scenario_duration((enum tw_sim_scenario)sc);
  if (o.until_stop && !o.duration)
    until = 10u * TW_SIM_HZ;
  tw_sim_run(&sim, until, o.events);
  if (tw_sim_link_finish(&link_) < 0) {
    tw_fw_log("tracewire fw: finishing the stream failed\n");
    return FW_EXIT_STREAM;
  }
  const struct tw_link_clock clk = { now_ms, 0, 0 };
  tw_sim_link_linger(&link_, &clk, 200, 2000);
  /* RTT: the bytes are in our RAM until the host reads them, and they go
   * with it when we exit: wait for the host (bounded: 10 s) */
  uint32_t t0 = tw_fw_ms();
  while (o.rtt && tw_rtt_unread(&rtt, 0) && tw_fw_ms() - t0 < 10000u)
    __asm__ volatile("wfi");
  return 0;
}
