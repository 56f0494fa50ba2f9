/*
 * The model state behind the dump_state sources (TASKS, MUTEXES,
 * SEMAPHORES) and the object names from NAME events.
 *
 * State is per component (one RTOS per core); names are per endpoint.
 * Objects are indexed by their number (u16 on the wire), so each table
 * grows to the largest number seen; lookups on the hot path are array
 * reads. The transition rules are in docs/mti.md; markers come from the
 * vocabulary, so a new blocking event needs no code here.
 */
#include <stdlib.h>
#include <string.h>
#include "model/mti_internal.h"
#include "tracewire/error.h"

#define NO_TASK 0xFFFFu

/* ---- names ------------------------------------------------------------------------ */

static size_t name_hash(uint16_t endpoint, int kind, uint32_t number)
{
  uint64_t h = ((uint64_t)endpoint << 40) ^ ((uint64_t)(unsigned)kind << 32) ^ number;
  h *= 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 20);
}

static struct mti_name *name_slot(const struct tw_mti_system *sys, uint16_t endpoint, int kind,
                                  uint32_t number)
{
  size_t mask = sys->names_cap - 1;
  for (size_t i = name_hash(endpoint, kind, number) & mask;; i = (i + 1) & mask) {
    struct mti_name *n = &sys->names[i];
    if (!n->name || (n->endpoint == endpoint && n->kind == kind && n->number == number))
      return n;
  }
}

const char *tw__mti_name_lookup(const struct tw_mti_system *sys, uint16_t endpoint, int kind,
                                uint32_t number)
{
  if (!sys->names_cap)
    return NULL;
  return name_slot(sys, endpoint, kind, number)->name;
}

static int names_grow(struct tw_mti_system *sys)
{
  size_t cap = sys->names_cap ? sys->names_cap * 2 : 64;
  struct mti_name *old = sys->names, *nn = calloc(cap, sizeof *nn);
  size_t oldcap = sys->names_cap;
  if (!nn)
    return TW_ENOMEM;
  sys->names = nn;
  sys->names_cap = cap;
  for (size_t i = 0; i < oldcap; i++)
    if (old[i].name)
      *name_slot(sys, old[i].endpoint, old[i].kind, old[i].number) = old[i];
  free(old);
  return 0;
}

int tw__mti_name_set(struct tw_mti_system *sys, uint16_t endpoint, int kind, uint32_t number,
                     const char *name, size_t len)
{
  struct mti_name *n;
  char *copy;
  if ((sys->names_used + 1) * 2 > sys->names_cap && names_grow(sys) < 0)
    return TW_ENOMEM;
  if (!(copy = malloc(len + 1)))
    return TW_ENOMEM;
  memcpy(copy, name, len);
  copy[len] = 0;
  n = name_slot(sys, endpoint, kind, number);
  if (n->name) {
    char **old;
    if (strcmp(n->name, copy) == 0) {
      free(copy);
      return 0;
    }
    /* A renamed (reused) object: plugins may still hold the old string,
     * which lives as long as the simulation. */
    if (!(old = realloc(sys->old_names, (sys->nold_names + 1) * sizeof *old))) {
      free(copy);
      return TW_ENOMEM;
    }
    sys->old_names = old;
    old[sys->nold_names++] = n->name;
    n->name = copy;
    return 0;
  }
  n->endpoint = endpoint;
  n->kind = (uint8_t)kind;
  n->number = number;
  n->name = copy;
  sys->names_used++;
  return 0;
}

void tw__mti_names_free(struct tw_mti_system *sys)
{
  for (size_t i = 0; i < sys->names_cap; i++)
    free(sys->names[i].name);
  free(sys->names);
  for (size_t i = 0; i < sys->nold_names; i++)
    free(sys->old_names[i]);
  free(sys->old_names);
}

/* ---- object tables ------------------------------------------------------------------- */

static void *grow_to(void *arr, size_t *n, size_t want, size_t elem)
{
  size_t cap = *n;
  uint8_t *a;
  if (want < cap)
    return arr;
  while (cap <= want)
    cap = cap ? cap * 2 : 16;
  if (!(a = realloc(arr, cap * elem)))
    return NULL;
  memset(a + *n * elem, 0, (cap - *n) * elem);
  *n = cap;
  return a;
}

