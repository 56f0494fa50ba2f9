/*
 * tw_sim: a deterministic model of a small preemptive, priority-based RTOS,
 * used as the workload of the tracewire demo (host) and of the QEMU
 * firmware (Cortex-M3). The very same sources run in both places, so the
 * same scenario and seed yield the same trace, event for event and
 * timestamp for timestamp (docs/sim.md).
 *
 * Design:
 *   - Freestanding C11: no malloc, no stdio, no threads. One caller-owned
 *     struct tw_sim holds everything (fixed-size arrays).
 *   - Virtual time (TW_SIM_HZ ticks per second, a 64-bit counter) replaces
 *     the hardware clock: the logger's timestamps come from it through
 *     sys_k_event_logger_set_timer(), so nothing depends on the host.
 *   - Tasks are state machines, not threads. A task body is called when the
 *     task is running and has no CPU work left; it performs ONE action
 *     (burn CPU time, one sync operation, a delay) and returns. A blocking
 *     operation that cannot complete blocks the task; when the object later
 *     releases the task, the operation has completed on its behalf (mutex
 *     handover, semaphore given directly to the waiter, ...), so the body
 *     simply continues at its next step.
 *   - Preemption happens between actions; CPU work is split at interrupt
 *     arrival times, so an interrupt preempts work at the exact virtual
 *     instant it arrives. Interrupts do not nest: one arriving during an
 *     ISR is taken right after it.
 *   - A timer tick interrupt (SysTick) wakes delayed tasks and rotates
 *     equal-priority tasks; device interrupts come from sources whose
 *     inter-arrival times are drawn from a seeded xorshift generator.
 *   - Every event goes through the real instrumentation API (tw_* emitters
 *     -> kernel event logger). An optional observer sees the same events as
 *     the model produced them (before the logger's mask), for unit tests.
 *
 * Context contract: a struct tw_sim is used by one thread at a time; none
 * of these functions is ISR-safe (the model *contains* its interrupts).
 */
#ifndef TW_SIM_H
#define TW_SIM_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/events_gen.h"

#define TW_SIM_HZ 1000000u        /* virtual clock: 1 tick = 1 us */
#define TW_SIM_TICK_US 1000u      /* OS tick period */
#define TW_SIM_MAX_TASKS 16
#define TW_SIM_MAX_OBJS 6         /* per object kind */
#define TW_SIM_MAX_INPUTS 8       /* multi-sem / multi-event inputs, 1-based */
#define TW_SIM_MAX_IRQS 6         /* device interrupt sources */
#define TW_SIM_MAX_CORES 4        /* cores of a multi-core model (sim_smp.c) */

#define TW_SIM_IRQ_SYSTICK 15u    /* Cortex-M exception number of SysTick */
#define TW_SIM_IRQ_DEVICE0 16u    /* first external interrupt */

#define TW_SIM_TASK_ENTER_INT TW_TASK_SWITCH_EnterInt /* TaskSwitch task values of seed 002 */
#define TW_SIM_TASK_LEAVE_INT TW_TASK_SWITCH_LeaveInt
#define TW_SIM_TASK_IDLE 0u

/* Type values of seed 002 (same order as the seed's enums). */
enum { TW_SIM_MUTEX_LOCK, TW_SIM_MUTEX_UNLOCK, TW_SIM_MUTEX_INCLOCK,
       TW_SIM_MUTEX_DECLOCK, TW_SIM_MUTEX_BLOCK };
