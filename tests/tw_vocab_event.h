/*
 * A vocabulary event as the decoder hands it on, for the host tests that
 * feed a consumer (the RTOS model, the analyses, the exporters) directly:
 * the descriptor looked up by id, the values in field order, an optional
 * string. Include after <cmocka.h>.
 */
#ifndef TW_VOCAB_EVENT_H
#define TW_VOCAB_EVENT_H

#include <stdint.h>
#include <string.h>

#include "tracewire/event.h"
#include "tracewire/vocab.h"

struct tw_test_ev {
  uint64_t time_ns;
  uint16_t endpoint, instance, stream, id;
  uint32_t v0, v1, v2;
  const char *str;
};

static inline struct tw_event tw_test_event(const struct tw_test_ev *t)
{
  struct tw_event e;
  memset(&e, 0, sizeof e);
  e.desc = tw_event_desc_by_id(t->id);
  assert_non_null(e.desc);
  e.time_ns = e.ticks = t->time_ns;
  e.endpoint = t->endpoint;
  e.instance = t->instance;
  e.stream = t->stream;
  e.id = t->id;
  e.module = e.desc->module;
  e.nvalues = e.desc->nfields;
  e.values[0] = t->v0;
  e.values[1] = t->v1;
  e.values[2] = t->v2;
  if (t->str) {
    e.str = t->str;
    e.str_len = strlen(t->str);
  }
  return e;
}

#endif
