/*
 * The RTOS state model (tracewire/model/rtos.h) on hand-written event
 * sequences: every transition docs/model.md lists, the counts, time
 * accounting, names, and loss in the middle of a nested interrupt, of a
 * mutex hold and of a semaphore burst.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "tw_vocab_event.h"
#include "tracewire/error.h"
#include "tracewire/events_gen.h"
#include "tracewire/model/rtos.h"
#include "model/rtos_internal.h"

#define EP 1
#define ENTER TW_TASK_SWITCH_EnterInt
#define LEAVE TW_TASK_SWITCH_LeaveInt

/* Every change, as a compact log the tests search. */
struct log {
  struct tw_rtos_change ch[512];
  struct tw_rtos_phase now[512]; /* TASK: the task's phase when told */
  size_t n;
};

static void on_change(void *ctx, const struct tw_rtos_change *ch)
{
  struct log *l = ctx;
  if (l->n < sizeof l->ch / sizeof l->ch[0]) {
    if (ch->kind == TW_RTOS_CH_TASK)
      l->now[l->n] = ch->task->now;
    l->ch[l->n++] = *ch;
  }
}

struct rig {
  struct tw_rtos *m;
  struct log log;
  uint32_t seq;
};

static struct rig *rig_new(void)
{
  struct rig *r = calloc(1, sizeof *r);
  assert_non_null(r);
  assert_int_equal(tw_rtos_create(&r->m), 0);
  assert_int_equal(tw_rtos_observe(r->m, on_change, &r->log), 0);
  return r;
}

static void rig_free(struct rig *r)
{
  tw_rtos_destroy(r->m);
  free(r);
}

/* An event of the vocabulary on a stream: values in field order. */
static int feed_on(struct rig *r, uint16_t stream, uint16_t instance, uint64_t us, uint16_t id,
                   uint32_t v0, uint32_t v1, uint32_t v2, const char *str)
{
  struct tw_event e = tw_test_event(&(struct tw_test_ev){
      .time_ns = us * 1000, .endpoint = EP, .instance = instance, .stream = stream, .id = id,
      .v0 = v0, .v1 = v1, .v2 = v2, .str = str});
  e.seq = r->seq++;
  return tw_rtos_feed(r->m, &e);
}

static void feed(struct rig *r, uint64_t us, uint16_t id, uint32_t v0, uint32_t v1, uint32_t v2)
{
  assert_int_equal(feed_on(r, 0, 0, us, id, v0, v1, v2, NULL), 0);
}

static void name_task(struct rig *r, uint32_t task, uint32_t prio, const char *name)
{
  assert_int_equal(feed_on(r, 0, 0, 0, TW_EV_NAME, TW_OBJ_TASK, prio, task, name), 0);
}

static const struct tw_rtos_task *task(struct rig *r, uint32_t n)
{
  const struct tw_rtos_task *t = tw_rtos_task(r->m, EP, n);
  assert_non_null(t);
  return t;
}

static const struct tw_rtos_obj *obj(struct rig *r, enum tw_obj_kind k, uint32_t n)
{
  const struct tw_rtos_obj *o = tw_rtos_obj(r->m, EP, k, n);
  assert_non_null(o);
  return o;
}

static const struct tw_rtos_core *core0(struct rig *r)
{
  const struct tw_rtos_core *c = tw_rtos_core_of(r->m, 0);
  assert_non_null(c);
  return c;
}

/* A priority known from before a loss is stale: the lost events may have
 * changed it (FreeRTOS's vTaskPrioritySet raising the collector to the
 * supervisor's priority in the ring overflow it then drains: the two
 * share the CPU by time slicing, and a switch between them is a
 * preemption, not a wait). "Blocked, reason unseen" needs both
 * priorities known since the last loss, else the task switched out is
 * unknown; a Name (or a priority event) makes a priority known again. */
static void test_switch_after_loss_prio_stale(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  name_task(r, 1, 9, "supervisor");
  name_task(r, 2, 2, "collector");
  feed(r, 10, TW_EV_TASK_SWITCH, 1, 0, 0);
  feed(r, 20, TW_EV_DROPS, 100, 0, 0);
  feed(r, 30, TW_EV_TASK_SWITCH, 1, 0, 0);
  feed(r, 40, TW_EV_TASK_SWITCH, 2, 0, 0); /* lower by stale priorities */
  assert_int_equal(task(r, 1)->now.state, TW_RTOS_UNKNOWN); /* preempted or stopped */
  assert_int_equal(task(r, 1)->now.wait, TW_RTOS_WAIT_NONE);
  /* both priorities said again: the inference holds again */
  name_task(r, 1, 9, "supervisor");
  name_task(r, 2, 2, "collector");
  feed(r, 50, TW_EV_TASK_SWITCH, 1, 0, 0);
  feed(r, 60, TW_EV_TASK_SWITCH, 2, 0, 0);
  assert_int_equal(task(r, 1)->now.state, TW_RTOS_BLOCKED);
  assert_int_equal(task(r, 1)->now.wait, TW_RTOS_WAIT_UNSEEN);
  rig_free(r);
}

static size_t count_kind(const struct rig *r, enum tw_rtos_ch k)
{
  size_t n = 0;
  for (size_t i = 0; i < r->log.n; i++)
    n += r->log.ch[i].kind == k;
  return n;
}

/* Switches: the old task is preempted (ready) when an equal or higher
 * priority takes the CPU, "blocked, reason unseen" when a lower one does. */
