/*
 * Every exporter as an MTI plugin (docs/mti.md): one factory per format,
 * built into tw_host (`tracewire export` instantiates it directly) and
 * wrapped as libtw_export_<format>.so (src/export/plugins/) for
 * `tracewire run --plugin`.
 *
 * An instance exports the decoded events, not MTI records: it registers a
 * class with mask 0 (no values, so the model builds nothing for it) on
 * every event source of every component and, in the callback, asks the
 * TraceContext for the event being delivered. The dump_state sources
 * (TASKS, MUTEXES, SEMAPHORES) report model state, not trace events, and
 * are left alone. The output is opened at RegisterSimulation, so a bad
 * path fails before the trace runs, and completed at Release.
 */
#include <stdlib.h>
#include <string.h>
#include "export_internal.h"
#include "tracewire/mti_host.h"

enum { P_OUT, P_PACKET, P_OFFSET, P_WINDOW, NPARAMS };

static const eslapi_CADIParameterInfo_t params[NPARAMS] = {
  {.id = 1, .name = "out", .dataType = CADI_PARAM_STRING,
   .description = "Output: a directory (ctf, csv) or a file (perfetto, json)",
   .defaultString = ""},
  {.id = 2, .name = "packet_bytes", .dataType = CADI_PARAM_INT,
   .description = "CTF packet size bound in bytes", .minValue = 8192,
   .maxValue = 64ll << 20, .defaultValue = 65536},
  {.id = 3, .name = "clock_offset_ns", .dataType = CADI_PARAM_INT,
   .description = "CTF clock offset: the target clock's zero in ns since the epoch",
   .minValue = -(1ll << 62), .maxValue = 1ll << 62, .defaultValue = 0},
  {.id = 4, .name = "load_window_ns", .dataType = CADI_PARAM_INT,
   .description = "CPU-load counter window (perfetto, json)", .minValue = 1000,
   .maxValue = 1000000000000ll, .defaultValue = 1000000},
};

struct fac {
  MTI_PluginFactory base;
  const char *format;
  char prefix[32];
  int status;
  char msg[400];
};

struct inst {
  MTI_PluginInstance base;
  struct tw_mti_params params;
  eslapi_CADIParameterValue_t values[NPARAMS];
  char name[CADI_NAME_SIZE];
  struct fac *fac;
  struct tw_export *x;
  const TW_TraceContext *ctx;
};

static void on_event(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct inst *in = user;
  const struct tw_event *ev = in->ctx->vtbl->GetCurrentEvent(in->ctx);
  (void)ec;
  (void)rec;
  if (ev && in->x)
    tw_export_event(in->x, ev); /* the first error is kept and reported at Release */
}

static int is_state_source(const char *name)
{
  return !strcmp(name, "TASKS") || !strcmp(name, "MUTEXES") || !strcmp(name, "SEMAPHORES");
}

static eslapi_CADIReturn_t register_sources(struct inst *in, MTI_SystemTraceInterface *sys)
{
  for (int i = 0; i < sys->vtbl->GetNumOfTraceComponents(sys); i++) {
    MTI_ComponentTraceInterface *c = eslapi_ObtainPointer(sys->vtbl->GetComponentTrace(sys, i),
                                                          MTI_ComponentTraceInterface);
    if (!c)
      return CADI_STATUS_GeneralError;
    for (int k = 0; k < c->vtbl->GetNumOfTraceSources(c); k++) {
      MTI_TraceSource *src = c->vtbl->GetTraceSource(c, k);
      MTI_EventClass *ec;
      if (is_state_source(src->vtbl->GetName(src)))
        continue;
      ec = src->vtbl->CreateEventClass(src, 0);
      if (!ec || ec->vtbl->RegisterCallback(ec, on_event, in) != MTI_OK)
        return CADI_STATUS_GeneralError;
    }
  }
  return CADI_STATUS_OK;
}

