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
        "  --packets N           how many packets (default 100)\n"
        "  --bytes N[K|M|G]      instead: at least this many bytes\n"
        "  --pkt-bytes N         packet size bound, 72..65535 (default 1024)\n"
        "  --instances N         logger instances, round robin (default 1)\n"
        "  --drop-every N        a DROPS record every N events (default never)\n"
        "  --endpoints N         targets (endpoint addresses 1..N; default 1)\n"
        "  --start-ticks N       first timestamp (default 1000; 0xFFFFF000 to wrap 32 bits)\n"
        "  --ts32                timed events carry only a 32-bit timestamp word\n"
        "  --control             TRACE_START, and TRACE_STOP/TRACE_START every 400 events\n"
        "  --switches            TASK_SWITCH to tasks, interrupts entered and left in pairs\n"
        "  --no-names            no NAME / CUSTOM_DECL records\n"
        "  --seed N              script seed\n"
        "  --gap-us N            pause between packets (microseconds)\n", f);
}

/* UDP sends datagrams: one packet each. */
static int send_udp(const char *uri, struct tw_conn **out, char *err, size_t errcap)
{
  char host[256], port[32];
  const char *hp = uri + 6, *colon = strrchr(hp, ':');
  if (!colon)
    return TW_EINVAL;
  snprintf(host, sizeof host, "%.*s", (int)(colon - hp), hp);
  snprintf(port, sizeof port, "%s", colon + 1);
  int rc = tw_conn_udp_open("127.0.0.1", "0", NULL, out, err, errcap);
  if (rc == 0)
    rc = tw_conn_udp_set_peer(*out, host, port, err, errcap);
  return rc;
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
  unsigned long long packets = 100, bytes = 0, gap_us = 0;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 't': to = optarg; break;
    case 'n': packets = strtoull(optarg, NULL, 0); break;
    case 'b':
      if (!(bytes = cli_parse_size(optarg))) {
        cli_err("synth: bad size '%s' (N, NK, NM or NG bytes)", optarg);
        return TW_EXIT_USAGE;
      }
      break;
    case 'p': {
      unsigned long long v;
      if (cli_parse_uint(optarg, TW_SYNTH_MIN_PKT_BYTES, TW_EVPKT_MAX_BYTES, &v) < 0) {
        cli_err("synth: --pkt-bytes '%s': want %u to %u bytes (%u: the packet header, the "
                "largest record and the footer)", optarg, TW_SYNTH_MIN_PKT_BYTES,
                TW_EVPKT_MAX_BYTES, TW_SYNTH_MIN_PKT_BYTES);
        return TW_EXIT_USAGE;
      }
      cfg.pkt_bytes = (size_t)v;
      break;
    }
    case 'i': cfg.instances = (uint16_t)strtoul(optarg, NULL, 0); break;
    case 'd': cfg.drop_every = (uint32_t)strtoul(optarg, NULL, 0); break;
    case 'N': cfg.names = 0; break;
    case 's': cfg.seed = (uint32_t)strtoul(optarg, NULL, 0); break;
    case 'g': gap_us = strtoull(optarg, NULL, 0); break;
    case 'E': cfg.endpoints = (uint16_t)strtoul(optarg, NULL, 0); break;
    case 'T': cfg.start_ticks = strtoull(optarg, NULL, 0); break;
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
