/* Event text (format: include/tracewire/wire/format.h). Hand-rolled number
 * formatting: print is I/O bound on big traces, and snprintf per field
 * costs more than the decoding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/wire/format.h"

struct buf {
  char *p, *end;
  int cut;
};

static void put(struct buf *b, const char *s, size_t n)
{
  if ((size_t)(b->end - b->p) < n) {
    n = (size_t)(b->end - b->p);
    b->cut = 1;
  }
  memcpy(b->p, s, n);
  b->p += n;
}

static void puts_(struct buf *b, const char *s) { put(b, s, strlen(s)); }

static void put_u64(struct buf *b, uint64_t v, int min_digits)
{
  char t[24];
  int i = 24;
  do {
    t[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v || 24 - i < min_digits);
  put(b, t + i, (size_t)(24 - i));
}

static const char digits2[] =
  "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
  "8081828384858687888990919293949596979899";

/* Exactly 9 digits of v < 10^9, two at a time in 32-bit arithmetic: print
 * spends its time here on big traces. */
static void put_frac9(struct buf *b, uint32_t v)
{
  char t[10];
  t[8] = (char)('0' + v % 10);
  v /= 10;
  for (int i = 6; i >= 0; i -= 2) {
    memcpy(t + i, digits2 + 2 * (v % 100), 2);
    v /= 100;
  }
  put(b, t, 9);
}

static void put_time(struct buf *b, uint64_t ns)
{
  uint64_t sec = ns / 1000000000u;
  if (sec < 10)
    put(b, &"0123456789"[sec], 1);
  else
    put_u64(b, sec, 1);
  put(b, ".", 1);
  put_frac9(b, (uint32_t)(ns - sec * 1000000000u));
}

/* s[0..n) with `"` and `\\` backslashed and every byte outside printable
 * ASCII as \xNN: the one escaping print uses, so no target string (a
 * value, an object name, a custom event or field name) can end a line or
 * send a terminal control. */
static void put_esc(struct buf *b, const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      put(b, e, 2);
    } else if (c < 0x20 || c >= 0x7F) {
      static const char hex[] = "0123456789abcdef";
      char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
      put(b, e, 4);
    } else {
      put(b, (const char *)&c, 1);
    }
  }
}

static void put_str(struct buf *b, const char *s, size_t n)
{
  put(b, "\"", 1);
  put_esc(b, s, n);
  put(b, "\"", 1);
}

/* An event or field name, unquoted: the vocabulary's names are plain
 * identifiers (a unit test checks it) and are copied, with no scan on the
 * hot path; a custom declaration's (target != 0) come from the target and
 * are escaped like strings. */
static void put_name(struct buf *b, const char *s, int target)
{
  size_t n = 0;
  if (!target) {
    puts_(b, s);
    return;
  }
  for (unsigned char c; (c = (unsigned char)s[n]) > 0x20 && c < 0x7F && c != '"' && c != '\\'; n++)
    ;
  if (!s[n]) {
    put(b, s, n);
    return;
  }
  put_esc(b, s, strlen(s));
}

static void put_hex16(struct buf *b, unsigned v)
{
  static const char hex[] = "0123456789abcdef";
  char t[4] = {hex[v >> 12 & 15], hex[v >> 8 & 15], hex[v >> 4 & 15], hex[v & 15]};
  put(b, t, 4);
}

/* F32: the fewest significant digits that read back as the same float,
 * so 0.1f prints "0.1", not "0.100000001", and every value round-trips (9
 * always does: FLT_DECIMAL_DIG). Denormals can need as few as one digit,
 * so the search starts there. Non-finite values have one spelling each:
 * NaN's sign and payload are not kept. */
static size_t f32_text(char *buf, size_t cap, float v)
{
  if (isnan(v))
    return (size_t)snprintf(buf, cap, "nan");
  if (isinf(v))
    return (size_t)snprintf(buf, cap, v < 0 ? "-inf" : "inf");
  int n = 0;
  for (int prec = 1; prec <= 9; prec++) {
    n = snprintf(buf, cap, "%.*g", prec, (double)v);
    if (strtof(buf, NULL) == v)
      break;
  }
  return (size_t)n;
}

