/*
 * Target strings made safe for each export format. Every name, field name
 * and string value an exporter writes comes from here, so no string the
 * target sends (an event named `*\/`, fields `a,b` and `a.b`, a field
 * named twice, invalid UTF-8, a 10 KB string) can break an output or be
 * cut. The rules, per format, are in docs/exporters.md ("Names and
 * strings"); in short:
 *
 *   UTF-8     valid sequences are kept; each maximal ill-formed subpart
 *             (Unicode 15, section 3.9, "U+FFFD substitution of maximal
 *             subparts": what Python's decode(errors='replace') does) becomes
 *             one U+FFFD. Used for JSON and Perfetto strings and keys.
 *   JSON      a string literal of the repaired text; `"`, `\` and controls
 *             escaped (\u0000 for NUL: nothing is cut).
 *   CSV       RFC 4180 cells: the target's bytes unchanged (quoted, quotes
 *             doubled when needed): CSV is the byte-exact export.
 *   TSDL      string literals (repaired text, `"` `\` escaped, controls as
 *             \xHH), comments (repaired text, `*\/` written as `* /`,
 *             controls as U+FFFD) and identifiers (`_` + the name with every
 *             character outside [A-Za-z0-9_] as one `_`).
 *   files     [A-Za-z0-9_-] and valid non-ASCII UTF-8 kept, every other
 *             character one `_`, at most TW__FILE_NAME_MAX bytes.
 *   unique    a rewritten name already taken (by an earlier name in the
 *             same scope, or a name the format reserves) gets the first free
 *             `_2`, `_3`, ... suffix, in order of first appearance: the same
 *             input gives the same names.
 *
 * Host only; no function here is reentrant on the same object.
 */
#ifndef TW_EXPORT_TEXT_H
#define TW_EXPORT_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tracewire/event.h"
#include "tracewire/wire/utf8.h" /* tw__utf8_step, tw__utf8_valid_len */

/* A growable text buffer; `oom` is sticky. p is NUL-terminated after each
 * call that succeeded. */
struct tw__text {
  char *p;
  size_t n, cap;
  int oom;
};

void tw__text_reset(struct tw__text *t);
void tw__text_put(struct tw__text *t, const void *s, size_t n);
void tw__text_free(struct tw__text *t);

/* s[0..n) as valid UTF-8: s itself when it already is (no copy), else the
 * repaired text in t (NULL when out of memory). *outn gets its length. */
const char *tw__utf8_fix(struct tw__text *t, const char *s, size_t n, size_t *outn);

/* The same without a buffer, for writers that need the length first
 * (protobuf): the repaired length, then the repaired bytes written to out
 * (tw__utf8_fix_len(s, n) bytes; returns that count). */
size_t tw__utf8_fix_len(const char *s, size_t n);
size_t tw__utf8_fix_to(char *out, const char *s, size_t n);

/* The format writers: s[0..n), whole. */
void tw__json_str(FILE *f, const char *s, size_t n);
/* quote: 1 always, 0 only when the cell holds `,` `"` CR or LF */
void tw__csv_cell(FILE *f, const char *s, size_t n, int quote);
void tw__tsdl_str(FILE *f, const char *s, size_t n);
void tw__tsdl_comment(FILE *f, const char *s, size_t n);

/* Rewriters: append the rewritten form of the NUL-terminated s to t. */
typedef void tw__rewrite_fn(struct tw__text *t, const char *s);
tw__rewrite_fn tw__rw_tsdl_ident; /* TSDL identifier, leading `_` */
tw__rewrite_fn tw__rw_utf8;       /* valid UTF-8 (JSON keys, Perfetto) */
tw__rewrite_fn tw__rw_raw;        /* unchanged (CSV header cells) */
#define TW__FILE_NAME_MAX 200
tw__rewrite_fn tw__rw_file;       /* a file name (without extension) */

/* A set of names given out in one scope (the fields of one event kind,
 * the files of a directory). */
struct tw__names {
  char **v;
  size_t n, cap;
};

/* form itself when neither given out nor reserved, else form_2, form_3,
 * ... (the first free one); stored in the set and returned (the set owns
 * it; it stays put until tw__names_free). NULL when out of memory. */
const char *tw__names_take(struct tw__names *set, const char *form);
/* Marks form as given out (a reserved name). -1 when out of memory. */
int tw__names_reserve(struct tw__names *set, const char *form);
int tw__names_has(const struct tw__names *set, const char *form);
void tw__names_free(struct tw__names *set);

/* The field names of an event kind in one format's spelling: rewritten by
 * `rw`, then unique within the kind and none of `reserved` (a
 * NULL-terminated list). Computed once per kind and cached; a kind whose
 * names changed (a custom kind declared again) is computed again. */
struct tw__fields;
struct tw__fields *tw__fields_new(tw__rewrite_fn *rw, const char *const *reserved);
/* NULL when out of memory; else d->nfields names. */
const char *const *tw__fields_of(struct tw__fields *c, const struct tw_event_desc *d);
void tw__fields_free(struct tw__fields *c);

/* Growing buffers, doubling. tw__buf_at_least: *buf holds at least n bytes
 * (from 256), its old contents kept; NULL when out of memory (*buf and *cap
 * unchanged). tw__grow_zeroed: the array *arrp of *n elem-sized items holds
 * index i (from 16), the new items zeroed; -1 when out of memory. */
char *tw__buf_at_least(char **buf, size_t *cap, size_t n);
int tw__grow_zeroed(void *arrp, size_t *n, size_t i, size_t elem);

#endif
