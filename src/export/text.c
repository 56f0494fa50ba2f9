/*
 * Target strings made safe for each export format (text.h has the rules;
 * docs/exporters.md, "Names and strings", the why). The writers go through
 * the text in runs: a run of bytes that need nothing is one fwrite, so a
 * 10 KB string of plain text costs one call, not 10 000.
 */
#include <stdlib.h>
#include <string.h>
#include "text.h"

static const char fffd[3] = {(char)0xEF, (char)0xBF, (char)0xBD}; /* U+FFFD */

/* ---- buffer ---------------------------------------------------------------- */

void tw__text_reset(struct tw__text *t)
{
  t->n = 0;
  if (t->p)
    t->p[0] = 0;
}

void tw__text_put(struct tw__text *t, const void *s, size_t n)
{
  if (t->oom)
    return;
  if (t->n + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 64;
    char *p;
    while (cap < t->n + n + 1)
      cap *= 2;
    if (!(p = realloc(t->p, cap))) {
      t->oom = 1;
      return;
    }
    t->p = p;
    t->cap = cap;
  }
  memcpy(t->p + t->n, s, n);
  t->n += n;
  t->p[t->n] = 0;
}

void tw__text_free(struct tw__text *t)
{
  free(t->p);
  *t = (struct tw__text){0};
}

/* ---- UTF-8 ----------------------------------------------------------------- */

const char *tw__utf8_fix(struct tw__text *t, const char *s, size_t n, size_t *outn)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i = tw__utf8_valid_len(s, n);
  if (i == n) {
    *outn = n;
    return s;
  }
  tw__text_reset(t);
  tw__text_put(t, s, i);
  while (i < n) {
    int k = tw__utf8_step(u + i, n - i);
    if (k < 0) {
      tw__text_put(t, fffd, 3);
      i += (size_t)-k;
    } else {
      size_t j = i + tw__utf8_valid_len(s + i, n - i);
      tw__text_put(t, s + i, j - i);
      i = j;
    }
  }
  if (t->oom)
    return NULL;
  *outn = t->n;
  return t->p;
}

size_t tw__utf8_fix_len(const char *s, size_t n)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i = tw__utf8_valid_len(s, n), len = i;
  while (i < n) {
    int k = tw__utf8_step(u + i, n - i);
    len += k < 0 ? 3 : (size_t)k;
    i += (size_t)(k < 0 ? -k : k);
  }
  return len;
}

size_t tw__utf8_fix_to(char *out, const char *s, size_t n)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, o = 0;
  while (i < n) {
    int k = tw__utf8_step(u + i, n - i);
    if (k < 0) {
      memcpy(out + o, fffd, 3);
      o += 3;
      i += (size_t)-k;
    } else {
      memcpy(out + o, s + i, (size_t)k);
      o += (size_t)k;
      i += (size_t)k;
    }
  }
  return o;
}

/* ---- writers ---------------------------------------------------------------- */

/* Writes s[0..n) in runs: `esc` says how byte run[i] (a character of k
 * bytes, k < 0 ill-formed) is written instead of as itself, or returns 0 to
 * keep it. */
typedef int esc_fn(FILE *f, const unsigned char *s, size_t n, int k);

static void write_runs(FILE *f, const char *s, size_t n, esc_fn *esc)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t run = 0, i = 0;
  while (i < n) {
    int k = u[i] < 0x80 ? 1 : tw__utf8_step(u + i, n - i);
    if (esc(NULL, u + i, n - i, k)) {
      fwrite(s + run, 1, i - run, f);
      esc(f, u + i, n - i, k);
      i += (size_t)(k < 0 ? -k : k);
      run = i;
    } else
      i += (size_t)k;
  }
  fwrite(s + run, 1, n - run, f);
}

