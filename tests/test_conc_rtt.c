/*
 * RTT channels, both sides: the target's src/target/rtt.c writing and
 * reading, the host's src/io/rtt_host.c reading and writing through
 * memory callbacks over the same mapping (a 32-bit-addressable one, as a
 * Cortex-M's RAM). Modes (SKIP, TRIM, BLOCK with a host thread draining
 * concurrently, OVERWRITE), the down channel with wrap-around, the
 * streamer transport, and nonsense on either side: offsets out of range,
 * a missing or corrupt block.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <pthread.h>
#include <sys/mman.h>

#include "tracewire/io/rtt_host.h"
#include "tracewire/rtt.h"
#include "tracewire/uia.h"
#include "tracewire/error.h"

#define MEM 0x4000u
static uint8_t *mem;
static uint32_t base;
static struct tw_rtt_cb *cb;
#define UP (mem + 0x1000)
#define DOWN (mem + 0x2000)
#define GUARD 0xA5u

/* host memory access: word-wise atomics where aligned, as the fake GDB
 * server does, so the concurrent case has the happens-before of a bus */
static int rd(void *ctx, uint32_t addr, void *buf, uint32_t len)
{
  (void)ctx;
  if (addr < base || (uint64_t)addr + len > (uint64_t)base + MEM)
    return TW_EIO;
  uint8_t *out = buf;
  for (uint32_t i = 0; i < len;) {
    if ((addr + i) % 4 == 0 && len - i >= 4) {
      uint32_t w = __atomic_load_n((uint32_t *)(mem + addr - base + i), __ATOMIC_ACQUIRE);
      memcpy(out + i, &w, 4);
      i += 4;
    } else {
      out[i] = __atomic_load_n(mem + addr - base + i, __ATOMIC_ACQUIRE);
      i++;
    }
  }
  return 0;
}

static int wr(void *ctx, uint32_t addr, const void *buf, uint32_t len)
{
  (void)ctx;
  if (addr < base || (uint64_t)addr + len > (uint64_t)base + MEM)
    return TW_EIO;
  const uint8_t *in = buf;
  for (uint32_t i = 0; i < len;) {
    if ((addr + i) % 4 == 0 && len - i >= 4) {
      uint32_t w;
      memcpy(&w, in + i, 4);
      __atomic_store_n((uint32_t *)(mem + addr - base + i), w, __ATOMIC_RELEASE);
      i += 4;
    } else {
      __atomic_store_n(mem + addr - base + i, in[i], __ATOMIC_RELEASE);
      i++;
    }
  }
  return 0;
}

static const struct tw_rtt_mem M = { .read = rd, .write = wr };

