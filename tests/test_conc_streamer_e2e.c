/* End to end on the POSIX port: a collector thread runs the streamer and
 * the command service, a producer thread emits through the generated
 * emitters into the kernel event logger, and the host (this thread) drives
 * everything with command packets over an in-memory link: set mask, start,
 * a mask change, an overflow while the link is busy, stop. The captured
 * packets, decoded with the wire-format parser, must be exactly the events
 * sent in the mask, minus exactly the counts the DROPS records announce. */
// tw-test-libs: pthread
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "tracewire/cmd.h"
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tw_stream_test.h"

#define EP 0x0007u
#define HOSTADR 0x0200u

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct cap EV, RP;            /* guarded by mu */
static int ev_busy;                  /* guarded by mu */
static uint8_t rxq[16][64];          /* host -> target, guarded by mu */
static size_t rxlen[16];
static unsigned rx_head, rx_n;
static int quit;                     /* atomic */

static struct tw_streamer S;
static struct tw_cmd K;

/* A test clock: monotonic ns / 16. Deterministic enough under sanitizers
 * (wraps every ~68 s; wraps themselves are covered by test_streamer). */
static uint32_t test_clock(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint32_t)(((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) >> 4);
}

static int ev_send(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  pthread_mutex_lock(&mu);
  int rc = ev_busy ? (EV.refused++, TW_EBUSY) : cap_send(&EV, p, len);
  pthread_mutex_unlock(&mu);
  return rc;
}

static int rp_send(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  pthread_mutex_lock(&mu);
  int rc = cap_send(&RP, p, len);
  pthread_mutex_unlock(&mu);
  return rc;
}

static void *collector(void *arg)
{
  (void)arg;
  uint8_t pkt[64];
  tw_klog_register_collector();
  while (!__atomic_load_n(&quit, __ATOMIC_ACQUIRE)) {
    for (;;) {
      size_t n = 0;
      pthread_mutex_lock(&mu);
      if (rx_n) {
        n = rxlen[rx_head];
        memcpy(pkt, rxq[rx_head], n);
        rx_head = (rx_head + 1) % 16;
        rx_n--;
      }
      pthread_mutex_unlock(&mu);
      if (!n)
        break;
      tw_cmd_receive(&K, pkt, n);
    }
    tw_cmd_poll(&K);
    (void)tw_streamer_poll(&S, 1);
  }
  return NULL;
}

static void host_send(const uint8_t *pkt, size_t n)
{
  for (;;) {
    pthread_mutex_lock(&mu);
    if (rx_n < 16) {
      memcpy(rxq[(rx_head + rx_n) % 16], pkt, n);
      rxlen[(rx_head + rx_n) % 16] = n;
      rx_n++;
      pthread_mutex_unlock(&mu);
      return;
    }
    pthread_mutex_unlock(&mu);
    sched_yield();
  }
}

/* Send a logger command and wait for its reply; returns the reply type and
 * the body words (up to nout). */
static uint32_t command(uint16_t id, uint16_t seq, const uint32_t *body, size_t nbody,
                        uint32_t *out, size_t nout)
{
  uint8_t pkt[64];
  size_t len = 20 + 4 * nbody;
  tw_pkt_hdr h;
  tw_pkt_init_msg(&h, TW_ENDIAN_BIG, TW_MSG_CMD, (uint32_t)len, TW_SVC_LOGGER, seq, id, seq, EP, HOSTADR);
  memcpy(pkt, &h, 16);
  for (size_t i = 0; i < nbody; i++)
    tw_store_be32(pkt + 16 + 4 * i, body[i]);
  tw_store_be32(pkt + len - 4, tw_pkt_footer((uint32_t)len));
  host_send(pkt, len);
  for (int spins = 0; spins < 200000; spins++) {
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < RP.npkts; i++) {
      struct tw_pkt p;
      assert_true(tw_pkt_parse(RP.buf + RP.off[i], RP.plen[i], 0, &p) > 0);
      if (tw_pkt_get_seq(&p.hdr) == seq && tw_pkt_get_cmd_id(&p.hdr) == id) {
        uint32_t type = tw_pkt_get_msg_type(&p.hdr);
        for (size_t k = 0; k < nout && 4 * k < p.payload_len; k++)
          out[k] = tw_load_be32(p.payload + 4 * k);
        pthread_mutex_unlock(&mu);
        return type;
      }
    }
    pthread_mutex_unlock(&mu);
    struct timespec d = {0, 50000};
    nanosleep(&d, NULL);
  }
  fail_msg("no reply to command %u seq %u", id, seq);
  return 0;
}

static uint16_t next_seq = 100;

/* Until the collector has taken everything: its event count stands still
 * across a few polls (the producer is idle and the link accepts). Fixed
 * sleeps are not enough under sanitizers on a loaded machine. */
