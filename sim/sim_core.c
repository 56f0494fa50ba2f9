/*
 * The scheduler, virtual time and interrupts of the workload model
 * (design notes in tw_sim.h and docs/sim.md).
 *
 * One step does exactly one of: take the earliest due interrupt; switch to
 * the task the scheduler picks; let the idle task sleep until the next
 * interrupt; burn a running task's CPU work up to the next interrupt; run
 * one action of the running task's body. Everything is a pure function of
 * the seed and the scenario, so the host and the Cortex-M produce the same
 * events at the same virtual instants.
 */
#include <string.h>

#include "sim_internal.h"
#include "tracewire/error.h"

#define NO_TASK 0xFFFFu
#define NEVER UINT64_MAX

static struct tw_sim *clock_owner;

uint32_t tw_sim_timer(void)
{
  return clock_owner ? (uint32_t)clock_owner->now : 0u;
}

void tw_sim_take_clock(struct tw_sim *s)
{
  clock_owner = s;
}


void tw_sim_init(struct tw_sim *s, uint32_t seed)
{
  memset(s, 0, sizeof *s);
  s->seed = seed;
  s->rng = seed ^ 0x9E3779B9u;
  if (s->rng == 0)
    s->rng = 1;
  s->next_tick = TW_SIM_TICK_US;
  s->current = NO_TASK;
  s->op_cost = 2;
  s->switch_cost = 3;
  s->isr_entry_cost = 1;
  s->tasks[0].name = "idle";
  s->tasks[0].prio = 0;
  s->tasks[0].state = TW_SIM_READY;
  s->ntasks = 1;
  for (unsigned i = 0; i < TW_SIM_MAX_TASKS; i++)
    s->wire[i] = (uint16_t)i;
  clock_owner = s;
  tw__sim_install_clock();
}

void tw_sim_set_observer(struct tw_sim *s, tw_sim_observer fn, void *ctx)
{
  s->observer = fn;
  s->observer_ctx = ctx;
}

uint32_t tw_sim_rand(struct tw_sim *s)
{
  uint32_t x = s->rng;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  s->rng = x;
  return x;
}

uint32_t tw_sim_rand_range(struct tw_sim *s, uint32_t lo, uint32_t hi)
{
  uint32_t r = tw_sim_rand(s);
  if (hi <= lo)
    return lo;
  if (hi - lo == UINT32_MAX)
    return r;
  return lo + r % (hi - lo + 1u);
}

int tw_sim_task_create(struct tw_sim *s, const char *name, uint8_t prio, tw_sim_body body)
{
  if (!name || !body || prio == 0)
    return TW_EINVAL;
  if (s->ntasks >= TW_SIM_MAX_TASKS)
    return TW_ENOSPC;
  unsigned n = s->ntasks++;
  struct tw_sim_task *t = &s->tasks[n];
  t->name = name;
  t->prio = prio;
  t->body = body;
  t->state = TW_SIM_READY;
  t->queue_seq = ++s->queue_seq;
  return (int)n;
}

int tw_sim_irq_create(struct tw_sim *s, const char *name, tw_sim_isr isr, uint32_t min_gap,
                      uint32_t max_gap, uint64_t start, uint64_t stop, uint32_t isr_cost)
{
  if (!name || !isr || min_gap == 0 || max_gap < min_gap)
    return TW_EINVAL;
  for (unsigned i = 0; i < TW_SIM_MAX_IRQS; i++) {
    struct tw_sim_irq *q = &s->irq[i];
    if (q->used)
      continue;
    q->used = 1;
    q->name = name;
    q->isr = isr;
    q->min_gap = min_gap;
    q->max_gap = max_gap;
    q->start = start;
    q->stop = stop;
    q->isr_cost = isr_cost;
    q->next = start + tw_sim_rand_range(s, min_gap, max_gap);
    if (q->next >= stop)
      q->next = NEVER;
    return (int)i;
  }
  return TW_ENOSPC;
}

