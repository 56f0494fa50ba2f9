/*
 * Export throughput, and reading speed against babeltrace2.
 *
 * A large synthetic trace (two endpoints x two cores, every event kind,
 * drops, a 32-bit wrap) is written to a file. Then, one core each:
 *   decode      reader + decoder, events counted: our reading of the trace
 *   ctf         decode + CTF export to a directory
 *   perfetto    decode + Perfetto export to a file
 *   perfetto to /dev/null  the same, its bytes thrown away by the kernel:
 *               the rest of the file pass is the cost of writing the file
 *               (copying it into the page cache, truncating the previous
 *               run's file), which no encoder can save
 *   model       decode + the RTOS state model with one observer that does
 *               nothing: what the Perfetto writer is fed (its timeline
 *               observes a model), so the most any writer on it can reach
 *   plugin      decode + trace model + the built-in CTF plugin, as
 *               `tracewire export` runs it (without its prescan)
 * Export throughput is reported end to end and for the exporter alone
 * (events / (time - decode time)). Then the peer, in the same run:
 * `babeltrace2 CTFDIR -o dummy` reads the CTF trace just written (its
 * fastest sink: decode and discard), timed as a child process; the ratio
 * is babeltrace2's time over our decode time for the same events.
 * Best of 5 for ours, best of 3 for babeltrace2 (the same rule for both
 * sides, fewer runs of the slow one). Times are CPU seconds (user +
 * system), ours and babeltrace2's alike; the exports' wall times (best of
 * the same runs) are printed beside, for a machine that is not shared.
 * The cost of only reading the file's bytes (the same source and buffer
 * size, no framing, no decoding) is printed too: babeltrace2's time over
 * it is the ratio no decoder could beat on this machine.
 *
 *   bench_export [MiB]   (default 64)
 *
 * Sizes: the Perfetto file and the CTF streams against the trace's bytes
 * (the raw packets a .twt holds), per event.
 *
 * Targets: CTF export >= 20 M events/s; Perfetto export >= 20 M events/s
 * end to end and at most 1.5x the trace's size; reading >= 50x
 * babeltrace2.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tracewire/export/export.h"
#include "tracewire/io/conn.h"
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/reader.h"
#include "tracewire/wire/synth.h"
#include "tracewire/model/mti_host.h"
#include "tracewire/model/rtos.h"
#include <sys/stat.h>

extern char **environ;

/* CPU time (user + system) of this process: the machine is shared, and
 * wall time would charge us for other people's builds. babeltrace2 is
 * charged the same way, from its rusage. */
static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct run {
  struct tw_export *x;
  struct tw_mti_system *sys;
  struct tw_rtos *model;
  unsigned long long events, changes;
};

/* The kinds the timeline behind the Perfetto and JSON writers asks the
 * model for (src/export/timeline.c, TL_KINDS): the floor for those writers
 * is the model making these. */
#define TIMELINE_KINDS                                                                         \
  (TW_RTOS_CH_BIT(TW_RTOS_CH_LOSS) | TW_RTOS_CH_BIT(TW_RTOS_CH_SWITCH) |                        \
   TW_RTOS_CH_BIT(TW_RTOS_CH_TASK) | TW_RTOS_CH_BIT(TW_RTOS_CH_IRQ_ENTER) |                     \
   TW_RTOS_CH_BIT(TW_RTOS_CH_IRQ_EXIT) | TW_RTOS_CH_BIT(TW_RTOS_CH_NAME) |                      \
   TW_RTOS_CH_BIT(TW_RTOS_CH_EVENT))

static int on_event(void *ctx, const struct tw_event *ev)
{
  struct run *r = ctx;
  r->events++;
  if (r->sys)
    return tw_mti_system_feed(r->sys, ev);
  if (r->model)
    return tw_rtos_feed(r->model, ev);
  return r->x ? tw_export_event(r->x, ev) : (int)(ev->values[0] & 0);
}

