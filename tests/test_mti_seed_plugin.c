/*
 * A plugin written to the MTI manual (tests/plugins/seed_mti_plugin.c: the
 * seed's header names and function names, GetCAInterface its only export,
 * no tracewire ABI stamp) compiles unchanged, loads, and sees the trace
 * (issue 18). Loaded directly and through a session, like any plugin.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "mti_fixture.h"
#include "tracewire/error.h"

#define SEED_PLUGIN TW_BINARY_DIR "/tests/plugins/libseed_mti_plugin.so"

static char msg[512];

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "r");
  char *buf = calloc(1, 4096);
  assert_non_null(f);
  assert_non_null(buf);
  assert_true(fread(buf, 1, 4095, f) < 4095);
  fclose(f);
  return buf;
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

/* What the seed prescribes: one exported function, no stamp. */
static void test_only_get_ca_interface_exported(void **state)
{
  (void)state;
  void *dl = dlopen(SEED_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(dl);
  assert_non_null(dlsym(dl, "GetCAInterface"));
  assert_null(dlsym(dl, TW_MTI_PLUGIN_ABI_SYMBOL));
  assert_null(dlsym(dl, "tw_mti_params_init")); /* no tracewire code in it */
  dlclose(dl);
}

static void test_seed_plugin_loads_and_counts(void **state)
{
  struct tw_mti_system *sys = two_cores();
  struct tw_mti_session *s;
  char path[64], assign[128];
  (void)state;
  snprintf(path, sizeof path, "seed_plugin_%ld.txt", (long)getpid());
  snprintf(assign, sizeof assign, "TRACE.seed.file=%s", path);
  assert_int_equal(tw_mti_session_create(&s, sys), 0);
  assert_int_equal(tw_mti_session_add_plugin(s, SEED_PLUGIN, "seed", msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, assign, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_instantiate(s, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_system_start(sys), 0);
  feed(sys, fx_ev(FX_MUTEX, 1, 7, 0), 0); /* Lock */
  feed(sys, fx_ev(FX_MUTEX, 1, 7, 1), 0); /* Unlock */
  feed(sys, fx_ev(FX_MUTEX, 2, 7, 0), 0);
  feed(sys, fx_ev(FX_MUTEX, 2, 7, 4), 1); /* Block, core 1 */
  feed(sys, fx_ev(FX_SEM, 3, 1, 0), 0);   /* not a mutex */
  assert_int_equal(tw_mti_system_stop(sys), 0);
  tw_mti_session_destroy(s);
  char *out = slurp(path);
  char want[512];
  int nsrc = (int)FX_NDESCS + 3; /* the vocabulary plus TASKS, MUTEXES, SEMAPHORES */
  snprintf(want, sizeof want,
           "seed board.cpu0: %d sources, 3 MUTEX events, Lock 2, Unlock 1 (type has 5 constants)\n"
           "seed board.cpu1: %d sources, 1 MUTEX events, Block 1 (type has 5 constants)\n",
           nsrc, nsrc);
  assert_string_equal(out, want);
  free(out);
  unlink(path);
  tw_mti_system_destroy(sys);
}

/* A stamp that is there still has to match: a plugin without GetCAInterface
 * and without the stamp is no plugin. */
static void test_neither_symbol_is_refused(void **state)
{
  struct tw_mti_plugin *p;
  (void)state;
  assert_int_equal(tw_mti_plugin_load(&p, "libm.so.6", msg, sizeof msg), TW_EABI);
  assert_non_null(strstr(msg, "not an MTI plugin"));
  assert_non_null(strstr(msg, "GetCAInterface"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_only_get_ca_interface_exported),
    cmocka_unit_test(test_seed_plugin_loads_and_counts),
    cmocka_unit_test(test_neither_symbol_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