static void collector_body(struct tw_sim *s, struct tw_sim_task *t)
{
  if (t->pc == 1) {
    t->pc = 0;
    tw_sim_delay(s, 1);
    return;
  }
  s->since_drain = 0;
  int n = s->drain(s->drain_ctx);
  t->pc = 1;
  if (n < 0) {
    s->stopped = 1;
    return;
  }
  s->drained += (uint64_t)n;
  /* Moving an event costs the collector about a microsecond. */
  if (n > 0)
    tw_sim_work(s, (uint32_t)n);
}

int tw_sim_set_collector(struct tw_sim *s, uint8_t prio, tw_sim_drain fn, void *ctx)
{
  if (!fn || s->collector)
    return TW_EINVAL;
  s->drain = fn;
  s->drain_ctx = ctx;
  s->watermark = TW_SIM_WATERMARK;
  int n = tw_sim_task_create(s, "collector", prio, collector_body);
  if (n > 0)
    s->collector = (uint16_t)n;
  return n;
}

uint16_t tw__sim_self(const struct tw_sim *s)
{
  return s->in_isr ? (uint16_t)TW_SIM_TASK_ENTER_INT : s->current;
}

void tw__sim_charge(struct tw_sim *s, uint32_t ticks)
{
  if (s->in_isr || s->current == NO_TASK)
    return;
  s->now += ticks;
  s->tasks[s->current].cpu += ticks;
}

void tw__sim_block(struct tw_sim *s, enum tw_sim_wait kind, unsigned obj)
{
  struct tw_sim_task *t = &s->tasks[s->current];
  t->state = TW_SIM_BLOCKED;
  t->wait_kind = (uint8_t)kind;
  t->wait_obj = (uint8_t)obj;
  t->queue_seq = ++s->queue_seq; /* FIFO among equal-priority waiters */
}

int tw__sim_waiter(const struct tw_sim *s, enum tw_sim_wait kind, unsigned obj)
{
  int best = -1;
  for (unsigned i = 1; i < s->ntasks; i++) {
    const struct tw_sim_task *t = &s->tasks[i];
    if (t->state != TW_SIM_BLOCKED || t->wait_kind != kind || t->wait_obj != obj)
      continue;
    if (best < 0 || t->prio > s->tasks[best].prio ||
        (t->prio == s->tasks[best].prio && t->queue_seq < s->tasks[best].queue_seq))
      best = (int)i;
  }
  return best;
}

void tw__sim_ready(struct tw_sim *s, unsigned task)
{
  struct tw_sim_task *t = &s->tasks[task];
  t->state = TW_SIM_READY;
  t->wait_kind = TW_SIM_W_NONE;
  t->queue_seq = ++s->queue_seq;
}

/* Highest priority READY task; among equals the one queued first. */
static unsigned pick(const struct tw_sim *s)
{
  unsigned best = 0;
  for (unsigned i = 1; i < s->ntasks; i++) {
    const struct tw_sim_task *t = &s->tasks[i];
    if (t->state != TW_SIM_READY)
      continue;
    if (t->prio > s->tasks[best].prio ||
        (t->prio == s->tasks[best].prio && t->queue_seq < s->tasks[best].queue_seq))
      best = i;
  }
  return best;
}

static uint64_t next_device(const struct tw_sim *s, int *which)
{
  uint64_t at = NEVER;
  *which = -1;
  for (unsigned i = 0; i < TW_SIM_MAX_IRQS; i++)
    if (s->irq[i].used && s->irq[i].next < at) {
      at = s->irq[i].next;
      *which = (int)i;
    }
  return at;
}

static uint64_t next_irq(const struct tw_sim *s)
{
  int which;
  uint64_t dev = next_device(s, &which);
  return dev < s->next_tick ? dev : s->next_tick;
}

