/*
 * The seven kinds of synchronisation object of seed 002, with the events
 * the seed defines for them (docs/sim.md, "Object semantics", records the
 * choices the seed leaves open):
 *
 *   mutex    recursive; a blocked locker is handed the mutex on the last
 *            unlock (Lock is then emitted for the new owner). No priority
 *            inheritance, so the planted inversion is visible.
 *   sem      counting; give() hands the unit straight to the best waiter
 *            (Give, then ToTask); give_many(n) emits GiveMany, releases up
 *            to n waiters and, if it released any, one ToTaskList.
 *   event    a binary flag; trigger() releases one waiter (Trigger, ToTask)
 *            or sets the flag; wait() consumes it or blocks.
 *   msem     one count per input 1..N; take() serves inputs round robin and
 *            says which input (index); Block carries index 0.
 *   mevent   one flag per input 1..N, same shape as msem.
 *   asem     anti-semaphore: blocks while its count is > 0. add: Add; sub
 *            leaving it > 0: Sub; reaching 0: Release (all waiters go).
 *   rsem     resource semaphore of max units: take() takes a unit (Take or
 *            Block), give() returns one (Give, then ToTask if a taker was
 *            waiting), wait() waits until all units are back (Pass or Wait;
 *            released wait()ers also get ToTask).
 *
 * Waiters are served highest priority first, FIFO among equals.
 * Operations from a task charge op_cost of virtual time after emitting;
 * ISR operations are charged as part of the ISR.
 */
#include "sim_internal.h"
#include "tracewire/error.h"

#define NO_OWNER 0xFFFFu

static int add_obj(uint8_t *used, const char **name_slot, const char *name)
{
  if (!name)
    return TW_EINVAL;
  if (*used)
    return 0;
  *used = 1;
  *name_slot = name;
  return 1;
}

/* Find a free slot in an array of objects with `used` and `name` members. */
#define CREATE(arr, nm, init)                                     \
  do {                                                            \
    for (unsigned i_ = 0; i_ < TW_SIM_MAX_OBJS; i_++) {           \
      int r_ = add_obj(&(arr)[i_].used, &(arr)[i_].name, (nm));   \
      if (r_ < 0)                                                 \
        return r_;                                                \
      if (r_ > 0) {                                               \
        init;                                                     \
        return (int)i_;                                           \
      }                                                           \
    }                                                             \
    return TW_ENOSPC;                                             \
  } while (0)

int tw_sim_mutex_create(struct tw_sim *s, const char *name)
{
  CREATE(s->mutex, name, s->mutex[i_].owner = NO_OWNER);
}
int tw_sim_sem_create(struct tw_sim *s, const char *name, uint32_t count)
{
  CREATE(s->sem, name, s->sem[i_].count = count);
}
int tw_sim_event_create(struct tw_sim *s, const char *name)
{
  CREATE(s->event, name, (void)0);
}
int tw_sim_msem_create(struct tw_sim *s, const char *name, unsigned ninputs)
{
  if (ninputs == 0 || ninputs > TW_SIM_MAX_INPUTS)
    return TW_EINVAL;
  CREATE(s->msem, name, (s->msem[i_].ninputs = (uint8_t)ninputs, s->msem[i_].next = 1));
}
int tw_sim_mevent_create(struct tw_sim *s, const char *name, unsigned ninputs)
{
  if (ninputs == 0 || ninputs > TW_SIM_MAX_INPUTS)
    return TW_EINVAL;
  CREATE(s->mevent, name, (s->mevent[i_].ninputs = (uint8_t)ninputs, s->mevent[i_].next = 1));
}
int tw_sim_asem_create(struct tw_sim *s, const char *name)
{
  CREATE(s->asem, name, (void)0);
}
int tw_sim_rsem_create(struct tw_sim *s, const char *name, uint32_t count)
{
  if (count == 0)
    return TW_EINVAL;
  CREATE(s->rsem, name, (s->rsem[i_].count = count, s->rsem[i_].max = count));
}

/* ---- mutex ---------------------------------------------------------------- */

int tw_sim_mutex_lock(struct tw_sim *s, unsigned m)
{
  struct tw_sim_mutex *mx = &s->mutex[m];
  uint16_t t = s->current;
  int done = 1;
  if (mx->owner == NO_OWNER) {
    mx->owner = t;
    mx->count = 1;
    tw__sim_emit(s, TW_SIM_EV_MUTEX, 3, t, m, TW_SIM_MUTEX_LOCK, 0);
  } else if (mx->owner == t) {
    mx->count++;
    tw__sim_emit(s, TW_SIM_EV_MUTEX, 3, t, m, TW_SIM_MUTEX_INCLOCK, 0);
  } else {
    tw__sim_emit(s, TW_SIM_EV_MUTEX, 3, t, m, TW_SIM_MUTEX_BLOCK, 0);
    tw__sim_block(s, TW_SIM_W_MUTEX, m);
    done = 0;
  }
  tw__sim_charge(s, s->op_cost);
  return done;
}

