/*
 * A session: the plugins and instances of one run, and the
 * TRACE.<instance>.<param>=value assignments that configure them (the
 * manual's naming for plugin parameters: "prefixed by TRACE and the name
 * of the trace plugin instance"). Several instances may share one loaded
 * plugin, each with its own parameters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/mti_internal.h"
#include "tracewire/error.h"
#include "tracewire/io/file.h"

struct sess_inst {
  char *name;
  struct tw_mti_plugin *plugin;
  char **assign; /* "param=value" */
  size_t nassign;
  MTI_PluginInstance *inst;
};

struct tw_mti_session {
  struct tw_mti_system *sys;
  struct tw_mti_plugin **plugins;
  char **paths;
  size_t nplugins;
  struct sess_inst *insts;
  size_t ninsts;
};

int tw_mti_session_create(struct tw_mti_session **out, struct tw_mti_system *sys)
{
  struct tw_mti_session *s = calloc(1, sizeof *s);
  *out = s;
  if (!s)
    return TW_ENOMEM;
  s->sys = sys;
  return 0;
}

void tw_mti_session_destroy(struct tw_mti_session *s)
{
  if (!s)
    return;
  for (size_t i = 0; i < s->ninsts; i++) {
    struct sess_inst *si = &s->insts[i];
    if (si->inst)
      si->inst->vtbl->Release(si->inst);
    for (size_t k = 0; k < si->nassign; k++)
      free(si->assign[k]);
    free(si->assign);
    free(si->name);
  }
  for (size_t i = 0; i < s->nplugins; i++) {
    tw_mti_plugin_unload(s->plugins[i]);
    free(s->paths[i]);
  }
  free(s->insts);
  free(s->plugins);
  free(s->paths);
  free(s);
}

static struct sess_inst *find_inst(const struct tw_mti_session *s, const char *name, size_t len)
{
  for (size_t i = 0; i < s->ninsts; i++)
    if (strlen(s->insts[i].name) == len && memcmp(s->insts[i].name, name, len) == 0)
      return &s->insts[i];
  return NULL;
}

static struct tw_mti_plugin *plugin_for(struct tw_mti_session *s, const char *path, char *err,
                                        size_t errcap, int *rc)
{
  struct tw_mti_plugin *p, **pg;
  char **pa;
  for (size_t i = 0; i < s->nplugins; i++)
    if (strcmp(s->paths[i], path) == 0)
      return s->plugins[i];
  if ((*rc = tw_mti_plugin_load(&p, path, err, errcap)) < 0)
    return NULL;
  pg = realloc(s->plugins, (s->nplugins + 1) * sizeof *pg);
  if (pg)
    s->plugins = pg;
  pa = pg ? realloc(s->paths, (s->nplugins + 1) * sizeof *pa) : NULL;
  if (pa)
    s->paths = pa;
  if (!pg || !pa || !(s->paths[s->nplugins] = strdup(path))) {
    tw_mti_plugin_unload(p);
    *rc = TW_ENOMEM;
    return NULL;
  }
  s->plugins[s->nplugins++] = p;
  return p;
}

int tw_mti_session_add_plugin(struct tw_mti_session *s, const char *path,
                              const char *instance_name, char *err, size_t errcap)
{
  int rc = 0;
  struct tw_mti_plugin *p = plugin_for(s, path, err, errcap, &rc);
  char name[CADI_NAME_SIZE];
  struct sess_inst *grown;
  if (!p)
    return rc;
  if (instance_name) {
    if (!*instance_name || strchr(instance_name, '.') || strchr(instance_name, '=')) {
      tw__mti_msg(err, errcap, "instance name '%s' must be non-empty without '.' or '='",
                  instance_name);
      return TW_EINVAL;
    }
    if (find_inst(s, instance_name, strlen(instance_name))) {
      tw__mti_msg(err, errcap, "instance name '%s' is already used", instance_name);
      return TW_EEXIST;
    }
    snprintf(name, sizeof name, "%s", instance_name);
  } else {
    snprintf(name, sizeof name, "%s", tw_mti_plugin_prefix(p));
    for (int n = 2; find_inst(s, name, strlen(name)); n++)
      snprintf(name, sizeof name, "%s_%d", tw_mti_plugin_prefix(p), n);
  }
  if (!(grown = realloc(s->insts, (s->ninsts + 1) * sizeof *grown)))
    return TW_ENOMEM;
  s->insts = grown;
  memset(&grown[s->ninsts], 0, sizeof *grown);
  grown[s->ninsts].plugin = p;
  if (!(grown[s->ninsts].name = strdup(name)))
    return TW_ENOMEM;
  s->ninsts++;
  return 0;
}

/* Splits "TRACE.<instance>.<param>=value" into the instance and
 * "param=value". Instance names have no dots, so the first dot after
 * TRACE. ends it. */
