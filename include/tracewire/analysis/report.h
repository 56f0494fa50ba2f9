/*
 * The self-contained HTML report (docs/analyses.md, "Report"): one file
 * with the page's script, style and data inline, no network access. A
 * tw_report is an observer of the analysis engine (tw_an_observe with
 * tw_report_item): it numbers lanes (task, interrupt, mutex, semaphore,
 * ... per core), spools timeline items to temporary files, and
 * accumulates level-of-detail bins (busy time and event counts per lane in
 * TW_REPORT_BINS bins over the trace's range) so the page draws a
 * zoomed-out view of any trace length from bins and switches to the
 * individual events and state intervals when few enough are visible.
 *
 * Memory: the bins and the lane table; the items go to disk (tmpfile).
 * The page embeds at most max_detail events and max_detail intervals (the
 * first ones); the bins always cover the whole trace.
 *
 * Context: one thread; not reentrant.
 */
#ifndef TRACEWIRE_ANALYSIS_REPORT_H
#define TRACEWIRE_ANALYSIS_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "tracewire/analysis/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TW_REPORT_BINS 4096

struct tw_report_cfg {
  uint64_t t0, t1;          /* the trace's time range (ns); bins span it */
  uint64_t max_detail;      /* 0: 2,000,000 */
  const char *title;        /* page title (the trace's path) */
};

struct tw_report;

int tw_report_open(struct tw_report **out, const struct tw_report_cfg *cfg);
void tw_report_close(struct tw_report *r);
/* The observer (ctx is the tw_report). */
void tw_report_item(void *ctx, const struct tw_an_item *it);
/* Writes the page: the engine's results (finished) and the spooled items.
 * Returns 0 or a negative TW_E* (TW_EIO on a write error). */
int tw_report_write(struct tw_report *r, const struct tw_an *an, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
