/*
 * Cortex-M3 smoke test of the logger on the real port (QEMU mps2-an385):
 * LDREX/STREX reservation, the SysTick handler as an interrupt producer
 * preempting the thread's puts at arbitrary points, WFE-based get_wait,
 * the weak tw_port_ticks overridden by a SysTick count. Exact accounting
 * is checked as on the host; the verdict goes out through semihosting.
 * Run by tests/sh/cortexm_qemu.sh.
 */
#include <stdint.h>

#include "tracewire/klog.h"
#include "tracewire/port.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

#define IRQ_EVENTS 6000u
#define THREAD_EVENTS 20000u /* at least; more until half the irq events */
#define CUSTOM_ID 20u

static volatile uint32_t ticks, irq_ok, irq_full, irq_seq;

static int semihost(int op, const void *arg)
{
  register int r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static void say(const char *s)
{
  semihost(0x04, s); /* SYS_WRITE0 */
}

static void say_num(const char *label, uint32_t v)
{
  char b[48], *p = b + sizeof b;
  *--p = 0;
  *--p = '\n';
  do
    *--p = (char)('0' + v % 10u);
  while ((v /= 10u) != 0);
  say(label);
  say(p);
}

static void quit(int ok)
{
  /* SYS_EXIT, AArch32 form: the reason itself in r1 (ApplicationExit
   * makes QEMU exit 0, RunTimeErrorUnknown 1) */
  semihost(0x18, (const void *)(ok ? 0x20026u : 0x20023u));
  for (;;)
    ;
}

uint32_t tw_port_ticks(void)
{
  return ticks;
}

static uint32_t soft_clock(void)
{
  return ticks * 100u + (99u - SYST_CVR); /* µs, monotonic like CYCCNT */
}

void systick_handler(void);
void systick_handler(void)
{
  ticks++;
  for (int k = 0; k < 3 && irq_seq < IRQ_EVENTS; k++) {
    uint32_t seq = irq_seq++;
    if (tw_klog_put(CUSTOM_ID + 1u, &seq, 1) == 0)
      irq_ok++;
    else
      irq_full++;
  }
}

static uint32_t last_thread = 0xFFFFFFFFu, last_irq = 0xFFFFFFFFu;
static uint32_t got_thread, got_irq, dropped;
static int bad;

static void consume(uint32_t timeout)
{
  struct tw_logger_rec rec;
  uint32_t v;
  while (tw_klog_get_wait(&rec, &v, 1, timeout) == 1) {
    uint32_t *last = rec.id == CUSTOM_ID ? &last_thread : &last_irq;
    if (rec.id != CUSTOM_ID && rec.id != CUSTOM_ID + 1u)
      bad = 1;
    if (*last != 0xFFFFFFFFu && v <= *last)
      bad = 1; /* FIFO per source */
    *last = v;
    if (rec.id == CUSTOM_ID)
      got_thread++;
    else
      got_irq++;
    dropped += rec.dropped;
    timeout = 0;
  }
}

int main(void);
int main(void)
{
  uint32_t ok = 0, full = 0, seq;
  say("klog_smoke: start\n");
  tw_klog_set_timer(soft_clock);
  SYST_RVR = 100u - 1u; /* 10 kHz from the 1 MHz reference clock */
  SYST_CVR = 0;
  SYST_CSR = 3u; /* enable, interrupt, external reference clock */
  /* thread puts while the interrupt fires, preempting them anywhere */
  for (seq = 0; seq < THREAD_EVENTS || irq_seq < IRQ_EVENTS / 2u; seq++) {
    if (tw_klog_put(CUSTOM_ID, &seq, 1) == 0)
      ok++;
    else
      full++;
    if (seq % 64u == 63u)
      consume(0);
  }
  say_num("klog_smoke: thread events put: ", seq);
  while (irq_seq < IRQ_EVENTS)
    consume(5); /* blocks in WFE until SysTick puts */
  SYST_CSR = 0;
  consume(0);
  struct tw_logger_stats st;
  tw_logger_stats(tw_klog_logger(), &st);
  say_num("klog_smoke: thread events retrieved: ", got_thread);
  say_num("klog_smoke: irq events retrieved: ", got_irq);
  say_num("klog_smoke: dropped (reported + pending): ", dropped + st.pending_drops);
  int pass = !bad && got_thread == ok && got_irq == irq_ok &&
             dropped + st.pending_drops == full + irq_full &&
             got_thread + got_irq + dropped + st.pending_drops ==
                 seq + IRQ_EVENTS && got_irq > 0;
  say(pass ? "klog_smoke: PASS\n" : "klog_smoke: FAIL\n");
  quit(pass);
  return 0;
}

/* Startup: vector table, .data/.bss set-up. */
extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
void reset_handler(void);
void reset_handler(void)
{
  uint32_t *s = &_sidata, *d = &_sdata;
  while (d < &_edata)
    *d++ = *s++;
  for (d = &_sbss; d < &_ebss; d++)
    *d = 0;
  main();
  quit(0);
}

static void fault_handler(void)
{
  say("klog_smoke: FAULT\n");
  quit(0);
}

__attribute__((section(".vectors"), used))
static void (*const vectors[16])(void) = {
  (void (*)(void))&_estack, reset_handler, fault_handler, fault_handler,
  fault_handler, fault_handler, fault_handler, 0, 0, 0, 0, fault_handler,
  fault_handler, 0, fault_handler, systick_handler,
};
