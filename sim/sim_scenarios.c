/*
 * The scenarios. Each task body is a small state machine over t->pc whose
 * objects are passed in t->var[] (so the same body serves several
 * scenarios, and the demo can combine them without renumbering).
 *
 *   pipeline    adc IRQ -> sem -> sampler -> (res-sem buffer pool, mutex
 *               queue) -> sem -> filter (recursive lock) -> multi-sem ->
 *               dispatcher -> event -> flusher -> give_many to two workers,
 *               anti-sem until they are done, res-sem wait until every
 *               buffer is back -> multi-event -> monitor (uart IRQ too).
 *   contention  three tasks and one mutex, locked recursively.
 *   inversion   every 20 ticks: low locks "res" and computes 2.5 ms; high
 *               wakes one tick later and blocks on "res"; medium wakes a
 *               tick after that and computes 4 ms, so high waits on low
 *               while medium runs.
 *   deadlock    left locks A then B, right locks B then A, each sleeping a
 *               tick in between: both block forever.
 *   storm       an "eth" interrupt arriving every 3..8 us for 3 ms, each
 *               giving a semaphore: more events than the 128-word ring and
 *               a once-per-tick collector can carry, so events are dropped.
 */
#include "sim_internal.h"
#include "tracewire/error.h"

static void delay_until(struct tw_sim *s, uint64_t tick)
{
  tw_sim_delay(s, tick > s->ticks ? (uint32_t)(tick - s->ticks) : 1u);
}

/* ---- pipeline ------------------------------------------------------------- */

/* var: 0 adc sem, 1 buffer rsem, 2 queue mutex, 3 items sem */
static void sampler(struct tw_sim *s, struct tw_sim_task *t)
{
  switch (t->pc++) {
  case 0: tw_sim_sem_take(s, t->var[0]); break;
  case 1: tw_sim_work(s, tw_sim_rand_range(s, 30, 80)); break;
  case 2: tw_sim_rsem_take(s, t->var[1]); break;
  case 3: tw_sim_mutex_lock(s, t->var[2]); break;
  case 4: tw_sim_work(s, 5); break;
  case 5: tw_sim_mutex_unlock(s, t->var[2]); break;
  default: tw_sim_sem_give(s, t->var[3]); t->pc = 0; break;
  }
}

/* var: 0 items sem, 1 queue mutex, 2 buffer rsem, 3 outputs msem */
static void filter(struct tw_sim *s, struct tw_sim_task *t)
{
  switch (t->pc++) {
  case 0: tw_sim_sem_take(s, t->var[0]); break;
  case 1: tw_sim_work(s, tw_sim_rand_range(s, 60, 160)); break;
  case 2: tw_sim_mutex_lock(s, t->var[1]); break;
  case 3: tw_sim_mutex_lock(s, t->var[1]); break;   /* nested helper: IncLock */
  case 4: tw_sim_work(s, 30); break;
  case 5: tw_sim_mutex_unlock(s, t->var[1]); break; /* DecLock */
  case 6: tw_sim_mutex_unlock(s, t->var[1]); break;
  case 7: tw_sim_rsem_give(s, t->var[2]); break;
  default: tw_sim_msem_give(s, t->var[3], 1); t->pc = 0; break;
  }
}

/* var: 0 outputs msem, 1 flush event, 2 count */
static void dispatcher(struct tw_sim *s, struct tw_sim_task *t)
{
  switch (t->pc++) {
  case 0: tw_sim_msem_take(s, t->var[0]); break;
  case 1: tw_sim_work(s, t->got_index == 2 ? 40u : 15u); break;
  default:
    t->pc = 0;
    if (++t->var[2] % 3 == 0)
      tw_sim_event_trigger(s, t->var[1]);
    break;
  }
}

/* var: 0 flush event, 1 jobs sem, 2 inflight asem, 3 (buffer rsem << 8) | alerts mevent */
static void flusher(struct tw_sim *s, struct tw_sim_task *t)
{
  switch (t->pc++) {
  case 0: tw_sim_event_wait(s, t->var[0]); break;
  case 1: tw_sim_asem_add(s, t->var[2], 2); break;
  case 2: tw_sim_sem_give_many(s, t->var[1], 2); break;
  case 3: tw_sim_asem_wait(s, t->var[2]); break;
  case 4: tw_sim_rsem_wait(s, t->var[3] >> 8); break;
  default: tw_sim_mevent_trigger(s, t->var[3] & 0xFFu, 1); t->pc = 0; break;
  }
}

/* var: 0 jobs sem, 1 inflight asem */
static void worker(struct tw_sim *s, struct tw_sim_task *t)
{
  switch (t->pc++) {
  case 0: tw_sim_sem_take(s, t->var[0]); break;
  case 1: tw_sim_work(s, tw_sim_rand_range(s, 60, 200)); break;
  default: tw_sim_asem_sub(s, t->var[1], 1); t->pc = 0; break;
  }
}

