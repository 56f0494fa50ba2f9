/* Helpers shared by the subcommands (see cli.h). Reading a trace is the
 * library's (src/trace/input.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "tracewire/io/file.h"
#include "tracewire/wire/format.h"
#include "tracewire/wire/merge.h"
#include "tracewire/wire/utf8.h"

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
  const char *p = s;
  int digits = 0;
  while (*p >= '0' && *p <= '9')
    p++, digits++;
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++)
      digits++;
  if (!digits || *p)
    return -1; /* strtod would take "-1", " 1", "1e3", "inf", "nan", "0x1p3" */
  double v = strtod(s, NULL);
  if (!(v >= 0 && v <= 1.8e10))
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

int cli_parse_num(const char *s, unsigned long long min, unsigned long long max,
                  unsigned long long *out)
{
  char *end;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    const char *h = s + 2;
    if (!((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f') || (*h >= 'A' && *h <= 'F')))
      return -1;
    errno = 0;
    unsigned long long v = strtoull(h, &end, 16);
    if (*end || errno == ERANGE || v < min || v > max)
      return -1;
    *out = v;
    return 0;
  }
  return cli_parse_uint(s, min, max, out);
}

int cli_opt_num(const char *cmd, const char *opt, const char *arg, unsigned long long min,
                unsigned long long max, unsigned long long *out)
{
  if (cli_parse_num(arg, min, max, out) == 0)
    return 0;
  cli_err("%s: %s '%s': want a number from %llu to %llu (decimal, or hex with 0x)", cmd, opt, arg,
          min, max);
  return -1;
}

int cli_opt_seconds(const char *cmd, const char *opt, const char *arg, long long *ns)
{
  if ((*ns = cli_parse_seconds(arg)) >= 0)
    return 0;
  cli_err("%s: %s '%s': want seconds, e.g. 2 or 0.5", cmd, opt, arg);
  return -1;
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
  if (!t->damage)
    return TW_EXIT_OK;
  /* exit status 3 is never silent: with the per-problem lines off, one
   * line says why (print lists them) */
  if (t->damage > t->damage_said)
    cli_err("%s: the input is damaged: %llu problem%s (skipped bytes, bad records, a cut "
            "file; 'tracewire print' lists them on stderr)", t->path, t->damage,
            t->damage == 1 ? "" : "s");
  return TW_EXIT_DAMAGED;
}

int cli_stdout_not_input(const char *cmd, const char *path)
{
  struct tw_file_id id;
  char err[400];
  tw_file_guard(path, &id);
  int rc = tw_file_check_output("-", err, sizeof err);
  tw_file_unguard(&id);
  if (rc == 0)
    return 0;
  cli_err("%s: %s", cmd, err);
  return -1;
}

int cli_stdout_status(const char *cmd, int rc)
{
  errno = 0;
  int bad = fflush(stdout) != 0 || ferror(stdout);
  if (!bad)
    return rc;
  cli_err("%s: writing the output failed%s%s", cmd, errno ? ": " : "", errno ? strerror(errno) : "");
  return TW_EXIT_ERROR;
}

void cli_progress_init(struct cli_progress *p, const char *what, int quiet)
{
  p->what = what;
  p->on = !quiet && isatty(2);
  p->shown = 0;
}

static void human_bytes(char *buf, size_t cap, unsigned long long n)
{
  if (n >= 1000000000ull)
    snprintf(buf, cap, "%.1f GB", (double)n / 1e9);
  else if (n >= 1000000ull)
    snprintf(buf, cap, "%.1f MB", (double)n / 1e6);
  else
    snprintf(buf, cap, "%llu bytes", n);
}

void cli_progress(void *ctx, unsigned long long done, unsigned long long total)
{
  struct cli_progress *p = ctx;
  char a[32], b[32], bar[41];
  if (!p->on)
    return;
  human_bytes(a, sizeof a, done);
  if (total) {
    unsigned pct = done >= total ? 100 : (unsigned)(done * 100 / total);
    memset(bar, '#', pct * 40 / 100);
    memset(bar + pct * 40 / 100, '.', 40 - pct * 40 / 100);
    bar[40] = 0;
    human_bytes(b, sizeof b, total);
    fprintf(stderr, "\r\033[K%s [%s] %3u%% %s of %s", p->what, bar, pct, a, b);
  } else {
    fprintf(stderr, "\r\033[K%s: %s read", p->what, a);
  }
  p->shown = 1;
}

void cli_progress_end(struct cli_progress *p)
{
  if (p->shown)
    fputs("\r\033[K", stderr);
  p->shown = 0;
}

void cli_progress_input(struct cli_progress *p, struct tw_input *t, const char *what, int quiet)
{
  cli_progress_init(p, what, quiet);
  if (p->on) {
    t->on_progress = cli_progress;
    t->progress_ctx = p;
  }
}

size_t cli_put_name(FILE *f, const char *s)
{
  char small[256], *big;
  size_t n = strlen(s), need = tw_text_escape(small, sizeof small, s, n);
  if (need < sizeof small) {
    fputs(small, f);
    return need;
  }
  if (!(big = malloc(need + 1))) {
    cli_err("out of memory for a %zu-byte name", n);
    fputs("?", f);
    return 1;
  }
  tw_text_escape(big, need + 1, s, n);
  fputs(big, f);
  free(big);
  return need;
}

void cli_put_text(FILE *f, const char *s, size_t n)
{
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    int k = tw__utf8_step(p + i, n - i);
    int ctl = k == 1 && ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7F);
    int c1 = k == 2 && p[i] == 0xC2 && p[i + 1] < 0xA0; /* U+0080..U+009F */
    if (k > 0 && !ctl && !c1) {
      fwrite(p + i, 1, (size_t)k, f);
      i += (size_t)k;
      continue;
    }
    size_t m = k < 0 ? (size_t)-k : (size_t)k;
    for (size_t j = 0; j < m; j++)
      fprintf(f, "\\x%02x", p[i + j]);
    i += m;
  }
}