static void test_switch_states(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  name_task(r, 1, 2, "low");
  name_task(r, 2, 5, "high");
  name_task(r, 3, 5, "peer");
  feed(r, 10, TW_EV_TASK_SWITCH, 1, 0, 0);
  assert_int_equal(task(r, 1)->now.state, TW_RTOS_RUNNING);
  assert_ptr_equal(core0(r)->running, task(r, 1));
  assert_true(core0(r)->running_known);
  feed(r, 20, TW_EV_TASK_SWITCH, 2, 0, 0);
  assert_int_equal(task(r, 1)->now.state, TW_RTOS_READY);
  assert_int_equal(task(r, 1)->now.since, 20000);
  feed(r, 30, TW_EV_TASK_SWITCH, 3, 0, 0);
  assert_int_equal(task(r, 2)->now.state, TW_RTOS_READY); /* equal priority: preempted */
  feed(r, 40, TW_EV_TASK_SWITCH, 1, 0, 0);
  assert_int_equal(task(r, 3)->now.state, TW_RTOS_BLOCKED); /* lower one runs: stopped */
  assert_int_equal(task(r, 3)->now.wait, TW_RTOS_WAIT_UNSEEN);
  uint32_t unknown = 99;
  assert_int_equal(tw_rtos_ready(r->m, EP, &unknown), 1); /* high only */
  assert_int_equal(unknown, 0);
  /* the last SWITCH names both sides */
  const struct tw_rtos_change *sw = NULL;
  for (size_t i = 0; i < r->log.n; i++)
    if (r->log.ch[i].kind == TW_RTOS_CH_SWITCH)
      sw = &r->log.ch[i];
  assert_non_null(sw);
  assert_ptr_equal(sw->prev, task(r, 3));
  assert_ptr_equal(sw->task, task(r, 1));
  assert_int_equal(sw->t, 40000);
  assert_int_equal(count_kind(r, TW_RTOS_CH_SWITCH), 4);
  rig_free(r);
}

/* Every change of an event comes before its EVENT change, which carries
 * the meaning, marker and the task and object the event names. */
static void test_change_order(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  feed(r, 1, TW_EV_TASK_SWITCH, 4, 0, 0);
  r->log.n = 0;
  feed(r, 2, TW_EV_SEM_TASK, 4, 7, TW_SEM_TASK_Block);
  assert_int_equal(r->log.ch[0].kind, TW_RTOS_CH_TASK);
  assert_int_equal(r->log.now[0].state, TW_RTOS_BLOCKED);
  assert_int_equal(r->log.ch[0].old.state, TW_RTOS_RUNNING);
  assert_int_equal(r->log.ch[r->log.n - 1].kind, TW_RTOS_CH_EVENT);
  const struct tw_rtos_change *e = &r->log.ch[r->log.n - 1];
  assert_non_null(e->meaning);
  assert_int_equal(e->meaning->act, TW_ACT_BLOCK);
  assert_int_equal(e->meaning->obj_act, TW_OACT_EMPTY);
  assert_int_equal(e->marker, TW_MARKER_DOWN_BLOCK);
  assert_ptr_equal(e->task, task(r, 4));
  assert_ptr_equal(e->obj, obj(r, TW_OBJ_SEM, 7));
  assert_int_equal(e->obj_kind, TW_OBJ_SEM);
  assert_int_equal(e->obj_number, 7);
  /* an event with no meaning still reaches observers */
  r->log.n = 0;
  feed(r, 3, TW_EV_SLEEP, 5, 6, 0);
  assert_int_equal(r->log.n, 1);
  assert_null(r->log.ch[0].meaning);
  rig_free(r);
}

static void test_block_and_release(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  feed(r, 1, TW_EV_TASK_SWITCH, 4, 0, 0);
  feed(r, 2, TW_EV_SEM_TASK, 4, 1, TW_SEM_TASK_Block);
  const struct tw_rtos_task *t = task(r, 4);
  assert_int_equal(t->now.state, TW_RTOS_BLOCKED);
  assert_int_equal(t->now.wait, TW_RTOS_WAIT_OBJECT);
  assert_int_equal(t->now.wait_kind, TW_OBJ_SEM);
  assert_int_equal(t->now.wait_obj, 1);
  assert_int_equal(obj(r, TW_OBJ_SEM, 1)->waiters, 1);
  assert_int_equal(obj(r, TW_OBJ_SEM, 1)->count, 0);
  assert_true(obj(r, TW_OBJ_SEM, 1)->count_exact);
  feed(r, 3, TW_EV_TASK_SWITCH, 5, 0, 0);
  assert_int_equal(t->now.state, TW_RTOS_BLOCKED); /* switched out while blocked: stays */
  feed(r, 4, TW_EV_SEM, 1, TW_SEM_Give, 0);
  assert_int_equal(obj(r, TW_OBJ_SEM, 1)->count, 1);
  feed(r, 5, TW_EV_SEM_TASK, 4, 1, TW_SEM_TASK_ToTask);
  assert_int_equal(t->now.state, TW_RTOS_READY);
  assert_int_equal(obj(r, TW_OBJ_SEM, 1)->count, 0); /* the give went to the task */
  assert_int_equal(obj(r, TW_OBJ_SEM, 1)->waiters, 0);
  assert_ptr_equal(obj(r, TW_OBJ_SEM, 1)->holder, t); /* the binary semaphore's holder */
  assert_int_equal(tw_rtos_ready(r->m, EP, NULL), 1);
  /* a res-semaphore wait()er is released without taking a unit */
  feed(r, 6, TW_EV_RES_SEM, 2, TW_RES_SEM_Give, 0);
  feed(r, 7, TW_EV_RES_SEM_TASK, 5, 2, TW_RES_SEM_TASK_Wait);
  assert_int_equal(task(r, 5)->now.wait, TW_RTOS_WAIT_CONDITION);
  feed(r, 8, TW_EV_RES_SEM_TASK, 5, 2, TW_RES_SEM_TASK_ToTask);
  assert_int_equal(obj(r, TW_OBJ_RSEM, 2)->count, 1);
  assert_int_equal(task(r, 5)->now.state, TW_RTOS_READY);
  /* a blocked task switched in: its wait ended, however it was released */
  feed(r, 9, TW_EV_EVENT_TASK, 6, 3, TW_EVENT_TASK_Block);
  feed(r, 10, TW_EV_TASK_SWITCH, 6, 0, 0);
  assert_int_equal(task(r, 6)->now.state, TW_RTOS_RUNNING);
  assert_int_equal(obj(r, TW_OBJ_EVENT, 3)->waiters, 0);
  rig_free(r);
}

