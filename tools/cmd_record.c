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
 * Stop: Ctrl-C / SIGTERM, --duration, --idle, or the end of every source.
 * On a stop each target is sent STOP (unless it already sent TRACE_STOP),
 * its stream is drained until it is quiet, and the trace is closed with
 * its END chunk and fsync'd.
 *
 * Reconnect (--reconnect; tcp, tcp-listen, serial): a target that goes
 * away is waited for. Its disconnect is a NOTE in the trace and a line on
 * stderr; when the transport counts a new connection (tw_conn.connects),
 * another NOTE says so and the start-up commands (GET_INFO, SET_MASK,
 * START) are sent again, since a board that reset has forgotten them. A
 * target that does not answer is said once per source and recorded as it
 * streams. STOP at the end goes only to a target that is connected and
 * answered.
 *
 * A target that is not there yet (--reconnect; tcp refused or unreachable,
 * serial device node absent: the board is still off or being flashed) is
 * waited for from the start: the source is opened with
 * tw_conn_open_waiting(), "waiting for ... to appear" is said once (stderr
 * and a NOTE), and its first connection is handled like tcp-listen's:
 * watch_conn() sees connects grow from 0 and the start-up commands go out.
 * A source that never appeared makes the exit status 1 (the trace is still
 * closed cleanly): nothing was recorded from it.
 *
 * Several --from: one connection, reader, decoder and command client per
 * source, each source's bytes in DATA chunks of its own source id (0, 1,
 * ...). print/stats/info decode them separately and merge the events.
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "live_ui.h"
#include "tracewire/wire/cmd_client.h"
#include "tracewire/io/conn_rtt_gdb.h"
#include "tracewire/io/file.h"
#include "tracewire/io/gdb.h"
#include "tracewire/io/sys.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/events_gen.h"
#include "tracewire/error.h"

void tw_cli_record_help(FILE *f)
{
  fputs("usage: tracewire record --from SOURCE [--from SOURCE...] -o TRACE.twt [options]\n"
        "SOURCE:\n"
        "  tcp://HOST:PORT                connect to a target\n"
        "  tcp-listen://[ADDR]:PORT       wait for a target (default address 127.0.0.1)\n"
        "  udp://[ADDR]:PORT[?target=H:P] receive datagrams (default address 127.0.0.1)\n"
        "  serial:///dev/ttyX?baud=N      serial line, 8N1 (default 115200 baud)\n"
        "  rtt+gdb://HOST:PORT[?options]  the target's RTT channels through a GDB server\n"
        "                                 (QEMU -gdb, OpenOCD, pyOCD, J-Link, BMP): addr=,size=\n"
        "                                 (search range, default 0x20000000,65536), cb=ADDR,\n"
        "                                 up=,down= (channels), poll=MS, find=MS, timeout=MS,\n"
        "                                 mode=auto|halt|nonstop (docs/rtt.md)\n"
        "  FILE                           a file of raw packets\n"
        "options:\n"
        "  --mask MASK        event mask to set before START (bit n-1 = event id n;\n"
        "                     0 to 0xFFFFFFFF, decimal or 0x hex)\n"
        "  --duration S       stop after S seconds\n"
        "  --idle S           stop when nothing arrived for S seconds (after the first bytes)\n"
        "  --no-commands      do not send commands (the target streams by itself)\n"
        "  --no-footer        the target is one of TI's (its own RTA service or\n"
        "                     loggers): send commands without the footer word, as\n"
        "                     TI's hosts do, and take its packets, replies included,\n"
        "                     without one (the trace says so for later reads)\n"
        "  --reconnect        tcp, tcp-listen, serial, rtt+gdb: when the target goes away (board\n"
        "                     reset, USB-serial re-enumerated), wait for it to come back\n"
        "                     (tcp connects again with a backoff up to 1 s, tcp-listen\n"
        "                     accepts, serial re-opens the device), send the start-up\n"
        "                     commands again and go on; each disconnect is noted in\n"
        "                     the trace and the loss in between is reported;\n"
        "                     a tcp or serial target that is not there yet at the\n"
        "                     start (refused, unreachable, no device node) is waited\n"
        "                     for the same way (exit status 1 if it never appears)\n"
        "  --live             watch the target while it is recorded: link and loss rates,\n"
        "                     CPU share per task (last second, since start), task states,\n"
        "                     interrupts per second, findings in groups; full screen on a\n"
        "                     terminal (q stops the recording, space pauses the display,\n"
        "                     s changes the sort), plain lines every second otherwise\n"
        "  --linger           with --live on a terminal: when the recording ends by itself\n"
        "                     (the trace is then complete), keep the last view until q\n"
        "  -q, --quiet        no live counts\n"
        "Ctrl-C stops cleanly: STOP is sent, the stream drained, the trace closed.\n"
        "exit status: 0 ok, 1 error, 2 usage\n", f);
}

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

