/*
 * The state behind the dump_state sources (TASKS, MUTEXES, SEMAPHORES) and
 * TraceContext's names: the RTOS state model (tracewire/model/rtos.h,
 * docs/model.md), which the system feeds and observes. Nothing here knows
 * what an event means; the model does.
 *
 * Tasks and objects belong to the endpoint. A component reports the
 * endpoint's tasks that last ran on its core; tasks that never ran and the
 * endpoint's objects are reported by the endpoint's first component (the
 * first added), so nothing is reported twice.
 */
#include <stdlib.h>
#include <string.h>
#include "model/mti_internal.h"
#include "tracewire/error.h"

#define NO_TASK 0xFFFFu

bool tw__mti_spec_names(const struct tw_event_desc *d)
{
  const struct tw_meaning *m = d->module == TW_MOD_CUSTOM ? NULL : tw_meaning_find(d->id, 0);
  return m && m->act == TW_ACT_NAME;
}

static struct mti_component *first_of(const struct tw_mti_system *sys, uint16_t endpoint)
{
  for (int i = 0; i < sys->ncomps; i++)
    if (sys->comps[i]->endpoint == endpoint)
      return sys->comps[i];
  return NULL;
}

static struct mti_component *comp_of_core(const struct tw_mti_system *sys, int core)
{
  const struct tw_rtos_core *mc = core >= 0 ? tw_rtos_core_at(sys->model, (size_t)core) : NULL;
  return mc && mc->stream < sys->nby_stream ? sys->by_stream[mc->stream] : NULL;
}

/* The component that reports task t. */
static struct mti_component *comp_of_task(const struct tw_mti_system *sys,
                                          const struct tw_rtos_task *t)
{
  struct mti_component *c = comp_of_core(sys, t->core);
  return c ? c : first_of(sys, t->endpoint);
}

/* ---- records of the dump sources ----------------------------------------------------- */

static void set_name(struct tw__mti_val *v, const char *s)
{
  v->s = s ? s : "";
  v->len = s ? strlen(s) : 0;
}

static void task_vals(const struct tw_rtos_task *t, struct tw__mti_val *v)
{
  int blocked_on = t->now.state == TW_RTOS_BLOCKED && (t->now.wait == TW_RTOS_WAIT_OBJECT ||
                                                       t->now.wait == TW_RTOS_WAIT_CONDITION);
  memset(v, 0, 6 * sizeof *v);
  v[0].u = t->number;
  set_name(&v[1], t->name);
  v[2].u = t->now.state;
  v[3].u = t->prio >= 0 ? (uint64_t)t->prio : 0;
  v[4].u = blocked_on ? t->now.wait_kind : 0;
  v[5].u = blocked_on ? t->now.wait_obj : 0;
}

static void mutex_vals(const struct tw_rtos_obj *o, struct tw__mti_val *v)
{
  memset(v, 0, 6 * sizeof *v);
  v[0].u = o->number;
  set_name(&v[1], o->name);
  v[2].u = o->holder_known && o->holder ? o->holder->number : NO_TASK;
  v[3].u = o->held;
  v[4].u = o->depth;
  v[5].u = o->holder_known;
}

static void sem_vals(const struct tw_rtos_obj *o, struct tw__mti_val *v)
{
  memset(v, 0, 4 * sizeof *v);
  v[0].u = o->number;
  set_name(&v[1], o->name);
  v[2].u = (uint64_t)(int64_t)(o->count > INT32_MAX ? INT32_MAX : o->count);
  v[3].u = o->count_exact;
}

static void emit_task(const struct tw_mti_system *sys, const struct tw_rtos_task *t)
{
  struct mti_component *c = comp_of_task(sys, t);
  struct tw__mti_val v[6];
  if (!c || !c->tasks_src->hot)
    return;
  task_vals(t, v);
  tw__mti_source_emit(c->tasks_src, v);
}

static void emit_obj(const struct tw_mti_system *sys, const struct tw_rtos_obj *o)
{
  struct mti_component *c = first_of(sys, o->endpoint);
  struct tw__mti_val v[6];
  if (!c)
    return;
  if (o->kind == TW_OBJ_MUTEX && c->mutexes_src->hot) {
    mutex_vals(o, v);
    tw__mti_source_emit(c->mutexes_src, v);
  } else if (o->kind == TW_OBJ_SEM && c->sems_src->hot) {
    sem_vals(o, v);
    tw__mti_source_emit(c->sems_src, v);
  }
}

