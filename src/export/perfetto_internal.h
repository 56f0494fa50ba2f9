/*
 * Shared by perfetto.c (the file, its sequences, TrackEvents, interning)
 * and perfetto_sched.c (the scheduler as ftrace data: CPU bundles,
 * thread states, interrupts). docs/exporters.md, "Perfetto", says what
 * goes where and why.
 */
#ifndef TW_EXPORT_PERFETTO_INTERNAL_H
#define TW_EXPORT_PERFETTO_INTERNAL_H

#include "pbuf.h"
#include "timeline.h"

/* Field numbers, from perfetto_trace.proto (the merged trace protos). */
enum {
  TRACE_PACKET = 1,
  /* TracePacket */
  TP_FTRACE = 1, TP_PROCESS_TREE = 2, TP_CLOCK_SNAPSHOT = 6, TP_TIMESTAMP = 8, TP_SEQ_ID = 10,
  TP_TRACK_EVENT = 11, TP_INTERNED = 12, TP_SEQ_FLAGS = 13, TP_CLOCK_ID = 58, TP_DEFAULTS = 59,
  TP_TRACK_DESCRIPTOR = 60, TP_TASK_STATE = 117,
  /* TracePacketDefaults */
  TPD_CLOCK_ID = 58,
  /* ClockSnapshot, ClockSnapshot.Clock */
  CS_CLOCKS = 1, CK_ID = 1, CK_TIMESTAMP = 2, CK_INCREMENTAL = 3, CK_UNIT_NS = 4,
  /* ProcessTree, .Process, .Thread */
  PT_PROCESSES = 1, PT_THREADS = 2, PTP_PID = 1, PTP_CMDLINE = 3, PTT_TID = 1, PTT_NAME = 2,
  PTT_TGID = 3,
  /* TrackDescriptor, ProcessDescriptor, ThreadDescriptor, CounterDescriptor */
  TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5, TD_COUNTER = 8,
  PD_PID = 1, PD_NAME = 6, THD_PID = 1, THD_TID = 2, THD_NAME = 5, CD_UNIT_NAME = 6,
  /* TrackEvent */
  TE_CATEGORY_IIDS = 3, TE_DEBUG = 4, TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK = 11, TE_NAME = 23,
  TE_COUNTER_VALUE = 30, TE_FLOW_IDS = 47, TE_TERM_FLOW_IDS = 48,
  /* DebugAnnotation */
  DA_NAME_IID = 1, DA_UINT = 3, DA_INT = 4, DA_DOUBLE = 5, DA_STRING = 6, DA_NAME = 10,
  /* InternedData; EventName, EventCategory, DebugAnnotationName, InternedString */
  ID_CATEGORIES = 1, ID_EVENT_NAMES = 2, ID_DEBUG_NAMES = 3, ID_KERNEL_SYMBOLS = 26,
  IN_IID = 1, IN_NAME = 2,
  /* FtraceEventBundle, CompactSched */
  FB_CPU = 1, FB_EVENT = 2, FB_COMPACT = 4,
  CS_SW_TS = 1, CS_SW_STATE = 2, CS_SW_PID = 3, CS_SW_PRIO = 4, CS_INTERN = 5, CS_SW_COMM = 6,
  CS_WK_TS = 7, CS_WK_PID = 8, CS_WK_CPU = 9, CS_WK_PRIO = 10, CS_WK_COMM = 11,
  CS_WK_FLAGS = 12,
  /* FtraceEvent and the events used */
  FE_TIMESTAMP = 1, FE_SCHED_SWITCH = 4, FE_BLOCKED_REASON = 18, FE_IRQ_ENTRY = 36,
  FE_IRQ_EXIT = 37,
  SS_PREV_COMM = 1, SS_PREV_PID = 2, SS_PREV_PRIO = 3, SS_PREV_STATE = 4, SS_NEXT_COMM = 5,
  SS_NEXT_PID = 6, SS_NEXT_PRIO = 7,
  BR_PID = 1, BR_CALLER = 2,
  IRQ_IRQ = 1, IRQ_NAME = 2, IRQ_RET = 2,
  /* GenericKernelTaskStateEvent */
  GK_COMM = 2, GK_TID = 3, GK_STATE = 4,
};
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
enum { CLOCK_BOOTTIME = 6, CLOCK_US = 64, CLOCK_NS = 65 };
/* GenericKernelTaskStateEvent.TaskStateEnum */
enum {
  GK_UNKNOWN = 0, GK_RUNNABLE = 2, GK_SLEEP = 4, GK_UNINTERRUPTIBLE = 5, GK_STOPPED = 6,
  GK_DESTROYED = 8,
};

/* The trusted packet sequences (docs/exporters.md). */
enum { PF_SEQ_TRACK = 1, PF_SEQ_FTRACE = 2, PF_SEQ_STATE = 3, PF_NSEQ = 4 };

/* CompactSched's packed arrays, in one bundle. */
enum {
  PF_SW_TS, PF_SW_STATE, PF_SW_PID, PF_SW_PRIO, PF_SW_COMM,
  PF_WK_TS, PF_WK_PID, PF_WK_CPU, PF_WK_PRIO, PF_WK_COMM, PF_WK_FLAGS, PF_NARR
};

