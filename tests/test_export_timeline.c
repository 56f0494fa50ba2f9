/*
 * The timeline behind the Perfetto and JSON exports (src/export/timeline.c)
 * on hand-made event sequences, read back from the JSON export (one
 * trace event per line): each picture defect issue 15 lists, with the
 * sequence that showed it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "tw_vocab_event.h"
#include "tracewire/error.h"
#include "tracewire/events_gen.h"
#include "tracewire/export/export.h"

#define ENTER TW_TASK_SWITCH_EnterInt
#define LEAVE TW_TASK_SWITCH_LeaveInt

struct out {
  struct tw_export *x;
  char path[64];
  char *text;
  uint32_t seq;
};

static void out_open(struct out *o)
{
  char msg[256];
  struct tw_export_cfg cfg = {.format = "json", .out = o->path};
  int fd;
  memset(o, 0, sizeof *o);
  strcpy(o->path, "/tmp/tw_tl_XXXXXX");
  fd = mkstemp(o->path);
  assert_true(fd >= 0);
  close(fd);
  cfg.out = o->path;
  assert_int_equal(tw_export_open(&o->x, &cfg, msg, sizeof msg), 0);
}

static int ev_at(struct out *o, uint16_t ep, uint16_t inst, uint16_t stream, uint64_t us,
                 uint16_t id, uint32_t v0, uint32_t v1, uint32_t v2, const char *str)
{
  struct tw_event e = tw_test_event(&(struct tw_test_ev){
      .time_ns = us * 1000, .endpoint = ep, .instance = inst, .stream = stream, .id = id,
      .v0 = v0, .v1 = v1, .v2 = v2, .str = str});
  e.seq = o->seq++;
  return tw_export_event(o->x, &e);
}

static void ev(struct out *o, uint64_t us, uint16_t id, uint32_t v0, uint32_t v1, uint32_t v2)
{
  assert_int_equal(ev_at(o, 1, 0, 0, us, id, v0, v1, v2, NULL), 0);
}

static int out_close(struct out *o, char *msg, size_t cap)
{
  int rc = tw_export_close(o->x, msg, cap);
  FILE *f = fopen(o->path, "r");
  long n;
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  o->text = calloc(1, (size_t)n + 1);
  assert_non_null(o->text);
  assert_int_equal(fread(o->text, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  unlink(o->path);
  return rc;
}

/* Lines containing every one of the needles. */
static int count_lines(const char *text, const char *a, const char *b)
{
  int n = 0;
  for (const char *l = text; l && *l;) {
    const char *e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    char *line = strndup(l, len);
    if (strstr(line, a) && (!b || strstr(line, b)))
      n++;
    free(line);
    l = e ? e + 1 : NULL;
  }
  return n;
}

static void name_task(struct out *o, uint32_t task, uint32_t prio, const char *name)
{
  assert_int_equal(ev_at(o, 1, 0, 0, 0, TW_EV_NAME, TW_OBJ_TASK, prio, task, name), 0);
}

/* A LeaveInt lost with a ring drop used to leave the interrupt open for
 * ever: a tower of nested interrupt slices and the core 100 % busy. The
 * frame now ends at the gap, a "lost events" slice shows it, and the
 * load falls when the idle task runs again. */
static void test_loss_closes_interrupt(void **state)
{
  (void)state;
  struct out o;
  char msg[256];
  out_open(&o);
  name_task(&o, 0, 0, "idle");
  name_task(&o, 1, 3, "worker");
  for (int k = 0; k < 5; k++) {
    uint64_t t = 1000 * (uint64_t)k;
    ev(&o, t, TW_EV_TASK_SWITCH, 1, 0, 0);
    ev(&o, t + 100, TW_EV_TASK_SWITCH, ENTER, 0, 0);
    ev(&o, t + 100, TW_EV_INTERRUPT, 16, 0, 0);
    ev(&o, t + 200, TW_EV_DROPS, 4, 0, 0); /* the LeaveInt was among these */
    ev(&o, t + 300, TW_EV_TASK_SWITCH, 0, 0, 0);
  }
  ev(&o, 6000, TW_EV_SEM, 1, TW_SEM_Give, 0);
  assert_int_equal(out_close(&o, msg, sizeof msg), 0);
  /* every interrupt slice ends, at its gap */
  assert_int_equal(count_lines(o.text, "\"ph\":\"B\",\"name\":\"interrupt\"", NULL), 5);
  assert_int_equal(count_lines(o.text, "\"ph\":\"E\",\"ts\":200.000,\"pid\":65536,\"tid\":114688",
                               NULL), 1);
  assert_int_equal(count_lines(o.text, "\"name\":\"4 events lost (ring)\"", NULL), 5);
  assert_int_equal(count_lines(o.text, "\"name\":\"cpu0 lost events\"", NULL), 1);
  /* 1 ms windows: the worker and the interrupt busy 0..200 us; 200..300 us
   * the running task is unknown (not busy), then the idle task runs */
  assert_int_equal(count_lines(o.text, "\"name\":\"cpu0 load %\"", "\"value\":20}"), 5);
  assert_int_equal(count_lines(o.text, "\"name\":\"cpu0 load %\"", "\"value\":100}"), 0);
  free(o.text);
}

/* "ready tasks" counted a task that stopped wanting the CPU (a lower
 * priority took over) and wrote two samples at one timestamp on every
 * switch. */
