/*
 * Instructions per recorded event on a Cortex-M3, under QEMU mps2-an385
 * with -icount shift=0 (scripts/bench-target.sh; docs/performance.md).
 *
 * Method. With -icount QEMU's virtual clock advances a fixed 2^shift ns per
 * executed instruction, and SysTick, clocked at 25 MHz from that virtual
 * clock, decrements once every 40 instructions (shift=0). A case runs its
 * operation N times from a loop that calls it through a function pointer;
 * the same loop around an empty function is the baseline. Instructions per
 * operation = (ticks(case) - ticks(empty)) * (instructions per tick) / N:
 * everything the call site pays (argument set-up included) except the
 * call and return of the case function itself, which the baseline has.
 *
 * Self-check. The instructions per tick are not assumed: two calibration
 * cases execute exactly 16 and 80 NOPs per call; their difference over N
 * gives the ratio, and the bench fails unless it is 40 (±0.5%), i.e.
 * unless -icount is in force. The 16-NOP case measured against the empty
 * one must come out at 16.0, which checks the baseline subtraction too.
 *
 * SysTick runs without its interrupt: nothing but the loop executes. The
 * ring is drained between batches, outside the timed region, so no put
 * finds it full except in the drop case, which fills it first.
 *
 * Built with TW_CFG_DIRECT=1 (the minimal configuration) the events go
 * straight into an RTT channel (tracewire/direct.h), which "drain" empties
 * as a probe would. Built as the streamed minimal configuration
 * (TW_CFG_STREAMER_MINIMAL, TW_CFG_LOGGER_WAKE=0) they go into the ring as
 * by default, without the check for a sleeping consumer. Without custom
 * events (TW_CFG_CUSTOM_DECLS=0, both of those) their case is skipped.
 *
 * Output, one line per case on the semihosting console:
 *   tw-bench <case> <instructions per op x100>
 * and "tw-bench ok" (or "tw-bench FAIL <why>", exit status 1).
 */
#include <stdint.h>

#include "fw.h"
#include "tracewire/direct.h"
#include "tracewire/klog.h"
#include "tracewire/port.h"
#include "tracewire/trace.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

#define BATCH 256u   /* operations per timed batch (fits the ring) */
#define BATCHES 16u  /* N = BATCH * BATCHES */
#define CUSTOM_ID 28u /* above the vocabulary (events.def), below 32: a mask bit */

/* ---- output --------------------------------------------------------------- */

static void put_u32(char **p, uint32_t v)
{
  char b[12], *q = b + sizeof b;
  do
    *--q = (char)('0' + v % 10u);
  while ((v /= 10u) != 0);
  while (q < b + sizeof b)
    *(*p)++ = *q++;
}

static void say(const char *a, const char *b, int with_v, uint32_t v)
{
  char line[96], *p = line;
  for (const char *s = "tw-bench "; *s;)
    *p++ = *s++;
  while (*a)
    *p++ = *a++;
  if (b) {
    *p++ = ' ';
    while (*b)
      *p++ = *b++;
  }
  if (with_v) {
    *p++ = ' ';
    put_u32(&p, v);
  }
  *p++ = '\n';
  *p = 0;
  tw_fw_log(line);
}

/* ---- cases ----------------------------------------------------------------- */

typedef void (*op_fn)(void);

__attribute__((noinline)) static void op_empty(void)
{
  __asm volatile("" ::: "memory");
}

#define NOP4 "nop\n\tnop\n\tnop\n\tnop\n\t"
#define NOP16 NOP4 NOP4 NOP4 NOP4
__attribute__((noinline)) static void op_nop16(void)
{
  __asm volatile(NOP16 ::: "memory");
}

__attribute__((noinline)) static void op_nop80(void)
{
  __asm volatile(NOP16 NOP16 NOP16 NOP16 NOP16 ::: "memory");
}

/* The 2-word event: timestamp, mask test, two payload words (MutexEvent:
 * task|mutex, type), like Event Recorder's EventRecord2. */
__attribute__((noinline)) static void op_event2(void)
{
  tw_mutex(3, 7, TW_MUTEX_Lock);
}

__attribute__((noinline)) static void op_task_switch(void)
{
  tw_task_switch(5);
}

__attribute__((noinline)) static void op_isr_pair(void)
{
  tw_task_switch(TW_TASK_SWITCH_EnterInt);
  tw_task_switch(TW_TASK_SWITCH_LeaveInt);
}

#if TW_CFG_CUSTOM_DECLS
__attribute__((noinline)) static void op_custom4(void)
{
  static const uint32_t d[4] = { 1, 2, 3, 4 };
  tw_custom(CUSTOM_ID, d, 4);
}
#endif

/* Masked off: the cost of an instrumented kernel while not recording. */
__attribute__((noinline)) static void op_masked(void)
{
  tw_sem_task(3, 7, TW_SEM_TASK_Take); /* SEM_TASK's bit is cleared below */
}

/* ---- timing ------------------------------------------------------------------ */

#if TW_CFG_DIRECT
static struct tw_rtt_cb rtt;
static uint32_t rtt_buf[65536 / 4];