#define MAX_FROM 8

struct rec;

struct rsrc {
  struct rec *R;
  uint16_t id;
  const char *uri;
  struct tw_conn *conn;
  struct tw_reader *r;
  struct tw_decoder *d;
  struct tw_cmd_client cmd;
  int commands, ended;
  int answered;             /* the target answered the start-up commands */
  int said_no_answer;       /* "no reply" is said once per source */
  int restart;              /* a new connection: send the start-up commands */
  int waited;               /* not there at open: waited for it to appear */
  unsigned long long disconnects; /* reconnect mode: the ones noted so far */
  unsigned long long connects;    /* connections seen so far */
  int target_stopped;       /* TRACE_STOP seen: the target stopped itself */
  unsigned long long events;
};

struct rec {
  struct rsrc src[MAX_FROM];
  size_t n;
  struct tw_twt_writer *w;
  const char *out;
  int write_failed, tty;
  unsigned long long data_ok; /* stream bytes safely in the trace */
  struct live_ui *ui;         /* --live */
  struct tw_live *live;
};

static void tap(void *ctx, const void *bytes, size_t n)
{
  struct rsrc *s = ctx;
  struct rec *R = s->R;
  if (!R->write_failed && tw_twt_write(R->w, TW_TWT_DATA, s->id, tw_sys_wall_ns(), bytes, n) < 0) {
    R->write_failed = 1;
    cli_err("record: %s", tw_twt_writer_error(R->w));
  } else if (!R->write_failed) {
    R->data_ok += n;
  }
}

static int count_event(void *ctx, const struct tw_event *ev)
{
  struct rsrc *s = ctx;
  s->events++;
  if (ev->module == TW_MOD_CONTROL && ev->desc->id == TW_EV_TRACE_STOP)
    s->target_stopped = 1;
  return 0;
}

static void on_msg(void *ctx, const struct tw_pkt *pkt)
{
  tw_cmd_client_msg(&((struct rsrc *)ctx)->cmd, pkt);
}

static void on_skip(void *ctx, const struct tw_skip *sk)
{
  struct rsrc *s = ctx;
  if (s->R->live)
    tw_live_skip(s->R->live, s->id, sk);
  tw_decoder_skip(s->d, sk);
}

static void diag(void *ctx, const struct tw_diag *g)
{
  struct rsrc *s = ctx;
  if (g->kind == TW_DIAG_RING_DROPS || g->kind == TW_DIAG_NO_FREQ)
    return;
  cli_msg("%stracewire: %s: offset %llu: %s", s->R->tty ? "\r\033[K" : "", s->conn->name,
          g->offset, g->msg);
}

static void watch_conn(struct rsrc *s);

static int pump(void *ctx, int timeout_ms)
{
  struct rsrc *s = ctx;
  struct tw_pkt pkt;
  int n = tw_reader_next(s->r, &pkt, timeout_ms);
  watch_conn(s);
  if (n == 1 && s->R->live) /* a copy for the live view; it never waits */
    tw_live_packet(s->R->live, s->id, &pkt, tw_reader_pkt_offset(s->r), tw_reader_pkt_number(s->r));
  if (n == 1)
    return tw_decoder_packet(s->d, &pkt, tw_reader_pkt_offset(s->r), tw_reader_pkt_number(s->r)) < 0
               ? TW_EIO : 0;
  return n;
}

