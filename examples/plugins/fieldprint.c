/*
 * fieldprint: prints selected fields of selected trace sources, one line
 * per event:  <instance> <component path> <SOURCE> field=value ...
 *
 * Parameters:
 *   TRACE.<instance>.sources=NAME[,NAME...]  sources to print ("*": all)
 *   TRACE.<instance>.mask=<int>              field mask, bit i = field i of
 *                                            each source (0x3 = first two);
 *                                            bits beyond a source's fields
 *                                            are ignored
 *   TRACE.<instance>.file=<path>             "-" = stdout
 *   TRACE.<instance>.enabled=<bool>          run time: pause/resume output
 * Enum values print as their constant name, strings quoted.
 *
 * Written with TW_MTI_SIMPLE_PLUGIN (tracewire/mti_plugin.h): the factory,
 * instances and parameter interface come from the helper; this file is
 * only what the plugin does. (switches.c implements the interfaces itself.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/mti.h"
#include "tracewire/mti_plugin.h"

enum { P_SOURCES, P_MASK, P_FILE, P_ENABLED, NPARAMS };

static const eslapi_CADIParameterInfo_t params[NPARAMS] = {
  {.id = 10, .name = "sources", .dataType = CADI_PARAM_STRING,
   .description = "Comma-separated trace source names, * for all", .defaultString = "*"},
  {.id = 11, .name = "mask", .dataType = CADI_PARAM_INT,
   .description = "Field mask applied to every selected source", .minValue = 0,
   .maxValue = 0xFFFFFFFFll, .defaultValue = 0xFFFFFFFFll},
  {.id = 12, .name = "file", .dataType = CADI_PARAM_STRING,
   .description = "Output file; - for stdout", .defaultString = "-"},
  {.id = 13, .name = "enabled", .dataType = CADI_PARAM_BOOL, .isRunTime = 1,
   .description = "Print events (can be switched at run time)", .minValue = 0, .maxValue = 1,
   .defaultValue = 1},
};

struct fp;
struct sel {
  struct fp *fp;
  const char *path;
  const char *source;
};

/* Per-instance state (in->state). */
struct fp {
  struct tw_mti_instance *in;
  FILE *out;
  struct sel **sels;
  size_t nsels;
};

static void print_value(FILE *f, const MTI_EventRecord *rec, const MTI_EventClass *ec, int v)
{
  const MTI_EventFieldType *ft = ec->vtbl->GetEventField(ec, v);
  const char *e;
  switch (ft->vtbl->GetType(ft)) {
  case MTI_SIGNED_INT:
    fprintf(f, "%lld", (long long)MTI_EventRecord_GetAsI64(rec, ec, v));
    break;
  case MTI_BOOL:
    fputs(MTI_EventRecord_GetBool(rec, ec, v) ? "true" : "false", f);
    break;
  case MTI_ENUM:
    /* a value without a constant (a task number) prints as a number */
    e = ft->vtbl->LookupEnum(ft, MTI_EventRecord_GetAsU32(rec, ec, v));
    if (e)
      fputs(e, f);
    else
      fprintf(f, "%llu", (unsigned long long)MTI_EventRecord_GetAsU64(rec, ec, v));
    break;
  case MTI_UNSIGNED_INT:
    fprintf(f, "%llu", (unsigned long long)MTI_EventRecord_GetAsU64(rec, ec, v));
    break;
  case MTI_FLOAT: /* tracewire's F32 custom fields are size 4 */
    if (MTI_EventRecord_GetSize(rec, ec, v) == 4)
      fprintf(f, "%.9g", (double)MTI_EventRecord_GetF32(rec, ec, v));
    else if (MTI_EventRecord_GetSize(rec, ec, v) == 8)
      fprintf(f, "%.17g", MTI_EventRecord_GetF64(rec, ec, v));
    else
      fputs("?", f);
    break;
  case MTI_STRING:
    fprintf(f, "\"%.*s\"", (int)MTI_EventRecord_GetSize(rec, ec, v),
            (const char *)MTI_EventRecord_GetPtr(rec, ec, v));
    break;
  }
}

static void on_event(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct sel *s = user;
  FILE *f = s->fp->out;
  if (!tw_mti_instance_bool(s->fp->in, "enabled"))
    return;
  fprintf(f, "%s %s %s", s->fp->in->name, s->path, s->source);
  for (int v = 0; v < ec->vtbl->GetNumValues(ec); v++) {
    const MTI_EventFieldType *ft = ec->vtbl->GetEventField(ec, v);
    fprintf(f, " %s=", ft->vtbl->GetName(ft));
    print_value(f, rec, ec, v);
  }
  fputc('\n', f);
}