/* var: 0 alerts mevent */
static void monitor(struct tw_sim *s, struct tw_sim_task *t)
{
  switch (t->pc++) {
  case 0: tw_sim_mevent_wait(s, t->var[0]); break;
  case 1: tw_sim_work(s, t->got_index == 2 ? 30u : 10u); break;
  default: tw_sim_delay(s, 2); t->pc = 0; break; /* reports at most every 2 ticks */
  }
}

static void adc_isr(struct tw_sim *s, unsigned src)
{
  tw_sim_sem_give(s, s->irq[src].arg[0]);
}

static void uart_isr(struct tw_sim *s, unsigned src)
{
  tw_sim_mevent_trigger(s, s->irq[src].arg[0], 2);
  /* Two command bytes per interrupt: the second waits as a count. */
  tw_sim_msem_give(s, s->irq[src].arg[1], 2);
  tw_sim_msem_give(s, s->irq[src].arg[1], 2);
}

static int task(struct tw_sim *s, const char *name, uint8_t prio, tw_sim_body body,
                uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3)
{
  int n = tw_sim_task_create(s, name, prio, body);
  if (n < 0)
    return n;
  struct tw_sim_task *t = &s->tasks[n];
  t->var[0] = v0;
  t->var[1] = v1;
  t->var[2] = v2;
  t->var[3] = v3;
  return n;
}

#define TRY(x)        \
  do {                \
    int r_ = (x);     \
    if (r_ < 0)       \
      return r_;      \
  } while (0)

static int setup_pipeline(struct tw_sim *s)
{
  int adc = tw_sim_sem_create(s, "adc_ready", 0);
  int items = tw_sim_sem_create(s, "items", 0);
  int jobs = tw_sim_sem_create(s, "jobs", 0);
  int queue = tw_sim_mutex_create(s, "queue");
  int bufs = tw_sim_rsem_create(s, "buffers", 3);
  int outs = tw_sim_msem_create(s, "outputs", 2);
  int flush = tw_sim_event_create(s, "flush");
  int alerts = tw_sim_mevent_create(s, "alerts", 2);
  int inflight = tw_sim_asem_create(s, "inflight");
  TRY(adc); TRY(items); TRY(jobs); TRY(queue); TRY(bufs);
  TRY(outs); TRY(flush); TRY(alerts); TRY(inflight);
  TRY(task(s, "sampler", 6, sampler, (uint32_t)adc, (uint32_t)bufs, (uint32_t)queue,
           (uint32_t)items));
  TRY(task(s, "filter", 4, filter, (uint32_t)items, (uint32_t)queue, (uint32_t)bufs,
           (uint32_t)outs));
  TRY(task(s, "dispatcher", 5, dispatcher, (uint32_t)outs, (uint32_t)flush, 0, 0));
  TRY(task(s, "flusher", 3, flusher, (uint32_t)flush, (uint32_t)jobs, (uint32_t)inflight,
           ((uint32_t)bufs << 8) | (uint32_t)alerts));
  TRY(task(s, "worker1", 2, worker, (uint32_t)jobs, (uint32_t)inflight, 0, 0));
  TRY(task(s, "worker2", 2, worker, (uint32_t)jobs, (uint32_t)inflight, 0, 0));
  TRY(task(s, "monitor", 7, monitor, (uint32_t)alerts, 0, 0, 0));
  int a = tw_sim_irq_create(s, "adc", adc_isr, 300, 700, 0, UINT64_MAX, 3);
  int u = tw_sim_irq_create(s, "uart", uart_isr, 2000, 5000, 0, UINT64_MAX, 6);
  TRY(a); TRY(u);
  s->irq[a].arg[0] = (uint32_t)adc;
  s->irq[u].arg[0] = (uint32_t)alerts;
  s->irq[u].arg[1] = (uint32_t)outs;
  return 0;
}

/* ---- contention -------------------------------------------------------------- */

/* var: 0 mutex, 1 work ticks */
static void contender(struct tw_sim *s, struct tw_sim_task *t)
{
  switch (t->pc++) {
  case 0: tw_sim_mutex_lock(s, t->var[0]); break;
  case 1: tw_sim_work(s, t->var[1]); break;
  case 2: tw_sim_mutex_lock(s, t->var[0]); break;
  case 3: tw_sim_work(s, tw_sim_rand_range(s, 50, 150)); break;
  case 4: tw_sim_mutex_unlock(s, t->var[0]); break;
  case 5: tw_sim_mutex_unlock(s, t->var[0]); break;
  default: tw_sim_delay(s, tw_sim_rand_range(s, 1, 2)); t->pc = 0; break;
  }
}

static int setup_contention(struct tw_sim *s)
{
  int m = tw_sim_mutex_create(s, "shared");
  TRY(m);
  TRY(task(s, "writer_a", 4, contender, (uint32_t)m, 700, 0, 0));
  TRY(task(s, "writer_b", 3, contender, (uint32_t)m, 500, 0, 0));
  TRY(task(s, "writer_c", 3, contender, (uint32_t)m, 600, 0, 0));
  return 0;
}

/* ---- inversion ------------------------------------------------------------------ */

#define INV_PERIOD 20u

