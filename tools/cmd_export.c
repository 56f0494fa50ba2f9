/* `tracewire export`: a trace to CTF, Perfetto, Chrome JSON or CSV
 * (docs/exporters.md). The exporter is the built-in MTI plugin of its
 * format, run over the trace model exactly as `tracewire run` runs a .so:
 * a first pass finds the streams and custom kinds, the second feeds the
 * events in time order. The decoder's transport-loss counts, which the
 * model does not carry, are handed to the exporter as they grow. A
 * progress bar goes to stderr when it is a terminal. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "tracewire/export/export.h"
#include "tracewire/wire/merge.h"
#include "tracewire/model/mti_host.h"

void tw_cli_export_help(FILE *f)
{
  fputs("usage: tracewire export TRACE --format ctf|perfetto|json|csv -o OUT [options]\n"
        "Convert TRACE (a .twt or raw packet file; - for stdin) for other tools:\n"
        "  ctf       CTF 1.8 directory OUT (babeltrace2, Trace Compass)\n"
        "  perfetto  protobuf trace file OUT (.perfetto-trace; ui.perfetto.dev)\n"
        "  json      Chrome Trace Event Format file OUT (chrome://tracing)\n"
        "  csv       directory OUT, one CSV file per event kind\n"
        "The same exporters are MTI plugins: build/plugins/libtw_export_<format>.so.\n\n"
        "options:\n"
        "  -f, --format F           output format (required)\n"
        "  -o, --output OUT         output directory or file (required; - for standard\n"
        "                           output: perfetto, json)\n"
        "  --packet-bytes N         CTF packet size (default 65536)\n"
        "  --clock-offset S         CTF: the target clock's zero, seconds since the epoch\n"
        "  --load-window S          perfetto/json: CPU-load window in seconds (default 0.001)\n"
        "  --window N               merge lookahead in events, 1..1048576 (default 4096)\n"
        "  -q, --quiet              no per-problem lines, no progress bar\n"
        "  -h, --help               this text\n"
        "exit status: 0 ok, 1 error, 2 usage, 3 input damaged\n", f);
}

struct exp {
  struct tw_mti_system *sys;
  struct tw_input pre, t;
  MTI_PluginInstance *pi;
  struct tw_export *x;
  int have_pre, have_t, progress;
  unsigned long long fed, file_bytes;
};

static void show_progress(struct exp *e, int done)
{
  unsigned long long off = 0;
  for (size_t i = 0; i < e->t.nsrc; i++) /* sources of a .twt share one file */
    off += done ? 0 : tw_reader_pkt_offset(e->t.src[i].r);
  if (done)
    off = e->file_bytes;
  unsigned pct = e->file_bytes ? (unsigned)(off * 100 / e->file_bytes) : 100;
  char bar[41];
  if (pct > 100)
    pct = 100;
  memset(bar, '#', pct * 40 / 100);
  memset(bar + pct * 40 / 100, '.', 40 - pct * 40 / 100);
  bar[40] = 0;
  fprintf(stderr, "\rexport [%s] %3u%% %llu events%s", bar, pct, e->fed, done ? "\n" : "");
}

static void pass_loss(struct exp *e)
{
  for (size_t k = 0; k < e->t.nsrc; k++)
    for (size_t i = 0; i < tw_decoder_nstreams(e->t.src[k].d); i++) {
      const struct tw_stream_stats *st = tw_decoder_stream(e->t.src[k].d, i);
      tw_export_transport_loss(e->x, st->endpoint, st->instance,
                               st->events_lost + st->unexplained);
    }
}

static int feed(void *ctx, const struct tw_event *ev)
{
  struct exp *e = ctx;
  if ((++e->fed & 4095) == 0) {
    if (e->x && tw_export_error(e->x))
      return tw_export_error(e->x); /* a full disk: stop; Release reports it */
    if (e->x)
      pass_loss(e);
    if (e->progress && (e->fed & 0xFFFFF) == 0)
      show_progress(e, 0);
  }
  return tw_mti_system_feed(e->sys, ev);
}

