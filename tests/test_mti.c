/*
 * The trace model through the MTI interfaces only: every method, the
 * manual's rules (bad indexes, NULL returns, BUSY while running, duplicate
 * registrations, value offsets, sign extension, variable sizes) and the
 * tracewire model on top (components, sources from the vocabulary,
 * dump_state, TraceContext).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include "mti_fixture.h"
#include "tracewire/error.h"
#include "tracewire/model/rtos.h"

struct fx {
  struct tw_mti_system *sys;
  MTI_SystemTraceInterface *st;
  MTI_ComponentTraceInterface *c0, *c1;
};

static int setup(void **state)
{
  struct fx *f = calloc(1, sizeof *f);
  assert_non_null(f);
  assert_int_equal(tw_mti_system_create(&f->sys, fx_descs, FX_NDESCS), 0);
  assert_int_equal(tw_mti_system_add_component(f->sys, 0, 1, 0, NULL), 0);
  assert_int_equal(tw_mti_system_add_component(f->sys, 1, 1, 1, NULL), 0);
  f->st = eslapi_ObtainPointer(tw_mti_system_simulation(f->sys), MTI_SystemTraceInterface);
  assert_non_null(f->st);
  f->c0 = eslapi_ObtainPointer(f->st->vtbl->GetComponentTrace(f->st, 0),
                               MTI_ComponentTraceInterface);
  f->c1 = eslapi_ObtainPointer(f->st->vtbl->GetComponentTrace(f->st, 1),
                               MTI_ComponentTraceInterface);
  assert_non_null(f->c0);
  assert_non_null(f->c1);
  *state = f;
  return 0;
}

static int teardown(void **state)
{
  struct fx *f = *state;
  tw_mti_system_destroy(f->sys);
  free(f);
  return 0;
}

static MTI_TraceSource *src(MTI_ComponentTraceInterface *c, const char *name)
{
  MTI_TraceSource *s = c->vtbl->GetTraceSourceByName(c, name);
  assert_non_null(s);
  return s;
}

static void feed(struct fx *f, struct tw_event e)
{
  assert_int_equal(tw_mti_system_feed(f->sys, &e), 0);
}

/* ---- CAInterface ---------------------------------------------------------------- */

static void test_obtain_interface(void **state)
{
  struct fx *f = *state;
  eslapi_CAInterface *sim = tw_mti_system_simulation(f->sys);
  eslapi_if_rev_t rev = 99;
  eslapi_CAInterface *a = sim->vtbl->ObtainInterface(sim, "MTI::SystemTraceInterface", 0, &rev);
  assert_ptr_equal(a, f->st);
  assert_int_equal(rev, 1);
  assert_ptr_equal(sim->vtbl->ObtainInterface(sim, "MTI::SystemTraceInterface", 1, NULL), a);
  assert_null(sim->vtbl->ObtainInterface(sim, "MTI::SystemTraceInterface", 2, &rev));
  assert_null(sim->vtbl->ObtainInterface(sim, "MTI::NoSuchInterface", 0, NULL));
  assert_null(sim->vtbl->ObtainInterface(sim, "MTI::ComponentTraceInterface", 0, NULL));
  assert_non_null(sim->vtbl->ObtainInterface(sim, "eslapi::CAInterface", 0, NULL));
  /* The same pointer whichever of the component's interfaces is asked. */
  {
    TW_TraceContext *ctx = eslapi_ObtainPointer(sim, TW_TraceContext);
    assert_non_null(ctx);
    assert_ptr_equal(eslapi_ObtainPointer(ctx, MTI_SystemTraceInterface), f->st);
    assert_ptr_equal(eslapi_ObtainPointer(f->st, TW_TraceContext), ctx);
  }
  /* Components answer only their own interface. */
  assert_ptr_equal(eslapi_ObtainPointer(f->c0, MTI_ComponentTraceInterface), f->c0);
  assert_null(eslapi_ObtainPointer(f->c0, MTI_SystemTraceInterface));
  assert_null(eslapi_ObtainInterface(f->c0, "MTI::ComponentTraceInterface", 2, NULL));
  /* Every object: source, field, class. */
  {
    MTI_TraceSource *s = src(f->c0, "MUTEX");
    MTI_EventClass *ec = s->vtbl->CreateEventClass(s, 1);
    const MTI_EventFieldType *ft = s->vtbl->GetField(s, 0);
    assert_ptr_equal(eslapi_ObtainPointer(s, MTI_TraceSource), s);
    assert_ptr_equal(eslapi_ObtainPointer(ec, MTI_EventClass), ec);
    assert_ptr_equal(eslapi_ObtainPointer(ft, MTI_EventFieldType), ft);
    assert_null(eslapi_ObtainPointer(s, MTI_EventClass));
    assert_null(eslapi_ObtainInterface(s, NULL, 0, NULL));
  }
}

/* ---- SystemTraceInterface ------------------------------------------------------------ */

static void test_system_trace(void **state)
{
  struct fx *f = *state;
  assert_int_equal(f->st->vtbl->GetNumOfTraceComponents(f->st), 2);
  assert_string_equal(f->st->vtbl->GetComponentTracePath(f->st, 0), "board.cpu0");
  assert_string_equal(f->st->vtbl->GetComponentTracePath(f->st, 1), "board.cpu1");
  assert_null(f->st->vtbl->GetComponentTracePath(f->st, 2));
  assert_null(f->st->vtbl->GetComponentTracePath(f->st, -1));
  assert_null(f->st->vtbl->GetComponentTrace(f->st, 2));
  assert_null(f->st->vtbl->GetComponentTrace(f->st, -1));
  assert_ptr_equal(f->st->vtbl->GetComponentTraceByPath(f->st, "board.cpu1"), f->c1);
  assert_null(f->st->vtbl->GetComponentTraceByPath(f->st, "board.cpu7"));
  assert_null(f->st->vtbl->GetComponentTraceByPath(f->st, "BOARD.cpu1"));
  assert_null(f->st->vtbl->GetComponentTraceByPath(f->st, NULL));
  /* A second endpoint gets its own board; a taken stream or path is refused. */
  assert_int_equal(tw_mti_system_add_component(f->sys, 2, 7, 0, NULL), 0);
  assert_string_equal(f->st->vtbl->GetComponentTracePath(f->st, 2), "board7.cpu0");
  assert_int_equal(tw_mti_system_add_component(f->sys, 2, 7, 1, NULL), TW_EEXIST);
  assert_int_equal(tw_mti_system_add_component(f->sys, 3, 7, 1, "board.cpu0"), TW_EEXIST);
  assert_int_equal(tw_mti_system_add_component(f->sys, 3, 7, 1, "soc.dsp"), 0);
  assert_non_null(f->st->vtbl->GetComponentTraceByPath(f->st, "soc.dsp"));
}

/* ---- ComponentTraceInterface ----------------------------------------------------------- */

