/*
 * Loading MTI plugins: dlopen, the ABI stamp, GetCAInterface, the factory
 * and its declared parameters, and instantiation with checked values.
 *
 * The ABI check reads the data symbol tw_mti_plugin_abi before any
 * function of the library is called: a plugin built for another revision
 * could have tables of another shape, and calling into it is exactly what
 * the check exists to prevent. A plugin written to the seed (003: "the
 * entry point and only function of a trace plugin" is GetCAInterface)
 * exports no stamp: it is loaded, and the MTI's own versioning (interface
 * names and revisions through ObtainInterface) is all the checking there is,
 * as in the Fast Models it was written for. A stamp that is there must match.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/mti_internal.h"
#include "tracewire/error.h"

struct tw_mti_plugin {
  void *dl;
  char *path;
  char *prefix;
  MTI_PluginFactory *factory;
  eslapi_if_rev_t rev;
  eslapi_CADIParameterInfo_t *infos;
  uint32_t ninfos;
};

static char *file_stem(const char *path)
{
  const char *b = strrchr(path, '/');
  char *s, *dot;
  b = b ? b + 1 : path;
  if (strncmp(b, "lib", 3) == 0 && b[3])
    b += 3;
  if (!(s = strdup(b)))
    return NULL;
  if ((dot = strchr(s, '.')))
    *dot = 0;
  return s;
}

static int check_abi(void *dl, const char *path, char *err, size_t errcap)
{
  const struct tw_mti_plugin_abi *abi = dlsym(dl, TW_MTI_PLUGIN_ABI_SYMBOL);
  if (!abi) {
    if (dlsym(dl, TW_MTI_PLUGIN_ENTRY_SYMBOL))
      return 0; /* a seed plugin: GetCAInterface only (see the top) */
    tw__mti_msg(err, errcap,
                "%s: not an MTI plugin (no symbol %s, nor %s; build it with "
                "TW_MTI_PLUGIN_EXPORT)", path, TW_MTI_PLUGIN_ENTRY_SYMBOL,
                TW_MTI_PLUGIN_ABI_SYMBOL);
    return TW_EABI;
  }
  if (abi->magic != TW_MTI_ABI_MAGIC) {
    tw__mti_msg(err, errcap, "%s: %s has magic 0x%08x, expected 0x%08x; refusing to load it",
                path, TW_MTI_PLUGIN_ABI_SYMBOL, (unsigned)abi->magic, TW_MTI_ABI_MAGIC);
    return TW_EABI;
  }
  if (abi->revision != TW_MTI_ABI_REVISION) {
    tw__mti_msg(err, errcap,
                "%s: built for MTI plugin ABI revision %u, this tracewire supports revision "
                "%u; refusing to load it (rebuild the plugin against these headers)",
                path, (unsigned)abi->revision, TW_MTI_ABI_REVISION);
    return TW_EABI;
  }
  return 0;
}

static int load_params(struct tw_mti_plugin *p, char *err, size_t errcap)
{
  MTI_PluginFactory *f = p->factory;
  p->ninfos = f->vtbl->GetNumberOfParameters(f);
  if (!p->ninfos)
    return 0;
  if (!(p->infos = calloc(p->ninfos, sizeof *p->infos)))
    return TW_ENOMEM;
  if (f->vtbl->GetParameterInfos(f, p->infos) != CADI_STATUS_OK) {
    tw__mti_msg(err, errcap, "%s: declares %u parameters but GetParameterInfos failed",
                p->path, (unsigned)p->ninfos);
    return TW_EINVAL;
  }
  for (uint32_t i = 0; i < p->ninfos; i++)
    p->infos[i].name[sizeof p->infos[i].name - 1] = 0;
  return 0;
}

static int bind_factory(struct tw_mti_plugin *p, char *err, size_t errcap)
{
  GetCAInterfaceFunc entry;
  eslapi_CAInterface *ca;
  *(void **)&entry = dlsym(p->dl, TW_MTI_PLUGIN_ENTRY_SYMBOL);
  if (!entry) {
    tw__mti_msg(err, errcap, "%s: no entry symbol %s", p->path, TW_MTI_PLUGIN_ENTRY_SYMBOL);
    return TW_EABI;
  }
  if (!(ca = entry())) {
    tw__mti_msg(err, errcap, "%s: %s() returned NULL", p->path, TW_MTI_PLUGIN_ENTRY_SYMBOL);
    return TW_EINVAL;
  }
  p->factory = (MTI_PluginFactory *)ca->vtbl->ObtainInterface(ca, MTI_PluginFactory_IFNAME, 0,
                                                              &p->rev);
  if (!p->factory) {
    tw__mti_msg(err, errcap, "%s: does not implement %s", p->path, MTI_PluginFactory_IFNAME);
    return TW_EABI;
  }
  if (p->rev >= 1 && p->factory->vtbl->iVersion >= 1) {
    const char *pre = p->factory->vtbl->GetPrefix(p->factory);
    if (pre && *pre)
      p->prefix = strdup(pre);
  }
  if (!p->prefix)
    p->prefix = file_stem(p->path);
  return p->prefix ? load_params(p, err, errcap) : TW_ENOMEM;
}

