/* `tracewire sources`: the trace components, sources, fields, types and
 * enum constants a trace offers to MTI plugins (like ARM's
 * ListTraceSources), read through the MTI interfaces themselves. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tracewire/model/mti_host.h"

void tw_cli_sources_help(FILE *f)
{
  fputs("usage: tracewire sources [options] [TRACE]\n"
        "List the trace components (one per endpoint and core), their trace sources, each\n"
        "source's fields with type and size, and enum constants with their markers: what\n"
        "`tracewire run --plugin` offers to MTI plugins. Without TRACE: the sources every\n"
        "component has (the vocabulary and the dump_state sources).\n\n"
        "options:\n"
        "  --source NAME   only this source (repeatable)\n"
        "  --brief         sources only, no fields\n"
        "  -h, --help      this text\n"
        "exit status: 0 ok, 1 error, 2 usage, 3 input damaged\n", f);
}

static const char *type_name(MTI_EventFieldType_Type t)
{
  static const char *const n[] = {"unsigned", "signed", "bool", "enum", "float", "string"};
  return (unsigned)t < sizeof n / sizeof n[0] ? n[t] : "?";
}

static void list_field(const MTI_EventFieldType *f)
{
  const char *obj = f->vtbl->GetObjectKind(f);
  unsigned size = f->vtbl->GetSize(f);
  printf("    field %d %s: %s, ", f->vtbl->GetIndex(f), f->vtbl->GetName(f),
         type_name(f->vtbl->GetType(f)));
  if (size)
    printf("%u byte%s", size, size == 1 ? "" : "s");
  else
    printf("variable, max %u bytes", (unsigned)f->vtbl->GetMaxSize(f));
  if (obj)
    printf(", names a %s", obj);
  printf(": %s\n", f->vtbl->GetDescription(f));
  for (uint32_t k = 0; k < f->vtbl->GetNumOfEnumConstants(f); k++) {
    MTI_EventFieldType_EnumConstant c = f->vtbl->GetEnumConstant(f, k);
    const char *m = f->vtbl->GetEnumMarker(f, k);
    printf("      %#x %s%s%s%s\n", (unsigned)c.first, c.second, m ? " [" : "", m ? m : "",
           m ? "]" : "");
  }
}

static int wanted(char **only, int nonly, unsigned char *hit, const char *name)
{
  for (int i = 0; i < nonly; i++)
    if (!strcmp(only[i], name))
      return hit[i] = 1;
  return nonly == 0;
}

/* --source names that match no source: a usage error listing the sources
 * (those of the first component: every component has the same). */
static int check_only(MTI_SystemTraceInterface *st, char **only, int nonly,
                      const unsigned char *hit)
{
  int rc = TW_EXIT_OK;
  for (int i = 0; i < nonly; i++) {
    if (hit[i])
      continue;
    fprintf(stderr, "tracewire: sources: --source %s: no such source; the sources are:", only[i]);
    MTI_ComponentTraceInterface *c = st->vtbl->GetNumOfTraceComponents(st) > 0
        ? eslapi_ObtainPointer(st->vtbl->GetComponentTrace(st, 0), MTI_ComponentTraceInterface)
        : NULL;
    for (int s = 0; c && s < c->vtbl->GetNumOfTraceSources(c); s++) {
      MTI_TraceSource *src = c->vtbl->GetTraceSource(c, s);
      fprintf(stderr, " %s", src->vtbl->GetName(src));
    }
    fputc('\n', stderr);
    rc = TW_EXIT_USAGE;
  }
  return rc;
}

static void list(MTI_SystemTraceInterface *st, char **only, int nonly, unsigned char *hit,
                 int brief)
{
  for (int i = 0; i < st->vtbl->GetNumOfTraceComponents(st); i++) {
    MTI_ComponentTraceInterface *c =
        eslapi_ObtainPointer(st->vtbl->GetComponentTrace(st, i), MTI_ComponentTraceInterface);
    printf("component %s (%s %s)\n", st->vtbl->GetComponentTracePath(st, i),
           c->vtbl->GetComponentType(c), c->vtbl->GetComponentVersion(c));
    for (int s = 0; s < c->vtbl->GetNumOfTraceSources(c); s++) {
      MTI_TraceSource *src = c->vtbl->GetTraceSource(c, s);
      if (!wanted(only, nonly, hit, src->vtbl->GetName(src)))
        continue;
      printf("  source %d %s: %s\n", s, src->vtbl->GetName(src), src->vtbl->GetDescription(src));
      for (int f = 0; !brief && f < src->vtbl->GetNumFields(src); f++)
        list_field(src->vtbl->GetField(src, f));
    }
  }
}

int tw_cli_sources(int argc, char **argv)
{
  static const struct option opts[] = {
    {"source", required_argument, 0, 's'}, {"brief", no_argument, 0, 'b'}, {0, 0, 0, 0}};
  char *only[64];
  unsigned char hit[64] = {0};
  int nonly = 0, brief = 0, c, rc = TW_EXIT_OK;
  struct tw_mti_system *sys;
  struct tw_input t;
  optind = 1;
  while ((c = getopt_long(argc, argv, "s:b", opts, NULL)) != -1) {
    if (c == 's' && nonly < 64)
      only[nonly++] = optarg;
    else if (c == 's') {
      cli_err("sources: at most 64 --source");
      return TW_EXIT_USAGE;
    }
    else if (c == 'b')
      brief = 1;
    else {
      tw_cli_sources_help(stderr);
      return TW_EXIT_USAGE;
    }
  }
  if (optind < argc - 1) {
    tw_cli_sources_help(stderr);
    return TW_EXIT_USAGE;
  }
  if (tw_mti_system_create(&sys, tw_event_descs, tw_event_ndescs) < 0) {
    cli_err("out of memory");
    return TW_EXIT_ERROR;
  }
  if (optind == argc) {
    tw_mti_system_add_component(sys, 0, 1, 0, NULL);
    MTI_SystemTraceInterface *st =
        eslapi_ObtainPointer(tw_mti_system_simulation(sys), MTI_SystemTraceInterface);
    list(st, only, nonly, hit, brief);
    rc = check_only(st, only, nonly, hit);
    tw_mti_system_destroy(sys);
    return cli_stdout_status("sources", rc);
  }
  if (cli_stdout_not_input("sources", argv[optind]) < 0) {
    tw_mti_system_destroy(sys);
    return TW_EXIT_ERROR;
  }
  if ((rc = tw_input_open(&t, argv[optind])) != 0) {
    tw_mti_system_destroy(sys);
    return rc;
  }
  rc = tw_input_run(&t);
  if (rc == 0 && tw_mti_system_sync_decoder(sys, t.d) < 0) {
    cli_err("out of memory");
    rc = TW_EXIT_ERROR;
  }
  if (rc == 0) {
    MTI_SystemTraceInterface *st =
        eslapi_ObtainPointer(tw_mti_system_simulation(sys), MTI_SystemTraceInterface);
    list(st, only, nonly, hit, brief);
    rc = check_only(st, only, nonly, hit);
    if (rc == TW_EXIT_OK)
      rc = cli_trace_status(&t);
  }
  tw_mti_system_destroy(sys);
  tw_input_close(&t);
  return cli_stdout_status("sources", rc);
}
