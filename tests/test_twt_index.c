/*
 * The .twt time index (docs/trace-file.md, "Time index"): `print --filter
 * time=A..B` on an indexed trace gives byte for byte what a full read
 * gives, while reading a small part of the file; an index that does not
 * hold up (a flipped offset) is said in one line and the file read whole;
 * a trace cut short (no END) reads whole with no note; `record` writes the
 * index and `tracewire index` adds one to an existing trace.
 *
 * The trace: two sources (two targets, the first with two logger
 * instances, its timed events carrying only the 32-bit timestamp word,
 * which wraps a few ms in; DROPS records; names and a custom event
 * declared at the start), DATA chunks of random sizes that cut packets
 * anywhere, a packet lost in transport, INFO, and a disconnect NOTE in the
 * middle. ~20 MB, an index point every 512 KiB.
 */
// tw-test-libs: tw_cli
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "tracewire/cmd.h"
#include "tracewire/wire/synth.h"
#include "tracewire/wire/decoder.h"
#include "tracewire/uia.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/twt/twt_index.h"
#include "tracewire/error.h"

#define TRACE_BYTES (20u << 20)
#define EVERY (512u << 10)

static char dir[64], idx[96], plain[96], outp[96], errp[96], tmp[96];
static uint64_t t_first, t_last;