enum { TW_SIM_SEM_TOTASKLIST, TW_SIM_SEM_GIVE, TW_SIM_SEM_GIVEMANY };
enum { TW_SIM_SEMT_TOTASK, TW_SIM_SEMT_TAKE, TW_SIM_SEMT_BLOCK };
enum { TW_SIM_EVENT_TRIGGER };
enum { TW_SIM_EVENTT_TOTASK, TW_SIM_EVENTT_CONSUME, TW_SIM_EVENTT_BLOCK };
enum { TW_SIM_MSEM_GIVE };
enum { TW_SIM_MSEMT_TOTASK, TW_SIM_MSEMT_BLOCK, TW_SIM_MSEMT_TAKE };
enum { TW_SIM_MEVENT_TRIGGER };
enum { TW_SIM_MEVENTT_TOTASK, TW_SIM_MEVENTT_CONSUME, TW_SIM_MEVENTT_BLOCK };
enum { TW_SIM_ASEM_ADD, TW_SIM_ASEM_SUB, TW_SIM_ASEM_RELEASE };
enum { TW_SIM_ASEMT_WAIT, TW_SIM_ASEMT_PASS };
enum { TW_SIM_RSEM_GIVE };
enum { TW_SIM_RSEMT_TOTASK, TW_SIM_RSEMT_WAIT, TW_SIM_RSEMT_PASS,
       TW_SIM_RSEMT_BLOCK, TW_SIM_RSEMT_TAKE };

/* Event ids (events.def). Kept here so the model and its tests do not
 * depend on the generated header. A test checks them against the vocabulary. */
enum tw_sim_ev {
  TW_SIM_EV_INTERRUPT = 2, TW_SIM_EV_TASK_SWITCH = 4, TW_SIM_EV_MUTEX = 5,
  TW_SIM_EV_SEM = 6, TW_SIM_EV_SEM_TASK = 7, TW_SIM_EV_EVENT = 8,
  TW_SIM_EV_EVENT_TASK = 9, TW_SIM_EV_MULTI_SEM = 10,
  TW_SIM_EV_MULTI_SEM_TASK = 11, TW_SIM_EV_MULTI_EVENT = 12,
  TW_SIM_EV_MULTI_EVENT_TASK = 13, TW_SIM_EV_ANTI_SEM = 14,
  TW_SIM_EV_ANTI_SEM_TASK = 15, TW_SIM_EV_RES_SEM = 16,
  TW_SIM_EV_RES_SEM_TASK = 17
};

/* What the model emitted, field values in events.def row order. */
struct tw_sim_event {
  uint64_t time;       /* virtual ticks */
  uint16_t id;         /* enum tw_sim_ev */
  uint16_t nfields;
  uint32_t f[4];
};

struct tw_sim;
struct tw_sim_task;
typedef void (*tw_sim_body)(struct tw_sim *s, struct tw_sim_task *t);
typedef void (*tw_sim_isr)(struct tw_sim *s, unsigned src);
typedef void (*tw_sim_observer)(void *ctx, const struct tw_sim_event *ev);
/* The collector's work: drain the logger (and poll the command link).
 * Returns how many events it moved; the model charges virtual time for it.
 * A negative return stops the run (e.g. the host sent "stop"). */
typedef int (*tw_sim_drain)(void *ctx);

enum tw_sim_tstate { TW_SIM_READY, TW_SIM_BLOCKED, TW_SIM_DELAYED, TW_SIM_DONE };

enum tw_sim_wait {
  TW_SIM_W_NONE, TW_SIM_W_MUTEX, TW_SIM_W_SEM, TW_SIM_W_EVENT, TW_SIM_W_MSEM,
  TW_SIM_W_MEVENT, TW_SIM_W_ASEM, TW_SIM_W_RSEM_TAKE, TW_SIM_W_RSEM_WAIT
};

struct tw_sim_task {
  const char *name;
  tw_sim_body body;
  uint8_t prio;          /* higher is more urgent; idle is 0 */
  uint8_t state;         /* enum tw_sim_tstate */
  uint8_t wait_kind;     /* enum tw_sim_wait while BLOCKED */
  uint8_t wait_obj;
  uint8_t got_index;     /* input index a multi-object released us with */
  uint16_t pc;           /* body's program counter */
  uint32_t var[4];       /* body-local variables */
  uint32_t work_left;    /* CPU ticks still to burn before the next action */
  uint64_t wake_at;      /* DELAYED: tick number to wake at */
  uint32_t queue_seq;    /* FIFO order among equal priorities */
  uint64_t cpu;          /* ticks spent running (stats) */
  uint32_t activations;  /* times switched in (stats) */
};

