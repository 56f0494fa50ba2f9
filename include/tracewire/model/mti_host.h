/*
 * The host side of tracewire's Model Trace Interface: the decoded trace as
 * the "simulation" (tw_mti_system), the plugin loader and the parameter
 * helpers plugins and the CLI share. The interfaces plugins see are in
 * tracewire/mti.h; docs/mti.md explains the model.
 *
 * Threads: a system, its plugins and sessions belong to one thread (the one
 * that feeds events); none of these functions is ISR-safe or reentrant
 * from another thread. Callbacks run synchronously inside
 * tw_mti_system_feed() on that thread.
 *
 * Errors: int 0 or a negative TW_E* (tracewire/error.h); functions taking
 * err/errcap also write a message naming what failed (may be NULL/0).
 */
#ifndef TRACEWIRE_MODEL_MTI_HOST_H
#define TRACEWIRE_MODEL_MTI_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracewire/event.h"
#include "tracewire/mti.h"
#include "tracewire/vocab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the trace model ------------------------------------------------------ */

struct tw_mti_system;

/* A stopped system with no components. descs/ndescs is the vocabulary
 * (normally tw_event_descs/tw_event_ndescs); it must outlive the system.
 * Every component gets one trace source per descriptor, plus the
 * dump_state sources (docs/mti.md). */
int tw_mti_system_create(struct tw_mti_system **out, const struct tw_event_desc *descs,
                         size_t ndescs);
/* Frees everything; plugin instances must have been released. */
void tw_mti_system_destroy(struct tw_mti_system *sys);

/* The pointer handed to PluginInstance::RegisterSimulation: ObtainInterface
 * gives MTI_SystemTraceInterface and TW_TraceContext. */
eslapi_CAInterface *tw_mti_system_simulation(struct tw_mti_system *sys);
/* Failures plugins reported (TW_TraceContext::ReportFailure): a command
 * that ran them fails when this is not 0. */
unsigned long long tw_mti_system_failures(const struct tw_mti_system *sys);

/* Adds the trace component for decoder stream `stream` (endpoint, logger
 * instance). path NULL: "board.cpu<instance>" for the first endpoint seen,
 * "board<endpoint>.cpu<instance>" for others. TW_EEXIST when the stream or
 * path is taken. Allowed while running (plugins see it when they ask). */
int tw_mti_system_add_component(struct tw_mti_system *sys, uint16_t stream,
                                uint16_t endpoint, uint16_t instance, const char *path);

/* Declares an event kind beyond the vocabulary (a custom event, as the
 * decoder built its descriptor from CUSTOM_DECL): one new trace source per
 * component, existing and future. Idempotent for the same id and name;
 * TW_EEXIST for the same id with another name. desc must outlive sys. */
int tw_mti_system_declare_event(struct tw_mti_system *sys, const struct tw_event_desc *desc);

/* Running state: registering or unregistering callbacks and counters is
 * MTI_BUSY while running. feed() requires running (TW_EINVAL otherwise). */
int tw_mti_system_start(struct tw_mti_system *sys);
int tw_mti_system_stop(struct tw_mti_system *sys);
bool tw_mti_system_running(const struct tw_mti_system *sys);

/* Delivers one decoded event: updates the model state (task states, names,
 * mutex owners, semaphore counts), bumps the source's counters and calls
 * the callbacks of every class of the source that has some. An event of an
 * unknown stream adds its component; of an unknown id (never declared) is
 * counted in tw_mti_system_unknown() and otherwise ignored. */
int tw_mti_system_feed(struct tw_mti_system *sys, const struct tw_event *ev);
uint64_t tw_mti_system_unknown(const struct tw_mti_system *sys);

struct tw_decoder; /* tracewire/wire/decoder.h */
/* After a pass of decoder d over a trace: a component per decoder stream
 * (component stream == decoder stream index) and a source per custom kind
 * d saw. The custom descriptors belong to d: keep d open while sys lives.
 * Returns the number of custom ids declared twice with different names
 * (the first wins), or a negative TW_E*. */
int tw_mti_system_sync_decoder(struct tw_mti_system *sys, const struct tw_decoder *d);

/* ---- plugins ---------------------------------------------------------------- */

struct tw_mti_plugin;

/* dlopen()s path, checks its tw_mti_plugin_abi stamp (TW_EABI, with a
 * message, when missing or of another revision: nothing in the library is
 * called), then calls GetCAInterface() and obtains MTI_PluginFactory
 * revision >= 0 (GetPrefix only used when the factory has revision 1). */
