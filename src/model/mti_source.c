/*
 * Trace sources, their fields and event classes (MTI::TraceSource,
 * MTI::EventFieldType, MTI::EventClass), and event dispatch.
 *
 * Record layout: one per source, shared by all its classes (docs/mti.md):
 * event_class_id at 0, each fixed value aligned to its size, a variable
 * value preceded by its 2-byte size and, for strings, followed by a NUL.
 * Because offsets do not depend on the mask, a record is filled once per
 * event and each class only rewrites the id before its callbacks run.
 */
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "model/mti_internal.h"

/* ---- specs ------------------------------------------------------------------ */

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

void tw__mti_spec_layout(struct tw__mti_source_spec *spec)
{
  size_t off = sizeof(MTI_EventClassId);
  for (int i = 0; i < spec->nfields; i++) {
    const struct tw__mti_field_spec *f = &spec->fields[i];
    if (f->size == 0) {
      off = align_up(off, sizeof(MTI_EventFieldType_Size)) + sizeof(MTI_EventFieldType_Size);
      spec->offsets[i] = (uint32_t)off;
      off += f->max_size + (f->type == MTI_STRING ? 1u : 0u);
    } else {
      size_t a = (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) ? f->size : 1;
      off = align_up(off, a);
      spec->offsets[i] = (uint32_t)off;
      off += f->size;
    }
  }
  spec->layout_size = align_up(off, 8);
}

static void add_field(struct tw__mti_source_spec *s, const char *name, const char *desc,
                      MTI_EventFieldType_Type type, uint16_t size, enum tw_obj_kind obj,
                      enum mti_fill fill, uint8_t src_index)
{
  struct tw__mti_field_spec *f = &s->fields[s->nfields++];
  f->name = name;
  f->desc = desc;
  f->type = type;
  f->size = size;
  f->max_size = size ? size : (uint16_t)TW__MTI_STRING_MAX;
  f->obj = obj;
  f->fill = fill;
  f->src_index = src_index;
  if (obj != TW_OBJ_NONE && s->obj_field[obj] < 0)
    s->obj_field[obj] = s->nfields - 1;
  if (obj == TW_OBJ_TASK && s->task_field < 0)
    s->task_field = s->nfields - 1;
}

/* A field type's MTI type and size. Values are stored as the low `size`
 * bytes of the decoded word, which for I8..I32 are the two's complement
 * bits (GetAs sign-extends them from the MTI type) and for F32 the float
 * itself in host order (MTI_EventRecord_GetF32). */
static void mti_type_of(enum tw_field_type t, MTI_EventFieldType_Type *type, uint16_t *size)
{
  switch (t) {
  case TW_FT_U8: case TW_FT_ENUM8: *type = MTI_UNSIGNED_INT; *size = 1; return;
  case TW_FT_U16: *type = MTI_UNSIGNED_INT; *size = 2; return;
  case TW_FT_U32: *type = MTI_UNSIGNED_INT; *size = 4; return;
  case TW_FT_I8: *type = MTI_SIGNED_INT; *size = 1; return;
  case TW_FT_I16: *type = MTI_SIGNED_INT; *size = 2; return;
  case TW_FT_I32: *type = MTI_SIGNED_INT; *size = 4; return;
  case TW_FT_F32: *type = MTI_FLOAT; *size = 4; return;
  case TW_FT_STRING: break;
  }
  *type = MTI_STRING;
  *size = 0;
}

