/*
 * The installed waiter (tracewire/port.h, "pluggable sleeping"): one
 * pointer, read with acquire so a waiter's functions are seen whole once
 * its pointer is. The port's own primitives serve while none is set.
 */
#include <stddef.h>

#include "tracewire/port.h"

static const struct tw_waiter *waiter;

void tw_port_set_waiter(const struct tw_waiter *w)
{
  __atomic_store_n(&waiter, w, __ATOMIC_RELEASE);
}

uint32_t tw__ticks(void)
{
  const struct tw_waiter *w = __atomic_load_n(&waiter, __ATOMIC_ACQUIRE);
  return w ? w->ticks() : tw_port_ticks();
}

void tw__wait(uint32_t *word, uint32_t expect, uint32_t ticks)
{
  const struct tw_waiter *w = __atomic_load_n(&waiter, __ATOMIC_ACQUIRE);
  if (w)
    w->wait(word, expect, ticks);
  else
    tw_port_wait(word, expect, ticks);
}

void tw__wake(uint32_t *word)
{
  const struct tw_waiter *w = __atomic_load_n(&waiter, __ATOMIC_ACQUIRE);
  if (w)
    w->wake(word);
  else
    tw_port_wake(word);
}