static void on_change(void *ctx, const struct tw_rtos_change *ch)
{
  struct run *r = ctx;
  r->changes += ch->kind != TW_RTOS_NCH;
}

/* The CTF exporter as `tracewire export` runs it: the built-in MTI plugin
 * over the trace model (components from a first decode, as the CLI's
 * prescan does, not timed), fed straight from the decoder. */
static double plugin_pass(const char *path, const char *out, unsigned long long *events)
{
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  struct tw_reader_cfg rc = {.read_bytes = 1 << 20};
  struct run run = {0};
  struct tw_mti_system *sys;
  struct tw_decoder *d0;
  MTI_PluginFactory *f = tw_export_plugin_factory("ctf");
  eslapi_CADIParameterInfo_t infos[8];
  eslapi_CADIParameterValue_t v;
  MTI_PluginInstance *pi;
  char err[256];
  double t0, t;
  if (tw_conn_file_open(path, &src, err, sizeof err) < 0 || tw_reader_open(&r, src, &rc) < 0 ||
      tw_decoder_open(&d, NULL) < 0 ||
      tw_mti_system_create(&sys, tw_event_descs, tw_event_ndescs) < 0)
    return -1;
  tw_decoder_on_event(d, on_event, &run); /* run.sys unset: counts only */
  f->vtbl->GetParameterInfos(f, infos);
  if (tw_mti_param_parse(&infos[0], out, &v, err, sizeof err) < 0) /* "out" */
    return -1;
  t0 = now();
  if (tw_decoder_run(d, r) != 0) /* the prescan: components and custom kinds */
    return -1;
  t = now() - t0;
  tw_mti_system_sync_decoder(sys, d);
  run.sys = sys;
  d0 = d; /* owns the custom kinds' descriptors the model uses */
  tw_reader_close(r);
  tw_conn_close(src);
  pi = eslapi_ObtainPointer(f->vtbl->Instantiate(f, "bench", 1, &v), MTI_PluginInstance);
  if (!pi || pi->vtbl->RegisterSimulation(pi, tw_mti_system_simulation(run.sys)) != CADI_STATUS_OK)
    return -1;
  if (tw_conn_file_open(path, &src, err, sizeof err) < 0 || tw_reader_open(&r, src, &rc) < 0 ||
      tw_decoder_open(&d, NULL) < 0)
    return -1;
  tw_decoder_on_event(d, on_event, &run);
  run.events = 0;
  t0 = now();
  tw_mti_system_start(run.sys);
  if (tw_decoder_run(d, r) != 0)
    return -1;
  tw_mti_system_stop(run.sys);
  pi->vtbl->Release(pi);
  t = now() - t0;
  if (tw_export_plugin_status("ctf", err, sizeof err) < 0)
    return -1;
  tw_decoder_close(d);
  tw_reader_close(r);
  tw_conn_close(src);
  tw_mti_system_destroy(run.sys);
  tw_decoder_close(d0);
  *events = run.events;
  return t;
}

/* Decodes path (exporting when format is set); CPU seconds, or -1; the
 * wall seconds in *wall_s. */
static double pass(const char *path, const char *format, const char *out,
                   unsigned long long *events, double *wall_s)
{
  double w0 = wall();
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  struct tw_reader_cfg rc = {.read_bytes = 1 << 20};
  struct run run = {0};
  char err[256];
  double t0 = now(), t;
  if (tw_conn_file_open(path, &src, err, sizeof err) < 0 || tw_reader_open(&r, src, &rc) < 0 ||
      tw_decoder_open(&d, NULL) < 0)
    return -1;
  if (format && !strcmp(format, "model")) {
    if (tw_rtos_create(&run.model) < 0 ||
        tw_rtos_observe_kinds(run.model, on_change, &run, TIMELINE_KINDS) < 0)
      return -1;
  } else if (format) {
    struct tw_export_cfg cfg = {.format = format, .out = out};
    if (tw_export_open(&run.x, &cfg, err, sizeof err) < 0) {
      fprintf(stderr, "bench_export: %s\n", err);
      return -1;
    }
  }
  tw_decoder_on_event(d, on_event, &run);
  if (tw_decoder_run(d, r) != 0)
    return -1;
  if (run.x && tw_export_close(run.x, err, sizeof err) < 0) {
    fprintf(stderr, "bench_export: %s\n", err);
    return -1;
  }
  t = now() - t0;
  *wall_s = wall() - w0;
  tw_rtos_destroy(run.model);
  tw_decoder_close(d);
  tw_reader_close(r);
  tw_conn_close(src);
  *events = run.events;
  return t;
}