static eslapi_CADIReturn_t inst_register(MTI_PluginInstance *self, eslapi_CAInterface *sim)
{
  struct inst *in = (struct inst *)self;
  MTI_SystemTraceInterface *sys = eslapi_ObtainPointer(sim, MTI_SystemTraceInterface);
  struct tw_export_cfg cfg = {0};
  int rc;
  in->ctx = eslapi_ObtainPointer(sim, TW_TraceContext);
  if (!sys || !in->ctx) {
    snprintf(in->fac->msg, sizeof in->fac->msg, "the simulation has no TraceContext");
    return CADI_STATUS_GeneralError;
  }
  cfg.format = in->fac->format;
  cfg.out = tw_mti_params_get(&in->params, "out")->stringValue;
  cfg.packet_bytes = (size_t)tw_mti_params_get(&in->params, "packet_bytes")->intValue;
  cfg.clock_offset_ns = tw_mti_params_get(&in->params, "clock_offset_ns")->intValue;
  cfg.load_window_ns = (uint64_t)tw_mti_params_get(&in->params, "load_window_ns")->intValue;
  if (!*cfg.out) {
    snprintf(in->fac->msg, sizeof in->fac->msg,
             "parameter TRACE.%s.out (the output path) is required", in->name);
    in->fac->status = TW_EINVAL;
    return CADI_STATUS_IllegalArgument;
  }
  if ((rc = tw_export_open(&in->x, &cfg, in->fac->msg, sizeof in->fac->msg)) < 0) {
    in->fac->status = rc;
    return CADI_STATUS_GeneralError; /* the message is printed at Release */
  }
  return register_sources(in, sys);
}

static void inst_release(MTI_PluginInstance *self)
{
  struct inst *in = (struct inst *)self;
  if (in->x) {
    char msg[400];
    int rc = tw_export_close(in->x, msg, sizeof msg);
    if (rc < 0 && !in->fac->status) {
      in->fac->status = rc;
      snprintf(in->fac->msg, sizeof in->fac->msg, "%s", msg);
    }
  }
  if (in->fac->status)
    fprintf(stderr, "tracewire: %s: %s\n", in->name, in->fac->msg);
  free(in);
}

static const char *inst_name(const MTI_PluginInstance *self)
{
  return ((const struct inst *)self)->name;
}

static eslapi_CAInterface *inst_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                       eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  struct inst *in = (struct inst *)self;
  if (!n)
    return NULL;
  if (!strcmp(n, MTI_ParameterInterface_IFNAME))
    return in->params.base.vtbl->ObtainInterface((eslapi_CAInterface *)&in->params.base, n,
                                                  min, rev);
  if ((!strcmp(n, MTI_PluginInstance_IFNAME) || !strcmp(n, eslapi_CAInterface_IFNAME)) &&
      min == 0) {
    if (rev)
      *rev = 0;
    return self;
  }
  return NULL;
}

static const struct MTI_PluginInstance_vtbl inst_vtbl = {
  MTI_PluginInstance_IFREVISION, inst_obtain, inst_register, inst_release, inst_name};

/* ---- factories ---- */

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
  struct fac *f = (struct fac *)self;
  struct inst *in = calloc(1, sizeof *in);
  if (!in)
    return NULL;
  in->base.vtbl = &inst_vtbl;
  in->fac = f;
  f->status = 0;
  f->msg[0] = 0;
  snprintf(in->name, sizeof in->name, "%s", name);
  if (tw_mti_params_init(&in->params, (eslapi_CAInterface *)&in->base, params, in->values,
                         NPARAMS, n, v) < 0) {
    free(in);
    return NULL;
  }
  return (eslapi_CAInterface *)&in->base;
}

static void fac_release(MTI_PluginFactory *self) { (void)self; }

static const char *fac_prefix(MTI_PluginFactory *self)
{
  return ((struct fac *)self)->prefix;
}

static const struct MTI_PluginFactory_vtbl fac_vtbl = {
  MTI_PluginFactory_IFREVISION, fac_obtain, fac_nparams, fac_infos, fac_instantiate,
  fac_release, fac_prefix};

static struct fac factories[] = {
  {{&fac_vtbl}, "ctf", "export_ctf", 0, ""},
  {{&fac_vtbl}, "perfetto", "export_perfetto", 0, ""},
  {{&fac_vtbl}, "json", "export_json", 0, ""},
  {{&fac_vtbl}, "csv", "export_csv", 0, ""},
};

static struct fac *fac_by_format(const char *format)
{
  for (size_t i = 0; format && i < sizeof factories / sizeof factories[0]; i++)
    if (!strcmp(factories[i].format, format))
      return &factories[i];
  return NULL;
}

MTI_PluginFactory *tw_export_plugin_factory(const char *format)
{
  struct fac *f = fac_by_format(format);
  return f ? &f->base : NULL;
}

int tw_export_plugin_status(const char *format, char *msg, size_t msglen)
{
  struct fac *f = fac_by_format(format);
  if (!f)
    return TW_ENOENT;
  if (msg && msglen)
    snprintf(msg, msglen, "%s", f->msg);
  return f->status;
}

struct tw_export *tw_export_plugin_exporter(MTI_PluginInstance *instance)
{
  return instance && instance->vtbl == &inst_vtbl ? ((struct inst *)instance)->x : NULL;
}
