/*
 * The decoded trace as an MTI simulation: SystemTraceInterface, one
 * ComponentTraceInterface per decoder stream, the TraceContext extension,
 * and tw_mti_system_feed(), the one entry for events.
 *
 * Every component has the same sources in the same order (vocabulary
 * events, then TASKS/MUTEXES/SEMAPHORES, then custom events in declaration
 * order), so one id -> source-index table serves all of them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/mti_internal.h"
#include "tracewire/error.h"

void tw__mti_msg(char *err, size_t errcap, const char *fmt, ...)
{
  va_list ap;
  if (!err || !errcap)
    return;
  va_start(ap, fmt);
  vsnprintf(err, errcap, fmt, ap);
  va_end(ap);
}

eslapi_CAInterface *tw__mti_obtain_self(eslapi_CAInterface *self, const char *own, uint32_t rev,
                                        eslapi_if_name_t name, eslapi_if_rev_t min,
                                        eslapi_if_rev_t *actual)
{
  uint32_t have;
  if (!name)
    return NULL;
  if (strcmp(name, own) == 0)
    have = rev;
  else if (strcmp(name, eslapi_CAInterface_IFNAME) == 0)
    have = eslapi_CAInterface_IFREVISION;
  else
    return NULL;
  if (min > have)
    return NULL;
  if (actual)
    *actual = have;
  return self;
}

/* ---- SystemTraceInterface + TraceContext ----------------------------------------- */

#define SYS(self) ((struct tw_mti_system *)(uintptr_t)(self))
#define SYS_OF_CTX(self)                                                            \
  ((struct tw_mti_system *)(uintptr_t)((const char *)(self) -                       \
                                       offsetof(struct tw_mti_system, ctx)))

static eslapi_CAInterface *sys_obtain_common(struct tw_mti_system *sys, eslapi_if_name_t n,
                                             eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  eslapi_CAInterface *me = (eslapi_CAInterface *)&sys->systrace;
  if (n && strcmp(n, TW_TraceContext_IFNAME) == 0) {
    if (min > TW_TraceContext_IFREVISION)
      return NULL;
    if (rev)
      *rev = TW_TraceContext_IFREVISION;
    return (eslapi_CAInterface *)&sys->ctx;
  }
  return tw__mti_obtain_self(me, MTI_SystemTraceInterface_IFNAME,
                             MTI_SystemTraceInterface_IFREVISION, n, min, rev);
}

static eslapi_CAInterface *sys_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                      eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  return sys_obtain_common(SYS(self), n, min, rev);
}
static eslapi_CAInterface *ctx_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                      eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  return sys_obtain_common(SYS_OF_CTX(self), n, min, rev);
}

static MTI_TraceComponentIndex sys_ncomps(const MTI_SystemTraceInterface *self)
{
  return SYS(self)->ncomps;
}
static const char *sys_comp_path(const MTI_SystemTraceInterface *self, MTI_TraceComponentIndex i)
{
  struct tw_mti_system *sys = SYS(self);
  return i >= 0 && i < sys->ncomps ? sys->comps[i]->path : NULL;
}
static eslapi_CAInterface *sys_comp(const MTI_SystemTraceInterface *self,
                                    MTI_TraceComponentIndex i)
{
  struct tw_mti_system *sys = SYS(self);
  return i >= 0 && i < sys->ncomps ? (eslapi_CAInterface *)&sys->comps[i]->base : NULL;
}
static eslapi_CAInterface *sys_comp_by_path(const MTI_SystemTraceInterface *self,
                                            const char *path)
{
  struct tw_mti_system *sys = SYS(self);
  for (int i = 0; path && i < sys->ncomps; i++)
    if (strcmp(sys->comps[i]->path, path) == 0)
      return (eslapi_CAInterface *)&sys->comps[i]->base;
  return NULL;
}

static const struct MTI_SystemTraceInterface_vtbl sys_vtbl = {
  .iVersion = MTI_SystemTraceInterface_IFREVISION,
  .ObtainInterface = sys_obtain,
  .GetNumOfTraceComponents = sys_ncomps,
  .GetComponentTracePath = sys_comp_path,
  .GetComponentTrace = sys_comp,
  .GetComponentTraceByPath = sys_comp_by_path,
};

