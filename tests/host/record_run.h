/*
 * `tracewire record` run in-process (tw_cli_record) by the record
 * integration tests, and what it did seen through tw_sys: counting
 * wrappers a test puts into its fault table, and the trace it wrote
 * decoded. Include after <cmocka.h>; the test fills errpath in its setup().
 */
#ifndef TW_TEST_HOST_RECORD_RUN_H
#define TW_TEST_HOST_RECORD_RUN_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "cli.h"
#include "host/helpers.h"
#include "tracewire/twt/conn_twt.h"
#include "tracewire/twt/trace_file.h"

static char errpath[96];            /* record's stderr goes here */
static unsigned long long rx_bytes; /* record's reads from its source (atomic) */
static unsigned connect_calls;      /* atomic */
static int listen_port;             /* tcp-listen: the port record bound (atomic) */

/* record's messages go to errpath, where the test reads them */
static inline int run_record(int argc, char **argv)
{
  fflush(stderr);
  int saved = dup(2), fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  optind = 1;
  int rc = tw_cli_record(argc, argv);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  return rc;
}

static inline ssize_t count_read(int fd, void *buf, size_t n)
{
  ssize_t k = read(fd, buf, n);
  if (k > 0)
    __atomic_add_fetch(&rx_bytes, (unsigned long long)k, __ATOMIC_RELEASE);
  return k;
}

static inline int count_connect(int fd, const struct sockaddr *a, socklen_t len)
{
  __atomic_add_fetch(&connect_calls, 1, __ATOMIC_RELAXED);
  return connect(fd, a, len);
}

/* tcp-listen://:0 binds a port the target must learn to connect to */
static inline int bind_seen_port(int fd, const struct sockaddr *a, socklen_t len)
{
  int rc = bind(fd, a, len);
  struct sockaddr_in got;
  socklen_t gl = sizeof got;
  if (rc == 0 && getsockname(fd, (struct sockaddr *)&got, &gl) == 0 && got.sin_family == AF_INET)
    __atomic_store_n(&listen_port, ntohs(got.sin_port), __ATOMIC_RELEASE);
  return rc;
}

/* The trace record wrote, decoded, its events as text into *got (caller
 * frees got->buf). The decoder is returned and *src, *rd left open so
 * the test can check their stats; the caller closes all three. */
static inline struct tw_decoder *decode_twt(const char *path, struct text *got,
                                            struct tw_conn **src, struct tw_reader **rd)
{
  struct tw_decoder *d;
  char err[256];
  memset(got, 0, sizeof *got);
  assert_int_equal(tw_conn_twt_open(path, -1, src, err, sizeof err), 0);
  assert_int_equal(tw_reader_open(rd, *src, NULL), 0);
  assert_int_equal(tw_decoder_open(&d, NULL), 0);
  got->d = d;
  tw_decoder_on_event(d, text_event, got);
  tw_decoder_on_diag(d, text_diag, got);
  assert_int_equal(tw_decoder_run(d, *rd), 0);
  return d;
}

/* What the trace at path holds: its chunks by type, and how many NOTE
 * chunks contain each of the given phrases. */
#define TWT_CENSUS_TYPES 16
#define TWT_CENSUS_PHRASES 4
struct twt_census {
  unsigned type[TWT_CENSUS_TYPES];
  unsigned note[TWT_CENSUS_PHRASES];
};

static inline struct twt_census twt_census(const char *path, const char *const *phrases,
                                           size_t nphrases)
{
  struct twt_census k;
  struct tw_twt_reader *r;
  struct tw_twt_chunk c;
  char err[256];
  memset(&k, 0, sizeof k);
  assert_true(nphrases <= TWT_CENSUS_PHRASES);
  assert_int_equal(tw_twt_open(path, &r, err, sizeof err), 0);
  while (tw_twt_next(r, &c) == 1) {
    if (c.type < TWT_CENSUS_TYPES)
      k.type[c.type]++;
    for (size_t i = 0; c.type == TW_TWT_NOTE && i < nphrases; i++)
      k.note[i] += memmem(c.data, c.len, phrases[i], strlen(phrases[i])) != NULL;
  }
  tw_twt_close_reader(r);
  return k;
}

#endif
