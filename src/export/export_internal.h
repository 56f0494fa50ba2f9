/*
 * Shared by the exporters: the format table, buffered output and
 * per-stream drop accounting. Names and every other piece of RTOS meaning
 * come from the state model (tracewire/model/rtos.h), which the timeline
 * formats feed themselves.
 * Each format is one file (ctf.c, perfetto.c, json.c, csv.c) defining a
 * `const struct tw__export_ops tw__export_<name>`.
 */
#ifndef TW_EXPORT_INTERNAL_H
#define TW_EXPORT_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include "tracewire/error.h"
#include "tracewire/events_gen.h"
#include "tracewire/export/export.h"
#include "tracewire/vocab.h"


struct tw_export;

struct tw__export_ops {
  const char *name;
  int (*open)(struct tw_export *x);
  int (*event)(struct tw_export *x, const struct tw_event *ev);
  int (*finish)(struct tw_export *x); /* write what is pending, close files */
  void (*free)(struct tw_export *x);  /* always called last, also after errors */
  /* optional: `count` more events lost in transport on (endpoint, instance) */
  void (*loss)(struct tw_export *x, uint16_t endpoint, uint16_t instance, uint64_t count);
};

/* A file written through a buffer; errors are sticky and reported once. */
struct tw__wfile {
  FILE *f;
  char path[512];
};

struct tw__drops {
  uint16_t endpoint, instance;
  unsigned long long ring, transport;
};

struct tw_export {
  const struct tw__export_ops *ops;
  struct tw_export_cfg cfg;
  char out[512];
  void *state;                  /* the format's */
  int err;                      /* first error */
  char msg[400];
  unsigned long long events;
  struct tw__drops *drops;       /* per stream, grown as streams appear */
  size_t ndrops, capdrops;
};

/* Records the first error (printf-style message); returns err. */
int tw__export_fail(struct tw_export *x, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

int tw__wfile_open(struct tw_export *x, struct tw__wfile *w, const char *path);
/* Closes; an error (also a delayed write error) is recorded in x. */
int tw__wfile_close(struct tw_export *x, struct tw__wfile *w);
int tw__mkdir(struct tw_export *x, const char *dir);

/* Cumulative events lost on a stream: ring drops (DROPS events) plus
 * transport loss reported through tw_export_transport_loss. */
unsigned long long tw__export_lost(const struct tw_export *x, uint16_t endpoint,
                                   uint16_t instance);

/* Index of the vocabulary field with this object kind, or -1. */
static inline int tw__field_of(const struct tw_event_desc *d, enum tw_obj_kind k)
{
  for (unsigned i = 0; i < d->nfields; i++)
    if (d->fields[i].obj == k)
      return (int)i;
  return -1;
}

/* The object an RTOS operation is about (the first numbered field that is
 * not the task), or -1. */
static inline int tw__object_field(const struct tw_event_desc *d)
{
  for (unsigned i = 0; i < d->nfields; i++)
    if (d->fields[i].obj != TW_OBJ_NONE && d->fields[i].obj != TW_OBJ_TASK &&
        d->fields[i].obj != TW_OBJ_OBJKIND)
      return (int)i;
  return -1;
}

extern const struct tw__export_ops tw__export_ctf, tw__export_perfetto, tw__export_json,
    tw__export_csv;

#endif