static void test_mutex(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  feed(r, 1, TW_EV_TASK_SWITCH, 1, 0, 0);
  feed(r, 2, TW_EV_MUTEX, 1, 3, TW_MUTEX_Lock);
  const struct tw_rtos_obj *m = obj(r, TW_OBJ_MUTEX, 3);
  assert_ptr_equal(m->holder, task(r, 1));
  assert_true(m->held && m->holder_known);
  assert_int_equal(m->depth, 1);
  assert_int_equal(m->held_since, 2000);
  feed(r, 3, TW_EV_MUTEX, 1, 3, TW_MUTEX_IncLock);
  assert_int_equal(m->depth, 2);
  feed(r, 4, TW_EV_MUTEX, 1, 3, TW_MUTEX_DecLock);
  assert_int_equal(m->depth, 1);
  feed(r, 5, TW_EV_TASK_SWITCH, 2, 0, 0);
  feed(r, 6, TW_EV_MUTEX, 2, 3, TW_MUTEX_Block);
  assert_int_equal(m->waiters, 1);
  feed(r, 7, TW_EV_TASK_SWITCH, 1, 0, 0);
  r->log.n = 0;
  feed(r, 8, TW_EV_MUTEX, 1, 3, TW_MUTEX_Unlock);
  assert_false(m->held);
  assert_null(m->holder);
  /* the OBJ change tells who held it and since when */
  assert_int_equal(r->log.ch[0].kind, TW_RTOS_CH_OBJ);
  assert_ptr_equal(r->log.ch[0].old_holder, task(r, 1));
  assert_int_equal(r->log.ch[0].old_since, 2000);
  feed(r, 8, TW_EV_MUTEX, 2, 3, TW_MUTEX_Lock); /* handed over: the waiter's block ends */
  assert_ptr_equal(m->holder, task(r, 2));
  assert_int_equal(task(r, 2)->now.state, TW_RTOS_READY);
  assert_int_equal(m->waiters, 0);
  rig_free(r);
}

/* Counts never go negative; GiveMany and ToTaskList make them a lower
 * bound until a block pins them to 0 again. */
static void test_counts(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  feed(r, 1, TW_EV_TASK_SWITCH, 1, 0, 0);
  feed(r, 2, TW_EV_SEM_TASK, 1, 1, TW_SEM_TASK_Take); /* a give we never saw */
  const struct tw_rtos_obj *s = obj(r, TW_OBJ_SEM, 1);
  assert_int_equal(s->count, 0);
  assert_false(s->count_exact);
  feed(r, 3, TW_EV_SEM, 1, TW_SEM_GiveMany, 0);
  assert_int_equal(s->count, 1);
  assert_false(s->count_exact);
  feed(r, 4, TW_EV_SEM_TASK, 1, 1, TW_SEM_TASK_Take);
  feed(r, 5, TW_EV_SEM_TASK, 1, 1, TW_SEM_TASK_Take);
  assert_int_equal(s->count, 0);
  feed(r, 6, TW_EV_SEM_TASK, 1, 1, TW_SEM_TASK_Block);
  assert_int_equal(s->count, 0);
  assert_true(s->count_exact);
  feed(r, 7, TW_EV_SEM, 1, TW_SEM_GiveMany, 0);
  feed(r, 8, TW_EV_SEM, 1, TW_SEM_ToTaskList, 0);
  assert_int_equal(s->count, 0);
  assert_false(s->count_exact);
  /* an anti-semaphore: Release frees every waiter and pins 0 */
  feed(r, 10, TW_EV_ANTI_SEM, 2, TW_ANTI_SEM_Add, 0);
  feed(r, 11, TW_EV_ANTI_SEM, 2, TW_ANTI_SEM_Add, 0);
  feed(r, 12, TW_EV_ANTI_SEM_TASK, 3, 2, TW_ANTI_SEM_TASK_Wait);
  feed(r, 13, TW_EV_ANTI_SEM_TASK, 4, 2, TW_ANTI_SEM_TASK_Wait);
  const struct tw_rtos_obj *a = obj(r, TW_OBJ_ASEM, 2);
  assert_int_equal(a->count, 2);
  assert_int_equal(a->waiters, 2);
  feed(r, 14, TW_EV_ANTI_SEM, 2, TW_ANTI_SEM_Sub, 0);
  assert_int_equal(a->count, 1);
  feed(r, 15, TW_EV_ANTI_SEM, 2, TW_ANTI_SEM_Release, 0);
  assert_int_equal(a->count, 0);
  assert_true(a->count_exact);
  assert_int_equal(a->waiters, 0);
  assert_int_equal(task(r, 3)->now.state, TW_RTOS_READY);
  assert_int_equal(task(r, 4)->now.state, TW_RTOS_READY);
  rig_free(r);
}

/* Loss in the middle of a nested interrupt: both frames close at the gap
 * (cut), the depth is 0, the LeaveInts after it match nothing, and the
 * next interrupt is again at depth 1. */
static void test_loss_in_nested_interrupt(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  feed(r, 0, TW_EV_TASK_SWITCH, 1, 0, 0);
  feed(r, 10, TW_EV_TASK_SWITCH, ENTER, 0, 0);
  feed(r, 10, TW_EV_INTERRUPT, 16, 0, 0);
  feed(r, 12, TW_EV_TASK_SWITCH, ENTER, 0, 0);
  feed(r, 12, TW_EV_INTERRUPT, 17, 0, 0);
  assert_int_equal(core0(r)->depth, 2);
  assert_int_equal(core0(r)->frames[0].irq, 16);
  assert_int_equal(core0(r)->frames[1].irq, 17);
  r->log.n = 0;
  feed(r, 20, TW_EV_DROPS, 5, 0, 0);
  const struct tw_rtos_core *c = core0(r);
  assert_int_equal(c->depth, 0);
  assert_int_equal(c->lost[TW_RTOS_LOSS_RING], 5);
  assert_int_equal(c->epoch, 1);
  assert_int_equal(r->log.ch[0].kind, TW_RTOS_CH_LOSS);
  assert_int_equal(r->log.ch[0].count, 5);
  assert_int_equal(r->log.ch[1].kind, TW_RTOS_CH_IRQ_EXIT); /* innermost first */
  assert_true(r->log.ch[1].cut);
  assert_int_equal(r->log.ch[1].depth, 2);
  assert_int_equal(r->log.ch[1].frame->irq, 17);
  assert_int_equal(r->log.ch[2].kind, TW_RTOS_CH_IRQ_EXIT);
  assert_int_equal(r->log.ch[2].frame->irq, 16);
  assert_int_equal(r->log.ch[2].frame->since, 10000);
  /* the running task is unknown until the next switch */
  assert_false(c->running_known);
  assert_null(c->running);
  assert_int_equal(c->owner, TW_RTOS_OWN_UNKNOWN);
  assert_int_equal(task(r, 1)->now.state, TW_RTOS_UNKNOWN);
  assert_int_equal(task(r, 1)->last.state, TW_RTOS_RUNNING);
  feed(r, 25, TW_EV_TASK_SWITCH, LEAVE, 0, 0);
  feed(r, 26, TW_EV_TASK_SWITCH, LEAVE, 0, 0);
  assert_int_equal(c->depth, 0);
  assert_int_equal(c->unmatched_exits, 2);
  feed(r, 30, TW_EV_TASK_SWITCH, ENTER, 0, 0);
  assert_int_equal(c->depth, 1);
  feed(r, 31, TW_EV_TASK_SWITCH, LEAVE, 0, 0);
  feed(r, 40, TW_EV_TASK_SWITCH, 1, 0, 0);
  assert_true(c->running_known);
  assert_int_equal(task(r, 1)->now.state, TW_RTOS_RUNNING);
  assert_int_equal(c->max_depth, 2);
  /* CPU time: task 0..10, irq 10..20, unknown 20..30 and 31..40, irq 30..31 */
  tw_rtos_finish(r->m);
  assert_int_equal(c->ns[TW_RTOS_OWN_TASK], 10000);
  assert_int_equal(c->ns[TW_RTOS_OWN_IRQ], 11000);
  assert_int_equal(c->ns[TW_RTOS_OWN_UNKNOWN], 19000);
  rig_free(r);
}