/* f NULL: only say whether the character needs escaping. */
static int json_esc(FILE *f, const unsigned char *s, size_t n, int k)
{
  static const char hex[] = "0123456789abcdef";
  (void)n;
  if (k > 1 || (k == 1 && s[0] >= 0x20 && s[0] != '"' && s[0] != '\\'))
    return 0;
  if (!f)
    return 1;
  if (k < 0)
    fwrite(fffd, 1, 3, f);
  else if (s[0] == '"' || s[0] == '\\')
    fprintf(f, "\\%c", s[0]);
  else if (s[0] == '\n')
    fputs("\\n", f);
  else if (s[0] == '\t')
    fputs("\\t", f);
  else if (s[0] == '\r')
    fputs("\\r", f);
  else
    fprintf(f, "\\u00%c%c", hex[s[0] >> 4], hex[s[0] & 15]);
  return 1;
}

void tw__json_str(FILE *f, const char *s, size_t n)
{
  fputc('"', f);
  write_runs(f, s, n, json_esc);
  fputc('"', f);
}

void tw__csv_cell(FILE *f, const char *s, size_t n, int quote)
{
  size_t run = 0;
  for (size_t i = 0; !quote && i < n; i++)
    quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
  if (!quote) {
    fwrite(s, 1, n, f);
    return;
  }
  fputc('"', f);
  for (size_t i = 0; i < n; i++)
    if (s[i] == '"') {
      fwrite(s + run, 1, i + 1 - run, f); /* the quote, and again below */
      run = i;
    }
  fwrite(s + run, 1, n - run, f);
  fputc('"', f);
}

static int tsdl_str_esc(FILE *f, const unsigned char *s, size_t n, int k)
{
  static const char hex[] = "0123456789abcdef";
  (void)n;
  if (k > 1 || (k == 1 && s[0] >= 0x20 && s[0] != 0x7F && s[0] != '"' && s[0] != '\\'))
    return 0;
  if (!f)
    return 1;
  if (k < 0 || s[0] == 0)
    fwrite(fffd, 1, 3, f); /* a NUL would end the name where babeltrace2 reads it */
  else if (s[0] == '"' || s[0] == '\\')
    fprintf(f, "\\%c", s[0]);
  else
    fprintf(f, "\\x%c%c", hex[s[0] >> 4], hex[s[0] & 15]);
  return 1;
}

void tw__tsdl_str(FILE *f, const char *s, size_t n)
{
  fputc('"', f);
  write_runs(f, s, n, tsdl_str_esc);
  fputc('"', f);
}

/* A comment ends at the first `*` `/`: the `/` after a `*` is written
 * apart. Controls would only make the metadata hard to read. */
static int tsdl_comment_esc(FILE *f, const unsigned char *s, size_t n, int k)
{
  int star_slash = k == 1 && s[0] == '*' && n > 1 && s[1] == '/';
  if (k > 1 || (k == 1 && s[0] >= 0x20 && s[0] != 0x7F && !star_slash))
    return 0;
  if (!f)
    return 1;
  if (star_slash)
    fputs("* ", f);
  else
    fwrite(fffd, 1, 3, f);
  return 1;
}

void tw__tsdl_comment(FILE *f, const char *s, size_t n)
{
  write_runs(f, s, n, tsdl_comment_esc);
}

/* ---- rewriters --------------------------------------------------------------- */

static int alnum(unsigned c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Appends s with every character (a valid sequence, or one ill-formed
 * subpart) that `keep` refuses as one `_`, up to max bytes (0: no bound),
 * never splitting a character. */
static void rewrite(struct tw__text *t, const char *s, int (*keep)(const unsigned char *, int),
                    size_t max)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t n = strlen(s), i = 0, start = t->n;
  while (i < n) {
    int k = tw__utf8_step(u + i, n - i);
    size_t len = (size_t)(k < 0 ? -k : k);
    int ok = keep(u + i, k);
    if (max && t->n - start + (ok ? len : 1) > max)
      break;
    if (ok)
      tw__text_put(t, s + i, len);
    else
      tw__text_put(t, "_", 1);
    i += len;
  }
}

