/*
 * Unit tests of the RTOS workload model (sim/): determinism, the semantics
 * of each of the seven sync objects with the exact seed-002 events they
 * produce, and the situations the scenarios plant. Events are observed
 * through the model's observer (the same calls that feed the emitters).
 */
// tw-test-libs: tw_sim
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tw_sim.h"
#include "tracewire/events_gen.h"

#define MAXEV 200000

struct rec {
  size_t n;
  struct tw_sim_event ev[MAXEV];
};
static struct rec rec_a, rec_b;
static struct tw_sim sim_a, sim_b;

static void observe(void *ctx, const struct tw_sim_event *ev)
{
  struct rec *r = ctx;
  if (r->n < MAXEV)
    r->ev[r->n] = *ev;
  r->n++;
}

static void run_scenario(struct tw_sim *s, struct rec *r, enum tw_sim_scenario sc,
                         uint32_t seed)
{
  r->n = 0;
  tw_sim_init(s, seed);
  tw_sim_set_observer(s, observe, r);
  assert_int_equal(tw_sim_scenario_setup(s, sc), 0);
  tw_sim_run(s, tw_sim_scenario_duration(sc), 0);
  assert_true(r->n < MAXEV);
}

static int same_trace(const struct rec *a, const struct rec *b)
{
  if (a->n != b->n)
    return 0;
  for (size_t i = 0; i < a->n; i++) {
    const struct tw_sim_event *x = &a->ev[i], *y = &b->ev[i];
    if (x->time != y->time || x->id != y->id || x->nfields != y->nfields ||
        memcmp(x->f, y->f, sizeof x->f) != 0)
      return 0;
  }
  return 1;
}

/* ---- scripted tasks: one action per body call ------------------------------ */

enum op { LOCK, UNLOCK, GIVE, GIVE_MANY, TAKE, TRIG, WAITEV, MGIVE, MTAKE, MTRIG, MWAIT,
          AADD, ASUB, AWAIT, RGIVE, RTAKE, RWAIT, WORK, DELAY, END };
struct act { enum op op; unsigned obj; unsigned arg; };

static const struct act *scripts[TW_SIM_MAX_TASKS];

static void scripted(struct tw_sim *s, struct tw_sim_task *t)
{
  const struct act *a = &scripts[t->var[0]][t->pc++];
  switch (a->op) {
  case LOCK: tw_sim_mutex_lock(s, a->obj); break;
  case UNLOCK: assert_int_equal(tw_sim_mutex_unlock(s, a->obj), 0); break;
  case GIVE: tw_sim_sem_give(s, a->obj); break;
  case GIVE_MANY: tw_sim_sem_give_many(s, a->obj, a->arg); break;
  case TAKE: tw_sim_sem_take(s, a->obj); break;
  case TRIG: tw_sim_event_trigger(s, a->obj); break;
  case WAITEV: tw_sim_event_wait(s, a->obj); break;
  case MGIVE: tw_sim_msem_give(s, a->obj, a->arg); break;
  case MTAKE: tw_sim_msem_take(s, a->obj); break;
  case MTRIG: tw_sim_mevent_trigger(s, a->obj, a->arg); break;
  case MWAIT: tw_sim_mevent_wait(s, a->obj); break;
  case AADD: tw_sim_asem_add(s, a->obj, a->arg); break;
  case ASUB: tw_sim_asem_sub(s, a->obj, a->arg); break;
  case AWAIT: tw_sim_asem_wait(s, a->obj); break;
  case RGIVE: tw_sim_rsem_give(s, a->obj); break;
  case RTAKE: tw_sim_rsem_take(s, a->obj); break;
  case RWAIT: tw_sim_rsem_wait(s, a->obj); break;
  case WORK: tw_sim_work(s, a->arg); break;
  case DELAY: tw_sim_delay(s, a->arg); break;
  case END: tw_sim_exit(s); break;
  }
}

