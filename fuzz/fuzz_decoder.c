/*
 * libFuzzer target: the record decoder (src/wire/decoder.c) behind the
 * reader: event records, snapshot reassembly, NAME strings, CUSTOM_DECL
 * declarations, DROPS, SYNC, several streams and endpoints.
 *
 * The configured bounds are small (4 streams, 16 names, 4 custom kinds,
 * 256 snapshot bytes) so the "bound reached" paths run as often as the
 * ordinary ones. Every event is formatted the way `tracewire print` does
 * (names and enum constants looked up), every diagnostic's text is read,
 * and the tables are walked at the end, so a dangling name or desc pointer
 * is touched while ASan watches.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracewire/error.h"
#include "tracewire/io/conn.h"
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/format.h"
#include "tracewire/wire/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct ctx {
  struct tw_decoder *d;
  uint64_t prev_ns;
  size_t sum;
};

static int on_event(void *vc, const struct tw_event *ev)
{
  struct ctx *c = vc;
  char line[256];
  c->sum += tw_event_format(line, sizeof line, ev, c->d, c->prev_ns, -1);
  c->prev_ns = ev->time_ns;
  for (size_t i = 0; ev->str && i < ev->str_len; i++)
    c->sum += (uint8_t)ev->str[i];
  return 0;
}

static void on_diag(void *vc, const struct tw_diag *dg)
{
  struct ctx *c = vc;
  c->sum += strlen(dg->msg);
}

static void on_msg(void *vc, const struct tw_pkt *p)
{
  struct ctx *c = vc;
  for (size_t i = 0; i < p->payload_len; i++)
    c->sum += p->payload[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct tw_decoder_cfg cfg = {.max_streams = 4, .max_names = 16, .max_custom = 4,
                               .max_snapshot = 256};
  struct ctx c = {0};
  struct tw_conn *src;
  struct tw_reader *r;
  if (tw_conn_mem_open(data, size, &src) < 0)
    return 0;
  if (tw_reader_open(&r, src, &(struct tw_reader_cfg){.max_pkt_bytes = 4096}) < 0 ||
      tw_decoder_open(&c.d, &cfg) < 0)
    abort();
  tw_decoder_on_event(c.d, on_event, &c);
  tw_decoder_on_diag(c.d, on_diag, &c);
  tw_decoder_on_msg(c.d, on_msg, &c);
  if (tw_decoder_run(c.d, r) != 0)
    abort(); /* a memory source has no errors, and on_event never stops it */
  uint16_t ep, mod, id;
  uint32_t num;
  enum tw_obj_kind kind;
  const char *name;
  unsigned long long count;
  for (size_t i = 0; tw_decoder_name_at(c.d, i, &ep, &kind, &num, &name); i++)
    c.sum += strlen(name);
  for (size_t i = 0; tw_decoder_unknown_at(c.d, i, &ep, &mod, &id, &count); i++)
    c.sum += count;
  const struct tw_event_desc *desc;
  for (size_t i = 0; (desc = tw_decoder_custom_at(c.d, i, &ep)); i++)
    c.sum += strlen(desc->name) + desc->nfields;
  for (size_t i = 0; i < tw_decoder_nstreams(c.d); i++)
    c.sum += tw_decoder_stream(c.d, i)->events;
  tw_decoder_close(c.d);
  tw_reader_close(r);
  tw_conn_close(src);
  return c.sum == 0xDEAD ? 1 : 0; /* keep the work observable */
}
