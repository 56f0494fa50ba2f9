/*
 * The "analysis" MTI plugin: feeds every decoded event to the engine
 * (engine.c), which feeds its RTOS state model. It uses only what a user
 * plugin has: a class with field mask 0 (no values: the model builds no
 * record for it) on every event source of every component, and the
 * TraceContext's current event and component, from which the engine
 * takes the event and each core's name.
 *
 * Parameters: starve_ms (starvation threshold), json (JSON output), file
 * (where Release writes the results: "-" stdout, "" nothing).
 *
 * The factory and instances are mti_simple's (tracewire/mti_plugin.h);
 * this file supplies the hooks and the per-instance state.
 */
#include <stdlib.h>
#include <string.h>
#include "an_internal.h"
#include "tracewire/error.h"
#include "tracewire/mti_plugin.h"

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

/* Per-instance state (tw_mti_instance.state). */
struct inst {
  struct tw_an *an;
  const TW_TraceContext *ctx;
  MTI_SystemTraceInterface *sys;
  uint8_t *named;       /* by stream: its core has its component's name */
  size_t nnamed;
};

/* The core of a stream's first event gets its component's path. */
static void name_core(struct inst *in, const struct tw_event *ev)
{
  const MTI_ComponentTraceInterface *comp = in->ctx->vtbl->GetCurrentComponent(in->ctx);
  const struct tw_rtos_core *mc = tw_rtos_core_of(tw_an_model(in->an), ev->stream);
  if (ev->stream >= in->nnamed &&
      tw__an_grow(in->an, &in->named, &in->nnamed, (size_t)ev->stream + 1, 1) < 0)
    return;
  in->named[ev->stream] = 1;
  for (int i = 0; mc && comp && i < in->sys->vtbl->GetNumOfTraceComponents(in->sys); i++)
    if (eslapi_ObtainPointer(in->sys->vtbl->GetComponentTrace(in->sys, i),
                             MTI_ComponentTraceInterface) == comp)
      tw_an_set_core_name(in->an, (int)mc->id, in->sys->vtbl->GetComponentTracePath(in->sys, i));
}

static void on_record(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct inst *in = user;
  const struct tw_event *ev = in->ctx->vtbl->GetCurrentEvent(in->ctx);
  (void)ec;
  (void)rec;
  if (!ev)
    return;
  tw_an_feed(in->an, ev); /* an error is kept: tw_an_error(), the output, Release */
  if (ev->stream >= in->nnamed || !in->named[ev->stream])
    name_core(in, ev);
}

static int is_state_source(const char *name)
{
  return !strcmp(name, "TASKS") || !strcmp(name, "MUTEXES") || !strcmp(name, "SEMAPHORES");
}

static eslapi_CADIReturn_t an_register(struct tw_mti_instance *mi, eslapi_CAInterface *sim)
{
  struct inst *in = mi->state;
  in->sys = eslapi_ObtainPointer(sim, MTI_SystemTraceInterface);
  in->ctx = eslapi_ObtainPointer(sim, TW_TraceContext);
  if (!in->sys || !in->ctx)
    return CADI_STATUS_GeneralError;
  for (int i = 0; i < in->sys->vtbl->GetNumOfTraceComponents(in->sys); i++) {
    MTI_ComponentTraceInterface *c = eslapi_ObtainPointer(
        in->sys->vtbl->GetComponentTrace(in->sys, i), MTI_ComponentTraceInterface);
    if (!c)
      return CADI_STATUS_GeneralError;
    for (int k = 0; k < c->vtbl->GetNumOfTraceSources(c); k++) {
      MTI_TraceSource *src = c->vtbl->GetTraceSource(c, k);
      MTI_EventClass *ec;
      if (is_state_source(src->vtbl->GetName(src)))
        continue;
      ec = src->vtbl->CreateEventClass(src, 0);
      if (!ec || ec->vtbl->RegisterCallback(ec, on_record, in) != MTI_OK)
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
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    int rc;
    if (f) {
      rc = tw_mti_instance_bool(mi, "json") ? tw_an_write_json(in->an, f)
                                            : tw_an_write_text(in->an, f);
      if (f != stdout && fclose(f) != 0 && !rc)
        rc = TW_EIO;
      if (rc)
        fprintf(stderr, "%s: %s: %s\n", mi->name, path, tw_strerror(rc));
    } else {
      fprintf(stderr, "%s: cannot write %s\n", mi->name, path);
    }
  } else if (tw_an_error(in->an)) {
    fprintf(stderr, "%s: %s (the results are incomplete)\n", mi->name,
            tw_strerror(tw_an_error(in->an)));
  }
  tw_an_destroy(in->an);
  free(in->named);
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
