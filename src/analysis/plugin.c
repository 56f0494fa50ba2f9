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
 *
 * The factory and instances are mti_simple's (tracewire/mti_plugin.h);
 * this file supplies the hooks and the per-instance state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "an_internal.h"
#include "tracewire/mti_plugin.h"
#include "tracewire/io/file.h"

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

/* Per-instance state (tw_mti_instance.state). */
struct inst {
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

static eslapi_CADIReturn_t an_register(struct tw_mti_instance *mi, eslapi_CAInterface *sim)
{
  struct inst *in = mi->state;
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

static int an_instantiate(struct tw_mti_instance *mi)
{
  struct inst *in = mi->state;
  struct tw_an_cfg cfg = {.starve_ns = (uint64_t)tw_mti_instance_int(mi, "starve_ms") * 1000000ull};
  return tw_an_create(&in->an, &cfg) < 0 ? -1 : 0;
}

static void an_release(struct tw_mti_instance *mi)
{
  struct inst *in = mi->state;
  const char *path = tw_mti_instance_string(mi, "file");
  tw_an_finish(in->an);
  if (path[0]) {
    char err[400];
    FILE *f = tw_file_fopen_w(path, err, sizeof err); /* never over the trace; - is stdout */
    if (f) {
      if (tw_mti_instance_bool(mi, "json"))
        tw_an_write_json(in->an, f);
      else
        tw_an_write_text(in->an, f);
      int bad = ferror(f) != 0;
      bad |= (f == stdout ? fflush(f) : fclose(f)) != 0;
      if (bad)
        tw_mti_instance_fail(mi, "%s: write failed: %s", path, strerror(errno));
    } else {
      tw_mti_instance_fail(mi, "%s", err);
    }
  }
  tw_an_destroy(in->an);
  free(in->binds);
}

static const struct tw_mti_plugin_desc analysis = {
  .prefix = "analysis",
  .params = params,
  .nparams = NPARAMS,
  .state_size = sizeof(struct inst),
  .instantiate = an_instantiate,
  .register_simulation = an_register,
  .release = an_release,
};

static struct tw_mti_factory factory = TW_MTI_FACTORY_INIT(analysis);

MTI_PluginFactory *tw_an_plugin_factory(void)
{
  return &factory.base;
}

struct tw_an *tw_an_plugin_engine(MTI_PluginInstance *inst)
{
  struct tw_mti_instance *mi = tw_mti_instance_of(inst, &analysis);
  return mi ? ((struct inst *)mi->state)->an : NULL;
}
