/*
 * The PluginFactory and PluginInstance behind TW_MTI_SIMPLE_PLUGIN
 * (tracewire/mti_plugin.h): what every plugin would otherwise write by
 * hand. Linked into plugins from the static tw_model library, so it uses
 * only libc and mti_params.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/mti_plugin.h"

/* ---- PluginInstance ------------------------------------------------------------- */

static eslapi_CAInterface *inst_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                       eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  struct tw_mti_instance *in = (struct tw_mti_instance *)self;
  if (!n)
    return NULL;
  if (!strcmp(n, MTI_ParameterInterface_IFNAME)) {
    if (min > MTI_ParameterInterface_IFREVISION)
      return NULL;
    if (rev)
      *rev = MTI_ParameterInterface_IFREVISION;
    return (eslapi_CAInterface *)&in->params.base;
  }
  if ((!strcmp(n, MTI_PluginInstance_IFNAME) || !strcmp(n, eslapi_CAInterface_IFNAME)) &&
      min == 0) {
    if (rev)
      *rev = 0;
    return self;
  }
  return NULL;
}

static eslapi_CADIReturn_t inst_register(MTI_PluginInstance *self, eslapi_CAInterface *sim)
{
  struct tw_mti_instance *in = (struct tw_mti_instance *)self;
  in->simulation = sim;
  return in->desc->register_simulation ? in->desc->register_simulation(in, sim)
                                       : CADI_STATUS_OK;
}

void tw_mti_instance_fail(struct tw_mti_instance *in, const char *fmt, ...)
{
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  eslapi_if_rev_t rev = 0;
  TW_TraceContext *ctx = NULL;
  if (in->simulation)
    ctx = (TW_TraceContext *)in->simulation->vtbl->ObtainInterface(
        in->simulation, TW_TraceContext_IFNAME, 2, &rev);
  if (ctx && rev >= 2)
    ctx->vtbl->ReportFailure(ctx, in->name, what);
  else
    fprintf(stderr, "%s: %s\n", in->name, what);
}

static void inst_free(struct tw_mti_instance *in)
{
  free(in->values);
  free(in->state);
  free(in);
}

static void inst_release(MTI_PluginInstance *self)
{
  struct tw_mti_instance *in = (struct tw_mti_instance *)self;
  if (in->desc->release)
    in->desc->release(in);
  inst_free(in);
}

static const char *inst_name(const MTI_PluginInstance *self)
{
  return ((const struct tw_mti_instance *)self)->name;
}

static const struct MTI_PluginInstance_vtbl inst_vtbl = {
  .iVersion = MTI_PluginInstance_IFREVISION,
  .ObtainInterface = inst_obtain,
  .RegisterSimulation = inst_register,
  .Release = inst_release,
  .GetName = inst_name,
};

/* ---- PluginFactory --------------------------------------------------------------- */

#define DESC(self) (((const struct tw_mti_factory *)(self))->desc)

static eslapi_CAInterface *fac_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                      eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  if (n && !strcmp(n, MTI_PluginFactory_IFNAME) && min <= MTI_PluginFactory_IFREVISION) {
    if (rev)
      *rev = MTI_PluginFactory_IFREVISION;
    return self;
  }
  if (n && !strcmp(n, eslapi_CAInterface_IFNAME) && min == 0) {
    if (rev)
      *rev = 0;
    return self;
  }
  return NULL;
}

static uint32_t fac_nparams(MTI_PluginFactory *self) { return DESC(self)->nparams; }

static eslapi_CADIReturn_t fac_infos(MTI_PluginFactory *self, eslapi_CADIParameterInfo_t *l)
{
  const struct tw_mti_plugin_desc *d = DESC(self);
  if (!d->nparams)
    return CADI_STATUS_CmdNotSupported;
  memcpy(l, d->params, d->nparams * sizeof *l);
  return CADI_STATUS_OK;
}

static eslapi_CAInterface *fac_instantiate(MTI_PluginFactory *self, const char *name, uint32_t n,
                                           eslapi_CADIParameterValue_t *v)
{
  const struct tw_mti_plugin_desc *d = DESC(self);
  struct tw_mti_instance *in = calloc(1, sizeof *in);
  if (!in)
    return NULL;
  in->base.vtbl = &inst_vtbl;
  in->desc = d;
  snprintf(in->name, sizeof in->name, "%s", name ? name : d->prefix);
  in->values = calloc(d->nparams ? d->nparams : 1, sizeof *in->values);
  in->state = calloc(1, d->state_size ? d->state_size : 1);
  if (!in->values || !in->state ||
      tw_mti_params_init(&in->params, (eslapi_CAInterface *)&in->base, d->params, in->values,
                         d->nparams, n, v) < 0 ||
      (d->instantiate && d->instantiate(in) != 0)) {
    inst_free(in);
    return NULL;
  }
  return (eslapi_CAInterface *)&in->base;
}

static void fac_release(MTI_PluginFactory *self) { (void)self; }
static const char *fac_prefix(MTI_PluginFactory *self) { return DESC(self)->prefix; }

const struct MTI_PluginFactory_vtbl tw_mti_factory_vtbl = {
  .iVersion = MTI_PluginFactory_IFREVISION,
  .ObtainInterface = fac_obtain,
  .GetNumberOfParameters = fac_nparams,
  .GetParameterInfos = fac_infos,
  .Instantiate = fac_instantiate,
  .Release = fac_release,
  .GetPrefix = fac_prefix,
};

struct tw_mti_instance *tw_mti_instance_of(MTI_PluginInstance *pi,
                                           const struct tw_mti_plugin_desc *desc)
{
  /* Only this helper's instances carry inst_vtbl, so the cast is safe after the check. */
  struct tw_mti_instance *in = (struct tw_mti_instance *)pi;
  return pi && pi->vtbl == &inst_vtbl && in->desc == desc ? in : NULL;
}

/* ---- parameter values ------------------------------------------------------------- */

int64_t tw_mti_instance_int(const struct tw_mti_instance *in, const char *name)
{
  const eslapi_CADIParameterValue_t *v = tw_mti_params_get(&in->params, name);
  return v ? v->intValue : 0;
}

bool tw_mti_instance_bool(const struct tw_mti_instance *in, const char *name)
{
  const eslapi_CADIParameterValue_t *v = tw_mti_params_get(&in->params, name);
  return v && v->boolValue;
}

const char *tw_mti_instance_string(const struct tw_mti_instance *in, const char *name)
{
  const eslapi_CADIParameterValue_t *v = tw_mti_params_get(&in->params, name);
  return v ? v->stringValue : "";
}