struct tw__mti_source_spec *tw__mti_spec_from_desc(const struct tw_event_desc *d)
{
  struct tw__mti_source_spec *s = calloc(1, sizeof *s);
  int n = d->nfields < TW_EVENT_MAX_VALUES ? d->nfields : TW_EVENT_MAX_VALUES;
  if (!s)
    return NULL;
  s->name = d->name;
  s->desc = d->doc;
  s->kind = MTI_SRC_EVENT;
  s->ev = d;
  s->task_field = -1;
  memset(s->obj_field, 0xff, sizeof s->obj_field);
  s->marker_field = d->marker_field < n ? d->marker_field : -1;
  for (int i = 0; i < n; i++) {
    const struct tw_field_desc *fd = &d->fields[i];
    bool is_enum = (i == s->marker_field && d->nenums > 0) || fd->type == TW_FT_ENUM8;
    MTI_EventFieldType_Type type;
    uint16_t size;
    if (fd->type == TW_FT_STRING) {
      add_field(s, fd->name, fd->doc, MTI_STRING, 0, fd->obj, MTI_FILL_STRING, (uint8_t)i);
      continue;
    }
    mti_type_of(fd->type, &type, &size);
    add_field(s, fd->name, fd->doc, is_enum ? MTI_ENUM : type, size, fd->obj,
              MTI_FILL_VALUE, (uint8_t)i);
    if (is_enum && i == s->marker_field) {
      s->fields[i].enums = d->enums;
      s->fields[i].nenums = d->nenums;
    }
  }
  add_field(s, "time_ns", "Time of the event in ns since the stream's time origin",
            MTI_UNSIGNED_INT, 8, TW_OBJ_NONE, MTI_FILL_TIME, 0);
  add_field(s, "seq", "Event sequence number in its stream", MTI_UNSIGNED_INT, 4,
            TW_OBJ_NONE, MTI_FILL_SEQ, 0);
  s->names = tw__mti_spec_names(d);
  tw__mti_spec_layout(s);
  return s;
}

/* The RTOS state model's states (tracewire/model/rtos.h), by value. */
static const struct tw_enum_desc task_states[] = {
  {"Unknown", TW_RTOS_UNKNOWN, TW_MARKER_NONE,
   "Only named or mentioned so far, or not known since events were lost"},
  {"Running", TW_RTOS_RUNNING, TW_MARKER_NONE, "The task is executing"},
  {"Ready", TW_RTOS_READY, TW_MARKER_NONE, "Preempted or released, waiting for the CPU"},
  {"Blocked", TW_RTOS_BLOCKED, TW_MARKER_NONE,
   "Waiting: on an object (wait_kind, wait_obj), time, a notification, or a reason the "
   "trace does not show"},
  {"Suspended", TW_RTOS_SUSPENDED, TW_MARKER_NONE, "Suspended"},
  {"Deleted", TW_RTOS_DELETED, TW_MARKER_NONE, "Deleted"},
};

struct tw__mti_source_spec *tw__mti_spec_dump(enum mti_kind kind)
{
  struct tw__mti_source_spec *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->kind = kind;
  s->task_field = -1;
  memset(s->obj_field, 0xff, sizeof s->obj_field);
  s->marker_field = -1;
#define F(n, d, t, sz, obj) add_field(s, n, d, t, sz, obj, MTI_FILL_GIVEN, 0)
  switch (kind) {
  case MTI_SRC_TASKS:
    s->name = "TASKS";
    s->desc = "Task states: DumpState reports every known task, callbacks every change";
    F("task", "Task number", MTI_UNSIGNED_INT, 2, TW_OBJ_TASK);
    F("name", "Task name (empty until a NAME event)", MTI_STRING, 0, TW_OBJ_NONE);
    F("state", "Task state", MTI_ENUM, 1, TW_OBJ_NONE);
    s->fields[2].enums = task_states;
    s->fields[2].nenums = sizeof task_states / sizeof task_states[0];
    F("prio", "Effective priority (the NAME event's, raised while inherited)",
      MTI_UNSIGNED_INT, 1, TW_OBJ_NONE);
    F("wait_kind", "Blocked on an object: its kind (tw_obj_kind), else 0", MTI_UNSIGNED_INT,
      1, TW_OBJ_OBJKIND);
    F("wait_obj", "Blocked on an object: its number", MTI_UNSIGNED_INT, 4, TW_OBJ_NONE);
    break;
  case MTI_SRC_MUTEXES:
    s->name = "MUTEXES";
    s->desc = "Mutexes: DumpState reports the held ones, callbacks every change";
    F("mutex", "Mutex number", MTI_UNSIGNED_INT, 2, TW_OBJ_MUTEX);
    F("name", "Mutex name (empty until a NAME event)", MTI_STRING, 0, TW_OBJ_NONE);
    F("owner", "Task holding the mutex (0xFFFF when free or not known)", MTI_UNSIGNED_INT, 2,
      TW_OBJ_TASK);
    F("held", "The mutex is locked", MTI_BOOL, 1, TW_OBJ_NONE);
    F("lock_count", "Nested lock count", MTI_UNSIGNED_INT, 4, TW_OBJ_NONE);
    F("known", "False while events lost left the holder unknown", MTI_BOOL, 1, TW_OBJ_NONE);
    break;
  case MTI_SRC_SEMS:
    s->name = "SEMAPHORES";
    s->desc = "Semaphore counts since the trace started: DumpState and changes";
    F("sem", "Semaphore number", MTI_UNSIGNED_INT, 2, TW_OBJ_SEM);
    F("name", "Semaphore name (empty until a NAME event)", MTI_STRING, 0, TW_OBJ_NONE);
    F("count", "Units available (never below 0; a lower bound when not exact)",
      MTI_SIGNED_INT, 4, TW_OBJ_NONE);
    F("exact", "False after a GiveMany/ToTaskList or lost events, until a block pins it",
      MTI_BOOL, 1, TW_OBJ_NONE);
    break;
  default:
    free(s);
    return NULL;
  }
#undef F
  tw__mti_spec_layout(s);
  return s;
}

