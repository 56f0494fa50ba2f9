/*
 * Cost of a 2-word event: tracewire's ring put (and put+get pair), one and
 * two producers, against LTTng-UST recording an equivalent 2-integer
 * tracepoint into an active session, measured in the same run.
 *
 * The parent process starts lttng-sessiond (--daemonize --no-kernel) if
 * none runs, creates its own session (user-space channel with large
 * sub-buffers so events are recorded, not discarded), starts it, then runs
 * the measurements in a re-executed child (an LTTng-UST application
 * registers with the session daemon when it starts), then destroys the
 * session and stops a daemon it started. Without LTTng the tracewire
 * figures are still printed (CI=true: failure).
 *
 * Like with like: an LTTng-UST tracepoint reads a clock and records it
 * with the event; the bare 2-word put does not. So the emitter's whole
 * path is also measured: what tw_sem_task() does (trace-mask test, the
 * kernel logger's timestamp source, a put of timestamp + 2 words), into
 * the same ring (the kernel logger's own ring is 128 words by default, too
 * small for a batch). The ratio is printed for both.
 *
 * Timing: CLOCK_MONOTONIC around batches; puts are timed into a ring big
 * enough that none is dropped, and the ring is drained between batches
 * (untimed); LTTng gets a pause between batches for its consumer daemon.
 * Best of several rounds, ns per event.
 */
// tw-bench-libs: lttng-ust dl
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "bench_logger_tp.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/trace.h"

/* Batches small enough that both tracers' buffers stay warm in cache, as
 * in steady state with a consumer draining: 20 000 events per producer per
 * batch, best of 30 batches. The tracewire ring (1 MiB) takes two
 * producers' batches of timed 3-word events without a drop. */
#define RING_WORDS (1u << 18)
#define BATCH      20000u
#define ROUNDS     30

static uint32_t *ring;
static struct tw_logger lg;

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void drain(void)
{
  struct tw_logger_rec rec;
  uint32_t out[4];
  while (tw_logger_get(&lg, &rec, out, 4) > 0)
    ;
}

static void tw_put_batch(uint32_t who)
{
  for (uint32_t i = 0; i < BATCH; i++) {
    uint32_t d[2] = { who, i };
    if (tw_logger_put(&lg, 1, d, 2) != 0)
      abort(); /* the ring is sized so that nothing drops */
  }
}

/* tw_sem_task()'s path (events_gen.h) with the put aimed at this ring. */
static void tw_timed_batch(uint32_t who)
{
  for (uint32_t i = 0; i < BATCH; i++) {
    if (tw_trace_on(TW_EV_SEM_TASK)) {
      uint32_t w[3] = { tw_klog_timestamp(), who, i };
      if (tw_logger_put(&lg, TW_EV_SEM_TASK, w, 3) != 0)
        abort();
    }
  }
}

static void lttng_batch(uint32_t who)
{
  for (uint32_t i = 0; i < BATCH; i++)
    lttng_ust_tracepoint(twbench, put2, who, i);
}

struct job { void (*fn)(uint32_t); uint32_t who; double ns; pthread_barrier_t *bar; };

static void *run_job(void *arg)
{
  struct job *j = arg;
  pthread_barrier_wait(j->bar);
  double t0 = now_ns();
  j->fn(j->who);
  j->ns = now_ns() - t0;
  return NULL;
}

/* ns per event as seen by one producer, best of ROUNDS. */
static double measure(void (*fn)(uint32_t), int producers, int is_tw)
{
  double best = 1e30;
  for (int r = 0; r < ROUNDS; r++) {
    pthread_barrier_t bar;
    pthread_t th[2];
    struct job jobs[2];
    pthread_barrier_init(&bar, NULL, (unsigned)producers);
    for (int p = 0; p < producers; p++) {
      jobs[p] = (struct job){ fn, (uint32_t)p, 0, &bar };
      pthread_create(&th[p], NULL, run_job, &jobs[p]);
    }
    double sum = 0;
    for (int p = 0; p < producers; p++) {
      pthread_join(th[p], NULL);
      sum += jobs[p].ns;
    }
    pthread_barrier_destroy(&bar);
    if (is_tw)
      drain();
    else
      usleep(20000); /* let the consumer daemon empty the sub-buffers */
    double per = sum / producers / BATCH;
    if (per < best)
      best = per;
  }
  return best;
}

static double measure_pair(void)
{
  double best = 1e30;
  struct tw_logger_rec rec;
  uint32_t out[2];
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = now_ns();
    for (uint32_t i = 0; i < BATCH; i++) {
      uint32_t d[2] = { 0, i };
      tw_logger_put(&lg, 1, d, 2);
      if (tw_logger_get(&lg, &rec, out, 2) != 2)
        abort();
    }
    double per = (now_ns() - t0) / BATCH;
    if (per < best)
      best = per;
  }
  return best;
}

/* The floor for any put shared by producers on several CPUs: one
 * uncontended 32-bit compare-and-swap. */
