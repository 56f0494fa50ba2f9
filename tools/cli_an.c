/* The analysis plugin over a trace (see cli_an.h). Like `run`: a first
 * pass finds the streams (one trace component, i.e. core, per stream) and
 * the time range; the second pass feeds the merged events to the model.
 * Packet and sequence gaps the decoder reports become loss entries of the
 * stream's core; DROPS records reach the engine as events. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_an.h"
#include "tracewire/error.h"
#include "tracewire/host/merge.h"
#include "tracewire/mti_host.h"

struct an_pass {
  struct tw_mti_system *sys;
  struct tw_an *an;
  struct cli_trace pre, t; /* in place: their sources point back at them */
};

static int feed(void *ctx, const struct tw_event *ev)
{
  return tw_mti_system_feed(((struct an_pass *)ctx)->sys, ev);
}

/* ctx is the source of the second pass (the decoder's diag context that
 * cli_diag expects); its stream numbers are the ones events carry (cli.h). */
static void on_diag(void *ctx, const struct tw_diag *g)
{
  struct cli_src *src = ctx;
  struct an_pass *p = (struct an_pass *)(void *)((char *)src->t - offsetof(struct an_pass, t));
  cli_diag(src, g);
  if (g->stream < 0)
    return;
  int stream = p->t.nsrc > 1 ? (int)(src - p->t.src) * CLI_STREAMS + g->stream : g->stream;
  if (g->kind == TW_DIAG_PKT_LOSS)
    tw_an_loss(p->an, stream, TW_AN_LOSS_PACKETS, g->count);
  else if (g->kind == TW_DIAG_EVT_GAP)
    tw_an_loss(p->an, stream, TW_AN_LOSS_UNEXPLAINED, g->count);
}

static int prescan(struct an_pass *p, const char *path, uint64_t *t0, uint64_t *t1)
{
  struct cli_trace *pre = &p->pre;
  int rc = cli_trace_open(pre, path);
  /* custom descriptors belong to the decoders: keep them (closed by replay) */
  if (rc)
    return rc;
  pre->quiet = 1;
  rc = cli_trace_run(pre);
  *t0 = UINT64_MAX;
  *t1 = 0;
  for (size_t k = 0; rc == 0 && k < pre->nsrc; k++) {
    struct tw_decoder *d = pre->src[k].d;
    if (tw_mti_system_sync_decoder(p->sys, d) < 0) {
      cli_err("out of memory");
      rc = TW_EXIT_ERROR;
      break;
    }
    for (size_t i = 0; i < tw_decoder_nstreams(d); i++) {
      const struct tw_stream_stats *s = tw_decoder_stream(d, i);
      if (!s->have_time)
        continue;
      uint64_t a = tw_decoder_ticks_to_ns(d, (int)i, s->first_ticks);
      uint64_t b = tw_decoder_ticks_to_ns(d, (int)i, s->last_ticks);
      *t0 = a < *t0 ? a : *t0;
      *t1 = b > *t1 ? b : *t1;
    }
  }
  if (*t0 > *t1)
    *t0 = *t1 = 0;
  return rc;
}

static int replay(struct an_pass *p, const struct cli_an *o)
{
  struct tw_merge *m;
  int rc = cli_trace_open(&p->t, o->path);
  if (rc) {
    cli_trace_close(&p->t);
    return rc;
  }
  p->t.quiet = o->quiet;
  for (size_t k = 0; k < p->t.nsrc; k++) {
    tw_decoder_on_diag(p->t.src[k].d, on_diag, &p->t.src[k]);
    /* A recorder may write the target's info (the clock) after the first
     * packets; the first pass saw it, so the second has it from the start. */
    const struct cli_src *pre = k < p->pre.nsrc ? &p->pre.src[k] : NULL;
    if (pre && pre->have_info && pre->info[TW_INFO_TS_FREQ_HZ])
      tw_decoder_set_freq(p->t.src[k].d, (uint16_t)pre->info[TW_INFO_ENDPOINT],
                          pre->info[TW_INFO_TS_FREQ_HZ]);
  }
  if (tw_merge_open(&m, o->window ? o->window : 4096, feed, p) < 0) {
    cli_trace_close(&p->t);
    cli_err("out of memory");
    return TW_EXIT_ERROR;
  }
  p->t.on_event = tw_merge_push; /* every source's events (cli.h) */
  p->t.ev_ctx = m;
  tw_mti_system_start(p->sys);
  rc = cli_trace_run(&p->t);
  if (rc == 0)
    rc = tw_merge_flush(m);
  tw_mti_system_stop(p->sys);
  tw_merge_close(m);
  if (rc < 0) {
    cli_err("%s: %s", o->path, tw_strerror(rc));
    rc = TW_EXIT_ERROR;
  }
  rc = rc ? rc : cli_trace_status(&p->t);
  cli_trace_close(&p->t);
  return rc;
}

static MTI_PluginInstance *instantiate(struct an_pass *p, const struct cli_an *o)
{
  MTI_PluginFactory *fac = tw_an_plugin_factory();
  eslapi_CADIParameterValue_t v[3];
  memset(v, 0, sizeof v);
  v[0].parameterID = 1;
  v[0].dataType = CADI_PARAM_INT;
  v[0].intValue = (int64_t)((o->starve_ns ? o->starve_ns : 100000000ull) / 1000000ull);
  if (v[0].intValue < 1)
    v[0].intValue = 1;
  v[1].parameterID = 2;
  v[1].dataType = CADI_PARAM_BOOL;
  v[2].parameterID = 3;
  v[2].dataType = CADI_PARAM_STRING; /* "": the CLI writes the results itself */
  MTI_PluginInstance *inst = eslapi_ObtainPointer(fac->vtbl->Instantiate(fac, "analysis", 3, v),
                                                  MTI_PluginInstance);
  if (!inst)
    return NULL;
  if (inst->vtbl->RegisterSimulation(inst, tw_mti_system_simulation(p->sys)) != CADI_STATUS_OK) {
    inst->vtbl->Release(inst);
    return NULL;
  }
  p->an = tw_an_plugin_engine(inst);
  return inst;
}

int cli_an_run(const struct cli_an *o)
{
  struct an_pass p;
  uint64_t t0, t1;
  int rc;
  memset(&p, 0, sizeof p);
  if (!strcmp(o->path, "-")) {
    cli_err("%s: needs a file (two passes), not stdin", o->path);
    return TW_EXIT_USAGE;
  }
  if (tw_mti_system_create(&p.sys, tw_event_descs, tw_event_ndescs) < 0) {
    cli_err("out of memory");
    return TW_EXIT_ERROR;
  }
  if ((rc = prescan(&p, o->path, &t0, &t1)) != 0) {
    cli_trace_close(&p.pre);
    tw_mti_system_destroy(p.sys);
    return rc;
  }
  MTI_PluginInstance *inst = instantiate(&p, o);
  if (!inst) {
    cli_trace_close(&p.pre);
    tw_mti_system_destroy(p.sys);
    cli_err("analysis: cannot instantiate the plugin");
    return TW_EXIT_ERROR;
  }
  if (o->before)
    o->before(o->ctx, p.an, t0, t1);
  rc = replay(&p, o);
  tw_an_finish(p.an);
  if (rc != TW_EXIT_ERROR && o->after)
    o->after(o->ctx, p.an);
  inst->vtbl->Release(inst);
  cli_trace_close(&p.pre);
  tw_mti_system_destroy(p.sys);
  return rc;
}
