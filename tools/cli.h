/* Shared by the `tracewire` subcommands: the command table, exit codes,
 * diagnostics on stderr, number parsing. */
#ifndef TRACEWIRE_TOOLS_CLI_H
#define TRACEWIRE_TOOLS_CLI_H

#include <stdio.h>
#include "tracewire/trace/input.h"

/* Exit codes (docs/cli.md). */
#define TW_EXIT_OK 0
#define TW_EXIT_ERROR 1    /* could not do the job: I/O, unreadable input */
#define TW_EXIT_USAGE 2    /* bad command line */
#define TW_EXIT_DAMAGED 3  /* done, but the input had damage (reported on stderr) */

#define TW_COMMAND(name, summary)                \
  int tw_cli_##name(int argc, char **argv);      \
  void tw_cli_##name##_help(FILE *f);
#include "commands.def"
#undef TW_COMMAND

/* Traces are read through tracewire/trace/input.h; its failures are
 * already said and come back as the exit status for them. */
_Static_assert(TW_INPUT_REPORTED == TW_EXIT_ERROR, "a reported input failure is exit status 1");

/* Exit status for a finished trace run. */
int cli_trace_status(const struct tw_input *t);
/* -1 (said on stderr, naming cmd) when standard output is the file at
 * path (the shell's >> onto the trace): the results would be written into
 * the input. 0 otherwise. */
int cli_stdout_not_input(const char *cmd, const char *path);
/* rc, or TW_EXIT_ERROR (said on stderr, naming cmd) when something written
 * to standard output did not get there (/dev/full, a closed pipe). */
int cli_stdout_status(const char *cmd, int rc);

/* A name the target sent, as print escapes it (tw_text_escape(): no byte
 * of it can end the line or reach the terminal as a control). */
size_t cli_put_name(FILE *f, const char *s); /* returns the bytes written */
/* Text for a terminal (analyze's and summary's reports, which quote the
 * target's names as they are): UTF-8 and newlines kept; control bytes
 * (C0 but newline and tab, DEL, C1) and bytes of invalid UTF-8 written as
 * \xNN, so a name cannot move the cursor, recolour or retitle a terminal. */
void cli_put_text(FILE *f, const char *s, size_t n);

void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line on stderr as it is (no "tracewire: " before it). */
void cli_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* While fn is set, cli_err and cli_msg lines go to it instead of stderr
 * (a full-screen view keeps them: tools/live_ui.c). NULL: stderr again. */
void cli_set_sink(void (*fn)(void *ctx, const char *line), void *ctx);
/* "1.5" -> ns: digits with an optional fraction, up to 1.8e10 s; -1 for
 * anything else (a sign, an exponent, inf, nan, spaces, a suffix). */
long long cli_parse_seconds(const char *s);
/* "N", "NK", "NM", "NG" (decimal, powers of 1024) -> bytes; 0 for anything
 * else, including 0 itself and values that overflow. */
unsigned long long cli_parse_size(const char *s);
/* Decimal digits only (no sign, space or suffix) within [min, max] -> *out;
 * -1 for anything else. */
int cli_parse_uint(const char *s, unsigned long long min, unsigned long long max,
                   unsigned long long *out);
/* The same, also "0x" and hex digits (masks, seeds, tick counts). */
int cli_parse_num(const char *s, unsigned long long min, unsigned long long max,
                  unsigned long long *out);
/* An option's number: cli_parse_num() within [min, max], or a usage error
 * naming the command, the option and the range on stderr, and -1. */
int cli_opt_num(const char *cmd, const char *opt, const char *arg, unsigned long long min,
                unsigned long long max, unsigned long long *out);
/* An option's seconds (cli_parse_seconds) or the usage error, -1. */
int cli_opt_seconds(const char *cmd, const char *opt, const char *arg, long long *ns);
/* --window N of print, export, run: 1..TW_MERGE_MAX_WINDOW; otherwise a
 * usage error naming the option on stderr and -1. */
int cli_parse_window(const char *cmd, const char *arg, size_t *out);

/* A progress line on stderr for long work, only when stderr is a terminal
 * (and not -q): "WHAT [####......]  42% 1.2 GB of 2.9 GB". The callback
 * fits tw_input.on_progress and tw_twt_reindex.on_progress. */
struct cli_progress {
  const char *what;
  int on, shown;
};
void cli_progress_init(struct cli_progress *p, const char *what, int quiet);
void cli_progress(void *ctx, unsigned long long done, unsigned long long total);
/* Clears the line (the results follow on stdout, messages on stderr). */
void cli_progress_end(struct cli_progress *p);
/* Shows progress for a trace run (sets t->on_progress when on). */
void cli_progress_input(struct cli_progress *p, struct tw_input *t, const char *what, int quiet);

#endif