static void test_component_trace(void **state)
{
  struct fx *f = *state;
  int n = f->c0->vtbl->GetNumOfTraceSources(f->c0);
  MTI_TraceSource *m;
  MTI_EventClass *ec;
  assert_int_equal(n, (int)FX_NDESCS + 3); /* + TASKS, MUTEXES, SEMAPHORES */
  for (int i = 0; i < n; i++) {
    MTI_TraceSource *s = f->c0->vtbl->GetTraceSource(f->c0, i);
    assert_non_null(s);
    assert_int_equal(s->vtbl->GetIndex(s), i);
    assert_ptr_equal(f->c0->vtbl->GetTraceSourceByName(f->c0, s->vtbl->GetName(s)), s);
  }
  assert_null(f->c0->vtbl->GetTraceSource(f->c0, n));
  assert_null(f->c0->vtbl->GetTraceSource(f->c0, -1));
  assert_null(f->c0->vtbl->GetTraceSourceByName(f->c0, "mutex")); /* case-sensitive */
  assert_null(f->c0->vtbl->GetTraceSourceByName(f->c0, "NOPE"));
  assert_string_equal(f->c0->vtbl->GetComponentType(f->c0), "tracewire.core");
  assert_string_equal(f->c0->vtbl->GetComponentVersion(f->c0), TW_MTI_VERSION_STRING);
  /* Sources of different components are different objects. */
  assert_ptr_not_equal(src(f->c0, "MUTEX"), src(f->c1, "MUTEX"));
  /* Event classes by id: only the owning component finds them. */
  m = src(f->c1, "MUTEX");
  ec = m->vtbl->CreateEventClass(m, 0x3);
  assert_ptr_equal(f->c1->vtbl->GetEventClass(f->c1, ec->vtbl->GetId(ec)), ec);
  assert_null(f->c0->vtbl->GetEventClass(f->c0, ec->vtbl->GetId(ec)));
  assert_null(f->c1->vtbl->GetEventClass(f->c1, 0));
  assert_null(f->c1->vtbl->GetEventClass(f->c1, 0xFFFF));
}

/* ---- TraceSource + EventFieldType ------------------------------------------------------- */

static void test_trace_source_fields(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *s = src(f->c0, "MUTEX");
  const MTI_EventFieldType *ft;
  MTI_EventFieldType_EnumConstant k;
  assert_string_equal(s->vtbl->GetName(s), "MUTEX");
  assert_string_equal(s->vtbl->GetDescription(s), "Mutex operation");
  assert_int_equal(s->vtbl->GetNumFields(s), 5); /* task mutex type time_ns seq */
  assert_null(s->vtbl->GetField(s, 5));
  assert_null(s->vtbl->GetField(s, -1));
  assert_null(s->vtbl->GetFieldByName(s, "Task"));
  assert_null(s->vtbl->GetFieldByName(s, NULL));
  for (int i = 0; i < 5; i++) {
    ft = s->vtbl->GetField(s, i);
    assert_int_equal(ft->vtbl->GetIndex(ft), i);
    assert_ptr_equal(ft->vtbl->GetSource(ft), s);
    assert_ptr_equal(s->vtbl->GetFieldByName(s, ft->vtbl->GetName(ft)), ft);
  }
  ft = s->vtbl->GetFieldByName(s, "task");
  assert_int_equal(ft->vtbl->GetType(ft), MTI_UNSIGNED_INT);
  assert_int_equal(ft->vtbl->GetSize(ft), 2);
  assert_int_equal(ft->vtbl->GetMaxSize(ft), 2);
  assert_string_equal(ft->vtbl->GetDescription(ft), "Task number");
  assert_string_equal(ft->vtbl->GetObjectKind(ft), "task");
  assert_int_equal(ft->vtbl->GetNumOfEnumConstants(ft), 0);
  ft = s->vtbl->GetFieldByName(s, "type");
  assert_int_equal(ft->vtbl->GetType(ft), MTI_ENUM);
  assert_int_equal(ft->vtbl->GetSize(ft), 1);
  assert_null(ft->vtbl->GetObjectKind(ft));
  assert_int_equal(ft->vtbl->GetNumOfEnumConstants(ft), 5);
  k = ft->vtbl->GetEnumConstant(ft, 4);
  assert_int_equal(k.first, 4);
  assert_string_equal(k.second, "Block");
  assert_string_equal(ft->vtbl->GetEnumMarker(ft, 4), "UpBlock");
  k = ft->vtbl->GetEnumConstant(ft, 5);
  assert_null(k.second);
  assert_null(ft->vtbl->GetEnumMarker(ft, 5));
  assert_string_equal(ft->vtbl->LookupEnum(ft, 1), "Unlock");
  assert_null(ft->vtbl->LookupEnum(ft, 99));
  ft = s->vtbl->GetFieldByName(s, "time_ns");
  assert_int_equal(ft->vtbl->GetSize(ft), 8);
  /* The marker field of TASK_SWITCH is an enum of 2 bytes with the
   * interrupt constants. */
  s = src(f->c0, "TASK_SWITCH");
  ft = s->vtbl->GetFieldByName(s, "task");
  assert_int_equal(ft->vtbl->GetType(ft), MTI_ENUM);
  assert_int_equal(ft->vtbl->GetSize(ft), 2);
  assert_string_equal(ft->vtbl->LookupEnum(ft, 0xFFFE), "EnterInt");
  assert_string_equal(ft->vtbl->GetEnumMarker(ft, 1), "Down");
  /* Strings are variable-sized. */
  s = src(f->c0, "NAME");
  ft = s->vtbl->GetFieldByName(s, "name");
  assert_int_equal(ft->vtbl->GetType(ft), MTI_STRING);
  assert_int_equal(ft->vtbl->GetSize(ft), 0);
  assert_int_equal(ft->vtbl->GetMaxSize(ft), 255);
}

/* ---- EventClass ------------------------------------------------------------------------- */

