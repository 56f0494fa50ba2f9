/*
 * switches: counts context switches per core and per task.
 *
 * Per core, a 64-bit MTI counter on the TASK_SWITCH source counts every
 * switch (the model bumps it; no callback needed). The per-task breakdown
 * needs the task number, so an event class selecting only the `task`
 * field feeds a callback. Interrupt entry/exit (the field's enum constants
 * EnterInt/LeaveInt) are counted apart, so for each core
 *     counter == sum(per task) + interrupt entries + interrupt exits.
 * The report is written when the instance is released.
 *
 * Parameters: TRACE.<instance>.file=<path> ("-" = stdout, the default),
 *             TRACE.<instance>.min=<n> (only tasks with at least n switches;
 *             settable at run time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/mti.h"
#include "tracewire/model/mti_host.h"

enum { P_FILE, P_MIN, NPARAMS };

static const eslapi_CADIParameterInfo_t params[NPARAMS] = {
  {.id = 1, .name = "file", .dataType = CADI_PARAM_STRING,
   .description = "Report file; - for stdout", .defaultString = "-"},
  {.id = 2, .name = "min", .dataType = CADI_PARAM_INT, .isRunTime = 1,
   .description = "Report only tasks with at least this many switches",
   .minValue = 0, .maxValue = 1000000000, .defaultValue = 0},
};

struct core {
  const MTI_ComponentTraceInterface *comp;
  const char *path;
  uint64_t switches; /* the MTI counter */
  uint64_t interrupts;
  uint64_t *per_task; /* indexed by task number */
  size_t ntasks;
  MTI_ValueIndex vtask;
  const MTI_EventFieldType *ftask;
};

struct inst {
  MTI_PluginInstance base;
  struct tw_mti_params params;
  eslapi_CADIParameterValue_t values[NPARAMS];
  char name[CADI_NAME_SIZE];
  const TW_TraceContext *ctx;
  struct core *cores;
  int ncores;
};

static eslapi_CAInterface *inst_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                       eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  struct inst *in = (struct inst *)self;
  if (!n)
    return NULL;
  if (!strcmp(n, MTI_ParameterInterface_IFNAME))
    return in->params.base.vtbl->ObtainInterface((eslapi_CAInterface *)&in->params.base, n,
                                                  min, rev);
  if ((!strcmp(n, MTI_PluginInstance_IFNAME) && min <= MTI_PluginInstance_IFREVISION) ||
      (!strcmp(n, eslapi_CAInterface_IFNAME) && min <= eslapi_CAInterface_IFREVISION)) {
    if (rev)
      *rev = 0;
    return self;
  }
  return NULL;
}

static void on_switch(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct core *c = user;
  uint32_t task = MTI_EventRecord_GetAsU32(rec, ec, c->vtask);
  if (c->ftask->vtbl->LookupEnum(c->ftask, task)) { /* EnterInt / LeaveInt */
    c->interrupts++;
    return;
  }
  if (task >= c->ntasks) {
    size_t n = c->ntasks ? c->ntasks : 16;
    uint64_t *g;
    while (n <= task)
      n *= 2;
    if (!(g = realloc(c->per_task, n * sizeof *g)))
      return;
    memset(g + c->ntasks, 0, (n - c->ntasks) * sizeof *g);
    c->per_task = g;
    c->ntasks = n;
  }
  c->per_task[task]++;
}

static int setup_core(struct core *c, const MTI_ComponentTraceInterface *comp, const char *path)
{
  MTI_TraceSource *src = comp->vtbl->GetTraceSourceByName(comp, "TASK_SWITCH");
  const MTI_EventFieldType *f;
  MTI_EventClass *ec;
  c->comp = comp;
  c->path = path;
  if (!src || !(f = src->vtbl->GetFieldByName(src, "task")))
    return 0; /* a core without task switches: nothing to count */
  ec = src->vtbl->CreateEventClass(src, 1u << f->vtbl->GetIndex(f));
  if (!ec || src->vtbl->RegisterCounter(src, &c->switches) != MTI_OK ||
      ec->vtbl->RegisterCallback(ec, on_switch, c) != MTI_OK)
    return -1;
  c->vtask = ec->vtbl->GetValueIndex(ec, "task");
  c->ftask = ec->vtbl->GetEventField(ec, c->vtask);
  return 0;
}

