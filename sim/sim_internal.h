/* Cross-file internals of the workload model (not installed). */
#ifndef TW_SIM_INTERNAL_H
#define TW_SIM_INTERNAL_H

#include "tw_sim.h"

/* Emit one model event: through the real emitter (-> kernel event logger)
 * and to the observer. Values in events.def field order. */
void tw__sim_emit(struct tw_sim *s, uint16_t id, unsigned n, uint32_t a, uint32_t b,
                  uint32_t c, uint32_t d);
/* The task on whose behalf an operation runs: the running task, or
 * TW_SIM_TASK_ENTER_INT inside an ISR. */
uint16_t tw__sim_self(const struct tw_sim *s);
/* Block the running task on (kind, obj). */
void tw__sim_block(struct tw_sim *s, enum tw_sim_wait kind, unsigned obj);
/* The highest-priority (then longest-waiting) task blocked on (kind, obj),
 * or -1. */
int tw__sim_waiter(const struct tw_sim *s, enum tw_sim_wait kind, unsigned obj);
/* Make a blocked or delayed task ready (queued behind its equals). */
void tw__sim_ready(struct tw_sim *s, unsigned task);
/* Make the model's clock the kernel event logger's timer (sim_emit.c). */
void tw__sim_install_clock(void);
/* Charge one operation's cost (task context only). */
void tw__sim_charge(struct tw_sim *s, uint32_t ticks);

#endif
