/*
 * `tracewire record` run in-process (tw_cli_record) by the record
 * integration tests, and what it did seen through tw_sys: counting
 * wrappers a test puts into its fault table. Include after <cmocka.h>;
 * the test fills errpath in its setup().
 */
#ifndef TW_TEST_HOST_RECORD_RUN_H
#define TW_TEST_HOST_RECORD_RUN_H

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "cli.h"

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

#endif
