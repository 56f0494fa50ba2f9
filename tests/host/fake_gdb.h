/*
 * A fake GDB server with a fake target behind it, for the rtt+gdb tests.
 *
 * The target is a thread running the real target code (src/target/rtt.c)
 * on a control block and buffers in a 32-bit-addressable mapping
 * (MAP_32BIT), as a Cortex-M's RAM: it writes a byte pattern to up
 * channel 0 in BLOCK mode and reads down channel 0 into G.got. The server
 * is another thread speaking the GDB remote protocol on a loopback port
 * and serving m/M from that mapping; addresses outside it answer E14, as
 * QEMU does for unmapped memory.
 *
 * Halting is cooperative: the target thread checks G.halted between its
 * RTT calls and sleeps while it is set. In all-stop mode, like QEMU 7.2,
 * the server answers nothing while the target runs but 0x03 (and counts
 * any other packet sent then in G.while_running); with G.nonstop it
 * accepts QNonStop:1 and serves memory while the target runs. Each RTT
 * call of the target and each m/M of the server hold G.bus, as a bus
 * serialises accesses: the tests exercise the protocol and its faults,
 * test_conc_rtt.c the ring's concurrency itself.
 *
 * Faults on demand: E01 to memory reads (G.mem_error), the target never
 * making its block (G.no_cb), a corrupt write offset (G.corrupt), the
 * target re-making its block (G.reinit), the target exiting (G.exit_code:
 * W packet, then the server closes), the server going away (G.drop).
 *
 * Static functions in a header, like fake_target.h: one test program.
 */
#ifndef TW_TEST_HOST_FAKE_GDB_H
#define TW_TEST_HOST_FAKE_GDB_H

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include "tracewire/rtt.h"

#define FG_MEM 0x10000u     /* the target's "RAM" */
#define FG_CB_OFF 0x400u    /* where its control block goes */
#define FG_UP_OFF 0x1000u
#define FG_UP_SIZE 0x800u
#define FG_DOWN_OFF 0x2000u
#define FG_DOWN_SIZE 0x100u

struct fake_gdb {
  pthread_mutex_t bus;       /* one RTT call or one m/M at a time */
  uint8_t *mem;              /* FG_MEM bytes at a 32-bit address */
  uint32_t base;
  int lfd, port;
  pthread_t server, target;
  /* configuration, set before fg_start */
  int nonstop, noack;        /* offer non-stop mode / QStartNoAckMode */
  int no_cb;                 /* the target never makes a control block */
  uint32_t total;            /* pattern bytes the target sends */
  /* state, shared (atomics) */
  int halted;                /* the target is stopped */
  int stop;                  /* end both threads */
  int mem_error;             /* answer E01 to memory reads */
  int corrupt;               /* the target writes a bad write offset, once */
  int reinit;                /* the target makes its block again, once */
  int exit_code;             /* >= 0: the target exits: W<code>, close */
  int drop;                  /* the server closes the connection, once */
  /* counters */
  unsigned long long halts, while_running, mem_reads, connections;
  uint32_t sent;             /* pattern bytes the target wrote */
  uint8_t got[256];          /* what the target read from its down channel */
  uint32_t ngot;
};
static struct fake_gdb G;

#define FG_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define FG_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

static inline uint8_t fg_pattern(uint32_t i)
{
  return (uint8_t)(i * 7u + (i >> 8));
}

/* ---- the target ------------------------------------------------------------- */

static inline void fg_pause(void)
{
  while (FG_LOAD(&G.halted) && !FG_LOAD(&G.stop))
    usleep(50);
}

static void *fg_target(void *arg)
{
  (void)arg;
  struct tw_rtt_cb *cb = (struct tw_rtt_cb *)(G.mem + FG_CB_OFF);
  uint8_t chunk[97];
  fg_pause();
  pthread_mutex_lock(&G.bus);
  if (!G.no_cb) {
    tw_rtt_init(cb);
    tw_rtt_config_up(cb, 0, NULL, G.mem + FG_UP_OFF, FG_UP_SIZE, TW_RTT_SKIP);
    tw_rtt_config_down(cb, 0, NULL, G.mem + FG_DOWN_OFF, FG_DOWN_SIZE);
  }
  pthread_mutex_unlock(&G.bus);
  while (!FG_LOAD(&G.stop)) {
    fg_pause();
    if (G.no_cb || FG_LOAD(&G.exit_code) >= 0) {
      usleep(200);
      continue;
    }
    pthread_mutex_lock(&G.bus);
    if (__atomic_exchange_n(&G.corrupt, 0, __ATOMIC_ACQ_REL))
      FG_STORE(&cb->up[0].wr, FG_UP_SIZE + 100u); /* as memory corruption would */
    if (__atomic_exchange_n(&G.reinit, 0, __ATOMIC_ACQ_REL)) { /* a reset */
      tw_rtt_init(cb);
      tw_rtt_config_up(cb, 0, NULL, G.mem + FG_UP_OFF, FG_UP_SIZE, TW_RTT_SKIP);
      tw_rtt_config_down(cb, 0, NULL, G.mem + FG_DOWN_OFF, FG_DOWN_SIZE);
    }
    uint32_t sent = FG_LOAD(&G.sent);
    if (sent < G.total && cb->up[0].wr < FG_UP_SIZE) {
      uint32_t n = G.total - sent < sizeof chunk ? G.total - sent : (uint32_t)sizeof chunk;
      for (uint32_t i = 0; i < n; i++)
        chunk[i] = fg_pattern(sent + i);
      if (tw_rtt_write(cb, 0, chunk, n) == (int)n) /* SKIP: all or nothing */
        FG_STORE(&G.sent, sent + n);
    }
    if (cb->down[0].size) {
      uint8_t in[32];
      int n = tw_rtt_read(cb, 0, in, sizeof in);
      uint32_t k = G.ngot;
      for (int i = 0; i < n && k < sizeof G.got; i++)
        G.got[k++] = in[i];
      FG_STORE(&G.ngot, k); /* after the bytes: the test reads them after this */
    }
    pthread_mutex_unlock(&G.bus);
    usleep(20);
  }
  return NULL;
}

