/*
 * CSV: a directory with one file per event kind, `<Name>.csv` (the seed
 * name, as `tracewire print` shows it), created when the kind first
 * occurs. Header row: time_ns, endpoint, core, seq, time_inferred (1 when
 * the record had no timestamp and time_ns is the stream's previous timed
 * record's, else 0), then the kind's field names in vocabulary order, then
 * `marker` for kinds that have markers.
 * Marker-field values are their constant names (`Lock`), NAME.kind the
 * object kind (`task`), other values decimal (I8..I32 signed; F32 as
 * `tracewire print` writes it: shortest round-trip %g, nan, inf, -inf);
 * strings quoted as RFC 4180
 * says (doubled quotes). Custom kinds of several endpoints with the same
 * name share a file when their fields agree, else the later one gets
 * `<Name>_<id>_<n>.csv` (n: order of first sight).
 */
#include <stdlib.h>
#include <string.h>
#include "export_internal.h"
#include "tracewire/wire/format.h"

#define CSV_KINDS 512

struct csv_kind {
  const struct tw_event_desc *desc; /* key while events flow */
  char name[64];
  char sig[256];                    /* field names and types: sharing by name */
  struct tw__wfile w;
  int owner;                        /* this entry opened w (else shares it) */
  struct csv_kind *file;
};

struct csv {
  struct csv_kind kinds[CSV_KINDS];
  size_t n;
  struct csv_kind *last;
};

static int csv_open(struct tw_export *x)
{
  if (!(x->state = calloc(1, sizeof(struct csv))))
    return tw__export_fail(x, TW_ENOMEM, "out of memory");
  return tw__mkdir(x, x->out);
}

static int has_marker(const struct tw_event_desc *d)
{
  return d->marker_field >= 0 || d->default_marker != TW_MARKER_NONE;
}

static void signature(const struct tw_event_desc *d, char *s, size_t cap)
{
  size_t n = 0;
  s[0] = 0;
  for (unsigned i = 0; i < d->nfields && n < cap; i++)
    n += (size_t)snprintf(s + n, cap - n, "%s:%d ", d->fields[i].name, d->fields[i].type);
}

/* A header cell or constant name: quoted when a custom declaration put a
 * comma, quote or line break in it. */
static void put_cell(FILE *f, const char *s)
{
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static int kind_open(struct tw_export *x, struct csv *c, struct csv_kind *k)
{
  const struct tw_event_desc *d = k->desc;
  char path[700];
  FILE *f;
  for (size_t i = 0; i + 1 < c->n; i++)
    if (c->kinds[i].owner && !strcmp(c->kinds[i].name, k->name)) {
      if (!strcmp(c->kinds[i].sig, k->sig)) {
        k->file = &c->kinds[i];
        return 0;
      }
      snprintf(k->name + strlen(k->name), sizeof k->name - strlen(k->name), "_%u_%zu", d->id,
               c->n);
    }
  snprintf(path, sizeof path, "%s/%s.csv", x->out, k->name);
  if (tw__wfile_open(x, &k->w, path) < 0)
    return x->err;
  k->owner = 1;
  k->file = k;
  f = k->w.f;
  fputs("time_ns,endpoint,core,seq,time_inferred", f);
  for (unsigned i = 0; i < d->nfields; i++) {
    fputc(',', f);
    put_cell(f, d->fields[i].name);
  }
  fputs(has_marker(d) ? ",marker\n" : "\n", f);
  return 0;
}

static struct csv_kind *kind_of(struct tw_export *x, struct csv *c, const struct tw_event *ev)
{
  struct csv_kind *k;
  const char *n = ev->desc->seed_name ? ev->desc->seed_name : ev->desc->name;
  if (c->last && c->last->desc == ev->desc)
    return c->last;
  for (size_t i = 0; i < c->n; i++)
    if (c->kinds[i].desc == ev->desc)
      return c->last = &c->kinds[i];
  if (c->n == CSV_KINDS) {
    tw__export_fail(x, TW_ENOSPC, "%s: more than %u event kinds", x->out, CSV_KINDS);
    return NULL;
  }
  k = &c->kinds[c->n++];
  k->desc = ev->desc;
  /* a file name from the target's custom declaration: keep it tame */
  for (size_t i = 0; n[i] && i + 1 < sizeof k->name; i++)
    k->name[i] = (n[i] == '/' || n[i] == '.' || (unsigned char)n[i] < 0x20) ? '_' : n[i];
  signature(ev->desc, k->sig, sizeof k->sig);
  if (kind_open(x, c, k) < 0)
    return NULL;
  return c->last = k;
}

static void put_string(FILE *f, const char *s, size_t n)
{
  fputc('"', f);
  for (size_t i = 0; i < n && s[i]; i++) {
    if (s[i] == '"')
      fputc('"', f);
    fputc(s[i], f);
  }
  fputc('"', f);
}

static int csv_event(struct tw_export *x, const struct tw_event *ev)
{
  struct csv_kind *k = kind_of(x, x->state, ev);
  const struct tw_event_desc *d = ev->desc;
  FILE *f;
  if (!k)
    return x->err;
  f = k->file->w.f;
  fprintf(f, "%llu,%u,%u,%u,%u", (unsigned long long)ev->time_ns, ev->endpoint, ev->instance,
          ev->seq, (ev->flags & TW_EVENT_TIME_INFERRED) ? 1u : 0u);
  for (unsigned i = 0; i < d->nfields; i++) {
    uint32_t v = i < ev->nvalues ? ev->values[i] : 0;
    const char *e = (int)i == d->marker_field ? tw_event_enum_name(d, v) : NULL;
    fputc(',', f);
    if (d->fields[i].type == TW_FT_STRING)
      put_string(f, ev->str ? ev->str : "", ev->str ? ev->str_len : 0);
    else if (e)
      fputs(e, f);
    else if (d->fields[i].obj == TW_OBJ_OBJKIND)
      fputs(tw_obj_kind_name((enum tw_obj_kind)v), f);
    else if (d->fields[i].type == TW_FT_F32 || tw_field_type_signed(d->fields[i].type)) {
      char t[40];
      size_t n = tw_field_value_text(t, sizeof t, d->fields[i].type, d->fields[i].bits, v);
      fwrite(t, 1, n, f);
    } else
      fprintf(f, "%u", v);
  }
  if (has_marker(d)) {
    enum tw_marker m = tw_event_marker_of(ev);
    fprintf(f, ",%s", m == TW_MARKER_NONE ? "" : tw_marker_name(m));
  }
  fputc('\n', f);
  return 0;
}

static int csv_finish(struct tw_export *x)
{
  struct csv *c = x->state;
  for (size_t i = 0; i < c->n; i++)
    if (c->kinds[i].owner)
      tw__wfile_close(x, &c->kinds[i].w);
  return x->err;
}

static void csv_free(struct tw_export *x)
{
  struct csv *c = x->state;
  if (!c)
    return;
  for (size_t i = 0; i < c->n; i++)
    if (c->kinds[i].owner && c->kinds[i].w.f)
      tw__wfile_close(x, &c->kinds[i].w);
  free(c);
  x->state = NULL;
}

const struct tw__export_ops tw__export_csv = {"csv", csv_open, csv_event, csv_finish, csv_free};