static void wait_idle(void)
{
  uint32_t st[TW_STAT_WORDS] = {0}, last = 0xFFFFFFFFu;
  for (int same = 0; same < 3;) {
    struct timespec d = {0, 2000000};
    nanosleep(&d, NULL);
    assert_int_equal(command(TW_LCMD_GET_STATS, next_seq++, NULL, 0, st, TW_STAT_WORDS), TW_MSG_RESULT);
    same = st[TW_STAT_EVENTS] == last ? same + 1 : 0;
    last = st[TW_STAT_EVENTS];
  }
}

struct phase { uint16_t first, count; int busy; int with_mutex, with_event; };

/* Counter in the payload: SEM.sem = i, MUTEX.mutex = i, EVENT.event = i. */
static void *producer(void *arg)
{
  const struct phase *ph = arg;
  for (uint16_t i = ph->first; i < ph->first + ph->count; i++) {
    tw_sem(i, TW_SEM_Give);
    if (ph->with_mutex)
      tw_mutex(1, i, TW_MUTEX_Lock);
    if (ph->with_event)
      tw_event(i, TW_EVENT_Trigger);
    if (!ph->busy && i % 4 == 0) {
      struct timespec d = {0, 20000}; /* let the collector keep up */
      nanosleep(&d, NULL);
    }
  }
  return NULL;
}

static void run_phase(const struct phase *ph)
{
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, producer, (void *)ph), 0);
  assert_int_equal(pthread_join(t, NULL), 0);
}

