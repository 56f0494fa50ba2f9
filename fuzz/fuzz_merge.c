/*
 * libFuzzer target: the time merge (src/wire/merge.c) with arbitrary
 * windows, against the plainest reference (the one of
 * tests/test_host_merge.c): hold events in an array, release the minimum on
 * (time, arrival order) by a linear scan when more than `window` are held,
 * with the same single-stream pass-through rule (wire/merge.h). The input
 * picks the window (1 .. TW_MERGE_MAX_WINDOW) and the events: any stream
 * number, times that jump anywhere in 64 bits (backwards, ties, near 2^64),
 * strings the producer overwrites after the push, sink errors.
 *
 * Checked: the released order, every event's fields and string, the late
 * count and the sink's return value are the reference's, and nothing is
 * lost or duplicated.
 * Seeds: fuzz/corpus/merge (fuzz/seeds.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/error.h"
#include "tracewire/wire/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXN 2048 /* events per input: -max_len bounds it anyway */

struct out { uint16_t stream; uint32_t seq; uint64_t t; char str[8]; size_t slen; };
struct rec { struct out o[MAXN + 1]; size_t n; int fail_at; };

static int sink(void *ctx, const struct tw_event *ev)
{
  struct rec *r = ctx;
  if (r->n > MAXN)
    abort(); /* more out than in */
  struct out *o = &r->o[r->n++];
  o->stream = ev->stream;
  o->seq = ev->seq;
  o->t = ev->time_ns;
  o->slen = ev->str ? ev->str_len : (size_t)-1;
  memset(o->str, 0, sizeof o->str);
  if (ev->str)
    memcpy(o->str, ev->str, ev->str_len < 8 ? ev->str_len : 8);
  return r->fail_at && (int)r->n == r->fail_at ? TW_EIO : 0;
}

/* ---- the reference ---- */
struct ref {
  size_t window, n;
  struct { struct tw_event ev; unsigned long long order; char s[8]; } held[MAXN + 1];
  unsigned long long order, late;
  uint64_t last_out;
  int streams_seen, first_stream, pass, rc;
  struct rec *r;
};

static void ref_release(struct ref *f, const struct tw_event *ev)
{
  if (f->rc)
    return; /* the merge stops at the sink's first error */
  if (ev->time_ns < f->last_out)
    f->late++;
  else
    f->last_out = ev->time_ns;
  f->rc = sink(f->r, ev);
}

static void ref_pop(struct ref *f)
{
  size_t b = 0;
  for (size_t i = 1; i < f->n; i++)
    if (f->held[i].ev.time_ns < f->held[b].ev.time_ns ||
        (f->held[i].ev.time_ns == f->held[b].ev.time_ns && f->held[i].order < f->held[b].order))
      b = i;
  struct tw_event ev = f->held[b].ev;
  char s[8];
  memcpy(s, f->held[b].s, 8);
  if (ev.str)
    ev.str = s;
  f->held[b] = f->held[--f->n];
  if (f->held[b].ev.str && b < f->n)
    f->held[b].ev.str = f->held[b].s;
  ref_release(f, &ev);
}

static void ref_push(struct ref *f, const struct tw_event *ev)
{
  if (f->first_stream < 0)
    f->first_stream = ev->stream;
  if (!f->streams_seen && ev->stream != f->first_stream) {
    f->streams_seen = 1;
    f->pass = 0;
  }
  if (f->pass) {
    ref_release(f, ev);
    return;
  }
  if (!f->streams_seen && f->n == f->window) {
    while (f->n)
      ref_pop(f);
    f->pass = 1;
    ref_release(f, ev);
    return;
  }
  f->held[f->n].ev = *ev;
  f->held[f->n].order = f->order++;
  memset(f->held[f->n].s, 0, 8);
  if (ev->str) {
    memcpy(f->held[f->n].s, ev->str, ev->str_len);
    f->held[f->n].ev.str = f->held[f->n].s;
  }
  f->n++;
  if (f->n > f->window)
    ref_pop(f);
}

static struct rec got, want;
static struct ref ref;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 4)
    return 0;
  /* window: small ones mostly (where the order rules bite), up to more
   * than the events an input holds, and now and then any up to the bound
   * (its storage costs a real allocation: rarely) */
  uint32_t w = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16;
  size_t window = (data[3] & 0x83) == 0x83 && (w & 0xF0) == 0xF0 ? 1 + w % TW_MERGE_MAX_WINDOW
                : data[3] & 0x80 ? 1 + w % 4096 : 1 + w % 64;
  int fail_at = data[3] & 0x40 ? 1 + (data[3] & 0x3C) : 0;
  data += 4;
  size -= 4;
  memset(&got, 0, sizeof got);
  memset(&want, 0, sizeof want);
  memset(&ref, 0, sizeof ref);
  got.fail_at = want.fail_at = fail_at;
  ref.window = window;
  ref.first_stream = -1;
  ref.r = &want;
  struct tw_merge *m;
  if (tw_merge_open(&m, window, sink, &got) < 0)
    return 0; /* out of memory for a huge window: allowed, nothing to compare */
  uint64_t t = 0;
  uint32_t seq = 0;
  int rc = 0;
  char buf[8];
  /* each event: 1 byte stream, 1 byte control, 2 bytes time step */
  for (size_t i = 0; i + 4 <= size && seq < MAXN; i += 4) {
    uint8_t ctl = data[i + 1];
    int16_t step = (int16_t)(data[i + 2] | data[i + 3] << 8);
    switch (ctl & 3) {
    case 0: t += (uint64_t)(int64_t)step; break;           /* small steps, back or forth */
    case 1: t = (uint64_t)step << 48; break;                /* far jumps */
    case 2: t = UINT64_MAX - (uint16_t)step; break;         /* near 2^64 */
    default: break;                                         /* a tie */
    }
    struct tw_event ev;
    memset(&ev, 0, sizeof ev);
    ev.stream = (uint16_t)(data[i] | (ctl & 0x80 ? 0xFF00 : 0));
    ev.time_ns = t;
    ev.seq = seq++;
    if (ctl & 4) {
      snprintf(buf, sizeof buf, "s%u", seq % 100000u);
      ev.str = buf;
      ev.str_len = strlen(buf);
    }
    ref_push(&ref, &ev);
    rc = tw_merge_push(m, &ev);
    memset(buf, 'x', sizeof buf); /* the producer reuses its buffer */
    if (rc != ref.rc) {
      fprintf(stderr, "fuzz_merge: push returned %d, the reference %d\n", rc, ref.rc);
      abort();
    }
    if (rc)
      break;
  }
  if (!rc) {
    rc = tw_merge_flush(m);
    while (ref.n && !ref.rc)
      ref_pop(&ref);
    if (rc != ref.rc)
      abort();
  }
  if (got.n != want.n || (!rc && got.n != seq)) {
    fprintf(stderr, "fuzz_merge: %zu events out, the reference %zu, %u in\n", got.n, want.n, seq);
    abort();
  }
  for (size_t i = 0; i < got.n; i++)
    if (got.o[i].stream != want.o[i].stream || got.o[i].seq != want.o[i].seq ||
        got.o[i].t != want.o[i].t || got.o[i].slen != want.o[i].slen ||
        memcmp(got.o[i].str, want.o[i].str, 8)) {
      fprintf(stderr, "fuzz_merge: event %zu differs (window %zu)\n", i, window);
      abort();
    }
  if (!rc && tw_merge_late(m) != ref.late)
    abort();
  tw_merge_close(m);
  return 0;
}