/* ---- EventFieldType ---------------------------------------------------------- */

#define FIELD(self) ((const struct mti_field *)(self))

static eslapi_CAInterface *field_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                        eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  return tw__mti_obtain_self(self, MTI_EventFieldType_IFNAME, MTI_EventFieldType_IFREVISION,
                             n, min, rev);
}
static const MTI_TraceSource *field_source(const MTI_EventFieldType *self)
{
  return &FIELD(self)->src->base;
}
static MTI_FieldIndex field_index(const MTI_EventFieldType *self) { return FIELD(self)->index; }
static const char *field_name(const MTI_EventFieldType *self) { return FIELD(self)->spec->name; }
static const char *field_desc(const MTI_EventFieldType *self) { return FIELD(self)->spec->desc; }
static MTI_EventFieldType_Type field_type(const MTI_EventFieldType *self)
{
  return FIELD(self)->spec->type;
}
static MTI_EventFieldType_Size field_size(const MTI_EventFieldType *self)
{
  return FIELD(self)->spec->size;
}
static MTI_EventFieldType_Size field_max_size(const MTI_EventFieldType *self)
{
  return FIELD(self)->spec->max_size;
}
static MTI_EventFieldType_EnumIndex field_nenums(const MTI_EventFieldType *self)
{
  return FIELD(self)->spec->nenums;
}
static MTI_EventFieldType_EnumConstant field_enum(const MTI_EventFieldType *self,
                                                  MTI_EventFieldType_EnumIndex i)
{
  const struct tw__mti_field_spec *f = FIELD(self)->spec;
  MTI_EventFieldType_EnumConstant c = {.first = 0, .second = NULL};
  if (i < f->nenums) {
    c.first = f->enums[i].value;
    c.second = f->enums[i].name;
  }
  return c;
}
static const char *field_lookup_enum(const MTI_EventFieldType *self, uint32_t value)
{
  const struct tw__mti_field_spec *f = FIELD(self)->spec;
  for (uint32_t i = 0; i < f->nenums; i++)
    if (f->enums[i].value == value)
      return f->enums[i].name;
  return NULL;
}
static const char *field_enum_marker(const MTI_EventFieldType *self,
                                     MTI_EventFieldType_EnumIndex i)
{
  const struct tw__mti_field_spec *f = FIELD(self)->spec;
  if (i >= f->nenums || f->enums[i].marker == TW_MARKER_NONE)
    return NULL;
  return tw_marker_name(f->enums[i].marker);
}
static const char *field_obj_kind(const MTI_EventFieldType *self)
{
  enum tw_obj_kind k = FIELD(self)->spec->obj;
  return k == TW_OBJ_NONE ? NULL : tw_obj_kind_name(k);
}

static const struct MTI_EventFieldType_vtbl field_vtbl = {
  .iVersion = MTI_EventFieldType_IFREVISION,
  .ObtainInterface = field_obtain,
  .GetSource = field_source,
  .GetIndex = field_index,
  .GetName = field_name,
  .GetDescription = field_desc,
  .GetType = field_type,
  .GetSize = field_size,
  .GetMaxSize = field_max_size,
  .GetNumOfEnumConstants = field_nenums,
  .GetEnumConstant = field_enum,
  .LookupEnum = field_lookup_enum,
  .GetEnumMarker = field_enum_marker,
  .GetObjectKind = field_obj_kind,
};

