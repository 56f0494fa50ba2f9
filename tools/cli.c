/* Helpers shared by the subcommands (see cli.h). Reading a trace is the
 * library's (src/trace/input.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tracewire/wire/merge.h"

static void (*sink)(void *ctx, const char *line);
static void *sink_ctx;

void cli_set_sink(void (*fn)(void *ctx, const char *line), void *ctx)
{
  sink = fn;
  sink_ctx = ctx;
}

static void say(const char *prefix, const char *fmt, va_list ap)
{
  if (sink) { /* a full-screen view is up: it keeps the line */
    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "%s", prefix);
    vsnprintf(line + n, sizeof line - n, fmt, ap);
    sink(sink_ctx, line);
    return;
  }
  fputs(prefix, stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void cli_err(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  say("tracewire: ", fmt, ap);
  va_end(ap);
}

void cli_msg(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  say("", fmt, ap);
  va_end(ap);
}

long long cli_parse_seconds(const char *s)
{
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || v < 0 || v > 1.8e10)
    return -1;
  return (long long)(v * 1e9 + 0.5);
}

unsigned long long cli_parse_size(const char *s)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  unsigned shift = 0;
  switch (*end) {
  case 'K': case 'k': shift = 10; break;
  case 'M': case 'm': shift = 20; break;
  case 'G': case 'g': shift = 30; break;
  default: break;
  }
  if (shift)
    end++;
  if (end == s || *end || *s == '-' || errno == ERANGE || v > (~0ull >> shift))
    return 0;
  return v << shift;
}

int cli_parse_uint(const char *s, unsigned long long min, unsigned long long max,
                   unsigned long long *out)
{
  char *end;
  if (*s < '0' || *s > '9')
    return -1; /* strtoull would take a sign (and negate) or spaces */
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno == ERANGE || v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

int cli_parse_window(const char *cmd, const char *arg, size_t *out)
{
  unsigned long long v;
  if (cli_parse_uint(arg, 1, TW_MERGE_MAX_WINDOW, &v) < 0) {
    cli_err("%s: --window '%s': want a number of events from 1 to %u", cmd, arg,
            TW_MERGE_MAX_WINDOW);
    return -1;
  }
  *out = (size_t)v;
  return 0;
}

int cli_trace_status(const struct tw_input *t)
{
  return t->damage ? TW_EXIT_DAMAGED : TW_EXIT_OK;
}