static void test_event_class(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *s = src(f->c0, "MUTEX");
  MTI_EventClass *a = s->vtbl->CreateEventClass(s, 0x6); /* mutex, type */
  MTI_EventClass *b = s->vtbl->CreateEventClass(s, 0x1F);
  MTI_EventClass *z = s->vtbl->CreateEventClass(s, 0);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(z);
  assert_ptr_equal(s->vtbl->CreateEventClass(s, 0x6), a);
  assert_null(s->vtbl->CreateEventClass(s, 0x20)); /* field 5 does not exist */
  assert_null(s->vtbl->CreateEventClass(s, 0x80000000u));
  assert_int_not_equal(a->vtbl->GetId(a), b->vtbl->GetId(b));
  assert_int_not_equal(a->vtbl->GetId(a), 0);
  assert_ptr_equal(a->vtbl->GetSource(a), s);
  assert_int_equal(a->vtbl->GetMask(a), 0x6);
  assert_int_equal(a->vtbl->GetNumValues(a), 2);
  assert_int_equal(b->vtbl->GetNumValues(b), 5);
  assert_int_equal(z->vtbl->GetNumValues(z), 0);
  assert_int_equal(z->vtbl->GetEventRecordSize(z), sizeof(MTI_EventClassId));
  assert_string_equal(a->vtbl->GetEventField(a, 0)->vtbl->GetName(a->vtbl->GetEventField(a, 0)),
                      "mutex");
  assert_ptr_equal(a->vtbl->GetEventField(a, 1), s->vtbl->GetField(s, 2));
  assert_null(a->vtbl->GetEventField(a, 2));
  assert_null(a->vtbl->GetEventField(a, -1));
  assert_int_equal(a->vtbl->GetValueIndex(a, "type"), 1);
  assert_int_equal(a->vtbl->GetValueIndex(a, "task"), -1); /* not selected */
  assert_int_equal(a->vtbl->GetValueIndex(a, "nope"), -1);
  assert_int_equal(b->vtbl->GetValueIndex(b, "task"), 0);
  /* Illegal value index -> offset 0 (where the class id lives). */
  assert_int_equal(a->vtbl->GetValueOffset(a, 2), 0);
  assert_int_equal(a->vtbl->GetValueOffset(a, -1), 0);
  assert_int_equal(z->vtbl->GetValueOffset(z, 0), 0);
  for (int v = 0; v < b->vtbl->GetNumValues(b); v++) {
    size_t off = b->vtbl->GetValueOffset(b, v);
    const MTI_EventFieldType *ft = b->vtbl->GetEventField(b, v);
    assert_true(off >= sizeof(MTI_EventClassId));
    assert_int_equal(off % ft->vtbl->GetSize(ft), 0);
    assert_true(off + ft->vtbl->GetSize(ft) <= b->vtbl->GetEventRecordSize(b));
  }
  /* Values do not overlap. */
  for (int v = 0; v + 1 < b->vtbl->GetNumValues(b); v++)
    assert_true(b->vtbl->GetValueOffset(b, v) +
                    b->vtbl->GetEventField(b, v)->vtbl->GetSize(b->vtbl->GetEventField(b, v)) <=
                b->vtbl->GetValueOffset(b, v + 1));
  assert_int_equal(a->vtbl->DumpState(a, NULL, NULL), MTI_PARAMETER_INVALID);
}

/* ---- callbacks ---------------------------------------------------------------------------- */

struct hits {
  int n;
  const MTI_EventRecord *last;
  MTI_EventClassId last_id;
  uint32_t vals[8];
  char str[300];
  uint16_t strsize;
};

static void cb_count(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct hits *h = user;
  h->n++;
  h->last = rec;
  h->last_id = rec->event_class_id;
  assert_int_equal(rec->event_class_id, ec->vtbl->GetId(ec));
  for (int v = 0; v < ec->vtbl->GetNumValues(ec) && v < 8; v++) {
    const MTI_EventFieldType *ft = ec->vtbl->GetEventField(ec, v);
    if (ft->vtbl->GetType(ft) == MTI_STRING) {
      h->strsize = MTI_EventRecord_GetVariableSize(rec, ec, v);
      assert_int_equal(MTI_EventRecord_GetSize(rec, ec, v), h->strsize);
      memcpy(h->str, MTI_EventRecord_GetPtr(rec, ec, v), (size_t)h->strsize + 1);
    } else {
      h->vals[v] = MTI_EventRecord_GetAsU32(rec, ec, v);
    }
  }
}

static void test_callbacks(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *s = src(f->c0, "MUTEX");
  MTI_EventClass *a = s->vtbl->CreateEventClass(s, 0x7);
  MTI_EventClass *b = s->vtbl->CreateEventClass(s, 0x4);
  MTI_EventClass *unused = s->vtbl->CreateEventClass(s, 0x1);
  struct hits h1 = {0}, h2 = {0}, hb = {0};
  (void)unused;
  assert_int_equal(a->vtbl->RegisterCallback(a, cb_count, &h1), MTI_OK);
  assert_int_equal(a->vtbl->RegisterCallback(a, cb_count, &h2), MTI_OK); /* other user_ptr */
  assert_int_equal(a->vtbl->RegisterCallback(a, cb_count, &h1), MTI_PARAMETER_INVALID);
  assert_int_equal(a->vtbl->RegisterCallback(a, NULL, &h1), MTI_PARAMETER_INVALID);
  assert_int_equal(b->vtbl->RegisterCallback(b, cb_count, &hb), MTI_OK);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, fx_ev(FX_MUTEX, 3, 9, 0));          /* task 3 locks mutex 9 */
  feed(f, fx_ev(FX_TASK_SWITCH, 3, 0, 0));    /* other source: no callback */
  {
    struct tw_event e = fx_ev(FX_MUTEX, 4, 9, 4);
    e.stream = 1; /* other component: its MUTEX source has no classes */
    feed(f, e);
  }
  assert_int_equal(h1.n, 1);
  assert_int_equal(h2.n, 1);
  assert_int_equal(hb.n, 1);
  assert_int_equal(h1.vals[0], 3);
  assert_int_equal(h1.vals[1], 9);
  assert_int_equal(h1.vals[2], 0);
  assert_int_equal(hb.vals[0], 0);
  /* One record per event for all classes of the source. */
  assert_ptr_equal(h1.last, hb.last);
  assert_int_equal(h1.last_id, a->vtbl->GetId(a));
  assert_int_equal(hb.last_id, b->vtbl->GetId(b));
  /* BUSY while running, for everything that registers. */
  assert_int_equal(a->vtbl->RegisterCallback(a, cb_count, &hb), MTI_BUSY);
  assert_int_equal(a->vtbl->UnregisterCallback(a, cb_count, &h1), MTI_BUSY);
  {
    uint64_t c64 = 0;
    uint32_t c32 = 0;
    assert_int_equal(s->vtbl->RegisterCounter(s, &c64), MTI_BUSY);
    assert_int_equal(s->vtbl->RegisterCounter32(s, &c32), MTI_BUSY);
    assert_int_equal(s->vtbl->UnregisterCounter(s, &c64), MTI_BUSY);
    assert_int_equal(s->vtbl->UnregisterCounter32(s, &c32), MTI_BUSY);
  }
  assert_int_equal(tw_mti_system_stop(f->sys), 0);
  assert_int_equal(a->vtbl->UnregisterCallback(a, cb_count, &h1), MTI_OK);
  assert_int_equal(a->vtbl->UnregisterCallback(a, cb_count, &h1), MTI_PARAMETER_INVALID);
  assert_int_equal(b->vtbl->UnregisterCallback(b, cb_count, &hb), MTI_OK);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, fx_ev(FX_MUTEX, 3, 9, 1));
  assert_int_equal(h1.n, 1);
  assert_int_equal(h2.n, 2);
  assert_int_equal(h2.vals[2], 1);
  assert_int_equal(hb.n, 1);
}

/* Every selected field exact, at full width, whatever the neighbours hold:
 * the fill stores 8 bytes per numeric field in offset order (little-endian
 * hosts), so a field's spill must never survive into the next one, and a
 * class that selects a subset sees the same values. */