static int prescan(struct exp *e, const char *path)
{
  int rc;
  if ((rc = tw_input_open(&e->pre, path)) != 0)
    return rc;
  e->have_pre = 1;
  e->pre.quiet = 1; /* the second pass reports problems */
  if ((rc = tw_input_run(&e->pre)) != 0)
    return rc;
  for (size_t i = 0; i < e->pre.nsrc; i++)
    if (tw_mti_system_sync_decoder(e->sys, e->pre.src[i].d) < 0) {
      cli_err("out of memory");
      return TW_EXIT_ERROR;
    }
  return 0;
}

/* The option a refused parameter came from, for the message. */
static const char *option_of(const char *param)
{
  static const char *const map[][2] = {
    {"packet_bytes", "--packet-bytes"}, {"clock_offset_ns", "--clock-offset (in ns)"},
    {"load_window_ns", "--load-window (in ns)"}, {"out", "-o"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(map[i][0], param))
      return map[i][1];
  return param;
}

static int set_param(eslapi_CADIParameterInfo_t *infos, uint32_t n,
                     eslapi_CADIParameterValue_t *vals, uint32_t *nv, const char *name,
                     const char *value)
{
  char msg[256];
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(infos[i].name, name)) {
      if (tw_mti_param_parse(&infos[i], value, &vals[*nv], msg, sizeof msg) < 0) {
        cli_err("export: %s '%s': %s", option_of(name), value, msg);
        return TW_EXIT_USAGE;
      }
      (*nv)++;
      return 0;
    }
  cli_err("export: no parameter %s", name);
  return TW_EXIT_ERROR;
}

static int instantiate(struct exp *e, const char *format, const char **kv, int nkv)
{
  MTI_PluginFactory *f = tw_export_plugin_factory(format);
  eslapi_CADIParameterInfo_t infos[8];
  eslapi_CADIParameterValue_t vals[8];
  uint32_t n, nv = 0;
  eslapi_CAInterface *ci;
  char msg[400];
  int rc;
  if (!f) {
    cli_err("export: unknown format '%s' (ctf, perfetto, json, csv)", format);
    return TW_EXIT_USAGE;
  }
  n = f->vtbl->GetNumberOfParameters(f);
  if (n > 8 || f->vtbl->GetParameterInfos(f, infos) != CADI_STATUS_OK)
    return TW_EXIT_ERROR;
  for (int i = 0; i + 1 < nkv; i += 2)
    if ((rc = set_param(infos, n, vals, &nv, kv[i], kv[i + 1])) != 0)
      return rc;
  ci = f->vtbl->Instantiate(f, "export", nv, vals);
  if (!ci || !(e->pi = eslapi_ObtainPointer(ci, MTI_PluginInstance)))
    return TW_EXIT_ERROR;
  if (e->pi->vtbl->RegisterSimulation(e->pi, tw_mti_system_simulation(e->sys)) !=
      CADI_STATUS_OK) {
    tw_export_plugin_status(format, msg, sizeof msg);
    e->pi->vtbl->Release(e->pi); /* prints the message */
    e->pi = NULL;
    return TW_EXIT_ERROR;
  }
  e->x = tw_export_plugin_exporter(e->pi);
  return 0;
}

/* CTF writes each stream to its own file in the stream's own order, so
 * it skips the cross-stream merge (a third of the export's time); the
 * other formats are read in time order. */
static int replay(struct exp *e, const char *path, const char *format, size_t window, int quiet)
{
  struct stat st;
  int rc = tw_input_open(&e->t, path);
  if (rc)
    return rc;
  e->have_t = 1;
  e->t.quiet = quiet;
  e->progress = !quiet && isatty(2);
  e->file_bytes = stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0;
  rc = tw_input_feed(&e->t, e->sys, window, strcmp(format, "ctf") != 0, feed, e);
  if (e->x)
    pass_loss(e);
  if (e->progress)
    show_progress(e, 1);
  if (rc < 0) {
    cli_err("export: %s: %s", path, tw_strerror(rc));
    rc = TW_EXIT_ERROR;
  }
  /* e->t stays open until the exporter is released: custom events'
   * descriptors belong to its decoder and the CTF metadata needs them */
  return rc ? rc : cli_trace_status(&e->t);
}