/* ---- EventClass ---------------------------------------------------------------- */

#define CLS(self) ((const struct mti_class *)(self))

static eslapi_CAInterface *class_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                        eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  return tw__mti_obtain_self(self, MTI_EventClass_IFNAME, MTI_EventClass_IFREVISION, n, min,
                             rev);
}
static MTI_EventClassId class_id(const MTI_EventClass *self) { return CLS(self)->id; }
static const MTI_TraceSource *class_source(const MTI_EventClass *self)
{
  return &CLS(self)->src->base;
}
static MTI_FieldMask class_mask(const MTI_EventClass *self) { return CLS(self)->mask; }
static size_t class_record_size(const MTI_EventClass *self) { return CLS(self)->record_size; }
static MTI_ValueIndex class_nvalues(const MTI_EventClass *self) { return CLS(self)->nvalues; }
static const MTI_EventFieldType *class_field(const MTI_EventClass *self, MTI_ValueIndex vidx)
{
  const struct mti_class *c = CLS(self);
  return vidx >= 0 && vidx < c->nvalues ? &c->values[vidx]->base : NULL;
}
static MTI_ValueIndex class_value_index(const MTI_EventClass *self, const char *name)
{
  const struct mti_class *c = CLS(self);
  for (int i = 0; name && i < c->nvalues; i++)
    if (strcmp(c->values[i]->spec->name, name) == 0)
      return i;
  return -1;
}
static size_t class_value_offset(const MTI_EventClass *self, MTI_ValueIndex vidx)
{
  const struct mti_class *c = CLS(self);
  return vidx >= 0 && vidx < c->nvalues ? c->values[vidx]->offset : 0;
}

static bool sys_running(const struct mti_source *src) { return src->comp->sys->running; }
static int reserve_call(struct mti_source *s);

static MTI_Status class_register(MTI_EventClass *self, MTI_CallbackT fn, void *user)
{
  struct mti_class *c = (struct mti_class *)self;
  if (sys_running(c->src))
    return MTI_BUSY;
  if (!fn)
    return MTI_PARAMETER_INVALID;
  for (size_t i = 0; i < c->ncbs; i++)
    if (c->cbs[i].fn == fn && c->cbs[i].user == user)
      return MTI_PARAMETER_INVALID;
  if (reserve_call(c->src) < 0)
    return MTI_ERROR;
  if (c->ncbs == c->capcbs) {
    size_t cap = c->capcbs ? c->capcbs * 2 : 4;
    struct mti_callback *n = realloc(c->cbs, cap * sizeof *n);
    if (!n)
      return MTI_ERROR;
    c->cbs = n;
    c->capcbs = cap;
  }
  c->cbs[c->ncbs].fn = fn;
  c->cbs[c->ncbs].user = user;
  c->ncbs++;
  tw__mti_source_refresh(c->src);
  return MTI_OK;
}

static MTI_Status class_unregister(MTI_EventClass *self, MTI_CallbackT fn, void *user)
{
  struct mti_class *c = (struct mti_class *)self;
  if (sys_running(c->src))
    return MTI_BUSY;
  for (size_t i = 0; i < c->ncbs; i++) {
    if (c->cbs[i].fn == fn && c->cbs[i].user == user) {
      memmove(&c->cbs[i], &c->cbs[i + 1], (c->ncbs - i - 1) * sizeof c->cbs[0]);
      c->ncbs--;
      tw__mti_source_refresh(c->src);
      return MTI_OK;
    }
  }
  return MTI_PARAMETER_INVALID;
}

static MTI_Status class_dump(MTI_EventClass *self, MTI_CallbackT fn, void *user)
{
  struct mti_class *c = (struct mti_class *)self;
  if (!fn)
    return MTI_PARAMETER_INVALID;
  if (c->src->spec->kind == MTI_SRC_EVENT)
    return MTI_FUNCTION_NOT_SUPPORTED;
  return tw__mti_state_dump(c, fn, user);
}

static const struct MTI_EventClass_vtbl class_vtbl = {
  .iVersion = MTI_EventClass_IFREVISION,
  .ObtainInterface = class_obtain,
  .GetId = class_id,
  .GetSource = class_source,
  .GetMask = class_mask,
  .GetEventRecordSize = class_record_size,
  .GetNumValues = class_nvalues,
  .GetEventField = class_field,
  .GetValueIndex = class_value_index,
  .GetValueOffset = class_value_offset,
  .RegisterCallback = class_register,
  .UnregisterCallback = class_unregister,
  .DumpState = class_dump,
};

