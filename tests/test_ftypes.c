/*
 * Signed and float custom fields (I8 I16 I32 F32): the target's helpers
 * and declaration check, the decoder's parsing (types, bits, raw values[],
 * a bad type named in its diagnostic), the text form print and CSV use,
 * and the trace model (MTI types and sizes, GetAs sign extension into wider
 * and narrower types, GetF32 incl. negative and NaN). The end-to-end path
 * through every exporter is tests/sh/ftypes_e2e.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include "host/helpers.h"
#include "tracewire/error.h"
#include "tracewire/model/mti_host.h"
#include "tracewire/trace.h"

/* ---- a stream builder (the wire API only) ---- */
struct pb {
  uint8_t buf[8192];
  size_t len, start;
  uint16_t pkt_seq, ev_seq;
};

static void pb_word(struct pb *b, uint32_t w)
{
  tw_store_le32(b->buf + b->len, w);
  b->len += 4;
}

static void pb_begin(struct pb *b)
{
  b->start = b->len;
  b->len += TW_EVPKT_HDR_BYTES;
}

static void pb_end(struct pb *b)
{
  uint32_t length = (uint32_t)(b->len - b->start) + 4;
  tw_pkt_hdr h;
  tw_pkt_init_event(&h, TW_ENDIAN_LITTLE, length, b->pkt_seq++, 0, 1, 0, TW_ADDR_HOST, 1);
  memcpy(b->buf + b->start, &h, sizeof h);
  tw_store_be32(b->buf + b->len, tw_pkt_footer(length));
  b->len += 4;
}

static void pb_event(struct pb *b, uint64_t ts, uint16_t id, uint16_t module, const uint32_t *w,
                     size_t n)
{
  uint32_t rec[16];
  int k = tw_record_encode(rec, 16, b->ev_seq++, 1, ts, id, module, w, n);
  assert_true(k > 0);
  for (int i = 0; i < k; i++)
    pb_word(b, rec[i]);
}

static int pb_sink(void *ctx, const uint32_t *words, size_t n)
{
  for (size_t i = 0; i < n; i++)
    pb_word(ctx, words[i]);
  return 0;
}

/* A CUSTOM_DECL record for `decl` (timed), as the streamer sends it. */
static void pb_decl(struct pb *b, uint16_t id, unsigned nfields, const char *decl)
{
  uint8_t data[128];
  uint32_t w = id | 1u << 16 | (uint32_t)nfields << 24;
  size_t n = strlen(decl) + 1;
  uint32_t seq;
  memcpy(data, &w, 4);
  memcpy(data + 4, decl, n);
  assert_int_equal(tw_snapshot_encode(pb_sink, b, b->ev_seq, &seq, 1, 5, TW_EV_CUSTOM_DECL,
                                      TW_MOD_CONTROL, 0, 0, 1, 0x1000, 0, data, 4 + n, 48), 0);
  b->ev_seq = (uint16_t)seq;
}

/* ---- decoding with the custom events kept ---- */
struct cap {
  struct text t;
  uint32_t values[16][TW_EVENT_MAX_VALUES];
  struct tw_field_desc fields[TW_EVENT_MAX_VALUES];
  unsigned nvalues, n;
};

static int cap_event(void *ctx, const struct tw_event *ev)
{
  struct cap *c = ctx;
  if (ev->desc->module == TW_MOD_CUSTOM && c->n < 16) {
    memcpy(c->values[c->n++], ev->values, sizeof ev->values);
    memcpy(c->fields, ev->desc->fields, ev->desc->nfields * sizeof c->fields[0]);
    c->nvalues = ev->nvalues;
  }
  return text_event(&c->t, ev);
}

static void decode(const struct pb *b, struct cap *c)
{
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  memset(c, 0, sizeof *c);
  assert_int_equal(tw_conn_mem_open(b->buf, b->len, &src), 0);
  assert_int_equal(tw_reader_open(&r, src, NULL), 0);
  assert_int_equal(tw_decoder_open(&d, NULL), 0);
  c->t.d = d;
  tw_decoder_on_event(d, cap_event, c);
  tw_decoder_on_diag(d, text_diag, &c->t);
  assert_int_equal(tw_decoder_run(d, r), 0);
  tw_reader_close(r);
  tw_conn_close(src);
  tw_decoder_close(d);
  c->t.d = NULL;
}

/* ---- helpers ---- */

