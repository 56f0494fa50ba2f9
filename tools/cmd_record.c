/*
 * `tracewire record`: a target's stream into a .twt trace.
 *
 * Every byte the transport delivers is written as received (DATA chunks
 * with arrival times), before it is decoded: the trace keeps the evidence
 * of any corruption, and a crash loses at most the chunk being written.
 * The same bytes go through the reader and decoder for the live counts and
 * for the command replies (GET_INFO, SET_MASK, START, STOP), which share
 * the connection with the event packets.
 *
 * Stop: Ctrl-C / SIGTERM, --duration, or the end of the source. On a stop
 * the target is sent STOP, the stream is drained until it is quiet, and
 * the trace is closed with its END chunk and fsync'd.
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "tracewire/host/cmd_client.h"
#include "tracewire/host/sys.h"
#include "tracewire/host/trace_file.h"
#include "tracewire/events_gen.h"
#include "tracewire/error.h"

void tw_cli_record_help(FILE *f)
{
  fputs("usage: tracewire record --from SOURCE -o TRACE.twt [options]\n"
        "SOURCE:\n"
        "  tcp://HOST:PORT                connect to a target\n"
        "  tcp-listen://[ADDR]:PORT       wait for a target (default address 127.0.0.1)\n"
        "  udp://[ADDR]:PORT[?target=H:P] receive datagrams (default address 127.0.0.1)\n"
        "  serial:///dev/ttyX?baud=N      serial line, 8N1 (default 115200 baud)\n"
        "  FILE                           a file of raw packets\n"
        "options:\n"
        "  --mask MASK        event mask to set before START (bit n-1 = event id n)\n"
        "  --duration S       stop after S seconds\n"
        "  --idle S           stop when nothing arrived for S seconds (after the first bytes)\n"
        "  --no-commands      do not send commands (the target streams by itself)\n"
        "  --reconnect        tcp-listen: when the target disconnects, wait for it to\n"
        "                     reconnect and go on (the loss in between is reported)\n"
        "  -q, --quiet        no live counts\n"
        "Ctrl-C stops cleanly: STOP is sent, the stream drained, the trace closed.\n"
        "exit status: 0 ok, 1 error, 2 usage\n", f);
}

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

struct rec {
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  struct tw_twt_writer *w;
  struct tw_cmd_client cmd;
  const char *out;
  int write_failed, tty;
  unsigned long long data_ok; /* stream bytes safely in the trace */
  int target_stopped;       /* TRACE_STOP seen: the target stopped itself */
  unsigned long long events;
};

static void tap(void *ctx, const void *bytes, size_t n)
{
  struct rec *R = ctx;
  if (!R->write_failed && tw_twt_write(R->w, TW_TWT_DATA, 0, tw_sys_wall_ns(), bytes, n) < 0) {
    R->write_failed = 1;
    cli_err("record: %s", tw_twt_writer_error(R->w));
  } else if (!R->write_failed) {
    R->data_ok += n;
  }
}

static int count_event(void *ctx, const struct tw_event *ev)
{
  struct rec *R = ctx;
  R->events++;
  if (ev->module == TW_MOD_CONTROL && ev->desc->id == TW_EV_TRACE_STOP)
    R->target_stopped = 1;
  return 0;
}

static void on_msg(void *ctx, const struct tw_pkt *pkt)
{
  tw_cmd_client_msg(&((struct rec *)ctx)->cmd, pkt);
}

static void on_skip(void *ctx, const struct tw_skip *s)
{
  struct rec *R = ctx;
  tw_decoder_skip(R->d, s);
}

static void diag(void *ctx, const struct tw_diag *g)
{
  struct rec *R = ctx;
  if (g->kind == TW_DIAG_RING_DROPS || g->kind == TW_DIAG_NO_FREQ)
    return;
  fprintf(stderr, "%stracewire: %s: offset %llu: %s\n", R->tty ? "\r\033[K" : "", R->src->name,
          g->offset, g->msg);
}

static int pump(void *ctx, int timeout_ms)
{
  struct rec *R = ctx;
  struct tw_pkt pkt;
  int n = tw_reader_next(R->r, &pkt, timeout_ms);
  if (n == 1)
    return tw_decoder_packet(R->d, &pkt, tw_reader_pkt_offset(R->r), tw_reader_pkt_number(R->r)) < 0
               ? TW_EIO : 0;
  return n;
}

static void totals(const struct rec *R, unsigned long long *ring, unsigned long long *lost)
{
  *ring = *lost = 0;
  for (size_t i = 0; i < tw_decoder_nstreams(R->d); i++) {
    const struct tw_stream_stats *st = tw_decoder_stream(R->d, i);
    *ring += st->ring_drops;
    *lost += st->events_lost + st->unexplained;
  }
}