/* Loss in the middle of a mutex hold: the holder is unknown until a lock
 * or unlock says again; the blocked waiter's state is unknown, its last
 * known state kept. */
static void test_loss_in_mutex_hold(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  feed(r, 1, TW_EV_TASK_SWITCH, 1, 0, 0);
  feed(r, 2, TW_EV_MUTEX, 1, 3, TW_MUTEX_Lock);
  feed(r, 3, TW_EV_TASK_SWITCH, 2, 0, 0);
  feed(r, 4, TW_EV_MUTEX, 2, 3, TW_MUTEX_Block);
  feed(r, 5, TW_EV_TASK_SWITCH, 1, 0, 0);
  feed(r, 6, TW_EV_DROPS, 3, 0, 0);
  const struct tw_rtos_obj *m = obj(r, TW_OBJ_MUTEX, 3);
  assert_false(m->holder_known);
  assert_null(m->holder);
  assert_int_equal(m->waiters, 0);
  const struct tw_rtos_task *w = task(r, 2);
  assert_int_equal(w->now.state, TW_RTOS_UNKNOWN);
  assert_int_equal(w->last.state, TW_RTOS_BLOCKED);
  assert_int_equal(w->last.wait_kind, TW_OBJ_MUTEX);
  assert_int_equal(w->last.wait_obj, 3);
  assert_int_equal(w->last.since, 4000);
  assert_int_equal(w->last.epoch, 0);
  assert_int_equal(w->now.epoch, 1);
  uint32_t unknown;
  assert_int_equal(tw_rtos_ready(r->m, EP, &unknown), 0);
  assert_int_equal(unknown, 2);
  feed(r, 7, TW_EV_MUTEX, 1, 3, TW_MUTEX_DecLock); /* the holder shows itself */
  assert_true(m->holder_known);
  assert_ptr_equal(m->holder, task(r, 1));
  feed(r, 8, TW_EV_MUTEX, 1, 3, TW_MUTEX_Unlock);
  assert_false(m->held);
  assert_true(m->holder_known);
  rig_free(r);
}

/* Loss in a semaphore burst: the count restarts at 0 as a lower bound,
 * never goes negative on takes whose gives were lost, and a block pins it. */
static void test_loss_in_sem_burst(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  feed(r, 1, TW_EV_TASK_SWITCH, 1, 0, 0);
  for (int i = 0; i < 5; i++)
    feed(r, 2 + (uint64_t)i, TW_EV_SEM, 1, TW_SEM_Give, 0);
  const struct tw_rtos_obj *s = obj(r, TW_OBJ_SEM, 1);
  assert_int_equal(s->count, 5);
  assert_true(s->count_exact);
  feed(r, 10, TW_EV_DROPS, 40, 0, 0);
  assert_int_equal(s->count, 0);
  assert_false(s->count_exact);
  int64_t lowest = 0;
  for (int i = 0; i < 8; i++) {
    feed(r, 11 + (uint64_t)i, TW_EV_SEM_TASK, 1, 1, TW_SEM_TASK_Take);
    if (s->count < lowest)
      lowest = s->count;
  }
  assert_int_equal(lowest, 0);
  feed(r, 20, TW_EV_SEM, 1, TW_SEM_Give, 0);
  assert_int_equal(s->count, 1);
  assert_false(s->count_exact);
  feed(r, 21, TW_EV_SEM_TASK, 1, 1, TW_SEM_TASK_Take);
  feed(r, 22, TW_EV_SEM_TASK, 1, 1, TW_SEM_TASK_Block);
  assert_int_equal(s->count, 0);
  assert_true(s->count_exact);
  rig_free(r);
}

/* A transport gap reported by the host applies before the stream's next
 * event, at its time. */
static void test_transport_loss(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  feed(r, 1, TW_EV_TASK_SWITCH, 1, 0, 0);
  tw_rtos_loss(r->m, 0, TW_RTOS_LOSS_PACKETS, 2);
  assert_true(core0(r)->running_known); /* not yet */
  r->log.n = 0;
  feed(r, 9, TW_EV_TASK_SWITCH, 2, 0, 0);
  assert_int_equal(r->log.ch[0].kind, TW_RTOS_CH_LOSS);
  assert_int_equal(r->log.ch[0].t, 9000);
  assert_int_equal(r->log.ch[0].cause, TW_RTOS_LOSS_PACKETS);
  assert_int_equal(core0(r)->lost[TW_RTOS_LOSS_PACKETS], 2);
  assert_int_equal(task(r, 1)->now.state, TW_RTOS_UNKNOWN);
  assert_int_equal(task(r, 2)->now.state, TW_RTOS_RUNNING);
  /* a stop and a start again: what happened between is not known */
  feed(r, 10, TW_EV_TRACE_STOP, 0, 0, 0);
  feed(r, 50, TW_EV_TRACE_START, 0, 0, 0);
  assert_int_equal(task(r, 2)->now.state, TW_RTOS_UNKNOWN);
  assert_int_equal(core0(r)->epoch, 2);
  rig_free(r);
}

