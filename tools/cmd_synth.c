/* `tracewire synth`: a synthetic target, to a file or over a transport. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "tracewire/wire/synth.h"
#include "tracewire/error.h"
#include "tracewire/io/file.h"

void tw_cli_synth_help(FILE *f)
{
  fputs("usage: tracewire synth [options] (-o FILE | --to URI)\n"
        "Generate a deterministic stream of UIA event packets: every vocabulary event,\n"
        "object names, a custom event, optional ring-overflow DROPS records.\n\n"
        "options:\n"
        "  -o FILE               write raw packets to FILE (- for stdout)\n"
        "  --to URI              send them: tcp://H:P, udp://H:P (one packet per datagram), serial://DEV\n"
        "  --packets N           how many packets, 1..2^40 (default 100)\n"
        "  --bytes N[K|M|G]      instead: at least this many bytes\n"
        "  --pkt-bytes N         packet size bound, 72..65535 (default 1024)\n"
        "  --instances N         logger instances, round robin (default 1)\n"
        "  --drop-every N        a DROPS record every N events (default never)\n"
        "  --endpoints N         targets (endpoint addresses 1..N; default 1);\n"
        "                        instances x endpoints at most 8 streams\n"
        "  --start-ticks N       first timestamp (default 1000; 0xFFFFF000 to wrap 32 bits)\n"
        "  --ts32                timed events carry only a 32-bit timestamp word\n"
        "  --control             TRACE_START, and TRACE_STOP/TRACE_START every 400 events\n"
        "  --switches            TASK_SWITCH to tasks, interrupts entered and left in pairs\n"
        "  --no-names            no NAME / CUSTOM_DECL records\n"
        "  --seed N              script seed\n"
        "  --gap-us N            pause between packets (microseconds, up to 60 s)\n"
        "Numbers are decimal or 0x hex; a value out of range is a usage error.\n", f);
}

/* UDP sends datagrams (one packet each) from a free local port to the
 * target, through the URI parser's checks (the port is a number 1..65535). */
static int send_udp(const char *uri, struct tw_conn **out, char *err, size_t errcap)
{
  char u[600];
  if (snprintf(u, sizeof u, "udp://127.0.0.1:0?target=%s", uri + 6) >= (int)sizeof u) {
    snprintf(err, errcap, "%s: too long", uri);
    return TW_EINVAL;
  }
  return tw_conn_open(u, out, err, errcap);
}

/* One number option of synth, range-checked into *out. */
static int num(const char *opt, const char *arg, unsigned long long min, unsigned long long max,
               unsigned long long *out)
{
  return cli_opt_num("synth", opt, arg, min, max, out);
}