static struct mti_task *task_grow(struct mti_component *c, uint32_t t)
{
  struct mti_task *a;
  if (t >= NO_TASK - 1) /* EnterInt / LeaveInt, not tasks */
    return NULL;
  if (!(a = grow_to(c->tasks, &c->ntasks, t, sizeof *a)))
    return NULL;
  c->tasks = a;
  return &a[t];
}

static inline struct mti_task *task_at(struct mti_component *c, uint32_t t)
{
  if (t >= NO_TASK - 1)
    return NULL;
  return t < c->ntasks ? &c->tasks[t] : task_grow(c, t);
}

static struct mti_mutex *mutex_at(struct mti_component *c, uint32_t m)
{
  struct mti_mutex *a = m < c->nmutexes ? c->mutexes
                                        : grow_to(c->mutexes, &c->nmutexes, m, sizeof *a);
  if (!a)
    return NULL;
  c->mutexes = a;
  if (!a[m].known) {
    a[m].known = 1;
    a[m].owner = NO_TASK;
  }
  return &a[m];
}

static struct mti_sem *sem_at(struct mti_component *c, uint32_t s)
{
  struct mti_sem *a = s < c->nsems ? c->sems : grow_to(c->sems, &c->nsems, s, sizeof *a);
  if (!a)
    return NULL;
  c->sems = a;
  if (!a[s].known) {
    a[s].known = 1;
    a[s].exact = 1;
  }
  return &a[s];
}

void tw__mti_state_free(struct mti_component *c)
{
  free(c->tasks);
  free(c->mutexes);
  free(c->sems);
}

/* ---- records of the dump sources ----------------------------------------------------- */

static const char *name_of(const struct mti_component *c, enum tw_obj_kind k, uint32_t n,
                           size_t *len)
{
  const char *s = tw__mti_name_lookup(c->sys, c->endpoint, k, n);
  *len = s ? strlen(s) : 0;
  return s ? s : "";
}

static void task_vals(const struct mti_component *c, uint32_t t, struct tw__mti_val *v)
{
  memset(v, 0, 4 * sizeof *v);
  v[0].u = t;
  v[1].s = name_of(c, TW_OBJ_TASK, t, &v[1].len);
  v[2].u = c->tasks[t].state;
  v[3].u = c->tasks[t].prio;
}

static void mutex_vals(const struct mti_component *c, uint32_t m, struct tw__mti_val *v)
{
  const struct mti_mutex *x = &c->mutexes[m];
  memset(v, 0, 5 * sizeof *v);
  v[0].u = m;
  v[1].s = name_of(c, TW_OBJ_MUTEX, m, &v[1].len);
  v[2].u = x->owner;
  v[3].u = x->held;
  v[4].u = x->lock_count;
}

static void sem_vals(const struct mti_component *c, uint32_t s, struct tw__mti_val *v)
{
  const struct mti_sem *x = &c->sems[s];
  memset(v, 0, 4 * sizeof *v);
  v[0].u = s;
  v[1].s = name_of(c, TW_OBJ_SEM, s, &v[1].len);
  v[2].u = (uint64_t)(int64_t)x->count;
  v[3].u = x->exact;
}

static void emit_task(struct mti_component *c, uint32_t t)
{
  struct tw__mti_val v[4];
  if (!c->tasks_src->hot)
    return;
  task_vals(c, t, v);
  tw__mti_source_emit(c->tasks_src, v);
}

static void emit_mutex(struct mti_component *c, uint32_t m)
{
  struct tw__mti_val v[5];
  if (!c->mutexes_src->hot)
    return;
  mutex_vals(c, m, v);
  tw__mti_source_emit(c->mutexes_src, v);
}

static void emit_sem(struct mti_component *c, uint32_t s)
{
  struct tw__mti_val v[4];
  if (!c->sems_src->hot)
    return;
  sem_vals(c, s, v);
  tw__mti_source_emit(c->sems_src, v);
}

static void set_task(struct mti_component *c, uint32_t t, uint8_t state)
{
  struct mti_task *x = task_at(c, t);
  if (!x || (x->known && x->state == state))
    return;
  x->known = 1;
  x->state = state;
  emit_task(c, t);
}