/* What record counts live: each loss by its cause, never folded into
 * another (unexplained gaps are not transport loss; a restart is none). */
struct counts {
  unsigned long long events, ring, lost, unexplained, restarts, bytes;
};

static void totals(const struct rec *R, struct counts *c)
{
  memset(c, 0, sizeof *c);
  for (size_t k = 0; k < R->n; k++) {
    const struct rsrc *s = &R->src[k];
    c->events += s->events;
    c->bytes += tw_reader_stats(s->r)->bytes;
    for (size_t i = 0; i < tw_decoder_nstreams(s->d); i++) {
      const struct tw_stream_stats *st = tw_decoder_stream(s->d, i);
      c->ring += st->ring_drops;
      c->lost += st->events_lost;
      c->unexplained += st->unexplained;
      c->restarts += st->restarts;
    }
  }
}

static void show_counts(const struct rec *R, double secs, int final)
{
  struct counts c;
  totals(R, &c);
  char more[96] = ""; /* (causes that are usually zero, said only when not) */
  int n = 0;
  if (c.unexplained)
    n = snprintf(more, sizeof more, ", %llu unexplained", c.unexplained);
  if (c.restarts)
    snprintf(more + n, sizeof more - (size_t)n, ", %llu restart%s", c.restarts,
             c.restarts == 1 ? "" : "s");
  double rate = secs > 0 ? (double)c.events / secs : 0.0;
  if (final) /* (a full-screen live view keeps it for after) */
    cli_msg("tracewire record: %llu events (%.0f/s), drops: %llu ring overflow, %llu lost in "
            "transport%s, %llu bytes", c.events, rate, c.ring, c.lost, more, c.bytes);
  else
    fprintf(stderr, "\r\033[Krecording: %llu events (%.0f/s), drops: %llu ring overflow, %llu lost "
            "in transport%s, %llu bytes", c.events, rate, c.ring, c.lost, more, c.bytes);
}

/* The live view's counters: every source, losses by cause. */
static void link_counts(const struct rec *R, struct live_link *lk)
{
  memset(lk, 0, sizeof *lk);
  for (size_t k = 0; k < R->n; k++) {
    const struct rsrc *s = &R->src[k];
    lk->events += s->events;
    lk->bytes += tw_reader_stats(s->r)->bytes;
    lk->packets += tw_reader_stats(s->r)->packets;
    for (size_t i = 0; i < tw_decoder_nstreams(s->d); i++) {
      const struct tw_stream_stats *st = tw_decoder_stream(s->d, i);
      lk->ring += st->ring_drops;
      lk->transport += st->events_lost;
      lk->unexplained += st->unexplained;
    }
  }
}

/* rtt+gdb through an all-stop server: what reading cost the target, the
 * time it spent halted (docs/rtt.md). */
static void rtt_cost(const struct rsrc *s, unsigned long long wall_ns)
{
  const struct tw_gdb *g = tw_conn_rtt_gdb_client(s->conn);
  if (!g || !wall_ns)
    return;
  if (g->nonstop) {
    cli_msg("tracewire record: %s: non-stop: the target was never halted (%llu reads)",
            s->conn->name, g->mem_reads);
    return;
  }
  cli_msg("tracewire record: %s: %llu halts, the target halted %.1f ms in all "
          "(%.2f%% of %.2f s, %.0f us a halt)", s->conn->name, g->halts, (double)g->halted_ns / 1e6,
          100.0 * (double)g->halted_ns / (double)wall_ns, (double)wall_ns / 1e9,
          g->halts ? (double)g->halted_ns / 1e3 / (double)g->halts : 0.0);
}