/* ---- the server ------------------------------------------------------------- */

static inline int fg_hex(int c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static inline void fg_send(int fd, const char *payload)
{
  char buf[8192];
  unsigned sum = 0;
  for (const char *p = payload; *p; p++)
    sum += (unsigned char)*p;
  int n = snprintf(buf, sizeof buf, "$%s#%02x", payload, sum & 0xFFu);
  (void)!write(fd, buf, (size_t)n);
}

static inline int fg_in_mem(uint32_t addr, uint32_t len)
{
  return addr >= G.base && (uint64_t)addr + len <= (uint64_t)G.base + FG_MEM;
}

/* Reads and writes a word at a time where aligned, atomically. */
static inline void fg_read(uint32_t addr, uint8_t *out, uint32_t len)
{
  for (uint32_t i = 0; i < len;) {
    uint32_t a = addr + i;
    if (a % 4 == 0 && len - i >= 4) {
      uint32_t w = FG_LOAD((uint32_t *)(G.mem + (a - G.base)));
      memcpy(out + i, &w, 4);
      i += 4;
    } else {
      out[i++] = FG_LOAD(G.mem + (a - G.base));
    }
  }
}

static inline void fg_write(uint32_t addr, const uint8_t *in, uint32_t len)
{
  for (uint32_t i = 0; i < len;) {
    uint32_t a = addr + i;
    if (a % 4 == 0 && len - i >= 4) {
      uint32_t w;
      memcpy(&w, in + i, 4);
      FG_STORE((uint32_t *)(G.mem + (a - G.base)), w);
      i += 4;
    } else {
      FG_STORE(G.mem + (a - G.base), in[i++]);
    }
  }
}

/* One request; 1 to go on, 0 when the connection ends. */
static int fg_handle(int fd, char *req, int *running, int *noack, int *ns)
{
  char out[8192];
  if (*running && !*ns) { /* QEMU 7.2: nothing but 0x03 while it runs */
    __atomic_add_fetch(&G.while_running, 1, __ATOMIC_RELAXED);
    return 1;
  }
  if (!strncmp(req, "qSupported", 10)) {
    snprintf(out, sizeof out, "PacketSize=1000;vContSupported+%s", G.noack ? ";QStartNoAckMode+" : "");
    fg_send(fd, out);
  } else if (!strcmp(req, "QStartNoAckMode") && G.noack) {
    fg_send(fd, "OK");
    *noack = 1;
  } else if (!strcmp(req, "?")) {
    fg_send(fd, "T05thread:01;");
  } else if (!strcmp(req, "QNonStop:1")) {
    fg_send(fd, G.nonstop ? "OK" : "");
    *ns = G.nonstop;
  } else if (!strcmp(req, "c") || !strcmp(req, "vCont;c")) {
    *running = 1;
    FG_STORE(&G.halted, 0);
    if (*ns)
      fg_send(fd, "OK");
  } else if (!strcmp(req, "vCont;t")) {
    FG_STORE(&G.halted, 1);
    *running = 0;
    fg_send(fd, "OK");
  } else if (req[0] == 'm') {
    unsigned addr, len;
    if (sscanf(req, "m%x,%x", &addr, &len) != 2 || len > 2048) {
      fg_send(fd, "E01");
    } else if (FG_LOAD(&G.mem_error) || !fg_in_mem(addr, len)) {
      fg_send(fd, FG_LOAD(&G.mem_error) ? "E01" : "E14");
    } else {
      uint8_t b[2048];
      pthread_mutex_lock(&G.bus);
      fg_read(addr, b, len);
      pthread_mutex_unlock(&G.bus);
      for (unsigned i = 0; i < len; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
      out[2 * len] = 0;
      G.mem_reads++;
      fg_send(fd, out);
    }
  } else if (req[0] == 'M') {
    unsigned addr, len;
    char *colon = strchr(req, ':');
    uint8_t b[2048];
    if (sscanf(req, "M%x,%x", &addr, &len) != 2 || !colon || len > sizeof b || !fg_in_mem(addr, len)) {
      fg_send(fd, "E14");
    } else {
      for (unsigned i = 0; i < len; i++)
        b[i] = (uint8_t)(fg_hex(colon[1 + 2 * i]) << 4 | fg_hex(colon[2 + 2 * i]));
      pthread_mutex_lock(&G.bus);
      fg_write(addr, b, len);
      pthread_mutex_unlock(&G.bus);
      fg_send(fd, "OK");
    }
  } else if (!strcmp(req, "D")) {
    fg_send(fd, "OK");
    FG_STORE(&G.halted, 0);
    return 0;
  } else {
    fg_send(fd, ""); /* unsupported */
  }
  return 1;
}

static void fg_serve(int fd)
{
  char buf[16384];
  size_t len = 0;
  int running = 0, noack = 0, ns = 0;
  FG_STORE(&G.halted, 1); /* a debugger attached: the target stops */
  for (;;) {
    if (FG_LOAD(&G.stop))
      return;
    if (__atomic_exchange_n(&G.drop, 0, __ATOMIC_ACQ_REL))
      return;
    int code = FG_LOAD(&G.exit_code);
    if (code >= 0 && running) { /* it exits while it runs: QEMU says W, then goes */
      char w[16];
      snprintf(w, sizeof w, "W%02x", (unsigned)code & 0xFFu);
      fg_send(fd, w);
      return;
    }
    struct pollfd p = { .fd = fd, .events = POLLIN };
    if (poll(&p, 1, 20) <= 0)
      continue;
    ssize_t n = read(fd, buf + len, sizeof buf - len - 1);
    if (n <= 0)
      return;
    len += (size_t)n;
    for (;;) {
      size_t i = 0;
      while (i < len && buf[i] != '$' && buf[i] != 0x03)
        i++;
      memmove(buf, buf + i, len - i);
      len -= i;
      if (!len)
        break;
      if (buf[0] == 0x03) {
        memmove(buf, buf + 1, --len);
        if (running && !ns) {
          FG_STORE(&G.halted, 1);
          running = 0;
          G.halts++;
          fg_send(fd, "T02thread:01;");
        }
        continue;
      }
      char *hash = memchr(buf, '#', len);
      if (!hash || (size_t)(hash - buf) + 3 > len)
        break;
      *hash = 0;
      if (!noack)
        (void)!write(fd, "+", 1);
      int go = fg_handle(fd, buf + 1, &running, &noack, &ns);
      size_t used = (size_t)(hash - buf) + 3;
      memmove(buf, buf + used, len - used);
      len -= used;
      if (!go)
        return;
    }
  }
}

static void *fg_server(void *arg)
{
  (void)arg;
  while (!FG_LOAD(&G.stop)) {
    struct pollfd p = { .fd = G.lfd, .events = POLLIN };
    if (poll(&p, 1, 20) <= 0)
      continue;
    int fd = accept(G.lfd, NULL, NULL);
    if (fd < 0)
      continue;
    int one = 1; /* the ack and the reply go in two writes: no Nagle wait */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    __atomic_add_fetch(&G.connections, 1, __ATOMIC_RELEASE);
    fg_serve(fd);
    close(fd);
    FG_STORE(&G.halted, 0); /* the debugger went: the target runs on */
    if (FG_LOAD(&G.exit_code) >= 0)
      break; /* the target exited: no more server (QEMU is gone) */
  }
  return NULL;
}

/* Map the target's RAM, listen, start both threads. 0 or -1. */
static int fg_start(void)
{
  void *m = mmap(NULL, FG_MEM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (m == MAP_FAILED || (uintptr_t)m > 0xFFFFFFFFu - FG_MEM)
    return -1;
  G.mem = m;
  G.base = (uint32_t)(uintptr_t)m;
  pthread_mutex_init(&G.bus, NULL);
  G.exit_code = -1;
  G.lfd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t al = sizeof a;
  int one = 1;
  setsockopt(G.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (G.lfd < 0 || bind(G.lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(G.lfd, 4) < 0 ||
      getsockname(G.lfd, (struct sockaddr *)&a, &al) < 0)
    return -1;
  G.port = ntohs(a.sin_port);
  G.halted = 1; /* QEMU -S: held until a debugger lets it run */
  if (pthread_create(&G.server, NULL, fg_server, NULL) ||
      pthread_create(&G.target, NULL, fg_target, NULL))
    return -1;
  return 0;
}

static void fg_stop(void)
{
  FG_STORE(&G.stop, 1);
  pthread_join(G.server, NULL);
  pthread_join(G.target, NULL);
  close(G.lfd);
  munmap(G.mem, FG_MEM);
  pthread_mutex_destroy(&G.bus);
  memset(&G, 0, sizeof G);
}

#endif
