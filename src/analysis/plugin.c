/*
 * The "analysis" MTI plugin: the engine (engine.c) observes the trace
 * model's RTOS state model (TraceContext::GetModel, revision 1), which the
 * system feeds, so the plugin needs no event class of its own: each
 * event's changes reach the engine before the event's callbacks. A core
 * is named after its component (the TraceContext's current component when
 * the core first changes).
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
#include "tracewire/error.h"
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

/* Per-instance state (tw_mti_instance.state). */
struct inst {
  struct tw_an *an;
  struct tw_rtos *model;
  uint64_t starve_ns;
  const TW_TraceContext *ctx;
  MTI_SystemTraceInterface *sys;
};

/* A core the engine first hears of gets the name of the component being
 * fed (its first event's). */
static void name_core(void *ctx, struct tw_an *an, int core)
{
  struct inst *in = ctx;
  const MTI_ComponentTraceInterface *comp = in->ctx->vtbl->GetCurrentComponent(in->ctx);
  for (int i = 0; comp && i < in->sys->vtbl->GetNumOfTraceComponents(in->sys); i++)
    if (eslapi_ObtainPointer(in->sys->vtbl->GetComponentTrace(in->sys, i),
                             MTI_ComponentTraceInterface) == comp)
      tw_an_set_core_name(an, core, in->sys->vtbl->GetComponentTracePath(in->sys, i));
}

static eslapi_CADIReturn_t an_register(struct tw_mti_instance *mi, eslapi_CAInterface *sim)
{
  struct inst *in = mi->state;
  struct tw_an_cfg cfg = {.starve_ns = in->starve_ns};
  in->sys = eslapi_ObtainPointer(sim, MTI_SystemTraceInterface);
  in->ctx = (const TW_TraceContext *)eslapi_ObtainInterface(sim, TW_TraceContext_IFNAME, 1, NULL);
  if (!in->sys || !in->ctx)
    return CADI_STATUS_GeneralError; /* a simulation without the state model */
  in->model = in->ctx->vtbl->GetModel(in->ctx);
  if (tw_an_create_on(&in->an, in->model, &cfg) < 0)
    return CADI_STATUS_InsufficientResources;
  tw_an_on_core(in->an, name_core, in);
  return CADI_STATUS_OK;
}

static int an_instantiate(struct tw_mti_instance *mi)
{
  struct inst *in = mi->state;
  in->starve_ns = (uint64_t)tw_mti_instance_int(mi, "starve_ms") * 1000000ull;
  return 0; /* the engine is made at RegisterSimulation, on the simulation's model */
}

static void an_release(struct tw_mti_instance *mi)
{
  struct inst *in = mi->state;
  const char *path = tw_mti_instance_string(mi, "file");
  if (!in->an)
    return; /* never registered */
  tw_an_finish(in->an);
  if (path[0]) {
    char err[400];
    FILE *f = tw_file_fopen_w(path, err, sizeof err); /* never over the trace; - is stdout */
    if (f) {
      int rc = tw_mti_instance_bool(mi, "json") ? tw_an_write_json(in->an, f)
                                                : tw_an_write_text(in->an, f);
      if (ferror(f) && !rc)
        rc = TW_EIO;
      if ((f == stdout ? fflush(f) : fclose(f)) != 0 && !rc)
        rc = TW_EIO;
      if (rc)
        tw_mti_instance_fail(mi, "%s: %s", path, rc == TW_EIO ? strerror(errno) : tw_strerror(rc));
    } else {
      tw_mti_instance_fail(mi, "%s", err);
    }
  } else if (tw_an_error(in->an)) {
    tw_mti_instance_fail(mi, "%s (the results are incomplete)", tw_strerror(tw_an_error(in->an)));
  }
  tw_an_destroy(in->an);
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
