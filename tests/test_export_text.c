/*
 * src/export/text.c: target strings made safe for every export format.
 * UTF-8 repair checked against the results Python 3 gives for
 * bytes.decode('utf-8', 'replace') (Unicode's "substitution of maximal
 * subparts"), plus properties over random bytes (the result is valid, valid
 * input comes back unchanged); each format writer on the strings that
 * broke them (`*\/` in a comment, quotes, controls, NUL); the unique-name
 * rule; the clock offset as exact decimal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "export/text.h"
#include "tracewire/error.h"
#include "tracewire/events_gen.h"
#include "tracewire/export/export.h"

/* ---- helpers ---------------------------------------------------------------- */

struct mem {
  char *buf;
  size_t len;
  FILE *f;
};

static FILE *mem_open(struct mem *m)
{
  m->buf = NULL;
  m->len = 0;
  m->f = open_memstream(&m->buf, &m->len);
  assert_non_null(m->f);
  return m->f;
}

/* Closes m and checks it holds exactly want[0..n). */
static void mem_expect(struct mem *m, const char *want, size_t n)
{
  assert_int_equal(fclose(m->f), 0);
  if (m->len != n || memcmp(m->buf, want, n)) {
    fprintf(stderr, "got  [%zu] ", m->len);
    fwrite(m->buf, 1, m->len, stderr);
    fprintf(stderr, "\nwant [%zu] ", n);
    fwrite(want, 1, n, stderr);
    fputc('\n', stderr);
    fail();
  }
  free(m->buf);
}
#define EXPECT(m, lit) mem_expect(m, lit, sizeof lit - 1)

/* ---- UTF-8 ------------------------------------------------------------------- */

#define R "\xef\xbf\xbd" /* U+FFFD */