static eslapi_CADIReturn_t inst_register(MTI_PluginInstance *self, eslapi_CAInterface *sim)
{
  struct inst *in = (struct inst *)self;
  MTI_SystemTraceInterface *sys = eslapi_ObtainPointer(sim, MTI_SystemTraceInterface);
  int n;
  if (!sys)
    return CADI_STATUS_GeneralError;
  in->ctx = eslapi_ObtainPointer(sim, TW_TraceContext);
  n = sys->vtbl->GetNumOfTraceComponents(sys);
  if (n > 0 && !(in->cores = calloc((size_t)n, sizeof *in->cores)))
    return CADI_STATUS_InsufficientResources;
  for (int i = 0; i < n; i++) {
    MTI_ComponentTraceInterface *comp = eslapi_ObtainPointer(
        sys->vtbl->GetComponentTrace(sys, i), MTI_ComponentTraceInterface);
    if (!comp || setup_core(&in->cores[i], comp, sys->vtbl->GetComponentTracePath(sys, i)) < 0)
      return CADI_STATUS_GeneralError;
    in->ncores = i + 1;
  }
  return CADI_STATUS_OK;
}

static void report(struct inst *in, FILE *f)
{
  int64_t min = tw_mti_params_get(&in->params, "min")->intValue;
  for (int i = 0; i < in->ncores; i++) {
    struct core *c = &in->cores[i];
    fprintf(f, "%s %s: %llu switches, %llu interrupt entries/exits\n", in->name, c->path,
            (unsigned long long)c->switches, (unsigned long long)c->interrupts);
    for (size_t t = 0; t < c->ntasks; t++) {
      const char *name = in->ctx ? in->ctx->vtbl->LookupObjectName(in->ctx, c->comp, TW_OBJ_TASK,
                                                                   (uint32_t)t)
                                 : NULL;
      if (c->per_task[t] && (int64_t)c->per_task[t] >= min)
        fprintf(f, "%s %s: task %zu %s %llu\n", in->name, c->path, t, name ? name : "-",
                (unsigned long long)c->per_task[t]);
    }
  }
}

static void inst_release(MTI_PluginInstance *self)
{
  struct inst *in = (struct inst *)self;
  const char *path = tw_mti_params_get(&in->params, "file")->stringValue;
  FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
  if (f) {
    report(in, f);
    if (f != stdout)
      fclose(f);
    else
      fflush(f);
  } else {
    fprintf(stderr, "%s: cannot write %s\n", in->name, path);
  }
  for (int i = 0; i < in->ncores; i++)
    free(in->cores[i].per_task);
  free(in->cores);
  free(in);
}

static const char *inst_name(const MTI_PluginInstance *self)
{
  return ((const struct inst *)self)->name;
}

static const struct MTI_PluginInstance_vtbl inst_vtbl = {
  .iVersion = MTI_PluginInstance_IFREVISION,
  .ObtainInterface = inst_obtain,
  .RegisterSimulation = inst_register,
  .Release = inst_release,
  .GetName = inst_name,
};

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
  return (eslapi_CAInterface *)&in->base;
}

static void fac_release(MTI_PluginFactory *self) { (void)self; }

static const char *fac_prefix(MTI_PluginFactory *self)
{
  (void)self;
  return "switches";
}

static const struct MTI_PluginFactory_vtbl fac_vtbl = {
  .iVersion = MTI_PluginFactory_IFREVISION,
  .ObtainInterface = fac_obtain,
  .GetNumberOfParameters = fac_nparams,
  .GetParameterInfos = fac_infos,
  .Instantiate = fac_instantiate,
  .Release = fac_release,
  .GetPrefix = fac_prefix,
};
static MTI_PluginFactory factory = {.vtbl = &fac_vtbl};

TW_MTI_PLUGIN_EXPORT(&factory)