static int add_task(struct tw_sim *s, const char *name, uint8_t prio, const struct act *script)
{
  int n = tw_sim_task_create(s, name, prio, scripted);
  assert_true(n > 0);
  scripts[n] = script;
  s->tasks[n].var[0] = (uint32_t)n;
  return n;
}

/* The RTOS events (ids 5..17) in order, dropping task switches and
 * interrupts: what a sync-object test asserts on. */
struct sev { uint16_t id; uint32_t f[4]; };
static size_t sync_events(const struct rec *r, struct sev *out, size_t cap)
{
  size_t k = 0;
  for (size_t i = 0; i < r->n && k < cap; i++)
    if (r->ev[i].id >= TW_EV_MUTEX && r->ev[i].id <= TW_EV_RES_SEM_TASK) {
      out[k].id = r->ev[i].id;
      memcpy(out[k].f, r->ev[i].f, sizeof out[k].f);
      k++;
    }
  return k;
}

static void expect(const struct sev *got, size_t ngot, const struct sev *want, size_t nwant)
{
  for (size_t i = 0; i < nwant && i < ngot; i++) {
    if (got[i].id != want[i].id || memcmp(got[i].f, want[i].f, sizeof got[i].f) != 0)
      fail_msg("event %zu: got id %u (%u,%u,%u,%u), want id %u (%u,%u,%u,%u)", i,
               got[i].id, got[i].f[0], got[i].f[1], got[i].f[2], got[i].f[3], want[i].id,
               want[i].f[0], want[i].f[1], want[i].f[2], want[i].f[3]);
  }
  assert_int_equal(ngot, nwant);
}

static void start(struct tw_sim *s, struct rec *r)
{
  r->n = 0;
  tw_sim_init(s, 7);
  tw_sim_set_observer(s, observe, r);
}

#define EXPECT(...)                                                      \
  do {                                                                   \
    const struct sev want_[] = { __VA_ARGS__ };                    \
    struct sev got_[64];                                                 \
    size_t n_ = sync_events(&rec_a, got_, 64);                           \
    expect(got_, n_, want_, sizeof want_ / sizeof want_[0]);             \
  } while (0)

/* ---- determinism -------------------------------------------------------------- */

static void test_same_seed_same_trace(void **state)
{
  (void)state;
  for (int sc = 0; sc < TW_SIM_SC_COUNT; sc++) {
    run_scenario(&sim_a, &rec_a, (enum tw_sim_scenario)sc, 42);
    run_scenario(&sim_b, &rec_b, (enum tw_sim_scenario)sc, 42);
    assert_true(rec_a.n > 20);
    assert_true(same_trace(&rec_a, &rec_b));
  }
}

static void test_other_seed_other_trace(void **state)
{
  (void)state;
  run_scenario(&sim_a, &rec_a, TW_SIM_SC_PIPELINE, 1);
  run_scenario(&sim_b, &rec_b, TW_SIM_SC_PIPELINE, 2);
  assert_false(same_trace(&rec_a, &rec_b));
}

static void test_ids_match_vocabulary(void **state)
{
  (void)state;
  assert_int_equal(TW_SIM_EV_INTERRUPT, TW_EV_INTERRUPT);
  assert_int_equal(TW_SIM_EV_TASK_SWITCH, TW_EV_TASK_SWITCH);
  assert_int_equal(TW_SIM_EV_RES_SEM_TASK, TW_EV_RES_SEM_TASK);
  assert_int_equal(TW_SIM_TASK_ENTER_INT, TW_TASK_SWITCH_EnterInt);
  assert_int_equal(TW_SIM_TASK_LEAVE_INT, TW_TASK_SWITCH_LeaveInt);
  assert_int_equal(TW_SIM_MUTEX_BLOCK, TW_MUTEX_Block);
  assert_int_equal(TW_SIM_SEM_GIVEMANY, TW_SEM_GiveMany);
  assert_int_equal(TW_SIM_MSEMT_TAKE, TW_MULTI_SEM_TASK_Take);
  assert_int_equal(TW_SIM_ASEM_RELEASE, TW_ANTI_SEM_Release);
  assert_int_equal(TW_SIM_RSEMT_TAKE, TW_RES_SEM_TASK_Take);
}

