/* Shared by the host tests: build synthetic streams, decode them to text. */
#ifndef TW_TEST_HOST_HELPERS_H
#define TW_TEST_HOST_HELPERS_H

#include <stdlib.h>
#include <string.h>
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/format.h"
#include "tracewire/wire/reader.h"
#include "tracewire/io/conn.h"
#include "tracewire/wire/synth.h"

#define MAX_PKTS 4096

struct stream_buf {
  uint8_t *data;
  size_t len;
  size_t off[MAX_PKTS], plen[MAX_PKTS];
  uint16_t seq_before[MAX_PKTS + 1];  /* event seq of instance 0 before packet i */
  unsigned long long drops_before[MAX_PKTS + 1];
  size_t npkts;
};

static inline void synth_stream(struct stream_buf *s, size_t npkts, const struct tw_synth_cfg *cfg)
{
  struct tw_synth g;
  tw_synth_init(&g, cfg);
  s->data = malloc(npkts * 65536);
  s->len = 0;
  s->npkts = npkts;
  for (size_t i = 0; i < npkts; i++) {
    s->seq_before[i] = g.ev_seq[0];
    s->drops_before[i] = g.drops;
    s->off[i] = s->len;
    s->plen[i] = tw_synth_packet(&g, s->data + s->len, 65536);
    s->len += s->plen[i];
  }
  s->seq_before[npkts] = g.ev_seq[0];
  s->drops_before[npkts] = g.drops;
}

struct text {
  char *buf;
  size_t len, cap;
  unsigned long long events;
  struct tw_diag diags[256];
  size_t ndiags;
  const struct tw_decoder *d;
  uint64_t prev;
};

static inline int text_event(void *ctx, const struct tw_event *ev)
{
  struct text *t = ctx;
  char line[1024];
  size_t n = tw_event_format(line, sizeof line, ev, t->d, t->prev, -1);
  t->prev = ev->time_ns;
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->cap + n + 1) * 2;
    t->buf = realloc(t->buf, t->cap);
  }
  memcpy(t->buf + t->len, line, n + 1);
  t->len += n;
  t->events++;
  return 0;
}

static inline void text_diag(void *ctx, const struct tw_diag *g)
{
  struct text *t = ctx;
  if (t->ndiags < 256)
    t->diags[t->ndiags++] = *g;
}

static inline size_t count_diags(const struct text *t, enum tw_diag_kind k)
{
  size_t n = 0;
  for (size_t i = 0; i < t->ndiags; i++)
    n += t->diags[i].kind == k;
  return n;
}

/* Decode bytes; text and diagnostics into *t; the decoder is returned open
 * (caller closes) so stats can be checked. */
static inline struct tw_decoder *decode_mem(const void *data, size_t len, struct text *t)
{
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  memset(t, 0, sizeof *t);
  if (tw_conn_mem_open(data, len, &src) || tw_reader_open(&r, src, NULL) || tw_decoder_open(&d, NULL))
    abort();
  t->d = d;
  tw_decoder_on_event(d, text_event, t);
  tw_decoder_on_diag(d, text_diag, t);
  if (tw_decoder_run(d, r) != 0)
    abort();
  tw_reader_close(r);
  tw_conn_close(src);
  return d;
}

#endif