static const struct { const char *in, *out; } utf8_cases[] = {
  {"caf\xc3\xa9", "caf\xc3\xa9"},                 /* valid 2-byte: kept */
  {"\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac"}, /* 日本 */
  {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"},       /* emoji, 4 bytes */
  {"\x80", R},                                     /* lone continuation */
  {"a\xbf\xbf" "b", "a" R R "b"},
  {"\xc0\xaf", R R},                               /* overlong '/' */
  {"\xe0\x80\xaf", R R R},                         /* overlong, 3 bytes */
  {"\xed\xa0\x80", R R R},                         /* surrogate D800 */
  {"\xf4\x90\x80\x80", R R R R},                   /* above U+10FFFF */
  {"\xf0\x9f\x98", R},                             /* cut 4-byte: one subpart */
  {"\xe6\x97", R},
  {"\xc3", R},
  {"\xf5\x80", R R},
  {"\xff\xfe", R R},
  {"\xe1\x80\xe2\xf0\x91\x92\xf1\xbf\x41", R R R R "A"}, /* Unicode's own example */
};

static void test_utf8_fix_matches_python(void **state)
{
  struct tw__text t = {0};
  (void)state;
  for (size_t i = 0; i < sizeof utf8_cases / sizeof utf8_cases[0]; i++) {
    size_t n, inlen = strlen(utf8_cases[i].in);
    const char *got = tw__utf8_fix(&t, utf8_cases[i].in, inlen, &n);
    assert_non_null(got);
    assert_int_equal(n, strlen(utf8_cases[i].out));
    assert_memory_equal(got, utf8_cases[i].out, n);
    /* valid input is handed back as is, not copied */
    if (!strcmp(utf8_cases[i].in, utf8_cases[i].out))
      assert_ptr_equal(got, utf8_cases[i].in);
  }
  tw__text_free(&t);
}

static void test_utf8_random_bytes(void **state)
{
  struct tw__text t = {0}, t2 = {0};
  unsigned seed = 12345;
  (void)state;
  for (int round = 0; round < 20000; round++) {
    char in[24];
    size_t n = (size_t)(round % 24), m, m2;
    for (size_t i = 0; i < n; i++) {
      seed = seed * 1103515245u + 12345u;
      /* mostly bytes that start or continue sequences */
      in[i] = (char)((seed >> 16) % 3 ? 0x80 + (seed >> 8) % 0x80 : (seed >> 8) & 0xFF);
    }
    const char *out = tw__utf8_fix(&t, in, n, &m);
    assert_non_null(out);
    assert_int_equal(tw__utf8_valid_len(out, m), m);
    /* repairing again changes nothing */
    const char *again = tw__utf8_fix(&t2, out, m, &m2);
    assert_ptr_equal(again, out);
  }
  tw__text_free(&t);
  tw__text_free(&t2);
}

/* ---- writers ------------------------------------------------------------------ */

static void test_json_str(void **state)
{
  struct mem m;
  (void)state;
  tw__json_str(mem_open(&m), "caf\xc3\xa9 \"q\" \\ \x01\n\t\r\x7f", 17);
  EXPECT(&m, "\"caf\xc3\xa9 \\\"q\\\" \\\\ \\u0001\\n\\t\\r\x7f\"");
  /* NUL and invalid bytes: nothing is cut */
  tw__json_str(mem_open(&m), "a\0b\xc0z", 5);
  EXPECT(&m, "\"a\\u0000b" R "z\"");
  tw__json_str(mem_open(&m), "", 0);
  EXPECT(&m, "\"\"");
}

static void test_csv_cell(void **state)
{
  struct mem m;
  (void)state;
  tw__csv_cell(mem_open(&m), "plain", 5, 0);
  EXPECT(&m, "plain");
  tw__csv_cell(mem_open(&m), "a,b", 3, 0);
  EXPECT(&m, "\"a,b\"");
  tw__csv_cell(mem_open(&m), "say \"hi\"\r\n", 10, 0);
  EXPECT(&m, "\"say \"\"hi\"\"\r\n\"");
  /* the bytes unchanged, NUL and invalid UTF-8 included */
  tw__csv_cell(mem_open(&m), "x\0\xff\"", 4, 1);
  EXPECT(&m, "\"x\0\xff\"\"\"");
}

static void test_tsdl(void **state)
{
  struct mem m;
  struct tw__text t = {0};
  (void)state;
  tw__tsdl_str(mem_open(&m), "*/\"{x}\\ caf\xc3\xa9\x01\xc0", 15);
  EXPECT(&m, "\"*/\\\"{x}\\\\ caf\xc3\xa9\\x01" R "\"");
  /* a comment cannot be ended by the text in it */
  tw__tsdl_comment(mem_open(&m), "a*/b**/c/*d*", 12);
  EXPECT(&m, "a* /b** /c/*d*");
  tw__tsdl_comment(mem_open(&m), "x\ny\xc0", 4);
  EXPECT(&m, "x" R "y" R);
  /* identifiers: `_` + [A-Za-z0-9_], one `_` per other character */
  tw__rw_tsdl_ident(&t, "a,b");
  assert_string_equal(t.p, "_a_b");
  tw__text_reset(&t);
  tw__rw_tsdl_ident(&t, "caf\xc3\xa9 \xe6\x97\xa5\xc0\xaf");
  assert_string_equal(t.p, "_caf_____"); /* é, space, 日, C0, AF */
  tw__text_reset(&t);
  tw__rw_tsdl_ident(&t, "1st");
  assert_string_equal(t.p, "_1st");
  tw__text_reset(&t);
  tw__rw_tsdl_ident(&t, "");
  assert_string_equal(t.p, "_");
  tw__text_free(&t);
}

static void test_file_names(void **state)
{
  struct tw__text t = {0};
  char longname[600];
  (void)state;
  tw__rw_file(&t, "../a/b.c");
  assert_string_equal(t.p, "___a_b_c");
  tw__text_reset(&t);
  tw__rw_file(&t, "caf\xc3\xa9-x\xc0");
  assert_string_equal(t.p, "caf\xc3\xa9-x_");
  tw__text_reset(&t);
  tw__rw_file(&t, "");
  assert_string_equal(t.p, "_");
  /* bounded, never in the middle of a character */
  tw__text_reset(&t);
  memset(longname, 'a', 199);
  for (size_t i = 199; i + 2 < sizeof longname; i += 2)
    memcpy(longname + i, "\xc3\xa9", 2);
  longname[sizeof longname - 1] = 0;
  tw__rw_file(&t, longname);
  assert_int_equal(t.n, 199); /* 199 + 2 would pass 200 */
  tw__text_free(&t);
}

/* ---- unique names --------------------------------------------------------------- */

static void test_names_unique(void **state)
{
  struct tw__names s = {0};
  (void)state;
  assert_int_equal(tw__names_reserve(&s, "marker"), 0);
  assert_string_equal(tw__names_take(&s, "x"), "x");
  assert_string_equal(tw__names_take(&s, "x"), "x_2");
  assert_string_equal(tw__names_take(&s, "x_2"), "x_2_2"); /* a real x_2 after */
  assert_string_equal(tw__names_take(&s, "x"), "x_3");
  assert_string_equal(tw__names_take(&s, "marker"), "marker_2");
  assert_string_equal(tw__names_take(&s, ""), "");
  assert_string_equal(tw__names_take(&s, ""), "_2");
  tw__names_free(&s);
}

static const struct tw_field_desc clash_fields[] = {
  {.name = "a,b", .type = TW_FT_U8}, {.name = "a.b", .type = TW_FT_U8},
  {.name = "x", .type = TW_FT_U8},   {.name = "x", .type = TW_FT_U8},
  {.name = "marker", .type = TW_FT_U8}, {.name = "Bool", .type = TW_FT_U8},
};

static void test_fields_per_kind(void **state)
{
  static const char *const reserved[] = {"marker", NULL};
  struct tw_field_desc f[6];
  struct tw_event_desc d = {.id = 40, .module = TW_MOD_CUSTOM, .nfields = 6, .name = "K",
                            .fields = f};
  struct tw__fields *js = tw__fields_new(tw__rw_utf8, reserved);
  struct tw__fields *ctf = tw__fields_new(tw__rw_tsdl_ident, NULL);
  const char *const *n;
  (void)state;
  memcpy(f, clash_fields, sizeof f);
  assert_non_null(js);
  assert_non_null(ctf);
  n = tw__fields_of(js, &d);
  assert_non_null(n);
  assert_string_equal(n[0], "a,b");
  assert_string_equal(n[1], "a.b");
  assert_string_equal(n[2], "x");
  assert_string_equal(n[3], "x_2");
  assert_string_equal(n[4], "marker_2");
  assert_string_equal(n[5], "Bool");
  n = tw__fields_of(ctf, &d);
  assert_string_equal(n[0], "_a_b");
  assert_string_equal(n[1], "_a_b_2");
  assert_string_equal(n[3], "_x_2");
  /* the same answer again (cached), and the same after a declaration
   * elsewhere changed nothing */
  assert_ptr_equal(tw__fields_of(ctf, &d), n);
  /* the kind declared again with other names: computed again */
  f[1].name = "y";
  n = tw__fields_of(ctf, &d);
  assert_string_equal(n[1], "_y");
  tw__fields_free(js);
  tw__fields_free(ctf);
}

/* ---- clock offset ------------------------------------------------------------------ */

static void test_parse_offset(void **state)
{
  static const struct { const char *s; int64_t ns; } ok[] = {
    {"1700000000.25", 1700000000250000000ll}, /* a double gives ...249999872 */
    {"1700000000.123456789", 1700000000123456789ll},
    {"0", 0}, {"-0.5", -500000000ll}, {".5", 500000000ll}, {"7.", 7000000000ll},
    {"1.0000000010000", 1000000001ll},        /* zeros past the 9th decimal */
    {"9223372036.854775807", 9223372036854775807ll},
    {"-9223372036.854775807", -9223372036854775807ll},
  };
  static const char *const bad[] = {"", "-", ".", "1e9", " 1", "1 ", "+1", "0x10", "inf",
                                    "nan", "1.0000000001", "9223372036.854775808",
                                    "99999999999999999999", "1..2", "--1"};
  char err[200];
  int64_t ns;
  (void)state;
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    assert_int_equal(tw_export_parse_offset(ok[i].s, &ns, err, sizeof err), 0);
    if (ns != ok[i].ns)
      fail_msg("%s: %lld, want %lld", ok[i].s, (long long)ns, (long long)ok[i].ns);
  }
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    if (tw_export_parse_offset(bad[i], &ns, err, sizeof err) != TW_EINVAL)
      fail_msg("'%s' accepted", bad[i]);
    assert_non_null(strstr(err, bad[i])); /* the message quotes the text */
  }
}