/* Task switches are well formed: EnterInt, Interrupt, ..., LeaveInt, never
 * nested; time never goes backwards; a switch to a task never repeats the
 * running one. */
static void test_interrupt_bracketing(void **state)
{
  (void)state;
  run_scenario(&sim_a, &rec_a, TW_SIM_SC_DEMO, 3);
  int in_isr = 0;
  uint32_t running = 0xFFFFFFFFu, isr_seen = 0;
  for (size_t i = 0; i < rec_a.n; i++) {
    const struct tw_sim_event *e = &rec_a.ev[i];
    if (i)
      assert_true(e->time >= rec_a.ev[i - 1].time);
    if (e->id == TW_EV_TASK_SWITCH && e->f[0] == TW_SIM_TASK_ENTER_INT) {
      assert_false(in_isr);
      in_isr = 1;
      assert_int_equal(rec_a.ev[i + 1].id, TW_EV_INTERRUPT);
      isr_seen++;
    } else if (e->id == TW_EV_TASK_SWITCH && e->f[0] == TW_SIM_TASK_LEAVE_INT) {
      assert_true(in_isr);
      in_isr = 0;
    } else if (e->id == TW_EV_TASK_SWITCH) {
      assert_false(in_isr);
      assert_int_not_equal(e->f[0], running);
      running = e->f[0];
    }
  }
  /* 60 ms of 1 kHz ticks plus device interrupts. */
  assert_true(isr_seen > 60);
}

/* ---- mutex ------------------------------------------------------------------ */

static void test_mutex_recursive_block_handover(void **state)
{
  (void)state;
  start(&sim_a, &rec_a);
  int m = tw_sim_mutex_create(&sim_a, "m");
  static const struct act low[] = {
    { LOCK, 0, 0 }, { LOCK, 0, 0 }, { DELAY, 0, 2 }, { UNLOCK, 0, 0 }, { UNLOCK, 0, 0 },
    { END, 0, 0 } };
  static const struct act high[] = {
    { DELAY, 0, 1 }, { LOCK, 0, 0 }, { UNLOCK, 0, 0 }, { END, 0, 0 } };
  int l = add_task(&sim_a, "low", 1, low);
  int h = add_task(&sim_a, "high", 5, high);
  assert_int_equal(m, 0);
  tw_sim_run(&sim_a, 5000, 0);
  EXPECT({ TW_EV_MUTEX, { l, 0, TW_MUTEX_Lock } }, { TW_EV_MUTEX, { l, 0, TW_MUTEX_IncLock } },
         { TW_EV_MUTEX, { h, 0, TW_MUTEX_Block } }, { TW_EV_MUTEX, { l, 0, TW_MUTEX_DecLock } },
         { TW_EV_MUTEX, { l, 0, TW_MUTEX_Unlock } }, { TW_EV_MUTEX, { h, 0, TW_MUTEX_Lock } },
         { TW_EV_MUTEX, { h, 0, TW_MUTEX_Unlock } });
  /* The handover preempts low at once: high runs right after the unlock. */
  assert_int_equal(sim_a.mutex[0].owner, 0xFFFF);
  assert_int_equal(sim_a.tasks[h].state, TW_SIM_DONE);
  assert_int_equal(sim_a.tasks[l].state, TW_SIM_DONE);
}

static void test_mutex_unlock_by_non_owner_rejected(void **state)
{
  (void)state;
  start(&sim_a, &rec_a);
  tw_sim_mutex_create(&sim_a, "m");
  sim_a.current = 0;
  assert_int_equal(tw_sim_mutex_unlock(&sim_a, 0), -1 /* TW_EINVAL */);
  assert_int_equal(rec_a.n, 0);
}