/* Tasks belong to the endpoint and may run on any of its cores; a loss on
 * one core leaves a task running on another core alone. */
static void test_smp(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  assert_int_equal(feed_on(r, 0, 0, 1, TW_EV_TASK_SWITCH, 1, 0, 0, NULL), 0);
  assert_int_equal(feed_on(r, 1, 1, 2, TW_EV_TASK_SWITCH, 2, 0, 0, NULL), 0);
  const struct tw_rtos_core *c1 = tw_rtos_core_of(r->m, 1);
  assert_non_null(c1);
  assert_int_equal(c1->id, 1);
  assert_int_equal(task(r, 2)->core, 1);
  assert_int_equal(tw_rtos_ncores(r->m), 2);
  assert_int_equal(feed_on(r, 0, 0, 3, TW_EV_DROPS, 4, 0, 0, NULL), 0);
  assert_int_equal(task(r, 1)->now.state, TW_RTOS_UNKNOWN);
  assert_int_equal(task(r, 2)->now.state, TW_RTOS_RUNNING);
  /* task 2 migrates to core 0 without core 1 switching away first */
  assert_int_equal(feed_on(r, 0, 0, 4, TW_EV_TASK_SWITCH, 2, 0, 0, NULL), 0);
  assert_int_equal(task(r, 2)->core, 0);
  assert_false(c1->running_known);
  assert_int_equal(c1->conflicts, 1);
  rig_free(r);
}

/* Names: whole, per endpoint, renamed in place with the old string kept. */
static void test_names(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  char longname[301];
  memset(longname, 'x', 300);
  longname[300] = 0;
  memcpy(longname, "IdleTask-", 9);
  name_task(r, 3, 0, longname);
  const struct tw_rtos_task *t = task(r, 3);
  assert_int_equal(strlen(t->name), 300);
  assert_true(t->idle);
  assert_int_equal(t->base_prio, 0);
  assert_int_equal(t->prio, 0);
  assert_int_equal(t->now.state, TW_RTOS_UNKNOWN);
  const char *old = t->name;
  name_task(r, 3, 4, "worker");
  assert_string_equal(t->name, "worker");
  assert_false(t->idle);
  assert_int_equal(t->base_prio, 4);
  assert_int_equal(strlen(old), 300); /* still valid */
  assert_int_equal(feed_on(r, 0, 0, 0, TW_EV_NAME, TW_OBJ_IRQ, 0, 70000, "TIM2"), 0);
  assert_string_equal(tw_rtos_name(r->m, EP, TW_OBJ_IRQ, 70000), "TIM2");
  assert_null(tw_rtos_name(r->m, EP + 1, TW_OBJ_IRQ, 70000));
  /* an object named before it is used gets its name when it appears */
  assert_int_equal(feed_on(r, 0, 0, 0, TW_EV_NAME, TW_OBJ_MUTEX, 0, 9, "bus"), 0);
  feed(r, 1, TW_EV_TASK_SWITCH, 3, 0, 0);
  feed(r, 2, TW_EV_MUTEX, 3, 9, TW_MUTEX_Lock);
  assert_string_equal(obj(r, TW_OBJ_MUTEX, 9)->name, "bus");
  size_t n = 0;
  uint16_t ep;
  enum tw_obj_kind k;
  uint32_t num;
  const char *s;
  while (tw_rtos_name_at(r->m, n, &ep, &k, &num, &s))
    n++;
  assert_int_equal(n, 3);
  rig_free(r);
}

/* CPU time adds up to the core's duration; the idle task is not busy. */
static void test_time(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  name_task(r, 0, 0, "idle");
  feed(r, 100, TW_EV_TASK_SWITCH, 0, 0, 0);
  feed(r, 150, TW_EV_TASK_SWITCH, 1, 0, 0);
  feed(r, 160, TW_EV_TASK_SWITCH, ENTER, 0, 0);
  feed(r, 170, TW_EV_TASK_SWITCH, LEAVE, 0, 0);
  feed(r, 200, TW_EV_TASK_SWITCH, 0, 0, 0);
  feed(r, 300, TW_EV_SEM, 1, TW_SEM_Give, 0);
  tw_rtos_finish(r->m);
  const struct tw_rtos_core *c = core0(r);
  assert_int_equal(c->ns[TW_RTOS_OWN_UNKNOWN], 100000); /* 0 (the NAME) .. first switch */
  assert_int_equal(c->ns[TW_RTOS_OWN_IDLE], 150000);
  assert_int_equal(c->ns[TW_RTOS_OWN_TASK], 40000);
  assert_int_equal(c->ns[TW_RTOS_OWN_IRQ], 10000);
  assert_int_equal(task(r, 1)->cpu_ns, 40000);
  assert_int_equal(task(r, 1)->irq_ns, 10000);
  assert_int_equal(count_kind(r, TW_RTOS_CH_END), 1);
  assert_int_equal(feed_on(r, 0, 0, 400, TW_EV_SEM, 1, TW_SEM_Give, 0, NULL), TW_EINVAL);
  rig_free(r);
}

/* An event of a kind the vocabulary does not have yet (FreeRTOS will
 * add them), fed with the meaning its row will have: task, object, value. */
static const struct tw_field_desc fut_fields[] = {
  {"task", TW_FT_U16, 0, 0, 16, TW_OBJ_TASK, ""},
  {"obj", TW_FT_U16, 0, 16, 16, TW_OBJ_SEM, ""},
  {"value", TW_FT_U32, 1, 0, 32, TW_OBJ_NONE, ""}};
static const struct tw_event_desc fut_desc = {
  30, TW_MOD_RTOS, TW_EVF_TIMED, 3, 2, -1, TW_MARKER_NONE, 0, "FUTURE", "Future", "",
  fut_fields, NULL};