int tw_mti_plugin_load(struct tw_mti_plugin **out, const char *path, char *err, size_t errcap)
{
  struct tw_mti_plugin *p;
  int rc;
  *out = NULL;
  if (!(p = calloc(1, sizeof *p)) || !(p->path = strdup(path))) {
    free(p);
    return TW_ENOMEM;
  }
  if (!(p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
    tw__mti_msg(err, errcap, "cannot load plugin %s: %s", path, dlerror());
    tw_mti_plugin_unload(p);
    return TW_ENOENT;
  }
  rc = check_abi(p->dl, path, err, errcap);
  if (rc == 0)
    rc = bind_factory(p, err, errcap);
  if (rc < 0) {
    tw_mti_plugin_unload(p);
    return rc;
  }
  *out = p;
  return 0;
}

void tw_mti_plugin_unload(struct tw_mti_plugin *p)
{
  if (!p)
    return;
  if (p->factory)
    p->factory->vtbl->Release(p->factory);
  if (p->dl)
    dlclose(p->dl);
  free(p->infos);
  free(p->prefix);
  free(p->path);
  free(p);
}

MTI_PluginFactory *tw_mti_plugin_factory(const struct tw_mti_plugin *p) { return p->factory; }
const char *tw_mti_plugin_prefix(const struct tw_mti_plugin *p) { return p->prefix; }

const eslapi_CADIParameterInfo_t *tw__mti_plugin_param(const struct tw_mti_plugin *p,
                                                       const char *name, size_t namelen)
{
  for (uint32_t i = 0; i < p->ninfos; i++)
    if (strlen(p->infos[i].name) == namelen && memcmp(p->infos[i].name, name, namelen) == 0)
      return &p->infos[i];
  return NULL;
}

/* "param=value" -> a checked value; messages name the plugin and parameter. */
int tw__mti_plugin_parse(const struct tw_mti_plugin *p, const char *assignment,
                         eslapi_CADIParameterValue_t *v, char *err, size_t errcap)
{
  const char *eq = strchr(assignment, '=');
  const eslapi_CADIParameterInfo_t *info;
  if (!eq) {
    tw__mti_msg(err, errcap, "'%s': expected param=value", assignment);
    return TW_EINVAL;
  }
  if (!(info = tw__mti_plugin_param(p, assignment, (size_t)(eq - assignment)))) {
    char known[256] = "";
    for (uint32_t i = 0; i < p->ninfos; i++)
      snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
               p->infos[i].name);
    tw__mti_msg(err, errcap, "plugin %s has no parameter '%.*s' (it has: %s)", p->prefix,
                (int)(eq - assignment), assignment, p->ninfos ? known : "none");
    return TW_ENOENT;
  }
  return tw_mti_param_parse(info, eq + 1, v, err, errcap);
}

int tw_mti_plugin_instantiate(struct tw_mti_plugin *p, const char *instance_name,
                              const char *const *assignments, size_t nassignments,
                              MTI_PluginInstance **out, char *err, size_t errcap)
{
  eslapi_CADIParameterValue_t *vals = calloc(nassignments ? nassignments : 1, sizeof *vals);
  uint32_t n = 0;
  eslapi_CAInterface *ca;
  int rc = 0;
  *out = NULL;
  if (!vals)
    return TW_ENOMEM;
  for (size_t i = 0; rc == 0 && i < nassignments; i++) {
    eslapi_CADIParameterValue_t v;
    uint32_t k;
    rc = tw__mti_plugin_parse(p, assignments[i], &v, err, errcap);
    for (k = 0; rc == 0 && k < n && vals[k].parameterID != v.parameterID; k++)
      ;
    if (rc == 0) /* a later assignment of the same parameter wins */
      vals[k == n ? n++ : k] = v;
  }
  if (rc == 0) {
    ca = p->factory->vtbl->Instantiate(p->factory, instance_name, n, vals);
    *out = ca ? (MTI_PluginInstance *)ca->vtbl->ObtainInterface(ca, MTI_PluginInstance_IFNAME,
                                                                0, NULL)
              : NULL;
    if (!*out) {
      tw__mti_msg(err, errcap, "plugin %s: Instantiate(\"%s\") %s", p->prefix, instance_name,
                  ca ? "returned no MTI::PluginInstance" : "failed");
      rc = TW_EINVAL;
    }
  }
  free(vals);
  return rc;
}