/* ---- semaphore ------------------------------------------------------------------ */

static void test_sem_give_take_block_totask(void **state)
{
  (void)state;
  start(&sim_a, &rec_a);
  tw_sim_sem_create(&sim_a, "s", 1);
  static const struct act taker[] = {
    { TAKE, 0, 0 }, { TAKE, 0, 0 }, { END, 0, 0 } };
  static const struct act giver[] = { { GIVE, 0, 0 }, { GIVE, 0, 0 }, { END, 0, 0 } };
  int t = add_task(&sim_a, "taker", 5, taker);
  add_task(&sim_a, "giver", 2, giver);
  tw_sim_run(&sim_a, 3000, 0);
  EXPECT({ TW_EV_SEM_TASK, { t, 0, TW_SEM_TASK_Take } },
         { TW_EV_SEM_TASK, { t, 0, TW_SEM_TASK_Block } },
         { TW_EV_SEM, { 0, TW_SEM_Give } },
         { TW_EV_SEM_TASK, { t, 0, TW_SEM_TASK_ToTask } },
         { TW_EV_SEM, { 0, TW_SEM_Give } });
  assert_int_equal(sim_a.sem[0].count, 1); /* the second give had no taker */
}

static void test_sem_give_many_releases_group(void **state)
{
  (void)state;
  start(&sim_a, &rec_a);
  tw_sim_sem_create(&sim_a, "s", 0);
  static const struct act w[] = { { TAKE, 0, 0 }, { END, 0, 0 } };
  static const struct act g[] = { { GIVE_MANY, 0, 5 }, { END, 0, 0 } };
  int w1 = add_task(&sim_a, "w1", 4, w);
  int w2 = add_task(&sim_a, "w2", 4, w);
  add_task(&sim_a, "giver", 2, g);
  tw_sim_run(&sim_a, 3000, 0);
  EXPECT({ TW_EV_SEM_TASK, { w1, 0, TW_SEM_TASK_Block } },
         { TW_EV_SEM_TASK, { w2, 0, TW_SEM_TASK_Block } },
         { TW_EV_SEM, { 0, TW_SEM_GiveMany } }, { TW_EV_SEM, { 0, TW_SEM_ToTaskList } });
  assert_int_equal(sim_a.sem[0].count, 3);
  assert_int_equal(sim_a.tasks[w1].state, TW_SIM_DONE);
  assert_int_equal(sim_a.tasks[w2].state, TW_SIM_DONE);
}

/* ---- event --------------------------------------------------------------------- */

static void test_event_consume_block_totask(void **state)
{
  (void)state;
  start(&sim_a, &rec_a);
  tw_sim_event_create(&sim_a, "e");
  static const struct act w[] = { { DELAY, 0, 1 }, { WAITEV, 0, 0 }, { WAITEV, 0, 0 },
                                  { END, 0, 0 } };
  static const struct act g[] = { { TRIG, 0, 0 }, { TRIG, 0, 0 }, { DELAY, 0, 2 },
                                  { TRIG, 0, 0 }, { END, 0, 0 } };
  int wt = add_task(&sim_a, "waiter", 4, w);
  add_task(&sim_a, "trig", 2, g);
  tw_sim_run(&sim_a, 5000, 0);
  /* Two triggers on a binary event leave one pending. */
  EXPECT({ TW_EV_EVENT, { 0, TW_EVENT_Trigger } }, { TW_EV_EVENT, { 0, TW_EVENT_Trigger } },
         { TW_EV_EVENT_TASK, { wt, 0, TW_EVENT_TASK_Consume } },
         { TW_EV_EVENT_TASK, { wt, 0, TW_EVENT_TASK_Block } },
         { TW_EV_EVENT, { 0, TW_EVENT_Trigger } },
         { TW_EV_EVENT_TASK, { wt, 0, TW_EVENT_TASK_ToTask } });
}

/* ---- multi-semaphore and multi-event ----------------------------------------------- */