static void test_record_fields_exact(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *s = src(f->c0, "MUTEX");
  MTI_EventClass *all = s->vtbl->CreateEventClass(s, 0x7);
  MTI_EventClass *last = s->vtbl->CreateEventClass(s, 0x4);
  struct hits ha = {0}, hl = {0};
  assert_int_equal(all->vtbl->RegisterCallback(all, cb_count, &ha), MTI_OK);
  assert_int_equal(last->vtbl->RegisterCallback(last, cb_count, &hl), MTI_OK);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, fx_ev(FX_MUTEX, 0xFFFF, 0xFFFF, 1));
  assert_int_equal(ha.vals[0], 0xFFFF);
  assert_int_equal(ha.vals[1], 0xFFFF);
  assert_int_equal(ha.vals[2], 1);
  feed(f, fx_ev(FX_MUTEX, 0x1234, 0x0001, 2));
  assert_int_equal(ha.n, 2);
  assert_int_equal(ha.vals[0], 0x1234);
  assert_int_equal(ha.vals[1], 0x0001);
  assert_int_equal(ha.vals[2], 2);
  assert_int_equal(hl.n, 2);
  assert_int_equal(hl.vals[0], 2);
  assert_int_equal(tw_mti_system_stop(f->sys), 0);
}

/* Many registrations on many classes of one source: each pair is called
 * exactly once per event, with its own class and user pointer. */
static void test_many_callbacks(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *s = src(f->c0, "MUTEX");
  struct hits h[8][7];
  memset(h, 0, sizeof h);
  for (int c = 0; c < 8; c++) {
    MTI_EventClass *ec = s->vtbl->CreateEventClass(s, (MTI_FieldMask)c);
    for (int k = 0; k < 7; k++)
      assert_int_equal(ec->vtbl->RegisterCallback(ec, cb_count, &h[c][k]), MTI_OK);
  }
  /* Unregister some again: they must not be called. */
  assert_int_equal(s->vtbl->CreateEventClass(s, 3)->vtbl->UnregisterCallback(
                       s->vtbl->CreateEventClass(s, 3), cb_count, &h[3][6]), MTI_OK);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, fx_ev(FX_MUTEX, 2, 5, 3));
  feed(f, fx_ev(FX_MUTEX, 2, 5, 2));
  for (int c = 0; c < 8; c++) {
    for (int k = 0; k < 7; k++) {
      int want = c == 3 && k == 6 ? 0 : 2;
      assert_int_equal(h[c][k].n, want);
      if (want) {
        MTI_EventClass *ec = s->vtbl->CreateEventClass(s, (MTI_FieldMask)c);
        assert_int_equal(h[c][k].last_id, ec->vtbl->GetId(ec));
      }
    }
  }
  assert_int_equal(h[7][0].vals[2], 2); /* type of the last event */
}

static void test_counters(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *s = src(f->c0, "SEM");
  uint64_t c64 = 100;
  uint32_t c32 = 0xFFFFFFFFu, other = 0;
  assert_int_equal(s->vtbl->RegisterCounter(s, &c64), MTI_OK);
  assert_int_equal(s->vtbl->RegisterCounter(s, &c64), MTI_PARAMETER_INVALID);
  assert_int_equal(s->vtbl->RegisterCounter(s, NULL), MTI_PARAMETER_INVALID);
  assert_int_equal(s->vtbl->RegisterCounter32(s, &c32), MTI_OK);
  assert_int_equal(s->vtbl->RegisterCounter32(s, &c32), MTI_PARAMETER_INVALID);
  assert_int_equal(s->vtbl->UnregisterCounter32(s, &other), MTI_PARAMETER_INVALID);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, fx_ev(FX_SEM, 1, 1, 0));
  feed(f, fx_ev(FX_SEM, 1, 1, 0));
  feed(f, fx_ev(FX_MUTEX, 1, 1, 0));
  assert_int_equal(c64, 102); /* not initialised by registering */
  assert_int_equal(c32, 1);   /* wraps like the uint32_t it is */
  assert_int_equal(tw_mti_system_stop(f->sys), 0);
  assert_int_equal(s->vtbl->UnregisterCounter(s, &c64), MTI_OK);
  assert_int_equal(s->vtbl->UnregisterCounter(s, &c64), MTI_PARAMETER_INVALID);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, fx_ev(FX_SEM, 1, 1, 0));
  assert_int_equal(c64, 102);
  assert_int_equal(c32, 2);
}

/* ---- EventRecord ------------------------------------------------------------------------ */

struct rec_check {
  int n;
  int64_t count_i64;
  uint64_t count_u64;
  uint8_t count_u8;
  int16_t count_i16;
  int32_t count_get_i32;
  bool exact;
  int8_t task_as_i8;
  uint8_t task_as_u8;
  int64_t task_as_i64;
  uint16_t task_get;
};

static void cb_sem(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct rec_check *r = user;
  MTI_ValueIndex c = ec->vtbl->GetValueIndex(ec, "count");
  MTI_ValueIndex e = ec->vtbl->GetValueIndex(ec, "exact");
  r->n++;
  r->count_i64 = MTI_EventRecord_GetAsI64(rec, ec, c);
  r->count_u64 = MTI_EventRecord_GetAsU64(rec, ec, c);
  r->count_u8 = MTI_EventRecord_GetAsU8(rec, ec, c);
  r->count_i16 = MTI_EventRecord_GetAsI16(rec, ec, c);
  r->count_get_i32 = MTI_EventRecord_GetI32(rec, ec, c);
  r->exact = MTI_EventRecord_GetBool(rec, ec, e);
  assert_int_equal(MTI_EventRecord_GetSize(rec, ec, c), 4);
  assert_int_equal(MTI_EventRecord_GetAsU64(rec, ec, 99), 0); /* illegal vidx */
}

static void cb_task(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct rec_check *r = user;
  MTI_ValueIndex t = ec->vtbl->GetValueIndex(ec, "task");
  r->n++;
  r->task_as_i8 = MTI_EventRecord_GetAsI8(rec, ec, t);
  r->task_as_u8 = MTI_EventRecord_GetAsU8(rec, ec, t);
  r->task_as_i64 = MTI_EventRecord_GetAsI64(rec, ec, t);
  r->task_get = MTI_EventRecord_GetU16(rec, ec, t);
}

/* A custom kind with one signed field: GetAs sign-extends its value. */
static const struct tw_field_desc fx_level_fields[] = {{"v", TW_FT_I16, 0, 0, 16, TW_OBJ_NONE, ""}};
static const struct tw_event_desc fx_level = {
  21, TW_MOD_CUSTOM, TW_EVF_TIMED, 1, 1, -1, TW_MARKER_NONE, 0, "Level", "Level",
  "A custom event with a signed field", fx_level_fields, NULL};

