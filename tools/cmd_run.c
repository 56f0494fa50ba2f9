/* `tracewire run`: MTI trace plugins over a trace. The trace is decoded
 * twice: the first pass finds its streams (trace components) and custom
 * event kinds so that plugins see them all at RegisterSimulation; the
 * second pass feeds the events, merged into time order, to the model.
 * A stream (stdin, a FIFO) is read from a temporary copy. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tracewire/wire/merge.h"
#include "tracewire/model/mti_host.h"

void tw_cli_run_help(FILE *f)
{
  fputs("usage: tracewire run [options] TRACE --plugin PLUGIN.so[@NAME] ...\n"
        "Run MTI trace plugins (docs/mti.md) over TRACE (.twt or raw packets; - for stdin).\n"
        "Each --plugin creates one instance, named NAME or the plugin's prefix (a taken\n"
        "name gets _2, _3, ...); one library may be given several times.\n\n"
        "options:\n"
        "  --plugin PATH[@NAME]          load a plugin and instantiate it (repeatable)\n"
        "  --param TRACE.NAME.P=VALUE    instantiation parameter of instance NAME (repeatable);\n"
        "                                unknown names and out-of-range values are refused\n"
        "  --window N                    merge lookahead in events, 1..1048576 (default 4096)\n"
        "  -q, --quiet                   no per-problem lines on stderr\n"
        "  -h, --help                    this text\n"
        "exit status: 0 ok, 1 error, 2 usage (incl. refused plugin or parameter), 3 input damaged\n",
        f);
}

struct run {
  struct tw_mti_system *sys;
  struct tw_mti_session *sess;
  struct tw_input pre, t;
  int have_pre;
};

static int feed(void *ctx, const struct tw_event *ev)
{
  struct run *r = ctx;
  return tw_mti_system_feed(r->sys, ev);
}

static int add_plugins(struct run *r, char **plugins, int np, char **params, int nparams)
{
  char msg[512];
  for (int i = 0; i < np; i++) {
    char *at = strrchr(plugins[i], '@');
    if (at)
      *at = 0;
    if (tw_mti_session_add_plugin(r->sess, plugins[i], at ? at + 1 : NULL, msg, sizeof msg) < 0) {
      cli_err("run: %s", msg);
      return TW_EXIT_USAGE;
    }
  }
  for (int i = 0; i < nparams; i++) {
    if (tw_mti_session_set_param(r->sess, params[i], msg, sizeof msg) < 0) {
      cli_err("run: --param %s: %s", params[i], msg);
      return TW_EXIT_USAGE;
    }
  }
  if (tw_mti_session_instantiate(r->sess, msg, sizeof msg) < 0) {
    cli_err("run: %s", msg);
    return TW_EXIT_USAGE;
  }
  return 0;
}

static int prescan(struct run *r, const char *path, int quiet)
{
  int rc;
  if ((rc = tw_input_open(&r->pre, path)) != 0)
    return rc;
  r->have_pre = 1;
  r->pre.quiet = 1; /* the second pass reports problems */
  (void)quiet;
  if ((rc = tw_input_run(&r->pre)) != 0)
    return rc;
  if (tw_mti_system_sync_decoder(r->sys, r->pre.d) < 0) {
    cli_err("out of memory");
    return TW_EXIT_ERROR;
  }
  return 0;
}

static int replay(struct run *r, const char *path, size_t window, int quiet)
{
  int rc = tw_input_open(&r->t, path);
  if (rc)
    return rc;
  r->t.quiet = quiet;
  rc = tw_input_feed(&r->t, r->sys, window, 1, feed, r);
  if (rc < 0) {
    cli_err("run: %s: %s", path, tw_strerror(rc));
    rc = TW_EXIT_ERROR;
  }
  rc = rc ? rc : cli_trace_status(&r->t);
  tw_input_close(&r->t);
  return rc;
}

int tw_cli_run(int argc, char **argv)
{
  static const struct option opts[] = {
    {"plugin", required_argument, 0, 'p'}, {"param", required_argument, 0, 'P'},
    {"window", required_argument, 0, 'w'}, {"quiet", no_argument, 0, 'q'}, {0, 0, 0, 0}};
  char *plugins[64], *params[256];
  int np = 0, nparams = 0, quiet = 0, c, rc;
  size_t window = 4096;
  struct run r;
  memset(&r, 0, sizeof r);
  optind = 1;
  while ((c = getopt_long(argc, argv, "q", opts, NULL)) != -1) {
    if (c == 'p' && np < 64)
      plugins[np++] = optarg;
    else if (c == 'P' && nparams < 256)
      params[nparams++] = optarg;
    else if (c == 'w') {
      if (cli_parse_window("run", optarg, &window) < 0)
        return TW_EXIT_USAGE;
    } else if (c == 'q')
      quiet = 1;
    else {
      tw_cli_run_help(stderr);
      return TW_EXIT_USAGE;
    }
  }
  if (optind != argc - 1 || np == 0) {
    tw_cli_run_help(stderr);
    return TW_EXIT_USAGE;
  }
  if (tw_mti_system_create(&r.sys, tw_event_descs, tw_event_ndescs) < 0 ||
      tw_mti_session_create(&r.sess, r.sys) < 0) {
    cli_err("out of memory");
    tw_mti_system_destroy(r.sys);
    return TW_EXIT_ERROR;
  }
  if (cli_stdout_not_input("run", argv[optind]) < 0 || tw_input_spool(argv[optind]) != 0) {
    tw_mti_session_destroy(r.sess);
    tw_mti_system_destroy(r.sys);
    return TW_EXIT_ERROR;
  }
  rc = prescan(&r, argv[optind], quiet);
  if (rc == 0)
    rc = add_plugins(&r, plugins, np, params, nparams);
  if (rc == 0)
    rc = replay(&r, argv[optind], window, quiet);
  tw_mti_session_destroy(r.sess); /* instances report on Release */
  if (tw_mti_system_failures(r.sys) && rc != TW_EXIT_USAGE)
    rc = TW_EXIT_ERROR; /* a plugin could not write its output: said on stderr */
  tw_mti_system_destroy(r.sys);
  if (r.have_pre)
    tw_input_close(&r.pre);
  tw_input_unspool(argv[optind]);
  return cli_stdout_status("run", rc);
}