static int keep_ident(const unsigned char *s, int k)
{
  return k == 1 && (alnum(s[0]) || s[0] == '_');
}

void tw__rw_tsdl_ident(struct tw__text *t, const char *s)
{
  tw__text_put(t, "_", 1);
  rewrite(t, s, keep_ident, 0);
}

void tw__rw_utf8(struct tw__text *t, const char *s)
{
  size_t n;
  struct tw__text tmp = {0};
  const char *v = tw__utf8_fix(&tmp, s, strlen(s), &n);
  if (!v)
    t->oom = 1;
  else
    tw__text_put(t, v, n);
  tw__text_free(&tmp);
}

void tw__rw_raw(struct tw__text *t, const char *s)
{
  tw__text_put(t, s, strlen(s));
}

static int keep_file(const unsigned char *s, int k)
{
  return k > 1 || (k == 1 && (alnum(s[0]) || s[0] == '_' || s[0] == '-'));
}

void tw__rw_file(struct tw__text *t, const char *s)
{
  size_t start = t->n;
  rewrite(t, s, keep_file, TW__FILE_NAME_MAX);
  if (t->n == start)
    tw__text_put(t, "_", 1); /* "" and "." are no file names */
}

/* ---- unique names ------------------------------------------------------------- */

int tw__names_has(const struct tw__names *set, const char *form)
{
  for (size_t i = 0; i < set->n; i++)
    if (!strcmp(set->v[i], form))
      return 1;
  return 0;
}

static const char *add(struct tw__names *set, char *s)
{
  if (!s)
    return NULL;
  if (set->n == set->cap) {
    size_t cap = set->cap ? 2 * set->cap : 16;
    char **v = realloc(set->v, cap * sizeof *v);
    if (!v) {
      free(s);
      return NULL;
    }
    set->v = v;
    set->cap = cap;
  }
  return set->v[set->n++] = s;
}

const char *tw__names_take(struct tw__names *set, const char *form)
{
  size_t len = strlen(form);
  char *s;
  if (!tw__names_has(set, form))
    return add(set, strdup(form));
  if (!(s = malloc(len + 24)))
    return NULL;
  for (unsigned long k = 2;; k++) {
    snprintf(s, len + 24, "%s_%lu", form, k);
    if (!tw__names_has(set, s))
      return add(set, s);
  }
}

int tw__names_reserve(struct tw__names *set, const char *form)
{
  if (tw__names_has(set, form))
    return 0;
  return add(set, strdup(form)) ? 0 : -1;
}

void tw__names_free(struct tw__names *set)
{
  for (size_t i = 0; i < set->n; i++)
    free(set->v[i]);
  free(set->v);
  *set = (struct tw__names){0};
}

/* ---- field names per kind ------------------------------------------------------ */

struct fentry {
  const struct tw_event_desc *desc;
  unsigned nfields;
  char *orig[TW_EVENT_MAX_VALUES]; /* the names computed from (custom kinds) */
  const char *out[TW_EVENT_MAX_VALUES];
  struct tw__names set;
};

struct tw__fields {
  tw__rewrite_fn *rw;
  const char *const *reserved;
  struct fentry **e;       /* open addressing by descriptor pointer */
  size_t cap, n;
  struct fentry *last;
};

struct tw__fields *tw__fields_new(tw__rewrite_fn *rw, const char *const *reserved)
{
  struct tw__fields *c = calloc(1, sizeof *c);
  if (c) {
    c->rw = rw;
    c->reserved = reserved;
  }
  return c;
}

static void entry_clear(struct fentry *e)
{
  for (unsigned i = 0; i < e->nfields; i++)
    free(e->orig[i]);
  tw__names_free(&e->set);
  e->nfields = 0;
}