static void sign_extension_and_float_bits(void **state)
{
  (void)state;
  assert_int_equal(tw_field_sext(0xFB, 8), -5);
  assert_int_equal(tw_field_sext(0xFFFFFF7F, 8), 127); /* upper bits ignored */
  assert_int_equal(tw_field_sext(0x80, 8), -128);
  assert_int_equal(tw_field_sext(0x8000, 16), -32768);
  assert_int_equal(tw_field_sext(0x7FFF, 16), 32767);
  assert_int_equal(tw_field_sext(0x80000000u, 32), INT32_MIN);
  assert_int_equal(tw_field_sext(0xFFFFFFFFu, 32), -1);
  assert_int_equal(tw_word_i32(-5), 0xFFFFFFFBu);
  assert_int_equal(tw_word_f32(-2.0f), 0xC0000000u);
  assert_int_equal(tw_word_f32(1.0f), 0x3F800000u);
  assert_true(tw_f32_from_bits(tw_word_f32(-21.5f)) == -21.5f);
  assert_true(isnan(tw_f32_from_bits(0x7FC00000u)));
  assert_true(tw_field_type_signed(TW_FT_I16));
  assert_false(tw_field_type_signed(TW_FT_U32));
  assert_false(tw_field_type_signed(TW_FT_F32));
}

static void value_text(void **state)
{
  (void)state;
  char t[40];
  struct { enum tw_field_type type; uint8_t bits; uint32_t raw; const char *want; } c[] = {
    {TW_FT_I8, 8, 0xFB, "-5"},
    {TW_FT_I16, 16, 0x8000, "-32768"},
    {TW_FT_I32, 32, 0x80000000u, "-2147483648"},
    {TW_FT_U32, 32, 0x80000000u, "2147483648"},
    {TW_FT_F32, 32, 0x41AC0000u, "21.5"},
    {TW_FT_F32, 32, 0xC1AC0000u, "-21.5"},
    {TW_FT_F32, 32, 0x3DCCCCCDu, "0.1"},          /* 0.1f: not 0.100000001 */
    {TW_FT_F32, 32, 0x00000001u, "1e-45"},        /* smallest denormal */
    {TW_FT_F32, 32, 0x7F7FFFFFu, "3.4028235e+38"}, /* FLT_MAX: 8 digits */
    {TW_FT_F32, 32, 0x80000000u, "-0"},
    {TW_FT_F32, 32, 0x7FC00000u, "nan"},
    {TW_FT_F32, 32, 0xFFC00001u, "nan"},          /* sign and payload not kept */
    {TW_FT_F32, 32, 0x7F800000u, "inf"},
    {TW_FT_F32, 32, 0xFF800000u, "-inf"},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    size_t n = tw_field_value_text(t, sizeof t, c[i].type, c[i].bits, c[i].raw);
    assert_string_equal(t, c[i].want);
    assert_int_equal(n, strlen(c[i].want));
    if (c[i].type == TW_FT_F32 && !isnan(tw_f32_from_bits(c[i].raw)))
      assert_true(strtof(t, NULL) == tw_f32_from_bits(c[i].raw)); /* round-trips */
  }
}

/* ---- target ---- */

static void target_accepts_the_new_types(void **state)
{
  (void)state;
  tw_custom_reset();
  assert_int_equal(tw_custom_declare(40, 1, "Pid err:I32 out:F32 a:I8 b:I16"), 0);
  assert_int_equal(tw_custom_find(40)->nfields, 4);
  assert_int_equal(tw_custom_declare(41, 1, "T v:F64"), TW_EINVAL);
  assert_int_equal(tw_custom_declare(42, 1, "T v:i32"), TW_EINVAL); /* case matters */
  assert_int_equal(tw_custom_declare(43, 1, "T v:I"), TW_EINVAL);
  assert_int_equal(tw_custom_declare(44, 1, "T v:I64"), TW_EINVAL);
  assert_int_equal(tw_custom_declare(45, 1, "T v:F32 s:STR"), TW_EINVAL); /* bytes stand alone */
  tw_custom_reset();
}

/* ---- decoder ---- */

