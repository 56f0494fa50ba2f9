/* Helpers shared by the subcommands (see cli.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tracewire/host/conn_twt.h"
#include "tracewire/host/trace_file.h"
#include "tracewire/error.h"

void cli_err(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("tracewire: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

long long cli_parse_seconds(const char *s)
{
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || v < 0 || v > 1.8e10)
    return -1;
  return (long long)(v * 1e9 + 0.5);
}

void cli_diag(void *ctx, const struct tw_diag *g)
{
  struct cli_trace *t = ctx;
  t->diags++;
  switch (g->kind) {
  case TW_DIAG_SKIP: case TW_DIAG_BAD_RECORD: case TW_DIAG_SNAPSHOT: case TW_DIAG_BAD_DECL:
    t->damage++;
    break;
  case TW_DIAG_RING_DROPS:
    return; /* DROPS records are events: print shows them, stats sums them */
  default:
    break;
  }
  if (t->quiet)
    return;
  long long foff = tw_conn_locate(t->src, g->offset);
  if (g->kind == TW_DIAG_SKIP)
    fprintf(stderr, "tracewire: %s: offset %llu", t->path, g->offset);
  else
    fprintf(stderr, "tracewire: %s: packet %llu at offset %llu", t->path, g->packet, g->offset);
  if (t->is_twt && foff >= 0)
    fprintf(stderr, " (file offset %lld)", foff);
  if (g->stream >= 0)
    fprintf(stderr, ", stream %04x/%u", g->endpoint, g->instance);
  fprintf(stderr, ": %s\n", g->msg);
}

static void on_chunk(void *ctx, const struct tw_twt_chunk *c, int err, const char *msg)
{
  struct cli_trace *t = ctx;
  if (!c) {
    t->truncated = 1;
    t->damage++;
    fprintf(stderr, "tracewire: %s (%s)\n", msg, tw_err_name(err));
    return;
  }
  switch (c->type) {
  case TW_TWT_SOURCE:
    if (!t->nsources++)
      snprintf(t->source_uri, sizeof t->source_uri, "%.*s", (int)c->len, (const char *)c->data);
    break;
  case TW_TWT_INFO:
    if (c->len >= 4 * TW_INFO_WORDS) {
      for (unsigned i = 0; i < TW_INFO_WORDS; i++)
        t->info[i] = tw_load_be32(c->data + 4 * i);
      t->have_info = 1;
      tw_decoder_set_freq(t->d, (uint16_t)t->info[TW_INFO_ENDPOINT], t->info[TW_INFO_TS_FREQ_HZ]);
    }
    break;
  case TW_TWT_END:
    t->have_end = 1;
    break;
  default:
    break;
  }
}

int cli_trace_open(struct cli_trace *t, const char *path)
{
  char err[512];
  memset(t, 0, sizeof *t);
  t->path = path;
  int twt = strcmp(path, "-") ? tw_twt_probe(path) : 0;
  if (twt < 0) {
    cli_err("%s: cannot open: %s", path, tw_strerror(twt));
    return TW_EXIT_ERROR;
  }
  t->is_twt = twt;
  int rc = twt ? tw_conn_twt_open(path, -1, &t->src, err, sizeof err)
               : tw_conn_file_open(path, &t->src, err, sizeof err);
  if (rc < 0) {
    cli_err("%s", err);
    return TW_EXIT_ERROR;
  }
  if (tw_reader_open(&t->r, t->src, NULL) < 0 || tw_decoder_open(&t->d, NULL) < 0) {
    cli_err("%s: out of memory", path);
    return TW_EXIT_ERROR;
  }
  tw_decoder_on_diag(t->d, cli_diag, t);
  if (twt)
    tw_conn_twt_on_chunk(t->src, on_chunk, t);
  return 0;
}

int cli_trace_run(struct cli_trace *t)
{
  int rc = tw_decoder_run(t->d, t->r);
  if (rc < 0) {
    cli_err("%s: %s", t->path, tw_conn_error(t->src));
    return TW_EXIT_ERROR;
  }
  return rc;
}

int cli_trace_status(const struct cli_trace *t)
{
  return t->damage ? TW_EXIT_DAMAGED : TW_EXIT_OK;
}

void cli_trace_close(struct cli_trace *t)
{
  tw_decoder_close(t->d);
  tw_reader_close(t->r);
  tw_conn_close(t->src);
}