int tw_sim_mutex_unlock(struct tw_sim *s, unsigned m)
{
  struct tw_sim_mutex *mx = &s->mutex[m];
  uint16_t t = s->current;
  if (s->in_isr || mx->owner != t)
    return TW_EINVAL;
  if (mx->count > 1) {
    mx->count--;
    tw__sim_emit(s, TW_SIM_EV_MUTEX, 3, t, m, TW_SIM_MUTEX_DECLOCK, 0);
  } else {
    tw__sim_emit(s, TW_SIM_EV_MUTEX, 3, t, m, TW_SIM_MUTEX_UNLOCK, 0);
    int w = tw__sim_waiter(s, TW_SIM_W_MUTEX, m);
    if (w >= 0) {
      mx->owner = (uint16_t)w;
      mx->count = 1;
      tw__sim_emit(s, TW_SIM_EV_MUTEX, 3, (uint32_t)w, m, TW_SIM_MUTEX_LOCK, 0);
      tw__sim_ready(s, (unsigned)w);
    } else {
      mx->owner = NO_OWNER;
      mx->count = 0;
    }
  }
  tw__sim_charge(s, s->op_cost);
  return 0;
}

/* ---- semaphore -------------------------------------------------------------- */

void tw_sim_sem_give(struct tw_sim *s, unsigned sem)
{
  tw__sim_emit(s, TW_SIM_EV_SEM, 2, sem, TW_SIM_SEM_GIVE, 0, 0);
  int w = tw__sim_waiter(s, TW_SIM_W_SEM, sem);
  if (w >= 0) {
    tw__sim_emit(s, TW_SIM_EV_SEM_TASK, 3, (uint32_t)w, sem, TW_SIM_SEMT_TOTASK, 0);
    tw__sim_ready(s, (unsigned)w);
  } else {
    s->sem[sem].count++;
  }
  tw__sim_charge(s, s->op_cost);
}

void tw_sim_sem_give_many(struct tw_sim *s, unsigned sem, uint32_t n)
{
  uint32_t released = 0;
  tw__sim_emit(s, TW_SIM_EV_SEM, 2, sem, TW_SIM_SEM_GIVEMANY, 0, 0);
  for (; n > 0; n--) {
    int w = tw__sim_waiter(s, TW_SIM_W_SEM, sem);
    if (w < 0)
      break;
    tw__sim_ready(s, (unsigned)w);
    released++;
  }
  s->sem[sem].count += n;
  if (released)
    tw__sim_emit(s, TW_SIM_EV_SEM, 2, sem, TW_SIM_SEM_TOTASKLIST, 0, 0);
  tw__sim_charge(s, s->op_cost);
}

int tw_sim_sem_take(struct tw_sim *s, unsigned sem)
{
  uint16_t t = s->current;
  int done = 1;
  if (s->sem[sem].count > 0) {
    s->sem[sem].count--;
    tw__sim_emit(s, TW_SIM_EV_SEM_TASK, 3, t, sem, TW_SIM_SEMT_TAKE, 0);
  } else {
    tw__sim_emit(s, TW_SIM_EV_SEM_TASK, 3, t, sem, TW_SIM_SEMT_BLOCK, 0);
    tw__sim_block(s, TW_SIM_W_SEM, sem);
    done = 0;
  }
  tw__sim_charge(s, s->op_cost);
  return done;
}

/* ---- event ------------------------------------------------------------------ */

void tw_sim_event_trigger(struct tw_sim *s, unsigned ev)
{
  tw__sim_emit(s, TW_SIM_EV_EVENT, 2, ev, TW_SIM_EVENT_TRIGGER, 0, 0);
  int w = tw__sim_waiter(s, TW_SIM_W_EVENT, ev);
  if (w >= 0) {
    tw__sim_emit(s, TW_SIM_EV_EVENT_TASK, 3, (uint32_t)w, ev, TW_SIM_EVENTT_TOTASK, 0);
    tw__sim_ready(s, (unsigned)w);
  } else {
    s->event[ev].flag = 1;
  }
  tw__sim_charge(s, s->op_cost);
}

