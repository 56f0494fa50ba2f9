/* The analysis engine's state, shared by engine.c, query.c, output.c. */
#ifndef TW_ANALYSIS_INTERNAL_H
#define TW_ANALYSIS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/analysis/analysis.h"

enum { TW_AN_ID_INTERRUPT = 2, TW_AN_ID_TASK_SWITCH = 4, TW_AN_ID_MUTEX = 5,
       TW_AN_ID_LAST_RTOS = 17, TW_AN_ID_DROPS = 0x103, TW_AN_ID_NAME = 0x104 };
#define TW_AN_MAX_NEST 32
#define TW_AN_MAX_LOSSES 4096
#define TW_AN_MAX_TYPES 8

struct an_kind {
  uint8_t valid, has_task, obj_kind;
  enum tw_marker marker[TW_AN_MAX_TYPES];
  enum tw_marker default_marker;
};

struct an_task {
  uint8_t used, seen, state, wait_kind;
  uint16_t num;
  int prio;                  /* cached for detectors; -1 unknown */
  uint32_t wait_obj;
  uint64_t since, epoch;     /* state entered at; loss epoch then */
  uint64_t ns[TW_AN_NSTATES];
  uint64_t cpu_ns, intr_ns, switches_in; /* intr_ns: interrupts while it was running */
  uint64_t rel_t;
  int rel_pending;
  struct tw_hist *latency;
  uint64_t *win;
  /* priority inversion episode while blocked on a mutex */
  int inv_on, inv_seen, ninv_mid;
  uint64_t inv_first, inv_last, inv_seg, inv_ns, inv_epoch;
  uint16_t inv_owner, inv_mid[6];
  uint32_t inv_mutex;
};

struct an_frame {
  uint64_t start, give_t;
  uint32_t irq;
  int depth, have_give, announced;
};

struct an_irq {
  uint32_t irq;
  uint64_t count, nested, cpu_ns, cut; /* cut: closed at a loss gap, duration unknown */
  int max_depth;
  struct tw_hist *dur;
  uint64_t *win;
};

struct an_core {
  int used;
  char *name;
  uint16_t running;
  int depth, max_nesting;
  struct an_frame frames[TW_AN_MAX_NEST];
  struct an_task *tasks;
  size_t ntasks;
  struct an_irq *irqs;
  size_t nirqs, nirqs_used;
  uint64_t t0, t1, last_t, events, switches, isr_ns, unknown_ns;
  uint64_t overflow, unmatched, backwards;
  uint64_t epoch;
  uint64_t pending_loss[TW_AN_NCAUSES];
  int pending_loss_n;
  size_t nmutex_blocked;
  struct tw_hist *latency;
  uint64_t win_w;            /* window width, ns */
  uint64_t win_switches[TW_AN_WINDOWS], win_unknown[TW_AN_WINDOWS];
};

struct an_obj {
  uint8_t used, owner_core;
  uint16_t owner;
  int depth, max_depth;
  uint64_t lock_t;
  uint64_t count[TW_AN_MAX_TYPES];
  uint64_t blocks, releases, contended, lost_unlocks;
  struct tw_hist *hold, *wait;
};

struct an_name {
  char *s;
  int prio, have_prio;
};

struct tw_an {
  struct tw_an_cfg cfg;
  int finished;
  tw_an_observer obs;
  void *obs_ctx;
  struct an_kind kinds[TW_AN_ID_LAST_RTOS + 1];
  struct an_core *cores;
  size_t ncores, ncores_cap; /* cores 0..ncores-1 (some maybe unused) */
  struct an_obj *objs[TW_OBJ_COUNT];
  size_t nobjs[TW_OBJ_COUNT];
  struct an_name *names[TW_OBJ_COUNT];
  size_t nnames[TW_OBJ_COUNT];
  struct tw_an_finding *findings;
  size_t nfind, nfind_cap;
  size_t open_dl[64];
  uint64_t dl_epoch[64];
  size_t nopen_dl;
  struct tw_an_loss *losses;
  size_t nloss, nloss_cap, loss_merged;
  uint64_t lost[TW_AN_NCAUSES];
};

struct an_task *tw__an_task(struct tw_an *a, struct an_core *c, uint32_t num);
struct an_obj *tw__an_obj(struct tw_an *a, unsigned kind, uint32_t num);
struct an_core *tw__an_core(struct tw_an *a, int core);
void tw__an_win_halve(uint64_t *w);
void tw__an_kinds_init(struct tw_an *a);

static inline const struct an_kind *tw__an_kind(const struct tw_an *a, uint16_t id)
{
  return id <= TW_AN_ID_LAST_RTOS && a->kinds[id].valid ? &a->kinds[id] : NULL;
}

static inline enum tw_marker tw__an_marker(const struct tw_an *a, uint16_t id, uint32_t type)
{
  const struct an_kind *k = tw__an_kind(a, id);
  if (!k)
    return TW_MARKER_NONE;
  if (id == TW_AN_ID_TASK_SWITCH)
    return type == 0xFFFE ? TW_MARKER_UP : type == 0xFFFF ? TW_MARKER_DOWN : TW_MARKER_PUSH;
  return type < TW_AN_MAX_TYPES ? k->marker[type] : k->default_marker;
}

void tw__an_finding_text(const struct tw_an *a, const struct tw_an_finding *fd, char *buf,
                         size_t cap);

#endif