static bool selected(const char *list, const char *name)
{
  size_t n = strlen(name);
  if (!strcmp(list, "*"))
    return true;
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && !memcmp(p, name, n))
      return true;
    p += len + (end != NULL);
  }
  return false;
}

/* Every name in the list must exist in the first component: a typo is an
 * error, not silence. */
static const char *unknown_source(const MTI_ComponentTraceInterface *c, const char *list)
{
  static char bad[CADI_NAME_SIZE];
  if (!strcmp(list, "*"))
    return NULL;
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    snprintf(bad, sizeof bad, "%.*s", (int)len, p);
    if (!c->vtbl->GetTraceSourceByName(c, bad))
      return bad;
    p += len + (end != NULL);
  }
  return NULL;
}

/* Each selection is its own allocation: its address is the callback's
 * user pointer, so it must not move when the list grows. */
static int add_sel(struct fp *in, const char *path, MTI_TraceSource *src, uint32_t mask)
{
  int nf = src->vtbl->GetNumFields(src);
  MTI_EventClass *ec = src->vtbl->CreateEventClass(src, nf >= 32 ? mask : mask & ((1u << nf) - 1));
  struct sel **g = realloc(in->sels, (in->nsels + 1) * sizeof *g);
  struct sel *s;
  if (!g)
    return -1;
  in->sels = g;
  if (!(s = malloc(sizeof *s)))
    return -1;
  *s = (struct sel){in, path, src->vtbl->GetName(src)};
  g[in->nsels++] = s;
  return ec && ec->vtbl->RegisterCallback(ec, on_event, s) == MTI_OK ? 0 : -1;
}

static eslapi_CADIReturn_t fp_register(struct tw_mti_instance *in, eslapi_CAInterface *sim)
{
  struct fp *fp = in->state;
  MTI_SystemTraceInterface *sys = eslapi_ObtainPointer(sim, MTI_SystemTraceInterface);
  const char *list = tw_mti_instance_string(in, "sources");
  uint32_t mask = (uint32_t)tw_mti_instance_int(in, "mask");
  if (!sys)
    return CADI_STATUS_GeneralError;
  for (int i = 0; i < sys->vtbl->GetNumOfTraceComponents(sys); i++) {
    MTI_ComponentTraceInterface *c = eslapi_ObtainPointer(sys->vtbl->GetComponentTrace(sys, i),
                                                          MTI_ComponentTraceInterface);
    const char *bad = c ? unknown_source(c, list) : NULL;
    if (!c)
      return CADI_STATUS_GeneralError;
    if (bad) {
      fprintf(stderr, "%s: no trace source named '%s'\n", in->name, bad);
      return CADI_STATUS_IllegalArgument;
    }
    for (int k = 0; k < c->vtbl->GetNumOfTraceSources(c); k++) {
      MTI_TraceSource *src = c->vtbl->GetTraceSource(c, k);
      if (selected(list, src->vtbl->GetName(src)) &&
          add_sel(fp, sys->vtbl->GetComponentTracePath(sys, i), src, mask) < 0)
        return CADI_STATUS_GeneralError;
    }
  }
  return CADI_STATUS_OK;
}

static int fp_instantiate(struct tw_mti_instance *in)
{
  struct fp *fp = in->state;
  const char *file = tw_mti_instance_string(in, "file");
  fp->in = in;
  fp->out = strcmp(file, "-") ? fopen(file, "w") : stdout;
  if (!fp->out)
    fprintf(stderr, "%s: cannot write %s\n", in->name, file);
  return fp->out ? 0 : -1;
}

static void fp_release(struct tw_mti_instance *in)
{
  struct fp *fp = in->state;
  for (size_t i = 0; i < fp->nsels; i++)
    free(fp->sels[i]);
  free(fp->sels);
  if (fp->out && fp->out != stdout)
    fclose(fp->out);
  else if (fp->out)
    fflush(fp->out);
}

static const struct tw_mti_plugin_desc fieldprint = {
  .prefix = "fieldprint",
  .params = params,
  .nparams = NPARAMS,
  .state_size = sizeof(struct fp),
  .instantiate = fp_instantiate,
  .register_simulation = fp_register,
  .release = fp_release,
};

TW_MTI_SIMPLE_PLUGIN(fieldprint)
