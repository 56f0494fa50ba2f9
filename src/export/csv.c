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
 * strings quoted as RFC 4180 says (doubled quotes), whole and byte for
 * byte as the target sent them (NUL and invalid UTF-8 included). Custom
 * kinds of several endpoints with the same name share a file when their
 * fields agree. Names from the target are rewritten and made unique
 * (text.h, docs/exporters.md "Names and strings"): the file name keeps
 * [A-Za-z0-9_-] and non-ASCII UTF-8, every other character becomes `_`,
 * and a name already taken gets `_2`, `_3`, ... in order of first sight; a
 * header cell keeps its bytes (quoted when needed) and a field named like
 * an earlier one or a fixed column (time_ns, endpoint, core, seq,
 * time_inferred, marker) gets the same suffix.
 */
#include <stdlib.h>
#include <string.h>
#include "export_internal.h"
#include "text.h"
#include "tracewire/wire/format.h"

#define CSV_KINDS 512

struct csv_kind {
  const struct tw_event_desc *desc; /* key while events flow */
  char *orig;                       /* the kind's name as the target gave it */
  const char *name;                 /* its file's name, without .csv (in files) */
  char *sig;                        /* field names and types: sharing by name */
  struct tw__wfile w;
  int owner;                        /* this entry opened w (else shares it) */
  struct csv_kind *file;
};

struct csv {
  struct csv_kind kinds[CSV_KINDS];
  size_t n;
  struct csv_kind *last;
  struct tw__names files;           /* file names given out */
};

/* Columns of every file: a field of the same name gets a suffix. */
static const char *const fixed_cols[] = {"time_ns", "endpoint", "core", "seq",
                                         "time_inferred", "marker", NULL};

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

/* "name\0type\0" per field: two kinds agree when these do. NULL: no memory. */
static char *signature(const struct tw_event_desc *d)
{
  struct tw__text t = {0};
  tw__text_put(&t, "", 0);
  for (unsigned i = 0; i < d->nfields; i++) {
    char ty[8];
    tw__text_put(&t, d->fields[i].name, strlen(d->fields[i].name) + 1);
    snprintf(ty, sizeof ty, "%d;", d->fields[i].type);
    tw__text_put(&t, ty, strlen(ty));
  }
  if (t.oom)
    tw__text_free(&t);
  return t.p;
}

static int header(struct tw_export *x, FILE *f, const struct tw_event_desc *d)
{
  struct tw__names cols = {0};
  int rc = 0;
  for (size_t i = 0; fixed_cols[i]; i++)
    if (tw__names_reserve(&cols, fixed_cols[i]) < 0)
      rc = -1;
  fputs("time_ns,endpoint,core,seq,time_inferred", f);
  for (unsigned i = 0; i < d->nfields && !rc; i++) {
    const char *c = tw__names_take(&cols, d->fields[i].name);
    if (!c) {
      rc = -1;
      break;
    }
    fputc(',', f);
    tw__csv_cell(f, c, strlen(c), 0);
  }
  fputs(has_marker(d) ? ",marker\n" : "\n", f);
  tw__names_free(&cols);
  return rc < 0 ? tw__export_fail(x, TW_ENOMEM, "out of memory") : 0;
}

/* The kind's file: shared with an earlier kind of the same name and
 * fields (the same custom kind on several endpoints), else a new file
 * named after the kind, unique in the directory (text.h). */
static int kind_open(struct tw_export *x, struct csv *c, struct csv_kind *k)
{
  struct tw__text t = {0};
  char *path;
  for (size_t i = 0; i + 1 < c->n; i++)
    if (c->kinds[i].owner && !strcmp(c->kinds[i].orig, k->orig) &&
        !strcmp(c->kinds[i].sig, k->sig)) {
      k->file = &c->kinds[i];
      return 0;
    }
  tw__rw_file(&t, k->orig);
  k->name = t.oom ? NULL : tw__names_take(&c->files, t.p);
  tw__text_free(&t);
  if (!k->name || !(path = malloc(strlen(x->out) + strlen(k->name) + 6)))
    return tw__export_fail(x, TW_ENOMEM, "out of memory");
  sprintf(path, "%s/%s.csv", x->out, k->name);
  tw__wfile_open(x, &k->w, path);
  free(path);
  if (x->err)
    return x->err;
  k->owner = 1;
  k->file = k;
  return header(x, k->w.f, k->desc);
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
  if (!(k->orig = strdup(n)) || !(k->sig = signature(ev->desc))) {
    tw__export_fail(x, TW_ENOMEM, "out of memory");
    return NULL;
  }
  if (kind_open(x, c, k) < 0)
    return NULL;
  return c->last = k;
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
    if (d->fields[i].type == TW_FT_STRING) /* whole: the target's bytes */
      tw__csv_cell(f, ev->str ? ev->str : "", ev->str ? ev->str_len : 0, 1);
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
  for (size_t i = 0; i < c->n; i++) {
    if (c->kinds[i].owner && c->kinds[i].w.f)
      tw__wfile_close(x, &c->kinds[i].w);
    free(c->kinds[i].orig);
    free(c->kinds[i].sig);
  }
  tw__names_free(&c->files);
  free(c);
  x->state = NULL;
}

const struct tw__export_ops tw__export_csv = {"csv", csv_open, csv_event, csv_finish, csv_free};