static void test_msem_indexes_round_robin(void **state)
{
  (void)state;
  start(&sim_a, &rec_a);
  assert_int_equal(tw_sim_msem_create(&sim_a, "ms", 9), -1); /* > 8 inputs */
  tw_sim_msem_create(&sim_a, "ms", 3);
  static const struct act w[] = { { DELAY, 0, 1 }, { MTAKE, 0, 0 }, { MTAKE, 0, 0 },
                                  { MTAKE, 0, 0 }, { MTAKE, 0, 0 }, { END, 0, 0 } };
  static const struct act g[] = { { MGIVE, 0, 3 }, { MGIVE, 0, 3 }, { MGIVE, 0, 1 },
                                  { MGIVE, 0, 4 }, { DELAY, 0, 2 }, { MGIVE, 0, 2 },
                                  { END, 0, 0 } };
  int wt = add_task(&sim_a, "w", 4, w);
  add_task(&sim_a, "g", 2, g);
  tw_sim_run(&sim_a, 5000, 0);
  /* Input 4 does not exist: ignored. Takes serve 1, then 3, 3 (round robin
   * from the last served input), then block; the give of 2 hands over. */
  EXPECT({ TW_EV_MULTI_SEM, { 0, TW_MULTI_SEM_Give, 3 } },
         { TW_EV_MULTI_SEM, { 0, TW_MULTI_SEM_Give, 3 } },
         { TW_EV_MULTI_SEM, { 0, TW_MULTI_SEM_Give, 1 } },
         { TW_EV_MULTI_SEM_TASK, { wt, 0, TW_MULTI_SEM_TASK_Take, 1 } },
         { TW_EV_MULTI_SEM_TASK, { wt, 0, TW_MULTI_SEM_TASK_Take, 3 } },
         { TW_EV_MULTI_SEM_TASK, { wt, 0, TW_MULTI_SEM_TASK_Take, 3 } },
         { TW_EV_MULTI_SEM_TASK, { wt, 0, TW_MULTI_SEM_TASK_Block, 0 } },
         { TW_EV_MULTI_SEM, { 0, TW_MULTI_SEM_Give, 2 } },
         { TW_EV_MULTI_SEM_TASK, { wt, 0, TW_MULTI_SEM_TASK_ToTask, 2 } });
  assert_int_equal(sim_a.tasks[wt].got_index, 2);
}

static void test_mevent_flags_per_input(void **state)
{
  (void)state;
  start(&sim_a, &rec_a);
  tw_sim_mevent_create(&sim_a, "me", 2);
  static const struct act w[] = { { DELAY, 0, 1 }, { MWAIT, 0, 0 }, { MWAIT, 0, 0 },
                                  { MWAIT, 0, 0 }, { END, 0, 0 } };
  static const struct act g[] = { { MTRIG, 0, 2 }, { MTRIG, 0, 2 }, { DELAY, 0, 2 },
                                  { MTRIG, 0, 1 }, { END, 0, 0 } };
  int wt = add_task(&sim_a, "w", 4, w);
  add_task(&sim_a, "g", 2, g);
  tw_sim_run(&sim_a, 5000, 0);
  /* Two triggers of input 2 set one flag: one Consume, then Block. */
  EXPECT({ TW_EV_MULTI_EVENT, { 0, TW_MULTI_EVENT_Trigger, 2 } },
         { TW_EV_MULTI_EVENT, { 0, TW_MULTI_EVENT_Trigger, 2 } },
         { TW_EV_MULTI_EVENT_TASK, { wt, 0, TW_MULTI_EVENT_TASK_Consume, 2 } },
         { TW_EV_MULTI_EVENT_TASK, { wt, 0, TW_MULTI_EVENT_TASK_Block, 0 } },
         { TW_EV_MULTI_EVENT, { 0, TW_MULTI_EVENT_Trigger, 1 } },
         { TW_EV_MULTI_EVENT_TASK, { wt, 0, TW_MULTI_EVENT_TASK_ToTask, 1 } },
         { TW_EV_MULTI_EVENT_TASK, { wt, 0, TW_MULTI_EVENT_TASK_Block, 0 } });
  assert_int_equal(sim_a.tasks[wt].state, TW_SIM_BLOCKED); /* third wait */
}

