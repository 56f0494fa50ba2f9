/*
 * Internals of the trace model (src/model/mti_*.c). Every MTI object is a
 * struct whose first member is the public interface struct, so the
 * interface pointer and the object pointer are the same address.
 *
 * Ownership: the system owns components, components own sources, sources
 * own fields and classes; all are allocated one by one, so pointers handed
 * to plugins stay valid while arrays of pointers grow.
 *
 * Dispatch (the hot path, tw_mti_system_feed): stream -> component by
 * array index, event id -> source index by a system-wide table (all
 * components have the same sources in the same order), then only if the
 * source is "hot" (has counters or classes with callbacks): bump counters,
 * fill the source's one record buffer once, and for each active class
 * rewrite event_class_id and call its callbacks.
 */
#ifndef TW_HOST_MTI_INTERNAL_H
#define TW_HOST_MTI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracewire/event.h"
#include "tracewire/mti.h"
#include "tracewire/model/mti_host.h"
#include "tracewire/model/rtos.h"
#include "tracewire/vocab.h"

#define TW__MTI_STRING_MAX 255u /* max bytes of a variable STRING value */
#define TW__MTI_MAX_FIELDS 32   /* FieldMask bits */
#define TW__MTI_ID_TABLE 0x400u /* ids below this map by direct index */

/* Where a field's value comes from when filled from a struct tw_event. */
enum mti_fill {
  MTI_FILL_VALUE,  /* ev->values[src_index] */
  MTI_FILL_STRING, /* ev->str / ev->str_len */
  MTI_FILL_TIME,   /* ev->time_ns */
  MTI_FILL_SEQ,    /* ev->seq */
  MTI_FILL_GIVEN   /* from a struct tw__mti_val array (dump sources) */
};

/* Source kinds: ordinary event sources and the dump_state sources. */
enum mti_kind { MTI_SRC_EVENT, MTI_SRC_TASKS, MTI_SRC_MUTEXES, MTI_SRC_SEMS };

struct mti_source;
struct mti_component;

/* A field's static description, shared by every component's copy. */
struct tw__mti_field_spec {
  const char *name;
  const char *desc;
  MTI_EventFieldType_Type type;
  uint16_t size;     /* 0 = variable */
  uint16_t max_size;
  const struct tw_enum_desc *enums;
  uint32_t nenums;
  enum tw_obj_kind obj;
  enum mti_fill fill;
  uint8_t src_index; /* MTI_FILL_VALUE: index into ev->values */
};

struct mti_field {
  MTI_EventFieldType base;
  struct mti_source *src;
  const struct tw__mti_field_spec *spec;
  int index;
  uint32_t offset; /* of the value in the source's record layout */
};

struct mti_callback {
  MTI_CallbackT fn;
  void *user;
};

struct mti_class {
  MTI_EventClass base;
  struct mti_source *src;
  MTI_EventClassId id;
  MTI_FieldMask mask;
  int nvalues;
  struct mti_field *values[TW__MTI_MAX_FIELDS];
  size_t record_size;
  struct mti_callback *cbs;
  size_t ncbs, capcbs;
};

/* One source's static shape (shared by all components). */
struct tw__mti_source_spec {
  const char *name;
  const char *desc;
  enum mti_kind kind;
  bool names;       /* its events name objects (the meaning's act NAME): the
                       RTOS state model keeps names even when nobody tracks state */
  const struct tw_event_desc *ev; /* MTI_SRC_EVENT */
  int nfields;
  struct tw__mti_field_spec fields[TW__MTI_MAX_FIELDS];
  int task_field;   /* index of the first TASK field, -1 */
  int obj_field[TW_OBJ_COUNT]; /* index of the first field naming each kind, -1 */
  int marker_field; /* index of the marker field, -1 */
  size_t layout_size;
  uint32_t offsets[TW__MTI_MAX_FIELDS];
};

/* One step of filling a record from a struct tw_event, precomputed from
 * the union of the active classes' masks (tw__mti_source_refresh). */
enum mti_op { MTI_OP_U8, MTI_OP_U16, MTI_OP_U32, MTI_OP_U64, MTI_OP_TIME, MTI_OP_SEQ,
              MTI_OP_STRING };
struct mti_fill_op {
  uint32_t off;
  uint8_t op;
  uint8_t src;   /* index into ev->values */
  uint16_t field;
  /* little-endian hosts: the value is the 8 bytes at src_off in struct
   * tw_event masked by mask, stored as 8 bytes (mti_dispatch.c) */
  uint32_t src_off;
  uint64_t mask;
};

/* One callback to make for an event: the flattened (class, callback) list
 * of a source, so delivery is one loop. */
struct mti_call {
  MTI_CallbackT fn;
  void *user;
  const MTI_EventClass *ec;
  MTI_EventClassId id;
};