MTI_Status tw__mti_state_dump(struct mti_class *cls, MTI_CallbackT cb, void *user)
{
  struct mti_source *src = cls->src;
  struct mti_component *c = src->comp;
  struct tw__mti_val v[5];
  /* Own buffer: DumpState may run inside a callback of this very source. */
  uint8_t *rec = aligned_alloc(8, src->spec->layout_size);
  if (!rec)
    return MTI_ERROR;
  memset(rec, 0, src->spec->layout_size);
  ((MTI_EventRecord *)(void *)rec)->event_class_id = cls->id;
  for (size_t i = 0;; i++) {
    if (src == c->tasks_src && i < c->ntasks) {
      if (!c->tasks[i].known)
        continue;
      task_vals(c, (uint32_t)i, v);
    } else if (src == c->mutexes_src && i < c->nmutexes) {
      if (!c->mutexes[i].known || !c->mutexes[i].held)
        continue;
      mutex_vals(c, (uint32_t)i, v);
    } else if (src == c->sems_src && i < c->nsems) {
      if (!c->sems[i].known)
        continue;
      sem_vals(c, (uint32_t)i, v);
    } else {
      break;
    }
    tw__mti_record_fill_given(src, rec, v);
    cb(user, &cls->base, (const MTI_EventRecord *)(void *)rec);
  }
  free(rec);
  return MTI_OK;
}

/* ---- transitions ------------------------------------------------------------------------ */

enum { ACT_NONE, ACT_LOCK, ACT_UNLOCK, ACT_INCLOCK, ACT_DECLOCK, ACT_GIVE, ACT_TAKE, ACT_INEXACT };
enum { TACT_NONE, TACT_BLOCK, TACT_READY };