static double measure_cas(void)
{
  static uint32_t word;
  double best = 1e30;
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = now_ns();
    for (uint32_t i = 0; i < BATCH; i++) {
      uint32_t h = __atomic_load_n(&word, __ATOMIC_RELAXED);
      __atomic_compare_exchange_n(&word, &h, h + 3u, 1, __ATOMIC_SEQ_CST,
                                  __ATOMIC_RELAXED);
    }
    double per = (now_ns() - t0) / BATCH;
    if (per < best)
      best = per;
  }
  return best;
}

static int child(int have_lttng)
{
  ring = aligned_alloc(64, RING_WORDS * sizeof *ring);
  if (!ring || tw_logger_init(&lg, ring, RING_WORDS) != 0)
    return 1;
  double tw1 = measure(tw_put_batch, 1, 1);
  double tw2 = measure(tw_put_batch, 2, 1);
  double twp = measure_pair();
  tw_trace_mask = 1u << (TW_EV_SEM_TASK - 1u);
  double twt1 = measure(tw_timed_batch, 1, 1);
  double twt2 = measure(tw_timed_batch, 2, 1);
  printf("bench_logger: tracewire 2-word put, 1 producer:   %6.2f ns/put\n", tw1);
  printf("bench_logger: tracewire 2-word put, 2 producers:  %6.2f ns/put (per producer)\n", tw2);
  printf("bench_logger: tracewire put+get pair:             %6.2f ns/pair\n", twp);
  printf("bench_logger: tracewire emitter (mask, timestamp, 2 words), 1 producer:  %6.2f ns/event\n", twt1);
  printf("bench_logger: tracewire emitter (mask, timestamp, 2 words), 2 producers: %6.2f ns/event (per producer)\n", twt2);
  printf("bench_logger: (floor: one uncontended CAS on this machine: %.2f ns)\n", measure_cas());
  if (have_lttng && !lttng_ust_tracepoint_enabled(twbench, put2)) {
    fprintf(stderr, "bench_logger: LTTng session is not recording twbench:put2\n");
    have_lttng = 0;
  }
  if (!have_lttng) {
    printf("bench_logger: LTTng-UST: not measured (see stderr)\n");
    return getenv("CI") && !strcmp(getenv("CI"), "true") ? 1 : 0;
  }
  double lt1 = measure(lttng_batch, 1, 0);
  double lt2 = measure(lttng_batch, 2, 0);
  printf("bench_logger: LTTng-UST 2-int tracepoint, 1 producer:  %6.2f ns/event\n", lt1);
  printf("bench_logger: LTTng-UST 2-int tracepoint, 2 producers: %6.2f ns/event (per producer)\n", lt2);
  printf("bench_logger: ratio LTTng/tracewire: %.1fx (1 producer), %.1fx (2 producers)"
         "  [targets: <= 10 ns/put, >= 10x]\n", lt1 / tw1, lt2 / tw2);
  printf("bench_logger: ratio LTTng/tracewire emitter with timestamp: %.1fx (1 producer), %.1fx "
         "(2 producers)\n", lt1 / twt1, lt2 / twt2);
  return 0;
}

static int sh(const char *cmd)
{
  int r = system(cmd);
  return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

int main(int argc, char **argv)
{
  (void)argc;
  const char *role = getenv("TW_BENCH_CHILD");
  if (role)
    return child(atoi(role));

  char sess[64], cmd[512], dir[] = "/tmp/twbench-lttng-XXXXXX";
  int started_daemon = 0, have = 0;
  snprintf(sess, sizeof sess, "twbench-%d", (int)getpid());
  if (sh("command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null") != 0) {
    fprintf(stderr, "bench_logger: lttng not found (Debian: lttng-tools liblttng-ust-dev)\n");
  } else if (!mkdtemp(dir)) {
    perror("bench_logger: mkdtemp");
  } else {
    if (sh("lttng list >/dev/null 2>&1") != 0) {
      started_daemon = sh("lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1") == 0;
      sleep(1);
    }
    snprintf(cmd, sizeof cmd,
             "lttng create %s --output=%s >/dev/null && "
             "lttng enable-channel -u -s %s --subbuf-size=1M --num-subbuf=8 twch >/dev/null && "
             "lttng enable-event -u -s %s -c twch twbench:put2 >/dev/null && "
             "lttng start %s >/dev/null", sess, dir, sess, sess, sess);
    have = sh(cmd) == 0;
    if (!have)
      fprintf(stderr, "bench_logger: could not set up the LTTng session\n");
  }
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TW_BENCH_CHILD", have ? "1" : "0", 1);
    execv("/proc/self/exe", argv);
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (have) {
    snprintf(cmd, sizeof cmd, "lttng destroy %s >/dev/null 2>&1", sess);
    sh(cmd);
  }
  if (dir[sizeof dir - 7] != 'X') {
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
  }
  if (started_daemon) /* stop what we started, and wait for it */
    sh("p=$(cat /var/run/lttng/lttng-sessiond.pid 2>/dev/null || "
       "cat \"$HOME/.lttng/lttng-sessiond.pid\" 2>/dev/null); "
       "[ -n \"$p\" ] && kill \"$p\" && "
       "for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 \"$p\" 2>/dev/null || break; sleep 0.5; done");
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
