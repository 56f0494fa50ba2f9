/* Bounded-lookahead k-way merge (contract: include/tracewire/wire/merge.h). */
#include <stdlib.h>
#include <string.h>
#include "tracewire/wire/merge.h"
#include "tracewire/error.h"

struct slot {
  struct tw_event ev;
  char *str;
  size_t strcap;
};

/* Held events are kept per stream, each stream's queue sorted on (time_ns,
 * arrival order); the earliest held event is the earliest of the queue
 * heads. Streams are nearly always in time order already, so a push is an
 * append and a pop compares a few heads: a heap over all held events did
 * the same job with a dozen unpredictable comparisons per event (it was the
 * merge's main cost). The output is the same: the minimum held event on
 * (time_ns, order), whatever holds it. A timestamp that goes backwards in
 * its stream is sorted into place within the queue (insertion, bounded by
 * the window). */
struct entry {           /* the keys travel with the pointer: no slot is */
  uint64_t time_ns;     /* touched to compare (slots are large and scattered) */
  unsigned long long order;
  struct slot *slot;
};

struct queue {
  struct entry *q;      /* ring of cap entries, head at h, n held */
  size_t cap, h, n;
};

struct tw_merge {
  size_t window, n;
  struct slot *slots;   /* storage */
  struct queue *queues; /* by ev.stream */
  size_t nqueues;
  uint16_t *seen;       /* the streams that have a queue: pop scans these */
  size_t nseen;
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
  if (window > TW_MERGE_MAX_WINDOW)
    return TW_ERANGE; /* window + 1 slots: SIZE_MAX once wrapped to none */
  struct tw_merge *m = calloc(1, sizeof *m);
  if (!m)
    return TW_ENOMEM;
  if (window == 0)
    window = 1;
  m->window = window;
  m->slots = calloc(window + 1, sizeof *m->slots);
  m->free_ = calloc(window + 1, sizeof *m->free_);
  if (!m->slots || !m->free_) {
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
  for (size_t i = 0; i < m->nqueues; i++)
    free(m->queues[i].q);
  free(m->queues);
  free(m->seen);
  free(m->slots);
  free(m->free_);
  free(m);
}

static inline int before(const struct entry *a, const struct entry *b)
{
  return a->time_ns < b->time_ns || (a->time_ns == b->time_ns && a->order < b->order);
}

static inline struct entry *at(const struct queue *q, size_t i)
{
  return &q->q[(q->h + i) & (q->cap - 1)];
}

/* The queue of a stream, with room for one more entry. */
static struct queue *queue_for(struct tw_merge *m, uint16_t stream)
{
  if (stream >= m->nqueues) {
    size_t n = (size_t)stream + 1;
    struct queue *g = realloc(m->queues, n * sizeof *g);
    if (!g)
      return NULL;
    memset(g + m->nqueues, 0, (n - m->nqueues) * sizeof *g);
    m->queues = g;
    m->nqueues = n;
  }
  struct queue *q = &m->queues[stream];
  if (q->n == q->cap) { /* grow (a power of two), unrolling the ring */
    size_t cap = q->cap ? 2 * q->cap : 16;
    struct entry *g = malloc(cap * sizeof *g);
    if (!g)
      return NULL;
    if (!q->cap) { /* a new stream */
      uint16_t *sg = realloc(m->seen, (m->nseen + 1) * sizeof *sg);
      if (!sg) {
        free(g);
        return NULL;
      }
      m->seen = sg;
      m->seen[m->nseen++] = stream;
    }
    for (size_t i = 0; i < q->n; i++)
      g[i] = *at(q, i);
    free(q->q);
    q->q = g;
    q->cap = cap;
    q->h = 0;
  }
  return q;
}

/* Append, then move back past later entries (rare: time went backwards). */
static void queue_insert(struct queue *q, struct slot *s, unsigned long long order)
{
  struct entry e = {s->ev.time_ns, order, s};
  size_t i = q->n++;
  while (i > 0 && before(&e, at(q, i - 1))) {
    *at(q, i) = *at(q, i - 1);
    i--;
  }
  *at(q, i) = e;
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
  /* the earliest held event: the earliest queue head */
  struct queue *best = NULL;
  for (size_t i = 0; i < m->nseen; i++) {
    struct queue *q = &m->queues[m->seen[i]];
    if (q->n && (!best || before(at(q, 0), at(best, 0))))
      best = q;
  }
  if (!best) /* nothing held (callers pop only when something is) */
    return 0;
  struct slot *s = at(best, 0)->slot;
  best->h = (best->h + 1) & (best->cap - 1);
  best->n--;
  m->n--;
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
  struct queue *q = queue_for(m, ev->stream);
  if (!q)
    return TW_ENOMEM;
  struct slot *s = m->free_[--m->nfree];
  s->ev = *ev;
  unsigned long long order = m->order++;
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
  queue_insert(q, s, order);
  m->n++;
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