/* ---- every format, strings no wire carries today ------------------------------------ */

static uint8_t *slurp(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  uint8_t *b;
  long len;
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  b = malloc((size_t)len + 1);
  assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  *n = (size_t)len;
  return b;
}

/* A 300-byte event name, a 2000-byte field name and a 10 000-byte value
 * with NUL bytes come out whole in JSON, CSV and Perfetto (CTF:
 * test_export_ctf.c). The logger carries at most 255 words per event
 * today; the exporters take any length. */
static void test_long_strings_whole(void **state)
{
  static char name[301], fname[2001], val[10000];
  struct tw_field_desc f[2] = {{.name = fname, .type = TW_FT_U8},
                               {.name = "s", .type = TW_FT_STRING}};
  struct tw_event_desc d = {.id = 41, .module = TW_MOD_CUSTOM, .nfields = 2, .marker_field = -1,
                            .name = name, .seed_name = name, .fields = f};
  char dir[] = "/tmp/tw_text_XXXXXX", out[300], cmd[320];
  (void)state;
  memset(name, 'N', sizeof name - 1);
  memset(fname, 'F', sizeof fname - 1);
  for (size_t i = 0; i < sizeof val; i++)
    val[i] = i % 500 == 7 ? 0 : (char)('a' + i % 26);
  assert_non_null(mkdtemp(dir));
  for (const char *const *fmt = tw_export_formats; *fmt; fmt++) {
    struct tw_export_cfg cfg = {.format = *fmt, .out = out};
    struct tw_export *x;
    struct tw_event ev = {.desc = &d, .id = 41, .module = TW_MOD_CUSTOM, .endpoint = 1,
                          .ticks = 1, .time_ns = 1000, .nvalues = 1, .values = {3},
                          .str = val, .str_len = sizeof val};
    size_t n;
    uint8_t *b;
    if (!strcmp(*fmt, "ctf"))
      continue;
    snprintf(out, sizeof out, "%s/%s", dir, *fmt);
    assert_int_equal(tw_export_open(&x, &cfg, NULL, 0), 0);
    assert_int_equal(tw_export_event(x, &ev), 0);
    assert_int_equal(tw_export_close(x, NULL, 0), 0);
    if (!strcmp(*fmt, "csv")) {
      char path[700];
      snprintf(path, sizeof path, "%s/%s.csv", out, name + 100); /* 200 bytes at most */
      b = slurp(path, &n);
      assert_non_null(memmem(b, n, fname, sizeof fname - 1)); /* the header cell */
      assert_non_null(memmem(b, n, val, sizeof val));         /* NUL bytes and all */
    } else {
      b = slurp(out, &n);
      assert_non_null(memmem(b, n, name, sizeof name - 1));
      assert_non_null(memmem(b, n, fname, sizeof fname - 1));
      if (!strcmp(*fmt, "perfetto")) {
        assert_non_null(memmem(b, n, val, sizeof val));
      } else { /* JSON: each NUL as \u0000 */
        for (size_t i = 0, at = 0; i < sizeof val; i = at + 1) {
          uint8_t *p = memmem(b, n, val + i, (at = i + strnlen(val + i, sizeof val - i)) - i);
          assert_non_null(p);
          if (at < sizeof val)
            assert_memory_equal(p + (at - i), "\\u0000", 6);
        }
      }
    }
    free(b);
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* The vocabulary's field names need no rewriting in JSON and Perfetto
 * (timeline.c uses them as they are): unique per kind, valid UTF-8, none
 * named "marker" or "time" (the arguments the timeline adds). */
static void test_vocabulary_names_plain(void **state)
{
  (void)state;
  for (size_t k = 0; k < tw_event_ndescs; k++) {
    const struct tw_event_desc *d = &tw_event_descs[k];
    for (unsigned i = 0; i < d->nfields; i++) {
      const char *n = d->fields[i].name;
      assert_int_equal(tw__utf8_valid_len(n, strlen(n)), strlen(n));
      assert_string_not_equal(n, "marker");
      assert_string_not_equal(n, "time");
      for (unsigned j = 0; j < i; j++)
        assert_string_not_equal(n, d->fields[j].name);
    }
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_utf8_fix_matches_python),
    cmocka_unit_test(test_utf8_random_bytes),
    cmocka_unit_test(test_json_str),
    cmocka_unit_test(test_csv_cell),
    cmocka_unit_test(test_tsdl),
    cmocka_unit_test(test_file_names),
    cmocka_unit_test(test_names_unique),
    cmocka_unit_test(test_fields_per_kind),
    cmocka_unit_test(test_parse_offset),
    cmocka_unit_test(test_long_strings_whole),
    cmocka_unit_test(test_vocabulary_names_plain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
