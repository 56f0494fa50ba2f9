/*
 * libFuzzer target: `tracewire index` (tw_twt_reindex(), src/twt) and the
 * windowed reads its index serves (tw_input_window(), src/trace), on any
 * .twt: damaged chunk headers, cut files, foreign chunks, several sources,
 * old indexes that lie. The input is the file, in a memfd; the index
 * spacing is picked from its size (small, so small files get points).
 *
 * Checked, beyond ASan/UBSan:
 *  - the input is never changed;
 *  - write then read back: a full read of the indexed copy prints exactly
 *    the lines a full read of the input prints (every event, formatted as
 *    `print` does, merged as `print` does);
 *  - the index serves windows exactly: for windows picked from the input,
 *    a windowed read of the copy prints the lines of the full read that
 *    fall in the window (docs/trace-file.md, "Seeking").
 * Seeds: fuzz/corpus/index (fuzz/seeds.sh: short recordings of every
 * scenario, several sources, and bit-flipped copies).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_cli_common.h"
#include "tracewire/error.h"
#include "tracewire/trace/input.h"
#include "tracewire/twt/twt_index.h"
#include "tracewire/wire/format.h"
#include "tracewire/wire/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct lines {
  struct tw_input *t;
  FILE *f;
  long long from, to;
  uint64_t prev_ns;
  unsigned long long n;
};

static int on_event(void *ctx, const struct tw_event *ev)
{
  struct lines *l = ctx;
  char line[4096];
  if ((l->from >= 0 && ev->time_ns < (uint64_t)l->from) ||
      (l->to >= 0 && ev->time_ns > (uint64_t)l->to))
    return 0;
  const struct tw_input_src *src = tw_input_src_of(l->t, ev);
  size_t n = tw_event_format(line, sizeof line, ev, src->d, l->prev_ns,
                             l->t->nsrc > 1 ? src->id : -1);
  fwrite(line, 1, n, l->f);
  l->prev_ns = ev->time_ns;
  l->n++;
  return 0;
}

/* What `print [--filter time=FROM..TO]` prints of path (-1: open end);
 * *indexed: whether the index served the window. NULL: not readable. */
static char *print_lines(const char *path, long long from, long long to, int windowed,
                         size_t *len, int *indexed, uint64_t *t0, uint64_t *t1)
{
  struct tw_input *t = calloc(1, sizeof *t);
  struct lines l = {.t = t, .from = from, .to = to};
  char *buf = NULL;
  struct tw_merge *m = NULL;
  *len = 0;
  *indexed = 0;
  if (!t)
    abort();
  if (tw_input_open(t, path) != 0) {
    tw_input_close(t);
    free(t);
    return NULL;
  }
  t->quiet = 1;
  if (windowed && tw_input_window(t, from, to) != 0)
    abort(); /* a window on a readable file cannot fail: it falls back */
  *indexed = t->indexed;
  if (!(l.f = open_memstream(&buf, len)) || tw_merge_open(&m, 4096, on_event, &l) < 0)
    abort();
  t->on_event = tw_merge_push;
  t->ev_ctx = m;
  int rc = tw_input_run(t);
  if (rc == 0)
    rc = tw_merge_flush(m);
  tw_merge_close(m);
  fclose(l.f);
  if (t0 && t1) {
    *t0 = UINT64_MAX;
    *t1 = 0;
    for (size_t k = 0; k < t->nsrc; k++)
      for (size_t i = 0; i < tw_decoder_nstreams(t->src[k].d); i++) {
        const struct tw_stream_stats *st = tw_decoder_stream(t->src[k].d, i);
        if (!st->have_time)
          continue;
        uint64_t a = tw_decoder_ticks_to_ns(t->src[k].d, (int)i, st->first_ticks);
        uint64_t b = tw_decoder_ticks_to_ns(t->src[k].d, (int)i, st->last_ticks);
        *t0 = a < *t0 ? a : *t0;
        *t1 = b > *t1 ? b : *t1;
      }
  }
  tw_input_close(t);
  free(t);
  if (rc != 0 && rc != TW_INPUT_REPORTED) {
    fprintf(stderr, "fuzz_index: reading %s: %d\n", path, rc);
    abort();
  }
  return buf;
}

static void same(const char *a, size_t na, const char *b, size_t nb, const char *what)
{
  if (na == nb && !memcmp(a, b, na))
    return;
  size_t i = 0;
  while (i < na && i < nb && a[i] == b[i])
    i++;
  size_t ls = i;
  while (ls > 0 && a[ls - 1] != '\n')
    ls--;
  fprintf(stderr, "fuzz_index: %s: %zu vs %zu bytes, first difference at %zu:\n  %.200s\n  %.200s\n",
          what, na, nb, i, a + ls, b + ls);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct memfile in, out;
  char err[1024];
  if (!in.path[0]) {
    memfile_init(&in, "fuzz_index_in");
    memfile_init(&out, "fuzz_index_out");
  }
  memfile_set(&in, data, size);
  memfile_set(&out, NULL, 0);
  struct tw_twt_reindex rw = {.every = 256u << (size % 4)};
  int rc = tw_twt_reindex(in.path, out.path, &rw, err, sizeof err);
  size_t n;
  char *again = memfile_get(&in, &n);
  if (n != size || memcmp(again, data, size)) {
    fprintf(stderr, "fuzz_index: the input changed\n");
    abort();
  }
  free(again);
  if (rc < 0)
    return 0; /* not a .twt this version reads: refused, input untouched */

  size_t na, nb;
  int ix;
  uint64_t t0, t1;
  char *full_in = print_lines(in.path, -1, -1, 0, &na, &ix, NULL, NULL);
  char *full_out = print_lines(out.path, -1, -1, 0, &nb, &ix, &t0, &t1);
  if (!full_in || !full_out)
    abort(); /* both were read by the rewrite */
  same(full_in, na, full_out, nb, "full read of the input vs of the indexed copy");
  free(full_in);

  /* windows: fractions of the time range picked from the input */
  if (t1 > t0) {
    uint64_t span = t1 - t0;
    for (int k = 0; k < 3; k++) {
      uint8_t a = data[(size / 3 * k) % size], b = data[(size / 5 * k + 1) % size];
      long long from = (long long)(t0 + span / 256 * a), to = (long long)(t0 + span / 256 * (a + b));
      if (k == 1)
        from = -1;
      if (k == 2 && b & 1)
        to = -1;
      size_t nw, nf;
      int indexed;
      char *win = print_lines(out.path, from, to, 1, &nw, &indexed, NULL, NULL);
      char *ref = print_lines(out.path, from, to, 0, &nf, &ix, NULL, NULL);
      same(ref, nf, win, nw, indexed ? "window through the index vs the full read"
                                     : "window (whole file) vs the full read");
      free(win);
      free(ref);
    }
  }
  free(full_out);
  return 0;
}
