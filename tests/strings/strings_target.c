/*
 * tw-strings-target OUT.bin MANIFEST: the real target stack (kernel event
 * logger, streamer, POSIX port) sending the strings that used to break
 * the exporters, the way firmware would send them:
 *   - custom kinds named with a comment end, quotes, braces, non-ASCII and
 *     invalid UTF-8, with fields that collide once rewritten (a,b / a.b),
 *     repeat (x twice), are TSDL keywords (struct, Bool), start with a
 *     digit, or are names the formats add themselves (marker, seq);
 *   - task names: non-ASCII, 100 bytes, invalid UTF-8, quotes and `*\/`;
 *   - HTML that would run if a page wrote it as markup (for the report,
 *     tests/sh/report_strings.sh): a task, a mutex and a custom kind named
 *     with `</script>`, event handlers, `&`, quotes and U+2028;
 *   - string values: empty, 68 bytes, 1000 bytes (near the most one
 *     logger event carries: 255 words), controls, invalid
 *     UTF-8 (lone continuation, overlong, surrogate, past U+10FFFF, cut),
 *     valid multi-byte, a TSDL keyword, and a BLOB with NUL bytes.
 * MANIFEST lists what was sent, one line each, in hex, for
 * tests/sh/export_strings.sh: `kind ID NAME FIELD...`, `task N NAME`,
 * `value ID BYTES` (`-` for empty), `mutex N NAME`.
 *
 * tw-strings-target OUT.bin MANIFEST redeclare: instead, one custom kind
 * declared three times in one recording (tw_custom_reset, a new
 * declaration, tw_streamer_send_names: what firmware that reconfigures
 * itself does), one event under each: "Redecl a:U8 b:U16" (1, 2), then
 * "Redecl x:U32 y:U32 z:U32" (3, 4, 5), then the first again (6, 7), for
 * tests/sh/export_redeclare.sh. The clock is a counter: the same
 * bytes every run.
 */
#include <stdio.h>
#include <string.h>
#include "tracewire/events_gen.h"
#include "tracewire/klog.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"

#define EP 0x0007u
enum { K_CLASH = 40, K_BAD = 41, K_TEXT = 42, K_BLOB = 43, K_HTML = 44, K_RE = 45 };
#define HTML_MUTEX 1
static const char html_mutex[] =
    "</SCRIPT><script>document.body.dataset.pwned=3</script><!--&lt;\xe2\x80\xa8";

static FILE *out, *man;
static uint32_t fake_now = 100;
static struct tw_streamer S;

static uint32_t clock_fn(void) { return fake_now; }

static int to_file(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  return fwrite(p, 1, len, out) == len ? 0 : TW_EBUSY;
}

static void drain(void)
{
  while (tw_streamer_poll(&S, 0) > 0)
    ;
}

static void hex(const void *p, size_t n)
{
  fputc(' ', man);
  if (!n)
    fputc('-', man);
  for (size_t i = 0; i < n; i++)
    fprintf(man, "%02x", ((const unsigned char *)p)[i]);
}

/* name, then fields "name:TYPE" separated by single spaces */
static int declare(uint16_t id, const char *decl)
{
  char copy[TW_CFG_DECL_MAX], *tok, *save = NULL;
  fprintf(man, "kind %u", id);
  snprintf(copy, sizeof copy, "%s", decl);
  for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char *colon = strrchr(tok, ':');
    hex(tok, colon && tok != copy ? (size_t)(colon - tok) : strlen(tok));
  }
  fputc('\n', man);
  return tw_custom_declare(id, 1, decl);
}

static const char *const task_names[] = {
  "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
  "t100_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_",
  "bad\xff\xfe\xc0\xaf\xed\xa0\x80",
  "\"quoted\" */ {braces}, a,b\t\\",
  "</script><img src=x onerror=\"document.body.dataset.pwned=1\">&amp;'\xe2\x80\xa8\xff",
};

static char big[1000];

#define S(lit) {lit, sizeof lit - 1}
static const struct { const char *s; size_t n; } values[] = {
  S(""),
  S("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"),
  S("sixty-eight_bytes_0123456789_0123456789_0123456789_0123456789_012345"),
  {NULL, sizeof big},
  S("ctl \x01\x02\t\n\r\x1b\x7f end"),
  S("inv \x80|\xc0\xaf|\xe0\x80\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xf0\x9f\x98|\xff end"),
  S("struct"),
  S("*/ \" \\ {x} ,;"),
};

static void finish(void)
{
  tw_streamer_stop(&S, 1);
  while (tw_streamer_running(&S) || S.nwork || S.fill > TW_STREAMER_HDR_BYTES) {
    tw_streamer_poll(&S, 0);
    tw_streamer_flush(&S);
  }
}