int tw_mti_plugin_load(struct tw_mti_plugin **out, const char *path, char *err, size_t errcap);
/* Releases the factory and dlclose()s. Instances must be released first. */
void tw_mti_plugin_unload(struct tw_mti_plugin *p);
MTI_PluginFactory *tw_mti_plugin_factory(const struct tw_mti_plugin *p);
/* GetPrefix() when the factory has it, else the file name without
 * directory, "lib" and extension. */
const char *tw_mti_plugin_prefix(const struct tw_mti_plugin *p);

/* Instantiates with assignments "param=value" (local names), checked
 * against the factory's declared parameters: unknown name, wrong type or
 * out-of-range value -> TW_ENOENT / TW_EINVAL / TW_ERANGE with a message,
 * and Instantiate is not called. Unassigned parameters get their defaults.
 * *out is the instance (ObtainInterface already done). */
int tw_mti_plugin_instantiate(struct tw_mti_plugin *p, const char *instance_name,
                              const char *const *assignments, size_t nassignments,
                              MTI_PluginInstance **out, char *err, size_t errcap);

/* ---- sessions: plugins + instances + TRACE.<instance>.<param>=value ----- */

struct tw_mti_session;

int tw_mti_session_create(struct tw_mti_session **out, struct tw_mti_system *sys);
/* Releases instances, unloads plugins. Does not destroy the system. */
void tw_mti_session_destroy(struct tw_mti_session *s);
/* Loads path (once per path) and queues one instance named instance_name
 * (NULL: the plugin's prefix; a taken name gets "_2", "_3", ...). */
int tw_mti_session_add_plugin(struct tw_mti_session *s, const char *path,
                              const char *instance_name, char *err, size_t errcap);
/* "TRACE.<instance>.<param>=value" for a queued instance, applied at
 * instantiation. TW_ENOENT for an unknown instance or parameter. */
int tw_mti_session_set_param(struct tw_mti_session *s, const char *assignment, char *err,
                             size_t errcap);
/* Instantiates every queued instance and calls RegisterSimulation. */
int tw_mti_session_instantiate(struct tw_mti_session *s, char *err, size_t errcap);
/* NULL until instantiated or for an unknown name. */
MTI_PluginInstance *tw_mti_session_instance(const struct tw_mti_session *s, const char *name);
/* At run time, through the instance's MTI_ParameterInterface:
 * "TRACE.<instance>.<param>=value" (TW_ENOTSUP when the instance has no
 * ParameterInterface; the plugin's refusal message is copied to msg). */
int tw_mti_session_set_runtime_param(struct tw_mti_session *s, const char *assignment,
                                     char *err, size_t errcap);

/* ---- parameter helpers (for plugins as well as the host) ----------------- */

/* Parses "value" for the parameter described by info into out (parameterID
 * and dataType set): ints in C syntax (0x.. too) within [minValue,
 * maxValue], bools as 1/0/true/false, strings as is. */
int tw_mti_param_parse(const eslapi_CADIParameterInfo_t *info, const char *value,
                       eslapi_CADIParameterValue_t *out, char *err, size_t errcap);
/* Checks a value against info (type and range); 0 or TW_EINVAL/TW_ERANGE. */
int tw_mti_param_check(const eslapi_CADIParameterInfo_t *info,
                       const eslapi_CADIParameterValue_t *v, char *err, size_t errcap);

/* A complete MTI_ParameterInterface over a table of declared parameters
 * and their current values, for a plugin instance to embed (caller
 * allocates; values has n entries). ObtainInterface is forwarded to owner
 * so the parameter interface belongs to the instance's component. */
struct tw_mti_params {
  MTI_ParameterInterface base;
  eslapi_CAInterface *owner;
  const eslapi_CADIParameterInfo_t *infos;
  eslapi_CADIParameterValue_t *values;
  uint32_t n;
};
/* Sets every value to its default, then applies given (Instantiate's
 * values; TW_ENOENT/TW_EINVAL/TW_ERANGE on a bad one, nothing applied). */
int tw_mti_params_init(struct tw_mti_params *p, eslapi_CAInterface *owner,
                       const eslapi_CADIParameterInfo_t *infos,
                       eslapi_CADIParameterValue_t *values, uint32_t n, uint32_t ngiven,
                       const eslapi_CADIParameterValue_t *given);
/* Current value by local name, NULL when unknown. */
const eslapi_CADIParameterValue_t *tw_mti_params_get(const struct tw_mti_params *p,
                                                     const char *name);

#ifdef __cplusplus
}
#endif

#endif