int tw_sim_event_wait(struct tw_sim *s, unsigned ev)
{
  uint16_t t = s->current;
  int done = 1;
  if (s->event[ev].flag) {
    s->event[ev].flag = 0;
    tw__sim_emit(s, TW_SIM_EV_EVENT_TASK, 3, t, ev, TW_SIM_EVENTT_CONSUME, 0);
  } else {
    tw__sim_emit(s, TW_SIM_EV_EVENT_TASK, 3, t, ev, TW_SIM_EVENTT_BLOCK, 0);
    tw__sim_block(s, TW_SIM_W_EVENT, ev);
    done = 0;
  }
  tw__sim_charge(s, s->op_cost);
  return done;
}

/* ---- multi-semaphore ---------------------------------------------------------- */

void tw_sim_msem_give(struct tw_sim *s, unsigned ms, unsigned index)
{
  struct tw_sim_msem *o = &s->msem[ms];
  if (index == 0 || index > o->ninputs)
    return;
  tw__sim_emit(s, TW_SIM_EV_MULTI_SEM, 3, ms, TW_SIM_MSEM_GIVE, index, 0);
  int w = tw__sim_waiter(s, TW_SIM_W_MSEM, ms);
  if (w >= 0) {
    s->tasks[w].got_index = (uint8_t)index;
    tw__sim_emit(s, TW_SIM_EV_MULTI_SEM_TASK, 4, (uint32_t)w, ms, TW_SIM_MSEMT_TOTASK, index);
    tw__sim_ready(s, (unsigned)w);
  } else {
    o->count[index]++;
  }
  tw__sim_charge(s, s->op_cost);
}

/* The first input at or after `next` (round robin) whose bit/count is set. */
static unsigned rr_find(unsigned ninputs, unsigned next, const uint32_t *count, uint32_t flags)
{
  for (unsigned k = 0; k < ninputs; k++) {
    unsigned i = (next - 1u + k) % ninputs + 1u;
    if (count ? count[i] > 0 : (flags >> i) & 1u)
      return i;
  }
  return 0;
}

int tw_sim_msem_take(struct tw_sim *s, unsigned ms)
{
  struct tw_sim_msem *o = &s->msem[ms];
  struct tw_sim_task *t = &s->tasks[s->current];
  unsigned i = rr_find(o->ninputs, o->next, o->count, 0);
  int done = 1;
  if (i) {
    o->count[i]--;
    o->next = (uint8_t)(i % o->ninputs + 1u);
    t->got_index = (uint8_t)i;
    tw__sim_emit(s, TW_SIM_EV_MULTI_SEM_TASK, 4, s->current, ms, TW_SIM_MSEMT_TAKE, i);
  } else {
    t->got_index = 0;
    tw__sim_emit(s, TW_SIM_EV_MULTI_SEM_TASK, 4, s->current, ms, TW_SIM_MSEMT_BLOCK, 0);
    tw__sim_block(s, TW_SIM_W_MSEM, ms);
    done = 0;
  }
  tw__sim_charge(s, s->op_cost);
  return done;
}

/* ---- multi-event ------------------------------------------------------------- */

void tw_sim_mevent_trigger(struct tw_sim *s, unsigned me, unsigned index)
{
  struct tw_sim_mevent *o = &s->mevent[me];
  if (index == 0 || index > o->ninputs)
    return;
  tw__sim_emit(s, TW_SIM_EV_MULTI_EVENT, 3, me, TW_SIM_MEVENT_TRIGGER, index, 0);
  int w = tw__sim_waiter(s, TW_SIM_W_MEVENT, me);
  if (w >= 0) {
    s->tasks[w].got_index = (uint8_t)index;
    tw__sim_emit(s, TW_SIM_EV_MULTI_EVENT_TASK, 4, (uint32_t)w, me, TW_SIM_MEVENTT_TOTASK,
                 index);
    tw__sim_ready(s, (unsigned)w);
  } else {
    o->flags |= 1u << index;
  }
  tw__sim_charge(s, s->op_cost);
}

int tw_sim_mevent_wait(struct tw_sim *s, unsigned me)
{
  struct tw_sim_mevent *o = &s->mevent[me];
  struct tw_sim_task *t = &s->tasks[s->current];
  unsigned i = rr_find(o->ninputs, o->next, 0, o->flags);
  int done = 1;
  if (i) {
    o->flags &= ~(1u << i);
    o->next = (uint8_t)(i % o->ninputs + 1u);
    t->got_index = (uint8_t)i;
    tw__sim_emit(s, TW_SIM_EV_MULTI_EVENT_TASK, 4, s->current, me, TW_SIM_MEVENTT_CONSUME, i);
  } else {
    t->got_index = 0;
    tw__sim_emit(s, TW_SIM_EV_MULTI_EVENT_TASK, 4, s->current, me, TW_SIM_MEVENTT_BLOCK, 0);
    tw__sim_block(s, TW_SIM_W_MEVENT, me);
    done = 0;
  }
  tw__sim_charge(s, s->op_cost);
  return done;
}

