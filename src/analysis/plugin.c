/*
 * The "analysis" MTI plugin: reads the model's records and feeds the
 * engine (engine.c). It uses only the interfaces a user plugin has: per
 * component (core), the sources of the RTOS events, INTERRUPT, DROPS and
 * NAME; one event class per source selecting just the fields the engine
 * needs (task, the object field, type, index, time_ns; NAME's kind, prio,
 * number, name). Value offsets and sizes are read once at registration,
 * so a callback is a few loads, not a chain of virtual calls.
 *
 * Parameters: starve_ms (starvation threshold), json (JSON output), file
 * (where Release writes the results: "-" stdout, "" nothing).
 */
#include <stdlib.h>
#include <string.h>
#include "an_internal.h"
#include "tracewire/mti_host.h"

enum { P_STARVE, P_JSON, P_FILE, NPARAMS };

static const eslapi_CADIParameterInfo_t params[NPARAMS] = {
  {.id = 1, .name = "starve_ms", .dataType = CADI_PARAM_INT,
   .description = "Starvation threshold: a ready task not run for longer is reported (ms)",
   .minValue = 1, .maxValue = 86400000, .defaultValue = 100},
  {.id = 2, .name = "json", .dataType = CADI_PARAM_BOOL,
   .description = "Write the results as JSON", .minValue = 0, .maxValue = 1, .defaultValue = 0},
  {.id = 3, .name = "file", .dataType = CADI_PARAM_STRING,
   .description = "Results file written on release; - for stdout, empty for none",
   .defaultString = "-"},
};

enum { V_T, V_TASK, V_OBJ, V_TYPE, V_INDEX, V_STR, NV };

struct bind {
  struct inst *in;
  int core;
  uint16_t id;
  size_t off[NV];
  uint8_t size[NV]; /* 0: absent */
};

struct inst {
  MTI_PluginInstance base;
  struct tw_mti_params params;
  eslapi_CADIParameterValue_t values[NPARAMS];
  char name[CADI_NAME_SIZE];
  struct tw_an *an;
  struct bind *binds;
  size_t nbinds, cap;
};

static uint64_t rd(const MTI_EventRecord *r, size_t off, unsigned size)
{
  const uint8_t *p = (const uint8_t *)r + off;
  switch (size) {
  case 1: return *p;
  case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
  case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
  case 8: { uint64_t v; memcpy(&v, p, 8); return v; }
  default: return 0;
  }
}

static void on_record(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  const struct bind *b = user;
  struct tw_an_ev ev;
  (void)ec;
  ev.t = rd(rec, b->off[V_T], b->size[V_T]);
  ev.id = b->id;
  ev.task = b->size[V_TASK] ? (uint16_t)rd(rec, b->off[V_TASK], b->size[V_TASK]) : TW_AN_NO_TASK;
  ev.obj = (uint32_t)rd(rec, b->off[V_OBJ], b->size[V_OBJ]);
  ev.type = (uint32_t)rd(rec, b->off[V_TYPE], b->size[V_TYPE]);
  ev.index = (uint32_t)rd(rec, b->off[V_INDEX], b->size[V_INDEX]);
  ev.str = NULL;
  ev.str_len = 0;
  if (b->size[V_STR]) {
    const uint8_t *p = (const uint8_t *)rec + b->off[V_STR];
    uint16_t n;
    memcpy(&n, p - sizeof n, sizeof n);
    ev.str = (const char *)p;
    ev.str_len = n;
  }
  if (b->id == TW_AN_ID_TASK_SWITCH) { /* the task field is the switch's "type" */
    ev.type = ev.task;
    ev.task = TW_AN_NO_TASK;
  }
  tw_an_event(b->in->an, b->core, &ev);
}

