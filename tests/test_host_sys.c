/*
 * Fault injection through the system-call table (tw_sys): short reads,
 * EINTR, EAGAIN and ECONNRESET under the reader; short writes and ENOSPC
 * under the .twt writer; a damaged and a truncated .twt. The code under test
 * is unchanged: only the table is swapped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "host/helpers.h"
#include "tracewire/twt/conn_twt.h"
#include "tracewire/io/sys.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/error.h"

static struct tw_sys fault;
static unsigned calls;
static size_t budget;         /* bytes before the failure */
static int fail_errno;

static ssize_t choppy_read(int fd, void *buf, size_t n)
{
  calls++;
  if (calls % 3 == 0) {
    errno = EINTR;
    return -1;
  }
  if (calls % 5 == 0) {
    errno = EAGAIN;
    return -1;
  }
  size_t k = 1 + calls % 13;
  return read(fd, buf, n < k ? n : k);
}

static ssize_t failing_read(int fd, void *buf, size_t n)
{
  if (budget == 0) {
    errno = fail_errno;
    return -1;
  }
  if (n > budget)
    n = budget;
  ssize_t k = read(fd, buf, n);
  if (k > 0)
    budget -= (size_t)k;
  return k;
}

static ssize_t choppy_write(int fd, const void *buf, size_t n)
{
  calls++;
  if (calls % 4 == 0) {
    errno = EINTR;
    return -1;
  }
  return write(fd, buf, n < 7 ? n : 7);
}

static ssize_t full_disk_write(int fd, const void *buf, size_t n)
{
  if (budget == 0) {
    errno = ENOSPC;
    return -1;
  }
  if (n > budget)
    n = budget;
  ssize_t k = write(fd, buf, n);
  if (k > 0)
    budget -= (size_t)k;
  return k;
}

static char path[64];
static struct stream_buf S;

static int setup(void **state)
{
  (void)state;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 300, .drop_every = 50 };
  synth_stream(&S, 60, &cfg);
  snprintf(path, sizeof path, "/tmp/tw_test_sys_%d", (int)getpid());
  FILE *f = fopen(path, "wb");
  fwrite(S.data, 1, S.len, f);
  fclose(f);
  fault = tw_sys_default;
  calls = 0;
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  tw_sys_set(NULL);
  unlink(path);
  free(S.data);
  return 0;
}

static void decode_file(struct text *t, int expect_end)
{
  char err[256];
  struct tw_conn *c;
  struct tw_reader *r;
  struct tw_decoder *d;
  memset(t, 0, sizeof *t);
  assert_int_equal(tw_conn_file_open(path, &c, err, sizeof err), 0);
  assert_int_equal(tw_reader_open(&r, c, NULL), 0);
  assert_int_equal(tw_decoder_open(&d, NULL), 0);
  t->d = d;
  tw_decoder_on_event(d, text_event, t);
  tw_decoder_on_diag(d, text_diag, t);
  assert_int_equal(tw_decoder_run(d, r), expect_end);
  tw_decoder_close(d);
  tw_reader_close(r);
  tw_conn_close(c);
}

static void short_reads_eintr_eagain_change_nothing(void **state)
{
  (void)state;
  struct text clean, choppy;
  tw_decoder_close(decode_mem(S.data, S.len, &clean));
  fault.read = choppy_read;
  tw_sys_set(&fault);
  decode_file(&choppy, 0);
  tw_sys_set(NULL);
  assert_true(calls > 100);
  assert_int_equal(choppy.events, clean.events);
  assert_int_equal(choppy.len, clean.len);
  assert_memory_equal(choppy.buf, clean.buf, clean.len);
  assert_int_equal(count_diags(&choppy, TW_DIAG_SKIP), 0);
  free(clean.buf);
  free(choppy.buf);
}

static void connection_reset_keeps_what_arrived(void **state)
{
  (void)state;
  /* the link dies in the middle of packet 30: packets 0..29 are decoded */
  budget = S.off[30] + 10;
  fail_errno = ECONNRESET;
  fault.read = failing_read;
  tw_sys_set(&fault);
  struct text t, expect;
  decode_file(&t, TW_ECONNRESET);
  tw_sys_set(NULL);
  tw_decoder_close(decode_mem(S.data, S.off[30], &expect));
  assert_int_equal(t.events, expect.events);
  assert_memory_equal(t.buf, expect.buf, expect.len);
  free(t.buf);
  free(expect.buf);
}

static void write_twt(const char *p, size_t chunk)
{
  char err[256];
  struct tw_twt_writer *w;
  assert_int_equal(tw_twt_create(p, &w, err, sizeof err), 0);
  assert_int_equal(tw_twt_write(w, TW_TWT_SOURCE, 0, 1, "test", 4), 0);
  for (size_t o = 0; o < S.len; o += chunk)
    assert_int_equal(tw_twt_write(w, TW_TWT_DATA, 0, 2 + o, S.data + o, S.len - o < chunk ? S.len - o : chunk), 0);
  assert_int_equal(tw_twt_close(w, 1), 0);
}