static uint32_t rnd(uint32_t *s)
{
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

/* Chunks of one source's pending bytes, in random sizes. */
struct pend {
  uint8_t *b;
  size_t n;
};

static void flush_some(struct tw_twt_writer *w, uint16_t src, struct pend *p, uint32_t *seed,
                       uint64_t *arrival, int all)
{
  while (p->n > 0) {
    size_t k = 1 + rnd(seed) % 9000;
    if (k > p->n) {
      if (!all)
        return;
      k = p->n;
    }
    *arrival += 1000 + rnd(seed) % 50000;
    assert_int_equal(tw_twt_write(w, TW_TWT_DATA, src, *arrival, p->b, k), 0);
    memmove(p->b, p->b + k, p->n - k);
    p->n -= k;
  }
}

static void write_trace(const char *path, unsigned long long every)
{
  struct tw_twt_writer *w;
  char err[256];
  assert_int_equal(tw_twt_create(path, &w, err, sizeof err), 0);
  if (every)
    assert_int_equal(tw_twt_writer_index(w, every), 0);
  struct tw_synth g0, g1;
  tw_synth_init(&g0, &(struct tw_synth_cfg){ .endpoint = 1, .instances = 2, .ts32 = 1,
                                             .start_ticks = 0xFFFFF000u, .drop_every = 300,
                                             .names = 1, .switches = 1, .seed = 7 });
  tw_synth_init(&g1, &(struct tw_synth_cfg){ .endpoint = 9, .freq_hz = 4000000,
                                             .start_ticks = 17179000000ull, .names = 1, .seed = 11,
                                             .pkt_bytes = 700 });
  uint64_t arrival = 1000000000;
  assert_int_equal(tw_twt_write(w, TW_TWT_SOURCE, 0, arrival, "tcp://a:1", 9), 0);
  assert_int_equal(tw_twt_write(w, TW_TWT_SOURCE, 1, arrival, "tcp://b:2", 9), 0);
  uint8_t info[4 * TW_INFO_WORDS] = {0};
  tw_store_be32(info + 4 * TW_INFO_ENDPOINT, 9);
  tw_store_be32(info + 4 * TW_INFO_TS_FREQ_HZ, 4000000);
  assert_int_equal(tw_twt_write(w, TW_TWT_INFO, 1, arrival, info, sizeof info), 0);
  struct pend p[2] = { { malloc(1 << 20), 0 }, { malloc(1 << 20), 0 } };
  uint32_t seed = 12345;
  unsigned long long total = 0, pkts = 0;
  int noted = 0;
  while (total < TRACE_BYTES) {
    /* as a recorder sees them: the target that is behind in time sends next */
    struct tw_synth *g = g0.ticks <= g1.ticks / 4 ? &g0 : &g1;
    struct pend *q = &p[g == &g1];
    size_t n = tw_synth_packet(g, q->b + q->n, 65536);
    if (g == &g1 && ++pkts == 4000)
      n = 0; /* lost in transport: a packet sequence gap */
    q->n += n;
    total += n;
    flush_some(w, 0, &p[0], &seed, &arrival, 0);
    flush_some(w, 1, &p[1], &seed, &arrival, 0);
    if (!noted && total > TRACE_BYTES / 2) {
      const char *note = "target disconnected at stream byte 123 (connection reset); reconnecting";
      assert_int_equal(tw_twt_write(w, TW_TWT_NOTE, 0, arrival, note, strlen(note)), 0);
      noted = 1;
    }
  }
  flush_some(w, 0, &p[0], &seed, &arrival, 1);
  flush_some(w, 1, &p[1], &seed, &arrival, 1);
  assert_int_equal(tw_twt_close(w, 1), 0);
  free(p[0].b);
  free(p[1].b);
}

/* Run a command in-process, stdout and stderr to files. */
static int run(int (*cmd)(int, char **), int argc, char **argv)
{
  fflush(stdout);
  fflush(stderr);
  int so = dup(1), se = dup(2);
  int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(so >= 0 && se >= 0 && fo >= 0 && fe >= 0);
  dup2(fo, 1);
  dup2(fe, 2);
  close(fo);
  close(fe);
  optind = 1;
  int rc = cmd(argc, argv);
  fflush(stdout);
  fflush(stderr);
  dup2(so, 1);
  dup2(se, 2);
  close(so);
  close(se);
  return rc;
}

static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
  b[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return b;
}

static int print_window(const char *path, const char *window, char **out, size_t *len)
{
  char filter[128];
  snprintf(filter, sizeof filter, "time=%s", window);
  char *argv[] = { "print", "-q", "--filter", filter, (char *)path, NULL };
  int rc = run(tw_cli_print, 5, argv);
  *out = slurp(outp, len);
  return rc;
}

static int count_lines(const char *path)
{
  size_t n;
  char *b = slurp(path, &n);
  int lines = 0;
  for (size_t i = 0; i < n; i++)
    lines += b[i] == '\n';
  free(b);
  return lines;
}

static int span_event(void *ctx, const struct tw_event *ev)
{
  (void)ctx;
  if (!t_first || ev->time_ns < t_first)
    t_first = ev->time_ns;
  if (ev->time_ns > t_last)
    t_last = ev->time_ns;
  return 0;
}

/* File bytes a windowed read of path reads. */
static unsigned long long bytes_for(const char *path, long long from, long long to, int *indexed)
{
  struct tw_input t;
  assert_int_equal(tw_input_open(&t, path), 0);
  t.quiet = 1;
  assert_int_equal(tw_input_window(&t, from, to), 0);
  *indexed = t.indexed;
  assert_int_equal(tw_input_run(&t), 0);
  unsigned long long n = tw_input_bytes_read(&t);
  tw_input_close(&t);
  return n;
}

static int setup(void **state)
{
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/tw_twtidx_%d", (int)getpid());
  mkdir(dir, 0755);
  snprintf(idx, sizeof idx, "%s/idx.twt", dir);
  snprintf(plain, sizeof plain, "%s/plain.twt", dir);
  snprintf(outp, sizeof outp, "%s/out.txt", dir);
  snprintf(errp, sizeof errp, "%s/err.txt", dir);
  snprintf(tmp, sizeof tmp, "%s/tmp.twt", dir);
  write_trace(idx, EVERY);
  write_trace(plain, 0);
  struct tw_input t;
  assert_int_equal(tw_input_open(&t, plain), 0);
  t.quiet = 1;
  t.on_event = span_event;
  assert_int_equal(tw_input_run(&t), 0);
  tw_input_close(&t);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  unlink(idx);
  unlink(plain);
  unlink(outp);
  unlink(errp);
  unlink(tmp);
  rmdir(dir);
  return 0;
}

/* "A..B" for the fractions a, b of the trace's time span. */
static void window_at(char *buf, size_t cap, double a, double b, long long *from, long long *to)
{
  double span = (double)(t_last - t_first);
  *from = a < 0 ? -1 : (long long)(t_first + a * span);
  *to = b < 0 ? -1 : (long long)(t_first + b * span);
  char fa[32] = "", fb[32] = "";
  if (*from >= 0)
    snprintf(fa, sizeof fa, "%lld.%09lld", *from / 1000000000, *from % 1000000000);
  if (*to >= 0)
    snprintf(fb, sizeof fb, "%lld.%09lld", *to / 1000000000, *to % 1000000000);
  snprintf(buf, cap, "%s..%s", fa, fb);
}

static void window_output_is_the_full_reads(void **state)
{
  (void)state;
  /* the 32-bit timestamps wrapped: the times are past 2^32 ticks */
  assert_true(t_last > 4295000000000ull);
  static const double w[][2] = {
    {0.45, 0.47}, {0.0, 0.01}, {0.2, 0.200001}, {0.97, 1.0}, {0.5, -1}, {-1, 0.1}, {0.33, 0.66},
    {0.499, 0.501}, /* around the disconnect NOTE */
  };
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
    char win[80];
    long long from, to;
    window_at(win, sizeof win, w[i][0], w[i][1], &from, &to);
    char *a, *b;
    size_t na, nb;
    int ra = print_window(plain, win, &a, &na);
    int rb = print_window(idx, win, &b, &nb);
    assert_int_equal(count_lines(errp), 0); /* no fallback note (-q: no diagnostics) */
    print_message("window %s: %zu bytes of output\n", win, na);
    assert_true(na > 0 || (w[i][1] - w[i][0] < 0.00001));
    assert_int_equal(ra, rb);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    free(a);
    free(b);
  }
}