struct tw_sim_mutex { const char *name; uint16_t owner; uint16_t count; uint8_t used; };
struct tw_sim_sem { const char *name; uint32_t count; uint8_t used; };
struct tw_sim_event_obj { const char *name; uint8_t flag; uint8_t used; };
struct tw_sim_msem {
  const char *name; uint8_t ninputs; uint8_t next; uint8_t used;
  uint32_t count[TW_SIM_MAX_INPUTS + 1];
};
struct tw_sim_mevent {
  const char *name; uint8_t ninputs; uint8_t next; uint8_t used;
  uint32_t flags;        /* bit i = input i */
};
struct tw_sim_asem { const char *name; uint32_t count; uint8_t used; };
struct tw_sim_rsem { const char *name; uint32_t count; uint32_t max; uint8_t used; };

struct tw_sim_irq {
  const char *name;
  tw_sim_isr isr;
  uint32_t min_gap, max_gap; /* inter-arrival, uniform in [min, max] ticks */
  uint64_t start, stop;      /* active window [start, stop) in ticks */
  uint64_t next;             /* next arrival */
  uint32_t isr_cost;         /* ticks the handler body takes */
  uint32_t count;            /* arrivals (stats) */
  uint32_t arg[2];           /* the ISR's objects */
  uint8_t used;
};

struct tw_sim {
  uint64_t now;              /* virtual ticks */
  uint64_t ticks;            /* OS ticks so far */
  uint64_t next_tick;
  uint32_t rng;
  uint32_t seed;
  uint16_t current;          /* running task number */
  uint16_t ntasks;
  uint32_t queue_seq;
  int in_isr;
  int stopped;
  uint32_t op_cost;          /* ticks charged per sync operation */
  uint32_t switch_cost;      /* ticks charged per task switch */
  uint32_t isr_entry_cost;
  uint64_t nevents;          /* events emitted */
  uint64_t idle;             /* ticks idle */
  struct tw_sim_task tasks[TW_SIM_MAX_TASKS];
  struct tw_sim_mutex mutex[TW_SIM_MAX_OBJS];
  struct tw_sim_sem sem[TW_SIM_MAX_OBJS];
  struct tw_sim_event_obj event[TW_SIM_MAX_OBJS];
  struct tw_sim_msem msem[TW_SIM_MAX_OBJS];
  struct tw_sim_mevent mevent[TW_SIM_MAX_OBJS];
  struct tw_sim_asem asem[TW_SIM_MAX_OBJS];
  struct tw_sim_rsem rsem[TW_SIM_MAX_OBJS];
  struct tw_sim_irq irq[TW_SIM_MAX_IRQS];
  tw_sim_observer observer;
  void *observer_ctx;
  tw_sim_drain drain;
  void *drain_ctx;
  uint16_t collector;        /* task number of the collector, 0 if none */
  uint32_t since_drain;      /* events emitted since the collector last ran */
  uint32_t watermark;        /* wake the collector early after this many */
  uint64_t drained;          /* events the collector moved */
  /* A core of a multi-core model (tw_sim_smp_init): its index, and the
   * numbers its tasks and objects have on the wire, which are the
   * endpoint's (every core's tasks and objects numbered apart; a task's
   * twins on several cores share one number: the task migrates). One core
   * alone: 0, and wire[i] = i. */
  uint16_t core;
  uint16_t obj_base;
  uint16_t wire[TW_SIM_MAX_TASKS];
};

/* ---- set-up (before tw_sim_run) ----------------------------------------- */

/* Reset s; seed 0 is mapped to a fixed nonzero generator state. Creates the
 * idle task (number 0). Also installs the model's clock as the kernel event
 * logger's timer (there is one logger, so only one model drives it at a
 * time: the one most recently initialised). */
void tw_sim_init(struct tw_sim *s, uint32_t seed);
void tw_sim_set_observer(struct tw_sim *s, tw_sim_observer fn, void *ctx);
/* Create the collector task (priority prio) that calls fn every OS tick,
 * and earlier once TW_SIM_WATERMARK events were emitted since it last ran
 * (the logger signalling its consumer; 16 events is about half the seed's
 * 128-word ring). */
#define TW_SIM_WATERMARK 16u
int tw_sim_set_collector(struct tw_sim *s, uint8_t prio, tw_sim_drain fn, void *ctx);

