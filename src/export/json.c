/*
 * Chrome Trace Event Format (JSON object form): {"traceEvents": [...]}.
 * chrome://tracing, Perfetto UI and speedscope read it. The picture is
 * timeline.c's, as in the Perfetto export:
 *   tracks    "M" process_name / thread_name metadata (pid = (endpoint index + 1) << 16;
 *             tid = the track's thread id; counter tracks are per process)
 *   slices    "B" / "E" on the track's pid/tid
 *   strings   valid UTF-8 (invalid bytes U+FFFD, valid ones kept), whole;
 *             arg keys unique within an event (docs/exporters.md)
 *   instants  "i" (scope thread) with the fields as args (signed fields
 *             as negative numbers, F32 as numbers or "NaN"/"Infinity")
 *   flows     "s" at the give, on the track whose slice is open there (the
 *             interrupt's, else the core's run slice), bound to that
 *             enclosing slice; "f" at the ToTask on the released task's
 *             thread with the default binding, to the next slice that
 *             begins there: the task's next run. ("bp":"e" would need a
 *             slice open on that thread at that time, and a released task
 *             is not running: viewers dropped those flows.)
 *   counters  "C" named after the track, args {"value": n}
 * ts is in microseconds with three decimals: the nanoseconds exactly.
 * Written as it goes; the closing bracket at the end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "text.h"
#include "timeline.h"
#include "tracewire/wire/format.h"

struct js {
  struct tw__wfile w;
  struct timeline *tl;
  int n;
};

/* Valid UTF-8 whatever the target sent (text.h): "café" stays café. */
static void put_str(FILE *f, const char *s)
{
  tw__json_str(f, s, strlen(s));
}

static FILE *begin(struct tw_export *x, const char *ph)
{
  struct js *j = x->state;
  FILE *f = j->w.f;
  fputs(j->n++ ? ",\n{\"ph\":\"" : "\n{\"ph\":\"", f);
  fputs(ph, f);
  fputc('"', f);
  return f;
}

