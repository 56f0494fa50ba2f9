/* The analysis plugin over a trace (see cli_an.h). Like `run`: a first
 * pass finds the streams (one trace component, i.e. core, per stream), the
 * time range and the target's clock; the second feeds the merged events to
 * the model. Packet and sequence gaps the decoders report become loss
 * entries of the stream's core; DROPS records reach the engine as events. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_an.h"
#include "tracewire/error.h"
#include "tracewire/wire/merge.h"
#include "tracewire/model/mti_host.h"

struct an_pass;

struct diag_hook {
  struct an_pass *p;
  struct tw_input_src *src;
  size_t index;
};

struct an_pass {
  struct tw_mti_system *sys;
  struct tw_an *an;
  struct tw_input pre, t;     /* opened in place: their sources point back at them */
  int have_pre;
  struct diag_hook hooks[TW_INPUT_MAX_SOURCES];
};

static int feed(void *ctx, const struct tw_event *ev)
{
  return tw_mti_system_feed(((struct an_pass *)ctx)->sys, ev);
}

/* A decoder's gaps go to the stream they were on, numbered as the events
 * that reach the model are (tracewire/trace/input.h: source k's stream s
 * is k * TW_INPUT_STREAMS + s when there are several sources). */
static void on_diag(void *ctx, const struct tw_diag *g)
{
  struct diag_hook *h = ctx;
  tw_input_diag(h->src, g);
  if (g->stream < 0)
    return;
  uint16_t stream = (uint16_t)(h->p->t.nsrc > 1 ? h->index * TW_INPUT_STREAMS + (size_t)g->stream
                                                : (size_t)g->stream);
  if (g->kind == TW_DIAG_PKT_LOSS)
    tw_an_loss(h->p->an, stream, TW_AN_LOSS_PACKETS, g->count);
  else if (g->kind == TW_DIAG_EVT_GAP)
    tw_an_loss(h->p->an, stream, TW_AN_LOSS_UNEXPLAINED, g->count);
}

/* The earliest event time of a trace: its start, read until every one of
 * `want` streams has had an event. */
struct first_seen {
  uint64_t t0;
  uint8_t seen[TW_INPUT_MAX_SOURCES * TW_INPUT_STREAMS];
  size_t n, want;
};

static int on_first(void *ctx, const struct tw_event *ev)
{
  struct first_seen *f = ctx;
  if (ev->time_ns < f->t0)
    f->t0 = ev->time_ns;
  if (ev->stream < sizeof f->seen && !f->seen[ev->stream]) {
    f->seen[ev->stream] = 1;
    f->n++;
  }
  return f->n >= f->want; /* nonzero: stop reading */
}

static int first_time(const char *path, size_t want, uint64_t *t0)
{
  struct tw_input *t = calloc(1, sizeof *t);
  struct first_seen *f = calloc(1, sizeof *f);
  int rc = TW_EXIT_ERROR;
  if (t && f) {
    f->t0 = UINT64_MAX;
    f->want = want ? want : 1;
    if ((rc = tw_input_open(t, path)) == 0) {
      t->quiet = 1;
      t->on_event = on_first;
      t->ev_ctx = f;
      rc = tw_input_run(t);
      rc = rc > 0 ? 0 : rc; /* stopped early: what we wanted */
      tw_input_close(t);
    }
    *t0 = f->t0;
  }
  free(t);
  free(f);
  return rc;
}

/* The first pass: the streams, the clocks, the custom kinds and (for a
 * report) the time range. A .twt with a time index is read from its last
 * point on: the decoder's checkpoint there holds everything decoding the
 * start would have told (docs/trace-file.md), so only the tail is decoded;
 * the range's start is then read from the beginning, up to the first
 * event of every stream. */
static int prescan(struct an_pass *p, const struct cli_an *o, uint64_t *t0, uint64_t *t1)
{
  int rc = tw_input_open(&p->pre, o->path);
  if (rc)
    return rc;
  p->have_pre = 1;
  p->pre.quiet = 1; /* the second pass reports problems */
  if (p->pre.is_twt && (rc = tw_input_window(&p->pre, INT64_MAX, -1)) != 0)
    return rc;
  rc = tw_input_run(&p->pre);
  if (rc == 0 && tw_mti_system_sync_decoder(p->sys, p->pre.d) < 0) {
    cli_err("out of memory");
    rc = TW_EXIT_ERROR;
  }
  *t0 = UINT64_MAX;
  *t1 = 0;
  size_t streams = 0;
  for (size_t k = 0; rc == 0 && k < p->pre.nsrc; k++) {
    const struct tw_decoder *d = p->pre.src[k].d;
    for (size_t i = 0; i < tw_decoder_nstreams(d); i++) {
      const struct tw_stream_stats *s = tw_decoder_stream(d, i);
      streams++;
      if (!s->have_time)
        continue;
      uint64_t a = tw_decoder_ticks_to_ns(d, (int)i, s->first_ticks);
      uint64_t b = tw_decoder_ticks_to_ns(d, (int)i, s->last_ticks);
      *t0 = a < *t0 ? a : *t0;
      *t1 = b > *t1 ? b : *t1;
    }
  }
  if (rc == 0 && p->pre.indexed && o->before) /* the tail's first times are not the trace's */
    rc = first_time(o->path, streams, t0);
  if (*t0 > *t1)
    *t0 = *t1 = 0;
  return rc;
}

