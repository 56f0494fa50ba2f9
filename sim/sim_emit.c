/*
 * The model's only way out: each event goes through the real
 * instrumentation API (the generated tw_* emitters of tracewire/trace.h,
 * which test the trace mask the streamer controls and put into the kernel
 * event logger; the seed-004 interrupt event too, through tw_interrupt(),
 * so a host's mask change covers it) and then to the optional observer.
 */
#include "sim_internal.h"
#include "tracewire/klog.h"
#include "tracewire/trace.h"

void tw__sim_install_clock(void)
{
  tw_klog_set_timer(tw_sim_timer);
}

static void to_emitter(uint16_t id, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
  switch (id) {
  case TW_SIM_EV_INTERRUPT: tw_interrupt(a); break;
  case TW_SIM_EV_TASK_SWITCH: tw_task_switch((uint16_t)a); break;
  case TW_SIM_EV_MUTEX: tw_mutex((uint16_t)a, (uint16_t)b, (uint8_t)c); break;
  case TW_SIM_EV_SEM: tw_sem((uint16_t)a, (uint8_t)b); break;
  case TW_SIM_EV_SEM_TASK: tw_sem_task((uint16_t)a, (uint16_t)b, (uint8_t)c); break;
  case TW_SIM_EV_EVENT: tw_event((uint16_t)a, (uint8_t)b); break;
  case TW_SIM_EV_EVENT_TASK: tw_event_task((uint16_t)a, (uint16_t)b, (uint8_t)c); break;
  case TW_SIM_EV_MULTI_SEM: tw_multi_sem((uint16_t)a, (uint8_t)b, (uint8_t)c); break;
  case TW_SIM_EV_MULTI_SEM_TASK:
    tw_multi_sem_task((uint16_t)a, (uint16_t)b, (uint8_t)c, (uint8_t)d);
    break;
  case TW_SIM_EV_MULTI_EVENT: tw_multi_event((uint16_t)a, (uint8_t)b, (uint8_t)c); break;
  case TW_SIM_EV_MULTI_EVENT_TASK:
    tw_multi_event_task((uint16_t)a, (uint16_t)b, (uint8_t)c, (uint8_t)d);
    break;
  case TW_SIM_EV_ANTI_SEM: tw_anti_sem((uint16_t)a, (uint8_t)b); break;
  case TW_SIM_EV_ANTI_SEM_TASK: tw_anti_sem_task((uint16_t)a, (uint16_t)b, (uint8_t)c); break;
  case TW_SIM_EV_RES_SEM: tw_res_sem((uint16_t)a, (uint8_t)b); break;
  case TW_SIM_EV_RES_SEM_TASK: tw_res_sem_task((uint16_t)a, (uint16_t)b, (uint8_t)c); break;
  default: break;
  }
}

/* A task's number on the wire (a core of a multi-core model numbers its
 * tasks apart from the others'); EnterInt and LeaveInt stay. */
static uint32_t wire_task(const struct tw_sim *s, uint32_t t)
{
  return t < TW_SIM_MAX_TASKS ? s->wire[t] : t;
}

void tw__sim_emit(struct tw_sim *s, uint16_t id, unsigned n, uint32_t a, uint32_t b,
                  uint32_t c, uint32_t d)
{
  switch (id) { /* this core's numbers -> the endpoint's */
  case TW_SIM_EV_TASK_SWITCH:
    a = wire_task(s, a);
    break;
  case TW_SIM_EV_MUTEX: case TW_SIM_EV_SEM_TASK: case TW_SIM_EV_EVENT_TASK:
  case TW_SIM_EV_MULTI_SEM_TASK: case TW_SIM_EV_MULTI_EVENT_TASK:
  case TW_SIM_EV_ANTI_SEM_TASK: case TW_SIM_EV_RES_SEM_TASK:
    a = wire_task(s, a);
    b += s->obj_base;
    break;
  case TW_SIM_EV_SEM: case TW_SIM_EV_EVENT: case TW_SIM_EV_MULTI_SEM:
  case TW_SIM_EV_MULTI_EVENT: case TW_SIM_EV_ANTI_SEM: case TW_SIM_EV_RES_SEM:
    a += s->obj_base;
    break;
  default:
    break;
  }
  s->nevents++;
  to_emitter(id, a, b, c, d);
  if (s->collector && ++s->since_drain >= s->watermark &&
      s->tasks[s->collector].state == TW_SIM_DELAYED)
    tw__sim_ready(s, s->collector);
  if (s->observer) {
    struct tw_sim_event ev = { s->now, id, (uint16_t)n, { a, b, c, d } };
    s->observer(s->observer_ctx, &ev);
  }
}

/* Names go to the streamer's table, sent in-band at START. A full table
 * (TW_CFG_NAMES) loses the rest: the trace still decodes, with numbers. */
static void reg(enum tw_obj_kind kind, unsigned n, const char *name, uint8_t prio)
{
  (void)tw_name_register(kind, (uint16_t)n, name, prio);
}

void tw_sim_register_names(const struct tw_sim *s)
{
  unsigned b = s->obj_base;
  for (unsigned i = 0; i < s->ntasks; i++)
    reg(TW_OBJ_TASK, s->wire[i], s->tasks[i].name, s->tasks[i].prio);
  for (unsigned i = 0; i < TW_SIM_MAX_OBJS; i++) {
    if (s->mutex[i].used) reg(TW_OBJ_MUTEX, b + i, s->mutex[i].name, 0);
    if (s->sem[i].used) reg(TW_OBJ_SEM, b + i, s->sem[i].name, 0);
    if (s->event[i].used) reg(TW_OBJ_EVENT, b + i, s->event[i].name, 0);
    if (s->msem[i].used) reg(TW_OBJ_MSEM, b + i, s->msem[i].name, 0);
    if (s->mevent[i].used) reg(TW_OBJ_MEVENT, b + i, s->mevent[i].name, 0);
    if (s->asem[i].used) reg(TW_OBJ_ASEM, b + i, s->asem[i].name, 0);
    if (s->rsem[i].used) reg(TW_OBJ_RSEM, b + i, s->rsem[i].name, 0);
  }
  reg(TW_OBJ_IRQ, TW_SIM_IRQ_SYSTICK, "SysTick", 0);
  for (unsigned i = 0; i < TW_SIM_MAX_IRQS; i++)
    if (s->irq[i].used)
      reg(TW_OBJ_IRQ, TW_SIM_IRQ_DEVICE0 + i, s->irq[i].name, 0);
}