/* GET_INFO, SET_MASK, START. 0 when the target takes commands. */
static int start_target(struct rsrc *s, int have_mask, uint32_t mask)
{
  struct tw_cmd_reply_info rep;
  int rc = tw_cmd_call(&s->cmd, TW_SVC_LOGGER, TW_LCMD_GET_INFO, NULL, 0, &rep);
  if (rc < 0) {
    if (!s->said_no_answer)
      cli_err("record: %s; recording what the target sends", tw_cmd_client_error(&s->cmd));
    s->said_no_answer = 1;
    return rc;
  }
  if (rep.nbody >= TW_INFO_WORDS) {
    uint8_t body[4 * TW_INFO_WORDS];
    for (unsigned i = 0; i < TW_INFO_WORDS; i++)
      tw_store_be32(body + 4 * i, rep.body[i]);
    tw_twt_write(s->R->w, TW_TWT_INFO, s->id, tw_sys_wall_ns(), body, sizeof body);
    tw_decoder_set_freq(s->d, (uint16_t)rep.body[TW_INFO_ENDPOINT], rep.body[TW_INFO_TS_FREQ_HZ]);
    if (s->R->live)
      tw_live_freq(s->R->live, s->id, (uint16_t)rep.body[TW_INFO_ENDPOINT],
                   rep.body[TW_INFO_TS_FREQ_HZ]);
  }
  if (have_mask) {
    rc = tw_cmd_call(&s->cmd, TW_SVC_LOGGER, TW_LCMD_SET_MASK, &mask, 1, &rep);
    if (rc < 0)
      cli_err("record: %s", tw_cmd_client_error(&s->cmd));
    else if (rep.nbody && rep.body[0] != mask)
      cli_err("record: %s: mask 0x%08x asked, 0x%08x in force", s->uri, mask, rep.body[0]);
  }
  rc = tw_cmd_call(&s->cmd, TW_SVC_LOGGER, TW_LCMD_START, NULL, 0, &rep);
  if (rc < 0)
    cli_err("record: %s", tw_cmd_client_error(&s->cmd));
  return rc;
}

static void stop_target(struct rsrc *s)
{
  struct tw_cmd_reply_info rep;
  if (tw_cmd_call(&s->cmd, TW_SVC_LOGGER, TW_LCMD_STOP, NULL, 0, &rep) < 0)
    cli_err("record: %s", tw_cmd_client_error(&s->cmd));
  /* the last packets follow the ACK: drain until the stream is quiet */
  for (int quiet = 0; quiet < 2;) {
    int n = pump(s, 150);
    if (n == TW_EAGAIN)
      quiet++;
    else if (n < 0)
      break;
  }
}

/* A disconnect is written into the trace (a NOTE chunk of its source) and
 * said on stderr; what it cost shows up as sequence gaps once the target
 * is back. */
static void note(struct rec *R, struct rsrc *s, const char *text)
{
  tw_twt_write(R->w, TW_TWT_NOTE, s->id, tw_sys_wall_ns(), text, strlen(text));
  cli_msg("%stracewire record: %s", R->tty ? "\r\033[K" : "", text);
}

/* Called after every read: a disconnect or a new connection is noted
 * (in that order: both can happen while a command waits for its reply),
 * and a new connection asks for the start-up commands. */
static void watch_conn(struct rsrc *s)
{
  struct tw_conn *c = s->conn;
  if (c->disconnects != s->disconnects) {
    s->disconnects = c->disconnects;
    note(s->R, s, tw_conn_error(c));
  }
  if (c->connects != s->connects) {
    if (!s->connects && s->waited) {
      char text[400];
      snprintf(text, sizeof text, "%s: target appeared%s", c->name,
               s->commands ? "; sending the start-up commands" : "");
      note(s->R, s, text);
    } else if (s->connects) {
      char text[400];
      snprintf(text, sizeof text, "%s: target connected again at stream byte %llu (connection %llu)%s",
               c->name, c->nread, c->connects,
               s->commands ? "; sending the start-up commands again" : "");
      note(s->R, s, text);
    }
    s->connects = c->connects;
    s->restart = 1;
    s->target_stopped = 0; /* a new session of the target */
  }
}

/* Start-up commands to a target that is there now (again): a board that
 * reset may come back with another address, so it is asked by broadcast. */