/* ---- anti-semaphore --------------------------------------------------------------- */

static void test_asem_wait_sub_release_pass(void **state)
{
  (void)state;
  start(&sim_a, &rec_a);
  tw_sim_asem_create(&sim_a, "as");
  static const struct act ctl[] = { { AADD, 0, 2 }, { DELAY, 0, 2 }, { ASUB, 0, 1 },
                                    { ASUB, 0, 1 }, { END, 0, 0 } };
  static const struct act w[] = { { DELAY, 0, 1 }, { AWAIT, 0, 0 }, { AWAIT, 0, 0 },
                                  { END, 0, 0 } };
  add_task(&sim_a, "ctl", 2, ctl);
  int w1 = add_task(&sim_a, "w1", 4, w);
  int w2 = add_task(&sim_a, "w2", 4, w);
  tw_sim_run(&sim_a, 5000, 0);
  /* Both block (Wait) while count is 2; Sub to 1 still blocks; Sub to 0
   * releases both, which then Pass the now non-blocking anti-sem. */
  EXPECT({ TW_EV_ANTI_SEM, { 0, TW_ANTI_SEM_Add } },
         { TW_EV_ANTI_SEM_TASK, { w1, 0, TW_ANTI_SEM_TASK_Wait } },
         { TW_EV_ANTI_SEM_TASK, { w2, 0, TW_ANTI_SEM_TASK_Wait } },
         { TW_EV_ANTI_SEM, { 0, TW_ANTI_SEM_Sub } },
         { TW_EV_ANTI_SEM, { 0, TW_ANTI_SEM_Release } },
         { TW_EV_ANTI_SEM_TASK, { w1, 0, TW_ANTI_SEM_TASK_Pass } },
         { TW_EV_ANTI_SEM_TASK, { w2, 0, TW_ANTI_SEM_TASK_Pass } });
  assert_int_equal(sim_a.tasks[w1].state, TW_SIM_DONE);
  assert_int_equal(sim_a.tasks[w2].state, TW_SIM_DONE);
}

/* ---- res-semaphore ---------------------------------------------------------------- */

static void test_rsem_take_block_give_wait(void **state)
{
  (void)state;
  start(&sim_a, &rec_a);
  tw_sim_rsem_create(&sim_a, "rs", 2);
  static const struct act user[] = { { RTAKE, 0, 0 }, { RTAKE, 0, 0 }, { RTAKE, 0, 0 },
                                     { DELAY, 0, 2 }, { RGIVE, 0, 0 }, { RGIVE, 0, 0 },
                                     { END, 0, 0 } };
  static const struct act helper[] = { { DELAY, 0, 1 }, { RGIVE, 0, 0 }, { END, 0, 0 } };
  static const struct act waiter[] = { { RWAIT, 0, 0 }, { RWAIT, 0, 0 }, { END, 0, 0 } };
  int u = add_task(&sim_a, "user", 3, user);
  add_task(&sim_a, "helper", 5, helper);
  int wt = add_task(&sim_a, "waiter", 1, waiter);
  tw_sim_run(&sim_a, 8000, 0);
  EXPECT({ TW_EV_RES_SEM_TASK, { u, 0, TW_RES_SEM_TASK_Take } },
         { TW_EV_RES_SEM_TASK, { u, 0, TW_RES_SEM_TASK_Take } },
         { TW_EV_RES_SEM_TASK, { u, 0, TW_RES_SEM_TASK_Block } },
         { TW_EV_RES_SEM_TASK, { wt, 0, TW_RES_SEM_TASK_Wait } },
         /* helper gives one back: handed to the blocked taker */
         { TW_EV_RES_SEM, { 0, TW_RES_SEM_Give } },
         { TW_EV_RES_SEM_TASK, { u, 0, TW_RES_SEM_TASK_ToTask } },
         { TW_EV_RES_SEM, { 0, TW_RES_SEM_Give } },
         /* second give: all units back, the wait()er is released */
         { TW_EV_RES_SEM, { 0, TW_RES_SEM_Give } },
         { TW_EV_RES_SEM_TASK, { wt, 0, TW_RES_SEM_TASK_ToTask } },
         { TW_EV_RES_SEM_TASK, { wt, 0, TW_RES_SEM_TASK_Pass } });
  assert_int_equal(sim_a.rsem[0].count, 2);
}

