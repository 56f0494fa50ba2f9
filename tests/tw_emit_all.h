/*
 * Call the generated emitter of timed event `id` with timestamp ts and
 * field values v[] (in events.def field order). Tests use it to cover every
 * event type through its real emitter.
 */
#ifndef TW_EMIT_ALL_H
#define TW_EMIT_ALL_H

#include "tracewire/trace.h"

static inline int emit_event_at(uint16_t id, uint32_t ts, const uint32_t *v)
{
  switch (id) {
  case TW_EV_CONTEXT_SWITCH: tw_context_switch_at(ts, v[0]); break;
  case TW_EV_INTERRUPT: tw_interrupt_at(ts, v[0]); break;
  case TW_EV_SLEEP: tw_sleep_at(ts, v[0], v[1]); break;
  case TW_EV_TASK_SWITCH: tw_task_switch_at(ts, (uint16_t)v[0]); break;
  case TW_EV_MUTEX: tw_mutex_at(ts, (uint16_t)v[0], (uint16_t)v[1], (uint8_t)v[2]); break;
  case TW_EV_SEM: tw_sem_at(ts, (uint16_t)v[0], (uint8_t)v[1]); break;
  case TW_EV_SEM_TASK: tw_sem_task_at(ts, (uint16_t)v[0], (uint16_t)v[1], (uint8_t)v[2]); break;
  case TW_EV_EVENT: tw_event_at(ts, (uint16_t)v[0], (uint8_t)v[1]); break;
  case TW_EV_EVENT_TASK: tw_event_task_at(ts, (uint16_t)v[0], (uint16_t)v[1], (uint8_t)v[2]); break;
  case TW_EV_MULTI_SEM: tw_multi_sem_at(ts, (uint16_t)v[0], (uint8_t)v[1], (uint8_t)v[2]); break;
  case TW_EV_MULTI_SEM_TASK:
    tw_multi_sem_task_at(ts, (uint16_t)v[0], (uint16_t)v[1], (uint8_t)v[2], (uint8_t)v[3]);
    break;
  case TW_EV_MULTI_EVENT: tw_multi_event_at(ts, (uint16_t)v[0], (uint8_t)v[1], (uint8_t)v[2]); break;
  case TW_EV_MULTI_EVENT_TASK:
    tw_multi_event_task_at(ts, (uint16_t)v[0], (uint16_t)v[1], (uint8_t)v[2], (uint8_t)v[3]);
    break;
  case TW_EV_ANTI_SEM: tw_anti_sem_at(ts, (uint16_t)v[0], (uint8_t)v[1]); break;
  case TW_EV_ANTI_SEM_TASK: tw_anti_sem_task_at(ts, (uint16_t)v[0], (uint16_t)v[1], (uint8_t)v[2]); break;
  case TW_EV_RES_SEM: tw_res_sem_at(ts, (uint16_t)v[0], (uint8_t)v[1]); break;
  case TW_EV_RES_SEM_TASK: tw_res_sem_task_at(ts, (uint16_t)v[0], (uint16_t)v[1], (uint8_t)v[2]); break;
  case TW_EV_TASK: tw_task_at(ts, (uint16_t)v[0], (uint8_t)v[1], v[2]); break;
  case TW_EV_OBJECT:
    tw_object_at(ts, (uint16_t)v[0], (uint8_t)v[1], (uint8_t)v[2], (uint8_t)v[3], (uint16_t)v[4], v[5]);
    break;
  case TW_EV_QUEUE: tw_queue_at(ts, (uint16_t)v[0], (uint8_t)v[1], v[2]); break;
  case TW_EV_SEM_EXT: tw_sem_ext_at(ts, (uint16_t)v[0], (uint16_t)v[1], (uint8_t)v[2]); break;
  case TW_EV_MUTEX_EXT: tw_mutex_ext_at(ts, (uint16_t)v[0], (uint16_t)v[1], (uint8_t)v[2]); break;
  case TW_EV_EGROUP: tw_egroup_at(ts, (uint16_t)v[0], (uint8_t)v[1], v[2]); break;
  case TW_EV_NOTIFY: tw_notify_at(ts, (uint16_t)v[0], (uint8_t)v[1], (uint8_t)v[2], v[3]); break;
  case TW_EV_TIMER: tw_timer_at(ts, (uint16_t)v[0], (uint8_t)v[1], (uint8_t)v[2], v[3]); break;
  case TW_EV_SBUF: tw_sbuf_at(ts, (uint16_t)v[0], (uint8_t)v[1], v[2]); break;
  case TW_EV_SCHED: tw_sched_at(ts, (uint8_t)v[0], v[1]); break;
  default: return -1;
  }
  return 0;
}

#endif