struct mti_source {
  MTI_TraceSource base;
  struct mti_component *comp;
  const struct tw__mti_source_spec *spec;
  int index;
  struct mti_field *fields; /* spec->nfields */
  struct mti_class **classes;
  size_t nclasses;
  struct mti_class **active; /* classes with callbacks */
  size_t nactive;
  uint64_t **c64;
  size_t n64;
  uint32_t **c32;
  size_t n32;
  bool hot;
  bool one_call; /* numeric fields, one callback, no counters: feed's short path */
  MTI_FieldMask fill_mask; /* fields some active class selects */
  int nops, nnum;           /* ops; the first nnum are numeric, then strings */
  struct mti_fill_op ops[TW__MTI_MAX_FIELDS];
  struct mti_call *calls;
  size_t ncalls;
  uint8_t *record; /* spec->layout_size + 8 bytes (room for an 8-byte store), 8-aligned */
};

#define MTI_GATE_STOPPED 0x01u
#define MTI_GATE_IN_FEED 0x02u

#define MTI_F_HOT 0x01u   /* counters or classes with callbacks */
#define MTI_F_STATE 0x02u /* the RTOS state model is fed the event */
#define MTI_F_NAME 0x04u  /* a NAME event: names are kept even untracked */

struct mti_component {
  MTI_ComponentTraceInterface base;
  struct tw_mti_system *sys;
  uint16_t stream, endpoint, instance;
  char *path;
  struct mti_source **sources;
  uint8_t *flags; /* per source: MTI_F_*, the hot path's one load */
  int nsources;
  struct mti_source *tasks_src, *mutexes_src, *sems_src;
  /* The RTOS state model is fed this component's events from the moment an
   * event class exists on one of its dump_state sources or a plugin asked
   * for the model: before that nobody can ask for the state, and skipping
   * it keeps the event path short for plugins that never do. Names are
   * kept always. */
  bool track;
};

struct tw_mti_system {
  MTI_SystemTraceInterface systrace;
  TW_TraceContext ctx;
  const struct tw_event_desc *descs;
  size_t ndescs;
  struct tw__mti_source_spec **specs; /* same order as every component's sources */
  int nspecs;
  int16_t id_index[TW__MTI_ID_TABLE]; /* event id -> source index, -1 */
  struct mti_component **comps;        /* by component index */
  int ncomps;
  struct mti_component **by_stream;    /* by stream number */
  size_t nby_stream;
  struct mti_class **classes;          /* by class id (0 unused) */
  size_t nclasses;
  struct tw_rtos *model;               /* states and names (tracewire/model/rtos.h) */
  bool track_all;                      /* a plugin holds the model: every component */
  bool dump_hot;                       /* some TASKS/MUTEXES/SEMAPHORES source is hot */
  bool listening;                      /* observing the model for them */
  uint64_t model_oom;                  /* the model could not store something */
  bool running;
  uint8_t gate; /* MTI_GATE_*: feed's one test for both */
  bool have_first_endpoint;
  uint16_t first_endpoint;
  uint64_t unknown;
  const struct tw_event *cur_event;
  const struct mti_component *cur_comp;
  unsigned long long failures; /* TW_TraceContext::ReportFailure calls */
};

/* A value for MTI_FILL_GIVEN fields. */
struct tw__mti_val {
  uint64_t u;
  const char *s;
  size_t len;
};

/* mti_source.c */
struct tw__mti_source_spec *tw__mti_spec_from_desc(const struct tw_event_desc *d);
struct tw__mti_source_spec *tw__mti_spec_dump(enum mti_kind kind);
void tw__mti_spec_layout(struct tw__mti_source_spec *spec);
struct mti_source *tw__mti_source_new(struct mti_component *comp,
                                      const struct tw__mti_source_spec *spec, int index);
void tw__mti_source_free(struct mti_source *src);
void tw__mti_record_fill_given(const struct mti_source *src, uint8_t *rec,
                               const struct tw__mti_val *vals);
void tw__mti_source_emit(struct mti_source *src, const struct tw__mti_val *vals);
void tw__mti_source_refresh(struct mti_source *src);
void tw__mti_flags_update(struct mti_source *src);

/* mti_state.c */
int tw__mti_state_init(struct tw_mti_system *sys);
void tw__mti_state_update(struct mti_component *comp, const struct tw_event *ev);
MTI_Status tw__mti_state_dump(struct mti_class *cls, MTI_CallbackT cb, void *user);
void tw__mti_track_all(struct tw_mti_system *sys);
void tw__mti_state_listen(struct tw_mti_system *sys);
bool tw__mti_spec_names(const struct tw_event_desc *d);

/* mti_system.c */
int tw__mti_source_index(const struct tw_mti_system *sys, uint16_t id);
int tw__mti_class_register_id(struct tw_mti_system *sys, struct mti_class *cls);

/* mti_plugin.c */
const eslapi_CADIParameterInfo_t *tw__mti_plugin_param(const struct tw_mti_plugin *p,
                                                       const char *name, size_t namelen);
int tw__mti_plugin_parse(const struct tw_mti_plugin *p, const char *assignment,
                         eslapi_CADIParameterValue_t *v, char *err, size_t errcap);

/* Shared ObtainInterface logic: self answers its own name at revision rev
 * and eslapi::CAInterface 0. */
eslapi_CAInterface *tw__mti_obtain_self(eslapi_CAInterface *self, const char *own, uint32_t rev,
                                        eslapi_if_name_t name, eslapi_if_rev_t min,
                                        eslapi_if_rev_t *actual);

void tw__mti_msg(char *err, size_t errcap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