static int replay(struct an_pass *p, const struct cli_an *o)
{
  int rc = tw_input_open(&p->t, o->path);
  if (rc)
    return rc;
  p->t.quiet = o->quiet;
  for (size_t k = 0; k < p->t.nsrc; k++) {
    struct tw_input_src *s = &p->t.src[k];
    p->hooks[k] = (struct diag_hook){p, s, k};
    tw_decoder_on_diag(s->d, on_diag, &p->hooks[k]);
    /* A recorder may write the target's info (the clock) after the first
     * packets; the first pass saw it, so the second has it from the start:
     * the info itself, or the clock its decoder ended with (read from an
     * index point, the pass may not have seen the info chunk). */
    if (k < p->pre.nsrc && p->pre.src[k].have_info && p->pre.src[k].info[TW_INFO_TS_FREQ_HZ])
      tw_decoder_set_freq(s->d, (uint16_t)p->pre.src[k].info[TW_INFO_ENDPOINT],
                          p->pre.src[k].info[TW_INFO_TS_FREQ_HZ]);
    else if (k < p->pre.nsrc && p->pre.indexed)
      for (size_t i = 0; i < tw_decoder_nstreams(p->pre.src[k].d); i++) {
        const struct tw_stream_stats *st = tw_decoder_stream(p->pre.src[k].d, i);
        if (st->freq_hz)
          tw_decoder_set_freq(s->d, st->endpoint, st->freq_hz);
      }
  }
  /* one stream is in time order already: no merge to pay for */
  size_t streams = 0;
  for (size_t k = 0; k < p->pre.nsrc; k++)
    streams += tw_decoder_nstreams(p->pre.src[k].d);
  rc = tw_input_feed(&p->t, p->sys, o->window ? o->window : 4096, streams > 1, feed, p);
  if (rc < 0) {
    cli_err("%s: %s", o->path, tw_strerror(rc));
    rc = TW_EXIT_ERROR;
  }
  rc = rc ? rc : cli_trace_status(&p->t);
  tw_input_close(&p->t);
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
  uint64_t t0 = 0, t1 = 0;
  int rc;
  /* analyze and summary print on stdout (report too with -o -) */
  if (cli_stdout_not_input("tracewire", o->path) < 0)
    return TW_EXIT_ERROR;
  /* two passes: a stream (stdin, a FIFO) is read from a copy */
  if (tw_input_spool(o->path) != 0)
    return TW_EXIT_ERROR;
  struct an_pass *p = calloc(1, sizeof *p);
  if (!p || tw_mti_system_create(&p->sys, tw_event_descs, tw_event_ndescs) < 0) {
    free(p);
    tw_input_unspool(o->path);
    cli_err("out of memory");
    return TW_EXIT_ERROR;
  }
  MTI_PluginInstance *inst = NULL;
  rc = prescan(p, o, &t0, &t1);
  if (rc == 0 && !(inst = instantiate(p, o))) {
    cli_err("analysis: cannot instantiate the plugin");
    rc = TW_EXIT_ERROR;
  }
  if (rc == 0) {
    if (o->before)
      o->before(o->ctx, p->an, t0, t1);
    rc = replay(p, o);
    tw_an_finish(p->an);
    if (rc != TW_EXIT_ERROR && o->after)
      o->after(o->ctx, p->an);
    if (tw_an_error(p->an)) { /* the results above are incomplete: say so, fail */
      cli_err("analysis: %s: the results are incomplete", tw_strerror(tw_an_error(p->an)));
      rc = TW_EXIT_ERROR;
    }
  }
  if (inst)
    inst->vtbl->Release(inst);
  tw_mti_system_destroy(p->sys); /* the custom descriptors belong to pre's decoder: close after */
  if (p->have_pre)
    tw_input_close(&p->pre);
  free(p);
  tw_input_unspool(o->path);
  return rc;
}
