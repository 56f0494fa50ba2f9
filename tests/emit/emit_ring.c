/*
 * The emitters' put (tw__trace_put_now in src/target/kernel_event_logger.c)
 * on kernel rings of every kind it specialises for: a capacity that is a
 * power of two (masked indices, events written across the buffer's end)
 * and one that is not (an event that would cross the end goes through the
 * general put), lock-free and under the interrupt lock. Built once per
 * configuration (tests/CMakeLists.txt, TW_CFG_KLOG_CAPACITY and
 * TW_CFG_LOGGER_CRITICAL on the command line); one thread.
 *
 * The events are read back as they go, with the consumer's reads placed so
 * that every event lands at every offset from the buffer's end: each must
 * come back whole (id, size, payload) and in order. Then the ring is
 * filled without reading: the drops must be exact (announced with the next
 * event) and nothing put may be lost.
 */
#include <stdio.h>
#include <stdlib.h>
#include "tracewire/klog.h"
#include "tracewire/trace.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "emit_ring (capacity %d): ", TW_CFG_KLOG_CAPACITY); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); fails++; } } while (0)

static uint32_t next_a; /* what the next event read must carry */

/* one of three shapes, by i: a 1-word and two 2-word events */
static void emit(uint32_t i)
{
  switch (i % 3) {
  case 0: tw_task_switch((uint16_t)i); break;
  case 1: tw_mutex((uint16_t)i, (uint16_t)(i >> 16), (uint8_t)(i % 5)); break;
  default: tw_sem_task((uint16_t)i, (uint16_t)(i >> 16), (uint8_t)(i % 3)); break;
  }
}

static int read_one(uint32_t *dropped)
{
  uint32_t w[8];
  struct tw_logger_rec rec;
  int n = tw_klog_get(&rec, w, 8);
  if (n <= 0)
    return n;
  uint32_t i = next_a++;
  static const uint16_t ids[3] = { TW_EV_TASK_SWITCH, TW_EV_MUTEX, TW_EV_SEM_TASK };
  CHECK(rec.id == ids[i % 3], "event %u: id %u, expected %u", i, rec.id, ids[i % 3]);
  CHECK(n == (i % 3 ? 3 : 2), "event %u: %d words", i, n);
  CHECK((w[1] & 0xFFFFu) == (i & 0xFFFFu), "event %u: payload 0x%08x", i, w[1]);
  if (i % 3)
    CHECK(w[2] == (i % 3 == 1 ? i % 5 : i % 3), "event %u: second word 0x%08x", i, w[2]);
  *dropped += rec.dropped;
  return n;
}

int main(void)
{
  tw_trace_mask = 0xFFFFFFFFu;
  uint32_t dropped = 0;
  /* 1. read as we go, one to (capacity / 2) events apart: every offset */
  uint32_t i = 0;
  for (uint32_t gap = 1; gap <= TW_CFG_KLOG_CAPACITY / 4u; gap++)
    for (uint32_t round = 0; round < 7; round++) {
      for (uint32_t k = 0; k < gap; k++)
        emit(i++);
      while (read_one(&dropped) > 0)
        ;
    }
  CHECK(next_a == i && dropped == 0, "%u events put, %u read, %u dropped", i, next_a, dropped);
  /* 2. fill it without reading: exact drops, then the rest reads back */
  uint32_t put = 0;
  struct tw_logger_stats st;
  tw_logger_stats(tw_klog_logger(), &st);
  uint32_t drops0 = st.drops;
  for (uint32_t k = 0; k < 3u * TW_CFG_KLOG_CAPACITY; k++, put++)
    emit(i + k);
  tw_logger_stats(tw_klog_logger(), &st);
  uint32_t lost = st.drops - drops0;
  CHECK(lost > 0, "a full ring dropped nothing");
  uint32_t got = 0;
  while (read_one(&dropped) > 0) /* the first ones put: a full ring refuses the later */
    got++;
  emit(next_a + lost); /* carries the drops */
  next_a += lost;
  (void)read_one(&dropped);
  CHECK(got + lost == put, "%u put, %u kept and %u dropped", put, got, lost);
  CHECK(dropped == lost, "the next event announced %u drops, the logger counted %u", dropped, lost);
  printf("emit_ring: capacity %d%s: %u events through every offset, %u dropped exactly: %s\n",
         TW_CFG_KLOG_CAPACITY, TW_CFG_LOGGER_CRITICAL ? " (interrupt lock)" : " (lock-free)", i, lost,
         fails ? "FAIL" : "ok");
  return fails ? 1 : 0;
}
