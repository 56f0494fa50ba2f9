/*
 * The mti_simple helper as the built-in plugins use it: factories from
 * TW_MTI_FACTORY_INIT (no exported entry points), several descs sharing
 * hooks told apart by desc->data, and tw_mti_instance_of() finding an
 * instance's state only for the desc that made it. The last matters to
 * tw_an_plugin_engine() / tw_export_plugin_exporter(): every helper
 * instance shares one vtbl, so a vtbl check alone would accept another
 * plugin's instance.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "tracewire/analysis/analysis.h"
#include "tracewire/export/export.h"
#include "tracewire/mti_plugin.h"

struct seen {
  const char *label;
  int instantiated, released;
};

struct st {
  struct seen *seen;
  int64_t n;
};

static int hook_instantiate(struct tw_mti_instance *in)
{
  struct st *s = in->state;
  s->seen = in->desc->data;
  s->n = tw_mti_instance_int(in, "n");
  s->seen->instantiated++;
  return s->n == 13 ? -1 : 0; /* refuse one value, to see the failure path */
}

static void hook_release(struct tw_mti_instance *in)
{
  ((struct st *)in->state)->seen->released++;
}

static const eslapi_CADIParameterInfo_t params[] = {
  {.id = 1, .name = "n", .dataType = CADI_PARAM_INT, .minValue = 0, .maxValue = 100,
   .defaultValue = 7},
};

static struct seen seen_a = {"a", 0, 0}, seen_b = {"b", 0, 0};

#define DESC(pfx, d)                                                                          \
  {.prefix = pfx, .params = params, .nparams = 1, .state_size = sizeof(struct st),           \
   .instantiate = hook_instantiate, .release = hook_release, .data = &(d)}
static const struct tw_mti_plugin_desc desc_a = DESC("plug_a", seen_a);
static const struct tw_mti_plugin_desc desc_b = DESC("plug_b", seen_b);
static struct tw_mti_factory fac_a = TW_MTI_FACTORY_INIT(desc_a);
static struct tw_mti_factory fac_b = TW_MTI_FACTORY_INIT(desc_b);

static MTI_PluginInstance *make(struct tw_mti_factory *f, const char *name, int64_t n)
{
  eslapi_CADIParameterValue_t v = {.parameterID = 1, .dataType = CADI_PARAM_INT, .intValue = n};
  return eslapi_ObtainPointer(f->base.vtbl->Instantiate(&f->base, name, 1, &v),
                              MTI_PluginInstance);
}

static void test_shared_hooks_see_their_desc(void **state)
{
  (void)state;
  assert_string_equal(fac_a.base.vtbl->GetPrefix(&fac_a.base), "plug_a");
  assert_string_equal(fac_b.base.vtbl->GetPrefix(&fac_b.base), "plug_b");
  MTI_PluginInstance *a = make(&fac_a, NULL, 5), *b = make(&fac_b, "bee", 9);
  assert_non_null(a);
  assert_non_null(b);
  assert_string_equal(a->vtbl->GetName(a), "plug_a"); /* no name: the prefix */
  assert_string_equal(b->vtbl->GetName(b), "bee");
  struct tw_mti_instance *ia = tw_mti_instance_of(a, &desc_a);
  struct tw_mti_instance *ib = tw_mti_instance_of(b, &desc_b);
  assert_ptr_equal(ia, (struct tw_mti_instance *)a);
  assert_ptr_equal(ib, (struct tw_mti_instance *)b);
  assert_ptr_equal(((struct st *)ia->state)->seen, &seen_a);
  assert_ptr_equal(((struct st *)ib->state)->seen, &seen_b);
  assert_int_equal(((struct st *)ia->state)->n, 5);
  assert_int_equal(((struct st *)ib->state)->n, 9);
  assert_int_equal(seen_a.instantiated, 1);
  assert_int_equal(seen_b.instantiated, 1);
  a->vtbl->Release(a);
  b->vtbl->Release(b);
  assert_int_equal(seen_a.released, 1);
  assert_int_equal(seen_b.released, 1);
}

static void test_instance_of_rejects_others(void **state)
{
  (void)state;
  MTI_PluginInstance *a = make(&fac_a, "a", 1);
  assert_non_null(a);
  assert_null(tw_mti_instance_of(a, &desc_b)); /* same vtbl, other desc */
  assert_null(tw_mti_instance_of(NULL, &desc_a));
  /* The built-in plugins' lookups refuse an instance that is not theirs. */
  assert_null(tw_an_plugin_engine(a));
  assert_null(tw_export_plugin_exporter(a));
  MTI_PluginFactory *an = tw_an_plugin_factory(), *ex = tw_export_plugin_factory("ctf");
  eslapi_CADIParameterValue_t nofile = {.parameterID = 3, .dataType = CADI_PARAM_STRING};
  MTI_PluginInstance *ai = eslapi_ObtainPointer(an->vtbl->Instantiate(an, "an", 1, &nofile),
                                                MTI_PluginInstance);
  MTI_PluginInstance *xi = eslapi_ObtainPointer(ex->vtbl->Instantiate(ex, "x", 0, NULL),
                                                MTI_PluginInstance);
  assert_non_null(ai);
  assert_non_null(xi);
  assert_null(tw_an_plugin_engine(ai)); /* made on the simulation's model... */
  struct tw_mti_system *sys;
  assert_int_equal(tw_mti_system_create(&sys, tw_event_descs, tw_event_ndescs), 0);
  assert_int_equal(ai->vtbl->RegisterSimulation(ai, tw_mti_system_simulation(sys)),
                   CADI_STATUS_OK);
  assert_non_null(tw_an_plugin_engine(ai)); /* ...at RegisterSimulation */
  assert_null(tw_an_plugin_engine(xi));
  assert_null(tw_export_plugin_exporter(ai));
  assert_null(tw_export_plugin_exporter(xi)); /* none before RegisterSimulation */
  assert_null(tw_mti_instance_of(ai, &desc_a));
  xi->vtbl->Release(xi);
  assert_int_equal(tw_export_plugin_status("ctf", NULL, 0), 0);
  ai->vtbl->Release(ai); /* file "": writes nothing */
  tw_mti_system_destroy(sys);
  a->vtbl->Release(a);
}

static void test_refused_instance_is_not_released(void **state)
{
  (void)state;
  int inst = seen_a.instantiated, rel = seen_a.released;
  assert_null(make(&fac_a, "r", 13));
  assert_int_equal(seen_a.instantiated, inst + 1);
  assert_int_equal(seen_a.released, rel); /* the helper frees it; no Release hook */
  assert_null(make(&fac_a, "r", 101)); /* out of range: refused before the hook */
  assert_int_equal(seen_a.instantiated, inst + 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_shared_hooks_see_their_desc),
    cmocka_unit_test(test_instance_of_rejects_others),
    cmocka_unit_test(test_refused_instance_is_not_released),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