/* ---- scenarios ------------------------------------------------------------------- */

static int task_named(const struct tw_sim *s, const char *name)
{
  for (unsigned i = 0; i < s->ntasks; i++)
    if (strcmp(s->tasks[i].name, name) == 0)
      return (int)i;
  return -1;
}

/* While high is blocked on "res" (held by low), medium runs. */
static void test_inversion_planted(void **state)
{
  (void)state;
  run_scenario(&sim_a, &rec_a, TW_SIM_SC_INVERSION, 9);
  uint32_t low = (uint32_t)task_named(&sim_a, "low");
  uint32_t high = (uint32_t)task_named(&sim_a, "high");
  uint32_t med = (uint32_t)task_named(&sim_a, "medium");
  int blocked = 0, inversions = 0;
  uint64_t since = 0, longest = 0;
  for (size_t i = 0; i < rec_a.n; i++) {
    const struct tw_sim_event *e = &rec_a.ev[i];
    if (e->id == TW_EV_MUTEX && e->f[0] == high && e->f[2] == TW_MUTEX_Block) {
      blocked = 1;
      since = e->time;
    } else if (e->id == TW_EV_MUTEX && e->f[0] == high && e->f[2] == TW_MUTEX_Lock) {
      if (blocked && e->time - since > longest)
        longest = e->time - since;
      blocked = 0;
    } else if (blocked && e->id == TW_EV_TASK_SWITCH && e->f[0] == med) {
      inversions++;
    }
    (void)low;
  }
  assert_true(inversions >= 2);
  /* Low alone would hold res ~2.5 ms (high would wait ~1.5 ms); medium's
   * 4 ms is added to high's wait. */
  assert_true(longest > 4000);
}

static void test_deadlock_planted(void **state)
{
  (void)state;
  run_scenario(&sim_a, &rec_a, TW_SIM_SC_DEADLOCK, 5);
  int l = task_named(&sim_a, "left"), r = task_named(&sim_a, "right");
  assert_int_equal(sim_a.tasks[l].state, TW_SIM_BLOCKED);
  assert_int_equal(sim_a.tasks[r].state, TW_SIM_BLOCKED);
  assert_int_equal(sim_a.tasks[l].wait_kind, TW_SIM_W_MUTEX);
  unsigned ml = sim_a.tasks[l].wait_obj, mr = sim_a.tasks[r].wait_obj;
  assert_int_equal(sim_a.mutex[ml].owner, r);
  assert_int_equal(sim_a.mutex[mr].owner, l);
}

static void test_storm_rate(void **state)
{
  (void)state;
  run_scenario(&sim_a, &rec_a, TW_SIM_SC_STORM, 5);
  /* 3 ms at 3..8 us apart: about 545 arrivals. */
  assert_in_range(sim_a.irq[0].count, 375, 1000);
  size_t isr = 0;
  for (size_t i = 0; i < rec_a.n; i++)
    if (rec_a.ev[i].id == TW_EV_INTERRUPT && rec_a.ev[i].f[0] == TW_SIM_IRQ_DEVICE0 &&
        rec_a.ev[i].time >= 5000 && rec_a.ev[i].time < 9000)
      isr++;
  assert_int_equal(isr, sim_a.irq[0].count);
}