static const struct tw_event *ctx_event(const TW_TraceContext *self)
{
  const struct tw_mti_system *sys = SYS_OF_CTX(self);
  return sys->gate & MTI_GATE_IN_FEED ? sys->cur_event : NULL;
}
static const char *ctx_name(const TW_TraceContext *self,
                            const MTI_ComponentTraceInterface *component, int kind,
                            uint32_t number)
{
  const struct mti_component *c = (const struct mti_component *)component;
  if (!c)
    return NULL;
  return tw_rtos_name(SYS_OF_CTX(self)->model, c->endpoint, (enum tw_obj_kind)kind, number);
}
static const MTI_ComponentTraceInterface *ctx_comp(const TW_TraceContext *self)
{
  const struct tw_mti_system *sys = SYS_OF_CTX(self);
  const struct mti_component *c = sys->gate & MTI_GATE_IN_FEED ? sys->cur_comp : NULL;
  return c ? &c->base : NULL;
}

static void ctx_fail(const TW_TraceContext *self, const char *who, const char *what)
{
  struct tw_mti_system *sys = SYS_OF_CTX(self);
  sys->failures++;
  fprintf(stderr, "tracewire: %s: %s\n", who ? who : "plugin", what ? what : "failed");
}

unsigned long long tw_mti_system_failures(const struct tw_mti_system *sys)
{
  return sys->failures;
}

/* Asking for the model is asking for it to be kept: every component feeds
 * it from now on. */
static struct tw_rtos *ctx_model(const TW_TraceContext *self)
{
  struct tw_mti_system *sys = (struct tw_mti_system *)(uintptr_t)SYS_OF_CTX(self);
  tw__mti_track_all(sys);
  return sys->model;
}

static const struct TW_TraceContext_vtbl ctx_vtbl = {
  .iVersion = TW_TraceContext_IFREVISION,
  .ObtainInterface = ctx_obtain,
  .GetCurrentEvent = ctx_event,
  .LookupObjectName = ctx_name,
  .GetCurrentComponent = ctx_comp,
  .GetModel = ctx_model,
  .ReportFailure = ctx_fail,
};

/* ---- ComponentTraceInterface ------------------------------------------------------- */

#define COMP(self) ((struct mti_component *)(uintptr_t)(self))

static eslapi_CAInterface *comp_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                       eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  return tw__mti_obtain_self(self, MTI_ComponentTraceInterface_IFNAME,
                             MTI_ComponentTraceInterface_IFREVISION, n, min, rev);
}
static MTI_SourceIndex comp_nsources(const MTI_ComponentTraceInterface *self)
{
  return COMP(self)->nsources;
}
static MTI_TraceSource *comp_source(const MTI_ComponentTraceInterface *self, MTI_SourceIndex i)
{
  struct mti_component *c = COMP(self);
  return i >= 0 && i < c->nsources ? &c->sources[i]->base : NULL;
}
static MTI_TraceSource *comp_source_by_name(const MTI_ComponentTraceInterface *self,
                                            const char *name)
{
  struct mti_component *c = COMP(self);
  for (int i = 0; name && i < c->nsources; i++)
    if (strcmp(c->sources[i]->spec->name, name) == 0)
      return &c->sources[i]->base;
  return NULL;
}
static const MTI_EventClass *comp_class(const MTI_ComponentTraceInterface *self,
                                        MTI_EventClassId id)
{
  struct mti_component *c = COMP(self);
  struct tw_mti_system *sys = c->sys;
  if (id == 0 || id >= sys->nclasses || !sys->classes[id] || sys->classes[id]->src->comp != c)
    return NULL;
  return &sys->classes[id]->base;
}
static const char *comp_type(const MTI_ComponentTraceInterface *self)
{
  (void)self;
  return "tracewire.core";
}
static const char *comp_version(const MTI_ComponentTraceInterface *self)
{
  (void)self;
  return TW_MTI_VERSION_STRING;
}

static const struct MTI_ComponentTraceInterface_vtbl comp_vtbl = {
  .iVersion = MTI_ComponentTraceInterface_IFREVISION,
  .ObtainInterface = comp_obtain,
  .GetNumOfTraceSources = comp_nsources,
  .GetTraceSource = comp_source,
  .GetTraceSourceByName = comp_source_by_name,
  .GetEventClass = comp_class,
  .GetComponentType = comp_type,
  .GetComponentVersion = comp_version,
};

/* ---- construction ----------------------------------------------------------------------- */

