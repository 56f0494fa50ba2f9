/*
 * The CTF writer's bytes, read back by an independent walker written from
 * the layout in src/export/ctf.c's design note (not from its code): every
 * packet's header (magic, the metadata's uuid, stream id/instance) and
 * context (begin/end timestamps, content/packet sizes, sequence numbers,
 * cumulative discarded events from DROPS and transport loss), every
 * event's id, clock value and fields exactly as fed; raw ticks at the
 * SYNC frequency, conversion for other streams, clamping of a backwards
 * step; the packet bound; errors with messages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tracewire/events_gen.h"
#include "tracewire/export/export.h"
#include "tracewire/error.h"

static char dir[256];

static int setup(void **state)
{
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/tw_test_ctf_XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
  char cmd[300];
  (void)state;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static struct tw_event mk(uint16_t id, uint16_t ep, uint16_t inst, uint64_t ticks, uint64_t ns,
                          uint32_t v0, uint32_t v1, uint32_t v2)
{
  struct tw_event ev;
  memset(&ev, 0, sizeof ev);
  ev.id = id;
  ev.desc = tw_event_desc_by_id(id);
  ev.module = ev.desc->module;
  ev.endpoint = ep;
  ev.instance = inst;
  ev.ticks = ticks;
  ev.time_ns = ns;
  ev.nvalues = ev.desc->nfields;
  ev.values[0] = v0;
  ev.values[1] = v1;
  ev.values[2] = v2;
  return ev;
}

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
  b[len] = 0;
  fclose(f);
  *n = (size_t)len;
  return b;
}

static uint64_t rd(const uint8_t *p, int n)
{
  uint64_t v = 0;
  memcpy(&v, p, (size_t)n); /* little-endian host: the goldens say so */
  return v;
}

/* What a stream file must contain. */
struct want_ev {
  uint16_t id;
  uint64_t clock;
  uint32_t v[3];
};

static void walk(const char *file, const uint8_t uuid[16], uint64_t instance,
                 const struct want_ev *w, size_t nw, unsigned long long final_discarded,
                 size_t packet_bytes)
{
  size_t n, off = 0, k = 0;
  uint8_t *b = slurp(file, &n);
  uint64_t seq = 0, prev_end = 0, prev_disc = 0;
  while (off < n) {
    const uint8_t *p = b + off;
    uint64_t bits = rd(p + 48, 8), size = rd(p + 56, 8), begin = rd(p + 32, 8),
             end = rd(p + 40, 8), disc = rd(p + 72, 8);
    size_t q;
    assert_int_equal(rd(p, 4), 0xC1FC1FC1u);
    assert_memory_equal(p + 4, uuid, 16);
    assert_int_equal(rd(p + 20, 4), 0);
    assert_int_equal(rd(p + 24, 8), instance);
    assert_int_equal(bits, size);
    assert_true(bits % 8 == 0 && bits / 8 >= 84 && off + bits / 8 <= n);
    assert_true(bits / 8 <= packet_bytes);
    assert_int_equal(rd(p + 64, 8), seq++);
    assert_true(begin <= end && begin >= prev_end);
    assert_true(disc >= prev_disc);
    prev_end = end;
    prev_disc = disc;
    for (q = 84; q < bits / 8; k++) {
      const struct tw_event_desc *d;
      assert_true(k < nw);
      assert_int_equal(rd(p + q, 2), w[k].id);
      assert_int_equal(rd(p + q + 2, 8), w[k].clock);
      if (q == 84)
        assert_int_equal(begin, w[k].clock);
      d = tw_event_desc_by_id(w[k].id);
      q += 10;
      for (unsigned i = 0; i < d->nfields; i++) {
        int sz = d->fields[i].type == TW_FT_U16 ? 2 : d->fields[i].type == TW_FT_U32 ? 4 : 1;
        assert_int_equal(rd(p + q, sz), w[k].v[i]);
        q += (size_t)sz;
      }
    }
    assert_int_equal(q, bits / 8);
    if (k)
      assert_int_equal(end, w[k - 1].clock);
    off += bits / 8;
  }
  assert_int_equal(k, nw);
  assert_int_equal(prev_disc, final_discarded);
  free(b);
}

static void metadata_uuid(uint8_t uuid[16])
{
  char path[300];
  size_t n;
  uint8_t *m;
  const char *u;
  snprintf(path, sizeof path, "%s/metadata", dir);
  m = slurp(path, &n);
  assert_non_null(strstr((char *)m, "/* CTF 1.8 */"));
  assert_non_null(strstr((char *)m, "freq = 1000000;"));
  assert_non_null(strstr((char *)m, "\"Lock\" = 0, \"Unlock\" = 1"));
  assert_non_null(strstr((char *)m, "name = \"MutexEvent\";\n\tid = 5;"));
  u = strstr((char *)m, "uuid = \"");
  assert_non_null(u);
  u += 8;
  for (int i = 0; i < 16; i++) {
    unsigned x;
    if (*u == '-')
      u++;
    assert_int_equal(sscanf(u, "%2x", &x), 1);
    uuid[i] = (uint8_t)x;
    u += 2;
  }
  free(m);
}