static void test_end_to_end(void **state)
{
  (void)state;
  struct tw_streamer_cfg cfg;
  pthread_t col;
  uint32_t w0 = 0;

  tw_klog_set_timer(test_clock);
  cap_init(&EV);
  cap_init(&RP);
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 62500000;
  cfg.send = ev_send;
  cfg.endpoint = EP;
  cfg.module_id = 1;
  cfg.flush_ticks = 62500; /* 1 ms */
  assert_int_equal(tw_streamer_init(&S, &cfg), 0);
  assert_int_equal(tw_cmd_init(&K, EP, rp_send, NULL, &S), 0);
  assert_int_equal(tw_name_register(TW_OBJ_TASK, 1, "producer", 2), 0);
  assert_int_equal(pthread_create(&col, NULL, collector, NULL), 0);

  uint32_t m_sem = 1u << (TW_EV_SEM - 1), m_mutex = 1u << (TW_EV_MUTEX - 1);
  uint32_t mask = m_sem | m_mutex;
  assert_int_equal(command(TW_LCMD_SET_MASK, 1, &mask, 1, &w0, 1), TW_MSG_RESULT);
  assert_int_equal(w0, mask);
  assert_int_equal(command(TW_LCMD_START, 2, NULL, 0, NULL, 0), TW_MSG_ACK);
  /* START takes effect in the collector's next poll: wait for the mask */
  while (!(__atomic_load_n(&tw_trace_mask, __ATOMIC_RELAXED) & m_sem))
    sched_yield();

  static const struct phase A = {0, 600, 0, 1, 1};   /* EVENT is not in the mask */
  run_phase(&A);
  mask = m_sem;
  assert_int_equal(command(TW_LCMD_SET_MASK, 3, &mask, 1, &w0, 1), TW_MSG_RESULT);
  static const struct phase B = {1000, 300, 0, 1, 0}; /* MUTEX now masked out */
  run_phase(&B);
  pthread_mutex_lock(&mu);
  ev_busy = 1; /* the link stalls: the ring overflows */
  pthread_mutex_unlock(&mu);
  static const struct phase C = {2000, 400, 1, 0, 0};
  run_phase(&C);
  struct timespec d = {0, 5000000};
  nanosleep(&d, NULL);
  pthread_mutex_lock(&mu);
  ev_busy = 0;
  unsigned refused = EV.refused;
  pthread_mutex_unlock(&mu);
  static const struct phase D2 = {3000, 50, 0, 0, 0}; /* carries the drop count */
  run_phase(&D2);
  wait_idle(); /* the ring is empty: the last event surely fits, so */
  static const struct phase E = {4000, 1, 0, 0, 0}; /* any drop is reported */
  run_phase(&E);
  assert_int_equal(command(TW_LCMD_STOP, 4, NULL, 0, NULL, 0), TW_MSG_ACK);
  uint32_t info[TW_INFO_WORDS] = {0};
  for (uint16_t seq = 5;; seq++) { /* until STOP has been carried out */
    assert_int_equal(command(TW_LCMD_GET_INFO, seq, NULL, 0, info, TW_INFO_WORDS), TW_MSG_RESULT);
    if (!info[TW_INFO_STATE])
      break;
    nanosleep(&d, NULL);
  }
  __atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
  assert_int_equal(pthread_join(col, NULL), 0);

  /* ---- what the host received ---- */
  struct dstream ds = {0};
  decode_stream(EV.buf, EV.len, EP, &ds);
  assert_true(refused > 0);
  assert_int_equal(ds.r[0].id, TW_EV_SYNC);
  assert_int_equal(ds.r[1].id, TW_EV_TRACE_START);
  assert_int_equal(ds.r[1].w[0], m_sem | m_mutex);
  assert_int_equal(ds.r[ds.n - 1].id, TW_EV_TRACE_STOP);
  /* what the producer emitted while its event was in the mask, in order */
  struct exp { uint16_t id; uint32_t w0, w1; };
  static struct exp want[2048];
  size_t nwant = 0;
  const struct phase *phases[] = {&A, &B, &C, &D2, &E};
  for (size_t p = 0; p < 5; p++)
    for (uint16_t i = phases[p]->first; i < phases[p]->first + phases[p]->count; i++) {
      want[nwant++] = (struct exp){TW_EV_SEM, i | (uint32_t)TW_SEM_Give << 16, 0};
      if (phases[p] == &A)
        want[nwant++] = (struct exp){TW_EV_MUTEX, 1u | (uint32_t)i << 16, TW_MUTEX_Lock};
    }
  size_t at = 0;
  uint64_t pending = 0;
  uint64_t drops = 0;
  unsigned sems = 0, mutexes = 0, nsync = 0;
  int last_sem = -1, last_mutex = -1;
  uint64_t last_ts = 0;
  for (size_t i = 0; i < ds.n; i++) {
    const struct drec *r = &ds.r[i];
    if (i) { /* sequence: +1, or +1+d right after DROPS(d) */
      const struct drec *p = &ds.r[i - 1];
      uint32_t skip = p->id == TW_EV_DROPS ? p->w[0] : 0;
      assert_int_equal(r->seq, (uint16_t)(p->seq + 1 + skip));
    }
    if (r->id == TW_EV_SEM || r->id == TW_EV_MUTEX) {
      /* one producer: its events are in time order (control records are
       * stamped when the collector writes them, see docs/streamer.md) */
      assert_true(r->ts >= last_ts);
      last_ts = r->ts;
    }
    if (r->id == TW_EV_SEM || r->id == TW_EV_MUTEX) {
      /* exactly the next event sent, after exactly the announced drops */
      uint64_t skipped = 0;
      while (at < nwant && !(want[at].id == r->id && want[at].w0 == r->w[0] &&
                             (r->nw < 2 || want[at].w1 == r->w[1]))) {
        at++;
        skipped++;
      }
      assert_true(at < nwant);
      assert_int_equal(skipped, pending);
      pending = 0;
      at++;
    }
    switch (r->id) {
    case TW_EV_DROPS:
      drops += r->w[0];
      pending += r->w[0];
      break;
    case TW_EV_SEM:
      assert_true((int)(r->w[0] & 0xFFFF) > last_sem);
      last_sem = (int)(r->w[0] & 0xFFFF);
      sems++;
      break;
    case TW_EV_MUTEX:
      assert_true((int)(r->w[0] >> 16) > last_mutex);
      last_mutex = (int)(r->w[0] >> 16);
      assert_true(last_mutex < 1000); /* none after the mask change */
      mutexes++;
      break;
    case TW_EV_EVENT:
      fail_msg("EVENT record although its mask bit was never set");
      break;
    case TW_EV_SYNC:
      nsync++;
      break;
    default:
      break;
    }
  }
  unsigned sent_in_mask = 600 * 2 + 300 + 400 + 50 + 1;
  assert_int_equal(nwant, sent_in_mask);
  assert_int_equal(at, nwant); /* the last one sent was received */
  assert_int_equal(pending, 0);
  assert_true(drops > 0);
  assert_int_equal(sems + mutexes + drops, sent_in_mask);
  struct tw_logger_stats ls;
  tw_logger_stats(tw_klog_logger(), &ls);
  assert_int_equal(ls.drops, drops); /* the ring's own count, exactly */
  struct tw_streamer_stats st;
  tw_streamer_stats(&S, &st);
  assert_int_equal(st.drops, drops);
  assert_int_equal(st.packets, ds.npkts);
  fprintf(stderr, "e2e: %u SEM, %u MUTEX, %llu dropped (exact), %u SYNC, %zu packets, %u refusals\n",
          sems, mutexes, (unsigned long long)drops, nsync, ds.npkts, refused);
  dstream_free(&ds);
  cap_free(&EV);
  cap_free(&RP);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_end_to_end) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
