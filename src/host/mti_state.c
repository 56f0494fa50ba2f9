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
#include "host/mti_internal.h"
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

static struct mti_task *task_at(struct mti_component *c, uint32_t t)
{
  struct mti_task *a;
  if (t >= NO_TASK - 1) /* EnterInt / LeaveInt, not tasks */
    return NULL;
  if (!(a = grow_to(c->tasks, &c->ntasks, t, sizeof *a)))
    return NULL;
  c->tasks = a;
  return &a[t];
}

static struct mti_mutex *mutex_at(struct mti_component *c, uint32_t m)
{
  struct mti_mutex *a = grow_to(c->mutexes, &c->nmutexes, m, sizeof *a);
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
  struct mti_sem *a = grow_to(c->sems, &c->nsems, s, sizeof *a);
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

static const struct tw_enum_desc *enum_of(const struct tw__mti_source_spec *spec, uint32_t v)
{
  const struct tw__mti_field_spec *f;
  if (spec->marker_field < 0)
    return NULL;
  f = &spec->fields[spec->marker_field];
  for (uint32_t i = 0; i < f->nenums; i++)
    if (f->enums[i].value == v)
      return &f->enums[i];
  return NULL;
}

static bool enum_is(const struct tw_enum_desc *e, const char *name)
{
  return e && strcmp(e->name, name) == 0;
}

static void task_marker(struct mti_component *c, uint32_t task, const struct tw_enum_desc *e)
{
  if (!e)
    return;
  switch (e->marker) {
  case TW_MARKER_UP_BLOCK:
  case TW_MARKER_DOWN_BLOCK:
  case TW_MARKER_WAIT:
    set_task(c, task, MTI_TASK_BLOCKED);
    break;
  case TW_MARKER_UP_PUSH:
    set_task(c, task, MTI_TASK_READY);
    break;
  default:
    break;
  }
}

static void on_task_switch(struct mti_component *c, uint32_t t)
{
  int32_t prev = c->running;
  if (t >= NO_TASK - 1)
    return;
  if (prev >= 0 && (uint32_t)prev != t && c->tasks[prev].state == MTI_TASK_RUNNING)
    set_task(c, (uint32_t)prev, MTI_TASK_READY);
  set_task(c, t, MTI_TASK_RUNNING);
  if (task_at(c, t))
    c->running = (int32_t)t;
}

static void on_mutex(struct mti_component *c, uint32_t task, uint32_t m,
                     const struct tw_enum_desc *e)
{
  struct mti_mutex *x = mutex_at(c, m);
  if (!x)
    return;
  if (enum_is(e, "Lock")) {
    x->held = 1;
    x->owner = (uint16_t)task;
    x->lock_count = 1;
  } else if (enum_is(e, "IncLock")) {
    x->lock_count++;
  } else if (enum_is(e, "DecLock")) {
    if (x->lock_count > 1)
      x->lock_count--;
  } else if (enum_is(e, "Unlock")) {
    x->held = 0;
    x->owner = NO_TASK;
    x->lock_count = 0;
  } else {
    return; /* Block: the task's state changes, the mutex's does not */
  }
  emit_mutex(c, m);
}

static void on_sem(struct mti_component *c, uint32_t s, const struct tw_enum_desc *e)
{
  struct mti_sem *x = sem_at(c, s);
  if (!x)
    return;
  if (enum_is(e, "Give") || enum_is(e, "Take") || enum_is(e, "ToTask"))
    x->count += enum_is(e, "Give") ? 1 : -1;
  else if (enum_is(e, "GiveMany") || enum_is(e, "ToTaskList"))
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
  const struct tw_enum_desc *e =
      spec->marker_field >= 0 ? enum_of(spec, ev->values[spec->marker_field]) : NULL;
  uint32_t task = spec->task_field >= 0 ? ev->values[spec->task_field] : NO_TASK;
  if (spec->task_field >= 0 && spec->role != MTI_ROLE_TASK_SWITCH) {
    struct mti_task *x = task_at(c, task);
    if (x && !x->known) {
      x->known = 1;
      emit_task(c, task);
    }
  }
  switch (spec->role) {
  case MTI_ROLE_TASK_SWITCH: on_task_switch(c, task); return;
  case MTI_ROLE_NAME: on_name(c, ev, spec); return;
  case MTI_ROLE_MUTEX:
    if (spec->obj_field[TW_OBJ_MUTEX] >= 0)
      on_mutex(c, task, ev->values[spec->obj_field[TW_OBJ_MUTEX]], e);
    break;
  case MTI_ROLE_SEM:
  case MTI_ROLE_SEM_TASK:
    if (spec->obj_field[TW_OBJ_SEM] >= 0)
      on_sem(c, ev->values[spec->obj_field[TW_OBJ_SEM]], e);
    break;
  default: break;
  }
  task_marker(c, task, e);
}
