/* The live view of `tracewire record --live` and `tracewire top`
 * (docs/live.md): the terminal side. What it shows comes from the live
 * analysis (tracewire/analysis/live.h) and the recorder's own counters;
 * this file only draws: full screen with ncurses when stdout is a
 * terminal, periodic plain lines when it is not. */
#ifndef TRACEWIRE_TOOLS_LIVE_UI_H
#define TRACEWIRE_TOOLS_LIVE_UI_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "tracewire/analysis/live.h"

/* The recorder's counters, all sources, since the start. */
struct live_link {
  unsigned long long bytes, packets, events;
  unsigned long long ring, transport, unexplained; /* events lost, by cause */
};

struct live_ui_cfg {
  const char *from;          /* what is recorded (the first source; "+N" said for more) */
  size_t sources;
  const char *out;           /* the trace file */
  uint64_t starve_ns;
  int plain;                 /* plain lines even on a terminal */
};

struct live_ui;

/* Starts the live analysis and, on a terminal, the full-screen view. While
 * it is up, the tools' messages (cli_err, cli_msg) are kept and shown on
 * its last line, and printed in full when it closes. 0, or -1 (said). */
int live_ui_open(struct live_ui **out, const struct live_ui_cfg *cfg);
struct tw_live *live_ui_live(struct live_ui *ui);
/* Called from the recording loop as often as it likes (cheap: it acts
 * every 50 ms of now, in ns): keys, and a redraw a few times a second.
 * Returns 1 when the user asked to stop (q). */
int live_ui_tick(struct live_ui *ui, unsigned long long now, const struct live_link *lk);
/* The recording is over (why: "stopped (q)", "every source ended", ...;
 * the trace is closed): the last analysis is shown. On a terminal the
 * view stays until q or *interrupt unless no_wait (the user stopped the
 * recording with q, or no --linger); plain mode prints a last report. */
void live_ui_end(struct live_ui *ui, const struct live_link *lk, const char *why, int no_wait,
                 volatile sig_atomic_t *interrupt);
void live_ui_close(struct live_ui *ui);

#endif
