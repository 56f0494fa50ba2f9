/* Bytes already in memory: tests, the benchmark, fuzzing. */
#include <stdlib.h>
#include <string.h>
#include "tracewire/io/conn.h"
#include "tracewire/error.h"

struct mem_source {
  struct tw_conn base;
  const unsigned char *data;
  size_t len, pos;
};

static int mem_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  struct mem_source *m = (struct mem_source *)s;
  (void)timeout_ms;
  size_t n = m->len - m->pos;
  if (n == 0)
    return TW_EOF;
  if (n > cap)
    n = cap;
  if (n > 0x40000000u)
    n = 0x40000000u;
  memcpy(buf, m->data + m->pos, n);
  m->pos += n;
  s->nread += n;
  return (int)n;
}

static void mem_close(struct tw_conn *s) { free(s); }

static const struct tw_conn_ops mem_ops = {
  .scheme = "mem", .read = mem_read, .close = mem_close,
};

int tw_conn_mem_open(const void *data, size_t len, struct tw_conn **out)
{
  struct mem_source *m = calloc(1, sizeof *m);
  if (!m)
    return TW_ENOMEM;
  tw__conn_init(&m->base, &mem_ops, "memory");
  m->data = data;
  m->len = len;
  *out = &m->base;
  return 0;
}