static void window_reads_a_small_part(void **state)
{
  (void)state;
  char win[80];
  long long from, to;
  int indexed;
  window_at(win, sizeof win, 0.495, 0.50, &from, &to);
  struct stat st;
  assert_int_equal(stat(idx, &st), 0);
  unsigned long long full = bytes_for(plain, from, to, &indexed);
  assert_false(indexed);
  unsigned long long part = bytes_for(idx, from, to, &indexed);
  assert_true(indexed);
  print_message("window %s: %llu of %llu file bytes read (full read: %llu)\n", win, part,
                (unsigned long long)st.st_size, full);
  /* each source reads the file on its own (both ways): compare like with like */
  assert_true(full >= 2ull * TRACE_BYTES);
  assert_true(part * 10 < full);
}

static void copy_file(const char *from, const char *to)
{
  size_t n;
  char *b = slurp(from, &n);
  FILE *f = fopen(to, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b, 1, n, f), n);
  fclose(f);
  free(b);
}

static void patch(const char *path, unsigned long long off, uint8_t xor_mask)
{
  int fd = open(path, O_RDWR);
  uint8_t c;
  assert_int_equal(pread(fd, &c, 1, (off_t)off), 1);
  c ^= xor_mask;
  assert_int_equal(pwrite(fd, &c, 1, (off_t)off), 1);
  close(fd);
}

static uint64_t le64_at(const char *path, unsigned long long off)
{
  int fd = open(path, O_RDONLY);
  uint8_t b[8];
  assert_int_equal(pread(fd, b, 8, (off_t)off), 8);
  close(fd);
  return tw_load_le32(b) | (uint64_t)tw_load_le32(b + 4) << 32;
}

/* The index is a hint: a flipped bit anywhere in it costs the fast path
 * (one line says so), never a wrong line. */