/* ---- anti-semaphore ------------------------------------------------------------ */

void tw_sim_asem_add(struct tw_sim *s, unsigned as, uint32_t n)
{
  s->asem[as].count += n;
  tw__sim_emit(s, TW_SIM_EV_ANTI_SEM, 2, as, TW_SIM_ASEM_ADD, 0, 0);
  tw__sim_charge(s, s->op_cost);
}

void tw_sim_asem_sub(struct tw_sim *s, unsigned as, uint32_t n)
{
  struct tw_sim_asem *o = &s->asem[as];
  if (n < o->count) {
    o->count -= n;
    tw__sim_emit(s, TW_SIM_EV_ANTI_SEM, 2, as, TW_SIM_ASEM_SUB, 0, 0);
  } else {
    o->count = 0;
    tw__sim_emit(s, TW_SIM_EV_ANTI_SEM, 2, as, TW_SIM_ASEM_RELEASE, 0, 0);
    for (int w; (w = tw__sim_waiter(s, TW_SIM_W_ASEM, as)) >= 0;)
      tw__sim_ready(s, (unsigned)w);
  }
  tw__sim_charge(s, s->op_cost);
}

int tw_sim_asem_wait(struct tw_sim *s, unsigned as)
{
  int done = 1;
  if (s->asem[as].count > 0) {
    tw__sim_emit(s, TW_SIM_EV_ANTI_SEM_TASK, 3, s->current, as, TW_SIM_ASEMT_WAIT, 0);
    tw__sim_block(s, TW_SIM_W_ASEM, as);
    done = 0;
  } else {
    tw__sim_emit(s, TW_SIM_EV_ANTI_SEM_TASK, 3, s->current, as, TW_SIM_ASEMT_PASS, 0);
  }
  tw__sim_charge(s, s->op_cost);
  return done;
}

/* ---- res-semaphore --------------------------------------------------------------- */

void tw_sim_rsem_give(struct tw_sim *s, unsigned rs)
{
  struct tw_sim_rsem *o = &s->rsem[rs];
  tw__sim_emit(s, TW_SIM_EV_RES_SEM, 2, rs, TW_SIM_RSEM_GIVE, 0, 0);
  int w = tw__sim_waiter(s, TW_SIM_W_RSEM_TAKE, rs);
  if (w >= 0) {
    tw__sim_emit(s, TW_SIM_EV_RES_SEM_TASK, 3, (uint32_t)w, rs, TW_SIM_RSEMT_TOTASK, 0);
    tw__sim_ready(s, (unsigned)w);
  } else {
    if (o->count < o->max)
      o->count++;
    if (o->count == o->max)
      for (; (w = tw__sim_waiter(s, TW_SIM_W_RSEM_WAIT, rs)) >= 0;) {
        tw__sim_emit(s, TW_SIM_EV_RES_SEM_TASK, 3, (uint32_t)w, rs, TW_SIM_RSEMT_TOTASK, 0);
        tw__sim_ready(s, (unsigned)w);
      }
  }
  tw__sim_charge(s, s->op_cost);
}

int tw_sim_rsem_take(struct tw_sim *s, unsigned rs)
{
  int done = 1;
  if (s->rsem[rs].count > 0) {
    s->rsem[rs].count--;
    tw__sim_emit(s, TW_SIM_EV_RES_SEM_TASK, 3, s->current, rs, TW_SIM_RSEMT_TAKE, 0);
  } else {
    tw__sim_emit(s, TW_SIM_EV_RES_SEM_TASK, 3, s->current, rs, TW_SIM_RSEMT_BLOCK, 0);
    tw__sim_block(s, TW_SIM_W_RSEM_TAKE, rs);
    done = 0;
  }
  tw__sim_charge(s, s->op_cost);
  return done;
}

int tw_sim_rsem_wait(struct tw_sim *s, unsigned rs)
{
  int done = 1;
  if (s->rsem[rs].count == s->rsem[rs].max) {
    tw__sim_emit(s, TW_SIM_EV_RES_SEM_TASK, 3, s->current, rs, TW_SIM_RSEMT_PASS, 0);
  } else {
    tw__sim_emit(s, TW_SIM_EV_RES_SEM_TASK, 3, s->current, rs, TW_SIM_RSEMT_WAIT, 0);
    tw__sim_block(s, TW_SIM_W_RSEM_WAIT, rs);
    done = 0;
  }
  tw__sim_charge(s, s->op_cost);
  return done;
}