/* Objects get consecutive numbers from 0 per kind (the number on the wire).
 * Return the number, or TW_ENOSPC / TW_EINVAL. Names are registered with
 * the streamer's name table by tw_sim_register_names(). */
int tw_sim_task_create(struct tw_sim *s, const char *name, uint8_t prio, tw_sim_body body);
int tw_sim_mutex_create(struct tw_sim *s, const char *name);
int tw_sim_sem_create(struct tw_sim *s, const char *name, uint32_t count);
int tw_sim_event_create(struct tw_sim *s, const char *name);
int tw_sim_msem_create(struct tw_sim *s, const char *name, unsigned ninputs);
int tw_sim_mevent_create(struct tw_sim *s, const char *name, unsigned ninputs);
int tw_sim_asem_create(struct tw_sim *s, const char *name);
int tw_sim_rsem_create(struct tw_sim *s, const char *name, uint32_t count);
/* A device interrupt source; arrivals uniform in [min_gap, max_gap] ticks
 * apart within [start, stop). Returns the source index (its IRQ number is
 * TW_SIM_IRQ_DEVICE0 + index). */
int tw_sim_irq_create(struct tw_sim *s, const char *name, tw_sim_isr isr, uint32_t min_gap,
                      uint32_t max_gap, uint64_t start, uint64_t stop, uint32_t isr_cost);
/* Register every task, object and interrupt name (with task priorities)
 * through tw_name_register(). */
void tw_sim_register_names(const struct tw_sim *s);

/* ---- running -------------------------------------------------------------- */

/* One scheduling step (an interrupt, a switch, a burst of CPU work, or one
 * body action). Returns 0, or 1 when the run was stopped. */
int tw_sim_step(struct tw_sim *s);
/* Step until virtual time reaches until (ticks), max_events events were
 * emitted (0 = no limit) or the drain hook stopped the run. Returns the
 * number of events emitted by this call. */
uint64_t tw_sim_run(struct tw_sim *s, uint64_t until, uint64_t max_events);
uint32_t tw_sim_rand(struct tw_sim *s);                /* xorshift32 */
uint32_t tw_sim_rand_range(struct tw_sim *s, uint32_t lo, uint32_t hi); /* [lo, hi] */
/* The model's clock as the logger's 32-bit timer (low bits of s->now). */
uint32_t tw_sim_timer(void);

/* ---- actions, called from task bodies (t = the running task) ----------- */

void tw_sim_work(struct tw_sim *s, uint32_t ticks);  /* burn CPU time */
void tw_sim_delay(struct tw_sim *s, uint32_t os_ticks); /* sleep >= 1 OS tick */
void tw_sim_exit(struct tw_sim *s);                   /* the task ends */

/* Sync operations. From a task they act for the running task and return 1
 * when done now, 0 when the task blocked (it resumes with the operation
 * done). Give/trigger/add/sub may also be called from an ISR. */
int tw_sim_mutex_lock(struct tw_sim *s, unsigned m);
int tw_sim_mutex_unlock(struct tw_sim *s, unsigned m);   /* TW_EINVAL if not owner */
void tw_sim_sem_give(struct tw_sim *s, unsigned sem);
void tw_sim_sem_give_many(struct tw_sim *s, unsigned sem, uint32_t n);
int tw_sim_sem_take(struct tw_sim *s, unsigned sem);
void tw_sim_event_trigger(struct tw_sim *s, unsigned ev);
int tw_sim_event_wait(struct tw_sim *s, unsigned ev);
void tw_sim_msem_give(struct tw_sim *s, unsigned ms, unsigned index);
int tw_sim_msem_take(struct tw_sim *s, unsigned ms);     /* index in t->got_index */
void tw_sim_mevent_trigger(struct tw_sim *s, unsigned me, unsigned index);
int tw_sim_mevent_wait(struct tw_sim *s, unsigned me);   /* index in t->got_index */
void tw_sim_asem_add(struct tw_sim *s, unsigned as, uint32_t n);
void tw_sim_asem_sub(struct tw_sim *s, unsigned as, uint32_t n);
int tw_sim_asem_wait(struct tw_sim *s, unsigned as);
void tw_sim_rsem_give(struct tw_sim *s, unsigned rs);
int tw_sim_rsem_take(struct tw_sim *s, unsigned rs);
int tw_sim_rsem_wait(struct tw_sim *s, unsigned rs);     /* until all given back */