static void damaged_index_reads_whole(void **state)
{
  (void)state;
  struct stat st;
  assert_int_equal(stat(idx, &st), 0);
  unsigned long long size = (unsigned long long)st.st_size, end = size - 56;
  unsigned long long toc = le64_at(idx, end + 24 + 24);
  char win[80], why[256];
  long long from, to;
  window_at(win, sizeof win, 0.40, 0.42, &from, &to);
  /* the point the window starts source 0 at: its INDEX chunk is read */
  struct tw_twt_index *ix;
  assert_int_equal(tw_twt_index_load(idx, &ix, why, sizeof why), 1);
  long k = tw_twt_index_start(ix, 0, (uint64_t)from);
  tw_twt_index_free(ix);
  assert_true(k > 0);
  unsigned long long tk = toc + 24 + 12 + 16 + (unsigned long long)k * 40, pt = le64_at(idx, tk);
  const struct { unsigned long long off; uint8_t mask; const char *what; } flips[] = {
    { end + 24 + 24, 0x10, "END's TOC offset" },
    { tk, 0x01, "a TOC point offset" },
    { tk + 8, 0x40, "a TOC time" },
    { pt + 24 + 8 + 8, 0x04, "an INDEX resume chunk offset" },
    { pt + 24 + 8 + 60, 0x01, "decoder state in an INDEX chunk" },
  };
  char *a, *b;
  size_t na, nb;
  int ra = print_window(plain, win, &a, &na);
  for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
    copy_file(idx, tmp);
    patch(tmp, flips[i].off, flips[i].mask);
    int rb = print_window(tmp, win, &b, &nb);
    size_t ne;
    char *e = slurp(errp, &ne);
    print_message("%s flipped: %s", flips[i].what, e);
    assert_int_equal(count_lines(errp), 1);
    assert_non_null(strstr(e, "reading the whole file instead"));
    assert_int_equal(ra, rb);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    free(b);
    free(e);
  }
  free(a);
}

/* A trace cut short (a crash, a full disk) has no END, so no TOC: every
 * reader reads it whole, no note (nothing is wrong with an index there). */
static void truncated_trace_reads_whole(void **state)
{
  (void)state;
  struct stat st;
  assert_int_equal(stat(idx, &st), 0);
  copy_file(idx, tmp);
  assert_int_equal(truncate(tmp, st.st_size * 3 / 5 + 7), 0);
  char win[80];
  long long from, to;
  int indexed;
  window_at(win, sizeof win, 0.30, 0.31, &from, &to);
  unsigned long long n = bytes_for(tmp, from, to, &indexed);
  assert_false(indexed);
  assert_true(n >= (unsigned long long)st.st_size * 3 / 5);
  /* the window's lines are the full print's lines in the window */
  char *a, *b;
  size_t na, nb;
  int rb = print_window(tmp, win, &b, &nb);
  assert_int_equal(rb, TW_EXIT_DAMAGED);
  char *e = slurp(errp, &na);
  assert_non_null(strstr(e, "truncated chunk"));
  free(e);
  char *argv[] = { "print", "-q", tmp, NULL };
  run(tw_cli_print, 3, argv);
  a = slurp(outp, &na);
  char *line = a, *want = malloc(na + 1);
  size_t nw = 0;
  while (*line) {
    char *nl = strchr(line, '\n');
    double s = strtod(line + 1, NULL);
    long long ns = (long long)(s * 1e9 + 0.5);
    if (ns >= from && ns <= to) {
      memcpy(want + nw, line, (size_t)(nl - line + 1));
      nw += (size_t)(nl - line + 1);
    }
    line = nl + 1;
  }
  assert_true(nw > 0);
  /* but for the first line's delta: (+...) is from the previous line printed */
  const char *a2 = strchr(want, '\n'), *b2 = strchr(b, '\n');
  assert_non_null(b2);
  assert_int_equal(nw - (size_t)(a2 - want), nb - (size_t)(b2 - b));
  assert_memory_equal(a2, b2, nw - (size_t)(a2 - want));
  free(a);
  free(b);
  free(want);
}