/* Changes become records of the dump sources, delivered before the
 * event's own callbacks (tw_mti_system_feed). */
static void on_change(void *ctx, const struct tw_rtos_change *ch)
{
  const struct tw_mti_system *sys = ctx;
  switch (ch->kind) {
  case TW_RTOS_CH_TASK:
  case TW_RTOS_CH_PRIO:
    emit_task(sys, ch->task);
    break;
  case TW_RTOS_CH_NAME:
    if (ch->task)
      emit_task(sys, ch->task);
    break;
  case TW_RTOS_CH_OBJ:
    emit_obj(sys, ch->obj);
    break;
  default:
    break;
  }
}

/* ---- the model -------------------------------------------------------------------- */

int tw__mti_state_init(struct tw_mti_system *sys)
{
  return tw_rtos_create(&sys->model);
}

/* The model's changes are observed only while a dump source listens: an
 * observer nobody needs would cost a call per change. */
void tw__mti_state_listen(struct tw_mti_system *sys)
{
  if (sys->dump_hot && !sys->listening)
    sys->listening = tw_rtos_observe(sys->model, on_change, sys) == 0;
  else if (!sys->dump_hot && sys->listening) {
    tw_rtos_unobserve(sys->model, on_change, sys);
    sys->listening = false;
  }
}

void tw__mti_state_update(struct mti_component *c, const struct tw_event *ev)
{
  if (tw_rtos_feed(c->sys->model, ev) == TW_ENOMEM)
    c->sys->model_oom++;
}

void tw__mti_track_all(struct tw_mti_system *sys)
{
  if (sys->track_all)
    return;
  sys->track_all = true;
  for (int i = 0; i < sys->ncomps; i++)
    for (int k = 0; k < sys->comps[i]->nsources; k++)
      tw__mti_flags_update(sys->comps[i]->sources[k]);
}

/* ---- DumpState ----------------------------------------------------------------------- */

static int reports_task(const struct tw_mti_system *sys, const struct mti_component *c,
                        const struct tw_rtos_task *t)
{
  return t->endpoint == c->endpoint && comp_of_task(sys, t) == c;
}

MTI_Status tw__mti_state_dump(struct mti_class *cls, MTI_CallbackT cb, void *user)
{
  struct mti_source *src = cls->src;
  struct mti_component *c = src->comp;
  const struct tw_mti_system *sys = c->sys;
  const struct tw_rtos *m = sys->model;
  struct tw__mti_val v[6];
  int first = first_of(sys, c->endpoint) == c;
  /* Own buffer: DumpState may run inside a callback of this very source. */
  uint8_t *rec = aligned_alloc(8, (src->spec->layout_size + 7) & ~(size_t)7);
  if (!rec)
    return MTI_ERROR;
  memset(rec, 0, src->spec->layout_size);
  ((MTI_EventRecord *)(void *)rec)->event_class_id = cls->id;
  if (src == c->tasks_src) {
    for (size_t i = 0; i < tw_rtos_ntasks(m); i++) {
      const struct tw_rtos_task *t = tw_rtos_task_at(m, i);
      if (!reports_task(sys, c, t))
        continue;
      task_vals(t, v);
      tw__mti_record_fill_given(src, rec, v);
      cb(user, &cls->base, (const MTI_EventRecord *)(void *)rec);
    }
  } else {
    for (size_t i = 0; first && i < tw_rtos_nobjs(m); i++) {
      const struct tw_rtos_obj *o = tw_rtos_obj_at(m, i);
      if (o->endpoint != c->endpoint)
        continue;
      if (src == c->mutexes_src && o->kind == TW_OBJ_MUTEX && o->held)
        mutex_vals(o, v);
      else if (src == c->sems_src && o->kind == TW_OBJ_SEM)
        sem_vals(o, v);
      else
        continue;
      tw__mti_record_fill_given(src, rec, v);
      cb(user, &cls->base, (const MTI_EventRecord *)(void *)rec);
    }
  }
  free(rec);
  return MTI_OK;
}