static void show_counts(const struct rec *R, double secs, int final)
{
  unsigned long long ring, lost;
  totals(R, &ring, &lost);
  fprintf(stderr, "%s%llu events (%.0f/s), drops: %llu ring overflow, %llu lost in transport, %llu bytes%s",
          final ? "tracewire record: " : "\r\033[Krecording: ", R->events,
          secs > 0 ? (double)R->events / secs : 0.0, ring, lost, tw_reader_stats(R->r)->bytes,
          final ? "\n" : "");
}

/* GET_INFO, SET_MASK, START. 0 when the target takes commands. */
static int start_target(struct rec *R, int have_mask, uint32_t mask)
{
  struct tw_cmd_reply_info rep;
  int rc = tw_cmd_call(&R->cmd, TW_SVC_LOGGER, TW_LCMD_GET_INFO, NULL, 0, &rep);
  if (rc < 0) {
    cli_err("record: %s; recording what the target sends", tw_cmd_client_error(&R->cmd));
    return rc;
  }
  if (rep.nbody >= TW_INFO_WORDS) {
    uint8_t body[4 * TW_INFO_WORDS];
    for (unsigned i = 0; i < TW_INFO_WORDS; i++)
      tw_store_be32(body + 4 * i, rep.body[i]);
    tw_twt_write(R->w, TW_TWT_INFO, 0, tw_sys_wall_ns(), body, sizeof body);
    tw_decoder_set_freq(R->d, (uint16_t)rep.body[TW_INFO_ENDPOINT], rep.body[TW_INFO_TS_FREQ_HZ]);
  }
  if (have_mask) {
    rc = tw_cmd_call(&R->cmd, TW_SVC_LOGGER, TW_LCMD_SET_MASK, &mask, 1, &rep);
    if (rc < 0)
      cli_err("record: %s", tw_cmd_client_error(&R->cmd));
    else if (rep.nbody && rep.body[0] != mask)
      cli_err("record: mask 0x%08x asked, 0x%08x in force", mask, rep.body[0]);
  }
  rc = tw_cmd_call(&R->cmd, TW_SVC_LOGGER, TW_LCMD_START, NULL, 0, &rep);
  if (rc < 0)
    cli_err("record: %s", tw_cmd_client_error(&R->cmd));
  return rc;
}

static void stop_target(struct rec *R)
{
  struct tw_cmd_reply_info rep;
  if (tw_cmd_call(&R->cmd, TW_SVC_LOGGER, TW_LCMD_STOP, NULL, 0, &rep) < 0)
    cli_err("record: %s", tw_cmd_client_error(&R->cmd));
  /* the last packets follow the ACK: drain until the stream is quiet */
  for (int quiet = 0; quiet < 2;) {
    int n = pump(R, 150);
    if (n == TW_EAGAIN)
      quiet++;
    else if (n < 0)
      break;
  }
}

/* A disconnect is written into the trace (a NOTE chunk) and said on
 * stderr; what it cost shows up as sequence gaps once the target is back. */
static void note_disconnect(struct rec *R)
{
  char note[300];
  int n = snprintf(note, sizeof note, "%s", tw_conn_error(R->src));
  tw_twt_write(R->w, TW_TWT_NOTE, 0, tw_sys_wall_ns(), note, n > 0 ? (size_t)n : 0);
  fprintf(stderr, "%stracewire record: %s\n", R->tty ? "\r\033[K" : "", note);
}