static int redeclare(void)
{
  static const char *const decls[] = {"Redecl a:U8 b:U16", "Redecl x:U32 y:U32 z:U32",
                                      "Redecl a:U8 b:U16"};
  static const uint32_t data[][3] = {{1, 2}, {3, 4, 5}, {6, 7}};
  static const uint32_t n[] = {2, 3, 2};
  if (tw_custom_declare(K_RE, 1, decls[0]) || tw_streamer_start(&S))
    return 1;
  drain();
  for (unsigned i = 0; i < 3; i++) {
    if (i && (tw_custom_reset(), tw_custom_declare(K_RE, 1, decls[i]) ||
              tw_streamer_send_names(&S, NULL, NULL)))
      return 1;
    drain();
    fake_now += 10;
    tw_custom(K_RE, data[i], n[i]);
    drain();
  }
  finish();
  return fclose(man) == 0 && fclose(out) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
  static const char blob[] = {'a', 0, 'b', 0, 0, 'c', '\xff'};
  struct tw_streamer_cfg cfg;
  if (argc != 3 && (argc != 4 || strcmp(argv[3], "redeclare"))) {
    fprintf(stderr, "usage: tw-strings-target OUT.bin MANIFEST [redeclare]\n");
    return 2;
  }
  if (!(out = fopen(argv[1], "wb")) || !(man = fopen(argv[2], "w"))) {
    perror("tw-strings-target");
    return 1;
  }
  for (size_t i = 0; i < sizeof big; i++)
    big[i] = (char)('!' + i % 90);
  tw_klog_set_timer(clock_fn);
  tw_klog_register_collector();
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 1000000;
  cfg.send = to_file;
  cfg.endpoint = EP;
  cfg.module_id = 1;
  cfg.sync_ticks = 100000;
  cfg.initial_mask = 0xFFFFFFFFu;
  if (argc == 4)
    return tw_streamer_init(&S, &cfg) || redeclare();
  for (uint16_t t = 0; t < sizeof task_names / sizeof task_names[0]; t++) {
    fprintf(man, "task %u", t + 1);
    hex(task_names[t], strlen(task_names[t]));
    fputc('\n', man);
    if (tw_name_register(TW_OBJ_TASK, (uint16_t)(t + 1), task_names[t], 1))
      return 1;
  }
  fprintf(man, "mutex %u", HTML_MUTEX);
  hex(html_mutex, strlen(html_mutex));
  fputc('\n', man);
  if (tw_name_register(TW_OBJ_MUTEX, HTML_MUTEX, html_mutex, 0))
    return 1;
  if (tw_streamer_init(&S, &cfg) ||
      declare(K_CLASH, "*/\"{k}\\caf\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80 a,b:U8 a.b:U8 x:U16 "
                       "x:U16 struct:U8 1st:U8 Bool:U8 marker:U8") ||
      declare(K_BAD, "bad\xc0\xaf\xed\xa0\x80\x80name seq:U8 caf\xc3\xa9:U8 caf_:U8 t\tn\n:U8") ||
      declare(K_TEXT, "Text s:STR") ||
      declare(K_HTML, "</script><svg/onload=alert(2)> <b>:U8") ||
      declare(K_BLOB, "Blob b:BLOB") || tw_streamer_start(&S))
    return 1;
  drain();
  for (uint16_t t = 1; t <= sizeof task_names / sizeof task_names[0]; t++) {
    fake_now += 10;
    tw_task_switch(t);
    drain();
  }
  {
    uint32_t w[8] = {1, 2, 3, 4, 5, 6, 7, 8}, v[4] = {9, 10, 11, 12};
    fake_now += 10;
    tw_custom(K_CLASH, w, 8);
    tw_custom(K_BAD, v, 4);
    drain();
  }
  { /* the last task (HTML in its name) holds the mutex named with HTML */
    uint32_t v = 1;
    uint16_t t = sizeof task_names / sizeof task_names[0];
    fake_now += 10;
    tw_mutex(t, HTML_MUTEX, TW_MUTEX_Lock);
    tw_custom(K_HTML, &v, 1);
    fake_now += 10;
    tw_mutex(t, HTML_MUTEX, TW_MUTEX_Unlock);
    drain();
  }
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    const char *s = values[i].s ? values[i].s : big;
    fprintf(man, "value %u", K_TEXT);
    hex(s, values[i].n);
    fputc('\n', man);
    fake_now += 10;
    tw_custom_bytes(K_TEXT, s, (uint32_t)values[i].n);
    drain();
  }
  fprintf(man, "value %u", K_BLOB);
  hex(blob, sizeof blob);
  fputc('\n', man);
  tw_custom_bytes(K_BLOB, blob, sizeof blob);
  drain();
  finish();
  return fclose(man) == 0 && fclose(out) == 0 ? 0 : 1;
}