static void decoder_parses_each_type(void **state)
{
  (void)state;
  static struct pb b;
  static struct cap c;
  memset(&b, 0, sizeof b);
  pb_begin(&b);
  pb_decl(&b, 40, 5, "Pid a:I8 b:I16 c:I32 d:F32 e:U8");
  /* the I8/I16 words carry garbage above their bits: the decoder drops it */
  uint32_t w[5] = {0xABCDEFFBu, 0x1234FED4u, 0x80000000u, tw_word_f32(-21.5f), 0x1C8};
  pb_event(&b, 10, 40, TW_MOD_CUSTOM, w, 5);
  uint32_t w2[5] = {0x7F, 0x7FFF, 0x7FFFFFFF, 0x7FC00000u, 7};
  pb_event(&b, 20, 40, TW_MOD_CUSTOM, w2, 5);
  pb_end(&b);
  decode(&b, &c);
  assert_int_equal(count_diags(&c.t, TW_DIAG_BAD_DECL), 0);
  assert_int_equal(c.n, 2);
  assert_int_equal(c.nvalues, 5);
  static const struct { enum tw_field_type type; uint8_t bits; } want[] = {
    {TW_FT_I8, 8}, {TW_FT_I16, 16}, {TW_FT_I32, 32}, {TW_FT_F32, 32}, {TW_FT_U8, 8}};
  for (unsigned i = 0; i < 5; i++) {
    assert_int_equal(c.fields[i].type, want[i].type);
    assert_int_equal(c.fields[i].bits, want[i].bits);
    assert_int_equal(c.fields[i].word, i);
  }
  /* values[] are the raw field bits, never sign-extended */
  assert_int_equal(c.values[0][0], 0xFB);
  assert_int_equal(c.values[0][1], 0xFED4);
  assert_int_equal(c.values[0][2], 0x80000000u);
  assert_int_equal(c.values[0][3], 0xC1AC0000u);
  assert_int_equal(c.values[0][4], 0xC8);
  assert_int_equal(tw_field_i32(&c.fields[1], c.values[0][1]), -300);
  assert_non_null(strstr(c.t.buf, "Pid: { a = -5, b = -300, c = -2147483648, d = -21.5, e = 200 }"));
  assert_non_null(strstr(c.t.buf, "Pid: { a = 127, b = 32767, c = 2147483647, d = nan, e = 7 }"));
  free(c.t.buf);
}

static void bad_type_is_named(void **state)
{
  (void)state;
  static struct pb b;
  static struct cap c;
  memset(&b, 0, sizeof b);
  pb_begin(&b);
  pb_decl(&b, 41, 2, "Bad a:I32 b:F64");
  pb_decl(&b, 42, 1, "Worse a:I8x");
  uint32_t w[2] = {1, 2};
  pb_event(&b, 10, 41, TW_MOD_CUSTOM, w, 2);
  pb_end(&b);
  decode(&b, &c);
  assert_int_equal(count_diags(&c.t, TW_DIAG_BAD_DECL), 2);
  int f64 = 0, i8x = 0;
  for (size_t i = 0; i < c.t.ndiags; i++) {
    if (c.t.diags[i].kind != TW_DIAG_BAD_DECL)
      continue;
    f64 += strstr(c.t.diags[i].msg, "custom event 41: unknown field type \"F64\"") != NULL;
    i8x += strstr(c.t.diags[i].msg, "custom event 42: unknown field type \"I8x\"") != NULL;
  }
  assert_int_equal(f64, 1);
  assert_int_equal(i8x, 1);
  assert_int_equal(c.n, 0); /* never declared: its event is an unknown id */
  assert_int_equal(count_diags(&c.t, TW_DIAG_UNKNOWN_ID), 1);
  free(c.t.buf);
}

/* ---- trace model ---- */

static const struct tw_field_desc pid_fields[] = {
  {"a", TW_FT_I8, 0, 0, 8, TW_OBJ_NONE, ""},
  {"b", TW_FT_I16, 1, 0, 16, TW_OBJ_NONE, ""},
  {"c", TW_FT_I32, 2, 0, 32, TW_OBJ_NONE, ""},
  {"d", TW_FT_F32, 3, 0, 32, TW_OBJ_NONE, ""}};
static const struct tw_event_desc pid_desc = {
  40, TW_MOD_CUSTOM, TW_EVF_TIMED, 4, 4, -1, TW_MARKER_NONE, 0, "Pid", "Pid", "", pid_fields,
  NULL};

struct got {
  int n;
  int64_t a64, b64, c64;
  int8_t c_as_i8;
  int16_t a_as_i16;
  uint64_t a_as_u64;
  uint8_t b_as_u8;
  int8_t a_get;
  int16_t b_get;
  int32_t c_get;
  float d;
  uint64_t d_as_u64;
};

static void on_pid(void *user, const MTI_EventClass *ec, const MTI_EventRecord *r)
{
  struct got *g = user;
  g->n++;
  g->a64 = MTI_EventRecord_GetAsI64(r, ec, 0);
  g->b64 = MTI_EventRecord_GetAsI64(r, ec, 1);
  g->c64 = MTI_EventRecord_GetAsI64(r, ec, 2);
  g->c_as_i8 = MTI_EventRecord_GetAsI8(r, ec, 2);
  g->a_as_i16 = MTI_EventRecord_GetAsI16(r, ec, 0);
  g->a_as_u64 = MTI_EventRecord_GetAsU64(r, ec, 0);
  g->b_as_u8 = MTI_EventRecord_GetAsU8(r, ec, 1);
  g->a_get = MTI_EventRecord_GetI8(r, ec, 0);
  g->b_get = MTI_EventRecord_GetI16(r, ec, 1);
  g->c_get = MTI_EventRecord_GetI32(r, ec, 2);
  g->d = MTI_EventRecord_GetF32(r, ec, 3);
  g->d_as_u64 = MTI_EventRecord_GetAsU64(r, ec, 3);
}