int tw_cli_record(int argc, char **argv)
{
  static const struct option opts[] = {
    {"from", required_argument, 0, 'f'}, {"mask", required_argument, 0, 'm'},
    {"duration", required_argument, 0, 'd'}, {"no-commands", no_argument, 0, 'n'},
    {"quiet", no_argument, 0, 'q'}, {"idle", required_argument, 0, 'i'},
    {"reconnect", no_argument, 0, 'r'}, {0, 0, 0, 0},
  };
  const char *from = NULL, *out = NULL;
  long long duration = -1, idle = -1;
  uint32_t mask = 0;
  int have_mask = 0, no_cmd = 0, quiet = 0, reconnect = 0, c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "f:o:m:d:nq", opts, NULL)) != -1) {
    switch (c) {
    case 'f': from = optarg; break;
    case 'o': out = optarg; break;
    case 'm': {
      char *end;
      mask = (uint32_t)strtoul(optarg, &end, 0);
      if (*end) {
        cli_err("record: bad mask '%s'", optarg);
        return TW_EXIT_USAGE;
      }
      have_mask = 1;
      break;
    }
    case 'd':
      if ((duration = cli_parse_seconds(optarg)) < 0) {
        cli_err("record: bad duration '%s'", optarg);
        return TW_EXIT_USAGE;
      }
      break;
    case 'i':
      if ((idle = cli_parse_seconds(optarg)) < 0) {
        cli_err("record: bad idle time '%s'", optarg);
        return TW_EXIT_USAGE;
      }
      break;
    case 'n': no_cmd = 1; break;
    case 'q': quiet = 1; break;
    case 'r': reconnect = 1; break;
    default: tw_cli_record_help(stderr); return TW_EXIT_USAGE;
    }
  }
  if (!from || !out || optind != argc) {
    tw_cli_record_help(stderr);
    return TW_EXIT_USAGE;
  }
  struct rec R = { .out = out };
  char err[512];
  if (tw_conn_open(from, &R.src, err, sizeof err) < 0) {
    cli_err("record: %s", err);
    return TW_EXIT_ERROR;
  }
  R.src->reconnect = reconnect;
  if (R.src->bound_port)
    fprintf(stderr, "tracewire record: listening on %s (port %d)\n", R.src->name, R.src->bound_port);
  if (tw_twt_create(out, &R.w, err, sizeof err) < 0) {
    cli_err("record: %s", err);
    tw_conn_close(R.src);
    return TW_EXIT_ERROR;
  }
  tw_twt_write(R.w, TW_TWT_SOURCE, 0, tw_sys_wall_ns(), from, strlen(from));
  if (tw_reader_open(&R.r, R.src, NULL) < 0 || tw_decoder_open(&R.d, NULL) < 0) {
    cli_err("record: out of memory");
    return TW_EXIT_ERROR;
  }
  R.tty = !quiet && isatty(2);
  tw_reader_on_bytes(R.r, tap, &R);
  tw_reader_on_skip(R.r, on_skip, &R);
  tw_decoder_on_event(R.d, count_event, &R);
  tw_decoder_on_msg(R.d, on_msg, &R);
  tw_decoder_on_diag(R.d, diag, &R);
  tw_cmd_client_init(&R.cmd, R.src, pump, &R);

  struct sigaction sa = { .sa_handler = on_signal };
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  unsigned long long t0 = tw_sys_mono_ns(), last_status = t0, last_data = 0, seen = 0;
  unsigned long long disconnects = 0;
  int commands = !no_cmd && R.src->ops->write != NULL;
  if (commands && start_target(&R, have_mask, mask) < 0)
    commands = 0;
  int status = TW_EXIT_OK, ended = 0;
  while (!stop_requested && !R.write_failed) {
    unsigned long long now = tw_sys_mono_ns();
    if (duration >= 0 && now - t0 >= (unsigned long long)duration)
      break;
    unsigned long long bytes = tw_reader_stats(R.r)->bytes;
    if (bytes != seen) {
      seen = bytes;
      last_data = now;
    }
    if (idle >= 0 && last_data && now - last_data >= (unsigned long long)idle)
      break;
    int n = pump(&R, 200);
    if (R.src->disconnects != disconnects) {
      disconnects = R.src->disconnects;
      note_disconnect(&R);
    }
    if (n == TW_EOF) {
      ended = 1;
      break;
    }
    if (n < 0 && n != TW_EAGAIN) {
      if (n != TW_ECONNRESET) {
        cli_err("record: %s", tw_conn_error(R.src));
        status = TW_EXIT_ERROR;
      }
      ended = 1;
      break;
    }
    if (R.tty && now - last_status > 500000000u) {
      show_counts(&R, (double)(now - t0) / 1e9, 0);
      last_status = now;
    }
  }
  if (commands && !ended && !R.write_failed && !R.target_stopped)
    stop_target(&R);
  if (R.tty)
    fputs("\r\033[K", stderr);
  show_counts(&R, (double)(tw_sys_mono_ns() - t0) / 1e9, 1);
  if (R.write_failed) {
    /* a full disk: stop, and say what the file holds (it stays readable) */
    tw_twt_close(R.w, 0);
    cli_err("record: recording stopped: %s cannot take more; it holds the first %llu bytes "
            "received and reads as a trace that was not stopped cleanly", out,
            (unsigned long long)R.data_ok);
    status = TW_EXIT_ERROR;
  } else if (tw_twt_close(R.w, 1) < 0) {
    cli_err("record: %s: the trace is incomplete", out);
    status = TW_EXIT_ERROR;
  }
  tw_decoder_close(R.d);
  tw_reader_close(R.r);
  tw_conn_close(R.src);
  return status;
}