static int entry_fill(struct tw__fields *c, struct fentry *e, const struct tw_event_desc *d)
{
  struct tw__text t = {0};
  unsigned nf = d->nfields > TW_EVENT_MAX_VALUES ? TW_EVENT_MAX_VALUES : d->nfields;
  int rc = 0;
  entry_clear(e);
  e->desc = d;
  for (size_t r = 0; c->reserved && c->reserved[r]; r++)
    if (tw__names_reserve(&e->set, c->reserved[r]) < 0)
      rc = -1;
  for (unsigned i = 0; i < nf && !rc; i++) {
    tw__text_reset(&t);
    c->rw(&t, d->fields[i].name);
    e->orig[i] = d->module == TW_MOD_CUSTOM ? strdup(d->fields[i].name) : NULL;
    e->nfields = i + 1;
    if (t.oom || (d->module == TW_MOD_CUSTOM && !e->orig[i]) ||
        !(e->out[i] = tw__names_take(&e->set, t.p ? t.p : "")))
      rc = -1;
  }
  tw__text_free(&t);
  if (rc)
    entry_clear(e);
  return rc;
}

/* A custom kind's descriptor is rewritten in place when the target
 * declares its id again: its names are compared each time. */
static int entry_current(const struct fentry *e, const struct tw_event_desc *d)
{
  if (d->module != TW_MOD_CUSTOM)
    return 1;
  if (e->nfields != d->nfields)
    return 0;
  for (unsigned i = 0; i < e->nfields; i++)
    if (strcmp(e->orig[i], d->fields[i].name))
      return 0;
  return 1;
}

static size_t slot_of(const struct tw__fields *c, const struct tw_event_desc *d)
{
  size_t h = (size_t)(((uintptr_t)d >> 3) * 0x9E3779B97F4A7C15ull) & (c->cap - 1);
  while (c->e[h] && c->e[h]->desc != d)
    h = (h + 1) & (c->cap - 1);
  return h;
}

static int grow(struct tw__fields *c)
{
  size_t cap = c->cap ? 2 * c->cap : 64;
  struct fentry **old = c->e;
  size_t oldcap = c->cap;
  if (!(c->e = calloc(cap, sizeof *c->e))) {
    c->e = old;
    return -1;
  }
  c->cap = cap;
  for (size_t i = 0; i < oldcap; i++)
    if (old[i])
      c->e[slot_of(c, old[i]->desc)] = old[i];
  free(old);
  return 0;
}

const char *const *tw__fields_of(struct tw__fields *c, const struct tw_event_desc *d)
{
  struct fentry *e = c->last;
  size_t h;
  if (!e || e->desc != d) {
    if (2 * (c->n + 1) > c->cap && grow(c) < 0)
      return NULL;
    h = slot_of(c, d);
    if (!(e = c->e[h])) {
      if (!(e = calloc(1, sizeof *e)))
        return NULL;
      if (entry_fill(c, e, d) < 0) {
        free(e);
        return NULL;
      }
      c->e[h] = e;
      c->n++;
    }
    c->last = e;
  }
  if (!entry_current(e, d) && entry_fill(c, e, d) < 0)
    return NULL;
  return e->out;
}

void tw__fields_free(struct tw__fields *c)
{
  if (!c)
    return;
  for (size_t i = 0; i < c->cap; i++)
    if (c->e[i]) {
      entry_clear(c->e[i]);
      free(c->e[i]);
    }
  free(c->e);
  free(c);
}

char *tw__buf_at_least(char **buf, size_t *cap, size_t n)
{
  if (n > *cap) {
    size_t c = *cap ? *cap : 256;
    char *b;
    while (c < n)
      c *= 2;
    if (!(b = realloc(*buf, c)))
      return NULL;
    *buf = b;
    *cap = c;
  }
  return *buf;
}

int tw__grow_zeroed(void *arrp, size_t *n, size_t i, size_t elem)
{
  void **arr = arrp;
  size_t cap = *n ? *n : 16;
  char *a;
  if (i < *n)
    return 0;
  while (cap <= i)
    cap *= 2;
  if (!(a = realloc(*arr, cap * elem)))
    return -1;
  memset(a + *n * elem, 0, (cap - *n) * elem);
  *arr = a;
  *n = cap;
  return 0;
}
