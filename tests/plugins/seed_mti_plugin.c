/*
 * A trace plugin written to the MTI manual (spec 003) and nothing else: the
 * seed's header names, the seed's function names (GetNumberOfTraceComponents,
 * GetNumberOfTraceSources, GetNumberOfEnumConstants), and GetCAInterface as
 * "the entry point and only function of a trace plugin" (no tracewire ABI
 * stamp, no tracewire helper linked). tests/test_mti_seed_plugin.c loads it.
 *
 * It counts the MUTEX events of every component by type (the walkthrough:
 * PluginFactory -> PluginInstance -> SystemTraceInterface -> components ->
 * trace sources -> an EventClass of one field -> a callback, plus a counter)
 * and writes, when released, one line per component to its "file"
 * parameter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eslapi/CAInterface.h"
#include "MTI/ModelTraceInterface.h"
#include "MTI/ParameterInterface.h"
#include "MTI/PluginFactory.h"
#include "MTI/PluginInstance.h"
#include "MTI/PluginInterface.h"

#define MAX_COMPONENTS 8
#define MAX_TYPES 8

struct component {
  const char *path;
  int nsources;
  uint64_t events;             /* RegisterCounter */
  uint64_t by_type[MAX_TYPES]; /* the callback */
  unsigned nconstants;
  const MTI_EventFieldType *type_field;
  MTI_ValueIndex type_index;
};

struct instance {
  MTI_PluginInstance base;
  char name[64];
  char file[CADI_DESCRIPTION_SIZE];
  struct component comp[MAX_COMPONENTS];
  int ncomp;
};

static eslapi_CAInterface *instance_obtain(eslapi_CAInterface *self, eslapi_if_name_t name,
                                           eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  if ((!strcmp(name, MTI_PluginInstance_IFNAME) && min <= MTI_PluginInstance_IFREVISION) ||
      (!strcmp(name, eslapi_CAInterface_IFNAME) && min <= eslapi_CAInterface_IFREVISION)) {
    if (rev)
      *rev = 0;
    return self;
  }
  return NULL;
}

static void on_mutex(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct component *c = user;
  uint32_t type = MTI_EventRecord_GetAsU32(rec, ec, c->type_index);
  if (type < MAX_TYPES)
    c->by_type[type]++;
}

static int watch_mutexes(struct component *c, MTI_ComponentTraceInterface *ct)
{
  c->nsources = ct->vtbl->GetNumberOfTraceSources(ct);
  for (int k = 0; k < c->nsources; k++) {
    MTI_TraceSource *src = ct->vtbl->GetTraceSource(ct, k);
    if (strcmp(src->vtbl->GetName(src), "MUTEX"))
      continue;
    for (int f = 0; f < src->vtbl->GetNumFields(src); f++) {
      const MTI_EventFieldType *field = src->vtbl->GetField(src, f);
      if (strcmp(field->vtbl->GetName(field), "type"))
        continue;
      MTI_EventClass *ec = src->vtbl->CreateEventClass(src, 1u << f);
      if (!ec || ec->vtbl->RegisterCallback(ec, on_mutex, c) != MTI_OK ||
          src->vtbl->RegisterCounter(src, &c->events) != MTI_OK)
        return -1;
      c->type_field = field;
      c->type_index = ec->vtbl->GetValueIndex(ec, "type");
      c->nconstants = field->vtbl->GetNumberOfEnumConstants(field);
    }
  }
  return 0;
}

static eslapi_CADIReturn_t instance_register(MTI_PluginInstance *self, eslapi_CAInterface *sim)
{
  struct instance *in = (struct instance *)self;
  MTI_SystemTraceInterface *sys = (MTI_SystemTraceInterface *)sim->vtbl->ObtainInterface(
      sim, MTI_SystemTraceInterface_IFNAME, MTI_SystemTraceInterface_IFREVISION, NULL);
  if (!sys)
    return CADI_STATUS_GeneralError;
  int n = sys->vtbl->GetNumberOfTraceComponents(sys);
  for (int i = 0; i < n && i < MAX_COMPONENTS; i++) {
    eslapi_CAInterface *ca = sys->vtbl->GetComponentTrace(sys, i);
    MTI_ComponentTraceInterface *ct = (MTI_ComponentTraceInterface *)ca->vtbl->ObtainInterface(
        ca, MTI_ComponentTraceInterface_IFNAME, MTI_ComponentTraceInterface_IFREVISION, NULL);
    struct component *c = &in->comp[in->ncomp++];
    c->path = sys->vtbl->GetComponentTracePath(sys, i);
    if (!ct || watch_mutexes(c, ct) < 0)
      return CADI_STATUS_GeneralError;
  }
  return CADI_STATUS_OK;
}