/* `tracewire index`: the same chunks, the same times, plus an index. */
static void index_command_adds_an_index(void **state)
{
  (void)state;
  char every[] = "512K";
  char *argv[] = { "index", "--every", every, "-o", tmp, plain, NULL };
  assert_int_equal(run(tw_cli_index, 6, argv), 0);
  struct tw_twt_index *ix;
  char why[256];
  assert_int_equal(tw_twt_index_load(tmp, &ix, why, sizeof why), 1);
  tw_twt_index_free(ix);
  assert_int_equal(tw_twt_index_load(plain, &ix, why, sizeof why), 0);
  /* chunk for chunk what the writer makes with an index, and the times
   * (creation, END) of the file it came from */
  struct tw_twt_reader *r1, *r2, *r3;
  struct tw_twt_chunk c1, c2, c3;
  assert_int_equal(tw_twt_open(plain, &r1, why, sizeof why), 0);
  assert_int_equal(tw_twt_open(tmp, &r2, why, sizeof why), 0);
  assert_int_equal(tw_twt_open(idx, &r3, why, sizeof why), 0);
  assert_true(tw_twt_created_ns(r1) == tw_twt_created_ns(r2));
  int n2, n3, nchunks = 0, nindex = 0;
  while ((n2 = tw_twt_next(r2, &c2)) == 1) {
    assert_int_equal(tw_twt_next(r3, &c3), 1);
    assert_int_equal(c2.type, c3.type);
    assert_int_equal(c2.len, c3.len);
    nchunks++;
    nindex += c2.type == TW_TWT_INDEX;
    if (c2.type == TW_TWT_END) {
      while (tw_twt_next(r1, &c1) == 1 && c1.type != TW_TWT_END)
        ;
      assert_int_equal(c1.type, TW_TWT_END);
      assert_memory_equal(c2.data + 16, c1.data + 16, 8); /* end time kept */
      assert_memory_equal(c2.data, c3.data, 16);
      continue;
    }
    assert_memory_equal(c2.data, c3.data, c2.len);
    if (c2.type != TW_TWT_TOC)
      assert_true(c2.arrival_ns == c3.arrival_ns);
  }
  assert_int_equal(n2, 0);
  assert_int_equal(n3 = tw_twt_next(r3, &c3), 0);
  assert_true(nindex >= 30);
  print_message("%d chunks, %d INDEX\n", nchunks, nindex);
  tw_twt_close_reader(r1);
  tw_twt_close_reader(r2);
  tw_twt_close_reader(r3);
  /* in place */
  copy_file(plain, tmp);
  char *argv2[] = { "index", tmp, NULL };
  assert_int_equal(run(tw_cli_index, 2, argv2), 0);
  assert_int_equal(tw_twt_index_load(tmp, &ix, why, sizeof why), 1);
  tw_twt_index_free(ix);
}

/* `record` writes the index (in-process, from a file of raw packets). */
static void record_writes_an_index(void **state)
{
  (void)state;
  char raw[96];
  snprintf(raw, sizeof raw, "%s/raw.bin", dir);
  FILE *f = fopen(raw, "wb");
  assert_non_null(f);
  struct tw_synth g;
  tw_synth_init(&g, &(struct tw_synth_cfg){ .names = 1, .ts32 = 1, .start_ticks = 0xFFFF0000u,
                                            .drop_every = 100 });
  uint8_t pkt[2048];
  for (size_t total = 0; total < (3u << 20);) {
    size_t n = tw_synth_packet(&g, pkt, sizeof pkt);
    assert_int_equal(fwrite(pkt, 1, n, f), n);
    total += n;
  }
  fclose(f);
  char *argv[] = { "record", "-q", "--from", raw, "-o", tmp, NULL };
  assert_int_equal(run(tw_cli_record, 6, argv), 0);
  struct tw_twt_index *ix;
  char why[256];
  assert_int_equal(tw_twt_index_load(tmp, &ix, why, sizeof why), 1);
  tw_twt_index_free(ix);
  char *a, *b;
  size_t na, nb;
  int ra = print_window(raw, "4295.0..4295.5", &a, &na);
  int rb = print_window(tmp, "4295.0..4295.5", &b, &nb);
  assert_true(na > 1000);
  assert_int_equal(ra, rb);
  assert_int_equal(na, nb);
  assert_memory_equal(a, b, na);
  free(a);
  free(b);
  unlink(raw);
}

/* Time that goes backwards in a source (a target reset) makes the merge
 * order of a window depend on what came before it: the index is not used,
 * one line says so, the output is the full read's. */
