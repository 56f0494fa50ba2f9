/*
 * Several cores (tw_sim.h, "several cores"; docs/sim.md): one model per
 * core, stepped in time order, and the multi-core scenario "smp".
 *
 * Time order: the core whose clock is furthest behind steps next (ties:
 * the lower core), so each core's events are in its own time order and
 * the cores never drift more than one step apart. The stepped core owns
 * the logger's clock while it steps, so an event carries its own core's
 * time.
 *
 * The scenario, on two cores (times in us, periods in OS ticks of 1 ms):
 *
 *   core 0  sensor0 (4)   every tick: 120..180 us of work
 *           migrant (2)   in even periods of TW_SIM_SMP_PERIOD ticks:
 *                         TW_SIM_SMP_WORK us of work, then sleeps
 *   core 1  rx1 (5)       takes sem "frames" (given by the "dma" interrupt,
 *                         every 400..900 us), 30..60 us of work each
 *           worker1 (3)   every 2 ticks: 300 us of work
 *           migrant (2)   the twin: the odd periods
 *
 * The migrant's twins run only in their own periods, with less work than a
 * period holds and the other tasks' share small, so one of them at most is
 * awake at any time: the trace shows one task moving between the cores
 * every period, never on two at once.
 */
#include "sim_internal.h"
#include "tracewire/error.h"

static uint32_t stepping;

uint32_t tw_sim_smp_core(void)
{
  return stepping;
}

void tw_sim_smp_init(struct tw_sim *cores, unsigned ncores, uint32_t seed)
{
  for (unsigned c = 0; c < ncores && c < TW_SIM_MAX_CORES; c++) {
    struct tw_sim *s = &cores[c];
    tw_sim_init(s, seed + c);
    s->core = (uint16_t)c;
    s->obj_base = (uint16_t)(c * TW_SIM_MAX_OBJS);
    for (unsigned i = 0; i < TW_SIM_MAX_TASKS; i++)
      s->wire[i] = (uint16_t)(c * TW_SIM_MAX_TASKS + i);
  }
  tw_sim_take_clock(&cores[0]);
  stepping = 0;
}

void tw_sim_task_twin(struct tw_sim *s, unsigned task, const struct tw_sim *of,
                      unsigned of_task)
{
  if (task < TW_SIM_MAX_TASKS && of_task < TW_SIM_MAX_TASKS)
    s->wire[task] = of->wire[of_task];
}

uint64_t tw_sim_smp_now(const struct tw_sim *cores, unsigned ncores)
{
  uint64_t t = 0;
  for (unsigned c = 0; c < ncores; c++)
    if (cores[c].now > t)
      t = cores[c].now;
  return t;
}

static uint64_t emitted(const struct tw_sim *cores, unsigned ncores)
{
  uint64_t n = 0;
  for (unsigned c = 0; c < ncores; c++)
    n += cores[c].nevents;
  return n;
}

uint64_t tw_sim_smp_run(struct tw_sim *cores, unsigned ncores, uint64_t until,
                        uint64_t max_events)
{
  uint64_t start = emitted(cores, ncores);
  if (ncores > TW_SIM_MAX_CORES)
    ncores = TW_SIM_MAX_CORES;
  for (;;) {
    int next = -1;
    for (unsigned c = 0; c < ncores; c++) {
      if (cores[c].stopped)
        return emitted(cores, ncores) - start;
      if (cores[c].now < until && (next < 0 || cores[c].now < cores[next].now))
        next = (int)c;
    }
    if (next < 0 || (max_events && emitted(cores, ncores) - start >= max_events))
      break;
    stepping = (uint32_t)next;
    tw_sim_take_clock(&cores[next]);
    tw_sim_step(&cores[next]);
  }
  return emitted(cores, ncores) - start;
}

/* ---- the scenario ------------------------------------------------------------ */

static void sleep_until(struct tw_sim *s, uint64_t tick)
{
  tw_sim_delay(s, tick > s->ticks ? (uint32_t)(tick - s->ticks) : 1u);
}

/* var: 0 period in ticks, 1 min work, 2 max work */
static void periodic(struct tw_sim *s, struct tw_sim_task *t)
{
  if (t->pc++ == 0) {
    tw_sim_work(s, tw_sim_rand_range(s, t->var[1], t->var[2]));
    return;
  }
  t->pc = 0;
  sleep_until(s, (s->ticks / t->var[0] + 1) * t->var[0]);
}

/* Runs in the periods whose number is its core's modulo 2 (see the top),
 * asleep in between: never awake in the other twin's period. */
static void migrant(struct tw_sim *s, struct tw_sim_task *t)
{
  uint64_t period = s->ticks / TW_SIM_SMP_PERIOD, next = period + 1;
  if (t->pc == 0 && period % 2 == s->core) {
    t->pc = 1;
    tw_sim_work(s, TW_SIM_SMP_WORK);
    return;
  }
  t->pc = 0;
  if (next % 2 != s->core)
    next++;
  sleep_until(s, next * TW_SIM_SMP_PERIOD);
}

/* var: 0 frames sem */
static void rx(struct tw_sim *s, struct tw_sim_task *t)
{
  if (t->pc++ == 0) {
    tw_sim_sem_take(s, t->var[0]);
    return;
  }
  t->pc = 0;
  tw_sim_work(s, tw_sim_rand_range(s, 30, 60));
}

static void dma_isr(struct tw_sim *s, unsigned src)
{
  tw_sim_sem_give(s, s->irq[src].arg[0]);
}

#define TRY(x) do { int r_ = (x); if (r_ < 0) return r_; } while (0)

static int task(struct tw_sim *s, const char *name, uint8_t prio, tw_sim_body body,
                uint32_t v0, uint32_t v1, uint32_t v2)
{
  int n = tw_sim_task_create(s, name, prio, body);
  if (n < 0)
    return n;
  s->tasks[n].var[0] = v0;
  s->tasks[n].var[1] = v1;
  s->tasks[n].var[2] = v2;
  return n;
}

int tw_sim_smp_setup(struct tw_sim *cores, unsigned ncores)
{
  int m0, m1, sem, q;
  if (ncores != 2)
    return TW_EINVAL;
  TRY(task(&cores[0], "sensor0", 4, periodic, 1, 120, 180));
  TRY(m0 = task(&cores[0], "migrant", 2, migrant, 0, 0, 0));
  TRY(sem = tw_sim_sem_create(&cores[1], "frames", 0));
  TRY(task(&cores[1], "rx1", 5, rx, (uint32_t)sem, 0, 0));
  TRY(task(&cores[1], "worker1", 3, periodic, 2, 300, 300));
  TRY(m1 = task(&cores[1], "migrant", 2, migrant, 0, 0, 0));
  tw_sim_task_twin(&cores[1], (unsigned)m1, &cores[0], (unsigned)m0);
  /* core 1's twin starts asleep: period 0 is core 0's */
  cores[1].tasks[m1].state = TW_SIM_DELAYED;
  cores[1].tasks[m1].wake_at = TW_SIM_SMP_PERIOD;
  TRY(q = tw_sim_irq_create(&cores[1], "dma", dma_isr, 400, 900, 0, UINT64_MAX, 4));
  cores[1].irq[q].arg[0] = (uint32_t)sem;
  return 0;
}

uint64_t tw_sim_smp_duration(void)
{
  return 40000; /* ten periods of each twin */
}