static void cb_level(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct rec_check *r = user;
  MTI_ValueIndex v = ec->vtbl->GetValueIndex(ec, "v");
  r->n++;
  r->count_i64 = MTI_EventRecord_GetAsI64(rec, ec, v);
  r->count_u64 = MTI_EventRecord_GetAsU64(rec, ec, v);
  r->count_u8 = MTI_EventRecord_GetAsU8(rec, ec, v);
  r->count_i16 = MTI_EventRecord_GetI16(rec, ec, v);
  r->count_get_i32 = MTI_EventRecord_GetAsI32(rec, ec, v);
  assert_int_equal(MTI_EventRecord_GetSize(rec, ec, v), 2);
}

static void test_record_get_as(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *sems = src(f->c0, "SEMAPHORES");
  MTI_TraceSource *ts = src(f->c0, "TASK_SWITCH");
  MTI_EventClass *sc = sems->vtbl->CreateEventClass(sems, 0xF);
  MTI_EventClass *tc = ts->vtbl->CreateEventClass(ts, 0x1);
  struct rec_check r = {0}, t = {0}, l = {0};
  const MTI_EventFieldType *cf = sems->vtbl->GetFieldByName(sems, "count");
  assert_int_equal(cf->vtbl->GetType(cf), MTI_SIGNED_INT);
  assert_int_equal(sc->vtbl->RegisterCallback(sc, cb_sem, &r), MTI_OK);
  assert_int_equal(tc->vtbl->RegisterCallback(tc, cb_task, &t), MTI_OK);
  assert_int_equal(tw_mti_system_declare_event(f->sys, &fx_level), 0);
  MTI_TraceSource *ls = src(f->c0, "Level");
  MTI_EventClass *lc = ls->vtbl->CreateEventClass(ls, 0x1);
  assert_int_equal(lc->vtbl->RegisterCallback(lc, cb_level, &l), MTI_OK);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  /* Two takes without a give: the count stays 0 (it was -2 before the
   * state model: issue 15), and is no longer exact (a give was missed). */
  feed(f, fx_ev(FX_SEM_TASK, 1, 5, 1));
  feed(f, fx_ev(FX_SEM_TASK, 1, 5, 1));
  assert_int_equal(r.n, 2);
  assert_int_equal(r.count_i64, 0);
  assert_false(r.exact);
  feed(f, fx_ev(FX_SEM, 5, 1, 0)); /* Give */
  assert_int_equal(r.count_get_i32, 1);
  feed(f, fx_ev(FX_SEM_TASK, 1, 5, 2)); /* a block pins it: 0, exact */
  assert_int_equal(r.count_i64, 0);
  assert_true(r.exact);
  feed(f, fx_ev(FX_SEM, 5, 2, 0)); /* GiveMany: count no longer exact */
  assert_int_equal(r.count_i64, 1);
  assert_false(r.exact);
  /* A signed value sign-extended all the way, truncated as asked. */
  struct tw_event e = fx_ev(21, 0xFFFE, 0, 0);
  e.desc = &fx_level;
  e.module = TW_MOD_CUSTOM;
  feed(f, e);
  assert_int_equal(l.n, 1);
  assert_int_equal(l.count_i64, -2);
  assert_true(l.count_u64 == UINT64_C(0xFFFFFFFFFFFFFFFE));
  assert_int_equal(l.count_u8, 0xFE);
  assert_int_equal(l.count_i16, -2);
  assert_int_equal(l.count_get_i32, -2);
  /* An unsigned 16-bit value truncated and zero-extended, never sign-extended. */
  feed(f, fx_ev(FX_TASK_SWITCH, 0x1280, 0, 0));
  assert_int_equal(t.task_get, 0x1280);
  assert_int_equal(t.task_as_u8, 0x80);
  assert_int_equal(t.task_as_i8, -128); /* truncation to a signed type */
  assert_int_equal(t.task_as_i64, 0x1280);
  feed(f, fx_ev(FX_TASK_SWITCH, 0xFFFE, 0, 0));
  assert_int_equal(t.task_as_i64, 0xFFFE); /* unsigned: no sign extension */
}

/* Get<T> for every T, on values of that size (and GetI* reading the same
 * bytes as signed). */
struct gets {
  uint8_t u8;
  int8_t i8;
  uint16_t u16;
  int16_t i16;
  uint32_t u32;
  int32_t i32;
  uint64_t u64;
  int64_t i64;
  uint64_t as_u64_of_u8;
};

static void cb_gets(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct gets *g = user;
  MTI_ValueIndex k = ec->vtbl->GetValueIndex(ec, "kind"), n = ec->vtbl->GetValueIndex(ec, "number"),
                 t = ec->vtbl->GetValueIndex(ec, "time_ns"), q = ec->vtbl->GetValueIndex(ec, "seq");
  g->u8 = MTI_EventRecord_GetU8(rec, ec, k);
  g->i8 = MTI_EventRecord_GetI8(rec, ec, k);
  g->u16 = MTI_EventRecord_GetU16(rec, ec, n);
  g->i16 = MTI_EventRecord_GetI16(rec, ec, n);
  g->u32 = MTI_EventRecord_GetU32(rec, ec, q);
  g->i32 = MTI_EventRecord_GetI32(rec, ec, q);
  g->u64 = MTI_EventRecord_GetU64(rec, ec, t);
  g->i64 = MTI_EventRecord_GetI64(rec, ec, t);
  g->as_u64_of_u8 = MTI_EventRecord_GetAsU64(rec, ec, k);
}

static void test_record_get_each_type(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *s = src(f->c0, "NAME");
  MTI_EventClass *ec = s->vtbl->CreateEventClass(s, 0x3F);
  struct gets g = {0};
  struct tw_event e = fx_name(0xF0, 0, 0xFFF0, "n");
  e.seq = 0xFFFFFFFEu;
  e.time_ns = UINT64_C(0xFFFFFFFFFFFFFFFD);
  assert_int_equal(ec->vtbl->RegisterCallback(ec, cb_gets, &g), MTI_OK);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, e);
  assert_int_equal(g.u8, 0xF0);
  assert_int_equal(g.i8, -16);
  assert_int_equal(g.u16, 0xFFF0);
  assert_int_equal(g.i16, -16);
  assert_true(g.u32 == 0xFFFFFFFEu);
  assert_int_equal(g.i32, -2);
  assert_true(g.u64 == UINT64_C(0xFFFFFFFFFFFFFFFD));
  assert_true(g.i64 == -3);
  assert_int_equal(g.as_u64_of_u8, 0xF0); /* unsigned: zero-extended */
}