int tw_cli_export(int argc, char **argv)
{
  static const struct option opts[] = {
    {"format", required_argument, 0, 'f'}, {"output", required_argument, 0, 'o'},
    {"packet-bytes", required_argument, 0, 'p'}, {"clock-offset", required_argument, 0, 'c'},
    {"load-window", required_argument, 0, 'l'}, {"window", required_argument, 0, 'w'},
    {"quiet", no_argument, 0, 'q'}, {0, 0, 0, 0}};
  const char *format = NULL, *out = NULL;
  const char *kv[8];
  char num[2][32];
  int nkv = 0, quiet = 0, c, rc;
  size_t window = 4096;
  struct exp e;
  memset(&e, 0, sizeof e);
  optind = 1;
  while ((c = getopt_long(argc, argv, "f:o:q", opts, NULL)) != -1) {
    long long ns;
    switch (c) {
    case 'f': format = optarg; break;
    case 'o': out = optarg; break;
    case 'p': kv[nkv++] = "packet_bytes"; kv[nkv++] = optarg; break;
    case 'c': { /* exact to the nanosecond: a double would round it */
      int64_t off;
      char why[160];
      if (tw_export_parse_offset(optarg, &off, why, sizeof why) < 0) {
        cli_err("export: --clock-offset %s", why);
        return TW_EXIT_USAGE;
      }
      snprintf(num[0], sizeof num[0], "%lld", (long long)off);
      kv[nkv++] = "clock_offset_ns";
      kv[nkv++] = num[0];
      break;
    }
    case 'l':
      if (cli_opt_seconds("export", c == 'c' ? "--clock-offset" : "--load-window", optarg, &ns) < 0)
        return TW_EXIT_USAGE;
      snprintf(num[c == 'l'], sizeof num[0], "%lld", ns);
      kv[nkv++] = c == 'c' ? "clock_offset_ns" : "load_window_ns";
      kv[nkv++] = num[c == 'l'];
      break;
    case 'w':
      if (cli_parse_window("export", optarg, &window) < 0)
        return TW_EXIT_USAGE;
      break;
    case 'q': quiet = 1; break;
    default: tw_cli_export_help(stderr); return TW_EXIT_USAGE;
    }
    if (nkv > 6)
      break;
  }
  if (optind != argc - 1 || !format || !out || !*out) {
    tw_cli_export_help(stderr);
    return TW_EXIT_USAGE;
  }
  if (!strcmp(out, "-") && (!strcmp(format, "ctf") || !strcmp(format, "csv"))) {
    /* -o - is standard output everywhere; a directory cannot go there */
    cli_err("export: -o -: %s writes a directory of files, standard output cannot take it", format);
    return TW_EXIT_USAGE;
  }
  kv[nkv++] = "out";
  kv[nkv++] = out;
  /* read twice (the plugin registers on the components a first pass
   * found): a stream (stdin, a FIFO) is read from a temporary copy */
  if (tw_input_spool(argv[optind]) != 0)
    return TW_EXIT_ERROR;
  if (tw_mti_system_create(&e.sys, tw_event_descs, tw_event_ndescs) < 0) {
    cli_err("out of memory");
    tw_input_unspool(argv[optind]);
    return TW_EXIT_ERROR;
  }
  rc = prescan(&e, argv[optind]);
  if (rc == 0)
    rc = instantiate(&e, format, kv, nkv);
  if (rc == 0) {
    rc = replay(&e, argv[optind], format, window, quiet);
  }
  if (e.pi) {
    char msg[400];
    e.pi->vtbl->Release(e.pi); /* writes the rest of the output */
    if (tw_export_plugin_status(format, msg, sizeof msg) < 0 && rc != TW_EXIT_USAGE)
      rc = TW_EXIT_ERROR;
  }
  tw_mti_system_destroy(e.sys);
  if (e.have_t)
    tw_input_close(&e.t);
  if (e.have_pre)
    tw_input_close(&e.pre);
  tw_input_unspool(argv[optind]);
  return rc;
}