#define N 3000

static void test_packets_events_and_loss(void **state)
{
  struct tw_export_cfg cfg = {.format = "ctf", .out = dir, .packet_bytes = 8192};
  struct tw_export *x;
  static struct want_ev w0[N + 8], w1[N + 8];
  size_t n0 = 0, n1 = 0;
  uint8_t uuid[16];
  char path[300];
  struct tw_event ev;
  (void)state;
  assert_int_equal(tw_export_open(&x, &cfg, NULL, 0), 0);
  /* stream 0: SYNC at 1 MHz first, so the clock is 1 MHz and its ticks go raw */
  ev = mk(TW_EV_SYNC, 1, 0, 5, 5000, 1000000, 0, 0);
  assert_int_equal(tw_export_event(x, &ev), 0);
  w0[n0++] = (struct want_ev){TW_EV_SYNC, 5, {1000000}};
  for (uint32_t i = 0; i < N; i++) {
    uint64_t t = 0xFFFFF000ull + 7 * i; /* crosses 2^32 ticks */
    ev = mk(TW_EV_MUTEX, 1, 0, t, t * 1000, i % 5, 7, i % 5);
    assert_int_equal(tw_export_event(x, &ev), 0);
    w0[n0++] = (struct want_ev){TW_EV_MUTEX, t, {i % 5, 7, i % 5}};
    if (i == 100 || i == 2000) {
      ev = mk(TW_EV_DROPS, 1, 0, t, t * 1000, 11, 0, 0);
      assert_int_equal(tw_export_event(x, &ev), 0);
      w0[n0++] = (struct want_ev){TW_EV_DROPS, t, {11}};
    }
    if (i == 1500)
      tw_export_transport_loss(x, 1, 0, 5);
    /* stream 1: no SYNC, ticks at 1 GHz: converted from its ns */
    ev = mk(TW_EV_SEM, 2, 3, 999, 1000000 + 1500ull * i, i & 0xFFFF, i % 3, 0);
    if (i == 50)
      ev.time_ns = 1000000; /* a backwards step: written as the previous time */
    assert_int_equal(tw_export_event(x, &ev), 0);
    w1[n1++] = (struct want_ev){TW_EV_SEM, (i == 50 ? 1000000 + 1500ull * 49 : 1000000 + 1500ull * i) / 1000,
                                {i & 0xFFFF, i % 3}};
  }
  assert_int_equal(tw_export_count(x), N * 2 + 3);
  assert_int_equal(tw_export_close(x, NULL, 0), 0);
  metadata_uuid(uuid);
  snprintf(path, sizeof path, "%s/stream_0001_0", dir);
  walk(path, uuid, 0, w0, n0, 22 + 5, 8192);
  snprintf(path, sizeof path, "%s/stream_0002_3", dir);
  walk(path, uuid, 1, w1, n1, 0, 8192);
}

static void test_errors_name_what_failed(void **state)
{
  struct tw_export_cfg cfg = {.format = "pdf", .out = dir};
  struct tw_export *x;
  char msg[400], bad[300];
  (void)state;
  assert_int_equal(tw_export_open(&x, &cfg, msg, sizeof msg), TW_ENOENT);
  assert_non_null(strstr(msg, "'pdf'"));
  snprintf(bad, sizeof bad, "%s/no/such/dir", dir);
  for (const char *const *f = tw_export_formats; *f; f++) {
    cfg.format = *f;
    cfg.out = bad;
    assert_int_equal(tw_export_open(&x, &cfg, msg, sizeof msg), TW_EIO);
    assert_non_null(strstr(msg, bad));
    assert_null(x);
  }
}

/* --clock-offset: whole seconds in offset_s, the rest in clock cycles
 * (never negative: a negative offset borrows a second). */
static void check_offset(int64_t off_ns, const char *want_s, const char *want_cycles)
{
  struct tw_export_cfg cfg = {.format = "ctf", .out = dir, .clock_offset_ns = off_ns};
  struct tw_export *x;
  struct tw_event ev = mk(TW_EV_SYNC, 1, 0, 5, 5000, 1000000, 0, 0);
  char path[300];
  size_t n;
  uint8_t *m;
  assert_int_equal(tw_export_open(&x, &cfg, NULL, 0), 0);
  assert_int_equal(tw_export_event(x, &ev), 0);
  assert_int_equal(tw_export_close(x, NULL, 0), 0);
  snprintf(path, sizeof path, "%s/metadata", dir);
  m = slurp(path, &n);
  assert_non_null(strstr((char *)m, want_s));
  assert_non_null(strstr((char *)m, want_cycles));
  free(m);
}

