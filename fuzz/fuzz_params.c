/*
 * libFuzzer target: the plugin parameter parser, end to end: the
 * "TRACE.<instance>.<param>=value" split (src/model/mti_session.c), the
 * lookup of the parameter in the plugin's declared table, the value parse
 * and range check (src/model/mti_params.c), at queue time and at run time
 * through an instantiated plugin's MTI_ParameterInterface.
 *
 * Input: assignments separated by '\n'. The example plugins (built with
 * the tree: examples/plugins) declare string, int (ranged) and bool
 * parameters. Nothing is instantiated from fuzzed assignments: a plugin's
 * "file" parameter names a file it would create. The run-time session is
 * instantiated once with file=/dev/null; its run-time parameters
 * (enabled, min) are the only ones a plugin accepts after instantiation.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracewire/error.h"
#include "tracewire/model/mti_host.h"
#include "tracewire/vocab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SWITCHES TW_FUZZ_PLUGIN_DIR "libswitches.so"
#define FIELDPRINT TW_FUZZ_PLUGIN_DIR "libfieldprint.so"

static struct tw_mti_system *sys;
static struct tw_mti_session *live;

static void init(void)
{
  char msg[512];
  /* keep the libraries mapped between runs: a session unloads its own */
  if (!dlopen(SWITCHES, RTLD_NOW) || !dlopen(FIELDPRINT, RTLD_NOW)) {
    fprintf(stderr, "fuzz_params: %s (build examples/plugins first)\n", dlerror());
    abort();
  }
  if (tw_mti_system_create(&sys, tw_event_descs, tw_event_ndescs) < 0 ||
      tw_mti_session_create(&live, sys) < 0 ||
      tw_mti_session_add_plugin(live, SWITCHES, NULL, msg, sizeof msg) < 0 ||
      tw_mti_session_add_plugin(live, FIELDPRINT, NULL, msg, sizeof msg) < 0 ||
      tw_mti_session_set_param(live, "TRACE.switches.file=/dev/null", msg, sizeof msg) < 0 ||
      tw_mti_session_set_param(live, "TRACE.fieldprint.file=/dev/null", msg, sizeof msg) < 0 ||
      tw_mti_session_instantiate(live, msg, sizeof msg) < 0) {
    fprintf(stderr, "fuzz_params: set-up failed: %s\n", msg);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char msg[512];
  struct tw_mti_session *s;
  if (!sys)
    init();
  if (tw_mti_session_create(&s, sys) < 0 ||
      tw_mti_session_add_plugin(s, SWITCHES, NULL, msg, sizeof msg) < 0 ||
      tw_mti_session_add_plugin(s, FIELDPRINT, "fp", msg, sizeof msg) < 0)
    abort();
  size_t off = 0;
  for (int n = 0; off < size && n < 32; n++) {
    const uint8_t *nl = memchr(data + off, '\n', size - off);
    size_t len = nl ? (size_t)(nl - (data + off)) : size - off;
    char *a = malloc(len + 1); /* exact size: an overread is a finding */
    if (!a)
      abort();
    memcpy(a, data + off, len);
    a[len] = 0;
    off += len + 1;
    msg[0] = 0;
    int rc = tw_mti_session_set_param(s, a, msg, sizeof msg);
    if (rc < 0 && !msg[0])
      abort(); /* every refusal says why */
    msg[0] = 0;
    rc = tw_mti_session_set_runtime_param(live, a, msg, sizeof msg);
    if (rc < 0 && !msg[0])
      abort();
    free(a);
  }
  tw_mti_session_destroy(s);
  return 0;
}