static void tick_isr(struct tw_sim *s)
{
  s->ticks++;
  s->next_tick += TW_SIM_TICK_US;
  for (unsigned i = 1; i < s->ntasks; i++)
    if (s->tasks[i].state == TW_SIM_DELAYED && s->tasks[i].wake_at <= s->ticks)
      tw__sim_ready(s, i);
  /* Round robin: the running task goes behind ready tasks of its priority. */
  if (s->current != NO_TASK && s->current != 0 &&
      s->tasks[s->current].state == TW_SIM_READY)
    for (unsigned i = 1; i < s->ntasks; i++)
      if (i != s->current && s->tasks[i].state == TW_SIM_READY &&
          s->tasks[i].prio == s->tasks[s->current].prio) {
        s->tasks[s->current].queue_seq = ++s->queue_seq;
        break;
      }
}

static void take_irq(struct tw_sim *s)
{
  int which;
  uint64_t dev = next_device(s, &which);
  int is_tick = s->next_tick <= dev;
  uint32_t irq = is_tick ? TW_SIM_IRQ_SYSTICK : TW_SIM_IRQ_DEVICE0 + (uint32_t)which;

  s->in_isr = 1;
  tw__sim_emit(s, TW_SIM_EV_TASK_SWITCH, 1, TW_SIM_TASK_ENTER_INT, 0, 0, 0);
  tw__sim_emit(s, TW_SIM_EV_INTERRUPT, 1, irq, 0, 0, 0);
  s->now += s->isr_entry_cost;
  if (is_tick) {
    tick_isr(s);
  } else {
    struct tw_sim_irq *q = &s->irq[which];
    q->count++;
    /* Arrivals follow their own schedule even when taken late, so a
     * storm keeps its rate while the CPU falls behind. */
    q->next += tw_sim_rand_range(s, q->min_gap, q->max_gap);
    if (q->next >= q->stop)
      q->next = NEVER;
    q->isr(s, (unsigned)which);
    s->now += q->isr_cost;
  }
  tw__sim_emit(s, TW_SIM_EV_TASK_SWITCH, 1, TW_SIM_TASK_LEAVE_INT, 0, 0, 0);
  s->in_isr = 0;
}

int tw_sim_step(struct tw_sim *s)
{
  if (s->stopped)
    return 1;
  uint64_t irq_at = next_irq(s);
  if (irq_at <= s->now) {
    take_irq(s);
    return s->stopped;
  }
  unsigned n = pick(s);
  struct tw_sim_task *t = &s->tasks[n];
  if (n != s->current) {
    s->current = (uint16_t)n;
    t->activations++;
    tw__sim_emit(s, TW_SIM_EV_TASK_SWITCH, 1, n, 0, 0, 0);
    tw__sim_charge(s, s->switch_cost);
    return 0;
  }
  if (n == 0) {
    s->idle += irq_at - s->now;
    s->now = irq_at;
    return 0;
  }
  if (t->work_left) {
    uint64_t room = irq_at - s->now;
    uint32_t burn = room < t->work_left ? (uint32_t)room : t->work_left;
    t->work_left -= burn;
    tw__sim_charge(s, burn);
    return 0;
  }
  t->body(s, t);
  return s->stopped;
}

uint64_t tw_sim_run(struct tw_sim *s, uint64_t until, uint64_t max_events)
{
  uint64_t start = s->nevents;
  while (s->now < until && !s->stopped &&
         (max_events == 0 || s->nevents - start < max_events))
    tw_sim_step(s);
  return s->nevents - start;
}

void tw_sim_work(struct tw_sim *s, uint32_t ticks)
{
  if (!s->in_isr && s->current != NO_TASK)
    s->tasks[s->current].work_left += ticks;
}

void tw_sim_delay(struct tw_sim *s, uint32_t os_ticks)
{
  if (s->in_isr || s->current == NO_TASK || s->current == 0)
    return;
  struct tw_sim_task *t = &s->tasks[s->current];
  t->state = TW_SIM_DELAYED;
  t->wake_at = s->ticks + (os_ticks ? os_ticks : 1u);
}

void tw_sim_exit(struct tw_sim *s)
{
  if (!s->in_isr && s->current != NO_TASK && s->current != 0)
    s->tasks[s->current].state = TW_SIM_DONE;
}
