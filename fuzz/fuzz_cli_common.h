/*
 * Shared by the fuzz targets that run whole `tracewire` commands in-process
 * (tools/ as the tw_cli library): the input file in a memfd, the commands'
 * standard output thrown away, argument vectors built on the stack.
 */
#ifndef TW_FUZZ_CLI_COMMON_H
#define TW_FUZZ_CLI_COMMON_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A memfd holding data; its path opens it again (its own offset). */
struct memfile {
  int fd;
  char path[64];
};

static inline void memfile_init(struct memfile *m, const char *name)
{
  m->fd = memfd_create(name, 0);
  if (m->fd < 0)
    abort();
  snprintf(m->path, sizeof m->path, "/proc/self/fd/%d", m->fd);
}

static inline void memfile_set(struct memfile *m, const uint8_t *data, size_t size)
{
  if (ftruncate(m->fd, 0) != 0 || (size && pwrite(m->fd, data, size, 0) != (ssize_t)size))
    abort();
}

/* The file's bytes (malloc'd, NUL-terminated), its size in *n. */
static inline char *memfile_get(const struct memfile *m, size_t *n)
{
  off_t len = lseek(m->fd, 0, SEEK_END);
  char *b = malloc((size_t)(len > 0 ? len : 0) + 1);
  if (!b || len < 0 || (len && pread(m->fd, b, (size_t)len, 0) != len))
    abort();
  b[len] = 0;
  *n = (size_t)len;
  return b;
}

/* The commands print results on stdout: nobody reads them here. */
static inline void quiet_stdout(void)
{
  static int done;
  int fd;
  if (done++)
    return;
  fflush(stdout);
  if ((fd = open("/dev/null", O_WRONLY)) < 0 || dup2(fd, 1) < 0)
    abort();
  close(fd);
}

/* Exit statuses a command may give a readable file: done (0), a file it
 * cannot take (1: not a trace of this version), input damaged (3). A
 * usage error (2) would be the harness's bug; anything else the CLI's. */
static inline void want_status(int rc, const char *what)
{
  if (rc != 0 && rc != 1 && rc != 3) {
    fprintf(stderr, "fuzz: %s: exit status %d\n", what, rc);
    abort();
  }
}

#endif