static unsigned long long file_bytes(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0;
}

/* Bytes of the regular files in dir (the CTF streams and metadata). */
static unsigned long long dir_bytes(const char *dir)
{
  char cmd[400];
  unsigned long long n = 0;
  FILE *p;
  snprintf(cmd, sizeof cmd, "du -sb '%s'", dir);
  if ((p = popen(cmd, "r")) != NULL) {
    if (fscanf(p, "%llu", &n) != 1)
      n = 0;
    pclose(p);
  }
  return n;
}

#define REPS 5

/* CPU seconds to read path's bytes through the file source alone. */
static double read_only(const char *path)
{
  static uint8_t buf[1 << 20];
  double best = 1e30;
  for (int i = 0; i < REPS; i++) {
    struct tw_conn *src;
    char err[256];
    double t0 = now();
    if (tw_conn_file_open(path, &src, err, sizeof err) < 0)
      return -1;
    while (tw_conn_read(src, buf, sizeof buf, -1) > 0)
      ;
    tw_conn_close(src);
    double t = now() - t0;
    if (t < best)
      best = t;
  }
  return best;
}

/* CPU seconds to find every record: the framing reader plus a walk over
 * the record headers (each record's length leads to the next), no
 * decoding. Any reader of this format does at least this much. */
static double frame_only(const char *path, unsigned long long *records)
{
  double best = 1e30;
  for (int i = 0; i < REPS; i++) {
    struct tw_conn *src;
    struct tw_reader *r;
    struct tw_reader_cfg rc = {.read_bytes = 1 << 20};
    struct tw_pkt pkt;
    char err[256];
    unsigned long long n = 0;
    double t0 = now();
    if (tw_conn_file_open(path, &src, err, sizeof err) < 0 || tw_reader_open(&r, src, &rc) < 0)
      return -1;
    while (tw_reader_next(r, &pkt, -1) == 1) {
      const uint8_t *p = pkt.payload, *end = p + pkt.payload_len;
      while (end - p >= 4) {
        uint32_t len = (pkt.endian == TW_ENDIAN_BIG ? tw_load_be32(p) : tw_load_le32(p)) >> 16 & 0x7FFu;
        if (len < 4)
          break;
        p += len;
        n++;
      }
    }
    tw_reader_close(r);
    tw_conn_close(src);
    double t = now() - t0;
    if (t < best)
      best = t;
    *records = n;
  }
  return best;
}

/* Best CPU seconds of REPS passes (and the best wall seconds in *wall_s). */
static double best_of(const char *path, const char *format, const char *out,
                      unsigned long long *events, double *wall_s)
{
  double best = 1e30, w, wbest = 1e30;
  for (int i = 0; i < REPS; i++) {
    double t = pass(path, format, out, events, &w);
    if (t < 0)
      return -1;
    if (t < best)
      best = t;
    if (w < wbest)
      wbest = w;
  }
  *wall_s = wbest;
  return best;
}