/* The pipeline uses every RTOS event of seed 002 and every type value the
 * model can produce. */
static void test_pipeline_covers_vocabulary(void **state)
{
  (void)state;
  run_scenario(&sim_a, &rec_a, TW_SIM_SC_PIPELINE, 11);
  uint32_t seen[32] = { 0 };
  for (size_t i = 0; i < rec_a.n; i++) {
    const struct tw_sim_event *e = &rec_a.ev[i];
    uint32_t type = 0;
    if (e->id >= TW_EV_MUTEX) /* the type field follows the object fields */
      type = e->id == TW_EV_SEM || e->id == TW_EV_EVENT || e->id == TW_EV_MULTI_SEM ||
                     e->id == TW_EV_MULTI_EVENT || e->id == TW_EV_ANTI_SEM ||
                     e->id == TW_EV_RES_SEM ? e->f[1] : e->f[2];
    seen[e->id] |= 1u << type;
  }
  assert_true(seen[TW_EV_INTERRUPT]);
  assert_true(seen[TW_EV_TASK_SWITCH]);
  assert_int_equal(seen[TW_EV_MUTEX], 0x1F);        /* all five */
  assert_int_equal(seen[TW_EV_SEM], 0x7);
  assert_int_equal(seen[TW_EV_SEM_TASK], 0x7);
  assert_int_equal(seen[TW_EV_EVENT], 0x1);
  assert_int_equal(seen[TW_EV_EVENT_TASK] & 0x6, 0x6); /* Consume, Block */
  assert_int_equal(seen[TW_EV_MULTI_SEM], 0x1);
  assert_int_equal(seen[TW_EV_MULTI_SEM_TASK], 0x7);
  assert_int_equal(seen[TW_EV_MULTI_EVENT], 0x1);
  assert_int_equal(seen[TW_EV_MULTI_EVENT_TASK], 0x7);
  assert_int_equal(seen[TW_EV_ANTI_SEM], 0x7);
  assert_int_equal(seen[TW_EV_ANTI_SEM_TASK] & 0x1, 0x1);
  assert_int_equal(seen[TW_EV_RES_SEM], 0x1);
  assert_true(seen[TW_EV_RES_SEM_TASK] & (1u << TW_RES_SEM_TASK_Take));
  assert_true(seen[TW_EV_RES_SEM_TASK] & (1u << TW_RES_SEM_TASK_Pass));
}

static void test_scenario_names(void **state)
{
  (void)state;
  for (int i = 0; i < TW_SIM_SC_COUNT; i++)
    assert_int_equal(tw_sim_scenario_parse(tw_sim_scenario_name((enum tw_sim_scenario)i)), i);
  assert_true(tw_sim_scenario_parse("nope") < 0);
  assert_null(tw_sim_scenario_name(TW_SIM_SC_COUNT));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_same_seed_same_trace),
    cmocka_unit_test(test_other_seed_other_trace),
    cmocka_unit_test(test_ids_match_vocabulary),
    cmocka_unit_test(test_interrupt_bracketing),
    cmocka_unit_test(test_mutex_recursive_block_handover),
    cmocka_unit_test(test_mutex_unlock_by_non_owner_rejected),
    cmocka_unit_test(test_sem_give_take_block_totask),
    cmocka_unit_test(test_sem_give_many_releases_group),
    cmocka_unit_test(test_event_consume_block_totask),
    cmocka_unit_test(test_msem_indexes_round_robin),
    cmocka_unit_test(test_mevent_flags_per_input),
    cmocka_unit_test(test_asem_wait_sub_release_pass),
    cmocka_unit_test(test_rsem_take_block_give_wait),
    cmocka_unit_test(test_inversion_planted),
    cmocka_unit_test(test_deadlock_planted),
    cmocka_unit_test(test_storm_rate),
    cmocka_unit_test(test_pipeline_covers_vocabulary),
    cmocka_unit_test(test_scenario_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