/* Which field plays which role for event `id`. */
static const char *role_field(const struct tw_event_desc *d, int role)
{
  if (d->id == TW_AN_ID_NAME) {
    static const char *const n[NV] = {"time_ns", NULL, "number", "kind", "prio", "name"};
    return n[role];
  }
  switch (role) {
  case V_T: return "time_ns";
  case V_TYPE: return d->id == TW_AN_ID_TASK_SWITCH ? NULL : "type";
  case V_INDEX: return d->id == TW_AN_ID_DROPS ? "count" : "index";
  case V_STR: return NULL;
  case V_TASK:
    for (unsigned i = 0; i < d->nfields; i++)
      if (d->fields[i].obj == TW_OBJ_TASK)
        return d->fields[i].name;
    return NULL;
  case V_OBJ:
    for (unsigned i = 0; i < d->nfields; i++)
      if (d->fields[i].obj != TW_OBJ_TASK && d->fields[i].obj != TW_OBJ_NONE)
        return d->fields[i].name;
    return NULL;
  default: return NULL;
  }
}

static int wanted(const struct tw_event_desc *d)
{
  return d->module == TW_MOD_RTOS || d->id == TW_AN_ID_INTERRUPT || d->id == TW_AN_ID_DROPS ||
         d->id == TW_AN_ID_NAME;
}

static int bind_source(struct inst *in, int core, MTI_TraceSource *src,
                       const struct tw_event_desc *d)
{
  const MTI_EventFieldType *f[NV] = {0};
  MTI_FieldMask mask = 0;
  for (int r = 0; r < NV; r++) {
    const char *fn = role_field(d, r);
    if (fn && (f[r] = src->vtbl->GetFieldByName(src, fn)))
      mask |= 1u << f[r]->vtbl->GetIndex(f[r]);
  }
  if (!f[V_T])
    return 0;
  MTI_EventClass *ec = src->vtbl->CreateEventClass(src, mask);
  if (!ec)
    return -1;
  struct bind *b;
  if (in->nbinds == in->cap) /* sized at registration: callbacks keep these pointers */
    return -1;
  b = &in->binds[in->nbinds];
  memset(b, 0, sizeof *b);
  b->in = in;
  b->core = core;
  b->id = d->id;
  for (int r = 0; r < NV; r++) {
    if (!f[r])
      continue;
    MTI_ValueIndex v = ec->vtbl->GetValueIndex(ec, f[r]->vtbl->GetName(f[r]));
    b->off[r] = ec->vtbl->GetValueOffset(ec, v);
    b->size[r] = r == V_STR ? 1 : (uint8_t)f[r]->vtbl->GetSize(f[r]);
  }
  if (ec->vtbl->RegisterCallback(ec, on_record, b) != MTI_OK)
    return -1;
  in->nbinds++;
  return 0;
}

static eslapi_CADIReturn_t inst_register(MTI_PluginInstance *self, eslapi_CAInterface *sim)
{
  struct inst *in = (struct inst *)self;
  MTI_SystemTraceInterface *sys = eslapi_ObtainPointer(sim, MTI_SystemTraceInterface);
  if (!sys)
    return CADI_STATUS_GeneralError;
  int n = sys->vtbl->GetNumOfTraceComponents(sys);
  in->cap = (size_t)(n > 0 ? n : 1) * tw_event_ndescs;
  if (!(in->binds = calloc(in->cap, sizeof *in->binds)))
    return CADI_STATUS_InsufficientResources;
  for (int i = 0; i < n; i++) {
    MTI_ComponentTraceInterface *c = eslapi_ObtainPointer(sys->vtbl->GetComponentTrace(sys, i),
                                                          MTI_ComponentTraceInterface);
    if (!c)
      continue;
    tw_an_set_core_name(in->an, i, sys->vtbl->GetComponentTracePath(sys, i));
    for (size_t k = 0; k < tw_event_ndescs; k++) {
      const struct tw_event_desc *d = &tw_event_descs[k];
      MTI_TraceSource *src;
      if (!wanted(d) || !(src = c->vtbl->GetTraceSourceByName(c, d->name)))
        continue;
      if (bind_source(in, i, src, d) < 0)
        return CADI_STATUS_GeneralError;
    }
  }
  return CADI_STATUS_OK;
}

