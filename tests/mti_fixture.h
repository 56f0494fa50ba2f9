/*
 * A small vocabulary shaped like events.def (task switch with its
 * interrupt constants, mutex, semaphore, NAME with a string, a custom
 * event), so the trace model's tests do not depend on the generated table,
 * plus helpers to build decoded events.
 */
#ifndef TW_TESTS_MTI_FIXTURE_H
#define TW_TESTS_MTI_FIXTURE_H

#include <string.h>
#include "tracewire/event.h"
#include "tracewire/model/mti_host.h"
#include "tracewire/vocab.h"

enum { FX_TASK_SWITCH = 4, FX_MUTEX = 5, FX_SEM = 6, FX_SEM_TASK = 7, FX_NAME = 0x104,
       FX_CUSTOM = 20 };

static const struct tw_enum_desc fx_ts_enums[] = {
  {"EnterInt", 0xFFFE, TW_MARKER_UP, "Interrupt entered"},
  {"LeaveInt", 0xFFFF, TW_MARKER_DOWN, "Interrupt left"}};
static const struct tw_field_desc fx_ts_fields[] = {
  {"task", TW_FT_U16, 0, 0, 16, TW_OBJ_TASK, "Task becoming active"}};
static const struct tw_enum_desc fx_mutex_enums[] = {
  {"Lock", 0, TW_MARKER_UP, ""}, {"Unlock", 1, TW_MARKER_DOWN, ""},
  {"IncLock", 2, TW_MARKER_INC, ""}, {"DecLock", 3, TW_MARKER_DEC, ""},
  {"Block", 4, TW_MARKER_UP_BLOCK, ""}};
static const struct tw_field_desc fx_mutex_fields[] = {
  {"task", TW_FT_U16, 0, 0, 16, TW_OBJ_TASK, "Task number"},
  {"mutex", TW_FT_U16, 0, 16, 16, TW_OBJ_MUTEX, "Mutex number"},
  {"type", TW_FT_ENUM8, 1, 0, 8, TW_OBJ_NONE, "Event type"}};
static const struct tw_enum_desc fx_sem_enums[] = {
  {"ToTaskList", 0, TW_MARKER_UP_UP_PUSH, ""}, {"Give", 1, TW_MARKER_UP, ""},
  {"GiveMany", 2, TW_MARKER_UP_UP, ""}};
static const struct tw_field_desc fx_sem_fields[] = {
  {"sem", TW_FT_U16, 0, 0, 16, TW_OBJ_SEM, "Semaphore number"},
  {"type", TW_FT_ENUM8, 0, 16, 8, TW_OBJ_NONE, "Event type"}};
static const struct tw_enum_desc fx_semt_enums[] = {
  {"ToTask", 0, TW_MARKER_UP_PUSH, ""}, {"Take", 1, TW_MARKER_DOWN, ""},
  {"Block", 2, TW_MARKER_DOWN_BLOCK, ""}};
static const struct tw_field_desc fx_semt_fields[] = {
  {"task", TW_FT_U16, 0, 0, 16, TW_OBJ_TASK, "Task number"},
  {"sem", TW_FT_U16, 0, 16, 16, TW_OBJ_SEM, "Semaphore number"},
  {"type", TW_FT_ENUM8, 1, 0, 8, TW_OBJ_NONE, "Event type"}};
static const struct tw_field_desc fx_name_fields[] = {
  {"kind", TW_FT_U8, 0, 0, 8, TW_OBJ_OBJKIND, "Object kind"},
  {"prio", TW_FT_U8, 0, 8, 8, TW_OBJ_NONE, "Priority"},
  {"number", TW_FT_U16, 0, 16, 16, TW_OBJ_NONE, "Object number"},
  {"name", TW_FT_STRING, 1, 0, 0, TW_OBJ_NONE, "Name"}};
static const struct tw_field_desc fx_custom_fields[] = {
  {"a", TW_FT_U8, 0, 0, 8, TW_OBJ_NONE, ""},
  {"b", TW_FT_U32, 1, 0, 32, TW_OBJ_NONE, ""}};

static const struct tw_event_desc fx_descs[] = {
  {FX_TASK_SWITCH, TW_MOD_RTOS, TW_EVF_TIMED, 1, 1, 0, TW_MARKER_PUSH, 2, "TASK_SWITCH",
   "TaskSwitch", "A task becomes active", fx_ts_fields, fx_ts_enums},
  {FX_MUTEX, TW_MOD_RTOS, TW_EVF_TIMED, 3, 2, 2, TW_MARKER_NONE, 5, "MUTEX", "MutexEvent",
   "Mutex operation", fx_mutex_fields, fx_mutex_enums},
  {FX_SEM, TW_MOD_RTOS, TW_EVF_TIMED, 2, 1, 1, TW_MARKER_NONE, 3, "SEM", "SemEvent",
   "Semaphore operation", fx_sem_fields, fx_sem_enums},
  {FX_SEM_TASK, TW_MOD_RTOS, TW_EVF_TIMED, 3, 2, 2, TW_MARKER_NONE, 3, "SEM_TASK",
   "SemEventTask", "Semaphore operation by a task", fx_semt_fields, fx_semt_enums},
  {FX_NAME, TW_MOD_CONTROL, TW_EVF_STREAMER, 4, 1, -1, TW_MARKER_NONE, 0, "NAME", "Name",
   "Object name", fx_name_fields, NULL},
};
#define FX_NDESCS (sizeof fx_descs / sizeof fx_descs[0])

static const struct tw_event_desc fx_custom = {
  FX_CUSTOM, TW_MOD_CUSTOM, TW_EVF_TIMED, 2, 2, -1, TW_MARKER_NONE, 0, "Sensor", "Sensor",
  "A custom event", fx_custom_fields, NULL};

static inline const struct tw_event_desc *fx_desc(uint16_t id)
{
  for (size_t i = 0; i < FX_NDESCS; i++)
    if (fx_descs[i].id == id)
      return &fx_descs[i];
  return id == FX_CUSTOM ? &fx_custom : NULL;
}

/* An event on stream 0 (endpoint 1, core 0) unless changed by the caller. */
static inline struct tw_event fx_ev(uint16_t id, uint32_t v0, uint32_t v1, uint32_t v2)
{
  static uint32_t seq;
  struct tw_event e;
  memset(&e, 0, sizeof e);
  e.id = id;
  e.desc = fx_desc(id);
  e.endpoint = 1;
  e.seq = ++seq;
  e.time_ns = 1000ull * e.seq;
  e.nvalues = e.desc ? e.desc->nfields : 0;
  e.values[0] = v0;
  e.values[1] = v1;
  e.values[2] = v2;
  return e;
}

static inline struct tw_event fx_name(uint32_t kind, uint32_t prio, uint32_t number,
                                      const char *name)
{
  struct tw_event e = fx_ev(FX_NAME, kind, prio, number);
  e.str = name;
  e.str_len = strlen(name);
  return e;
}

#endif