static void instance_release(MTI_PluginInstance *self)
{
  struct instance *in = (struct instance *)self;
  FILE *f = fopen(in->file, "w");
  for (int i = 0; f && i < in->ncomp; i++) {
    struct component *c = &in->comp[i];
    fprintf(f, "%s %s: %d sources, %llu MUTEX events", in->name, c->path, c->nsources,
            (unsigned long long)c->events);
    for (uint32_t t = 0; t < MAX_TYPES; t++)
      if (c->by_type[t])
        fprintf(f, ", %s %llu", c->type_field->vtbl->LookupEnum(c->type_field, t),
                (unsigned long long)c->by_type[t]);
    fprintf(f, " (type has %u constants)\n", c->nconstants);
  }
  if (f)
    fclose(f);
  free(in);
}

static const char *instance_name(const MTI_PluginInstance *self)
{
  return ((const struct instance *)self)->name;
}

static const struct MTI_PluginInstance_vtbl instance_vtbl = {
  .iVersion = 0,
  .ObtainInterface = instance_obtain,
  .RegisterSimulation = instance_register,
  .Release = instance_release,
  .GetName = instance_name,
};

/* ---- the factory -------------------------------------------------------- */

static const eslapi_CADIParameterInfo_t file_param = {
  .id = 1, .name = "file", .dataType = CADI_PARAM_STRING,
  .description = "Where the counts go when the instance is released",
  .defaultString = "seed_plugin.txt",
};

static eslapi_CAInterface *factory_obtain(eslapi_CAInterface *self, eslapi_if_name_t name,
                                          eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  /* PluginFactory revision 0: no GetPrefix, the host names it from the file */
  if ((!strcmp(name, MTI_PluginFactory_IFNAME) && min == 0) ||
      (!strcmp(name, eslapi_CAInterface_IFNAME) && min <= eslapi_CAInterface_IFREVISION)) {
    if (rev)
      *rev = 0;
    return self;
  }
  return NULL;
}

static uint32_t factory_nparams(MTI_PluginFactory *self)
{
  (void)self;
  return 1;
}

static eslapi_CADIReturn_t factory_params(MTI_PluginFactory *self,
                                          eslapi_CADIParameterInfo_t *list)
{
  (void)self;
  list[0] = file_param;
  return CADI_STATUS_OK;
}

static eslapi_CAInterface *factory_instantiate(MTI_PluginFactory *self, const char *name,
                                               uint32_t nvalues,
                                               eslapi_CADIParameterValue_t *values)
{
  struct instance *in = calloc(1, sizeof *in);
  (void)self;
  if (!in)
    return NULL;
  in->base.vtbl = &instance_vtbl;
  snprintf(in->name, sizeof in->name, "%s", name);
  snprintf(in->file, sizeof in->file, "%s", file_param.defaultString);
  for (uint32_t i = 0; i < nvalues; i++)
    if (values[i].parameterID == file_param.id)
      snprintf(in->file, sizeof in->file, "%s", values[i].stringValue);
  return (eslapi_CAInterface *)&in->base;
}

static void factory_release(MTI_PluginFactory *self)
{
  (void)self;
}

static const struct MTI_PluginFactory_vtbl factory_vtbl = {
  .iVersion = 0,
  .ObtainInterface = factory_obtain,
  .GetNumberOfParameters = factory_nparams,
  .GetParameterInfos = factory_params,
  .Instantiate = factory_instantiate,
  .Release = factory_release,
};

static MTI_PluginFactory factory = {&factory_vtbl};

PLUGIN_INTERFACE_WEXP eslapi_CAInterface *GetCAInterface(void)
{
  return (eslapi_CAInterface *)&factory;
}
