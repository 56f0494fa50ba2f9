#include "export_internal.h"
static int o(struct tw_export *x) { (void)x; return 0; }
static int e(struct tw_export *x, const struct tw_event *ev) { (void)x; (void)ev; return 0; }
static void fr(struct tw_export *x) { (void)x; }
const struct tw__export_ops tw__export_json = {"json", o, e, o, fr};