static void restart_target(struct rsrc *s, int have_mask, uint32_t mask)
{
  s->restart = 0;
  if (!s->commands)
    return;
  s->cmd.dest = TW_ADDR_BROADCAST;
  s->answered = start_target(s, have_mask, mask) == 0;
}

/* Once, when a source is not there at open: "waiting for NAME to appear
 * (connect: Connection refused)". */
static void say_waiting(struct rec *R, struct rsrc *s)
{
  const char *why = tw_conn_error(s->conn);
  size_t n = strlen(s->conn->name);
  if (strncmp(why, s->conn->name, n) == 0 && strncmp(why + n, ": ", 2) == 0)
    why += n + 2;
  char text[600];
  snprintf(text, sizeof text, "waiting for %s to appear (%s)", s->conn->name, why);
  note(R, s, text);
}

static int open_source(struct rec *R, struct rsrc *s, const char *uri, uint16_t id, int no_cmd,
                       int reconnect, int no_footer)
{
  char err[512];
  s->R = R;
  s->id = id;
  s->uri = uri;
  if ((reconnect ? tw_conn_open_waiting : tw_conn_open)(uri, &s->conn, err, sizeof err) < 0) {
    cli_err("record: %s", err);
    return -1;
  }
  s->conn->reconnect = reconnect;
  if (s->conn->bound_port)
    fprintf(stderr, "tracewire record: listening on %s (port %d)\n", s->conn->name, s->conn->bound_port);
  struct tw_decoder_cfg dcfg = { .max_streams = TW_INPUT_STREAMS };
  struct tw_reader_cfg rcfg = { .footerless = no_footer };
  if (tw_reader_open(&s->r, s->conn, &rcfg) < 0 || tw_decoder_open(&s->d, &dcfg) < 0) {
    cli_err("record: out of memory");
    return -1;
  }
  tw_reader_on_bytes(s->r, tap, s);
  tw_reader_on_skip(s->r, on_skip, s);
  tw_decoder_on_event(s->d, count_event, s);
  tw_decoder_on_msg(s->d, on_msg, s);
  tw_decoder_on_diag(s->d, diag, s);
  tw_cmd_client_init(&s->cmd, s->conn, pump, s);
  s->cmd.footerless = no_footer;
  s->commands = !no_cmd && s->conn->ops->write != NULL;
  if (s->conn->connects && strcmp(s->conn->ops->scheme, "tcp-listen"))
    s->restart = 1; /* connected at open; tcp-listen starts the target when one connects */
  s->connects = s->conn->connects;
  if (!tw_conn_connected(s->conn) && strcmp(s->conn->ops->scheme, "tcp-listen")) {
    s->waited = 1;
    say_waiting(R, s);
  }
  return 0;
}