int tw__mti_class_register_id(struct tw_mti_system *sys, struct mti_class *cls)
{
  size_t id = sys->nclasses ? sys->nclasses : 1;
  struct mti_class **grown;
  if (id > UINT16_MAX)
    return TW_ENOSPC;
  grown = realloc(sys->classes, (id + 1) * sizeof *grown);
  if (!grown)
    return TW_ENOMEM;
  grown[0] = NULL;
  grown[id] = cls;
  sys->classes = grown;
  sys->nclasses = id + 1;
  cls->id = (MTI_EventClassId)id;
  return 0;
}

static int add_spec(struct tw_mti_system *sys, struct tw__mti_source_spec *spec)
{
  struct tw__mti_source_spec **grown;
  if (!spec)
    return TW_ENOMEM;
  grown = realloc(sys->specs, ((size_t)sys->nspecs + 1) * sizeof *grown);
  if (!grown) {
    free(spec);
    return TW_ENOMEM;
  }
  sys->specs = grown;
  sys->specs[sys->nspecs++] = spec;
  return 0;
}

int tw__mti_source_index(const struct tw_mti_system *sys, uint16_t id)
{
  if (id < TW__MTI_ID_TABLE)
    return sys->id_index[id];
  for (int i = 0; i < sys->nspecs; i++)
    if (sys->specs[i]->ev && sys->specs[i]->ev->id == id)
      return i;
  return -1;
}

static int add_event_spec(struct tw_mti_system *sys, const struct tw_event_desc *d)
{
  int rc = add_spec(sys, tw__mti_spec_from_desc(d));
  if (rc == 0 && d->id < TW__MTI_ID_TABLE)
    sys->id_index[d->id] = (int16_t)(sys->nspecs - 1);
  return rc;
}

int tw_mti_system_create(struct tw_mti_system **out, const struct tw_event_desc *descs,
                         size_t ndescs)
{
  struct tw_mti_system *sys = calloc(1, sizeof *sys);
  int rc = 0;
  *out = NULL;
  if (!sys)
    return TW_ENOMEM;
  sys->systrace.vtbl = &sys_vtbl;
  sys->ctx.vtbl = &ctx_vtbl;
  sys->gate = MTI_GATE_STOPPED;
  sys->descs = descs;
  sys->ndescs = ndescs;
  memset(sys->id_index, 0xff, sizeof sys->id_index);
  rc = tw__mti_state_init(sys);
  for (size_t i = 0; rc == 0 && i < ndescs; i++)
    rc = tw__mti_source_index(sys, descs[i].id) >= 0 ? TW_EEXIST : add_event_spec(sys, &descs[i]);
  if (rc == 0)
    rc = add_spec(sys, tw__mti_spec_dump(MTI_SRC_TASKS));
  if (rc == 0)
    rc = add_spec(sys, tw__mti_spec_dump(MTI_SRC_MUTEXES));
  if (rc == 0)
    rc = add_spec(sys, tw__mti_spec_dump(MTI_SRC_SEMS));
  if (rc) {
    tw_mti_system_destroy(sys);
    return rc;
  }
  *out = sys;
  return 0;
}

static void comp_free(struct mti_component *c)
{
  for (int i = 0; i < c->nsources; i++)
    tw__mti_source_free(c->sources[i]);
  free(c->sources);
  free(c->flags);
  free(c->path);
  free(c);
}

void tw_mti_system_destroy(struct tw_mti_system *sys)
{
  if (!sys)
    return;
  for (int i = 0; i < sys->ncomps; i++)
    comp_free(sys->comps[i]);
  for (int i = 0; i < sys->nspecs; i++)
    free(sys->specs[i]);
  free(sys->specs);
  free(sys->comps);
  free(sys->by_stream);
  free(sys->classes);
  tw_rtos_destroy(sys->model);
  free(sys);
}

eslapi_CAInterface *tw_mti_system_simulation(struct tw_mti_system *sys)
{
  return (eslapi_CAInterface *)&sys->systrace;
}

static int comp_add_source(struct mti_component *c, const struct tw__mti_source_spec *spec)
{
  struct mti_source **grown = realloc(c->sources, ((size_t)c->nsources + 1) * sizeof *grown);
  uint8_t *flags;
  struct mti_source *s;
  if (!grown)
    return TW_ENOMEM;
  c->sources = grown;
  if (!(flags = realloc(c->flags, (size_t)c->nsources + 1)))
    return TW_ENOMEM;
  c->flags = flags;
  if (!(s = tw__mti_source_new(c, spec, c->nsources)))
    return TW_ENOMEM;
  c->sources[c->nsources++] = s;
  tw__mti_flags_update(s);
  if (spec->kind == MTI_SRC_TASKS)
    c->tasks_src = s;
  else if (spec->kind == MTI_SRC_MUTEXES)
    c->mutexes_src = s;
  else if (spec->kind == MTI_SRC_SEMS)
    c->sems_src = s;
  return 0;
}