static void inst_release(MTI_PluginInstance *self)
{
  struct inst *in = (struct inst *)self;
  const char *path = tw_mti_params_get(&in->params, "file")->stringValue;
  tw_an_finish(in->an);
  if (path[0]) {
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (f) {
      if (tw_mti_params_get(&in->params, "json")->boolValue)
        tw_an_write_json(in->an, f);
      else
        tw_an_write_text(in->an, f);
      if (f != stdout)
        fclose(f);
      else
        fflush(f);
    } else {
      fprintf(stderr, "%s: cannot write %s\n", in->name, path);
    }
  }
  tw_an_destroy(in->an);
  free(in->binds);
  free(in);
}

static const char *inst_name(const MTI_PluginInstance *self)
{
  return ((const struct inst *)self)->name;
}

static eslapi_CAInterface *inst_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                       eslapi_if_rev_t min, eslapi_if_rev_t *rev);

static const struct MTI_PluginInstance_vtbl inst_vtbl = {
  MTI_PluginInstance_IFREVISION, inst_obtain, inst_register, inst_release, inst_name};

static eslapi_CAInterface *inst_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                       eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  struct inst *in = (struct inst *)self;
  if (!n)
    return NULL;
  if (!strcmp(n, MTI_ParameterInterface_IFNAME))
    return in->params.base.vtbl->ObtainInterface((eslapi_CAInterface *)&in->params.base, n, min,
                                                  rev);
  if ((!strcmp(n, MTI_PluginInstance_IFNAME) && min <= MTI_PluginInstance_IFREVISION) ||
      (!strcmp(n, eslapi_CAInterface_IFNAME) && min <= eslapi_CAInterface_IFREVISION)) {
    if (rev)
      *rev = 0;
    return self;
  }
  return NULL;
}

struct tw_an *tw_an_plugin_engine(MTI_PluginInstance *inst)
{
  return inst && inst->vtbl == &inst_vtbl ? ((struct inst *)inst)->an : NULL;
}

/* ---- factory ---- */

static eslapi_CAInterface *fac_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                      eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  if (n && ((!strcmp(n, MTI_PluginFactory_IFNAME) && min <= MTI_PluginFactory_IFREVISION) ||
            (!strcmp(n, eslapi_CAInterface_IFNAME) && min == 0))) {
    if (rev)
      *rev = strcmp(n, MTI_PluginFactory_IFNAME) ? 0 : MTI_PluginFactory_IFREVISION;
    return self;
  }
  return NULL;
}

static uint32_t fac_nparams(MTI_PluginFactory *self)
{
  (void)self;
  return NPARAMS;
}

static eslapi_CADIReturn_t fac_infos(MTI_PluginFactory *self, eslapi_CADIParameterInfo_t *l)
{
  (void)self;
  memcpy(l, params, sizeof params);
  return CADI_STATUS_OK;
}

static eslapi_CAInterface *fac_instantiate(MTI_PluginFactory *self, const char *name,
                                           uint32_t n, eslapi_CADIParameterValue_t *v)
{
  struct inst *in = calloc(1, sizeof *in);
  (void)self;
  if (!in)
    return NULL;
  in->base.vtbl = &inst_vtbl;
  snprintf(in->name, sizeof in->name, "%s", name);
  if (tw_mti_params_init(&in->params, (eslapi_CAInterface *)&in->base, params, in->values,
                         NPARAMS, n, v) < 0) {
    free(in);
    return NULL;
  }
  struct tw_an_cfg cfg = {
    .starve_ns = (uint64_t)tw_mti_params_get(&in->params, "starve_ms")->intValue * 1000000ull};
  if (tw_an_create(&in->an, &cfg) < 0) {
    free(in);
    return NULL;
  }
  return (eslapi_CAInterface *)&in->base;
}

static void fac_release(MTI_PluginFactory *self) { (void)self; }

static const char *fac_prefix(MTI_PluginFactory *self)
{
  (void)self;
  return "analysis";
}

static const struct MTI_PluginFactory_vtbl fac_vtbl = {
  MTI_PluginFactory_IFREVISION, fac_obtain, fac_nparams, fac_infos, fac_instantiate,
  fac_release, fac_prefix};
static MTI_PluginFactory factory = {&fac_vtbl};

MTI_PluginFactory *tw_an_plugin_factory(void)
{
  return &factory;
}