/* ---- TraceSource --------------------------------------------------------------- */

#define SRC(self) ((const struct mti_source *)(self))

static eslapi_CAInterface *source_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                         eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  return tw__mti_obtain_self(self, MTI_TraceSource_IFNAME, MTI_TraceSource_IFREVISION, n, min,
                             rev);
}
static MTI_SourceIndex source_index(const MTI_TraceSource *self) { return SRC(self)->index; }
static const char *source_name(const MTI_TraceSource *self) { return SRC(self)->spec->name; }
static const char *source_desc(const MTI_TraceSource *self) { return SRC(self)->spec->desc; }
static MTI_FieldIndex source_nfields(const MTI_TraceSource *self)
{
  return SRC(self)->spec->nfields;
}
static const MTI_EventFieldType *source_field(const MTI_TraceSource *self, MTI_FieldIndex i)
{
  const struct mti_source *s = SRC(self);
  return i >= 0 && i < s->spec->nfields ? &s->fields[i].base : NULL;
}
static const MTI_EventFieldType *source_field_by_name(const MTI_TraceSource *self,
                                                      const char *name)
{
  const struct mti_source *s = SRC(self);
  for (int i = 0; name && i < s->spec->nfields; i++)
    if (strcmp(s->spec->fields[i].name, name) == 0)
      return &s->fields[i].base;
  return NULL;
}

static struct mti_class *class_new(struct mti_source *s, MTI_FieldMask mask)
{
  struct mti_class *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  c->base.vtbl = &class_vtbl;
  c->src = s;
  c->mask = mask;
  c->record_size = sizeof(MTI_EventClassId);
  for (int i = 0; i < s->spec->nfields; i++) {
    const struct tw__mti_field_spec *f = &s->spec->fields[i];
    size_t end;
    if (!(mask & (1u << i)))
      continue;
    c->values[c->nvalues++] = &s->fields[i];
    end = s->fields[i].offset + f->max_size + (f->size == 0 && f->type == MTI_STRING);
    if (end > c->record_size)
      c->record_size = end;
  }
  if (tw__mti_class_register_id(s->comp->sys, c) < 0) {
    free(c);
    return NULL;
  }
  return c;
}

static MTI_EventClass *source_create_class(const MTI_TraceSource *self, MTI_FieldMask mask)
{
  struct mti_source *s = (struct mti_source *)(uintptr_t)self;
  int nf = s->spec->nfields;
  struct mti_class **grown, *c;
  if (nf < 32 && (mask >> nf) != 0)
    return NULL;
  for (size_t i = 0; i < s->nclasses; i++)
    if (s->classes[i]->mask == mask)
      return &s->classes[i]->base;
  grown = realloc(s->classes, (s->nclasses + 1) * sizeof *grown);
  if (!grown)
    return NULL;
  s->classes = grown;
  if (!(c = class_new(s, mask)))
    return NULL;
  if (s->spec->kind != MTI_SRC_EVENT && !s->comp->track) {
    s->comp->track = true;
    for (int i = 0; i < s->comp->nsources; i++)
      tw__mti_flags_update(s->comp->sources[i]);
  }
  s->classes[s->nclasses++] = c;
  return &c->base;
}

/* Counters share one shape for both widths. */
#define COUNTER_FNS(W, T, arr, n)                                                  \
  static MTI_Status source_register_##W(MTI_TraceSource *self, T *counter)         \
  {                                                                                \
    struct mti_source *s = (struct mti_source *)self;                              \
    T **grown;                                                                     \
    if (sys_running(s))                                                            \
      return MTI_BUSY;                                                             \
    if (!counter)                                                                  \
      return MTI_PARAMETER_INVALID;                                                \
    for (size_t i = 0; i < s->n; i++)                                              \
      if (s->arr[i] == counter)                                                    \
        return MTI_PARAMETER_INVALID;                                              \
    if (!(grown = realloc(s->arr, (s->n + 1) * sizeof *grown)))                    \
      return MTI_ERROR;                                                            \
    s->arr = grown;                                                                \
    s->arr[s->n++] = counter;                                                      \
    tw__mti_source_refresh(s);                                                     \
    return MTI_OK;                                                                 \
  }                                                                                \
  static MTI_Status source_unregister_##W(MTI_TraceSource *self, T *counter)       \
  {                                                                                \
    struct mti_source *s = (struct mti_source *)self;                              \
    if (sys_running(s))                                                            \
      return MTI_BUSY;                                                             \
    for (size_t i = 0; i < s->n; i++) {                                            \
      if (s->arr[i] == counter) {                                                  \
        s->arr[i] = s->arr[--s->n];                                                \
        tw__mti_source_refresh(s);                                                 \
        return MTI_OK;                                                             \
      }                                                                            \
    }                                                                              \
    return MTI_PARAMETER_INVALID;                                                  \
  }
