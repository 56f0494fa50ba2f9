/*
 * Perfetto native trace (.perfetto-trace): the protobuf encoding written
 * here from the published field numbers of perfetto's trace protos
 * (trace.proto, trace_packet.proto, track_descriptor.proto,
 * process/thread/counter_descriptor.proto, track_event.proto,
 * debug_annotation.proto, interned_data.proto). No generated code.
 *
 * The file is a `Trace`: a run of field 1 (packet), each a TracePacket.
 * All packets are on one trusted sequence (id 1); the first clears the
 * incremental state, and event names and argument names are interned
 * (InternedData in the packet that first uses them, referenced by iid
 * afterwards). Timestamps are the decoder's nanoseconds. What is drawn is
 * timeline.c's; this file only encodes it. Memory: the intern table
 * (bounded; names beyond it are written inline) and one packet.
 */
#include <stdlib.h>
#include <string.h>
#include "text.h"
#include "timeline.h"

/* field numbers */
enum {
  TRACE_PACKET = 1,
  TP_TIMESTAMP = 8, TP_SEQ_ID = 10, TP_TRACK_EVENT = 11, TP_INTERNED = 12, TP_SEQ_FLAGS = 13,
  TP_TRACK_DESCRIPTOR = 60,
  TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5, TD_COUNTER = 8,
  PD_PID = 1, PD_NAME = 6,
  THD_PID = 1, THD_TID = 2, THD_NAME = 5,
  CD_UNIT_NAME = 6,
  TE_DEBUG = 4, TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK = 11, TE_NAME = 23,
  TE_COUNTER_VALUE = 30, TE_FLOW_IDS = 47, TE_TERM_FLOW_IDS = 48,
  DA_NAME_IID = 1, DA_UINT = 3, DA_INT = 4, DA_DOUBLE = 5, DA_STRING = 6, DA_NAME = 10,
  ID_EVENT_NAMES = 2, ID_DEBUG_NAMES = 3,
  IN_IID = 1, IN_NAME = 2,
};
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

/* A packet holds an event with its arguments: the decoder's snapshots
 * (strings, names) are at most 64 KiB each, and an event has one string
 * and a few named objects. Anything larger fails the export, named. */
#define PB_CAP (1u << 20)
#define INTERN_MAX 65536u

struct pb {
  uint8_t *p;
  size_t n;
  int full; /* something did not fit: the packet is not written */
};

struct intern {
  char *s;
  uint64_t iid;
};

struct pf {
  struct tw__wfile w;
  uint8_t out[1 << 16]; /* packets are small: batch them into big writes */
  size_t nout;
  struct { const char *ptr, *str; uint64_t iid; } hot[2][512]; /* by the caller's pointer */
  struct timeline *tl;
  int first;
  struct intern *names[2]; /* event names, debug-annotation names */
  size_t ncap[2], nnames[2];
  uint64_t next_iid[2];
  uint8_t *pkt, *te, *interned, *tmp, *tmp2; /* PB_CAP each */
};

/* ---- encoding -------------------------------------------------------------- */