static void feed_act(struct rig *r, uint64_t us, enum tw_act act, enum tw_obj_act oact,
                     uint32_t task, uint32_t obj, uint32_t value)
{
  struct tw_meaning mn = {.id = 30, .any = 1, .act = act, .obj_act = oact,
                          .task_field = task == TW_RTOS_IRQ_UNNAMED ? -1 : 0,
                          .obj_field = 1, .kind_field = -1, .value_field = 2,
                          .obj_kind = TW_OBJ_SEM, .row = 0xFFFF,
                          .task_src = task == TW_RTOS_IRQ_UNNAMED ? TW_TASK_FROM_NONE
                                                                  : TW_TASK_FROM_FIELD};
  struct tw_event e;
  memset(&e, 0, sizeof e);
  e.desc = &fut_desc;
  e.time_ns = e.ticks = us * 1000;
  e.endpoint = EP;
  e.id = 30;
  e.module = TW_MOD_RTOS;
  e.nvalues = 3;
  e.values[0] = task;
  e.values[1] = obj;
  e.values[2] = value;
  assert_int_equal(tw__rtos_feed_as(r->m, &e, &mn), 0);
}

/* The acts FreeRTOS's events will use: delays and notifications are
 * blocks on what they wait for, suspension, creation and deletion,
 * priorities set, inherited and given back (a loss drops an inheritance
 * whose end it may have hidden), binary semaphores. */
static void test_future_acts(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  name_task(r, 1, 3, "one");
  feed(r, 1, TW_EV_TASK_SWITCH, 1, 0, 0);
  feed_act(r, 2, TW_ACT_DELAY, TW_OACT_NONE, 1, 0, 10);
  assert_int_equal(task(r, 1)->now.state, TW_RTOS_BLOCKED);
  assert_int_equal(task(r, 1)->now.wait, TW_RTOS_WAIT_TIME);
  assert_int_equal(task(r, 1)->now.wait_value, 10);
  feed_act(r, 3, TW_ACT_NOTIFY_WAIT, TW_OACT_NONE, 2, 0, 0);
  assert_int_equal(task(r, 2)->now.wait, TW_RTOS_WAIT_NOTIFY);
  feed_act(r, 4, TW_ACT_SUSPEND, TW_OACT_NONE, 3, 0, 0);
  assert_int_equal(task(r, 3)->now.state, TW_RTOS_SUSPENDED);
  feed_act(r, 5, TW_ACT_RESUME, TW_OACT_NONE, 3, 0, 0);
  assert_int_equal(task(r, 3)->now.state, TW_RTOS_READY);
  feed_act(r, 6, TW_ACT_CREATE, TW_OACT_NONE, 4, 0, 7);
  assert_int_equal(task(r, 4)->now.state, TW_RTOS_READY);
  assert_int_equal(task(r, 4)->base_prio, 7);
  feed_act(r, 7, TW_ACT_DELETE, TW_OACT_NONE, 4, 0, 0);
  assert_int_equal(task(r, 4)->now.state, TW_RTOS_DELETED);
  feed_act(r, 8, TW_ACT_PRIO_INHERIT, TW_OACT_NONE, 1, 0, 9);
  assert_int_equal(task(r, 1)->prio, 9);
  assert_int_equal(task(r, 1)->base_prio, 3);
  feed_act(r, 9, TW_ACT_PRIO_SET, TW_OACT_NONE, 1, 0, 4); /* below the inherited: kept */
  assert_int_equal(task(r, 1)->prio, 9);
  assert_int_equal(task(r, 1)->base_prio, 4);
  feed_act(r, 10, TW_ACT_PRIO_DISINHERIT, TW_OACT_NONE, 1, 0, 4);
  assert_int_equal(task(r, 1)->prio, 4);
  feed_act(r, 11, TW_ACT_PRIO_INHERIT, TW_OACT_NONE, 1, 0, 8);
  feed(r, 12, TW_EV_DROPS, 1, 0, 0);
  assert_int_equal(task(r, 1)->prio, 4); /* its disinherit may be among the lost */
  feed_act(r, 13, TW_ACT_NONE, TW_OACT_CREATE_BINARY, TW_RTOS_IRQ_UNNAMED, 9, 1);
  const struct tw_rtos_obj *b = obj(r, TW_OBJ_SEM, 9);
  assert_true(b->binary);
  assert_int_equal(b->count, 1);
  assert_true(b->count_exact);
  feed(r, 14, TW_EV_SEM_TASK, 2, 9, TW_SEM_TASK_Take);
  assert_ptr_equal(b->holder, task(r, 2));
  assert_int_equal(b->count, 0);
  feed_act(r, 15, TW_ACT_NONE, TW_OACT_DELETE, TW_RTOS_IRQ_UNNAMED, 9, 0);
  assert_null(b->holder);
  rig_free(r);
}

/* An event with up to six values, in field order, on stream 0. */
static void feedv(struct rig *r, uint64_t us, uint16_t id, int n, const uint32_t *v)
{
  struct tw_event e;
  memset(&e, 0, sizeof e);
  e.desc = tw_event_desc_by_id(id);
  assert_non_null(e.desc);
  assert_int_equal(n, e.desc->nfields);
  e.time_ns = e.ticks = us * 1000;
  e.seq = r->seq++;
  e.endpoint = EP;
  e.id = id;
  e.module = e.desc->module;
  e.nvalues = e.desc->nfields;
  for (int i = 0; i < n; i++)
    e.values[i] = v[i];
  assert_int_equal(tw_rtos_feed(r->m, &e), 0);
}
#define FEED(r, us, id, ...)                                                          \
  feedv(r, us, id, (int)(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)),       \
        (uint32_t[]){__VA_ARGS__})

static void object(struct rig *r, uint64_t us, uint32_t type, enum tw_obj_kind kind, uint32_t n,
                   uint32_t variant, uint32_t arg2, uint32_t arg)
{
  FEED(r, us, TW_EV_OBJECT, n, kind, type, variant, arg2, arg);
}

/* The FreeRTOS rows of events.def (ids 18..27), as the hooks record a
 * real kernel's operations: tasks created and deleted by ObjectEvent (the
 * object is the task), events without a task field done by the task
 * running on the core (none inside an interrupt), a TASK Ready for every
 * release, delays, notifications and event-group waits as blocks on what
 * they wait for, a stream buffer's wait kept through the notification the
 * kernel waits with, priorities set, inherited and given back, a binary
 * semaphore told by its maximum of 1, EnterInt naming no task. */