#define PF_COMM_SLOTS 256u /* distinct thread names in one bundle: half of it */
#define PF_BUNDLE_EVENTS 8192u

struct pf_frame {
  uint64_t since, end;
  uint32_t irq;
  uint16_t endpoint;
  uint8_t cut;
};

/* One CPU (a model core): the bundle being filled. */
struct pf_cpu {
  int used;
  struct pbuf a[PF_NARR];
  struct pbuf comm; /* intern_table strings */
  struct pbuf ev;   /* FtraceEvents: blocked reasons, interrupts */
  uint64_t last_sw, last_wk;
  unsigned n, nsw, nwk, ncomm, irqflags;
  unsigned left; /* events the arrays have room for (bundle_room) */
  uint32_t comm_key[PF_COMM_SLOTS]; /* task id + 1 (0: free; ~0: swapper) */
  uint16_t comm_idx[PF_COMM_SLOTS];
  struct pf_frame frames[TW_RTOS_MAX_NEST]; /* ended, waiting for the outermost */
  int nframes;
};

/* Per model task. */
struct pf_task {
  uint64_t sched_at; /* timestamp + 1 of its latest sched event (0: none) */
  uint32_t mark;     /* its pending state mark's index + 1 (0: none) */
  const char *comm_src;
  char *comm;        /* its name as valid UTF-8 */
  size_t comm_len;
};

/* A task's state set with a GenericKernelTaskStateEvent, written once
 * time has moved past it (so no sched event of the task at the same
 * instant can be ordered either side of it). */
struct pf_mark {
  uint32_t task;  /* model task id */
  uint32_t cpu;   /* where a blocked reason goes */
  uint8_t state;  /* GK_* */
  uint8_t live;
  uint64_t at;    /* its timestamp; a blocked reason at + 1 */
  uint64_t ksym;  /* blocked reason iid (0: none) */
};

struct pf_nent;
struct pf_dent;
struct pf_kplan;

struct pf {
  struct tw_export *x;
  struct tw__wfile w;
  struct pbuf out;          /* file bytes, written in large blocks */
  struct pbuf te, in, tmp;  /* a descriptor, a track event's new interned data, scratch */
  size_t pkt_at, te_at;     /* the track event being written into out */
  struct timeline *tl;
  const struct tw_rtos *m;
  struct pf_cpu *cpus;
  size_t ncpus;
  struct pf_task *tasks;
  size_t ntasks;
  struct pf_mark *marks;
  size_t nmarks, capmarks, mark0; /* marks[mark0..nmarks) pending */
  uint64_t last_us[PF_NSEQ], last_ns[PF_NSEQ]; /* the incremental clocks */
  int ftrace_cleared, state_cleared;
  /* interning on the track-event sequence */
  struct pf_nent *names;
  size_t nnames, capnames;
  struct pf_kplan *kplan;   /* name keys by meaning row or kind (perfetto.c) */
  struct pf_dent *dnames;
  size_t ndnames, capdnames;
  uint64_t next_iid[4];     /* by InternedData field: categories, names, debug names */
  uint64_t cat_iid[TW_MARKER_COUNT];
  uint64_t time_iid;        /* the "time" argument (inferred) */
  uint64_t *vocab_args;     /* argument-name iids of the vocabulary's kinds */
  /* kernel symbols (blocked reasons) on the ftrace sequence */
  uint64_t *ksym_obj;       /* by model object id * 2 + condition */
  size_t nksym_obj;
  uint64_t ksym_wait[TW_RTOS_NWAITS];
  uint64_t next_ksym;
  struct pbuf ksyms;        /* new ones, for the next ftrace packet */
  uint64_t now;             /* latest event time */
  char *scratch, *nbuf;
  size_t scratch_cap, nbuf_cap;
};

/* perfetto.c */
uint8_t *tw__pf_room(struct pf *pf, size_t need);
/* Writes the bytes of a Trace.packet whose body is in b. */
void tw__pf_packet(struct pf *pf, const struct pbuf *b);
/* A packet's timestamp on sequence seq (incremental where it can be). */
void tw__pf_timestamp(struct pf *pf, struct pbuf *b, int seq, uint64_t ts);
/* Valid UTF-8 of s[0..n) (invalid bytes become U+FFFD) in pf's scratch. */
const char *tw__pf_utf8(struct pf *pf, const char *s, size_t n, size_t *out_len);
int tw__pf_oom(struct pf *pf);

/* perfetto_sched.c */
extern const struct tl_sched_ops tw__pf_sched;
void tw__pf_sched_time(struct pf *pf, uint64_t now); /* time moved on: due marks */
void tw__pf_sched_finish(struct pf *pf);
void tw__pf_sched_free(struct pf *pf);
/* A task's name for ftrace comm fields (cached, valid UTF-8). */
const char *tw__pf_comm(struct pf *pf, const struct tw_rtos_task *t, size_t *len);

#endif
