/*
 * TSDL metadata for the CTF writer, generated from the vocabulary
 * descriptors (every kind of events.def, also those the trace never
 * used) and the custom kinds the trace declared. Every name from the
 * target goes through text.h: event names as escaped string literals,
 * field names as identifiers with a leading underscore (which CTF readers
 * strip: it keeps names such as `event` or `type` from colliding with TSDL
 * keywords), unique within their kind, and comments that a `*\/` in a
 * name cannot end early.
 */
#include <stdlib.h>
#include <string.h>
#include "ctf_internal.h"
#include "text.h"

/* Signed and float fields are declared inline rather than as typealiases
 * in the header, so metadata of traces without them stays as it was. All
 * fields are byte-aligned: the writer packs them without padding
 * (docs/exporters.md, "CTF"). */
static const char *int_type(enum tw_field_type t)
{
  switch (t) {
  case TW_FT_U8: case TW_FT_ENUM8: return "uint8_t";
  case TW_FT_U16: return "uint16_t";
  case TW_FT_U32: return "uint32_t";
  case TW_FT_I8: return "integer { size = 8; align = 8; signed = true; }";
  case TW_FT_I16: return "integer { size = 16; align = 8; signed = true; }";
  case TW_FT_I32: return "integer { size = 32; align = 8; signed = true; }";
  case TW_FT_F32: return "floating_point { exp_dig = 8; mant_dig = 24; align = 8; }";
  case TW_FT_STRING: break;
  }
  return "string";
}