int tw_cli_synth(int argc, char **argv)
{
  static const struct option opts[] = {
    {"to", required_argument, 0, 't'}, {"packets", required_argument, 0, 'n'},
    {"bytes", required_argument, 0, 'b'}, {"pkt-bytes", required_argument, 0, 'p'},
    {"instances", required_argument, 0, 'i'}, {"drop-every", required_argument, 0, 'd'},
    {"no-names", no_argument, 0, 'N'}, {"seed", required_argument, 0, 's'},
    {"gap-us", required_argument, 0, 'g'}, {"endpoints", required_argument, 0, 'E'},
    {"start-ticks", required_argument, 0, 'T'}, {"ts32", no_argument, 0, '3'},
    {"control", no_argument, 0, 'C'}, {"switches", no_argument, 0, 'S'}, {0, 0, 0, 0},
  };
  struct tw_synth_cfg cfg = { .names = 1 };
  const char *out = NULL, *to = NULL;
  unsigned long long packets = 100, bytes = 0, gap_us = 0, v;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 't': to = optarg; break;
    case 'n':
      if (num("--packets", optarg, 1, 1ull << 40, &packets) < 0)
        return TW_EXIT_USAGE;
      break;
    case 'b':
      if (!(bytes = cli_parse_size(optarg))) {
        cli_err("synth: --bytes '%s': want a number of bytes from 1, with K, M or G", optarg);
        return TW_EXIT_USAGE;
      }
      break;
    case 'p': {
      if (cli_parse_uint(optarg, TW_SYNTH_MIN_PKT_BYTES, TW_EVPKT_MAX_BYTES, &v) < 0) {
        cli_err("synth: --pkt-bytes '%s': want %u to %u bytes (%u: the packet header, the "
                "largest record and the footer)", optarg, TW_SYNTH_MIN_PKT_BYTES,
                TW_EVPKT_MAX_BYTES, TW_SYNTH_MIN_PKT_BYTES);
        return TW_EXIT_USAGE;
      }
      cfg.pkt_bytes = (size_t)v;
      break;
    }
    case 'i':
      if (num("--instances", optarg, 1, TW_SYNTH_MAX_STREAMS, &v) < 0)
        return TW_EXIT_USAGE;
      cfg.instances = (uint16_t)v;
      break;
    case 'd':
      if (num("--drop-every", optarg, 1, 0xFFFFFFFFu, &v) < 0)
        return TW_EXIT_USAGE;
      cfg.drop_every = (uint32_t)v;
      break;
    case 'N': cfg.names = 0; break;
    case 's':
      if (num("--seed", optarg, 0, 0xFFFFFFFFu, &v) < 0)
        return TW_EXIT_USAGE;
      cfg.seed = (uint32_t)v;
      break;
    case 'g':
      if (num("--gap-us", optarg, 0, 60000000u, &gap_us) < 0)
        return TW_EXIT_USAGE;
      break;
    case 'E':
      if (num("--endpoints", optarg, 1, TW_SYNTH_MAX_STREAMS, &v) < 0)
        return TW_EXIT_USAGE;
      cfg.endpoints = (uint16_t)v;
      break;
    case 'T':
      if (num("--start-ticks", optarg, 0, ~0ull, &v) < 0)
        return TW_EXIT_USAGE;
      cfg.start_ticks = v;
      break;
    case '3': cfg.ts32 = 1; break;
    case 'C': cfg.control = 1; break;
    case 'S': cfg.switches = 1; break;
    default: tw_cli_synth_help(stderr); return TW_EXIT_USAGE;
    }
  }
  if ((!out) == (!to) || optind != argc) {
    tw_cli_synth_help(stderr);
    return TW_EXIT_USAGE;
  }
  unsigned streams = (cfg.instances ? cfg.instances : 1u) * (cfg.endpoints ? cfg.endpoints : 1u);
  if (streams > TW_SYNTH_MAX_STREAMS) {
    cli_err("synth: --instances x --endpoints = %u streams; at most %d", streams,
            TW_SYNTH_MAX_STREAMS);
    return TW_EXIT_USAGE;
  }
  struct tw_synth g;
  if (tw_synth_init(&g, &cfg) < 0) { /* the options are checked above: a bug if so */
    cli_err("synth: packet size %zu out of range", cfg.pkt_bytes);
    return TW_EXIT_USAGE;
  }
  struct tw_conn *dst = NULL;
  FILE *f = NULL;
  char err[512];
  if (to) {
    int rc = !strncmp(to, "udp://", 6) ? send_udp(to, &dst, err, sizeof err)
                                       : tw_conn_open(to, &dst, err, sizeof err);
    if (rc < 0) {
      cli_err("synth: %s", err);
      return TW_EXIT_ERROR;
    }
  } else if (!(f = tw_file_fopen_w(out, err, sizeof err))) {
    cli_err("synth: %s", err);
    return TW_EXIT_ERROR;
  }
  static uint8_t buf[1 << 16];
  unsigned long long total = 0;
  int status = TW_EXIT_OK;
  while (bytes ? total < bytes : g.packets < packets) {
    size_t n = tw_synth_packet(&g, buf, sizeof buf);
    total += n;
    if (f ? fwrite(buf, 1, n, f) != n : tw_conn_write(dst, buf, n) < 0) {
      cli_err("synth: write failed: %s", f ? out : tw_conn_error(dst));
      status = TW_EXIT_ERROR;
      break;
    }
    if (gap_us) {
      struct timespec ts = { (time_t)(gap_us / 1000000u), (long)(gap_us % 1000000u) * 1000 };
      nanosleep(&ts, NULL);
    }
  }
  int closed_bad = f && (f == stdout ? fflush(f) : fclose(f)) != 0;
  if (closed_bad && status == TW_EXIT_OK) {
    cli_err("synth: %s: write failed", out);
    status = TW_EXIT_ERROR;
  }
  tw_conn_close(dst);
  fprintf(stderr, "tracewire synth: %llu packets, %llu bytes, %llu events, %llu dropped (DROPS)\n",
          g.packets, total, g.events, g.drops);
  return status;
}