/* var: 0 mutex (or none), 1 offset ticks, 2 work ticks, 3 cycle */
static void periodic(struct tw_sim *s, struct tw_sim_task *t)
{
  int locks = t->var[0] != 0xFFu;
  switch (t->pc++) {
  case 0: delay_until(s, (uint64_t)t->var[3] * INV_PERIOD + t->var[1]); break;
  case 1:
    if (locks) {
      tw_sim_mutex_lock(s, t->var[0]);
      break;
    }
    t->pc++;
    /* fall through */
  case 2: tw_sim_work(s, t->var[2]); break;
  default:
    if (locks)
      tw_sim_mutex_unlock(s, t->var[0]);
    t->var[3]++;
    t->pc = 0;
    break;
  }
}

static int setup_inversion(struct tw_sim *s)
{
  int m = tw_sim_mutex_create(s, "res");
  TRY(m);
  /* Offsets of 0 would mean "wait one tick"; the cycle starts at tick 1. */
  TRY(task(s, "low", 2, periodic, (uint32_t)m, 1, 2500, 0));
  TRY(task(s, "high", 9, periodic, (uint32_t)m, 2, 100, 0));
  TRY(task(s, "medium", 5, periodic, 0xFFu, 3, 4000, 0));
  return 0;
}

/* ---- deadlock --------------------------------------------------------------------- */

/* var: 0 first mutex, 1 second mutex */
static void crosser(struct tw_sim *s, struct tw_sim_task *t)
{
  switch (t->pc++) {
  case 0: tw_sim_mutex_lock(s, t->var[0]); break;
  case 1: tw_sim_delay(s, 1); break;
  case 2: tw_sim_mutex_lock(s, t->var[1]); break;
  case 3: tw_sim_work(s, 50); break;
  case 4: tw_sim_mutex_unlock(s, t->var[1]); break;
  case 5: tw_sim_mutex_unlock(s, t->var[0]); break;
  default: tw_sim_delay(s, 3); t->pc = 0; break;
  }
}

static int setup_deadlock(struct tw_sim *s)
{
  int a = tw_sim_mutex_create(s, "lock_a");
  int b = tw_sim_mutex_create(s, "lock_b");
  TRY(a); TRY(b);
  TRY(task(s, "left", 3, crosser, (uint32_t)a, (uint32_t)b, 0, 0));
  TRY(task(s, "right", 3, crosser, (uint32_t)b, (uint32_t)a, 0, 0));
  return 0;
}

/* ---- storm --------------------------------------------------------------------------- */

static void eth_isr(struct tw_sim *s, unsigned src)
{
  tw_sim_sem_give(s, s->irq[src].arg[0]);
}

/* var: 0 rx sem */
static void rx_task(struct tw_sim *s, struct tw_sim_task *t)
{
  switch (t->pc++) {
  case 0: tw_sim_sem_take(s, t->var[0]); break;
  default: tw_sim_work(s, 6); t->pc = 0; break;
  }
}

static int setup_storm(struct tw_sim *s, uint64_t start)
{
  int rx = tw_sim_sem_create(s, "rx_frames", 0);
  TRY(rx);
  TRY(task(s, "rx", 8, rx_task, (uint32_t)rx, 0, 0, 0));
  int q = tw_sim_irq_create(s, "eth", eth_isr, 3, 8, start, start + 3000, 2);
  TRY(q);
  s->irq[q].arg[0] = (uint32_t)rx;
  return 0;
}

/* ---- table ------------------------------------------------------------------------------ */

static const char *const names[TW_SIM_SC_COUNT] = {
  "demo", "pipeline", "contention", "inversion", "deadlock", "storm"
};

static const uint64_t durations[TW_SIM_SC_COUNT] = {
  60000, 50000, 30000, 45000, 10000, 12000
};

const char *tw_sim_scenario_name(enum tw_sim_scenario sc)
{
  return (unsigned)sc < TW_SIM_SC_COUNT ? names[sc] : 0;
}

static int str_eq(const char *a, const char *b)
{
  while (*a && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

int tw_sim_scenario_parse(const char *name)
{
  for (unsigned i = 0; name && i < TW_SIM_SC_COUNT; i++)
    if (str_eq(name, names[i]))
      return (int)i;
  return TW_EINVAL;
}

uint64_t tw_sim_scenario_duration(enum tw_sim_scenario sc)
{
  return (unsigned)sc < TW_SIM_SC_COUNT ? durations[sc] : 0;
}

int tw_sim_scenario_setup(struct tw_sim *s, enum tw_sim_scenario sc)
{
  switch (sc) {
  case TW_SIM_SC_DEMO:
    TRY(setup_pipeline(s));
    TRY(setup_inversion(s));
    return setup_storm(s, 40000);
  case TW_SIM_SC_PIPELINE: return setup_pipeline(s);
  case TW_SIM_SC_CONTENTION: return setup_contention(s);
  case TW_SIM_SC_INVERSION: return setup_inversion(s);
  case TW_SIM_SC_DEADLOCK: return setup_deadlock(s);
  case TW_SIM_SC_STORM: return setup_storm(s, 5000);
  default: return TW_EINVAL;
  }
}
