/*
 * Plugin loading and the example plugins, as shared libraries built by
 * examples/plugins: the ABI check (a mismatched plugin is refused and never
 * called: its entry point aborts), parameters (TRACE.<instance>.<param>,
 * declared types and ranges, the runtime ParameterInterface), several
 * instances of one plugin, and what the switches and fieldprint plugins
 * report for a known event sequence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "mti_fixture.h"
#include "tracewire/error.h"

#define PLUGIN_DIR TW_BINARY_DIR "/examples/plugins/"
#define SWITCHES PLUGIN_DIR "libswitches.so"
#define FIELDPRINT PLUGIN_DIR "libfieldprint.so"
#define MISMATCH PLUGIN_DIR "libabi_mismatch.so"

static char msg[512];

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "r");
  char *buf = calloc(1, 1 << 16);
  assert_non_null(f);
  assert_non_null(buf);
  assert_true(fread(buf, 1, (1 << 16) - 1, f) < (1 << 16) - 1);
  fclose(f);
  return buf;
}

static void tmpname(char *buf, size_t n, const char *tag)
{
  snprintf(buf, n, "mti_plugin_%ld_%s.txt", (long)getpid(), tag);
}

static struct tw_mti_system *two_cores(void)
{
  struct tw_mti_system *sys;
  assert_int_equal(tw_mti_system_create(&sys, fx_descs, FX_NDESCS), 0);
  assert_int_equal(tw_mti_system_add_component(sys, 0, 1, 0, NULL), 0);
  assert_int_equal(tw_mti_system_add_component(sys, 1, 1, 1, NULL), 0);
  return sys;
}

static void feed(struct tw_mti_system *sys, struct tw_event e, uint16_t stream)
{
  e.stream = stream;
  e.instance = stream;
  assert_int_equal(tw_mti_system_feed(sys, &e), 0);
}

/* ---- loading ------------------------------------------------------------------------ */

static void test_load_and_factory(void **state)
{
  struct tw_mti_plugin *p;
  MTI_PluginFactory *f;
  eslapi_CADIParameterInfo_t infos[2];
  (void)state;
  assert_int_equal(tw_mti_plugin_load(&p, SWITCHES, msg, sizeof msg), 0);
  assert_string_equal(tw_mti_plugin_prefix(p), "switches");
  f = tw_mti_plugin_factory(p);
  assert_non_null(f);
  assert_ptr_equal(eslapi_ObtainPointer(f, MTI_PluginFactory), f);
  assert_int_equal(f->vtbl->GetNumberOfParameters(f), 2);
  assert_int_equal(f->vtbl->GetParameterInfos(f, infos), CADI_STATUS_OK);
  assert_string_equal(infos[0].name, "file");
  assert_int_equal(infos[1].dataType, CADI_PARAM_INT);
  tw_mti_plugin_unload(p);
}

static void test_abi_mismatch_refused(void **state)
{
  struct tw_mti_plugin *p = (struct tw_mti_plugin *)1;
  (void)state;
  msg[0] = 0;
  /* The plugin's GetCAInterface() aborts: reaching the asserts below means
   * the loader never called it. */
  assert_int_equal(tw_mti_plugin_load(&p, MISMATCH, msg, sizeof msg), TW_EABI);
  assert_null(p);
  assert_non_null(strstr(msg, "libabi_mismatch.so"));
  assert_non_null(strstr(msg, "revision 2"));
  assert_non_null(strstr(msg, "supports revision 1"));
  assert_non_null(strstr(msg, "refusing"));
}

static void test_not_a_plugin(void **state)
{
  struct tw_mti_plugin *p;
  (void)state;
  assert_int_equal(tw_mti_plugin_load(&p, "libm.so.6", msg, sizeof msg), TW_EABI);
  assert_non_null(strstr(msg, "not an MTI plugin"));
  assert_int_equal(tw_mti_plugin_load(&p, PLUGIN_DIR "nonexistent.so", msg, sizeof msg),
                   TW_ENOENT);
  assert_non_null(strstr(msg, "cannot load plugin"));
}

/* ---- parameters ------------------------------------------------------------------------- */