static double babeltrace2(const char *dir, double *wall_s)
{
  char *argv[] = {"babeltrace2", (char *)dir, "-o", "dummy", NULL};
  posix_spawn_file_actions_t fa;
  struct rusage ru;
  pid_t pid;
  int st;
  double t0 = wall();
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0); /* discard warnings */
  if (posix_spawnp(&pid, "babeltrace2", &fa, NULL, argv, environ) != 0)
    return -1;
  posix_spawn_file_actions_destroy(&fa);
  if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
    return -1;
  *wall_s = wall() - t0;
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 64, len = 0;
  char tmp[] = "/tmp/tw_bench_export_XXXXXX", path[300], ctf[300], pf[300];
  struct tw_synth g;
  struct tw_synth_cfg cfg = {.names = 1, .pkt_bytes = 4096, .instances = 2, .endpoints = 2,
                             .drop_every = 1000, .start_ticks = 0xF0000000u, .switches = 1};
  static uint8_t buf[65536];
  unsigned long long n_dec = 0, n_ctf = 0, n_pf = 0, n_pl = 0, n_md = 0, n_pn = 0, b_pf, b_ctf;
  double t_dec, t_ctf, t_pf, t_pl = 1e30, t_bt, t_bt_wall = 0, t_rd, t_fr, t_md, t_pn;
  double w_dec, w_ctf, w_pf, w_md, w_pn;
  unsigned long long n_fr = 0;
  FILE *f;
  if (!mkdtemp(tmp))
    return 1;
  snprintf(path, sizeof path, "%s/trace.bin", tmp);
  snprintf(ctf, sizeof ctf, "%s/ctf", tmp);
  snprintf(pf, sizeof pf, "%s/trace.perfetto-trace", tmp);
  if (!(f = fopen(path, "wb")))
    return 1;
  tw_synth_init(&g, &cfg);
  while (len < (mib << 20)) {
    size_t n = tw_synth_packet(&g, buf, sizeof buf);
    fwrite(buf, 1, n, f);
    len += n;
  }
  fclose(f);

  t_dec = best_of(path, NULL, NULL, &n_dec, &w_dec);
  t_rd = read_only(path);
  t_fr = frame_only(path, &n_fr);
  t_ctf = best_of(path, "ctf", ctf, &n_ctf, &w_ctf);
  t_pf = best_of(path, "perfetto", pf, &n_pf, &w_pf);
  t_md = best_of(path, "model", NULL, &n_md, &w_md);
  t_pn = best_of(path, "perfetto", "/dev/null", &n_pn, &w_pn);
  for (int i = 0; i < REPS; i++) {
    double t = plugin_pass(path, ctf, &n_pl);
    if (t < t_pl)
      t_pl = t;
  }
  if (t_dec < 0 || t_ctf < 0 || t_pf < 0 || t_pl < 0 || t_md < 0 || t_pn < 0 ||
      n_dec != g.events || n_ctf != n_dec || n_pf != n_dec || n_pl != n_dec || n_md != n_dec ||
      n_pn != n_dec) {
    fprintf(stderr, "bench_export: a pass failed (%llu/%llu/%llu events of %llu)\n", n_dec,
            n_ctf, n_pf, g.events);
    return 1;
  }
  printf("bench_export: %.0f MB trace, %llu events, 2 endpoints x 2 cores\n", (double)len / 1e6,
         n_dec);
  printf("bench_export: decode only      %6.1f M events/s CPU (%.1f wall)\n",
         (double)n_dec / t_dec / 1e6, (double)n_dec / w_dec / 1e6);
  printf("bench_export: decode + CTF     %6.1f M events/s end to end CPU (%.1f wall); CTF writer "
         "alone %.1f M events/s\n", (double)n_ctf / t_ctf / 1e6, (double)n_ctf / w_ctf / 1e6,
         (double)n_ctf / (t_ctf - t_dec) / 1e6);
  printf("bench_export: decode + Perfetto %5.1f M events/s end to end CPU (%.1f wall); Perfetto "
         "writer alone %.1f M events/s\n", (double)n_pf / t_pf / 1e6, (double)n_pf / w_pf / 1e6,
         (double)n_pf / (t_pf - t_dec) / 1e6);
  printf("bench_export: decode + RTOS model, no writer: %.1f M events/s CPU (%.1f wall) (the "
         "changes the Perfetto writer's timeline takes: the most it can reach here)\n",
         (double)n_md / t_md / 1e6, (double)n_md / w_md / 1e6);
  printf("bench_export: per event (CPU): decode %.1f ns, model %.1f ns, Perfetto writer on the "
         "model %.1f ns (timeline and encoding %.1f, writing the file %.1f); CTF writer %.1f ns\n",
         t_dec / (double)n_dec * 1e9, (t_md - t_dec) / (double)n_md * 1e9,
         (t_pf - t_md) / (double)n_pf * 1e9, (t_pn - t_md) / (double)n_pn * 1e9,
         (t_pf - t_pn) / (double)n_pf * 1e9, (t_ctf - t_dec) / (double)n_ctf * 1e9);
  printf("bench_export: decode + Perfetto to /dev/null %.1f M events/s CPU (%.1f wall)\n",
         (double)n_pn / t_pn / 1e6, (double)n_pn / w_pn / 1e6);
  printf("bench_export: decode + MTI model + CTF plugin (tracewire export's path) %.1f M "
         "events/s\n", (double)n_pl / t_pl / 1e6);
  printf("bench_export: target CTF export >= 20 M events/s: %s (end to end), %s (writer)\n",
         (double)n_ctf / t_ctf >= 20e6 ? "met" : "NOT met",
         (double)n_ctf / (t_ctf - t_dec) >= 20e6 ? "met" : "NOT met");
  printf("bench_export: target Perfetto export >= 20 M events/s end to end: %s (%.1f M events/s, "
         "CTF %.1f)\n", (double)n_pf / t_pf >= 20e6 ? "met" : "NOT met",
         (double)n_pf / t_pf / 1e6, (double)n_ctf / t_ctf / 1e6);
  b_pf = file_bytes(pf);
  b_ctf = dir_bytes(ctf);
  printf("bench_export: sizes: trace %zu bytes (%.1f per event), Perfetto %llu (%.1f per event, "
         "%.2fx the trace), CTF %llu (%.1f per event, %.2fx)\n", len, (double)len / (double)n_dec,
         b_pf, (double)b_pf / (double)n_dec, (double)b_pf / (double)len, b_ctf,
         (double)b_ctf / (double)n_dec, (double)b_ctf / (double)len);
  printf("bench_export: target Perfetto size <= 1.5x the trace: %s (%.2fx)\n",
         (double)b_pf <= 1.5 * (double)len ? "met" : "NOT met", (double)b_pf / (double)len);
  t_bt = babeltrace2(ctf, &t_bt_wall);
  for (int i = 1; i < 3 && t_bt >= 0; i++) {
    double w, t = babeltrace2(ctf, &w);
    if (t >= 0 && t < t_bt) {
      t_bt = t;
      t_bt_wall = w;
    }
  }
  int missing_peer = 0;
  if (t_bt < 0) {
    printf("bench_export: babeltrace2 not runnable (Debian package babeltrace2): no ratio\n");
    missing_peer = getenv("CI") && !strcmp(getenv("CI"), "true"); /* CI: a failure */
  } else {
    printf("bench_export: peer babeltrace2 CTF -o dummy: %.2f s CPU (%.2f s wall), %.2f M "
           "events/s\n", t_bt, t_bt_wall, (double)n_dec / t_bt / 1e6);
    printf("bench_export: our reading (%.3f s) is %.0fx faster than babeltrace2 reading the "
           "CTF; target >= 50x: %s\n", t_dec, t_bt / t_dec, t_bt / t_dec >= 50 ? "met" : "NOT met");
    printf("bench_export: reading the file's bytes alone (read(), no framing or decoding) takes "
           "%.3f s: %.0fx is the ceiling for any decoder here\n", t_rd, t_bt / t_rd);
    printf("bench_export: finding every record (framing + record lengths, %llu records, no "
           "decoding) takes %.3f s: %.0fx is the ceiling for any reader of this format here\n",
           n_fr, t_fr, t_bt / t_fr);
  }
  snprintf(path, sizeof path, "rm -rf '%s'", tmp);
  return system(path) == 0 && !missing_peer ? 0 : 1;
}
