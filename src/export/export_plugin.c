/*
 * Every exporter as an MTI plugin (docs/mti.md): one factory per format,
 * built into tw_export (`tracewire export` instantiates it directly) and
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
 *
 * The factories and instances are mti_simple's (tracewire/mti_plugin.h):
 * one desc per format, all sharing the hooks below, desc->data naming the
 * format and holding its last instance's status for tw_export_plugin_status.
 */
#include <stdlib.h>
#include <string.h>
#include "export_internal.h"
#include "tracewire/mti_plugin.h"

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

/* A format's desc->data: what its instances write and their last status. */
struct fmt {
  const char *format;
  int status;
  char msg[400];
};

/* Per-instance state (tw_mti_instance.state). */
struct inst {
  struct fmt *fmt;
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

static eslapi_CADIReturn_t ex_register(struct tw_mti_instance *mi, eslapi_CAInterface *sim)
{
  struct inst *in = mi->state;
  struct fmt *fm = in->fmt;
  MTI_SystemTraceInterface *sys = eslapi_ObtainPointer(sim, MTI_SystemTraceInterface);
  struct tw_export_cfg cfg = {0};
  int rc;
  in->ctx = eslapi_ObtainPointer(sim, TW_TraceContext);
  if (!sys || !in->ctx) {
    snprintf(fm->msg, sizeof fm->msg, "the simulation has no TraceContext");
    return CADI_STATUS_GeneralError;
  }
  cfg.format = fm->format;
  cfg.out = tw_mti_instance_string(mi, "out");
  cfg.packet_bytes = (size_t)tw_mti_instance_int(mi, "packet_bytes");
  cfg.clock_offset_ns = tw_mti_instance_int(mi, "clock_offset_ns");
  cfg.load_window_ns = (uint64_t)tw_mti_instance_int(mi, "load_window_ns");
  if (!*cfg.out) {
    snprintf(fm->msg, sizeof fm->msg, "parameter TRACE.%s.out (the output path) is required",
             mi->name);
    fm->status = TW_EINVAL;
    return CADI_STATUS_IllegalArgument;
  }
  if ((rc = tw_export_open(&in->x, &cfg, fm->msg, sizeof fm->msg)) < 0) {
    fm->status = rc;
    return CADI_STATUS_GeneralError; /* the message is printed at Release */
  }
  return register_sources(in, sys);
}

/* The format's status is its latest instance's. */
static int ex_instantiate(struct tw_mti_instance *mi)
{
  struct inst *in = mi->state;
  in->fmt = mi->desc->data;
  in->fmt->status = 0;
  in->fmt->msg[0] = 0;
  return 0;
}

static void ex_release(struct tw_mti_instance *mi)
{
  struct inst *in = mi->state;
  struct fmt *fm = in->fmt;
  if (in->x) {
    char msg[400];
    int rc = tw_export_close(in->x, msg, sizeof msg);
    if (rc < 0 && !fm->status) {
      fm->status = rc;
      snprintf(fm->msg, sizeof fm->msg, "%s", msg);
    }
  }
  if (fm->status)
    fprintf(stderr, "tracewire: %s: %s\n", mi->name, fm->msg);
}

/* ---- factories ---- */

static struct fmt fmts[] = {{"ctf", 0, ""}, {"perfetto", 0, ""}, {"json", 0, ""}, {"csv", 0, ""}};

#define EXPORT_DESC(i, pfx)                                                                    \
  {.prefix = pfx, .params = params, .nparams = NPARAMS, .state_size = sizeof(struct inst),     \
   .instantiate = ex_instantiate, .register_simulation = ex_register, .release = ex_release,   \
   .data = &fmts[i]}

static const struct tw_mti_plugin_desc descs[] = {
  EXPORT_DESC(0, "export_ctf"), EXPORT_DESC(1, "export_perfetto"),
  EXPORT_DESC(2, "export_json"), EXPORT_DESC(3, "export_csv")};

static struct tw_mti_factory factories[] = {
  TW_MTI_FACTORY_INIT(descs[0]), TW_MTI_FACTORY_INIT(descs[1]), TW_MTI_FACTORY_INIT(descs[2]),
  TW_MTI_FACTORY_INIT(descs[3])};

#define NFORMATS (sizeof fmts / sizeof fmts[0])

static int fmt_index(const char *format)
{
  for (size_t i = 0; format && i < NFORMATS; i++)
    if (!strcmp(fmts[i].format, format))
      return (int)i;
  return -1;
}

MTI_PluginFactory *tw_export_plugin_factory(const char *format)
{
  int i = fmt_index(format);
  return i < 0 ? NULL : &factories[i].base;
}

int tw_export_plugin_status(const char *format, char *err, size_t errcap)
{
  int i = fmt_index(format);
  if (i < 0)
    return TW_ENOENT;
  if (err && errcap)
    snprintf(err, errcap, "%s", fmts[i].msg);
  return fmts[i].status;
}

struct tw_export *tw_export_plugin_exporter(MTI_PluginInstance *instance)
{
  for (size_t i = 0; i < NFORMATS; i++) {
    struct tw_mti_instance *mi = tw_mti_instance_of(instance, &descs[i]);
    if (mi)
      return ((struct inst *)mi->state)->x;
  }
  return NULL;
}