static void pb_varint(struct pb *b, uint64_t v)
{
  while (v >= 0x80) {
    b->p[b->n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b->p[b->n++] = (uint8_t)v;
}

static void pb_tag(struct pb *b, unsigned field, unsigned wt) { pb_varint(b, (uint64_t)field << 3 | wt); }

static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
  pb_tag(b, field, WT_VARINT);
  pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned field, const void *s, size_t n)
{
  if (b->full || b->n + n + 16 > PB_CAP) {
    b->full = 1;
    return;
  }
  pb_tag(b, field, WT_LEN);
  pb_varint(b, n);
  memcpy(b->p + b->n, s, n);
  b->n += n;
}

/* A string field: valid UTF-8 whatever the target sent (text.h). */
static void pb_text(struct pb *b, unsigned field, const char *s, size_t n)
{
  size_t len = tw__utf8_fix_len(s, n);
  if (len == n || b->full || b->n + len + 16 > PB_CAP) {
    pb_bytes(b, field, s, n);
    return;
  }
  pb_tag(b, field, WT_LEN);
  pb_varint(b, len);
  b->n += tw__utf8_fix_to((char *)b->p + b->n, s, n);
}

static void pb_str(struct pb *b, unsigned field, const char *s) { pb_text(b, field, s, strlen(s)); }

static void pb_fixed64(struct pb *b, unsigned field, uint64_t v)
{
  pb_tag(b, field, WT_I64);
  for (int i = 0; i < 8; i++)
    b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

static uint64_t double_bits(double v)
{
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}

/* ---- interning ---------------------------------------------------------------- */

static size_t hash_str(const char *s)
{
  size_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

/* iid of s in table k; 0 when the table is full (write s inline). Adds
 * the InternedData entry to `in` the first time. */
static uint64_t intern_slow(struct tw_export *x, struct pf *pf, int k, const char *s,
                           struct pb *in, const char **str);

/* Names mostly come from the vocabulary or timeline's caches: a pointer
 * seen before (and still holding the same string) skips the hash. */
static uint64_t intern(struct tw_export *x, struct pf *pf, int k, const char *s, struct pb *in)
{
  size_t h = ((uintptr_t)s >> 3) & 511;
  uint64_t iid;
  const char *str = NULL;
  if (pf->hot[k][h].ptr == s && !strcmp(pf->hot[k][h].str, s))
    return pf->hot[k][h].iid;
  iid = intern_slow(x, pf, k, s, in, &str);
  if (iid) {
    pf->hot[k][h].ptr = s;
    pf->hot[k][h].str = str;
    pf->hot[k][h].iid = iid;
  }
  return iid;
}

static uint64_t intern_slow(struct tw_export *x, struct pf *pf, int k, const char *s,
                           struct pb *in, const char **str)
{
  size_t i;
  if (pf->nnames[k] * 2 >= pf->ncap[k]) {
    size_t cap = pf->ncap[k] ? 2 * pf->ncap[k] : 256;
    struct intern *t;
    if (pf->nnames[k] >= INTERN_MAX || !(t = calloc(cap, sizeof *t)))
      goto lookup_only;
    for (size_t j = 0; j < pf->ncap[k]; j++)
      if (pf->names[k][j].s) {
        size_t h = hash_str(pf->names[k][j].s) & (cap - 1);
        while (t[h].s)
          h = (h + 1) & (cap - 1);
        t[h] = pf->names[k][j];
      }
    free(pf->names[k]);
    pf->names[k] = t;
    pf->ncap[k] = cap;
  }
lookup_only:
  if (!pf->ncap[k])
    return 0;
  for (i = hash_str(s) & (pf->ncap[k] - 1); pf->names[k][i].s; i = (i + 1) & (pf->ncap[k] - 1))
    if (!strcmp(pf->names[k][i].s, s)) {
      *str = pf->names[k][i].s; /* strdup'd: stays put when the table grows */
      return pf->names[k][i].iid;
    }
  if (pf->nnames[k] * 2 >= pf->ncap[k] || !(pf->names[k][i].s = strdup(s))) {
    if (pf->nnames[k] * 2 < pf->ncap[k])
      tw__export_fail(x, TW_ENOMEM, "out of memory");
    return 0;
  }
  pf->names[k][i].iid = ++pf->next_iid[k];
  pf->nnames[k]++;
  *str = pf->names[k][i].s;
  {
    struct pb e = {pf->tmp2, 0};
    pb_uint(&e, IN_IID, pf->names[k][i].iid);
    pb_str(&e, IN_NAME, s);
    in->full |= e.full;
    pb_bytes(in, k ? ID_DEBUG_NAMES : ID_EVENT_NAMES, e.p, e.n);
  }
  return pf->names[k][i].iid;
}

/* ---- packets -------------------------------------------------------------------- */

static void flush_out(struct tw_export *x, struct pf *pf)
{
  if (pf->nout && fwrite(pf->out, 1, pf->nout, pf->w.f) != pf->nout)
    tw__export_fail(x, TW_EIO, "%s: write failed", pf->w.path);
  pf->nout = 0;
}

static void emit(struct tw_export *x, struct pf *pf, uint64_t ts, int have_ts, unsigned field,
                 const struct pb *body, const struct pb *interned)
{
  struct pb p = {pf->pkt, 0};
  uint8_t hdr[16];
  struct pb h = {hdr, 0};
  if (body->full || (interned && interned->full)) {
    tw__export_fail(x, TW_ENOSPC, "%s: an event does not fit a %u-byte packet", pf->w.path,
                    PB_CAP);
    return;
  }
  if (have_ts)
    pb_uint(&p, TP_TIMESTAMP, ts);
  pb_uint(&p, TP_SEQ_ID, 1);
  pb_uint(&p, TP_SEQ_FLAGS, pf->first ? SEQ_INCREMENTAL_STATE_CLEARED
                                      : SEQ_NEEDS_INCREMENTAL_STATE);
  pf->first = 0;
  if (interned && interned->n)
    pb_bytes(&p, TP_INTERNED, interned->p, interned->n);
  pb_bytes(&p, field, body->p, body->n);
  if (p.full) {
    tw__export_fail(x, TW_ENOSPC, "%s: an event does not fit a %u-byte packet", pf->w.path,
                    PB_CAP);
    return;
  }
  pb_tag(&h, TRACE_PACKET, WT_LEN);
  pb_varint(&h, p.n);
  if (pf->nout + h.n + p.n > sizeof pf->out)
    flush_out(x, pf);
  memcpy(pf->out + pf->nout, hdr, h.n);
  memcpy(pf->out + pf->nout + h.n, p.p, p.n);
  pf->nout += h.n + p.n;
}

static void on_track(void *b, const struct tl_track *t)
{
  struct tw_export *x = b;
  struct pf *pf = x->state;
  struct pb d = {pf->te, 0}, sub = {pf->tmp, 0};
  pb_uint(&d, TD_UUID, t->uuid);
  if (t->parent)
    pb_uint(&d, TD_PARENT, t->parent);
  if (t->kind == TL_PROCESS) {
    pb_uint(&sub, PD_PID, (uint32_t)t->pid);
    pb_str(&sub, PD_NAME, t->name);
    pb_bytes(&d, TD_PROCESS, sub.p, sub.n);
  } else if (!t->counter) {
    pb_uint(&sub, THD_PID, (uint32_t)t->pid);
    pb_uint(&sub, THD_TID, (uint32_t)t->tid);
    pb_str(&sub, THD_NAME, t->name);
    pb_bytes(&d, TD_THREAD, sub.p, sub.n);
  } else {
    pb_str(&d, TD_NAME, t->name);
    if (t->kind == TL_LOAD)
      pb_str(&sub, CD_UNIT_NAME, "%");
    pb_bytes(&d, TD_COUNTER, sub.p, sub.n);
  }
  emit(x, pf, 0, 0, TP_TRACK_DESCRIPTOR, &d, NULL);
}

static void event_name(struct tw_export *x, struct pf *pf, struct pb *te, struct pb *in,
                       const char *name)
{
  uint64_t iid = intern(x, pf, 0, name, in);
  if (iid)
    pb_uint(te, TE_NAME_IID, iid);
  else
    pb_str(te, TE_NAME, name);
}

static void on_slice_begin(void *b, uint64_t ts, const struct tl_track *t, const char *name)
{
  struct tw_export *x = b;
  struct pf *pf = x->state;
  struct pb te = {pf->te, 0}, in = {pf->interned, 0};
  pb_uint(&te, TE_TYPE, TYPE_SLICE_BEGIN);
  pb_uint(&te, TE_TRACK, t->uuid);
  event_name(x, pf, &te, &in, name);
  emit(x, pf, ts, 1, TP_TRACK_EVENT, &te, &in);
}

static void on_slice_end(void *b, uint64_t ts, const struct tl_track *t)
{
  struct tw_export *x = b;
  struct pf *pf = x->state;
  struct pb te = {pf->te, 0};
  pb_uint(&te, TE_TYPE, TYPE_SLICE_END);
  pb_uint(&te, TE_TRACK, t->uuid);
  emit(x, pf, ts, 1, TP_TRACK_EVENT, &te, NULL);
}

static void on_instant(void *b, uint64_t ts, const struct tl_track *t, const char *name,
                       const struct tl_arg *a, unsigned na, uint64_t flow_out, uint64_t flow_in)
{
  struct tw_export *x = b;
  struct pf *pf = x->state;
  struct pb te = {pf->te, 0}, in = {pf->interned, 0};
  pb_uint(&te, TE_TYPE, TYPE_INSTANT);
  pb_uint(&te, TE_TRACK, t->uuid);
  event_name(x, pf, &te, &in, name);
  for (unsigned i = 0; i < na; i++) {
    struct pb da = {pf->tmp, 0};
    uint64_t iid = intern(x, pf, 1, a[i].name, &in);
    if (iid)
      pb_uint(&da, DA_NAME_IID, iid);
    else
      pb_str(&da, DA_NAME, a[i].name);
    if (a[i].str)
      pb_text(&da, DA_STRING, a[i].str, a[i].str_len);
    else if (a[i].kind == TL_NUM_INT) /* int64 varint: two's complement, 10 bytes if < 0 */
      pb_uint(&da, DA_INT, (uint64_t)a[i].inum);
    else if (a[i].kind == TL_NUM_FLOAT) /* double, fixed64 wire type; NaN/Inf are fine */
      pb_fixed64(&da, DA_DOUBLE, double_bits(a[i].fnum));
    else
      pb_uint(&da, DA_UINT, a[i].num);
    te.full |= da.full;
    pb_bytes(&te, TE_DEBUG, da.p, da.n);
  }
  if (flow_out)
    pb_fixed64(&te, TE_FLOW_IDS, flow_out);
  if (flow_in)
    pb_fixed64(&te, TE_TERM_FLOW_IDS, flow_in);
  emit(x, pf, ts, 1, TP_TRACK_EVENT, &te, &in);
}

static void on_counter(void *b, uint64_t ts, const struct tl_track *t, int64_t v)
{
  struct tw_export *x = b;
  struct pf *pf = x->state;
  struct pb te = {pf->te, 0};
  pb_uint(&te, TE_TYPE, TYPE_COUNTER);
  pb_uint(&te, TE_TRACK, t->uuid);
  pb_uint(&te, TE_COUNTER_VALUE, (uint64_t)v); /* int64: two's complement varint */
  emit(x, pf, ts, 1, TP_TRACK_EVENT, &te, NULL);
}

static const struct tl_ops pf_ops = {on_track, on_slice_begin, on_slice_end, on_instant,
                                     on_counter};

static int pf_open(struct tw_export *x)
{
  struct pf *pf = calloc(1, sizeof *pf);
  if (!pf)
    return tw__export_fail(x, TW_ENOMEM, "out of memory");
  x->state = pf;
  uint8_t **bufs[] = {&pf->pkt, &pf->te, &pf->interned, &pf->tmp, &pf->tmp2};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    if (!(*bufs[i] = malloc(PB_CAP)))
      return tw__export_fail(x, TW_ENOMEM, "out of memory");
  pf->first = 1;
  if (tw__wfile_open(x, &pf->w, x->out) < 0)
    return x->err;
  if (!(pf->tl = tw__tl_open(x, &pf_ops, x)))
    return x->err;
  return 0;
}

static int pf_event(struct tw_export *x, const struct tw_event *ev)
{
  tw__tl_event(((struct pf *)x->state)->tl, ev);
  return x->err;
}

static int pf_finish(struct tw_export *x)
{
  struct pf *pf = x->state;
  tw__tl_finish(pf->tl);
  flush_out(x, pf);
  return tw__wfile_close(x, &pf->w);
}

static void pf_free(struct tw_export *x)
{
  struct pf *pf = x->state;
  if (!pf)
    return;
  tw__tl_close(pf->tl);
  if (pf->w.f)
    tw__wfile_close(x, &pf->w);
  for (int k = 0; k < 2; k++) {
    for (size_t i = 0; i < pf->ncap[k]; i++)
      free(pf->names[k][i].s);
    free(pf->names[k]);
  }
  free(pf->pkt);
  free(pf->te);
  free(pf->interned);
  free(pf->tmp);
  free(pf->tmp2);
  free(pf);
  x->state = NULL;
}

static void pf_loss(struct tw_export *x, uint16_t ep, uint16_t inst, uint64_t count)
{
  struct pf *pf = x->state;
  if (pf && pf->tl)
    tw__tl_loss(pf->tl, ep, inst, count);
}

const struct tw__export_ops tw__export_perfetto = {.name = "perfetto", .open = pf_open,
                                                   .event = pf_event, .finish = pf_finish,
                                                   .free = pf_free, .loss = pf_loss};