int tw_cli_record(int argc, char **argv)
{
  static const struct option opts[] = {
    {"from", required_argument, 0, 'f'}, {"mask", required_argument, 0, 'm'},
    {"duration", required_argument, 0, 'd'}, {"no-commands", no_argument, 0, 'n'},
    {"quiet", no_argument, 0, 'q'}, {"idle", required_argument, 0, 'i'},
    {"reconnect", no_argument, 0, 'r'}, {"no-footer", no_argument, 0, 'F'},
    {"live", no_argument, 0, 'L'}, {"linger", no_argument, 0, 'G'}, {0, 0, 0, 0},
  };
  const char *from[MAX_FROM], *out = NULL; /* out "-": standard output */
  size_t nfrom = 0;
  long long duration = -1, idle = -1;
  uint32_t mask = 0;
  int have_mask = 0, no_cmd = 0, quiet = 0, reconnect = 0, no_footer = 0, live = 0, linger = 0, c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "f:o:m:d:nqi:", opts, NULL)) != -1) {
    switch (c) {
    case 'f':
      if (nfrom == MAX_FROM) {
        cli_err("record: at most %d sources", MAX_FROM);
        return TW_EXIT_USAGE;
      }
      from[nfrom++] = optarg;
      break;
    case 'o': out = optarg; break;
    case 'm': {
      unsigned long long v; /* "" used to set 0, an overflow 0xFFFFFFFF */
      if (cli_opt_num("record", "--mask", optarg, 0, 0xFFFFFFFFu, &v) < 0)
        return TW_EXIT_USAGE;
      mask = (uint32_t)v;
      have_mask = 1;
      break;
    }
    case 'd':
      if (cli_opt_seconds("record", "--duration", optarg, &duration) < 0)
        return TW_EXIT_USAGE;
      break;
    case 'i':
      if (cli_opt_seconds("record", "--idle", optarg, &idle) < 0)
        return TW_EXIT_USAGE;
      break;
    case 'n': no_cmd = 1; break;
    case 'q': quiet = 1; break;
    case 'r': reconnect = 1; break;
    case 'F': no_footer = 1; break;
    case 'L': live = 1; break;
    case 'G': linger = 1; break;
    default: tw_cli_record_help(stderr); return TW_EXIT_USAGE;
    }
  }
  if (!nfrom || !out || optind != argc) {
    tw_cli_record_help(stderr);
    return TW_EXIT_USAGE;
  }
  static struct rec R;
  memset(&R, 0, sizeof R); /* (static for its size; a fresh one per call) */
  stop_requested = 0;     /* (and a Ctrl-C of an earlier call is forgotten) */
  char err[512];
  R.out = out;
  R.tty = !quiet && !live && isatty(2);
  /* a source that is a file (or FIFO) is an input: the trace may not be
   * written over it (it would feed on its own output) */
  struct tw_file_id ids[MAX_FROM];
  for (size_t k = 0; k < nfrom; k++)
    tw_file_guard(from[k], &ids[k]);
  int created = tw_twt_create(out, &R.w, err, sizeof err);
  if (created < 0) {
    cli_err("record: %s", err);
    for (size_t k = 0; k < nfrom; k++)
      tw_file_unguard(&ids[k]);
    return TW_EXIT_ERROR;
  }
  tw_twt_writer_index(R.w, 0); /* a time index for print --filter time= (no memory: none) */
  for (size_t k = 0; k < nfrom; k++) /* every SOURCE chunk first: readers find them there */
    tw_twt_write(R.w, TW_TWT_SOURCE, (uint16_t)k, tw_sys_wall_ns(), from[k], strlen(from[k]));
  for (size_t k = 0; no_footer && k < nfrom; k++) { /* then, before any data, the framing */
    uint8_t flags[4];
    tw_store_le32(flags, TW_TWT_FRAMING_FOOTERLESS);
    tw_twt_write(R.w, TW_TWT_FRAMING, (uint16_t)k, tw_sys_wall_ns(), flags, sizeof flags);
  }
  /* before the opens: a first tcp attempt may wait up to 1 s for an answer */
  struct sigaction sa = { .sa_handler = on_signal };
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  int status = TW_EXIT_OK;
  for (size_t k = 0; k < nfrom; k++, R.n++)
    if (open_source(&R, &R.src[k], from[k], (uint16_t)k, no_cmd, reconnect, no_footer) < 0) {
      status = TW_EXIT_ERROR;
      break;
    }

  if (live && status == TW_EXIT_OK) {
    char title[300];
    if (R.src[0].conn->bound_port) /* tcp-listen://...:0: say the port it got */
      snprintf(title, sizeof title, "%s (port %d)", from[0], R.src[0].conn->bound_port);
    else
      snprintf(title, sizeof title, "%s", from[0]);
    struct live_ui_cfg lc = {.from = title, .sources = nfrom, .out = out};
    if (live_ui_open(&R.ui, &lc) < 0)
      status = TW_EXIT_ERROR;
    else
      R.live = live_ui_live(R.ui);
  }
  unsigned long long t0 = tw_sys_mono_ns(), last_status = t0, last_data = 0, seen = 0;
  size_t nlive = status == TW_EXIT_OK ? R.n : 0;
  int opened = status == TW_EXIT_OK; /* (else nothing was waited for) */
  int user_quit = 0;
  const char *why = "every source ended"; /* (for the live view) */
  while (nlive && !stop_requested && !R.write_failed) {
    unsigned long long now = tw_sys_mono_ns();
    if (duration >= 0 && now - t0 >= (unsigned long long)duration) {
      why = "duration reached";
      break;
    }
        struct counts cn;
    totals(&R, &cn);
    if (cn.bytes != seen) {
      seen = cn.bytes;
      last_data = now;
    }
    if (idle >= 0 && last_data && now - last_data >= (unsigned long long)idle) {
      why = "idle: nothing arrived";
      break;
    }
    for (size_t k = 0; k < R.n; k++) {
      struct rsrc *s = &R.src[k];
      if (s->ended)
        continue;
      /* the first target, or one that came back (a listening transport
       * accepts it in the read, so this runs after the pump that did) */
      if (s->restart && !stop_requested)
        restart_target(s, have_mask, mask);
      int n = pump(s, R.n == 1 ? 200 : 20);
      if (n == TW_EOF || (n < 0 && n != TW_EAGAIN)) {
        if (n != TW_EOF && n != TW_ECONNRESET) {
          cli_err("record: %s", tw_conn_error(s->conn));
          status = TW_EXIT_ERROR;
        }
        s->ended = 1;
        nlive--;
      }
    }
    if (R.ui) {
      struct live_link lk;
      link_counts(&R, &lk);
      if (live_ui_tick(R.ui, now, &lk)) {
        user_quit = 1;
        stop_requested = 1; /* q: as Ctrl-C, the recording stops cleanly */
      }
    }
    if (R.tty && now - last_status > 500000000u) {
      show_counts(&R, (double)(now - t0) / 1e9, 0);
      last_status = now;
    }
  }
  for (size_t k = 0; k < R.n; k++)
    if (R.src[k].commands && R.src[k].answered && !R.src[k].ended && !R.write_failed &&
        !R.src[k].target_stopped && tw_conn_connected(R.src[k].conn))
      stop_target(&R.src[k]);
  if (R.tty)
    fputs("\r\033[K", stderr);
  if (R.n)
    show_counts(&R, (double)(tw_sys_mono_ns() - t0) / 1e9, 1);
  for (size_t k = 0; k < R.n; k++)
    rtt_cost(&R.src[k], tw_sys_mono_ns() - t0);
  for (size_t k = 0; opened && k < R.n; k++)
    if (R.src[k].waited && !R.src[k].conn->connects) {
      cli_err("record: %s: the target never appeared; nothing was recorded from it",
              R.src[k].conn->name);
      status = TW_EXIT_ERROR;
    }
  if (R.ui) {
    struct live_link lk;
    link_counts(&R, &lk);
    if (user_quit)
      why = "stopped (q)";
    else if (stop_requested)
      why = "stopped (signal)";
    else if (R.write_failed)
      why = "the trace cannot take more";
    if (!R.write_failed) { /* the trace first: it is complete before the view lingers */
      if (tw_twt_close(R.w, 1) < 0) {
        cli_err("record: %s: the trace is incomplete", out);
        status = TW_EXIT_ERROR;
      }
      R.w = NULL;
    }
    live_ui_end(R.ui, &lk, why, user_quit || !linger, &stop_requested);
    live_ui_close(R.ui);
    R.ui = NULL;
    R.live = NULL;
  }
  if (!R.w && !R.write_failed) {
    /* closed above, for the live view */
  } else if (R.write_failed) {
    /* a full disk: stop, and say what the file holds (it stays readable) */
    tw_twt_close(R.w, 0);
    cli_err("record: recording stopped: %s cannot take more; it holds the first %llu bytes "
            "received and reads as a trace that was not stopped cleanly", out, R.data_ok);
    status = TW_EXIT_ERROR;
  } else if (tw_twt_close(R.w, 1) < 0) {
    cli_err("record: %s: the trace is incomplete", out);
    status = TW_EXIT_ERROR;
  }
  for (size_t k = 0; k < R.n; k++) {
    tw_decoder_close(R.src[k].d);
    tw_reader_close(R.src[k].r);
    tw_conn_close(R.src[k].conn);
  }
  for (size_t k = 0; k < nfrom; k++)
    tw_file_unguard(&ids[k]);
  return status;
}