static int path_taken(const struct tw_mti_system *sys, const char *path)
{
  for (int i = 0; i < sys->ncomps; i++)
    if (strcmp(sys->comps[i]->path, path) == 0)
      return 1;
  return 0;
}

static char *default_path(struct tw_mti_system *sys, uint16_t stream, uint16_t endpoint,
                          uint16_t instance)
{
  char buf[64];
  if (!sys->have_first_endpoint) {
    sys->have_first_endpoint = true;
    sys->first_endpoint = endpoint;
  }
  if (endpoint == sys->first_endpoint)
    snprintf(buf, sizeof buf, "board.cpu%u", (unsigned)instance);
  else
    snprintf(buf, sizeof buf, "board%u.cpu%u", (unsigned)endpoint, (unsigned)instance);
  if (path_taken(sys, buf)) /* same (endpoint, core) seen as two streams */
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ".s%u", (unsigned)stream);
  return strdup(buf);
}

static int comp_register(struct tw_mti_system *sys, struct mti_component *c)
{
  struct mti_component **grown = realloc(sys->comps, ((size_t)sys->ncomps + 1) * sizeof *grown);
  if (!grown)
    return TW_ENOMEM;
  sys->comps = grown;
  if (c->stream >= sys->nby_stream) {
    size_t n = (size_t)c->stream + 1;
    struct mti_component **bs = realloc(sys->by_stream, n * sizeof *bs);
    if (!bs)
      return TW_ENOMEM;
    memset(bs + sys->nby_stream, 0, (n - sys->nby_stream) * sizeof *bs);
    sys->by_stream = bs;
    sys->nby_stream = n;
  }
  sys->comps[sys->ncomps++] = c;
  sys->by_stream[c->stream] = c;
  return 0;
}

int tw_mti_system_add_component(struct tw_mti_system *sys, uint16_t stream, uint16_t endpoint,
                                uint16_t instance, const char *path)
{
  struct mti_component *c;
  int rc = 0;
  if (stream < sys->nby_stream && sys->by_stream[stream])
    return TW_EEXIST;
  if (path && path_taken(sys, path))
    return TW_EEXIST;
  if (!(c = calloc(1, sizeof *c)))
    return TW_ENOMEM;
  c->base.vtbl = &comp_vtbl;
  c->sys = sys;
  c->stream = stream;
  c->endpoint = endpoint;
  c->instance = instance;
  c->path = path ? strdup(path) : default_path(sys, stream, endpoint, instance);
  if (!c->path)
    rc = TW_ENOMEM;
  for (int i = 0; rc == 0 && i < sys->nspecs; i++)
    rc = comp_add_source(c, sys->specs[i]);
  if (rc == 0)
    rc = comp_register(sys, c);
  if (rc)
    comp_free(c);
  return rc;
}

int tw_mti_system_declare_event(struct tw_mti_system *sys, const struct tw_event_desc *desc)
{
  int idx = tw__mti_source_index(sys, desc->id);
  int rc;
  if (idx >= 0)
    return strcmp(sys->specs[idx]->name, desc->name) == 0 ? 0 : TW_EEXIST;
  if ((rc = add_event_spec(sys, desc)) < 0)
    return rc;
  for (int i = 0; rc == 0 && i < sys->ncomps; i++)
    rc = comp_add_source(sys->comps[i], sys->specs[sys->nspecs - 1]);
  return rc;
}

int tw_mti_system_start(struct tw_mti_system *sys)
{
  sys->running = true;
  sys->gate &= (uint8_t)~MTI_GATE_STOPPED;
  return 0;
}

int tw_mti_system_stop(struct tw_mti_system *sys)
{
  if (sys->gate & MTI_GATE_IN_FEED)
    return TW_EBUSY;
  sys->running = false;
  sys->gate |= MTI_GATE_STOPPED;
  return 0;
}

bool tw_mti_system_running(const struct tw_mti_system *sys) { return sys->running; }

uint64_t tw_mti_system_unknown(const struct tw_mti_system *sys) { return sys->unknown; }
