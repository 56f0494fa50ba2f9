/*
 * The trace model over the real vocabulary (events.def) and the real
 * decoder: every vocabulary event is a source with the vocabulary's fields,
 * enum constants and markers; a synthetic two-core trace decoded and fed
 * event by event gives per-source counters equal to what the decoder
 * delivered, names equal to the decoder's, and the in-band custom event as
 * a source with its declared fields.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/reader.h"
#include "tracewire/io/conn.h"
#include "tracewire/wire/synth.h"
#include "tracewire/model/mti_host.h"

static void test_sources_are_the_vocabulary(void **state)
{
  struct tw_mti_system *sys;
  MTI_ComponentTraceInterface *c;
  (void)state;
  assert_int_equal(tw_mti_system_create(&sys, tw_event_descs, tw_event_ndescs), 0);
  assert_int_equal(tw_mti_system_add_component(sys, 0, 1, 0, NULL), 0);
  c = eslapi_ObtainPointer(
      eslapi_ObtainPointer(tw_mti_system_simulation(sys), MTI_SystemTraceInterface)
          ->vtbl->GetComponentTrace(
              eslapi_ObtainPointer(tw_mti_system_simulation(sys), MTI_SystemTraceInterface), 0),
      MTI_ComponentTraceInterface);
  assert_int_equal(c->vtbl->GetNumOfTraceSources(c), (int)tw_event_ndescs + 3);
  for (size_t i = 0; i < tw_event_ndescs; i++) {
    const struct tw_event_desc *d = &tw_event_descs[i];
    MTI_TraceSource *s = c->vtbl->GetTraceSourceByName(c, d->name);
    assert_non_null(s);
    assert_string_equal(s->vtbl->GetDescription(s), d->doc);
    assert_int_equal(s->vtbl->GetNumFields(s), d->nfields + 2);
    for (int k = 0; k < d->nfields; k++) {
      const MTI_EventFieldType *f = s->vtbl->GetField(s, k);
      assert_string_equal(f->vtbl->GetName(f), d->fields[k].name);
      if (d->fields[k].type == TW_FT_STRING) {
        assert_int_equal(f->vtbl->GetType(f), MTI_STRING);
        assert_int_equal(f->vtbl->GetSize(f), 0);
      } else {
        assert_int_equal(f->vtbl->GetSize(f), d->fields[k].bits / 8);
      }
      if (k == d->marker_field && d->nenums) {
        assert_int_equal(f->vtbl->GetType(f), MTI_ENUM);
        assert_int_equal(f->vtbl->GetNumOfEnumConstants(f), d->nenums);
        for (uint32_t e = 0; e < d->nenums; e++) {
          MTI_EventFieldType_EnumConstant ec = f->vtbl->GetEnumConstant(f, e);
          const char *m = f->vtbl->GetEnumMarker(f, e);
          assert_int_equal(ec.first, d->enums[e].value);
          assert_string_equal(ec.second, d->enums[e].name);
          assert_string_equal(f->vtbl->LookupEnum(f, d->enums[e].value), d->enums[e].name);
          if (d->enums[e].marker == TW_MARKER_NONE)
            assert_null(m);
          else
            assert_string_equal(m, tw_marker_name(d->enums[e].marker));
        }
      }
    }
  }
  tw_mti_system_destroy(sys);
}

#define MAXID 0x200

struct counts {
  unsigned long long by_stream_id[4][MAXID];
  struct tw_mti_system *sys;
};

static int on_event(void *ctx, const struct tw_event *ev)
{
  struct counts *c = ctx;
  if (ev->stream < 4 && ev->id < MAXID)
    c->by_stream_id[ev->stream][ev->id]++;
  return c->sys ? tw_mti_system_feed(c->sys, ev) : 0;
}

static struct tw_decoder *decode(const uint8_t *buf, size_t len, struct counts *c)
{
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  assert_int_equal(tw_conn_mem_open(buf, len, &src), 0);
  assert_int_equal(tw_reader_open(&r, src, NULL), 0);
  assert_int_equal(tw_decoder_open(&d, NULL), 0);
  tw_decoder_on_event(d, on_event, c);
  assert_int_equal(tw_decoder_run(d, r), 0);
  tw_reader_close(r);
  tw_conn_close(src);
  return d;
}

static void test_decoded_trace(void **state)
{
  struct tw_synth g;
  struct tw_synth_cfg cfg = {.instances = 2, .names = 1, .pkt_bytes = 1024, .seed = 7};
  size_t len = 0, cap = 200 * 1024;
  uint8_t *buf = malloc(cap + 4096);
  struct counts *pre = calloc(1, sizeof *pre), *run = calloc(1, sizeof *run);
  struct tw_mti_system *sys;
  struct tw_decoder *d1, *d2;
  MTI_SystemTraceInterface *st;
  uint64_t *ctr;
  int nsrc;
  (void)state;
  assert_non_null(buf);
  tw_synth_init(&g, &cfg);
  while (len < cap)
    len += tw_synth_packet(&g, buf + len, 4096);
  /* Pass 1: streams and custom kinds; pass 2: events into the model. */
  d1 = decode(buf, len, pre);
  assert_int_equal(tw_mti_system_create(&sys, tw_event_descs, tw_event_ndescs), 0);
  assert_int_equal(tw_mti_system_sync_decoder(sys, d1), 0);
  st = eslapi_ObtainPointer(tw_mti_system_simulation(sys), MTI_SystemTraceInterface);
  assert_int_equal(st->vtbl->GetNumOfTraceComponents(st), 2);
  nsrc = eslapi_ObtainPointer(st->vtbl->GetComponentTrace(st, 0), MTI_ComponentTraceInterface)
             ->vtbl->GetNumOfTraceSources(eslapi_ObtainPointer(
                 st->vtbl->GetComponentTrace(st, 0), MTI_ComponentTraceInterface));
  assert_true(nsrc > (int)tw_event_ndescs + 3); /* the custom kind */
  ctr = calloc((size_t)nsrc * 2, sizeof *ctr);
  for (int ci = 0; ci < 2; ci++) {
    MTI_ComponentTraceInterface *c =
        eslapi_ObtainPointer(st->vtbl->GetComponentTrace(st, ci), MTI_ComponentTraceInterface);
    for (int s = 0; s < nsrc; s++) {
      MTI_TraceSource *src = c->vtbl->GetTraceSource(c, s);
      assert_int_equal(src->vtbl->RegisterCounter(src, &ctr[ci * nsrc + s]), MTI_OK);
    }
  }
  run->sys = sys;
  assert_int_equal(tw_mti_system_start(sys), 0);
  d2 = decode(buf, len, run);
  assert_int_equal(tw_mti_system_stop(sys), 0);
  assert_int_equal(tw_mti_system_unknown(sys), 0);
  for (int ci = 0; ci < 2; ci++) {
    MTI_ComponentTraceInterface *c =
        eslapi_ObtainPointer(st->vtbl->GetComponentTrace(st, ci), MTI_ComponentTraceInterface);
    unsigned long long total = 0;
    for (size_t i = 0; i < tw_event_ndescs; i++) {
      MTI_TraceSource *src = c->vtbl->GetTraceSourceByName(c, tw_event_descs[i].name);
      uint16_t id = tw_event_descs[i].id;
      assert_true(id < MAXID);
      assert_int_equal(ctr[ci * nsrc + src->vtbl->GetIndex(src)], run->by_stream_id[ci][id]);
      total += run->by_stream_id[ci][id];
    }
    assert_true(total > 1000);
    /* The custom source counted the custom events. */
    {
      MTI_TraceSource *cs = c->vtbl->GetTraceSource(c, (int)tw_event_ndescs + 3);
      uint16_t ep;
      const struct tw_event_desc *cd = tw_decoder_custom_at(d1, 0, &ep);
      assert_non_null(cd);
      assert_string_equal(cs->vtbl->GetName(cs), cd->name);
      assert_int_equal(cs->vtbl->GetNumFields(cs), cd->nfields + 2);
      assert_int_equal(ctr[ci * nsrc + (int)tw_event_ndescs + 3], run->by_stream_id[ci][cd->id]);
      assert_true(run->by_stream_id[ci][cd->id] > 0);
    }
  }
  /* Names as the decoder has them. */
  {
    TW_TraceContext *ctx = eslapi_ObtainPointer(tw_mti_system_simulation(sys), TW_TraceContext);
    MTI_ComponentTraceInterface *c =
        eslapi_ObtainPointer(st->vtbl->GetComponentTrace(st, 1), MTI_ComponentTraceInterface);
    uint16_t ep;
    enum tw_obj_kind kind;
    uint32_t num;
    const char *name;
    int n = 0;
    for (size_t i = 0; tw_decoder_name_at(d2, i, &ep, &kind, &num, &name); i++, n++)
      assert_string_equal(ctx->vtbl->LookupObjectName(ctx, c, kind, num), name);
    assert_true(n > 0);
  }
  tw_mti_system_destroy(sys);
  tw_decoder_close(d2);
  tw_decoder_close(d1);
  free(ctr);
  free(pre);
  free(run);
  free(buf);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sources_are_the_vocabulary),
    cmocka_unit_test(test_decoded_trace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