static void test_instantiation_params(void **state)
{
  struct tw_mti_system *sys = two_cores();
  struct tw_mti_session *s;
  (void)state;
  assert_int_equal(tw_mti_session_create(&s, sys), 0);
  assert_int_equal(tw_mti_session_add_plugin(s, SWITCHES, NULL, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.switches.nope=1", msg, sizeof msg),
                   TW_ENOENT);
  assert_non_null(strstr(msg, "no parameter 'nope'"));
  assert_non_null(strstr(msg, "file, min"));
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.switches.min=-5", msg, sizeof msg),
                   TW_ERANGE);
  assert_non_null(strstr(msg, "'min': -5 is out of range [0, 1000000000]"));
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.switches.min=abc", msg, sizeof msg),
                   TW_EINVAL);
  assert_non_null(strstr(msg, "not an integer"));
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.other.min=1", msg, sizeof msg),
                   TW_ENOENT);
  assert_non_null(strstr(msg, "no plugin instance named 'other'"));
  assert_int_equal(tw_mti_session_set_param(s, "switches.min=1", msg, sizeof msg), TW_ENOENT);
  assert_non_null(strstr(msg, "expected TRACE.<instance>.<param>=value"));
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.switches.min=0x10", msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.switches.file=/dev/null", msg,
                                            sizeof msg), 0);
  assert_int_equal(tw_mti_session_add_plugin(s, SWITCHES, "switches", msg, sizeof msg),
                   TW_EEXIST);
  assert_int_equal(tw_mti_session_add_plugin(s, SWITCHES, "a.b", msg, sizeof msg), TW_EINVAL);
  assert_int_equal(tw_mti_session_instantiate(s, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.switches.min=1", msg, sizeof msg),
                   TW_EBUSY);
  /* Run time: only isRunTime parameters, checked against their range. */
  assert_int_equal(tw_mti_session_set_runtime_param(s, "TRACE.switches.min=7", msg, sizeof msg),
                   0);
  assert_int_equal(tw_mti_session_set_runtime_param(s, "TRACE.switches.min=-1", msg,
                                                    sizeof msg), TW_ERANGE);
  assert_int_equal(tw_mti_session_set_runtime_param(s, "TRACE.switches.file=x", msg,
                                                    sizeof msg), TW_EINVAL);
  assert_non_null(strstr(msg, "can only be set at instantiation"));
  assert_int_equal(tw_mti_session_set_runtime_param(s, "TRACE.switches.zz=1", msg, sizeof msg),
                   TW_ENOENT);
  /* Through the interface itself. */
  {
    MTI_PluginInstance *in = tw_mti_session_instance(s, "switches");
    MTI_ParameterInterface *pi = eslapi_ObtainPointer(in, MTI_ParameterInterface);
    eslapi_CADIParameterInfo_t info[4];
    eslapi_CADIParameterValue_t v[2] = {{.parameterID = 2}, {.parameterID = 1}};
    eslapi_CADIParameterValue_t bad = {.parameterID = 99, .dataType = CADI_PARAM_INT};
    eslapi_CADIFactoryErrorMessage_t err;
    uint32_t n = 0;
    assert_non_null(pi);
    assert_ptr_equal(eslapi_ObtainPointer(pi, MTI_PluginInstance), in); /* same component */
    assert_int_equal(pi->vtbl->GetParameterInfos(pi, 0, 4, &n, info), CADI_STATUS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(pi->vtbl->GetParameterInfos(pi, 1, 4, &n, info), CADI_STATUS_OK);
    assert_int_equal(n, 1);
    assert_string_equal(info[0].name, "min");
    assert_int_equal(pi->vtbl->GetParameterInfos(pi, 3, 4, &n, info),
                     CADI_STATUS_IllegalArgument);
    assert_int_equal(pi->vtbl->GetParameterInfo(pi, "nope", info), CADI_STATUS_IllegalArgument);
    assert_int_equal(pi->vtbl->GetParameterValues(pi, 2, &n, v), CADI_STATUS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(v[0].intValue, 7);
    assert_string_equal(v[1].stringValue, "/dev/null");
    assert_int_equal(pi->vtbl->SetParameterValues(pi, 1, &bad, &err),
                     CADI_STATUS_IllegalArgument);
    assert_int_equal(err.erroneousParameterId, 99);
    assert_non_null(strstr(err.message, "no parameter with id 99"));
    bad = (eslapi_CADIParameterValue_t){.parameterID = 2, .dataType = CADI_PARAM_BOOL};
    assert_int_equal(pi->vtbl->SetParameterValues(pi, 1, &bad, &err),
                     CADI_STATUS_IllegalArgument);
    assert_non_null(strstr(err.message, "expected a int value"));
    bad.parameterID = 99;
    assert_int_equal(pi->vtbl->GetParameterValues(pi, 1, &n, &bad), CADI_STATUS_IllegalArgument);
    assert_int_equal(n, 0);
  }
  tw_mti_session_destroy(s);
  tw_mti_system_destroy(sys);
}

/* ---- the switches plugin, two instances ------------------------------------------------- */

static void run_switch_scenario(struct tw_mti_system *sys)
{
  assert_int_equal(tw_mti_system_start(sys), 0);
  feed(sys, fx_name(TW_OBJ_TASK, 1, 1, "main"), 0);
  for (int i = 0; i < 5; i++) {
    feed(sys, fx_ev(FX_TASK_SWITCH, 1, 0, 0), 0);
    feed(sys, fx_ev(FX_TASK_SWITCH, 2, 0, 0), 0);
  }
  feed(sys, fx_ev(FX_TASK_SWITCH, 0xFFFE, 0, 0), 0);
  feed(sys, fx_ev(FX_TASK_SWITCH, 0xFFFF, 0, 0), 0);
  feed(sys, fx_ev(FX_TASK_SWITCH, 3, 0, 0), 0);
  feed(sys, fx_ev(FX_TASK_SWITCH, 7, 0, 0), 1);
  feed(sys, fx_ev(FX_MUTEX, 7, 1, 0), 1); /* not a switch */
  assert_int_equal(tw_mti_system_stop(sys), 0);
}

static void test_switches_two_instances(void **state)
{
  struct tw_mti_system *sys = two_cores();
  struct tw_mti_session *s;
  char fa[64], fb[64], pa[128], pb[128];
  char *a, *b;
  (void)state;
  tmpname(fa, sizeof fa, "a");
  tmpname(fb, sizeof fb, "b");
  snprintf(pa, sizeof pa, "TRACE.switches.file=%s", fa);
  snprintf(pb, sizeof pb, "TRACE.busy.file=%s", fb);
  assert_int_equal(tw_mti_session_create(&s, sys), 0);
  assert_int_equal(tw_mti_session_add_plugin(s, SWITCHES, NULL, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_add_plugin(s, SWITCHES, "busy", msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, pa, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, pb, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.busy.min=2", msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_instantiate(s, msg, sizeof msg), 0);
  {
    MTI_PluginInstance *i1 = tw_mti_session_instance(s, "switches");
    MTI_PluginInstance *i2 = tw_mti_session_instance(s, "busy");
    assert_non_null(i1);
    assert_non_null(i2);
    assert_ptr_not_equal(i1, i2);
    assert_string_equal(i1->vtbl->GetName(i1), "switches");
    assert_string_equal(i2->vtbl->GetName(i2), "busy");
    assert_null(tw_mti_session_instance(s, "nope"));
  }
  run_switch_scenario(sys);
  tw_mti_session_destroy(s); /* Release writes the reports */
  a = slurp(fa);
  b = slurp(fb);
  assert_string_equal(a, "switches board.cpu0: 13 switches, 2 interrupt entries/exits\n"
                         "switches board.cpu0: task 1 main 5\n"
                         "switches board.cpu0: task 2 - 5\n"
                         "switches board.cpu0: task 3 - 1\n"
                         "switches board.cpu1: 1 switches, 0 interrupt entries/exits\n"
                         "switches board.cpu1: task 7 - 1\n");
  assert_string_equal(b, "busy board.cpu0: 13 switches, 2 interrupt entries/exits\n"
                         "busy board.cpu0: task 1 main 5\n"
                         "busy board.cpu0: task 2 - 5\n"
                         "busy board.cpu1: 1 switches, 0 interrupt entries/exits\n");
  free(a);
  free(b);
  remove(fa);
  remove(fb);
  tw_mti_system_destroy(sys);
}

/* ---- the fieldprint plugin ------------------------------------------------------------------ */

static void test_fieldprint_mask(void **state)
{
  struct tw_mti_system *sys = two_cores();
  struct tw_mti_session *s;
  char fo[64], p[128], *out;
  (void)state;
  tmpname(fo, sizeof fo, "fp");
  snprintf(p, sizeof p, "TRACE.fp.file=%s", fo);
  assert_int_equal(tw_mti_session_create(&s, sys), 0);
  assert_int_equal(tw_mti_session_add_plugin(s, FIELDPRINT, "fp", msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, p, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.fp.sources=MUTEX,NAME", msg, sizeof msg), 0);
  /* MUTEX: task, type; NAME: kind, number (bits 0 and 2). */
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.fp.mask=0x5", msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.fp.mask=0x100000000", msg, sizeof msg),
                   TW_ERANGE);
  assert_int_equal(tw_mti_session_instantiate(s, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_system_start(sys), 0);
  feed(sys, fx_ev(FX_MUTEX, 3, 9, 4), 0);
  feed(sys, fx_ev(FX_TASK_SWITCH, 3, 0, 0), 0); /* not selected */
  feed(sys, fx_name(TW_OBJ_SEM, 0, 12, "rx"), 1);
  assert_int_equal(tw_mti_session_set_runtime_param(s, "TRACE.fp.enabled=false", msg,
                                                    sizeof msg), 0);
  feed(sys, fx_ev(FX_MUTEX, 3, 9, 1), 0); /* paused */
  assert_int_equal(tw_mti_session_set_runtime_param(s, "TRACE.fp.enabled=maybe", msg,
                                                    sizeof msg), TW_EINVAL);
  assert_int_equal(tw_mti_session_set_runtime_param(s, "TRACE.fp.mask=1", msg, sizeof msg),
                   TW_EINVAL);
  assert_int_equal(tw_mti_session_set_runtime_param(s, "TRACE.fp.enabled=1", msg, sizeof msg),
                   0);
  feed(sys, fx_ev(FX_MUTEX, 4, 9, 0), 1);
  assert_int_equal(tw_mti_system_stop(sys), 0);
  tw_mti_session_destroy(s);
  out = slurp(fo);
  assert_string_equal(out, "fp board.cpu0 MUTEX task=3 type=Block\n"
                           "fp board.cpu1 NAME kind=3 number=12\n"
                           "fp board.cpu1 MUTEX task=4 type=Lock\n");
  free(out);
  remove(fo);
  tw_mti_system_destroy(sys);
}

static void test_fieldprint_bad_source(void **state)
{
  struct tw_mti_system *sys = two_cores();
  struct tw_mti_session *s;
  (void)state;
  assert_int_equal(tw_mti_session_create(&s, sys), 0);
  assert_int_equal(tw_mti_session_add_plugin(s, FIELDPRINT, NULL, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.fieldprint.sources=MUTEX,Nope", msg,
                                            sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.fieldprint.file=/dev/null", msg,
                                            sizeof msg), 0);
  assert_int_equal(tw_mti_session_instantiate(s, msg, sizeof msg), TW_EINVAL);
  assert_non_null(strstr(msg, "instance fieldprint: RegisterSimulation failed"));
  tw_mti_session_destroy(s);
  tw_mti_system_destroy(sys);
}

/* Plugins and instances without a session: two instances of one loaded
 * plugin, each with its own parameters. */
static void test_direct_instances(void **state)
{
  struct tw_mti_system *sys = two_cores();
  struct tw_mti_plugin *p;
  MTI_PluginInstance *a, *b;
  const char *pa[] = {"file=/dev/null", "min=3", "min=4"};
  const char *bad[] = {"min=3", "file"};
  (void)state;
  assert_int_equal(tw_mti_plugin_load(&p, SWITCHES, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_plugin_instantiate(p, "x", bad, 2, &a, msg, sizeof msg), TW_EINVAL);
  assert_null(a);
  assert_non_null(strstr(msg, "expected param=value"));
  assert_int_equal(tw_mti_plugin_instantiate(p, "x", pa, 3, &a, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_plugin_instantiate(p, "y", pa, 1, &b, msg, sizeof msg), 0);
  {
    MTI_ParameterInterface *pi = eslapi_ObtainPointer(a, MTI_ParameterInterface);
    eslapi_CADIParameterValue_t v = {.parameterID = 2};
    uint32_t n;
    assert_int_equal(pi->vtbl->GetParameterValues(pi, 1, &n, &v), CADI_STATUS_OK);
    assert_int_equal(v.intValue, 4); /* the later assignment wins */
    pi = eslapi_ObtainPointer(b, MTI_ParameterInterface);
    assert_int_equal(pi->vtbl->GetParameterValues(pi, 1, &n, &v), CADI_STATUS_OK);
    assert_int_equal(v.intValue, 0); /* default */
  }
  assert_int_equal(a->vtbl->RegisterSimulation(a, tw_mti_system_simulation(sys)), CADI_STATUS_OK);
  assert_int_equal(b->vtbl->RegisterSimulation(b, tw_mti_system_simulation(sys)), CADI_STATUS_OK);
  a->vtbl->Release(a);
  b->vtbl->Release(b);
  tw_mti_plugin_unload(p);
  tw_mti_system_destroy(sys);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_load_and_factory),
    cmocka_unit_test(test_abi_mismatch_refused),
    cmocka_unit_test(test_not_a_plugin),
    cmocka_unit_test(test_instantiation_params),
    cmocka_unit_test(test_switches_two_instances),
    cmocka_unit_test(test_fieldprint_mask),
    cmocka_unit_test(test_fieldprint_bad_source),
    cmocka_unit_test(test_direct_instances),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