/* ---- several cores (sim_smp.c) ---------------------------------------------- */

/* A multi-core model is one struct tw_sim per core, each its own
 * scheduler with its own tasks, objects, interrupts and clock, stepped in
 * time order (always the core whose clock is behind). Its events go to
 * the logger of the core being stepped (tw_port_core_id() returns
 * tw_sim_smp_core() in the program that links it; TW_CFG_CORES >= n). A
 * task that migrates is modelled as twins, one per core, sharing one task
 * number and taking turns: the trace shows one task running on one core,
 * then on another. There is no global scheduler (a task does not move to
 * an idle core by itself), which the scenario does not need.
 *
 * tw_sim_smp_init: tw_sim_init on each core (seed + core), numbers apart
 * (core c's tasks from c * TW_SIM_MAX_TASKS, objects from
 * c * TW_SIM_MAX_OBJS). */
void tw_sim_smp_init(struct tw_sim *cores, unsigned ncores, uint32_t seed);
/* Task `task` of core s is a twin of task `of_task` of core `of`: it has
 * its number on the wire. */
void tw_sim_task_twin(struct tw_sim *s, unsigned task, const struct tw_sim *of,
                      unsigned of_task);
/* The core being stepped (for tw_port_core_id), 0 outside a run. */
uint32_t tw_sim_smp_core(void);
/* Latest clock of any core: a monotonic "now" for the collector. */
uint64_t tw_sim_smp_now(const struct tw_sim *cores, unsigned ncores);
/* Step the cores in time order until every core's clock reaches until
 * (ticks), max_events were emitted (0: no limit) or a core was stopped.
 * Returns the events emitted. */
uint64_t tw_sim_smp_run(struct tw_sim *cores, unsigned ncores, uint64_t until,
                        uint64_t max_events);
/* Make s the clock of the kernel event logger (tw_sim_timer). */
void tw_sim_take_clock(struct tw_sim *s);

/* The multi-core scenario "smp" (docs/sim.md): two cores, each with its
 * own periodic tasks (and core 1 an interrupt feeding a semaphore), and
 * "migrant", a task that runs on core 0 in even periods of
 * TW_SIM_SMP_PERIOD ticks and on core 1 in odd ones, TW_SIM_SMP_WORK us of
 * work each. TW_EINVAL unless ncores == 2. */
#define TW_SIM_SMP_PERIOD 4u      /* OS ticks */
#define TW_SIM_SMP_WORK 1500u     /* us of the migrant's work per period */
int tw_sim_smp_setup(struct tw_sim *cores, unsigned ncores);
uint64_t tw_sim_smp_duration(void);

/* ---- scenarios ------------------------------------------------------------ */

enum tw_sim_scenario {
  TW_SIM_SC_DEMO,        /* pipeline + inversion + storm: everything */
  TW_SIM_SC_PIPELINE,    /* producer/consumer using all seven object kinds */
  TW_SIM_SC_CONTENTION,  /* three tasks, one recursive mutex */
  TW_SIM_SC_INVERSION,   /* high blocked on low's mutex while medium runs */
  TW_SIM_SC_DEADLOCK,    /* two tasks, two mutexes, opposite order */
  TW_SIM_SC_STORM,       /* interrupt storm that overflows the ring */
  TW_SIM_SC_COUNT
};
/* "demo", "pipeline", ...; NULL for an unknown value. */
const char *tw_sim_scenario_name(enum tw_sim_scenario sc);
/* TW_EINVAL for an unknown name. */
int tw_sim_scenario_parse(const char *name);
/* Create the scenario's tasks, objects and interrupts in s (after
 * tw_sim_init and optionally tw_sim_set_collector). */
int tw_sim_scenario_setup(struct tw_sim *s, enum tw_sim_scenario sc);
/* Virtual duration after which the scenario has shown its situation. */
uint64_t tw_sim_scenario_duration(enum tw_sim_scenario sc);

#endif