static void test_record_variable_size(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *s = src(f->c0, "NAME");
  MTI_EventClass *ec = s->vtbl->CreateEventClass(s, 0xF);
  const MTI_EventFieldType *nf = s->vtbl->GetFieldByName(s, "name");
  struct hits h = {0};
  char longname[400];
  size_t off = ec->vtbl->GetValueOffset(ec, ec->vtbl->GetValueIndex(ec, "name"));
  /* The maximum record holds the largest value and its NUL. */
  assert_true(ec->vtbl->GetEventRecordSize(ec) >= off + nf->vtbl->GetMaxSize(nf) + 1);
  assert_int_equal(ec->vtbl->RegisterCallback(ec, cb_count, &h), MTI_OK);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, fx_name(TW_OBJ_TASK, 7, 2, "idle"));
  assert_int_equal(h.strsize, 4);
  assert_string_equal(h.str, "idle");
  assert_int_equal(h.vals[0], TW_OBJ_TASK);
  assert_int_equal(h.vals[1], 7);
  assert_int_equal(h.vals[2], 2);
  feed(f, fx_name(TW_OBJ_SEM, 0, 3, ""));
  assert_int_equal(h.strsize, 0);
  assert_string_equal(h.str, "");
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = 0;
  feed(f, fx_name(TW_OBJ_MUTEX, 0, 4, longname));
  assert_int_equal(h.strsize, 255); /* cut at the maximum size */
  assert_int_equal(strlen(h.str), 255);
}

/* ---- dump_state ------------------------------------------------------------------------- */

struct dump {
  int n;
  uint32_t num[16], state[16], owner[16], count[16], prio[16];
  int32_t scount[16];
  char name[16][32];
  bool held[16];
};

static void cb_dump(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct dump *d = user;
  const MTI_TraceSource *s = ec->vtbl->GetSource(ec);
  const char *sn = s->vtbl->GetName(s);
  int i = d->n++;
  MTI_ValueIndex nv = ec->vtbl->GetValueIndex(ec, "name");
  assert_true(i < 16);
  d->num[i] = MTI_EventRecord_GetAsU32(rec, ec, 0);
  snprintf(d->name[i], sizeof d->name[i], "%.*s", (int)MTI_EventRecord_GetSize(rec, ec, nv),
           (const char *)MTI_EventRecord_GetPtr(rec, ec, nv));
  if (!strcmp(sn, "TASKS")) {
    d->state[i] = MTI_EventRecord_GetAsU32(rec, ec, ec->vtbl->GetValueIndex(ec, "state"));
    d->prio[i] = MTI_EventRecord_GetAsU32(rec, ec, ec->vtbl->GetValueIndex(ec, "prio"));
  } else if (!strcmp(sn, "MUTEXES")) {
    d->owner[i] = MTI_EventRecord_GetAsU32(rec, ec, ec->vtbl->GetValueIndex(ec, "owner"));
    d->held[i] = MTI_EventRecord_GetBool(rec, ec, ec->vtbl->GetValueIndex(ec, "held"));
    d->count[i] = MTI_EventRecord_GetAsU32(rec, ec, ec->vtbl->GetValueIndex(ec, "lock_count"));
  } else {
    d->scount[i] = MTI_EventRecord_GetAsI32(rec, ec, ec->vtbl->GetValueIndex(ec, "count"));
  }
}

static const char *state_name(const MTI_EventClass *ec, uint32_t v)
{
  const MTI_EventFieldType *ft = ec->vtbl->GetEventField(ec, ec->vtbl->GetValueIndex(ec, "state"));
  return ft->vtbl->LookupEnum(ft, v);
}

static void feed_scenario(struct fx *f)
{
  feed(f, fx_name(TW_OBJ_TASK, 5, 1, "main"));
  feed(f, fx_name(TW_OBJ_TASK, 9, 2, "net"));
  feed(f, fx_name(TW_OBJ_MUTEX, 0, 7, "lock7"));
  feed(f, fx_ev(FX_TASK_SWITCH, 1, 0, 0));  /* main runs */
  feed(f, fx_ev(FX_MUTEX, 1, 7, 0));        /* main locks 7 */
  feed(f, fx_ev(FX_MUTEX, 1, 7, 2));        /* IncLock */
  feed(f, fx_ev(FX_MUTEX, 1, 8, 0));        /* main locks 8 */
  feed(f, fx_ev(FX_MUTEX, 1, 8, 1));        /* and unlocks it */
  feed(f, fx_ev(FX_TASK_SWITCH, 2, 0, 0));  /* net runs, main ready */
  feed(f, fx_ev(FX_MUTEX, 2, 7, 4));        /* net blocks on 7 */
  feed(f, fx_ev(FX_TASK_SWITCH, 0xFFFE, 0, 0)); /* EnterInt: no task */
  feed(f, fx_ev(FX_SEM, 3, 1, 0));          /* give sem 3 */
  feed(f, fx_ev(FX_SEM, 3, 1, 0));
  feed(f, fx_ev(FX_SEM_TASK, 1, 3, 1));     /* main takes it */
  feed(f, fx_ev(FX_TASK_SWITCH, 0xFFFF, 0, 0));
}

static void test_dump_state(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *tasks = src(f->c0, "TASKS"), *mx = src(f->c0, "MUTEXES"),
                  *sems = src(f->c0, "SEMAPHORES"), *ts = src(f->c0, "TASK_SWITCH");
  MTI_EventClass *tc = tasks->vtbl->CreateEventClass(tasks, 0xF);
  MTI_EventClass *mc = mx->vtbl->CreateEventClass(mx, 0x1F);
  MTI_EventClass *sc = sems->vtbl->CreateEventClass(sems, 0xF);
  MTI_EventClass *tsc = ts->vtbl->CreateEventClass(ts, 1);
  struct dump d = {0};
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed_scenario(f);
  /* Any time, also while running. */
  assert_int_equal(tc->vtbl->DumpState(tc, cb_dump, &d), MTI_OK);
  assert_int_equal(d.n, 2);
  assert_int_equal(d.num[0], 1);
  assert_string_equal(d.name[0], "main");
  assert_string_equal(state_name(tc, d.state[0]), "Ready");
  assert_int_equal(d.prio[0], 5);
  assert_int_equal(d.num[1], 2);
  assert_string_equal(d.name[1], "net");
  assert_string_equal(state_name(tc, d.state[1]), "Blocked");
  memset(&d, 0, sizeof d);
  assert_int_equal(mc->vtbl->DumpState(mc, cb_dump, &d), MTI_OK);
  assert_int_equal(d.n, 1); /* only held mutexes: 8 was unlocked */
  assert_int_equal(d.num[0], 7);
  assert_string_equal(d.name[0], "lock7");
  assert_int_equal(d.owner[0], 1);
  assert_true(d.held[0]);
  assert_int_equal(d.count[0], 2);
  memset(&d, 0, sizeof d);
  assert_int_equal(sc->vtbl->DumpState(sc, cb_dump, &d), MTI_OK);
  assert_int_equal(d.n, 1);
  assert_int_equal(d.num[0], 3);
  assert_int_equal(d.scount[0], 1);
  assert_int_equal(tsc->vtbl->DumpState(tsc, cb_dump, &d), MTI_FUNCTION_NOT_SUPPORTED);
  /* State is per component: core 1 saw nothing. */
  {
    MTI_TraceSource *t1 = src(f->c1, "TASKS");
    MTI_EventClass *c1 = t1->vtbl->CreateEventClass(t1, 0xF);
    memset(&d, 0, sizeof d);
    assert_int_equal(c1->vtbl->DumpState(c1, cb_dump, &d), MTI_OK);
    assert_int_equal(d.n, 0);
  }
}