static uint8_t obj_action(enum mti_role role, const char *n)
{
  static const struct { enum mti_role role; const char *name; uint8_t act; } map[] = {
    {MTI_ROLE_MUTEX, "Lock", ACT_LOCK},       {MTI_ROLE_MUTEX, "Unlock", ACT_UNLOCK},
    {MTI_ROLE_MUTEX, "IncLock", ACT_INCLOCK}, {MTI_ROLE_MUTEX, "DecLock", ACT_DECLOCK},
    {MTI_ROLE_SEM, "Give", ACT_GIVE},         {MTI_ROLE_SEM, "GiveMany", ACT_INEXACT},
    {MTI_ROLE_SEM, "ToTaskList", ACT_INEXACT}, {MTI_ROLE_SEM_TASK, "Take", ACT_TAKE},
    {MTI_ROLE_SEM_TASK, "ToTask", ACT_TAKE}, /* the give went straight to the task */
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (map[i].role == role && strcmp(map[i].name, n) == 0)
      return map[i].act;
  return ACT_NONE;
}

static uint8_t task_action(enum tw_marker m)
{
  switch (m) {
  case TW_MARKER_UP_BLOCK:
  case TW_MARKER_DOWN_BLOCK:
  case TW_MARKER_WAIT:
    return TACT_BLOCK;
  case TW_MARKER_UP_PUSH:
    return TACT_READY;
  default:
    return TACT_NONE;
  }
}

void tw__mti_spec_actions(struct tw__mti_source_spec *spec)
{
  const struct tw__mti_field_spec *f =
      spec->marker_field >= 0 ? &spec->fields[spec->marker_field] : NULL;
  memset(spec->enum_of_value, 0xff, sizeof spec->enum_of_value);
  for (uint32_t i = 0; f && i < f->nenums && i < 256; i++) {
    if (f->enums[i].value < sizeof spec->enum_of_value && spec->enum_of_value[f->enums[i].value] < 0)
      spec->enum_of_value[f->enums[i].value] = (int8_t)i;
    spec->obj_act[i] = obj_action(spec->role, f->enums[i].name);
    spec->task_act[i] = task_action(f->enums[i].marker);
  }
}

static int enum_index(const struct tw__mti_source_spec *spec, uint32_t v)
{
  const struct tw__mti_field_spec *f;
  if (v < sizeof spec->enum_of_value)
    return spec->enum_of_value[v];
  f = &spec->fields[spec->marker_field];
  for (uint32_t i = 0; i < f->nenums && i < 256; i++)
    if (f->enums[i].value == v)
      return (int)i;
  return -1;
}

static void on_task_switch(struct mti_component *c, uint32_t t)
{
  int32_t prev = c->running;
  if (t >= NO_TASK - 1 || (uint32_t)prev == t)
    return;
  if (prev >= 0 && c->tasks[prev].state == MTI_TASK_RUNNING)
    set_task(c, (uint32_t)prev, MTI_TASK_READY);
  set_task(c, t, MTI_TASK_RUNNING);
  if (task_at(c, t))
    c->running = (int32_t)t;
}

static void on_mutex(struct mti_component *c, uint32_t task, uint32_t m, uint8_t act)
{
  struct mti_mutex *x = mutex_at(c, m);
  if (!x)
    return;
  switch (act) {
  case ACT_LOCK:
    x->held = 1;
    x->owner = (uint16_t)task;
    x->lock_count = 1;
    break;
  case ACT_INCLOCK:
    x->lock_count++;
    break;
  case ACT_DECLOCK:
    if (x->lock_count > 1)
      x->lock_count--;
    break;
  case ACT_UNLOCK:
    x->held = 0;
    x->owner = NO_TASK;
    x->lock_count = 0;
    break;
  default:
    return; /* Block: the task's state changes, the mutex's does not */
  }
  emit_mutex(c, m);
}

static void on_sem(struct mti_component *c, uint32_t s, uint8_t act)
{
  struct mti_sem *x = sem_at(c, s);
  if (!x)
    return;
  if (act == ACT_GIVE)
    x->count++;
  else if (act == ACT_TAKE)
    x->count--;
  else if (act == ACT_INEXACT)
    x->exact = 0;
  else
    return;
  emit_sem(c, s);
}

static int field_named(const struct tw__mti_source_spec *spec, const char *name)
{
  for (int i = 0; i < spec->nfields; i++)
    if (strcmp(spec->fields[i].name, name) == 0 && spec->fields[i].fill == MTI_FILL_VALUE)
      return spec->fields[i].src_index;
  return -1;
}

static void on_name(struct mti_component *c, const struct tw_event *ev,
                    const struct tw__mti_source_spec *spec)
{
  int fk = field_named(spec, "kind"), fn = field_named(spec, "number"),
      fp = field_named(spec, "prio");
  uint32_t kind, number;
  if (fk < 0 || fn < 0 || !ev->str)
    return;
  kind = ev->values[fk];
  number = ev->values[fn];
  tw__mti_name_set(c->sys, c->endpoint, (int)kind, number, ev->str, ev->str_len);
  if (kind == TW_OBJ_TASK) {
    struct mti_task *x = task_at(c, number);
    if (x) {
      x->known = 1;
      if (fp >= 0)
        x->prio = (uint8_t)ev->values[fp];
      emit_task(c, number);
    }
  }
}

void tw__mti_state_update(struct mti_component *c, const struct mti_source *src,
                          const struct tw_event *ev)
{
  const struct tw__mti_source_spec *spec = src->spec;
  uint32_t task = NO_TASK;
  int e;
  if (spec->role == MTI_ROLE_TASK_SWITCH) {
    on_task_switch(c, ev->values[spec->task_field]);
    return;
  }
  if (spec->role == MTI_ROLE_NAME) {
    on_name(c, ev, spec);
    return;
  }
  if (spec->task_field >= 0) {
    struct mti_task *x;
    task = ev->values[spec->task_field];
    if ((x = task_at(c, task)) && !x->known) {
      x->known = 1;
      emit_task(c, task);
    }
  }
  e = spec->marker_field >= 0 ? enum_index(spec, ev->values[spec->marker_field]) : -1;
  if (e < 0)
    return;
  if (spec->role == MTI_ROLE_MUTEX && spec->obj_field[TW_OBJ_MUTEX] >= 0)
    on_mutex(c, task, ev->values[spec->obj_field[TW_OBJ_MUTEX]], spec->obj_act[e]);
  else if ((spec->role == MTI_ROLE_SEM || spec->role == MTI_ROLE_SEM_TASK) &&
           spec->obj_field[TW_OBJ_SEM] >= 0)
    on_sem(c, ev->values[spec->obj_field[TW_OBJ_SEM]], spec->obj_act[e]);
  if (spec->task_act[e] == TACT_BLOCK)
    set_task(c, task, MTI_TASK_BLOCKED);
  else if (spec->task_act[e] == TACT_READY)
    set_task(c, task, MTI_TASK_READY);
}