static void test_freertos_events(void **state)
{
  (void)state;
  struct rig *r = rig_new();
  name_task(r, 1, 1, "low");
  name_task(r, 2, 7, "high");
  object(r, 1, TW_OBJECT_Create, TW_OBJ_TASK, 3, 0, 0, 5);
  assert_int_equal(task(r, 3)->now.state, TW_RTOS_READY);
  assert_int_equal(task(r, 3)->base_prio, 5);
  object(r, 2, TW_OBJECT_Create, TW_OBJ_SEM, 9, 3, 0, 1);   /* binary: at most 1 */
  object(r, 2, TW_OBJECT_Create, TW_OBJ_SEM, 10, 2, 2, 2);  /* counting */
  object(r, 2, TW_OBJECT_Create, TW_OBJ_QUEUE, 4, 0, 4, 1); /* a queue of one message */
  assert_true(obj(r, TW_OBJ_SEM, 9)->binary);
  assert_false(obj(r, TW_OBJ_SEM, 9)->count_exact); /* how many it starts with: not said */
  assert_false(obj(r, TW_OBJ_SEM, 10)->binary);
  assert_false(obj(r, TW_OBJ_QUEUE, 4)->binary);
  object(r, 2, TW_OBJECT_CreateFailed, TW_OBJ_SEM, 0, 2, 0, 0);
  assert_null(tw_rtos_obj(r->m, EP, TW_OBJ_SEM, 0)); /* a failed create names nothing */

  /* low blocks receiving from the empty queue: the running task did it */
  FEED(r, 10, TW_EV_TASK_SWITCH, 1);
  FEED(r, 11, TW_EV_QUEUE, 4, TW_QUEUE_BlockReceive, 0);
  const struct tw_rtos_task *low = task(r, 1);
  assert_int_equal(low->now.state, TW_RTOS_BLOCKED);
  assert_int_equal(low->now.wait, TW_RTOS_WAIT_OBJECT);
  assert_int_equal(low->now.wait_kind, TW_OBJ_QUEUE);
  assert_int_equal(low->now.wait_obj, 4);
  assert_true(obj(r, TW_OBJ_QUEUE, 4)->count_exact); /* a block says it is empty */
  FEED(r, 12, TW_EV_TASK_SWITCH, 3);
  /* an interrupt sends: no task did it; the kernel readies low */
  FEED(r, 20, TW_EV_TASK_SWITCH, ENTER);
  FEED(r, 21, TW_EV_QUEUE, 4, TW_QUEUE_SendFromISR, 0);
  assert_int_equal(obj(r, TW_OBJ_QUEUE, 4)->count, 1);
  FEED(r, 22, TW_EV_SEM_EXT, ENTER, 10, TW_SEM_EXT_TakeFromISR);
  assert_null(tw_rtos_task(r->m, EP, ENTER)); /* EnterInt is no task */
  assert_null(obj(r, TW_OBJ_SEM, 10)->holder);
  FEED(r, 23, TW_EV_TASK, 1, TW_TASK_Ready, 0);
  assert_int_equal(low->now.state, TW_RTOS_READY);
  assert_int_equal(obj(r, TW_OBJ_QUEUE, 4)->waiters, 0);
  FEED(r, 24, TW_EV_TASK_SWITCH, LEAVE);
  FEED(r, 25, TW_EV_TASK_SWITCH, 1);
  FEED(r, 26, TW_EV_QUEUE, 4, TW_QUEUE_Receive, 1);
  assert_int_equal(obj(r, TW_OBJ_QUEUE, 4)->count, 0);
  assert_false(obj(r, TW_OBJ_QUEUE, 4)->held); /* nobody holds a queue */
  /* a binary semaphore's holder is its taker */
  FEED(r, 27, TW_EV_SEM, 9, TW_SEM_Give);
  FEED(r, 28, TW_EV_SEM_TASK, 1, 9, TW_SEM_TASK_Take);
  assert_ptr_equal(obj(r, TW_OBJ_SEM, 9)->holder, low);
  /* delays, notifications, event groups, stream buffers */
  FEED(r, 30, TW_EV_TASK, 1, TW_TASK_Delay, 10);
  assert_int_equal(low->now.wait, TW_RTOS_WAIT_TIME);
  assert_int_equal(low->now.wait_value, 10);
  FEED(r, 31, TW_EV_TASK, 1, TW_TASK_Deadline, 40); /* says nothing new */
  assert_int_equal(low->now.wait, TW_RTOS_WAIT_TIME);
  FEED(r, 32, TW_EV_TASK_SWITCH, 3);
  FEED(r, 33, TW_EV_NOTIFY, 3, 0, TW_NOTIFY_TakeBlock, 0);
  assert_int_equal(task(r, 3)->now.wait, TW_RTOS_WAIT_NOTIFY);
  FEED(r, 34, TW_EV_TASK_SWITCH, 2);
  FEED(r, 35, TW_EV_NOTIFY, 3, 0, TW_NOTIFY_Notify, 1);
  assert_int_equal(task(r, 3)->now.state, TW_RTOS_READY); /* the notification released it */
  FEED(r, 36, TW_EV_NOTIFY, 1, 0, TW_NOTIFY_Notify, 1);
  assert_int_equal(low->now.wait, TW_RTOS_WAIT_TIME); /* it waits for time, not for that */
  FEED(r, 37, TW_EV_SBUF, 1, TW_SBUF_BlockReceive, 0);
  FEED(r, 38, TW_EV_NOTIFY, 2, 0, TW_NOTIFY_WaitBlock, 0);
  const struct tw_rtos_task *high = task(r, 2);
  assert_int_equal(high->now.wait, TW_RTOS_WAIT_OBJECT); /* still the buffer it waits on */
  assert_int_equal(high->now.wait_kind, TW_OBJ_SBUF);
  FEED(r, 39, TW_EV_TASK, 2, TW_TASK_Ready, 0);
  FEED(r, 40, TW_EV_TASK_SWITCH, 2);
  FEED(r, 41, TW_EV_EGROUP, 1, TW_EGROUP_WaitBlock, 1);
  assert_int_equal(high->now.wait, TW_RTOS_WAIT_CONDITION);
  assert_int_equal(high->now.wait_kind, TW_OBJ_EGROUP);
  /* suspension, priorities */
  FEED(r, 42, TW_EV_TASK, 3, TW_TASK_Suspend, 0);
  assert_int_equal(task(r, 3)->now.state, TW_RTOS_SUSPENDED);
  FEED(r, 43, TW_EV_TASK, 3, TW_TASK_Resume, 0);
  assert_int_equal(task(r, 3)->now.state, TW_RTOS_READY);
  FEED(r, 44, TW_EV_TASK, 1, TW_TASK_PriorityInherit, 7);
  assert_int_equal(low->prio, 7);
  assert_int_equal(low->base_prio, 1);
  FEED(r, 45, TW_EV_TASK, 1, TW_TASK_PriorityDisinherit, 1);
  assert_int_equal(low->prio, 1);
  FEED(r, 46, TW_EV_TASK, 3, TW_TASK_PrioritySet, 6);
  assert_int_equal(task(r, 3)->base_prio, 6);
  /* a deleted task stays deleted through a loss */
  object(r, 47, TW_OBJECT_Delete, TW_OBJ_TASK, 3, 0, 0, 0);
  assert_int_equal(task(r, 3)->now.state, TW_RTOS_DELETED);
  FEED(r, 48, TW_EV_DROPS, 5);
  assert_int_equal(task(r, 3)->now.state, TW_RTOS_DELETED);
  assert_int_equal(low->now.state, TW_RTOS_UNKNOWN);
  object(r, 49, TW_OBJECT_Delete, TW_OBJ_SEM, 9, 0, 0, 0);
  assert_null(obj(r, TW_OBJ_SEM, 9)->holder);
  rig_free(r);
}