static void test_state_change_callbacks(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *tasks = src(f->c0, "TASKS");
  MTI_EventClass *tc = tasks->vtbl->CreateEventClass(tasks, 0x5); /* task, state */
  struct hits h = {0};
  uint32_t n = 0;
  assert_int_equal(tc->vtbl->RegisterCallback(tc, cb_count, &h), MTI_OK);
  assert_int_equal(tasks->vtbl->RegisterCounter32(tasks, &n), MTI_OK);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, fx_ev(FX_TASK_SWITCH, 1, 0, 0));
  assert_int_equal(h.n, 1);
  assert_int_equal(h.vals[0], 1);
  assert_int_equal(h.vals[1], 1); /* Running */
  feed(f, fx_ev(FX_TASK_SWITCH, 1, 0, 0)); /* no change, no event */
  assert_int_equal(h.n, 1);
  feed(f, fx_ev(FX_TASK_SWITCH, 2, 0, 0)); /* 1 -> Ready, 2 -> Running */
  assert_int_equal(h.n, 3);
  assert_int_equal(n, 3);
  feed(f, fx_ev(FX_SEM_TASK, 1, 4, 0));  /* ToTask on a ready task: no change */
  feed(f, fx_ev(FX_SEM_TASK, 2, 4, 2));  /* 2 blocks */
  assert_int_equal(h.n, 4);
  assert_int_equal(h.vals[0], 2);
  assert_int_equal(h.vals[1], 3); /* Blocked */
  feed(f, fx_ev(FX_SEM_TASK, 2, 4, 0));  /* released: Ready */
  assert_int_equal(h.vals[1], 2);
}

/* State is kept once a class exists on a dump_state source of the
 * component (docs/mti.md); names always. */
static void test_state_tracking_starts_with_a_class(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *tasks = src(f->c0, "TASKS");
  MTI_EventClass *tc;
  struct dump d = {0};
  TW_TraceContext *ctx = eslapi_ObtainPointer(tw_mti_system_simulation(f->sys), TW_TraceContext);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, fx_name(TW_OBJ_TASK, 0, 4, "early"));
  feed(f, fx_ev(FX_TASK_SWITCH, 3, 0, 0));
  tc = tasks->vtbl->CreateEventClass(tasks, 0xF); /* allowed while running */
  assert_int_equal(tc->vtbl->DumpState(tc, cb_dump, &d), MTI_OK);
  assert_int_equal(d.n, 1); /* named task 4 is known, the switch to 3 was not tracked */
  assert_int_equal(d.num[0], 4);
  assert_string_equal(ctx->vtbl->LookupObjectName(ctx, f->c0, TW_OBJ_TASK, 4), "early");
  feed(f, fx_ev(FX_TASK_SWITCH, 5, 0, 0));
  memset(&d, 0, sizeof d);
  assert_int_equal(tc->vtbl->DumpState(tc, cb_dump, &d), MTI_OK);
  assert_int_equal(d.n, 2);
  assert_int_equal(d.num[1], 5);
  assert_string_equal(state_name(tc, d.state[1]), "Running");
}

/* DumpState from inside a callback of another source. */
struct nested {
  MTI_EventClass *tasks;
  struct dump d;
  int calls;
};

static void cb_nested(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct nested *n = user;
  (void)ec;
  (void)rec;
  n->calls++;
  memset(&n->d, 0, sizeof n->d);
  assert_int_equal(n->tasks->vtbl->DumpState(n->tasks, cb_dump, &n->d), MTI_OK);
}

static void test_dump_state_from_callback(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *tasks = src(f->c0, "TASKS"), *mx = src(f->c0, "MUTEX");
  struct nested n = {0};
  MTI_EventClass *mc = mx->vtbl->CreateEventClass(mx, 0);
  n.tasks = tasks->vtbl->CreateEventClass(tasks, 0xF);
  assert_int_equal(mc->vtbl->RegisterCallback(mc, cb_nested, &n), MTI_OK);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed_scenario(f);
  assert_int_equal(n.calls, 5);
  assert_int_equal(n.d.n, 2);
  assert_string_equal(state_name(n.tasks, n.d.state[1]), "Blocked");
}

/* ---- feeding rules, TraceContext, custom events --------------------------------------------- */

struct ctxcheck {
  const TW_TraceContext *ctx;
  const MTI_ComponentTraceInterface *want;
  uint64_t time;
  const char *name;
  int n;
};

static void cb_ctx(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct ctxcheck *c = user;
  const struct tw_event *e = c->ctx->vtbl->GetCurrentEvent(c->ctx);
  (void)ec;
  (void)rec;
  c->n++;
  assert_non_null(e);
  c->time = e->time_ns;
  assert_ptr_equal(c->ctx->vtbl->GetCurrentComponent(c->ctx), c->want);
  c->name = c->ctx->vtbl->LookupObjectName(c->ctx, c->want, TW_OBJ_TASK, e->values[0]);
}

static void test_trace_context(void **state)
{
  struct fx *f = *state;
  struct ctxcheck c = {0};
  MTI_TraceSource *ts = src(f->c0, "TASK_SWITCH");
  MTI_EventClass *ec = ts->vtbl->CreateEventClass(ts, 0);
  struct tw_event e;
  c.ctx = eslapi_ObtainPointer(tw_mti_system_simulation(f->sys), TW_TraceContext);
  c.want = f->c0;
  assert_non_null(c.ctx);
  assert_null(c.ctx->vtbl->GetCurrentEvent(c.ctx));
  assert_null(c.ctx->vtbl->GetCurrentComponent(c.ctx));
  assert_int_equal(ec->vtbl->RegisterCallback(ec, cb_ctx, &c), MTI_OK);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, fx_name(TW_OBJ_TASK, 0, 6, "worker"));
  e = fx_ev(FX_TASK_SWITCH, 6, 0, 0);
  e.time_ns = 123456789;
  feed(f, e);
  assert_int_equal(c.n, 1);
  assert_int_equal(c.time, 123456789);
  assert_string_equal(c.name, "worker");
  assert_null(c.ctx->vtbl->GetCurrentEvent(c.ctx));
  /* Names are per endpoint: core 1 of the same board sees it. */
  assert_string_equal(c.ctx->vtbl->LookupObjectName(c.ctx, f->c1, TW_OBJ_TASK, 6), "worker");
  assert_null(c.ctx->vtbl->LookupObjectName(c.ctx, f->c1, TW_OBJ_MUTEX, 6));
  /* A rename (reused number) replaces the name. */
  feed(f, fx_name(TW_OBJ_TASK, 0, 6, "worker2"));
  assert_string_equal(c.ctx->vtbl->LookupObjectName(c.ctx, f->c1, TW_OBJ_TASK, 6), "worker2");
  /* Revision 1: the RTOS state model itself, kept for every component
   * from the moment a plugin asks for it. */
  uint32_t rev = 0;
  assert_non_null(eslapi_ObtainInterface(tw_mti_system_simulation(f->sys),
                                         TW_TraceContext_IFNAME, 1, &rev));
  assert_true(rev >= 1);
  /* Revision 2: a plugin that could not write its output says so, and
   * the command that ran it fails (tw_mti_system_failures) */
  assert_non_null(eslapi_ObtainInterface(tw_mti_system_simulation(f->sys),
                                         TW_TraceContext_IFNAME, 2, &rev));
  assert_int_equal(tw_mti_system_failures(f->sys), 0);
  c.ctx->vtbl->ReportFailure(c.ctx, "test", "out.txt: No space left on device");
  assert_int_equal(tw_mti_system_failures(f->sys), 1);
  struct tw_rtos *m = c.ctx->vtbl->GetModel(c.ctx);
  assert_non_null(m);
  e = fx_ev(FX_TASK_SWITCH, 7, 0, 0);
  e.stream = 1;
  feed(f, e);
  const struct tw_rtos_task *t7 = tw_rtos_task(m, 1, 7);
  assert_non_null(t7);
  assert_int_equal(t7->now.state, TW_RTOS_RUNNING);
  assert_string_equal(tw_rtos_name(m, 1, TW_OBJ_TASK, 6), "worker2");
}