COUNTER_FNS(64, uint64_t, c64, n64)
COUNTER_FNS(32, uint32_t, c32, n32)

static const struct MTI_TraceSource_vtbl source_vtbl = {
  .iVersion = MTI_TraceSource_IFREVISION,
  .ObtainInterface = source_obtain,
  .GetIndex = source_index,
  .GetName = source_name,
  .GetDescription = source_desc,
  .GetNumFields = source_nfields,
  .GetField = source_field,
  .GetFieldByName = source_field_by_name,
  .CreateEventClass = source_create_class,
  .RegisterCounter = source_register_64,
  .UnregisterCounter = source_unregister_64,
  .RegisterCounter32 = source_register_32,
  .UnregisterCounter32 = source_unregister_32,
};

struct mti_source *tw__mti_source_new(struct mti_component *comp,
                                      const struct tw__mti_source_spec *spec, int index)
{
  struct mti_source *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->base.vtbl = &source_vtbl;
  s->comp = comp;
  s->spec = spec;
  s->index = index;
  s->fields = calloc((size_t)spec->nfields ? (size_t)spec->nfields : 1, sizeof *s->fields);
  s->record = aligned_alloc(8, spec->layout_size + 8);
  if (!s->fields || !s->record) {
    tw__mti_source_free(s);
    return NULL;
  }
  memset(s->record, 0, spec->layout_size + 8);
  for (int i = 0; i < spec->nfields; i++) {
    s->fields[i].base.vtbl = &field_vtbl;
    s->fields[i].src = s;
    s->fields[i].spec = &spec->fields[i];
    s->fields[i].index = i;
    s->fields[i].offset = spec->offsets[i];
  }
  return s;
}

void tw__mti_source_free(struct mti_source *s)
{
  if (!s)
    return;
  for (size_t i = 0; i < s->nclasses; i++) {
    free(s->classes[i]->cbs);
    free(s->classes[i]);
  }
  free(s->classes);
  free(s->active);
  free(s->calls);
  free(s->c64);
  free(s->c32);
  free(s->fields);
  free(s->record);
  free(s);
}

/* Where an op's value lives in struct tw_event, and which of the 8 bytes
 * loaded from there are the value (zero-extended to the field's size). */
static void op_source(struct mti_fill_op *op, unsigned size)
{
  uint64_t width = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1u;
  switch (op->op) {
  case MTI_OP_TIME:
    op->src_off = (uint32_t)offsetof(struct tw_event, time_ns);
    op->mask = ~0ull;
    break;
  case MTI_OP_SEQ:
    op->src_off = (uint32_t)offsetof(struct tw_event, seq);
    op->mask = 0xFFFFFFFFull;
    break;
  default:
    op->src_off = (uint32_t)(offsetof(struct tw_event, values) + 4u * op->src);
    op->mask = width & 0xFFFFFFFFull; /* values are 32-bit: a U64 is zero-extended */
    break;
  }
}

/* Numeric ops first, by record offset, string ops last: the per-event fill
 * (mti_dispatch.c) then makes no call for an all-numeric record, and on a
 * little-endian host stores each numeric value as 8 bytes whose spill into
 * the following bytes a later op (a higher offset) or the string pass
 * overwrites; bytes no op owns belong to no selected field. */