static void test_clock_offset(void **state)
{
  (void)state;
  check_offset(1700000000123456789ll, "offset_s = 1700000000;", "offset = 123456;");
  check_offset(-1500000000ll, "offset_s = -2;", "offset = 500000;");
  check_offset(0, "offset_s = 0;", "offset = 0;");
}

/* Target strings cannot break the metadata or be cut: a custom kind named
 * with a comment end, quotes and braces, fields that collide once made
 * identifiers, and a 10 000-byte string with NUL bytes in a packet of
 * 4 KiB. (babeltrace2 reads the like in tests/sh/export_strings.sh.) */
static void test_target_strings(void **state)
{
  static const struct tw_field_desc f[] = {
    {.name = "a,b", .type = TW_FT_U8}, {.name = "a.b", .type = TW_FT_U8},
    {.name = "x", .type = TW_FT_U8},   {.name = "x", .type = TW_FT_U8},
    {.name = "Bool", .type = TW_FT_U8}, {.name = "s", .type = TW_FT_STRING},
  };
  static const struct tw_event_desc d = {
    .id = 40, .module = TW_MOD_CUSTOM, .nfields = 6, .marker_field = -1,
    .name = "*/ \"{k}\" */", .seed_name = "*/ \"{k}\" */", .doc = "doc */ too", .fields = f};
  struct tw_export_cfg cfg = {.format = "ctf", .out = dir, .packet_bytes = 4096};
  struct tw_export *x;
  struct tw_event ev = mk(TW_EV_SYNC, 1, 0, 5, 5000, 1000000, 0, 0);
  static char big[10000];
  char path[300];
  size_t n, at;
  uint8_t *m;
  (void)state;
  for (size_t i = 0; i < sizeof big; i++)
    big[i] = i % 1000 == 999 ? 0 : (char)('a' + i % 26);
  assert_int_equal(tw_export_open(&x, &cfg, NULL, 0), 0);
  assert_int_equal(tw_export_event(x, &ev), 0);
  memset(&ev, 0, sizeof ev);
  ev.desc = &d;
  ev.id = 40;
  ev.module = TW_MOD_CUSTOM;
  ev.endpoint = 1;
  ev.ticks = 6;
  ev.nvalues = 5;
  ev.str = big;
  ev.str_len = sizeof big;
  assert_int_equal(tw_export_event(x, &ev), 0);
  assert_int_equal(tw_export_close(x, NULL, 0), 0);
  snprintf(path, sizeof path, "%s/metadata", dir);
  m = slurp(path, &n);
  assert_non_null(strstr((char *)m, "name = \"*/ \\\"{k}\\\" */\";"));
  assert_non_null(strstr((char *)m, "/* * / \"{k}\" * /: doc * / too */"));
  assert_non_null(strstr((char *)m, "uint8_t _a_b;"));
  assert_non_null(strstr((char *)m, "uint8_t _a_b_2;"));
  assert_non_null(strstr((char *)m, "uint8_t _x;"));
  assert_non_null(strstr((char *)m, "uint8_t _x_2;"));
  assert_non_null(strstr((char *)m, "uint8_t _Bool_2;")); /* _Bool is a keyword */
  free(m);
  /* the string whole, each NUL as U+FFFD, in one packet of its own */
  snprintf(path, sizeof path, "%s/stream_0001_0", dir);
  m = slurp(path, &n);
  assert_true(n > sizeof big);
  at = 0;
  for (size_t i = 0; i + 26 <= n; i++)
    if (!memcmp(m + i, "abcdefghijklmnopqrstuvwxyz", 26)) {
      at = i;
      break;
    }
  assert_true(at > 0);
  for (size_t i = 0, q = at; i < sizeof big; i++) {
    if (big[i]) {
      assert_int_equal(m[q], (uint8_t)big[i]);
      q++;
    } else {
      assert_memory_equal(m + q, "\xef\xbf\xbd", 3);
      q += 3;
    }
    if (i + 1 == sizeof big)
      assert_int_equal(m[q], 0);
  }
  free(m);
}

/* An empty trace is still a trace every format can write. */
static void test_empty_trace(void **state)
{
  struct tw_export *x;
  char out[300];
  (void)state;
  for (const char *const *f = tw_export_formats; *f; f++) {
    struct tw_export_cfg cfg = {.format = *f, .out = out};
    snprintf(out, sizeof out, "%s/empty.%s", dir, *f);
    assert_int_equal(tw_export_open(&x, &cfg, NULL, 0), 0);
    assert_int_equal(tw_export_close(x, NULL, 0), 0);
    assert_int_equal(access(out, F_OK), 0);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_packets_events_and_loss, setup, teardown),
    cmocka_unit_test_setup_teardown(test_errors_name_what_failed, setup, teardown),
    cmocka_unit_test_setup_teardown(test_clock_offset, setup, teardown),
    cmocka_unit_test_setup_teardown(test_empty_trace, setup, teardown),
    cmocka_unit_test_setup_teardown(test_target_strings, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