static struct tw_event pid_event(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
  static uint32_t seq;
  struct tw_event e;
  memset(&e, 0, sizeof e);
  e.id = 40;
  e.desc = &pid_desc;
  e.endpoint = 1;
  e.seq = ++seq;
  e.time_ns = 100u * seq;
  e.nvalues = 4;
  e.values[0] = a; /* raw bits, as the decoder delivers them */
  e.values[1] = b;
  e.values[2] = c;
  e.values[3] = d;
  return e;
}

static void mti_types_and_getters(void **state)
{
  (void)state;
  struct tw_mti_system *sys;
  assert_int_equal(tw_mti_system_create(&sys, tw_event_descs, tw_event_ndescs), 0);
  assert_int_equal(tw_mti_system_add_component(sys, 0, 1, 0, NULL), 0);
  assert_int_equal(tw_mti_system_declare_event(sys, &pid_desc), 0);
  MTI_SystemTraceInterface *st =
      eslapi_ObtainPointer(tw_mti_system_simulation(sys), MTI_SystemTraceInterface);
  MTI_ComponentTraceInterface *c =
      eslapi_ObtainPointer(st->vtbl->GetComponentTrace(st, 0), MTI_ComponentTraceInterface);
  MTI_TraceSource *s = c->vtbl->GetTraceSourceByName(c, "Pid");
  assert_non_null(s);
  static const struct { MTI_EventFieldType_Type type; unsigned size; } want[] = {
    {MTI_SIGNED_INT, 1}, {MTI_SIGNED_INT, 2}, {MTI_SIGNED_INT, 4}, {MTI_FLOAT, 4}};
  for (int i = 0; i < 4; i++) {
    const MTI_EventFieldType *f = s->vtbl->GetField(s, i);
    assert_int_equal(f->vtbl->GetType(f), want[i].type);
    assert_int_equal(f->vtbl->GetSize(f), want[i].size);
  }
  MTI_EventClass *ec = s->vtbl->CreateEventClass(s, 0xF);
  assert_non_null(ec);
  struct got g;
  memset(&g, 0, sizeof g);
  assert_int_equal(ec->vtbl->RegisterCallback(ec, on_pid, &g), MTI_OK);
  assert_int_equal(tw_mti_system_start(sys), 0);

  struct tw_event e = pid_event(0xFB, 0xFED4, 0xFFFFFF80u, tw_word_f32(-21.5f));
  assert_int_equal(tw_mti_system_feed(sys, &e), 0);
  assert_int_equal(g.n, 1);
  assert_int_equal(g.a64, -5);
  assert_int_equal(g.b64, -300);
  assert_int_equal(g.c64, -128);
  assert_int_equal(g.a_as_i16, -5);                       /* wider signed */
  assert_int_equal(g.a_as_u64, 0xFFFFFFFFFFFFFFFBull);    /* sign-extended, then unsigned */
  assert_int_equal(g.b_as_u8, 0xD4);                      /* narrower: truncated */
  assert_int_equal(g.c_as_i8, -128);                      /* narrower, still in range */
  assert_int_equal(g.a_get, -5);
  assert_int_equal(g.b_get, -300);
  assert_int_equal(g.c_get, -128);
  assert_true(g.d == -21.5f);
  assert_int_equal(g.d_as_u64, 0xC1AC0000u);              /* GetAs on a float: its bits */

  e = pid_event(0x80, 0x8000, 0x80000000u, 0x7FC00000u);
  assert_int_equal(tw_mti_system_feed(sys, &e), 0);
  assert_int_equal(g.a64, -128);
  assert_int_equal(g.b64, -32768);
  assert_int_equal(g.c64, INT32_MIN);
  assert_int_equal(g.c_as_i8, 0);                         /* low byte of 0x80000000 */
  assert_true(isnan(g.d));

  e = pid_event(0x7F, 0x7FFF, 0x7FFFFFFF, tw_word_f32(0.1f));
  assert_int_equal(tw_mti_system_feed(sys, &e), 0);
  assert_int_equal(g.a64, 127);
  assert_int_equal(g.b64, 32767);
  assert_int_equal(g.c64, INT32_MAX);
  assert_int_equal(g.c_as_i8, -1);                        /* 0x7FFFFFFF's low byte */
  assert_true(g.d == 0.1f);
  assert_int_equal(g.n, 3);
  assert_int_equal(tw_mti_system_stop(sys), 0);
  tw_mti_system_destroy(sys);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(sign_extension_and_float_bits),
    cmocka_unit_test(value_text),
    cmocka_unit_test(target_accepts_the_new_types),
    cmocka_unit_test(decoder_parses_each_type),
    cmocka_unit_test(bad_type_is_named),
    cmocka_unit_test(mti_types_and_getters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