static void build_ops(struct mti_source *s)
{
  s->nops = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (MTI_FieldMask m = s->fill_mask; m; m &= m - 1) {
      int i = __builtin_ctz(m);
      const struct tw__mti_field_spec *f = &s->spec->fields[i];
      if ((f->fill == MTI_FILL_STRING) != (pass == 1))
        continue;
      struct mti_fill_op *op = &s->ops[s->nops];
      op->off = s->spec->offsets[i];
      op->src = f->src_index;
      op->field = (uint16_t)i;
      switch (f->fill) {
      case MTI_FILL_VALUE:
        op->op = f->size == 1 ? MTI_OP_U8 : f->size == 2 ? MTI_OP_U16
               : f->size == 4 ? MTI_OP_U32 : MTI_OP_U64;
        break;
      case MTI_FILL_STRING: op->op = MTI_OP_STRING; break;
      case MTI_FILL_TIME: op->op = MTI_OP_TIME; break;
      case MTI_FILL_SEQ: op->op = MTI_OP_SEQ; break;
      default: continue; /* GIVEN: dump sources are filled from values */
      }
      op_source(op, f->size);
      s->nops++;
    }
    if (pass == 0) {
      s->nnum = s->nops;
      for (int a = 1; a < s->nnum; a++) /* by offset (insertion sort, few ops) */
        for (int b = a; b > 0 && s->ops[b - 1].off > s->ops[b].off; b--) {
          struct mti_fill_op t = s->ops[b];
          s->ops[b] = s->ops[b - 1];
          s->ops[b - 1] = t;
        }
    }
  }
}

static void build_calls(struct mti_source *s)
{
  s->ncalls = 0;
  for (size_t i = 0; i < s->nactive; i++) {
    const struct mti_class *c = s->active[i];
    for (size_t k = 0; k < c->ncbs; k++)
      s->calls[s->ncalls++] = (struct mti_call){c->cbs[k].fn, c->cbs[k].user, &c->base, c->id};
  }
}

/* Room for one more callback in the source's delivery lists, taken before a
 * registration changes anything, so refreshing them cannot fail. */
static int reserve_call(struct mti_source *s)
{
  size_t n = 1;
  struct mti_call *calls;
  struct mti_class **active;
  for (size_t i = 0; i < s->nclasses; i++)
    n += s->classes[i]->ncbs;
  if (!(calls = realloc(s->calls, n * sizeof *calls)))
    return -1;
  s->calls = calls;
  if (!(active = realloc(s->active, (s->nclasses ? s->nclasses : 1) * sizeof *active)))
    return -1;
  s->active = active;
  return 0;
}

/* Rebuilds the list of classes with callbacks; only called while stopped. */
void tw__mti_source_refresh(struct mti_source *s)
{
  s->nactive = 0;
  s->fill_mask = 0;
  for (size_t i = 0; i < s->nclasses; i++) {
    if (s->classes[i]->ncbs) {
      s->active[s->nactive++] = s->classes[i];
      s->fill_mask |= s->classes[i]->mask;
    }
  }
  s->hot = s->nactive || s->n64 || s->n32;
  build_ops(s);
  build_calls(s);
  s->one_call = !s->n64 && !s->n32 && s->nops == s->nnum && s->ncalls == 1;
  tw__mti_flags_update(s);
}

/* The component's per-source flags follow hot and track: a tracked
 * component feeds the state model every event (it knows what each means);
 * an untracked one only the events that name things. */
void tw__mti_flags_update(struct mti_source *s)
{
  struct mti_component *c = s->comp;
  uint8_t f = s->hot ? MTI_F_HOT : 0;
  if (s->spec->names)
    f |= MTI_F_NAME;
  else if (s->spec->kind == MTI_SRC_EVENT && (c->track || c->sys->track_all))
    f |= MTI_F_STATE;
  if (c->flags && s->index < c->nsources)
    c->flags[s->index] = f;
  if (s->spec->kind != MTI_SRC_EVENT) { /* the state model's changes: anyone to tell? */
    struct tw_mti_system *sys = c->sys;
    sys->dump_hot = false;
    for (int i = 0; i < sys->ncomps && !sys->dump_hot; i++)
      sys->dump_hot = (sys->comps[i]->tasks_src && sys->comps[i]->tasks_src->hot) ||
                      (sys->comps[i]->mutexes_src && sys->comps[i]->mutexes_src->hot) ||
                      (sys->comps[i]->sems_src && sys->comps[i]->sems_src->hot);
    sys->dump_hot |= s->hot; /* s may not be in its component's table yet */
    tw__mti_state_listen(sys);
  }
}
