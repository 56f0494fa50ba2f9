/*
 * tw-demo-dump: decode a recorded byte stream (a raw file, a .twt trace
 * of tracewire record, or anything tw_conn_open() takes) with the host
 * decoder and print one line per
 * kernel/RTOS event, "<ticks> <id> <v0> <v1> ...", the same format as
 * tw-demo-target --model-log, so the model's own account of what it did
 * and what came out of the wire can be compared with diff. Control
 * records (start, stop, names, sync, drops) are summarised on stderr:
 *   # packets P events E ring_drops D pkts_lost L unexplained U names N
 *     starts S stops T diags G stop_reason R (0 command, 1 application)
 * Exit status: 0, 1 on a source error, 2 on usage.
 */
#include <stdio.h>
#include <string.h>

#include "tracewire/wire/decoder.h"
#include "tracewire/wire/reader.h"
#include "tracewire/io/conn.h"
#include "tracewire/twt/conn_twt.h"

struct ctx {
  FILE *out;
  unsigned long long events, stops, starts;
  int bad;
  long stop_reason;              /* of the last TRACE_STOP, -1 if none */
};

static int on_event(void *p, const struct tw_event *ev)
{
  struct ctx *c = p;
  if (ev->module == TW_MOD_CONTROL) {
    c->starts += ev->id == 0x100;
    if (ev->id == 0x101) {
      c->stops++;
      c->stop_reason = (long)ev->values[0];
    }
    return 0;
  }
  c->events++;
  fprintf(c->out, "%llu %u", (unsigned long long)ev->ticks, ev->id);
  for (unsigned i = 0; i < ev->nvalues; i++)
    fprintf(c->out, " %u", ev->values[i]);
  fputc('\n', c->out);
  return 0;
}

static void on_diag(void *p, const struct tw_diag *d)
{
  struct ctx *c = p;
  if (d->kind != TW_DIAG_RING_DROPS) {
    fprintf(stderr, "tw-demo-dump: %s\n", d->msg);
    c->bad++;
  }
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: tw-demo-dump FILE|URI\n");
    return 2;
  }
  char err[256];
  struct tw_conn *src;
  const char *uri = argv[1];
  size_t ul = strlen(uri);
  int r = strstr(uri, "://")                          ? tw_conn_open(uri, &src, err, sizeof err)
          : ul > 4 && !strcmp(uri + ul - 4, ".twt") ? tw_conn_twt_open(uri, -1, &src, err, sizeof err)
                                                    : tw_conn_file_open(uri, &src, err, sizeof err);
  if (r < 0) {
    fprintf(stderr, "tw-demo-dump: %s\n", err);
    return 1;
  }
  struct tw_reader *rd;
  struct tw_decoder *dec;
  if (tw_reader_open(&rd, src, NULL) < 0 || tw_decoder_open(&dec, NULL) < 0) {
    fprintf(stderr, "tw-demo-dump: out of memory\n");
    return 1;
  }
  struct ctx c = { stdout, 0, 0, 0, 0, -1 };
  tw_decoder_on_event(dec, on_event, &c);
  tw_decoder_on_diag(dec, on_diag, &c);
  r = tw_decoder_run(dec, rd);
  if (r < 0)
    fprintf(stderr, "tw-demo-dump: %s: %s\n", uri, tw_strerror(r));
  unsigned long long drops = 0, lost = 0, unexplained = 0, packets = 0;
  for (size_t i = 0; i < tw_decoder_nstreams(dec); i++) {
    const struct tw_stream_stats *st = tw_decoder_stream(dec, i);
    drops += st->ring_drops;
    lost += st->pkts_lost;
    unexplained += st->unexplained;
    packets += st->packets;
  }
  size_t names = 0;
  uint16_t ep;
  enum tw_obj_kind kind;
  uint32_t num;
  const char *name;
  while (tw_decoder_name_at(dec, names, &ep, &kind, &num, &name))
    names++;
  fprintf(stderr,
          "# packets %llu events %llu ring_drops %llu pkts_lost %llu unexplained %llu "
          "names %zu starts %llu stops %llu diags %d stop_reason %ld\n",
          packets, c.events, drops, lost, unexplained, names, c.starts, c.stops, c.bad,
          c.stop_reason);
  tw_decoder_close(dec);
  tw_reader_close(rd);
  tw_conn_close(src);
  return r < 0 && r != TW_EOF ? 1 : 0;
}