size_t tw_text_escape(char *buf, size_t cap, const char *s, size_t n)
{
  size_t need = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    need += c == '"' || c == '\\' ? 2 : c < 0x20 || c >= 0x7F ? 4 : 1;
  }
  if (cap) {
    struct buf b = { buf, buf + cap - 1, 0 };
    put_esc(&b, s, n);
    *b.p = 0;
  }
  return need;
}

size_t tw_field_value_text(char *buf, size_t cap, enum tw_field_type type, uint8_t bits,
                           uint32_t raw)
{
  switch (type) {
  case TW_FT_I8: case TW_FT_I16: case TW_FT_I32:
    return (size_t)snprintf(buf, cap, "%ld", (long)tw_field_sext(raw, bits));
  case TW_FT_F32:
    return f32_text(buf, cap, tw_f32_from_bits(raw));
  case TW_FT_U8: case TW_FT_U16: case TW_FT_U32: case TW_FT_ENUM8: case TW_FT_STRING:
    break;
  }
  return (size_t)snprintf(buf, cap, "%lu", (unsigned long)raw);
}

size_t tw_event_format(char *out, size_t cap, const struct tw_event *ev,
                       const struct tw_decoder *d, uint64_t prev_ns, int source)
{
  struct buf b = { out, out + cap - 5, 0 };
  const struct tw_event_desc *desc = ev->desc;
  put(&b, "[", 1);
  put_time(&b, ev->time_ns);
  put(&b, "] (", 3);
  if (ev->time_ns >= prev_ns) {
    put(&b, "+", 1);
    put_time(&b, ev->time_ns - prev_ns);
  } else {
    put(&b, "-", 1);
    put_time(&b, prev_ns - ev->time_ns);
  }
  put(&b, ") ", 2);
  if (source >= 0) {
    put_u64(&b, (unsigned)source, 1);
    put(&b, ":", 1);
  }
  put_hex16(&b, ev->endpoint);
  put(&b, "/", 1);
  put_u64(&b, ev->instance, 1);
  put(&b, " ", 1);
  int custom = desc->module == TW_MOD_CUSTOM;
  put_name(&b, desc->seed_name, custom);
  put(&b, ": {", 3);
  for (unsigned i = 0; i < ev->nvalues; i++) {
    const struct tw_field_desc *f = &desc->fields[i];
    put(&b, i ? ", " : " ", i ? 2 : 1);
    put_name(&b, f->name, custom);
    put(&b, " = ", 3);
    if (f->type == TW_FT_STRING) {
      put_str(&b, ev->str ? ev->str : "", ev->str ? ev->str_len : 0);
      continue;
    }
    uint32_t v = ev->values[i];
    const char *en = (int)i == desc->marker_field ? tw_event_enum_name(desc, v) : NULL;
    if (en) {
      puts_(&b, en);
      continue;
    }
    if (f->obj == TW_OBJ_OBJKIND) {
      puts_(&b, tw_obj_kind_name((enum tw_obj_kind)v));
      continue;
    }
    if (f->type == TW_FT_F32 || tw_field_type_signed(f->type)) {
      char t[40];
      put(&b, t, tw_field_value_text(t, sizeof t, f->type, f->bits, v));
      continue;
    }
    put_u64(&b, v, 1);
    const char *name = f->obj != TW_OBJ_NONE && d ? tw_decoder_name(d, ev->endpoint, f->obj, v) : NULL;
    if (name) {
      put(&b, " ", 1);
      put_str(&b, name, strlen(name));
    }
  }
  put(&b, ev->nvalues ? " }" : "}", ev->nvalues ? 2 : 1);
  enum tw_marker m = tw_event_marker_of(ev);
  if (m != TW_MARKER_NONE) {
    put(&b, ", marker = ", 11);
    puts_(&b, tw_marker_name(m));
  }
  if (ev->flags & TW_EVENT_TIME_INFERRED)
    put(&b, ", time = inferred", 17);
  if (b.cut)
    memcpy(b.p, "...", 3), b.p += 3;
  *b.p++ = '\n';
  *b.p = 0;
  return (size_t)(b.p - out);
}