static void backwards_time_reads_whole(void **state)
{
  (void)state;
  struct tw_twt_writer *w;
  char err[256];
  assert_int_equal(tw_twt_create(tmp, &w, err, sizeof err), 0);
  assert_int_equal(tw_twt_writer_index(w, 64u << 10), 0);
  struct tw_synth g;
  uint8_t pkt[2048];
  uint64_t arrival = 1;
  for (int round = 0; round < 2; round++) {
    tw_synth_init(&g, &(struct tw_synth_cfg){ .names = 1, .seed = 3, .start_ticks = 5000000 });
    for (size_t total = 0; total < (600u << 10);) {
      size_t n = tw_synth_packet(&g, pkt, sizeof pkt);
      assert_int_equal(tw_twt_write(w, TW_TWT_DATA, 0, arrival++, pkt, n), 0);
      total += n;
    }
  }
  assert_int_equal(tw_twt_close(w, 1), 0);
  struct tw_twt_index *ix;
  char why[256];
  assert_int_equal(tw_twt_index_load(tmp, &ix, why, sizeof why), 1);
  assert_true(tw_twt_index_backwards(ix, 0));
  tw_twt_index_free(ix);
  char *b;
  size_t nb, ne;
  int rb = print_window(tmp, "5.2..5.3", &b, &nb);
  char *e = slurp(errp, &ne);
  assert_non_null(strstr(e, "index not used: event times of source -1 go backwards"));
  assert_int_equal(count_lines(errp), 1);
  assert_int_equal(rb, TW_EXIT_OK);
  assert_true(nb > 0);
  int indexed;
  struct stat st;
  unsigned long long n = bytes_for(tmp, 5200000000, 5300000000, &indexed);
  assert_false(indexed);
  assert_int_equal(stat(tmp, &st), 0);
  assert_true(n >= (unsigned long long)st.st_size);
  free(e);
  free(b);
}

/* The checkpoint restores only whole: any cut of it is refused and leaves
 * a decoder that decodes from the start as a fresh one. */
static void decoder_checkpoint_is_all_or_nothing(void **state)
{
  (void)state;
  struct tw_decoder *d, *e;
  struct tw_decoder_cfg cfg = { .max_streams = TW_TWT_INDEX_STREAMS };
  assert_int_equal(tw_decoder_open(&d, &cfg), 0);
  struct tw_synth g;
  tw_synth_init(&g, &(struct tw_synth_cfg){ .names = 1, .instances = 2, .ts32 = 1 });
  uint8_t buf[2048];
  for (int i = 0; i < 50; i++) {
    size_t n = tw_synth_packet(&g, buf, sizeof buf);
    struct tw_pkt pkt;
    assert_true(tw_pkt_parse(buf, n, sizeof buf, &pkt) > 0);
    tw_decoder_packet(d, &pkt, 0, (unsigned long long)i);
  }
  int need = tw_decoder_save(d, NULL, 0);
  assert_true(need > 100);
  uint8_t *blob = malloc((size_t)need);
  assert_int_equal(tw_decoder_save(d, blob, (size_t)need), need);
  for (int cut = 0; cut < need; cut += 7) {
    assert_int_equal(tw_decoder_open(&e, &cfg), 0);
    assert_int_equal(tw_decoder_restore(e, blob, (size_t)cut), TW_EBADMSG);
    assert_int_equal(tw_decoder_nstreams(e), 0);
    assert_null(tw_decoder_name_at(e, 0, &(uint16_t){0}, &(enum tw_obj_kind){0}, &(uint32_t){0},
                                   &(const char *){NULL}) ? "" : NULL);
    tw_decoder_close(e);
  }
  assert_int_equal(tw_decoder_open(&e, &cfg), 0);
  assert_int_equal(tw_decoder_restore(e, blob, (size_t)need), 0);
  assert_int_equal(tw_decoder_nstreams(e), tw_decoder_nstreams(d));
  assert_string_equal(tw_decoder_name(e, 1, TW_OBJ_TASK, 2), tw_decoder_name(d, 1, TW_OBJ_TASK, 2));
  uint16_t ep;
  assert_non_null(tw_decoder_custom_at(e, 0, &ep));
  /* a second restore into a used decoder is refused */
  assert_int_equal(tw_decoder_restore(e, blob, (size_t)need), TW_EINVAL);
  tw_decoder_close(e);
  tw_decoder_close(d);
  free(blob);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(window_output_is_the_full_reads),
    cmocka_unit_test(window_reads_a_small_part),
    cmocka_unit_test(damaged_index_reads_whole),
    cmocka_unit_test(truncated_trace_reads_whole),
    cmocka_unit_test(index_command_adds_an_index),
    cmocka_unit_test(record_writes_an_index),
    cmocka_unit_test(backwards_time_reads_whole),
    cmocka_unit_test(decoder_checkpoint_is_all_or_nothing),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