static int feed_from_cb_rc;
static struct tw_mti_system *feed_from_cb_sys;
static void cb_refeed(void *user, const MTI_EventClass *ec, const MTI_EventRecord *rec)
{
  struct tw_event e = fx_ev(FX_SEM, 1, 1, 0);
  (void)user;
  (void)ec;
  (void)rec;
  feed_from_cb_rc = tw_mti_system_feed(feed_from_cb_sys, &e);
}

static void test_feed_rules(void **state)
{
  struct fx *f = *state;
  struct tw_event e = fx_ev(FX_SEM, 1, 1, 0);
  MTI_TraceSource *s = src(f->c0, "SEM");
  MTI_EventClass *ec = s->vtbl->CreateEventClass(s, 0);
  assert_false(tw_mti_system_running(f->sys));
  assert_int_equal(tw_mti_system_feed(f->sys, &e), TW_EINVAL);
  assert_int_equal(ec->vtbl->RegisterCallback(ec, cb_refeed, NULL), MTI_OK);
  feed_from_cb_sys = f->sys;
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  assert_true(tw_mti_system_running(f->sys));
  feed(f, e);
  assert_int_equal(feed_from_cb_rc, TW_EBUSY);
  /* Unknown id without a descriptor: counted, ignored. */
  e = fx_ev(99, 0, 0, 0);
  assert_null(e.desc);
  feed(f, e);
  assert_int_equal(tw_mti_system_unknown(f->sys), 1);
  /* An unknown stream becomes a component. */
  e = fx_ev(FX_SEM, 1, 1, 0);
  e.stream = 5;
  e.endpoint = 1;
  e.instance = 3;
  feed(f, e);
  assert_int_equal(f->st->vtbl->GetNumOfTraceComponents(f->st), 3);
  assert_string_equal(f->st->vtbl->GetComponentTracePath(f->st, 2), "board.cpu3");
}

static void test_custom_events(void **state)
{
  struct fx *f = *state;
  MTI_TraceSource *s;
  const MTI_EventFieldType *b;
  struct hits h = {0};
  MTI_EventClass *ec;
  struct tw_event e;
  int n0 = f->c0->vtbl->GetNumOfTraceSources(f->c0);
  assert_null(f->c0->vtbl->GetTraceSourceByName(f->c0, "Sensor"));
  assert_int_equal(tw_mti_system_declare_event(f->sys, &fx_custom), 0);
  assert_int_equal(tw_mti_system_declare_event(f->sys, &fx_custom), 0); /* idempotent */
  {
    struct tw_event_desc clash = fx_custom;
    clash.name = "Other";
    assert_int_equal(tw_mti_system_declare_event(f->sys, &clash), TW_EEXIST);
  }
  assert_int_equal(f->c0->vtbl->GetNumOfTraceSources(f->c0), n0 + 1);
  assert_int_equal(f->c1->vtbl->GetNumOfTraceSources(f->c1), n0 + 1);
  s = src(f->c1, "Sensor");
  assert_int_equal(s->vtbl->GetIndex(s), n0);
  assert_int_equal(s->vtbl->GetNumFields(s), 4);
  b = s->vtbl->GetFieldByName(s, "b");
  assert_int_equal(b->vtbl->GetSize(b), 4);
  assert_int_equal(b->vtbl->GetType(b), MTI_UNSIGNED_INT);
  ec = s->vtbl->CreateEventClass(s, 0x3);
  assert_int_equal(ec->vtbl->RegisterCallback(ec, cb_count, &h), MTI_OK);
  /* A component added later has the custom source too. */
  assert_int_equal(tw_mti_system_add_component(f->sys, 9, 1, 9, NULL), 0);
  assert_non_null(eslapi_ObtainPointer(f->st->vtbl->GetComponentTrace(f->st, 2),
                                       MTI_ComponentTraceInterface)
                      ->vtbl->GetTraceSourceByName(
                          eslapi_ObtainPointer(f->st->vtbl->GetComponentTrace(f->st, 2),
                                               MTI_ComponentTraceInterface),
                          "Sensor"));
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  e = fx_ev(FX_CUSTOM, 0x1AB, 0xDEADBEEF, 0);
  e.stream = 1;
  feed(f, e);
  assert_int_equal(h.n, 1);
  assert_int_equal(h.vals[0], 0xAB); /* a U8 field keeps 8 bits */
  assert_int_equal(h.vals[1], 0xDEADBEEF);
}

static void test_custom_auto_declared(void **state)
{
  struct fx *f = *state;
  struct tw_event e = fx_ev(FX_CUSTOM, 1, 2, 0);
  assert_int_equal(tw_mti_system_start(f->sys), 0);
  feed(f, e); /* the decoder's descriptor comes with the event */
  assert_int_equal(tw_mti_system_unknown(f->sys), 0);
  assert_non_null(f->c0->vtbl->GetTraceSourceByName(f->c0, "Sensor"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, setup, teardown)
    T(test_obtain_interface),      T(test_system_trace),
    T(test_component_trace),       T(test_trace_source_fields),
    T(test_event_class),           T(test_callbacks),
    T(test_many_callbacks),        T(test_record_fields_exact),
    T(test_counters),              T(test_record_get_as),
    T(test_record_get_each_type),
    T(test_record_variable_size),  T(test_dump_state),
    T(test_state_change_callbacks), T(test_dump_state_from_callback),
    T(test_state_tracking_starts_with_a_class),
    T(test_trace_context),         T(test_feed_rules),
    T(test_custom_events),         T(test_custom_auto_declared),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