static void put_ts(FILE *f, uint64_t ns)
{
  fprintf(f, ",\"ts\":%llu.%03u", (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
}

static void put_where(FILE *f, const struct tl_track *t)
{
  fprintf(f, ",\"pid\":%d,\"tid\":%d", t->pid, t->tid);
}

static void on_track(void *b, const struct tl_track *t)
{
  FILE *f;
  if (t->counter)
    return; /* a "C" event names its counter */
  f = begin(b, "M");
  fputs(t->kind == TL_PROCESS ? ",\"name\":\"process_name\"" : ",\"name\":\"thread_name\"", f);
  put_where(f, t);
  fputs(",\"args\":{\"name\":", f);
  put_str(f, t->name);
  fputs("}}", f);
}

static void on_slice_begin(void *b, uint64_t ts, const struct tl_track *t, const char *name)
{
  FILE *f = begin(b, "B");
  fputs(",\"name\":", f);
  put_str(f, name);
  put_ts(f, ts);
  put_where(f, t);
  fputc('}', f);
}

static void on_slice_end(void *b, uint64_t ts, const struct tl_track *t)
{
  FILE *f = begin(b, "E");
  put_ts(f, ts);
  put_where(f, t);
  fputc('}', f);
}

static void flow(void *b, const char *ph, uint64_t ts, const struct tl_track *t, uint64_t id)
{
  FILE *f = begin(b, ph);
  fprintf(f, ",\"name\":\"release\",\"cat\":\"flow\",\"id\":%llu", (unsigned long long)id);
  put_ts(f, ts);
  put_where(f, t);
  fputc('}', f);
}

/* JSON has no NaN or Infinity: those become the strings "NaN",
 * "Infinity", "-Infinity" (JavaScript's spellings; Number("NaN") reads them
 * back), so the file stays valid and the value is not lost. Finite values
 * as `tracewire print` writes them (fewest digits that round-trip the
 * float), with ".0" added to integral ones so that readers which type
 * numbers by their spelling (Python) get a float and keep -0.0. */
static void put_float(FILE *f, double v)
{
  if (isnan(v))
    fputs("\"NaN\"", f);
  else if (isinf(v))
    fputs(v < 0 ? "\"-Infinity\"" : "\"Infinity\"", f);
  else {
    char t[40];
    size_t n = tw_field_value_text(t, sizeof t, TW_FT_F32, 32, tw_f32_to_bits((float)v));
    fwrite(t, 1, n, f);
    if (!memchr(t, '.', n) && !memchr(t, 'e', n))
      fputs(".0", f); /* "-0" would read back as the integer 0 in many parsers */
  }
}

static void instant(void *b, uint64_t ts, const struct tl_track *t, const char *name,
                    const struct tl_arg *a, unsigned na)
{
  FILE *f = begin(b, "i");
  fputs(",\"s\":\"t\",\"name\":", f);
  put_str(f, name);
  put_ts(f, ts);
  put_where(f, t);
  fputs(",\"args\":{", f);
  for (unsigned i = 0; i < na; i++) {
    if (i)
      fputc(',', f);
    put_str(f, a[i].name); /* unique within the event (timeline.c) */
    fputc(':', f);
    if (a[i].str)
      tw__json_str(f, a[i].str, a[i].str_len);
    else if (a[i].kind == TL_NUM_INT)
      fprintf(f, "%lld", (long long)a[i].inum);
    else if (a[i].kind == TL_NUM_FLOAT)
      put_float(f, a[i].fnum);
    else
      fprintf(f, "%llu", (unsigned long long)a[i].num);
  }
  fputs("}}", f);
}

static void on_instant(void *b, uint64_t ts, const struct tl_track *t,
                       const struct tw_rtos_change *ch, uint64_t flow_out,
                       const struct tl_track *flow_from, uint64_t flow_in)
{
  struct tw_export *x = b;
  struct tl_arg a[TL_MAX_ARGS];
  unsigned na;
  const char *name = tw__tl_describe(((struct js *)x->state)->tl, ch, a, &na);
  instant(b, ts, t, name, a, na);
  if (flow_out)
    flow(b, "s", ts, flow_from, flow_out);
  if (flow_in)
    flow(b, "f", ts, t, flow_in);
}

static void on_counter(void *b, uint64_t ts, const struct tl_track *t, int64_t v)
{
  FILE *f = begin(b, "C");
  fputs(",\"name\":", f);
  put_str(f, t->name);
  put_ts(f, ts);
  fprintf(f, ",\"pid\":%d,\"args\":{\"value\":%lld}}", t->pid, (long long)v);
}

static const struct tl_ops js_ops = {.track = on_track, .slice_begin = on_slice_begin,
                                     .slice_end = on_slice_end, .instant = on_instant,
                                     .counter = on_counter, .note = instant};

static int js_open(struct tw_export *x)
{
  struct js *j = calloc(1, sizeof *j);
  if (!j)
    return tw__export_fail(x, TW_ENOMEM, "out of memory");
  x->state = j;
  if (tw__wfile_open(x, &j->w, x->out) < 0)
    return x->err;
  fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"tracewire\"},"
        "\"traceEvents\":[", j->w.f);
  if (!(j->tl = tw__tl_open(x, &js_ops, x)))
    return x->err;
  return 0;
}

static int js_event(struct tw_export *x, const struct tw_event *ev)
{
  tw__tl_event(((struct js *)x->state)->tl, ev);
  return x->err;
}

static int js_finish(struct tw_export *x)
{
  struct js *j = x->state;
  tw__tl_finish(j->tl);
  fputs("\n]}\n", j->w.f);
  return tw__wfile_close(x, &j->w);
}

static void js_free(struct tw_export *x)
{
  struct js *j = x->state;
  if (!j)
    return;
  tw__tl_close(j->tl);
  if (j->w.f)
    tw__wfile_close(x, &j->w);
  free(j);
  x->state = NULL;
}

static void js_loss(struct tw_export *x, uint16_t ep, uint16_t inst, uint64_t count)
{
  struct js *j = x->state;
  if (j && j->tl)
    tw__tl_loss(j->tl, ep, inst, count);
}

const struct tw__export_ops tw__export_json = {.name = "json", .open = js_open,
                                               .event = js_event, .finish = js_finish,
                                               .free = js_free, .loss = js_loss};
