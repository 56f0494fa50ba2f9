/*
 * firmware-freertos: the application of examples/freertos-posix (app.c)
 * on FreeRTOS's Cortex-M3 port, for QEMU's mps2-an385, traced and
 * streaming over UART0 (which QEMU connects to `tracewire record`), taking
 * the recorder's commands on the same UART. make run-qemu RTOS=freertos.
 *
 * Options from the semihosting command line (QEMU -append): --run-ms N
 * (1000). The run ends with a semihosting exit: 0 as planned, FW_EXIT_*
 * (../firmware/fw.h) otherwise; the application's own counts go to the
 * semihosting console (QEMU's stdout).
 *
 * The clock: QEMU has no DWT cycle counter, so timestamps come from
 * SysTick: milliseconds counted at the top of its handler, plus the
 * current count (25 MHz). A read between the counter's wrap and its
 * interrupt (interrupts masked) adds the pending millisecond; masked for
 * more than a whole millisecond, the clock would lose one.
 */
#include <stdio.h>
#include <string.h>

#include "FreeRTOS.h"
#include "task.h"

#include "tracewire/cmd.h"
#include "tracewire/freertos.h"
#include "tracewire/klog.h"
#include "tracewire/streamer.h"

#include "app.h"
#include "fw.h"

#define ENDPOINT 0x0F02u
#define RELOAD (configCPU_CLOCK_HZ / configTICK_RATE_HZ)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SCB_ICSR (*(volatile uint32_t *)0xE000ED04u)
#define ICSR_PENDSTSET (1u << 26)

static volatile uint32_t ms;
static struct tw_streamer streamer;
static struct tw_cmd cmd;
static struct tw_freertos_collector collector;

void xPortSysTickHandler(void);
void fw_systick(void);
void fw_systick(void)
{
  ms++;
  xPortSysTickHandler();
}

/* Monotonic (the streamer counts a step back as a 2^32 wrap, a jump of
 * 171.8 s at 25 MHz): the pending flag read on both sides of the count
 * says whether the count is from after a wrap whose interrupt has not run
 * yet (interrupts masked). QEMU on a loaded host can still hold SysTick
 * back for more than a millisecond of its clock, losing one (seen: steps
 * back of up to a millisecond); the reading is then held at the last one
 * until the clock passes it again. Interrupts are masked for the few
 * instructions that compare and store the last reading. */
static uint32_t fw_timestamp(void)
{
  static uint32_t last;
  uint32_t m, c, p1, p2, v, primask;
  __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
  do {
    m = ms;
    p1 = SCB_ICSR & ICSR_PENDSTSET;
    c = SYST_CVR;
    p2 = SCB_ICSR & ICSR_PENDSTSET;
  } while (m != ms || p1 != p2);
  if (p1)
    m++;
  v = m * RELOAD + (RELOAD - 1u - c);
  if ((int32_t)(v - last) < 0)
    v = last;
  last = v;
  __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
  return v;
}

void vApplicationTickHook(void)
{
  app_tick_hook();
}

void fw_assert_failed(const char *file, int line)
{
  char buf[160];
  snprintf(buf, sizeof buf, "firmware-freertos: configASSERT failed at %s:%d\n", file, line);
  tw_fw_log(buf);
  tw_fw_exit(FW_EXIT_FAULT);
}

static int uart_send(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  tw_fw_uart_write(p, len);
  return 0;
}

static size_t uart_receive(void *ctx, void *buf, size_t cap)
{
  (void)ctx;
  return tw_fw_uart_read(buf, cap);
}

void app_platform_log(const char *line)
{
  tw_fw_log(line);
  tw_fw_log("\n");
}

void app_platform_finish(int status)
{
  char buf[160];
  app_print_counts(app_platform_log);
  struct tw_streamer_stats st;
  tw_streamer_stats(&streamer, &st);
  snprintf(buf, sizeof buf, "tw-freertos-app: %lu events, %lu dropped (announced), %lu packets, %lu bytes",
           (unsigned long)st.events, (unsigned long)st.drops, (unsigned long)st.packets,
           (unsigned long)st.bytes);
  app_platform_log(buf);
  /* linger until the link is quiet for 200 ms (at most 2 s), so QEMU never
   * closes the socket with the recorder's last bytes unread */
  uint32_t start = ms, quiet = ms;
  while (ms - quiet < 200 && ms - start < 2000) {
    uint8_t b[64];
    if (tw_fw_uart_read(b, sizeof b))
      quiet = ms;
  }
  tw_fw_exit(status);
}

static unsigned run_ms_option(void)
{
  char line[128];
  if (tw_fw_cmdline(line, sizeof line))
    return 1000;
  const char *p = strstr(line, "--run-ms ");
  unsigned v = 0;
  for (p = p ? p + 9 : ""; *p >= '0' && *p <= '9'; p++)
    v = v * 10u + (unsigned)(*p - '0');
  return v >= 400 ? v : 1000;
}

int main(void)
{
  tw_fw_uart_init();
  tw_klog_set_timer(fw_timestamp);
  struct tw_streamer_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = configCPU_CLOCK_HZ;
  cfg.send = uart_send;
  cfg.endpoint = ENDPOINT;
  cfg.module_id = 1;
  cfg.sync_ticks = configCPU_CLOCK_HZ;       /* once a second */
  cfg.flush_ticks = configCPU_CLOCK_HZ / 50; /* a partial packet waits at most 20 ms */
  cfg.initial_mask = 0xFFFFFFFFu;
  if (tw_streamer_init(&streamer, &cfg) || tw_cmd_init(&cmd, ENDPOINT, uart_send, NULL, &streamer))
    return FW_EXIT_SETUP;
  collector.streamer = &streamer;
  collector.cmd = &cmd;
  collector.receive = uart_receive;
  collector.period_ticks = pdMS_TO_TICKS(10);
  if (tw_freertos_start(&collector, "tw", configMINIMAL_STACK_SIZE * 2, 2))
    return FW_EXIT_SETUP;
  app_start(&collector, run_ms_option());
  vTaskStartScheduler();
  return FW_EXIT_SETUP;
}