static struct sess_inst *split(const struct tw_mti_session *s, const char *a, const char **rest,
                               char *err, size_t errcap)
{
  const char *inst, *dot;
  struct sess_inst *si;
  if (strncmp(a, "TRACE.", 6) != 0 || !(dot = strchr(a + 6, '.')) || !strchr(dot, '=')) {
    tw__mti_msg(err, errcap, "'%s': expected TRACE.<instance>.<param>=value", a);
    return NULL;
  }
  inst = a + 6;
  if (!(si = find_inst(s, inst, (size_t)(dot - inst)))) {
    tw__mti_msg(err, errcap, "'%s': no plugin instance named '%.*s'", a, (int)(dot - inst),
                inst);
    return NULL;
  }
  *rest = dot + 1;
  return si;
}

int tw_mti_session_set_param(struct tw_mti_session *s, const char *assignment, char *err,
                             size_t errcap)
{
  const char *rest;
  struct sess_inst *si = split(s, assignment, &rest, err, errcap);
  eslapi_CADIParameterValue_t v;
  char **grown;
  int rc;
  if (!si)
    return TW_ENOENT;
  if (si->inst) {
    tw__mti_msg(err, errcap, "'%s': instance already instantiated; use a runtime parameter",
                assignment);
    return TW_EBUSY;
  }
  if ((rc = tw__mti_plugin_parse(si->plugin, rest, &v, err, errcap)) < 0)
    return rc; /* refused now, with the message, rather than at instantiation */
  /* a string naming a file this process reads (the trace) is refused:
   * a plugin that writes its output there would destroy it */
  if (v.dataType == CADI_PARAM_STRING && v.stringValue[0] &&
      (rc = tw_file_check_output(v.stringValue, err, errcap)) < 0)
    return rc;
  if (!(grown = realloc(si->assign, (si->nassign + 1) * sizeof *grown)))
    return TW_ENOMEM;
  si->assign = grown;
  if (!(si->assign[si->nassign] = strdup(rest)))
    return TW_ENOMEM;
  si->nassign++;
  return 0;
}

int tw_mti_session_instantiate(struct tw_mti_session *s, char *err, size_t errcap)
{
  eslapi_CAInterface *sim = tw_mti_system_simulation(s->sys);
  for (size_t i = 0; i < s->ninsts; i++) {
    struct sess_inst *si = &s->insts[i];
    eslapi_CADIReturn_t r;
    int rc;
    if (si->inst)
      continue;
    rc = tw_mti_plugin_instantiate(si->plugin, si->name, (const char *const *)si->assign,
                                   si->nassign, &si->inst, err, errcap);
    if (rc < 0)
      return rc;
    if ((r = si->inst->vtbl->RegisterSimulation(si->inst, sim)) != CADI_STATUS_OK) {
      tw__mti_msg(err, errcap, "instance %s: RegisterSimulation failed (CADI status %d)",
                  si->name, (int)r);
      return TW_EINVAL;
    }
  }
  return 0;
}

MTI_PluginInstance *tw_mti_session_instance(const struct tw_mti_session *s, const char *name)
{
  struct sess_inst *si = name ? find_inst(s, name, strlen(name)) : NULL;
  return si ? si->inst : NULL;
}

int tw_mti_session_set_runtime_param(struct tw_mti_session *s, const char *assignment,
                                     char *err, size_t errcap)
{
  const char *rest, *eq;
  struct sess_inst *si = split(s, assignment, &rest, err, errcap);
  MTI_ParameterInterface *pi;
  eslapi_CADIParameterInfo_t info;
  eslapi_CADIParameterValue_t v;
  eslapi_CADIFactoryErrorMessage_t refusal;
  char pname[CADI_NAME_SIZE];
  int rc;
  if (!si)
    return TW_ENOENT;
  if (!si->inst) {
    tw__mti_msg(err, errcap, "'%s': instance %s is not instantiated yet", assignment, si->name);
    return TW_EINVAL;
  }
  pi = eslapi_ObtainPointer(si->inst, MTI_ParameterInterface);
  if (!pi) {
    tw__mti_msg(err, errcap, "instance %s has no runtime parameter interface", si->name);
    return TW_ENOTSUP;
  }
  eq = strchr(rest, '=');
  snprintf(pname, sizeof pname, "%.*s", (int)(eq - rest), rest);
  memset(&info, 0, sizeof info);
  if (pi->vtbl->GetParameterInfo(pi, pname, &info) != CADI_STATUS_OK) {
    tw__mti_msg(err, errcap, "instance %s has no parameter '%s'", si->name, pname);
    return TW_ENOENT;
  }
  if ((rc = tw_mti_param_parse(&info, eq + 1, &v, err, errcap)) < 0)
    return rc;
  memset(&refusal, 0, sizeof refusal);
  if (pi->vtbl->SetParameterValues(pi, 1, &v, &refusal) != CADI_STATUS_OK) {
    refusal.message[sizeof refusal.message - 1] = 0;
    tw__mti_msg(err, errcap, "instance %s refused %s: %s", si->name, rest,
                refusal.message[0] ? refusal.message : "no reason given");
    return TW_EINVAL;
  }
  return 0;
}
