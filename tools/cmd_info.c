/* `tracewire info`: what a trace says about its target. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

void tw_cli_info_help(FILE *f)
{
  fputs("usage: tracewire info TRACE\n"
        "The recording's source, the target's info reply (protocol, version, clock,\n"
        "ring size, endpoint, mask), how its packets are framed (footers, or none as\n"
        "TI's senders write them), the streams and their clocks, the object name\n"
        "tables (and how many names a full target table could not hold) and the\n"
        "custom event declarations found in the stream.\n", f);
}

static const char *info_names[TW_INFO_WORDS] = {
  "protocol", "version", "endian", "clock_hz", "timestamp_bits", "ring_words", "max_packet",
  "endpoint", "logger", "vocabulary", "state", "mask",
};

/* The declaration's type letter: U8 U16 U32 I8 I16 I32 F32. */
static char decl_letter(enum tw_field_type t)
{
  switch (t) {
  case TW_FT_I8: case TW_FT_I16: case TW_FT_I32: return 'I';
  case TW_FT_F32: return 'F';
  case TW_FT_U8: case TW_FT_U16: case TW_FT_U32: case TW_FT_ENUM8: case TW_FT_STRING: break;
  }
  return 'U';
}

/* Whether print --filter time= can seek (docs/trace-file.md, "Time index"). */
static void print_index(const struct tw_input *t)
{
  char why[512] = "";
  long n = tw_input_index_points(t, why, sizeof why);
  if (n > 0)
    printf("time index: %ld points\n", n);
  else
    printf("time index: %s\n", n == 0 ? "none (tracewire index adds one)" : why);
}

/* Footers or not (docs/wire-format.md, "Footer-less packets"). */
static void print_framing(const struct tw_reader_stats *st)
{
  if (!st->footerless_stream && !st->footerless) {
    printf("framing: packets with footers (%llu packets)\n", st->packets);
    return;
  }
  printf("framing: footer-less, as TI's senders write packets: %llu of %llu packets without "
         "a footer", st->footerless, st->packets);
  if (st->footerless_stream == 2)
    printf(" (recorded with --no-footer)");
  else if (st->footerless_stream)
    printf(" (found at stream offset %llu)", st->footerless_at);
  printf("\n");
}

int tw_cli_info(int argc, char **argv)
{
  if (argc != 2) {
    tw_cli_info_help(stderr);
    return TW_EXIT_USAGE;
  }
  struct tw_input t;
  struct cli_progress prog;
  if (cli_stdout_not_input("info", argv[1]) < 0)
    return TW_EXIT_ERROR;
  int rc = tw_input_open(&t, argv[1]);
  if (rc)
    return rc;
  t.quiet = 1;
  cli_progress_input(&prog, &t, "info", 0); /* a big raw capture takes a while */
  rc = tw_input_run(&t);
  cli_progress_end(&prog);
  if (rc) {
    tw_input_close(&t);
    return TW_EXIT_ERROR;
  }
  printf("trace: %s (%s)\n", t.path, t.is_twt ? ".twt" : "raw packets");
  if (t.is_twt) {
    printf("%s\n", t.have_end ? "stopped cleanly" : t.truncated ? "truncated (recording did not finish)"
                                                                 : "no end marker");
    print_index(&t);
  }
  for (size_t k = 0; k < t.nsrc; k++) {
    const struct tw_input_src *src = &t.src[k];
    struct tw_decoder *dec = src->d;
    if (t.is_twt)
      printf("source %d: %s\n", src->id < 0 ? 0 : src->id, src->uri[0] ? src->uri : "?");
    if (src->have_info) {
      printf("target info:\n");
      for (unsigned i = 0; i < TW_INFO_WORDS; i++) {
        uint32_t v = src->info[i];
        if (i == TW_INFO_VERSION)
          printf("  %-15s %u.%u.%u\n", info_names[i], v >> 16, v >> 8 & 0xFF, v & 0xFF);
        else if (i == TW_INFO_ENDIAN)
          printf("  %-15s %s\n", info_names[i], v ? "big" : "little");
        else if (i == TW_INFO_ENDPOINT || i == TW_INFO_MASK || i == TW_INFO_LOGGER)
          printf("  %-15s 0x%08x\n", info_names[i], v);
        else
          printf("  %-15s %u\n", info_names[i], v);
      }
    } else {
      printf("target info: none recorded\n");
    }
    print_framing(tw_reader_stats(src->r));
    unsigned long long lost = 0;
    for (size_t i = 0; i < tw_decoder_nstreams(dec); i++) {
      const struct tw_stream_stats *st = tw_decoder_stream(dec, i);
      printf("stream %04x/%u: logger module %u, clock %u Hz, %llu events\n", st->endpoint,
             st->instance, st->module, st->freq_hz, st->events);
      if (st->names_lost > lost)
        lost = st->names_lost;
    }
    if (lost)
      printf("names lost: %llu: the target's name table was full; those objects have no name "
             "(raise TW_CFG_NAMES)\n", lost);
    uint16_t ep;
    enum tw_obj_kind kind;
    uint32_t number;
    const char *name;
    for (size_t i = 0; tw_decoder_name_at(dec, i, &ep, &kind, &number, &name); i++) {
      printf("name %04x %s %u \"", ep, tw_obj_kind_name(kind), number);
      cli_put_name(stdout, name);
      printf("\"\n");
    }
    const struct tw_event_desc *d;
    for (size_t i = 0; (d = tw_decoder_custom_at(dec, i, &ep)); i++) {
      printf("custom %04x id %u ", ep, d->id);
      cli_put_name(stdout, d->name);
      printf("%s:", d->flags & TW_EVF_TIMED ? " (timed)" : "");
      for (unsigned f = 0; f < d->nfields; f++) {
        fputc(' ', stdout);
        cli_put_name(stdout, d->fields[f].name);
        if (d->fields[f].type == TW_FT_STRING)
          printf(":bytes");
        else
          printf(":%c%u", decl_letter(d->fields[f].type), d->fields[f].bits);
      }
      printf("\n");
    }
  }
  rc = cli_stdout_status("info", cli_trace_status(&t));
  tw_input_close(&t);
  return rc;
}