/* An observer of some kinds of change only: it hears none of the others,
 * and with nobody asking for object changes the model keeps no object
 * bookkeeping, its state still right. */
static void test_observe_kinds(void **state)
{
  (void)state;
  struct tw_rtos *m;
  struct log all, some;
  memset(&all, 0, sizeof all);
  memset(&some, 0, sizeof some);
  assert_int_equal(tw_rtos_create(&m), 0);
  assert_int_equal(tw_rtos_observe_kinds(m, on_change, &some,
                                         TW_RTOS_CH_ALL & ~TW_RTOS_CH_BIT(TW_RTOS_CH_OBJ)), 0);
  struct rig r = {.m = m};
  feed(&r, 1, TW_EV_TASK_SWITCH, 1, 0, 0);
  feed(&r, 2, TW_EV_MUTEX, 1, 3, TW_MUTEX_Lock);
  size_t obj = 0, ev = 0;
  for (size_t i = 0; i < some.n; i++) {
    obj += some.ch[i].kind == TW_RTOS_CH_OBJ;
    ev += some.ch[i].kind == TW_RTOS_CH_EVENT;
  }
  assert_int_equal(obj, 0);
  assert_int_equal(ev, 2);
  assert_ptr_equal(tw_rtos_obj(m, EP, TW_OBJ_MUTEX, 3)->holder, tw_rtos_task(m, EP, 1));
  /* a second observer of everything: it gets the object changes, the first still not */
  assert_int_equal(tw_rtos_observe(m, on_change, &all), 0);
  feed(&r, 3, TW_EV_MUTEX, 1, 3, TW_MUTEX_Unlock);
  for (size_t i = 0; i < some.n; i++)
    assert_int_not_equal(some.ch[i].kind, TW_RTOS_CH_OBJ);
  obj = 0;
  for (size_t i = 0; i < all.n; i++)
    obj += all.ch[i].kind == TW_RTOS_CH_OBJ;
  assert_int_equal(obj, 1);
  assert_ptr_equal(all.ch[0].old_holder, tw_rtos_task(m, EP, 1));
  tw_rtos_unobserve(m, on_change, &all);
  size_t before = all.n;
  feed(&r, 4, TW_EV_MUTEX, 1, 3, TW_MUTEX_Lock);
  assert_int_equal(all.n, before);
  tw_rtos_destroy(m);
}

/* The meaning table is the generator's: every row resolves, and a value
 * without a row of its own falls to the event's catch-all. */
static void test_meaning_table(void **state)
{
  (void)state;
  const struct tw_meaning *m = tw_meaning_find(TW_EV_TASK_SWITCH, 5);
  assert_non_null(m);
  assert_int_equal(m->act, TW_ACT_RUN);
  m = tw_meaning_find(TW_EV_TASK_SWITCH, TW_TASK_SWITCH_EnterInt);
  assert_int_equal(m->act, TW_ACT_IRQ_ENTER);
  m = tw_meaning_find(TW_EV_MUTEX, 99);
  assert_null(m);
  m = tw_meaning_find(TW_EV_DROPS, 0);
  assert_int_equal(m->act, TW_ACT_LOSS);
  assert_true(m->value_field >= 0);
  assert_null(tw_meaning_find(TW_EV_SYNC, 0));
  for (size_t i = 0; i < tw_nmeanings; i++) {
    const struct tw_event_desc *d = tw_event_desc_by_id(tw_meanings[i].id);
    assert_non_null(d);
    assert_true(tw_meanings[i].task_field < (int)d->nfields);
    assert_true(tw_meanings[i].obj_field < (int)d->nfields);
    assert_true(i == 0 || tw_meanings[i - 1].id <= tw_meanings[i].id);
    assert_int_equal(tw_meanings[i].row, i);
    assert_non_null(tw_act_name(tw_meanings[i].act));
  }
  assert_string_equal(tw_obj_act_name(TW_OACT_GIVE_MANY), "give_many");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_switch_states),
    cmocka_unit_test(test_switch_after_loss_prio_stale),
    cmocka_unit_test(test_change_order),
    cmocka_unit_test(test_block_and_release),
    cmocka_unit_test(test_mutex),
    cmocka_unit_test(test_counts),
    cmocka_unit_test(test_loss_in_nested_interrupt),
    cmocka_unit_test(test_loss_in_mutex_hold),
    cmocka_unit_test(test_loss_in_sem_burst),
    cmocka_unit_test(test_transport_loss),
    cmocka_unit_test(test_smp),
    cmocka_unit_test(test_names),
    cmocka_unit_test(test_time),
    cmocka_unit_test(test_future_acts),
    cmocka_unit_test(test_freertos_events),
    cmocka_unit_test(test_observe_kinds),
    cmocka_unit_test(test_meaning_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