static int setup(void **state)
{
  (void)state;
  void *m = mmap(NULL, MEM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (m == MAP_FAILED)
    return -1;
  mem = m;
  base = (uint32_t)(uintptr_t)m;
  memset(mem, GUARD, MEM);
  cb = (struct tw_rtt_cb *)(mem + 0x100);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  munmap(mem, MEM);
  return 0;
}

static void make(uint32_t up_size, enum tw_rtt_mode mode, uint32_t down_size)
{
  assert_int_equal(tw_rtt_init(cb), 0);
  assert_int_equal(tw_rtt_config_up(cb, 0, NULL, UP, up_size, mode), 0);
  assert_int_equal(tw_rtt_config_down(cb, 0, NULL, DOWN, down_size), 0);
}

static void attach(struct tw_rtt_host *h)
{
  memset(h, 0, sizeof *h);
  h->mem = M;
  uint32_t at = 0;
  assert_int_equal(tw_rtt_host_find(h, base, MEM, &at), 1);
  assert_int_equal(at, base + 0x100);
  assert_int_equal(tw_rtt_host_attach(h, &M, at, 0, 0), 0);
}

static void test_found_and_described(void **state)
{
  (void)state;
  make(64, TW_RTT_SKIP, 32);
  struct tw_rtt_host h;
  attach(&h);
  assert_int_equal(h.max_up, TW_CFG_RTT_UP);
  assert_int_equal(h.max_down, TW_CFG_RTT_DOWN);
  assert_int_equal(h.up.size, 64);
  assert_int_equal(h.up.buf, base + 0x1000);
  assert_true(h.has_down);
  /* no block: find says so, attach names the address */
  memset(cb, 0, sizeof *cb);
  uint32_t at;
  assert_int_equal(tw_rtt_host_find(&h, base, MEM, &at), 0);
  assert_int_equal(tw_rtt_host_attach(&h, &M, base + 0x100, 0, 0), TW_EPROTO);
  assert_non_null(strstr(h.err, "no RTT control block at"));
}

static void test_skip_trim(void **state)
{
  (void)state;
  uint8_t b[64], out[64];
  for (int i = 0; i < 64; i++)
    b[i] = (uint8_t)i;
  make(16, TW_RTT_SKIP, 16);
  assert_int_equal(tw_rtt_write(cb, 0, b, 10), 10);
  assert_int_equal(tw_rtt_write(cb, 0, b, 10), 0);  /* 5 free: all or nothing */
  assert_int_equal(tw_rtt_send(cb, b, 8), TW_EBUSY); /* a packet waits */
  assert_int_equal(tw_rtt_unread(cb, 0), 10);
  assert_int_equal(tw_rtt_set_mode(cb, 0, TW_RTT_TRIM), 0);
  assert_int_equal(tw_rtt_write(cb, 0, b + 10, 10), 5); /* what fits */
  struct tw_rtt_host h;
  attach(&h);
  assert_int_equal(tw_rtt_host_read(&h, out, sizeof out), 15);
  assert_memory_equal(out, b, 15);
  assert_int_equal(tw_rtt_unread(cb, 0), 0);
  assert_int_equal(tw_rtt_host_read(&h, out, sizeof out), 0);
  /* wrap-around: 12 bytes from offset 15 */
  assert_int_equal(tw_rtt_write(cb, 0, b, 12), 12);
  assert_int_equal(tw_rtt_host_read(&h, out, 5), 5); /* bounded by the caller */
  assert_int_equal(tw_rtt_host_read(&h, out + 5, sizeof out), 7);
  assert_memory_equal(out, b, 12);
  assert_int_equal(UP[16], GUARD); /* never past the buffer */
}

static void test_overwrite_keeps_the_newest(void **state)
{
  (void)state;
  uint8_t b[100], out[64];
  for (int i = 0; i < 100; i++)
    b[i] = (uint8_t)(i + 1);
  make(32, TW_RTT_OVERWRITE, 16);
  assert_int_equal(tw_rtt_write(cb, 0, b, 20), 20);
  assert_int_equal(tw_rtt_write(cb, 0, b + 20, 20), 20); /* 9 oldest go */
  struct tw_rtt_host h;
  attach(&h);
  assert_int_equal(tw_rtt_host_read(&h, out, sizeof out), 31);
  assert_memory_equal(out, b + 9, 31);
  assert_int_equal(tw_rtt_write(cb, 0, b, 100), 100); /* longer than the ring: its tail */
  assert_int_equal(tw_rtt_host_read(&h, out, sizeof out), 31);
  assert_memory_equal(out, b + 69, 31);
  assert_int_equal(UP[32], GUARD);
}

struct drain {
  struct tw_rtt_host *h;
  uint32_t want, got;
  uint8_t *out;
};

static void *drainer(void *arg)
{
  struct drain *d = arg;
  while (d->got < d->want) {
    int n = tw_rtt_host_read(d->h, d->out + d->got, d->want - d->got);
    if (n < 0)
      return NULL;
    d->got += (uint32_t)n;
  }
  return NULL;
}

static void test_block_with_a_concurrent_host(void **state)
{
  (void)state;
  enum { N = 50000 };
  static uint8_t b[N], out[N];
  for (uint32_t i = 0; i < N; i++)
    b[i] = (uint8_t)(i * 13u + (i >> 9));
  make(61, TW_RTT_BLOCK, 16); /* odd size: every wrap point */
  struct tw_rtt_host h;
  attach(&h);
  struct drain d = { .h = &h, .want = N, .out = out };
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, drainer, &d), 0);
  for (uint32_t i = 0; i < N;) {
    uint32_t n = 1u + (i * 7u) % 97u;
    if (n > N - i)
      n = N - i;
    if (i % 2)
      assert_int_equal(tw_rtt_write(cb, 0, b + i, n), (int)n);
    else
      assert_int_equal(tw_rtt_send(cb, b + i, n < 60 ? n : 60), 0), n = n < 60 ? n : 60;
    i += n;
  }
  pthread_join(t, NULL);
  assert_int_equal(d.got, N);
  assert_memory_equal(out, b, N);
}

