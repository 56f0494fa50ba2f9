/*
 * Direct recording (src/target/direct.c) on the host, for
 * tests/sh/direct_record.sh: a 512-byte RTT up channel in 32-bit
 * addressable memory, a clock that advances 10 ticks a reading, and this
 * program as both target and host: it emits a fixed script of events,
 * drains the channel as a probe would (between events, or not for a
 * while so that events are dropped), writes what it read to argv[1] and
 * prints the recorder's counts. Built with TW_CFG_DIRECT=1,
 * TW_CFG_CUSTOM_DECLS=0 and TW_CFG_MIN_EVENT_PKT=1.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "tracewire/direct.h"
#include "tracewire/port.h"
#include "tracewire/rtt.h"
#include "tracewire/trace.h"

/* the port's primitives direct.c uses: a deterministic clock, no lock (one thread) */
static uint32_t clk = 1000;
uint32_t tw_port_timestamp(void) { return clk += 10; }
uint32_t tw_port_timestamp_hz(void) { return 1000000; }
uint32_t tw_port_irq_lock(void) { return 0; }
void tw_port_irq_unlock(uint32_t key) { (void)key; }

static struct tw_rtt_cb *cb;
static uint8_t *up;
static FILE *out;

/* the probe: copy [rd, wr) out and move rd */
static void drain(void)
{
  struct tw_rtt_chan *c = &cb->up[0];
  uint32_t wr = __atomic_load_n(&c->wr, __ATOMIC_ACQUIRE), rd = c->rd;
  while (rd != wr) {
    fputc(up[rd], out);
    rd = (rd + 1) % c->size;
  }
  __atomic_store_n(&c->rd, rd, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
  uint8_t *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (argc != 2 || mem == MAP_FAILED || !(out = fopen(argv[1], "wb")))
    return 2;
  cb = (struct tw_rtt_cb *)mem;
  up = mem + 1024;
  char *name = (char *)mem + 512; /* a name the block points to: in 32-bit memory too */
  strcpy(name, "tracewire");
  if (tw_rtt_init(cb) || tw_rtt_config_up(cb, 0, name, up, 512, TW_RTT_SKIP))
    return 2;
  tw_name_register(TW_OBJ_TASK, 1, "idle", 0);
  tw_name_register(TW_OBJ_TASK, 2, "worker", 3);
  tw_name_register(TW_OBJ_MUTEX, 7, "lock", 0);
  const struct tw_direct_cfg cfg = { .rtt = cb, .freq_hz = 1000000, .endpoint = 1, .sync_ticks = 500 };
  if (tw_direct_init(&cfg) || tw_direct_init(&(struct tw_direct_cfg){ .rtt = cb, .channel = 5 }) != TW_EINVAL)
    return 3;
  if (tw_direct_start(0xFFFFFFFFu)) /* SYNC, TRACE_START and 5 NAME packets: 464 bytes */
    return 4;
  drain();
  for (int i = 0; i < 100; i++) { /* drained after each: nothing lost */
    tw_task_switch((uint16_t)(1 + i % 2));
    tw_mutex(2, 7, (uint8_t)(i % 2 ? TW_MUTEX_Unlock : TW_MUTEX_Lock));
    drain();
  }
  for (int i = 0; i < 40; i++) /* not drained: the channel fills, events are dropped */
    tw_sem(9, TW_SEM_Give);
  drain();
  tw_task_switch(1); /* carries the DROPS record */
  tw_sleep_at(clk + 5, clk + 100, 3); /* an _at emitter: its own timestamp */
  drain();
  if (tw_direct_stop(1))
    return 5;
  drain();
  struct tw_direct_stats st;
  tw_direct_stats(&st);
  printf("events %u drops %u packets %u bytes %u\n", st.events, st.drops, st.packets, st.bytes);
  return fclose(out) ? 6 : 0;
}