static void drain(void)
{
  /* the probe has read everything */
  __atomic_store_n(&rtt.up[0].rd, __atomic_load_n(&rtt.up[0].wr, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
}

static void fill_ring(void)
{
  struct tw_direct_stats st;
  tw_direct_stats(&st);
  for (uint32_t drops = st.drops; st.drops == drops; tw_direct_stats(&st))
    tw_task_switch(1);
}
#else
static void drain(void)
{
  static uint32_t buf[TW_LOGGER_MAX_DATA];
  struct tw_logger_rec rec;
  while (tw_klog_get(&rec, buf, TW_LOGGER_MAX_DATA) > 0)
    ;
}

static void fill_ring(void)
{
  static const uint32_t w = 0;
  while (tw_klog_put(CUSTOM_ID + 1u, &w, 1) == 0)
    ;
}
#endif

/* SysTick ticks for BATCH calls; the ring is drained first unless `full`. */
static uint32_t batch_ticks(op_fn op, int full)
{
  if (!full)
    drain();
  uint32_t t0 = SYST_CVR;
  for (uint32_t i = 0; i < BATCH; i++)
    op();
  uint32_t t1 = SYST_CVR;
  return (t0 - t1) & 0xFFFFFFu; /* counts down, 24 bits */
}

static uint32_t ticks(op_fn op, int full)
{
  uint32_t sum = 0;
  for (uint32_t b = 0; b < BATCHES; b++)
    sum += batch_ticks(op, full);
  return sum;
}

#define N (BATCH * BATCHES)

/* Instructions x100 per op from ticks, with the measured ratio. */
static uint32_t per_op_x100(uint32_t case_ticks, uint32_t base_ticks, uint32_t insn_per_tick_x1000)
{
  if (case_ticks <= base_ticks)
    return 0;
  uint64_t insn_x100000 = (uint64_t)(case_ticks - base_ticks) * insn_per_tick_x1000 * 100u;
  return (uint32_t)((insn_x100000 / N + 500u) / 1000u);
}

int main(void)
{
  SYST_RVR = 0xFFFFFFu;
  SYST_CVR = 0;
  SYST_CSR = 0x5u; /* processor clock, enabled, no interrupt */
  tw_port_cm_init();
#if TW_CFG_DIRECT
  const struct tw_direct_cfg dc = { .rtt = &rtt, .freq_hz = 25000000u, .endpoint = 1 };
  if (tw_rtt_init(&rtt) < 0 || tw_rtt_config_up(&rtt, 0, 0, rtt_buf, sizeof rtt_buf, TW_RTT_SKIP) < 0 ||
      tw_direct_init(&dc) < 0 || tw_direct_start(0xFFFFFFFFu) < 0) {
    say("FAIL", "direct recording set-up", 0, 0);
    return 1;
  }
#elif TW_CFG_CUSTOM_DECLS
  if (tw_custom_declare(CUSTOM_ID, 1, "Bench a:U32 b:U32 c:U32 d:U32") < 0) {
    say("FAIL", "custom_declare", 0, 0);
    return 1;
  }
#endif
  tw_trace_mask = 0xFFFFFFFFu & ~(1u << (TW_EV_SEM_TASK - 1u));

  uint32_t base = ticks(op_empty, 0);
  uint32_t n16 = ticks(op_nop16, 0), n80 = ticks(op_nop80, 0);
  /* 64 NOPs more per call: instructions per tick = 64 N / (n80 - n16) */
  uint32_t ipt_x1000 = (uint32_t)((uint64_t)64u * N * 1000u / (n80 - n16));
  say("insn_per_tick_x1000", 0, 1, ipt_x1000);
  if (ipt_x1000 < 39800u || ipt_x1000 > 40200u) {
    say("FAIL", "SysTick does not count 40 instructions per tick: run QEMU with -icount shift=0", 0, 0);
    return 1;
  }
  uint32_t nop16 = per_op_x100(n16, base, ipt_x1000);
  say("calib_nop16", 0, 1, nop16);
  if (nop16 < 1590u || nop16 > 1610u) {
    say("FAIL", "16 NOPs did not measure as 16 instructions", 0, 0);
    return 1;
  }

  static const struct {
    const char *name;
    op_fn op;
    int full;
  } cases[] = {
    { "event2", op_event2, 0 },
    { "task_switch", op_task_switch, 0 },
    { "isr_pair", op_isr_pair, 0 },
#if TW_CFG_CUSTOM_DECLS
    { "custom4", op_custom4, 0 },
#endif
    { "masked", op_masked, 0 },
    { "drop", op_event2, 1 },
  };
  for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (cases[i].full) {
      drain();
      fill_ring();
    }
    uint32_t t = ticks(cases[i].op, cases[i].full);
    say(cases[i].name, 0, 1, per_op_x100(t, base, ipt_x1000));
  }
#if TW_CFG_DIRECT
  struct tw_direct_stats st;
  tw_direct_stats(&st);
#else
  struct tw_logger_stats st;
  tw_logger_stats(tw_klog_logger(), &st);
#endif
  if (st.drops < N) {
    say("FAIL", "the drop case did not drop", 0, 0);
    return 1;
  }
  say("ok", 0, 0, 0);
  return 0;
}