static void test_down_channel(void **state)
{
  (void)state;
  uint8_t in[40], got[40];
  for (int i = 0; i < 40; i++)
    in[i] = (uint8_t)(0x30 + i);
  make(16, TW_RTT_SKIP, 16);
  struct tw_rtt_host h;
  attach(&h);
  assert_int_equal(tw_rtt_host_write(&h, in, 40), 15); /* size - 1 */
  assert_int_equal(tw_rtt_host_write(&h, in, 40), 0);
  assert_int_equal(tw_rtt_read(cb, 0, got, 10), 10);
  assert_int_equal(tw_rtt_read(cb, 0, got + 10, 40), 5);
  assert_memory_equal(got, in, 15);
  assert_int_equal(tw_rtt_host_write(&h, in + 15, 12), 12); /* wraps */
  assert_int_equal(tw_rtt_read(cb, 0, got, 40), 12);
  assert_memory_equal(got, in + 15, 12);
  assert_int_equal(tw_rtt_read(cb, 0, got, 40), 0);
  assert_int_equal(DOWN[16], GUARD);
}

/* A confused host cannot make the target write outside its buffers, and
 * the host reports a corrupt block with what and where. */
static void test_nonsense_on_both_sides(void **state)
{
  (void)state;
  uint8_t b[40] = { 0 }, out[64];
  make(16, TW_RTT_BLOCK, 16);
  __atomic_store_n(&cb->up[0].rd, 1000u, __ATOMIC_RELEASE);   /* the host's offset: nonsense */
  __atomic_store_n(&cb->down[0].wr, 1000u, __ATOMIC_RELEASE);
  assert_int_equal(tw_rtt_write(cb, 0, b, 10), 10);           /* taken as drained: no hang */
  assert_int_equal(tw_rtt_read(cb, 0, out, sizeof out), 0);   /* nothing to read */
  assert_int_equal(UP[16], GUARD);
  assert_int_equal(DOWN[16], GUARD);
  struct tw_rtt_host h;
  memset(&h, 0, sizeof h);
  assert_int_equal(tw_rtt_host_attach(&h, &M, base + 0x100, 0, 0), TW_EPROTO);
  assert_non_null(strstr(h.err, "outside"));
  assert_non_null(strstr(h.err, "corrupt"));
  make(16, TW_RTT_SKIP, 16);
  attach(&h);
  cb->max_up = 1000; /* overwritten */
  assert_int_equal(tw_rtt_host_attach(&h, &M, base + 0x100, 0, 0), TW_EPROTO);
  assert_non_null(strstr(h.err, "1000 up"));
  make(16, TW_RTT_SKIP, 16);
  attach(&h);
  __atomic_store_n(&cb->up[0].size, 8u, __ATOMIC_RELEASE); /* re-made elsewhere */
  assert_int_equal(tw_rtt_host_read(&h, out, sizeof out), TW_EPROTO);
  assert_non_null(strstr(h.err, "buffer moved"));
  cb->up[0].size = 0; /* not configured yet */
  assert_int_equal(tw_rtt_host_attach(&h, &M, base + 0x100, 0, 0), TW_EAGAIN);
  assert_int_equal(tw_rtt_host_attach(&h, &M, base + 0x100, 5, 0), TW_EINVAL); /* no such channel */
}

static void test_bad_arguments(void **state)
{
  (void)state;
  uint8_t b[4];
  assert_int_equal(tw_rtt_init(NULL), TW_EINVAL);
  make(16, TW_RTT_SKIP, 16);
  assert_int_equal(tw_rtt_config_up(cb, 7, NULL, UP, 16, TW_RTT_SKIP), TW_EINVAL);
  assert_int_equal(tw_rtt_config_up(cb, 0, NULL, UP, 1, TW_RTT_SKIP), TW_EINVAL);
  assert_int_equal(tw_rtt_config_up(cb, 0, NULL, NULL, 16, TW_RTT_SKIP), TW_EINVAL);
  assert_int_equal(tw_rtt_config_up(cb, 0, NULL, UP, 16, (enum tw_rtt_mode)4), TW_EINVAL);
  assert_int_equal(tw_rtt_send(cb, b, 16), TW_EINVAL); /* never fits a 16-byte ring */
  memset(cb, 0, sizeof *cb);
  assert_int_equal(tw_rtt_write(cb, 0, b, 4), TW_EINVAL); /* unconfigured */
  assert_int_equal(tw_rtt_read(cb, 0, b, 4), TW_EINVAL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_found_and_described, setup, teardown),
    cmocka_unit_test_setup_teardown(test_skip_trim, setup, teardown),
    cmocka_unit_test_setup_teardown(test_overwrite_keeps_the_newest, setup, teardown),
    cmocka_unit_test_setup_teardown(test_block_with_a_concurrent_host, setup, teardown),
    cmocka_unit_test_setup_teardown(test_down_channel, setup, teardown),
    cmocka_unit_test_setup_teardown(test_nonsense_on_both_sides, setup, teardown),
    cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
