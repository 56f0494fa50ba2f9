/*
 * Writing an MTI plugin without the boilerplate: describe it in a
 * struct tw_mti_plugin_desc (prefix, parameters, per-instance state size,
 * three hooks) and TW_MTI_SIMPLE_PLUGIN(desc) provides the PluginFactory,
 * the PluginInstances (several per plugin, each with its own parameter
 * values and state), their ObtainInterface, a runtime ParameterInterface
 * over the declared parameters, and the exported entry points.
 *
 * The plugin links the static tw_model library (only mti_simple.c and
 * mti_params.c are pulled in). Everything here is an addition on top of
 * tracewire/mti.h; a plugin can always implement the interfaces itself
 * (examples/plugins/switches.c does).
 *
 * tracewire's own built-in plugins (the analysis, the exporters) use the
 * same helper without exporting entry points: a factory from
 * TW_MTI_FACTORY_INIT(desc), several factories sharing hooks told apart
 * by desc->data, and tw_mti_instance_of() for the CLI to reach an
 * instance's state behind the MTI_PluginInstance it instantiated.
 *
 * Threads: hooks are called on the host's feeding thread.
 */
#ifndef TRACEWIRE_MTI_PLUGIN_H
#define TRACEWIRE_MTI_PLUGIN_H

#include "tracewire/mti.h"
#include "tracewire/model/mti_host.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tw_mti_instance;

struct tw_mti_plugin_desc {
  const char *prefix;                       /* GetPrefix(); the default instance name */
  const eslapi_CADIParameterInfo_t *params; /* ids unique; isRunTime as wanted */
  uint32_t nparams;
  size_t state_size; /* bytes of zeroed per-instance state (in->state) */
  /* After the parameters are set. Nonzero refuses the instance. May be NULL. */
  int (*instantiate)(struct tw_mti_instance *in);
  /* PluginInstance::RegisterSimulation. */
  eslapi_CADIReturn_t (*register_simulation)(struct tw_mti_instance *in,
                                             eslapi_CAInterface *simulation);
  /* PluginInstance::Release, before the helper frees the instance. May be NULL. */
  void (*release)(struct tw_mti_instance *in);
  /* The plugin's own, for hooks shared by several descs (in->desc->data);
   * the helper never touches it. May be NULL. */
  void *data;
};

struct tw_mti_instance {
  MTI_PluginInstance base; /* first: the instance is its own PluginInstance */
  const struct tw_mti_plugin_desc *desc;
  struct tw_mti_params params; /* also the runtime MTI_ParameterInterface */
  eslapi_CADIParameterValue_t *values;
  char name[CADI_NAME_SIZE];
  void *state;
  eslapi_CAInterface *simulation; /* from RegisterSimulation (NULL before) */
};

/* Current values by local name (NULL / 0 / false / "" when unknown). */
int64_t tw_mti_instance_int(const struct tw_mti_instance *in, const char *name);
bool tw_mti_instance_bool(const struct tw_mti_instance *in, const char *name);
const char *tw_mti_instance_string(const struct tw_mti_instance *in, const char *name);

/* The instance could not do its job (its output could not be written):
 * reported to the host (TW_TraceContext::ReportFailure, so the command
 * fails), or on stderr when the host has no such interface. */
void tw_mti_instance_fail(struct tw_mti_instance *in, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* `pi` as an instance of `desc` made by this helper, else NULL (another
 * plugin's instance, another desc, or NULL). Lets the code that
 * instantiated a built-in plugin reach in->state. Any thread that owns pi. */
struct tw_mti_instance *tw_mti_instance_of(MTI_PluginInstance *pi,
                                           const struct tw_mti_plugin_desc *desc);

struct tw_mti_factory {
  MTI_PluginFactory base;
  const struct tw_mti_plugin_desc *desc;
};
extern const struct MTI_PluginFactory_vtbl tw_mti_factory_vtbl;

/* Initializer of a struct tw_mti_factory for `desc` (a static object):
 * for a factory handed out by a function rather than exported. */
#define TW_MTI_FACTORY_INIT(d_) {.base = {.vtbl = &tw_mti_factory_vtbl}, .desc = &(d_)}

/* In one file of the plugin, after `static const struct tw_mti_plugin_desc d`. */
#define TW_MTI_SIMPLE_PLUGIN(desc)                                                   \
  static struct tw_mti_factory tw__mti_simple_factory = TW_MTI_FACTORY_INIT(desc); \
  TW_MTI_PLUGIN_EXPORT(&tw__mti_simple_factory.base)

#ifdef __cplusplus
}
#endif

#endif
