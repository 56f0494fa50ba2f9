/*
 * libFuzzer target for the host pipeline: any byte stream through the
 * framing reader (small reads, so packets straddle read boundaries) and the
 * decoder (names, custom declarations, snapshots, loss accounting), every
 * event formatted as `print` would. Properties: ASan/UBSan clean, the
 * reader's skip reports ordered and inside the input. Checked-in corpus:
 * fuzz/corpus/host_decode. Run: tests/sh/fuzz_host.sh (bounded), or by hand:
 *   TW_FUZZ_SECONDS=600 bash tests/sh/fuzz_host.sh build .
 */
#include <stdlib.h>
#include <string.h>
#include "tracewire/io/conn.h"
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/format.h"
#include "tracewire/wire/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct tw_decoder *dec;
static unsigned long long end_of_last_skip, input_size;

static int on_event(void *ctx, const struct tw_event *ev)
{
  (void)ctx;
  char line[512];
  tw_event_format(line, sizeof line, ev, dec, 0, -1);
  return 0;
}

static void on_skip(void *ctx, const struct tw_skip *s)
{
  tw_decoder_skip(ctx, s);
  if (s->offset < end_of_last_skip || s->offset + s->count > input_size)
    abort();
  end_of_last_skip = s->offset + s->count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct tw_conn *c;
  struct tw_reader *r;
  struct tw_decoder *d;
  struct tw_reader_cfg rcfg = { .max_pkt_bytes = 2048, .read_bytes = 1 + size % 97 };
  struct tw_decoder_cfg dcfg = { .max_streams = 4, .max_names = 64, .max_custom = 4, .max_snapshot = 256 };
  if (tw_conn_mem_open(data, size, &c) || tw_reader_open(&r, c, &rcfg) || tw_decoder_open(&d, &dcfg))
    abort();
  dec = d;
  end_of_last_skip = 0;
  input_size = size;
  tw_decoder_on_event(d, on_event, NULL);
  tw_reader_on_skip(r, on_skip, d);
  struct tw_pkt p;
  while (tw_reader_next(r, &p, -1) == 1)
    tw_decoder_packet(d, &p, tw_reader_pkt_offset(r), tw_reader_pkt_number(r));
  tw_decoder_close(d);
  tw_reader_close(r);
  tw_conn_close(c);
  return 0;
}
