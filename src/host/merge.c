/* Bounded-lookahead k-way merge (contract: include/tracewire/host/merge.h). */
#include <stdlib.h>
#include <string.h>
#include "tracewire/host/merge.h"
#include "tracewire/error.h"

struct slot {
  struct tw_event ev;
  unsigned long long order;
  char *str;
  size_t strcap;
};

struct tw_merge {
  size_t window, n;
  struct slot *slots;   /* storage */
  struct slot **heap;   /* min-heap of pointers into slots */
  struct slot **free_;  /* free slots */
  size_t nfree;
  tw_event_fn sink;
  void *ctx;
  unsigned long long order, late;
  uint64_t last_out;
  int streams_seen, first_stream;
  int pass;             /* single stream so far and a window flushed: no copies */
};

int tw_merge_open(struct tw_merge **out, size_t window, tw_event_fn sink, void *ctx)
{
  struct tw_merge *m = calloc(1, sizeof *m);
  if (!m)
    return TW_ENOMEM;
  if (window == 0)
    window = 1;
  m->window = window;
  m->slots = calloc(window + 1, sizeof *m->slots);
  m->heap = calloc(window + 1, sizeof *m->heap);
  m->free_ = calloc(window + 1, sizeof *m->free_);
  if (!m->slots || !m->heap || !m->free_) {
    tw_merge_close(m);
    return TW_ENOMEM;
  }
  for (size_t i = 0; i <= window; i++)
    m->free_[m->nfree++] = &m->slots[i];
  m->sink = sink;
  m->ctx = ctx;
  m->first_stream = -1;
  *out = m;
  return 0;
}

void tw_merge_close(struct tw_merge *m)
{
  if (!m)
    return;
  for (size_t i = 0; m->slots && i <= m->window; i++)
    free(m->slots[i].str);
  free(m->slots);
  free(m->heap);
  free(m->free_);
  free(m);
}

static int before(const struct slot *a, const struct slot *b)
{
  return a->ev.time_ns < b->ev.time_ns || (a->ev.time_ns == b->ev.time_ns && a->order < b->order);
}

static void sift_up(struct tw_merge *m, size_t i)
{
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!before(m->heap[i], m->heap[p]))
      break;
    struct slot *t = m->heap[i];
    m->heap[i] = m->heap[p];
    m->heap[p] = t;
    i = p;
  }
}

static void sift_down(struct tw_merge *m, size_t i)
{
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, s = i;
    if (l < m->n && before(m->heap[l], m->heap[s]))
      s = l;
    if (r < m->n && before(m->heap[r], m->heap[s]))
      s = r;
    if (s == i)
      return;
    struct slot *t = m->heap[i];
    m->heap[i] = m->heap[s];
    m->heap[s] = t;
    i = s;
  }
}

static int release(struct tw_merge *m, const struct tw_event *ev)
{
  if (ev->time_ns < m->last_out)
    m->late++;
  else
    m->last_out = ev->time_ns;
  return m->sink ? m->sink(m->ctx, ev) : 0;
}

static int pop(struct tw_merge *m)
{
  /* the earliest held event */
  struct slot *s = m->heap[0];
  m->heap[0] = m->heap[--m->n];
  sift_down(m, 0);
  int rc = release(m, &s->ev);
  m->free_[m->nfree++] = s;
  return rc;
}

int tw_merge_push(void *mp, const struct tw_event *ev)
{
  struct tw_merge *m = mp;
  if (m->first_stream < 0)
    m->first_stream = ev->stream;
  if (!m->streams_seen && ev->stream != m->first_stream) {
    m->streams_seen = 1;
    m->pass = 0;
  }
  if (m->pass)
    return release(m, ev);
  if (!m->streams_seen && m->n == m->window) {
    /* a whole window from one stream: it is a single-stream trace (until
     * another stream shows up), so stop copying events */
    int rc = tw_merge_flush(m);
    m->pass = 1;
    return rc ? rc : release(m, ev);
  }
  struct slot *s = m->free_[--m->nfree];
  s->ev = *ev;
  s->order = m->order++;
  if (ev->str) {
    if (s->strcap < ev->str_len + 1) {
      char *p = realloc(s->str, ev->str_len + 1);
      if (!p) {
        m->free_[m->nfree++] = s;
        return TW_ENOMEM;
      }
      s->str = p;
      s->strcap = ev->str_len + 1;
    }
    memcpy(s->str, ev->str, ev->str_len);
    s->ev.str = s->str;
  }
  m->heap[m->n++] = s;
  sift_up(m, m->n - 1);
  return m->n > m->window ? pop(m) : 0;
}

int tw_merge_flush(struct tw_merge *m)
{
  while (m->n > 0) {
    int rc = pop(m);
    if (rc)
      return rc;
  }
  return 0;
}

unsigned long long tw_merge_late(const struct tw_merge *m) { return m->late; }