static void test_ready_count(void **state)
{
  (void)state;
  struct out o;
  char msg[256];
  out_open(&o);
  name_task(&o, 1, 2, "low");
  name_task(&o, 2, 6, "high");
  ev(&o, 10, TW_EV_TASK_SWITCH, 1, 0, 0);
  ev(&o, 20, TW_EV_TASK_SWITCH, 2, 0, 0);  /* low preempted: 1 ready */
  ev(&o, 30, TW_EV_TASK_SWITCH, 1, 0, 0);  /* high sleeps: 0 ready */
  ev(&o, 40, TW_EV_SEM_TASK, 2, 1, TW_SEM_TASK_ToTask); /* high released... */
  ev(&o, 40, TW_EV_TASK_SWITCH, 2, 0, 0);  /* ...and runs at once: low ready */
  ev(&o, 50, TW_EV_SEM, 1, TW_SEM_Give, 0);
  assert_int_equal(out_close(&o, msg, sizeof msg), 0);
  assert_int_equal(count_lines(o.text, "\"name\":\"ready tasks\",\"ts\":20.000", "\"value\":1}"),
                   1);
  assert_int_equal(count_lines(o.text, "\"name\":\"ready tasks\",\"ts\":30.000", "\"value\":0}"),
                   1);
  assert_int_equal(count_lines(o.text, "\"name\":\"ready tasks\",\"ts\":40.000", NULL), 1);
  assert_int_equal(count_lines(o.text, "\"name\":\"ready tasks\",\"ts\":40.000", "\"value\":1}"),
                   1);
  assert_int_equal(count_lines(o.text, "\"name\":\"ready tasks\"", "\"value\":2}"), 0);
  free(o.text);
}

/* Semaphore counters went negative: GiveMany was not counted, and gives
 * lost in a drop left takes with nothing to take. */
static void test_sem_never_negative(void **state)
{
  (void)state;
  struct out o;
  char msg[256];
  out_open(&o);
  ev(&o, 1, TW_EV_TASK_SWITCH, 1, 0, 0);
  ev(&o, 2, TW_EV_SEM, 3, TW_SEM_GiveMany, 0);
  ev(&o, 3, TW_EV_SEM_TASK, 1, 3, TW_SEM_TASK_Take);
  ev(&o, 4, TW_EV_SEM_TASK, 1, 3, TW_SEM_TASK_Take);
  ev(&o, 5, TW_EV_SEM_TASK, 1, 3, TW_SEM_TASK_Take);
  ev(&o, 6, TW_EV_SEM, 3, TW_SEM_Give, 0);
  ev(&o, 7, TW_EV_DROPS, 9, 0, 0);
  ev(&o, 8, TW_EV_SEM_TASK, 1, 3, TW_SEM_TASK_Take);
  ev(&o, 9, TW_EV_SEM_TASK, 1, 3, TW_SEM_TASK_Take);
  assert_int_equal(out_close(&o, msg, sizeof msg), 0);
  assert_true(count_lines(o.text, "\"name\":\"sem 3\"", NULL) > 0);
  assert_int_equal(count_lines(o.text, "\"name\":\"sem 3\"", "\"value\":-"), 0);
  free(o.text);
}

/* Custom string fields and names were cut to 63 bytes. */
static void test_strings_whole(void **state)
{
  (void)state;
  struct out o;
  char msg[256], s[301], want[320];
  out_open(&o);
  for (int i = 0; i < 300; i++)
    s[i] = (char)('a' + i % 26);
  s[300] = 0;
  name_task(&o, 5, 1, s);
  ev(&o, 1, TW_EV_TASK_SWITCH, 5, 0, 0);
  ev(&o, 2, TW_EV_MUTEX, 5, 1, TW_MUTEX_Lock);
  assert_int_equal(out_close(&o, msg, sizeof msg), 0);
  snprintf(want, sizeof want, "\"name\":\"%s\"", s);
  assert_true(count_lines(o.text, want, "\"ph\":\"i\"") == 1);     /* the NAME's string field */
  assert_true(count_lines(o.text, want, "\"thread_name\"") == 1); /* the task's track */
  snprintf(want, sizeof want, "\"task\":\"5 %s\"", s);
  assert_int_equal(count_lines(o.text, want, NULL), 1);           /* an object argument */
  free(o.text);
}

/* The 65th endpoint and the 257th core were dropped without a word. */
static void test_many_endpoints_and_cores(void **state)
{
  (void)state;
  struct out o;
  char msg[256];
  out_open(&o);
  for (uint16_t i = 0; i < 300; i++) { /* 300 cores: 100 endpoints of 3 */
    uint16_t ep = (uint16_t)(1 + i / 3), inst = (uint16_t)(i % 3);
    assert_int_equal(ev_at(&o, ep, inst, i, 1 + i, TW_EV_TASK_SWITCH, 1, 0, 0, NULL), 0);
  }
  assert_int_equal(out_close(&o, msg, sizeof msg), 0);
  assert_int_equal(count_lines(o.text, "\"name\":\"process_name\"", NULL), 100);
  assert_int_equal(count_lines(o.text, "\"pid\":6553600,", "\"args\":{\"name\":\"cpu2\"}"), 1);
  assert_int_equal(count_lines(o.text, "\"ph\":\"B\"", NULL), 2 * 300);
  free(o.text);

  /* a core number that cannot get a thread id of its own fails, named */
  out_open(&o);
  assert_int_equal(ev_at(&o, 1, 0x4000, 0, 1, TW_EV_TASK_SWITCH, 1, 0, 0, NULL), TW_ENOSPC);
  assert_int_equal(out_close(&o, msg, sizeof msg), TW_ENOSPC);
  assert_non_null(strstr(msg, "core 16384 of endpoint 0001"));
  free(o.text);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_loss_closes_interrupt),
    cmocka_unit_test(test_ready_count),
    cmocka_unit_test(test_sem_never_negative),
    cmocka_unit_test(test_strings_whole),
    cmocka_unit_test(test_many_endpoints_and_cores),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