static void put_uuid(FILE *f, const uint8_t *u)
{
  for (int i = 0; i < 16; i++)
    fprintf(f, "%02x%s", u[i], i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
}

static void put_str(FILE *f, const char *s)
{
  tw__tsdl_str(f, s, strlen(s));
}

/* A field's TSDL identifier: `_` + the name rewritten (text.h), unique in
 * its kind. Names such as `_Bool` are TSDL keywords even with the
 * underscore, so they are taken as the first free suffix is. */
static const char *const tsdl_reserved[] = {"_Bool", "_Complex", "_Imaginary", NULL};

static int field_idents(const struct tw_event_desc *d, struct tw__names *set,
                        const char **out)
{
  struct tw__text t = {0};
  int rc = d->nfields > TW_EVENT_MAX_VALUES ? -1 : 0;
  for (size_t r = 0; tsdl_reserved[r]; r++)
    if (tw__names_reserve(set, tsdl_reserved[r]) < 0)
      rc = -1;
  for (unsigned i = 0; i < d->nfields && !rc; i++) {
    tw__text_reset(&t);
    tw__rw_tsdl_ident(&t, d->fields[i].name);
    if (t.oom || !(out[i] = tw__names_take(set, t.p)))
      rc = -1;
  }
  tw__text_free(&t);
  return rc;
}

static void put_field(FILE *f, const struct tw_event_desc *d, unsigned i, const char *ident)
{
  const struct tw_field_desc *fd = &d->fields[i];
  fputs("\t\t", f);
  if ((int)i == d->marker_field && d->nenums && fd->type != TW_FT_STRING) {
    fprintf(f, "enum : %s {", int_type(fd->type));
    for (unsigned k = 0; k < d->nenums; k++) {
      fputs(k ? ", " : " ", f);
      put_str(f, d->enums[k].name);
      fprintf(f, " = %u", d->enums[k].value);
    }
    fputs(" } ", f);
  } else if (fd->obj == TW_OBJ_OBJKIND) { /* NAME.kind: the object kinds by name */
    fprintf(f, "enum : %s {", int_type(fd->type));
    for (unsigned k = 0; k < TW_OBJ_COUNT; k++) {
      fputs(k ? ", " : " ", f);
      put_str(f, tw_obj_kind_name((enum tw_obj_kind)k));
      fprintf(f, " = %u", k);
    }
    fputs(" } ", f);
  } else {
    fprintf(f, "%s ", int_type(fd->type));
  }
  fputs(ident, f);
  fputs(";", f);
  if (fd->doc) {
    fputs(" /* ", f);
    tw__tsdl_comment(f, fd->doc, strlen(fd->doc));
    fputs(" */", f);
  }
  fputc('\n', f);
}

/* -1 when out of memory. */
static int put_event(FILE *f, const struct tw_event_desc *d, unsigned id, int inferred)
{
  struct tw__names set = {0};
  const char *ident[TW_EVENT_MAX_VALUES];
  int rc = field_idents(d, &set, ident);
  fputs("event {\n\tname = ", f);
  put_str(f, d->seed_name ? d->seed_name : d->name);
  fprintf(f, ";\n\tid = %u;\n\tstream_id = 0;\n", inferred ? id | CTF_INFERRED_CLASS : id);
  if (d->doc) {
    fputs("\t/* ", f);
    tw__tsdl_comment(f, d->name, strlen(d->name));
    fputs(": ", f);
    tw__tsdl_comment(f, d->doc, strlen(d->doc));
    fputs(" */\n", f);
  }
  if (inferred)
    fputs("\t/* the record had no timestamp: the time is the stream's previous timed\n"
          "\t * record's (tracewire docs/wire-format.md) */\n"
          "\tcontext := struct {\n\t\tuint8_t _time_inferred;\n\t};\n", f);
  fputs("\tfields := struct {\n", f);
  for (unsigned i = 0; i < d->nfields && !rc; i++)
    put_field(f, d, i, ident[i]);
  fputs("\t};\n};\n\n", f);
  tw__names_free(&set);
  return rc;
}

char *tw__ctf_event_tsdl(const struct tw_event_desc *d, unsigned id, int inferred)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return NULL;
  int rc = put_event(f, d, id, inferred);
  /* closed whatever put_event said: the stream owns buf until then */
  if (fclose(f) != 0 || rc < 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

static void put_header(FILE *f, const struct tw_export *x, const struct ctf *c)
{
  uint16_t one = 1;
  int64_t off = x->cfg.clock_offset_ns;
  int64_t off_s = off >= 0 ? off / 1000000000 : -((-off + 999999999) / 1000000000);
  uint64_t off_ns = (uint64_t)(off - off_s * 1000000000);
  fputs("/* CTF 1.8 */\n\n"
        "/* Written by tracewire from a decoded UIA trace: one stream per\n"
        " * (endpoint, core). See docs/exporters.md. */\n\n"
        "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
        "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
        "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
        "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n\n"
        "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"", f);
  put_uuid(f, c->uuid);
  fprintf(f, "\";\n\tbyte_order = %s;\n", *(const uint8_t *)&one ? "le" : "be");
  fputs("\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
        "\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n", f);
  fprintf(f, "env {\n\tdomain = \"tracewire\";\n\ttracer_name = \"tracewire\";\n"
             "\ttracer_major = 0;\n\ttracer_minor = 1;\n\tstreams = %zu;\n"
             "\tclamped_timestamps = %llu;\n};\n\n", c->nstreams, c->clamped);
  fputs("clock {\n\tname = tw_target;\n\tuuid = \"", f);
  put_uuid(f, c->uuid);
  fprintf(f, "\";\n\tdescription = \"target timestamp counter\";\n\tfreq = %u;\n"
             "\tprecision = 1;\n\toffset_s = %lld;\n\toffset = %llu;\n\tabsolute = false;\n};\n\n",
          c->clock_freq, (long long)off_s,
          (unsigned long long)(off_ns * c->clock_freq / 1000000000u));
  fputs("typealias integer { size = 64; align = 8; signed = false; "
        "map = clock.tw_target.value; } := tw_clock_t;\n\n"
        "stream {\n\tid = 0;\n\tpacket.context := struct {\n"
        "\t\ttw_clock_t timestamp_begin;\n\t\ttw_clock_t timestamp_end;\n"
        "\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n"
        "\t\tuint64_t packet_seq_num;\n\t\tuint64_t events_discarded;\n"
        "\t\tuint16_t endpoint;\n\t\tuint16_t core;\n\t};\n"
        "\tevent.header := struct {\n\t\tuint16_t id;\n\t\ttw_clock_t timestamp;\n\t};\n};\n\n",
        f);
}

int tw__ctf_write_metadata(struct tw_export *x, struct ctf *c)
{
  struct tw__wfile w = {0};
  char path[600];
  snprintf(path, sizeof path, "%s/metadata", x->out);
  if (tw__wfile_open(x, &w, path) < 0)
    return x->err;
  put_header(w.f, x, c);
  for (size_t i = 0; i < tw_event_ndescs; i++)
    if (put_event(w.f, &tw_event_descs[i], tw_event_descs[i].id, 0) < 0)
      tw__export_fail(x, TW_ENOMEM, "%s: out of memory", path);
  for (size_t i = 0; i < c->ncustom; i++)
    fputs(c->custom_tsdl[i], w.f);
  for (size_t i = 0; i < tw_event_ndescs; i++) {
    unsigned id = tw_event_descs[i].id;
    if ((c->inferred_used[id / 8] >> (id % 8) & 1) &&
        put_event(w.f, &tw_event_descs[i], id, 1) < 0)
      tw__export_fail(x, TW_ENOMEM, "%s: out of memory", path);
  }
  for (size_t i = 0; i < c->ncustom; i++)
    if (c->custom_tsdl_inferred[i])
      fputs(c->custom_tsdl_inferred[i], w.f);
  return tw__wfile_close(x, &w);
}