struct chunks { int err; unsigned n, end; };
static void on_chunk(void *ctx, const struct tw_twt_chunk *c, int err, const char *msg)
{
  struct chunks *k = ctx;
  (void)msg;
  if (!c)
    k->err = err;
  else
    k->n++, k->end += c->type == TW_TWT_END;
}

/* Read a .twt through the conn; returns the stream bytes. */
static uint8_t *read_twt(const char *p, size_t *len, struct chunks *k)
{
  char err[256];
  struct tw_conn *c;
  memset(k, 0, sizeof *k);
  assert_int_equal(tw_conn_twt_open(p, -1, &c, err, sizeof err), 0);
  tw_conn_twt_on_chunk(c, on_chunk, k);
  uint8_t *out = malloc(S.len + 1);
  *len = 0;
  int n;
  while ((n = tw_conn_read(c, out + *len, S.len + 1 - *len, -1)) > 0)
    *len += (size_t)n;
  assert_int_equal(n, TW_EOF);
  tw_conn_close(c);
  return out;
}

static void twt_round_trip_with_short_writes(void **state)
{
  (void)state;
  char p[80];
  snprintf(p, sizeof p, "%s.twt", path);
  fault.write = choppy_write;
  tw_sys_set(&fault);
  write_twt(p, 333);
  tw_sys_set(NULL);
  assert_int_equal(tw_twt_probe(p), 1);
  size_t len;
  struct chunks k;
  uint8_t *b = read_twt(p, &len, &k);
  assert_int_equal(len, S.len);
  assert_memory_equal(b, S.data, S.len);
  assert_int_equal(k.err, 0);
  assert_int_equal(k.end, 1);
  free(b);
  /* cut in the middle of a chunk: the prefix, and TW_ETRUNC said once */
  assert_int_equal(truncate(p, 32 + 24 + 4 + 24 + 333 + 24 + 100), 0);
  b = read_twt(p, &len, &k);
  assert_int_equal(len, 333 + 100);
  assert_memory_equal(b, S.data, len);
  assert_int_equal(k.err, TW_ETRUNC);
  free(b);
  /* a damaged chunk header costs that chunk only: TW_EBADMSG says where,
   * and the reading goes on at the next chunk header (it used to stop
   * there, losing the rest of the file: issue 19) */
  write_twt(p, 333);
  int fd = open(p, O_RDWR);
  assert_true(pwrite(fd, "\xff", 1, 32 + 24 + 4 + 24 + 333 + 9) == 1); /* chunk 3's length */
  close(fd);
  b = read_twt(p, &len, &k);
  assert_int_equal(len, S.len - 333);
  assert_memory_equal(b, S.data, 333);
  assert_memory_equal(b + 333, S.data + 666, S.len - 666);
  assert_int_equal(k.err, TW_EBADMSG);
  assert_int_equal(k.end, 1);
  free(b);
  unlink(p);
}

static void full_disk_reported_with_offset(void **state)
{
  (void)state;
  char p[80], err[256];
  snprintf(p, sizeof p, "%s.full.twt", path);
  budget = 1000;
  fault.write = full_disk_write;
  tw_sys_set(&fault);
  struct tw_twt_writer *w;
  assert_int_equal(tw_twt_create(p, &w, err, sizeof err), 0);
  int rc = 0;
  for (size_t o = 0; o < S.len && rc == 0; o += 200)
    rc = tw_twt_write(w, TW_TWT_DATA, 0, 0, S.data + o, 200);
  assert_int_equal(rc, TW_ENOSPC);
  assert_non_null(strstr(tw_twt_writer_error(w), "at file offset"));
  assert_non_null(strstr(tw_twt_writer_error(w), p));
  assert_non_null(strstr(tw_twt_writer_error(w), "the trace ends with the last whole chunk"));
  assert_int_equal(tw_twt_close(w, 1), TW_ENOSPC);
  tw_sys_set(NULL);
  /* what reached the disk reads back as a prefix of the stream, in whole
   * chunks: the chunk the disk cut short was removed (ftruncate), so the
   * trace reads with no damage, as one that was not stopped cleanly */
  size_t len;
  struct chunks k;
  uint8_t *b = read_twt(p, &len, &k);
  assert_int_equal(len, (1000 - 32) / (24 + 200) * 200);
  assert_memory_equal(b, S.data, len);
  assert_int_equal(k.err, 0);
  assert_int_equal(k.end, 0);
  free(b);
  unlink(p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(short_reads_eintr_eagain_change_nothing, setup, teardown),
    cmocka_unit_test_setup_teardown(connection_reset_keeps_what_arrived, setup, teardown),
    cmocka_unit_test_setup_teardown(twt_round_trip_with_short_writes, setup, teardown),
    cmocka_unit_test_setup_teardown(full_disk_reported_with_offset, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
