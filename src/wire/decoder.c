/*
 * Decoder (contract and loss model: include/tracewire/wire/decoder.h).
 *
 * Hot path: plain and timestamped records are decoded inline here (one load
 * per word, a descriptor from a flat table by id, fields with
 * tw_field_get()); snapshot records, which are rare (names, declarations),
 * go through tw_record_parse() and tw_snap_reasm_feed() from uia.c. Words
 * are loaded in the packet's announced order whatever the host's.
 */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/wire/decoder.h"
#include "tracewire/events_gen.h"
#include "tracewire/error.h"

#define NAMES_MIN_CAP 64    /* name table slots at open (a power of two) */
#define DESC_CACHE 0x200
#define MAX_UNKNOWN 256

struct stream {
  struct tw_stream_stats st;
  uint32_t mult;             /* ns per tick when it is an integer, else 0 */
  int freq_known;
  int have_pkt_seq, have_seq, pkt_gap;
  int checked;               /* a verified PKT_CHECK came: every packet needs one */
  uint16_t next_pkt_seq, next_seq;
  /* the seq the in-order fast path accepts: next_seq, or 0x10000 (never a
   * seq) before the first record and while a packet gap or a DROPS record
   * waits to explain the next gap */
  uint32_t expect;
  uint32_t seq_ext;
  uint64_t pending_drops;
  uint64_t last_ticks;
  struct tw_snap_reasm snap;
  uint8_t *snap_buf;
};

struct name_slot {
  uint64_t key;              /* 1 << 63 | endpoint << 40 | kind << 32 | number */
  char *name;                /* whole (malloc'd): a snapshot bounds it, not the table */
};

/* How to unpack one event kind, precomputed from its descriptor so the hot
 * loop does one load, shift and mask per field and no type test. The
 * first PLAN_FIXED fields are unpacked without a loop: a missing field
 * reads the record's id word (offset -4, always inside the record) and
 * masks it to 0. Kinds with a STRING field or a field outside
 * payload_words have no plan (fast = 0) and take the general unpack(). */
#define PLAN_FIXED 4           /* as many FIELD()s in records_in() */
struct plan_field {
  int8_t off;                /* byte offset from the first payload word */
  uint8_t shift;
  uint32_t mask;
};

struct plan {
  const struct tw_event_desc *desc;
  uint16_t module;
  uint8_t fast, n, need, timed;
  uint8_t consumed;          /* PKT_CHECK: verified per packet, never delivered */
  struct plan_field f[TW_EVENT_MAX_VALUES];
};

struct custom {
  struct plan plan;
  uint16_t endpoint;
  struct tw_event_desc desc;
  struct tw_field_desc fields[TW_EVENT_MAX_VALUES];
  char name[48];
  char fnames[TW_EVENT_MAX_VALUES][24];
  /* declared again differently: its events now decode by a later slot's
   * descriptor; this one stays (consumers key on descriptors they saw) */
  uint8_t superseded;
};

struct unknown {
  uint16_t endpoint, module, id;
  unsigned long long count;
};

struct tw_decoder {
  struct tw_decoder_cfg cfg;
  tw_event_fn on_event;
  void *ev_ctx;
  tw_diag_fn on_diag;
  void *diag_ctx;
  tw_msg_fn on_msg;
  void *msg_ctx;
  struct stream *streams;
  size_t nstreams;
  int last_stream;
  struct name_slot *names;
  uint32_t *name_order;
  size_t names_cap, nnames;
  struct custom *customs;
  size_t ncustom;
  struct unknown unknown[MAX_UNKNOWN];
  size_t nunknown;
  unsigned long long unknown_overflow;
  const struct tw_event_desc *desc_cache[DESC_CACHE];
  const struct plan *plan_of[DESC_CACHE]; /* by id; NULL: none */
  struct plan *plans;
  struct plan tmp_plan;
  int no_freq_reported, limit_reported;
  /* where the current packet is, for diagnostics */
  unsigned long long pkt_off, pkt_num;
  struct tw_event ev;
};

/* ---- setup ---------------------------------------------------------------- */

static void names_clear(struct tw_decoder *d);

static void plan_init(struct plan *pl, const struct tw_event_desc *desc)
{
  memset(pl, 0, sizeof *pl);
  pl->desc = desc;
  pl->module = desc->module;
  pl->n = desc->nfields < TW_EVENT_MAX_VALUES ? desc->nfields : TW_EVENT_MAX_VALUES;
  pl->need = desc->payload_words;
  pl->timed = (desc->flags & TW_EVF_TIMED) != 0;
  pl->consumed = desc->module == TW_MOD_CONTROL && desc->id == TW_EV_PKT_CHECK;
  pl->fast = desc->payload_words <= TW_EVENT_MAX_VALUES;
  for (unsigned i = 0; i < TW_EVENT_MAX_VALUES; i++)
    pl->f[i].off = -4; /* absent: the id word, masked to 0 */
  for (unsigned i = 0; i < pl->n; i++) {
    const struct tw_field_desc *f = &desc->fields[i];
    if (f->type == TW_FT_STRING || f->word >= desc->payload_words || f->shift >= 32)
      pl->fast = 0;
    pl->f[i].off = (int8_t)(4 * (f->word & 31));
    pl->f[i].shift = f->shift & 31;
    pl->f[i].mask = f->type == TW_FT_STRING ? 0 : f->bits >= 32 ? 0xFFFFFFFFu : (1u << f->bits) - 1u;
  }
}

int tw_decoder_open(struct tw_decoder **out, const struct tw_decoder_cfg *cfg)
{
  struct tw_decoder *d = calloc(1, sizeof *d);
  if (!d)
    return TW_ENOMEM;
  if (cfg)
    d->cfg = *cfg;
  if (!d->cfg.max_streams)
    d->cfg.max_streams = 64;
  if (!d->cfg.max_names)
    d->cfg.max_names = 65536;
  if (!d->cfg.max_custom)
    d->cfg.max_custom = 256;
  if (!d->cfg.max_snapshot)
    d->cfg.max_snapshot = 65535;
  /* the name table starts small and doubles as names come (names_grow):
   * sized for max_names at once, every decoder cost 9 MB of zeroed memory
   * (a command opens several, a fuzz run dozens) */
  d->names_cap = NAMES_MIN_CAP;
  d->streams = calloc(d->cfg.max_streams, sizeof *d->streams);
  d->names = calloc(d->names_cap, sizeof *d->names);
  d->name_order = calloc(d->names_cap / 2, sizeof *d->name_order);
  d->customs = calloc(d->cfg.max_custom, sizeof *d->customs);
  d->plans = calloc(tw_event_ndescs, sizeof *d->plans);
  if (!d->streams || !d->names || !d->name_order || !d->customs || !d->plans) {
    tw_decoder_close(d);
    return TW_ENOMEM;
  }
  size_t np = 0;
  for (uint32_t id = 0; id < DESC_CACHE; id++) {
    const struct tw_event_desc *desc = tw_event_desc_by_id((uint16_t)id);
    d->desc_cache[id] = desc;
    if (desc && np < tw_event_ndescs) {
      plan_init(&d->plans[np], desc);
      d->plan_of[id] = &d->plans[np++];
    }
  }
  d->last_stream = -1;
  *out = d;
  return 0;
}

void tw_decoder_close(struct tw_decoder *d)
{
  if (!d)
    return;
  for (size_t i = 0; d->streams && i < d->nstreams; i++)
    free(d->streams[i].snap_buf);
  free(d->streams);
  if (d->names)
    names_clear(d);
  free(d->names);
  free(d->name_order);
  free(d->customs);
  free(d->plans);
  free(d);
}

void tw_decoder_on_event(struct tw_decoder *d, tw_event_fn fn, void *ctx) { d->on_event = fn; d->ev_ctx = ctx; }
void tw_decoder_on_diag(struct tw_decoder *d, tw_diag_fn fn, void *ctx) { d->on_diag = fn; d->diag_ctx = ctx; }
void tw_decoder_on_msg(struct tw_decoder *d, tw_msg_fn fn, void *ctx) { d->on_msg = fn; d->msg_ctx = ctx; }

/* ---- diagnostics ------------------------------------------------------------ */

__attribute__((format(printf, 7, 8)))
static void diag(struct tw_decoder *d, enum tw_diag_kind kind, int err, int si,
                 unsigned long long count, uint64_t a, const char *fmt, ...)
{
  if (!d->on_diag)
    return;
  struct tw_diag g = { .kind = kind, .err = err, .stream = si, .offset = d->pkt_off,
                       .packet = d->pkt_num, .count = count, .a = a };
  if (si >= 0) {
    g.endpoint = d->streams[si].st.endpoint;
    g.instance = d->streams[si].st.instance;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g.msg, sizeof g.msg, fmt, ap);
  va_end(ap);
  d->on_diag(d->diag_ctx, &g);
}

void tw_decoder_skip(struct tw_decoder *d, const struct tw_skip *s)
{
  if (!d->on_diag)
    return;
  struct tw_diag g = { .kind = TW_DIAG_SKIP, .err = s->reason, .stream = -1,
                       .offset = s->offset, .packet = d->pkt_num, .count = s->count,
                       .a = s->word };
  snprintf(g.msg, sizeof g.msg, "skipped %llu bytes at offset %llu: %s (first word 0x%08x)",
           s->count, s->offset, tw_skip_reason(s->reason), s->word);
  d->on_diag(d->diag_ctx, &g);
}

/* ---- time -------------------------------------------------------------------- */

static void stream_set_freq(struct stream *s, uint32_t hz)
{
  if (!hz)
    return;
  s->st.freq_hz = hz;
  s->freq_known = 1;
  s->mult = 1000000000u % hz == 0 ? 1000000000u / hz : 0;
}

static uint64_t to_ns(const struct stream *s, uint64_t ticks)
{
  if (s->mult)
    return ticks * s->mult;
  uint64_t f = s->st.freq_hz;
  /* exact: q whole seconds plus the remainder's share */
  return ticks / f * 1000000000u + ticks % f * 1000000000u / f;
}

uint64_t tw_decoder_ticks_to_ns(const struct tw_decoder *d, int si, uint64_t ticks)
{
  return to_ns(&d->streams[si], ticks);
}

void tw_decoder_set_freq(struct tw_decoder *d, uint16_t endpoint, uint32_t freq_hz)
{
  for (size_t i = 0; i < d->nstreams; i++)
    if (d->streams[i].st.endpoint == endpoint)
      stream_set_freq(&d->streams[i], freq_hz);
  /* streams that appear later take it from the default */
  d->cfg.default_freq_hz = freq_hz;
}

/* ---- streams ------------------------------------------------------------------ */

static int stream_new(struct tw_decoder *d, uint16_t ep, uint16_t inst, uint16_t module);

static int find_stream(struct tw_decoder *d, uint16_t ep, uint16_t inst, uint16_t module)
{
  if (d->last_stream >= 0) {
    struct stream *s = &d->streams[d->last_stream];
    if (s->st.endpoint == ep && s->st.instance == inst)
      return d->last_stream;
  }
  for (size_t i = 0; i < d->nstreams; i++)
    if (d->streams[i].st.endpoint == ep && d->streams[i].st.instance == inst)
      return d->last_stream = (int)i;
  if (d->nstreams == d->cfg.max_streams) {
    if (!d->limit_reported++)
      diag(d, TW_DIAG_LIMIT, TW_ENOSPC, -1, 0, 0,
           "more than %zu streams: packets of endpoint 0x%04x instance %u ignored",
           d->cfg.max_streams, ep, inst);
    return -1;
  }
  return stream_new(d, ep, inst, module);
}

static int stream_new(struct tw_decoder *d, uint16_t ep, uint16_t inst, uint16_t module)
{
  struct stream *s = &d->streams[d->nstreams];
  memset(s, 0, sizeof *s);
  s->expect = 0x10000u; /* no record yet */
  s->snap_buf = malloc(d->cfg.max_snapshot);
  if (!s->snap_buf)
    return -1;
  tw_snap_reasm_init(&s->snap, s->snap_buf, d->cfg.max_snapshot);
  s->st.endpoint = ep;
  s->st.instance = inst;
  s->st.module = module;
  for (size_t i = 0; i < d->nstreams; i++) /* a sibling core's clock */
    if (d->streams[i].st.endpoint == ep && d->streams[i].freq_known)
      stream_set_freq(s, d->streams[i].st.freq_hz);
  if (!s->freq_known && d->cfg.default_freq_hz)
    stream_set_freq(s, d->cfg.default_freq_hz);
  if (!s->freq_known) {
    s->st.freq_hz = 1000000000u;
    s->mult = 1;
  }
  return d->last_stream = (int)d->nstreams++;
}

size_t tw_decoder_nstreams(const struct tw_decoder *d) { return d->nstreams; }
const struct tw_stream_stats *tw_decoder_stream(const struct tw_decoder *d, size_t i)
{
  return i < d->nstreams ? &d->streams[i].st : NULL;
}

/* ---- names -------------------------------------------------------------------- */

static uint64_t name_key(uint16_t ep, uint32_t kind, uint32_t number)
{
  return 1ull << 63 | (uint64_t)ep << 40 | (uint64_t)(kind & 0xFF) << 32 | number;
}

static struct name_slot *name_slot(const struct tw_decoder *d, uint64_t key)
{
  uint64_t h = key * 0x9E3779B97F4A7C15ull;
  size_t mask = d->names_cap - 1, i = (size_t)(h >> 40) & mask;
  while (d->names[i].key && d->names[i].key != key)
    i = (i + 1) & mask;
  return &d->names[i];
}

/* Twice the slots, the names moved over in their order. The table stays at
 * most half full, so a lookup's probe run stays short; it never needs to
 * grow beyond 2 * max_names slots (name_set refuses a name past max_names
 * first). */
static int names_grow(struct tw_decoder *d)
{
  size_t cap = d->names_cap * 2;
  struct name_slot *old = d->names, *n = calloc(cap, sizeof *n);
  uint32_t *old_order = d->name_order, *o = calloc(cap / 2, sizeof *o);
  if (!n || !o) {
    free(n);
    free(o);
    return TW_ENOMEM;
  }
  d->names = n;
  d->name_order = o;
  d->names_cap = cap;
  for (size_t i = 0; i < d->nnames; i++) {
    const struct name_slot *from = &old[old_order[i]];
    struct name_slot *to = name_slot(d, from->key);
    *to = *from;
    o[i] = (uint32_t)(to - n);
  }
  free(old);
  free(old_order);
  return 0;
}

static void name_set(struct tw_decoder *d, int si, uint16_t ep, uint32_t kind, uint32_t number,
                     const char *s, size_t n)
{
  uint64_t key = name_key(ep, kind, number);
  struct name_slot *e = name_slot(d, key);
  if (!e->key) {
    if (d->nnames == d->cfg.max_names) {
      diag(d, TW_DIAG_LIMIT, TW_ENOSPC, si, 0, 0, "name table full (%zu names): %s %u unnamed",
           d->cfg.max_names, tw_obj_kind_name((enum tw_obj_kind)kind), number);
      return;
    }
    if ((d->nnames + 1) * 2 > d->names_cap) {
      if (names_grow(d) < 0) {
        diag(d, TW_DIAG_LIMIT, TW_ENOMEM, si, 0, 0, "out of memory for %zu names: %s %u unnamed",
             d->nnames + 1, tw_obj_kind_name((enum tw_obj_kind)kind), number);
        return;
      }
      e = name_slot(d, key);
    }
  }
  if (e->key && strlen(e->name) == n && !memcmp(e->name, s, n))
    return; /* the same again (a START repeats every name) */
  char *copy = malloc(n + 1);
  if (!copy) {
    diag(d, TW_DIAG_LIMIT, TW_ENOMEM, si, 0, 0, "out of memory for a %zu-byte name: %s %u %s",
         n, tw_obj_kind_name((enum tw_obj_kind)kind), number,
         e->key ? "keeps its previous name" : "unnamed");
    return;
  }
  memcpy(copy, s, n);
  copy[n] = 0;
  if (!e->key) {
    e->key = key;
    d->name_order[d->nnames++] = (uint32_t)(e - d->names);
  }
  free(e->name);
  e->name = copy;
}

static void names_clear(struct tw_decoder *d)
{
  for (size_t i = 0; i < d->nnames; i++) {
    struct name_slot *e = &d->names[d->name_order[i]];
    free(e->name);
    e->name = NULL;
    e->key = 0;
  }
  d->nnames = 0;
}

const char *tw_decoder_name(const struct tw_decoder *d, uint16_t endpoint,
                            enum tw_obj_kind kind, uint32_t number)
{
  const struct name_slot *e = name_slot(d, name_key(endpoint, kind, number));
  return e->key ? e->name : NULL;
}

int tw_decoder_name_at(const struct tw_decoder *d, size_t i, uint16_t *endpoint,
                       enum tw_obj_kind *kind, uint32_t *number, const char **name)
{
  if (i >= d->nnames)
    return 0;
  const struct name_slot *e = &d->names[d->name_order[i]];
  *endpoint = (uint16_t)(e->key >> 40);
  *kind = (enum tw_obj_kind)((e->key >> 32) & 0xFF);
  *number = (uint32_t)e->key;
  *name = e->name;
  return 1;
}

/* ---- custom events ------------------------------------------------------------- */

static struct custom *custom_find(const struct tw_decoder *d, uint16_t ep, uint16_t id)
{
  for (size_t i = 0; i < d->ncustom; i++)
    if (d->customs[i].endpoint == ep && d->customs[i].desc.id == id && !d->customs[i].superseded)
      return &d->customs[i];
  return NULL;
}

static int same_decl(const struct custom *a, const struct custom *b)
{
  if (strcmp(a->name, b->name) || a->desc.flags != b->desc.flags ||
      a->desc.nfields != b->desc.nfields)
    return 0;
  for (unsigned i = 0; i < a->desc.nfields; i++)
    if (a->fields[i].type != b->fields[i].type || a->fields[i].bits != b->fields[i].bits ||
        strcmp(a->fnames[i], b->fnames[i]))
      return 0;
  return 1;
}

/* Where a declaration of (ep, id) goes (docs/host.md, "Names, custom
 * events"): the kind's slot when the declaration is the same (a START
 * repeats every one); a slot of an earlier declaration with the same text
 * when it comes back; else a new slot, the current one superseded, so that
 * the descriptor a consumer already holds keeps describing the events it
 * was given with. NULL when the table is full (reported). */
static struct custom *custom_slot(struct tw_decoder *d, int si, const struct custom *decl)
{
  uint16_t ep = decl->endpoint, id = decl->desc.id;
  struct custom *cur = custom_find(d, ep, id), *c = NULL;
  if (cur && same_decl(cur, decl))
    return cur;
  for (size_t i = 0; i < d->ncustom && !c; i++)
    if (d->customs[i].endpoint == ep && d->customs[i].desc.id == id &&
        same_decl(&d->customs[i], decl))
      c = &d->customs[i];
  if (!c) {
    if (d->ncustom == d->cfg.max_custom) {
      diag(d, TW_DIAG_LIMIT, TW_ENOSPC, si, 0, id, "custom event table full (%zu)%s",
           d->cfg.max_custom, cur ? ": the kind keeps its earlier declaration" : "");
      return NULL;
    }
    c = &d->customs[d->ncustom++];
  }
  if (cur)
    cur->superseded = 1;
  return c;
}

const struct tw_event_desc *tw_decoder_custom_at(const struct tw_decoder *d, size_t i,
                                                 uint16_t *endpoint)
{
  if (i >= d->ncustom)
    return NULL;
  *endpoint = d->customs[i].endpoint;
  return &d->customs[i].desc;
}

static const struct { char name[5]; enum tw_field_type type; uint8_t bits; } types[] = {
  {"U8", TW_FT_U8, 8}, {"U16", TW_FT_U16, 16}, {"U32", TW_FT_U32, 32},
  {"I8", TW_FT_I8, 8}, {"I16", TW_FT_I16, 16}, {"I32", TW_FT_I32, 32},
  {"F32", TW_FT_F32, 32},
  {"STR", TW_FT_STRING, 0}, {"BLOB", TW_FT_STRING, 0}, /* snapshot data (tw_custom_bytes) */
};

static int field_type(const char *t, size_t n, enum tw_field_type *ft, uint8_t *bits)
{
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (n == strlen(types[i].name) && !memcmp(t, types[i].name, n)) {
      *ft = types[i].type;
      *bits = types[i].bits;
      return 0;
    }
  return TW_EINVAL;
}

/* "Name field:type field:type ...": one 32-bit data word per field, the
 * type saying how many of its low bits count and how to read them (values[]
 * keep the raw bits; I8..I32 are sign-extended and F32 reinterpreted by
 * whoever reads them, from the field type); or one STR/BLOB field, whose
 * bytes arrive as snapshot data (include/tracewire/trace.h,
 * tw_custom_declare). */
static int parse_decl(struct custom *c, const char *s, size_t n, unsigned timed,
                      const char **bad, size_t *badn)
{
  const char *p = s, *end = s + n;
  unsigned nf = 0;
  while (p < end && *p == ' ')
    p++;
  const char *tok = p;
  while (p < end && *p != ' ')
    p++;
  if (p == tok || (size_t)(p - tok) >= sizeof c->name)
    return TW_EINVAL;
  memcpy(c->name, tok, (size_t)(p - tok));
  c->name[p - tok] = 0;
  for (;;) {
    while (p < end && *p == ' ')
      p++;
    if (p == end)
      break;
    tok = p;
    while (p < end && *p != ' ')
      p++;
    const char *colon = memchr(tok, ':', (size_t)(p - tok));
    if (!colon || colon == tok || nf == TW_EVENT_MAX_VALUES ||
        (size_t)(colon - tok) >= sizeof c->fnames[0])
      return TW_EINVAL;
    struct tw_field_desc *f = &c->fields[nf];
    uint8_t bits;
    if (field_type(colon + 1, (size_t)(p - colon - 1), &f->type, &bits) < 0) {
      *bad = colon + 1;
      *badn = (size_t)(p - colon - 1);
      return TW_EINVAL;
    }
    memcpy(c->fnames[nf], tok, (size_t)(colon - tok));
    c->fnames[nf][colon - tok] = 0;
    f->name = c->fnames[nf];
    f->word = (uint8_t)(f->type == TW_FT_STRING ? 0 : nf);
    f->shift = 0;
    f->bits = bits;
    f->obj = TW_OBJ_NONE;
    f->doc = "";
    nf++;
  }
  c->desc.nfields = (uint8_t)nf;
  c->desc.payload_words = (uint8_t)nf;
  for (unsigned i = 0; i < nf; i++)
    if (c->fields[i].type == TW_FT_STRING)
      c->desc.payload_words = 0; /* STR/BLOB: the only field, all data */
  c->desc.flags = timed ? TW_EVF_TIMED : 0;
  c->desc.module = TW_MOD_CUSTOM;
  c->desc.marker_field = -1;
  c->desc.default_marker = TW_MARKER_NONE;
  c->desc.name = c->name;
  c->desc.seed_name = c->name;
  c->desc.doc = "custom event (declared in-band)";
  c->desc.fields = c->fields;
  return 0;
}

static void custom_declare(struct tw_decoder *d, int si, const struct tw_event *ev)
{
  uint16_t ep = ev->endpoint, id = (uint16_t)ev->values[0];
  struct custom tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.endpoint = ep;
  tmp.desc.id = id;
  size_t n = ev->str_len, badn = 0;
  const char *bad = NULL;
  if (parse_decl(&tmp, ev->str, n, ev->values[1], &bad, &badn) < 0) {
    if (bad)
      diag(d, TW_DIAG_BAD_DECL, TW_EBADMSG, si, 0, id,
           "custom event %u: unknown field type \"%.*s\" (expected U8 U16 U32 I8 I16 I32 F32 "
           "STR BLOB) in declaration \"%.*s\"", id, (int)(badn > 16 ? 16 : badn), bad,
           (int)(n > 120 ? 120 : n), ev->str);
    else
      diag(d, TW_DIAG_BAD_DECL, TW_EBADMSG, si, 0, id,
           "custom event %u: cannot parse declaration \"%.*s\"", id, (int)(n > 120 ? 120 : n),
           ev->str);
    return;
  }
  if (tmp.desc.nfields != ev->values[2])
    diag(d, TW_DIAG_BAD_DECL, TW_EBADMSG, si, 0, id,
         "custom event %u: declaration has %u fields, nfields says %u", id,
         tmp.desc.nfields, ev->values[2]);
  struct custom *c = custom_slot(d, si, &tmp);
  if (!c)
    return;
  *c = tmp;
  /* the copy moved the strings: point the descriptor at its own */
  c->desc.name = c->desc.seed_name = c->name;
  c->desc.fields = c->fields;
  for (unsigned i = 0; i < c->desc.nfields; i++)
    c->fields[i].name = c->fnames[i];
  plan_init(&c->plan, &c->desc);
}

/* ---- unknown ids ---------------------------------------------------------------- */

static void unknown_id(struct tw_decoder *d, int si, uint16_t module, uint16_t id)
{
  uint16_t ep = d->streams[si].st.endpoint;
  d->streams[si].st.unknown++;
  for (size_t i = 0; i < d->nunknown; i++)
    if (d->unknown[i].id == id && d->unknown[i].module == module && d->unknown[i].endpoint == ep) {
      d->unknown[i].count++;
      return;
    }
  if (d->nunknown == MAX_UNKNOWN) {
    d->unknown_overflow++;
    return;
  }
  d->unknown[d->nunknown++] = (struct unknown){ ep, module, id, 1 };
  diag(d, TW_DIAG_UNKNOWN_ID, TW_EUNKNOWNID, si, 1, module,
       "unknown event id %u (module %u): skipped; the total is in the stats", id, module);
}

int tw_decoder_unknown_at(const struct tw_decoder *d, size_t i, uint16_t *endpoint,
                          uint16_t *module, uint16_t *id, unsigned long long *count)
{
  if (i >= d->nunknown)
    return 0;
  *endpoint = d->unknown[i].endpoint;
  *module = d->unknown[i].module;
  *id = d->unknown[i].id;
  *count = d->unknown[i].count;
  return 1;
}

/* ---- records --------------------------------------------------------------------- */

static inline uint32_t ld(const uint8_t *p, int swap)
{
  uint32_t v;
  memcpy(&v, p, 4);
  return swap ? __builtin_bswap32(v) : v;
}

static const struct tw_event_desc *lookup(struct tw_decoder *d, int si, uint16_t module, uint16_t id)
{
  const struct tw_event_desc *desc;
  if (module == TW_MOD_CUSTOM) {
    const struct custom *c = custom_find(d, d->streams[si].st.endpoint, id);
    desc = c ? &c->desc : NULL;
  } else
    desc = id < DESC_CACHE ? d->desc_cache[id] : tw_event_desc_by_id(id);
  if (desc && desc->module != module)
    desc = NULL;
  if (!desc)
    unknown_id(d, si, module, id);
  return desc;
}

/* The unpack plan for a record's (module, id), or NULL for an unknown id
 * (counted and reported by lookup()). */
static const struct plan *plan_slow(struct tw_decoder *d, int si, uint16_t module, uint16_t id)
{
  if (module == TW_MOD_CUSTOM) {
    const struct custom *c = custom_find(d, d->streams[si].st.endpoint, id);
    if (c)
      return &c->plan;
  }
  const struct tw_event_desc *desc = lookup(d, si, module, id);
  if (!desc)
    return NULL;
  plan_init(&d->tmp_plan, desc); /* an id beyond the cached range */
  return &d->tmp_plan;
}

static inline const struct plan *plan_for(struct tw_decoder *d, int si, uint16_t module, uint16_t id)
{
  const struct plan *pl;
  if (__builtin_expect(id < DESC_CACHE && (pl = d->plan_of[id]) != NULL && pl->module == module, 1))
    return pl;
  return plan_slow(d, si, module, id);
}

/* Sequence accounting for one record (see the loss model in decoder.h).
 * The in-order case is inline; gaps, the first record and pending drops
 * take account_seq_slow(). */
static void account_seq_slow(struct tw_decoder *d, int si, uint16_t seq)
{
  struct stream *s = &d->streams[si];
  if (s->have_seq) {
    uint16_t gap = (uint16_t)(seq - s->next_seq);
    if (gap) {
      if (s->pending_drops && gap == (uint16_t)s->pending_drops) {
        /* the dropped events consumed sequence numbers (a count above
         * 65535 wraps the skip): counted already */
      } else if (s->pkt_gap) {
        s->st.events_lost += gap;
      } else {
        s->st.unexplained += gap;
        diag(d, TW_DIAG_EVT_GAP, 0, si, gap, seq,
             "event sequence gap of %u (expected %u, got %u) with no DROPS record and no packet loss",
             gap, s->next_seq, seq);
      }
    }
    s->seq_ext += (uint16_t)(seq - (uint16_t)s->seq_ext);
  } else {
    s->seq_ext = seq;
  }
  s->have_seq = 1;
  s->next_seq = (uint16_t)(seq + 1);
  s->expect = s->next_seq;
  s->pkt_gap = 0;
  s->pending_drops = 0;
}

static inline void account_seq(struct tw_decoder *d, struct stream *s, int si, uint16_t seq)
{
  if (__builtin_expect(seq == s->expect, 1)) {
    /* no gap, nothing pending: seq_ext's low half was the previous seq */
    s->seq_ext++;
    s->next_seq = (uint16_t)(seq + 1);
    s->expect = s->next_seq;
    return;
  }
  account_seq_slow(d, si, seq);
}

static void account_time_slow(struct tw_decoder *d, int si, uint64_t ticks)
{
  struct stream *s = &d->streams[si];
  if (!s->st.have_time) {
    s->st.have_time = 1;
    s->st.first_ticks = ticks;
  } else if (ticks < s->last_ticks) {
    s->st.backwards++;
    diag(d, TW_DIAG_BACKWARDS, TW_EBACKWARDS, si, 1, s->last_ticks,
         "timestamp went backwards: %llu ticks after %llu (passed through unchanged)",
         (unsigned long long)ticks, (unsigned long long)s->last_ticks);
  }
  s->last_ticks = ticks;
  s->st.last_ticks = ticks;
}

static inline void account_time(struct tw_decoder *d, struct stream *s, int si, uint64_t ticks)
{
  if (__builtin_expect(ticks >= s->last_ticks && s->st.have_time, 1)) {
    s->last_ticks = ticks;
    s->st.last_ticks = ticks;
    return;
  }
  account_time_slow(d, si, ticks);
}

/* Control events change decoder state; they are delivered like any other. */
static void control(struct tw_decoder *d, int si, struct tw_event *ev)
{
  struct stream *s = &d->streams[si];
  switch (ev->id) {
  case TW_EV_SYNC:
    if (ev->values[0] && ev->values[0] != s->st.freq_hz) {
      stream_set_freq(s, ev->values[0]);
      ev->time_ns = to_ns(s, ev->ticks);
    } else if (ev->values[0]) {
      s->freq_known = 1;
    }
    break;
  case TW_EV_DROPS:
    s->st.ring_drops += ev->values[0];
    s->pending_drops = ev->values[0];
    if (s->pending_drops)
      s->expect = 0x10000u;
    diag(d, TW_DIAG_RING_DROPS, 0, si, ev->values[0], 0,
         "target ring overflow: %u events dropped", ev->values[0]);
    break;
  case TW_EV_NAME:
    if (ev->nvalues >= 3)
      name_set(d, si, ev->endpoint, ev->values[0], ev->values[2], ev->str ? ev->str : "", ev->str_len);
    break;
  case TW_EV_CUSTOM_DECL:
    if (ev->str)
      custom_declare(d, si, ev);
    break;
  case TW_EV_NAMES_LOST:
    if (ev->values[0] > s->st.names_lost) {
      s->st.names_lost = ev->values[0];
      diag(d, TW_DIAG_NAMES_LOST, TW_ENOSPC, si, ev->values[0], 0,
           "target name table full: %u names not recorded (raise TW_CFG_NAMES on the target)",
           ev->values[0]);
    }
    break;
  default:
    break;
  }
}

/* Unpack fields from host-order words; STRING fields take str. */
static void unpack(struct tw_event *ev, const struct tw_event_desc *desc, const uint32_t *w)
{
  unsigned n = desc->nfields < TW_EVENT_MAX_VALUES ? desc->nfields : TW_EVENT_MAX_VALUES;
  for (unsigned i = 0; i < n; i++) {
    const struct tw_field_desc *f = &desc->fields[i];
    ev->values[i] = f->type == TW_FT_STRING ? 0 : tw_field_get(f, w);
  }
  ev->nvalues = (uint16_t)n;
}

static void no_freq(struct tw_decoder *d, int si)
{
  if (!d->no_freq_reported++)
    diag(d, TW_DIAG_NO_FREQ, 0, si, 0, 0,
         "event before any SYNC or target info: timestamp frequency unknown, ticks taken as ns");
}

static inline int emit(struct tw_decoder *d, struct stream *s, int si, struct tw_event *ev)
{
  s->st.events++;
  if (__builtin_expect(ev->module == TW_MOD_CONTROL, 0))
    control(d, si, ev);
  if (__builtin_expect(!s->freq_known, 0))
    no_freq(d, si);
  return d->on_event ? d->on_event(d->ev_ctx, ev) : 0;
}

static int snapshot_record(struct tw_decoder *d, int si, const uint8_t *p, size_t left,
                           enum tw_endian e, int swap, uint32_t w0)
{
  struct stream *s = &d->streams[si];
  struct tw_record rec;
  /* the record arrived, whatever is wrong inside it: its sequence number
   * counts, or it would read as a gap (events lost) */
  account_seq(d, s, si, (uint16_t)tw_evhdr_seq(w0));
  int n = tw_record_parse(p, left, e, &rec);
  if (n < 0) {
    s->st.snap_errors++;
    diag(d, TW_DIAG_SNAPSHOT, n, si, 1, 0, "snapshot record rejected: %s", tw_strerror(n));
    return 0;
  }
  uint64_t ticks = rec.has_ts ? rec.ts : s->last_ticks;
  int rc = tw_snap_reasm_feed(&s->snap, &rec);
  if (rc < 0) {
    s->st.snap_errors++;
    diag(d, TW_DIAG_SNAPSHOT, rc, si, 1, rec.snap.snap_id,
         "snapshot %u (event %u): %s", rec.snap.snap_id, rec.event_id, tw_strerror(rc));
    return 0;
  }
  if (rc == 0)
    return 0;
  const struct tw_event_desc *desc = lookup(d, si, s->snap.module_id, s->snap.event_id);
  if (!desc)
    return 0;
  size_t total = s->snap.total, fixed = 4u * desc->payload_words;
  if (total < fixed) {
    s->st.snap_errors++;
    diag(d, TW_DIAG_SNAPSHOT, TW_ESNAPLEN, si, 1, rec.snap.snap_id,
         "snapshot %u: %zu bytes, event %s needs %zu", rec.snap.snap_id, total, desc->name, fixed);
    return 0;
  }
  uint32_t w[TW_EVENT_MAX_VALUES + 1] = {0};
  for (size_t i = 0; i < desc->payload_words && i <= TW_EVENT_MAX_VALUES; i++)
    w[i] = ld(s->snap.buf + 4 * i, swap);
  if (rec.has_ts)
    account_time(d, s, si, ticks);
  struct tw_event *ev = &d->ev;
  ev->flags = rec.has_ts ? 0u : TW_EVENT_TIME_INFERRED;
  ev->ticks = ticks;
  ev->time_ns = to_ns(s, ticks);
  ev->seq = s->seq_ext;
  ev->endpoint = s->st.endpoint;
  ev->instance = s->st.instance;
  ev->id = desc->id;
  ev->module = desc->module;
  ev->stream = (uint16_t)si;
  ev->desc = desc;
  unpack(ev, desc, w);
  const char *str = (const char *)s->snap.buf + fixed;
  size_t slen = total - fixed;
  if (desc->module != TW_MOD_CUSTOM)
    while (slen > 0 && str[slen - 1] == 0)
      slen--; /* NUL terminator and word padding; a BLOB keeps its bytes */
  ev->str = str;
  ev->str_len = slen;
  rc = emit(d, s, si, ev);
  ev->str = NULL;
  ev->str_len = 0;
  return rc;
}

static int bad_record(struct tw_decoder *d, int si, int err, size_t at, uint32_t w0)
{
  d->streams[si].st.bad_records++;
  diag(d, TW_DIAG_BAD_RECORD, err, si, 1, w0,
       "record at payload byte %zu (header 0x%08x): %s; rest of the packet skipped",
       at, w0, tw_strerror(err));
  return 0;
}

/* The record loop, inlined twice so the byte order is a constant in each
 * copy: the native copy has no swap tests left in it. */
static inline __attribute__((always_inline)) int
records_in(struct tw_decoder *d, int si, const struct tw_pkt *pkt, const int swap)
{
  struct stream *s = &d->streams[si];
  const uint8_t *base = pkt->payload, *p = base, *end = base + pkt->payload_len;
  struct tw_event *ev = &d->ev;
  ev->endpoint = s->st.endpoint;
  ev->instance = s->st.instance;
  ev->stream = (uint16_t)si;
  while (p < end) {
    size_t left = (size_t)(end - p);
    if (left < 4)
      return bad_record(d, si, TW_ETRUNC, (size_t)(p - base), 0);
    uint32_t w0 = ld(p, swap);
    uint32_t type = w0 >> 27, len = (w0 >> 16) & 0x7FFu;
    if (__builtin_expect(type >= TW_REC_SNAPSHOT, 0)) {
      if (type > TW_REC_SNAPSHOT_TS)
        return bad_record(d, si, TW_EHDRTYPE, (size_t)(p - base), w0);
      if (len < 4 || len > left || (len & 3))
        return bad_record(d, si, len > left ? TW_ETRUNC : TW_EALIGN, (size_t)(p - base), w0);
      s->st.records++;
      int rc = snapshot_record(d, si, p, len, pkt->endian, swap, w0);
      if (rc)
        return rc;
      p += len;
      continue;
    }
    uint32_t hdr = type == TW_REC_EVENT_TS ? 16u : 8u;
    if (__builtin_expect(len < hdr || len > left || (len & 3), 0))
      return bad_record(d, si, len > left ? TW_ETRUNC : len & 3 ? TW_EALIGN : TW_ESHORT,
                        (size_t)(p - base), w0);
    s->st.records++;
    account_seq(d, s, si, (uint16_t)w0);
    int has_ts = type == TW_REC_EVENT_TS;
    uint64_t ticks = s->last_ticks;
    if (has_ts)
      ticks = (uint64_t)ld(p + 8, swap) << 32 | ld(p + 4, swap);
    uint32_t idw = ld(p + hdr - 4, swap);
    uint16_t id = (uint16_t)(idw >> 16), module = (uint16_t)idw;
    const struct plan *pl = plan_for(d, si, module, id);
    if (!pl || __builtin_expect(pl->consumed, 0)) {
      p += len; /* unknown (counted), or the packet's check (verified before) */
      continue;
    }
    const uint8_t *pw = p + hdr;
    size_t nw = (len - hdr) / 4, need = pl->need;
    /* A TIMED kind's plain record may carry the logger's 32-bit timestamp
     * as its first payload word (one word more than the fields need), or,
     * as spec 000 draws HdrType_Event, no timestamp at all (exactly the
     * fields): then, like any record without one, it takes the time of the
     * stream's previous timed record, marked inferred. Alongside a 64-bit
     * timestamp a 32-bit word is tolerated and skipped. */
    ev->flags = 0;
    if (__builtin_expect(nw != need || !has_ts, 0)) {
      if (pl->timed && nw > need && (!has_ts || nw == need + 1)) {
        if (!has_ts) {
          uint32_t t32 = ld(pw, swap);
          ticks = (s->last_ticks & ~0xFFFFFFFFull) | t32;
          if (ticks < s->last_ticks && s->st.have_time)
            ticks += 1ull << 32;
          has_ts = 1;
        }
        pw += 4;
        nw--;
      }
      if (!has_ts)
        ev->flags = TW_EVENT_TIME_INFERRED;
    }
    if (__builtin_expect(nw < need, 0)) {
      s->st.bad_records++;
      diag(d, TW_DIAG_BAD_RECORD, TW_ESHORT, si, 1, w0,
           "event %s at payload byte %zu: %zu payload words, %zu expected; skipped",
           pl->desc->name, (size_t)(p - base), nw, need);
      p += len;
      continue;
    }
    if (has_ts)
      account_time(d, s, si, ticks);
    ev->ticks = ticks;
    ev->time_ns = to_ns(s, ticks);
    ev->seq = s->seq_ext;
    ev->id = id;
    ev->module = module;
    ev->desc = pl->desc;
    if (__builtin_expect(pl->fast, 1)) {
      unsigned n = pl->n;
      const struct plan_field *f = pl->f;
      /* branch-free for the first PLAN_FIXED (every vocabulary kind) */
#define FIELD(i) ev->values[i] = (ld(pw + f[i].off, swap) >> f[i].shift) & f[i].mask
      FIELD(0); FIELD(1); FIELD(2); FIELD(3);
#undef FIELD
      for (unsigned i = PLAN_FIXED; i < n; i++)
        ev->values[i] = (ld(pw + f[i].off, swap) >> f[i].shift) & f[i].mask;
      ev->nvalues = (uint16_t)n;
    } else {
      uint32_t w[TW_EVENT_MAX_VALUES] = {0};
      for (size_t i = 0; i < need && i < TW_EVENT_MAX_VALUES; i++)
        w[i] = ld(pw + 4 * i, swap);
      unpack(ev, pl->desc, w);
    }
    int rc = emit(d, s, si, ev);
    if (rc)
      return rc;
    p += len;
  }
  return 0;
}

static int records(struct tw_decoder *d, int si, const struct tw_pkt *pkt)
{
  if (pkt->endian == TW_ENDIAN_NATIVE)
    return records_in(d, si, pkt, 0);
  return records_in(d, si, pkt, 1);
}

/* ---- payload check (docs/wire-format.md, "Payload check") -------------------------- */

#define CHECK_BYTES 12u

/* 1: the packet ends with a PKT_CHECK record whose CRC matches; 0: it has
 * none; TW_ECRC: it has one that does not match (or whose reserved upper
 * half is not 0). The CRC covers every byte before the CRC word, header
 * included (the footer repeats only the length). */
static int packet_check(const struct tw_pkt *pkt)
{
  if (pkt->payload_len < CHECK_BYTES)
    return 0;
  int swap = pkt->endian != TW_ENDIAN_NATIVE;
  const uint8_t *rec = pkt->payload + pkt->payload_len - CHECK_BYTES;
  uint32_t w0 = ld(rec, swap), idw = ld(rec + 4, swap), word = ld(rec + 8, swap);
  if (w0 >> 27 != TW_REC_EVENT || ((w0 >> 16) & 0x7FFu) != CHECK_BYTES ||
      idw != ((uint32_t)TW_EV_PKT_CHECK << 16 | TW_MOD_CONTROL))
    return 0;
  const uint8_t *start = pkt->payload - tw_pkt_hdr_bytes(pkt->hdr_type);
  if (word >> 16 || (uint16_t)word != tw_crc16(start, (size_t)(rec + 8 - start)))
    return TW_ECRC;
  return 1;
}

/* A packet that fails its check is not decoded: its records (the check's
 * own included) are a sequence gap at the next packet, so they are counted
 * lost in transport, and none is delivered with a wrong value. */
static int check_failed(struct tw_decoder *d, int si, const char *why)
{
  if (si >= 0)
    d->streams[si].st.check_failed++;
  diag(d, TW_DIAG_CHECK, TW_ECRC, si, 1, 0, "packet %s: dropped, its events are counted lost", why);
  return 0;
}

/* The stream of a packet, if it exists (a packet that failed its check
 * may carry a damaged address: it must not make a stream). */
static int known_stream(const struct tw_decoder *d, uint16_t ep, uint16_t inst)
{
  for (size_t i = 0; i < d->nstreams; i++)
    if (d->streams[i].st.endpoint == ep && d->streams[i].st.instance == inst)
      return (int)i;
  return -1;
}

/* The first record of a session of the streamer: SYNC or TRACE_START,
 * event sequence 0, in a packet of sequence 0 (see decoder.h). */
static int session_start(const struct tw_pkt *pkt, uint16_t seq)
{
  if (seq != 0 || pkt->payload_len < 8)
    return 0;
  int swap = pkt->endian != TW_ENDIAN_NATIVE;
  uint32_t w0 = ld(pkt->payload, swap);
  uint32_t type = w0 >> 27, hdr = type == TW_REC_EVENT_TS ? 16u : 8u;
  if ((type != TW_REC_EVENT && type != TW_REC_EVENT_TS) || (uint16_t)w0 != 0 ||
      pkt->payload_len < hdr)
    return 0;
  uint32_t idw = ld(pkt->payload + hdr - 4, swap);
  uint16_t id = (uint16_t)(idw >> 16), module = (uint16_t)idw;
  return module == TW_MOD_CONTROL && (id == TW_EV_SYNC || id == TW_EV_TRACE_START);
}

static int is_restart(const struct stream *s, uint16_t seq, const struct tw_pkt *pkt)
{
  uint16_t back = (uint16_t)(s->next_pkt_seq - seq);
  return session_start(pkt, seq) || (back > TW_DECODER_RESTART_BACK && back <= 0x8000u);
}

/* A new run of sequence numbers: nothing before it explains a gap after
 * it, and its first record is not a gap. */
static void restart(struct tw_decoder *d, struct stream *s, int si, uint16_t seq)
{
  s->st.restarts++;
  diag(d, TW_DIAG_RESTART, 0, si, 0, seq,
       "the target started its sequence numbers again (packet sequence %u after %u): a restart, "
       "not a loss; whatever it sent after packet %u of its previous session is not counted",
       seq, (uint16_t)(s->next_pkt_seq - 1), (uint16_t)(s->next_pkt_seq - 1));
  s->have_seq = 0;
  s->pkt_gap = 0;
  s->pending_drops = 0;
  s->expect = 0x10000u;
  if (s->snap.active) /* half a snapshot of the old session: never completed */
    tw_snap_reasm_init(&s->snap, s->snap_buf, d->cfg.max_snapshot);
}

int tw_decoder_packet(struct tw_decoder *d, const struct tw_pkt *pkt,
                      unsigned long long offset, unsigned long long number)
{
  d->pkt_off = offset;
  d->pkt_num = number;
  uint16_t ep, inst = 0, module = 0, seq;
  switch (pkt->hdr_type) {
  case TW_PKT_EVENT:
  case TW_PKT_EVENT_WITH_CRC:
    ep = (uint16_t)tw_pkt_get_src(&pkt->hdr);
    inst = (uint16_t)tw_pkt_get_logger_instance(&pkt->hdr);
    module = (uint16_t)tw_pkt_get_logger_module(&pkt->hdr);
    break;
  case TW_PKT_MIN_EVENT:
    ep = (uint16_t)tw_pkt_get_min_device(&pkt->hdr);
    break;
  case TW_PKT_MSG:
  case TW_PKT_MSG_WITH_PID:
    if (d->on_msg)
      d->on_msg(d->msg_ctx, pkt);
    return 0;
  default:
    return 0;
  }
  seq = (uint16_t)tw_pkt_get_seq(&pkt->hdr);
  int check = packet_check(pkt);
  if (check < 0)
    return check_failed(d, known_stream(d, ep, inst), "checksum does not match");
  int si = find_stream(d, ep, inst, module);
  if (si < 0)
    return 0;
  struct stream *s = &d->streams[si];
  if (!check && s->checked) {
    /* a target that started again may come back without checks (other
     * firmware): only the start of a session says so. One flipped bit
     * cannot forge that: it would have to remove the check record and
     * damage nothing else, and then the packet's values are intact. */
    if (!session_start(pkt, seq))
      return check_failed(d, si, "without its check record (the stream has them)");
    s->checked = 0;
  }
  if (check) {
    s->checked = 1;
    s->st.checked++;
  }
  s->st.packets++;
  if (s->have_pkt_seq && seq != s->next_pkt_seq && is_restart(s, seq, pkt)) {
    restart(d, s, si, seq);
  } else if (s->have_pkt_seq && seq != s->next_pkt_seq) {
    uint16_t gap = (uint16_t)(seq - s->next_pkt_seq);
    if (gap < 0x8000u) {
      s->st.pkts_lost += gap;
      s->pkt_gap = 1;
      s->expect = 0x10000u;
      diag(d, TW_DIAG_PKT_LOSS, 0, si, gap, seq,
           "%u packet(s) lost in transport (packet sequence %u, expected %u)",
           gap, seq, s->next_pkt_seq);
    } else {
      diag(d, TW_DIAG_PKT_LOSS, TW_EPROTO, si, 0, seq,
           "packet sequence went back from %u to %u (duplicate or reordered packet)",
           (uint16_t)(s->next_pkt_seq - 1), seq);
    }
  }
  s->have_pkt_seq = 1;
  s->next_pkt_seq = (uint16_t)(seq + 1);
  return records(d, si, pkt);
}

static void skip_cb(void *ctx, const struct tw_skip *skip) { tw_decoder_skip(ctx, skip); }

int tw_decoder_run(struct tw_decoder *d, struct tw_reader *r)
{
  struct tw_pkt pkt;
  tw_reader_on_skip(r, skip_cb, d);
  for (;;) {
    int n = tw_reader_next(r, &pkt, -1);
    if (n == TW_EOF)
      return 0;
    if (n < 0)
      return n;
    int rc = tw_decoder_packet(d, &pkt, tw_reader_pkt_offset(r), tw_reader_pkt_number(r));
    if (rc)
      return rc;
  }
}

/* ---- checkpoint ------------------------------------------------------------------
 *
 * What decoding a prefix of a stream leaves behind that changes how the
 * rest decodes: per stream its clock (frequency, last ticks: the 32-bit
 * timestamp's high half), its sequence state, in creation order (event
 * stream indexes); the names; the custom declarations (as their text,
 * parsed again on restore, so there is one parser). Counters are not
 * carried: they describe what was read. Layout, little-endian:
 *   u32 'TWDS', u32 version 2, u32 default_freq_hz, u8 no_freq_reported,
 *   u32 nstreams, streams (see put_stream), u32 nnames, names (u64 key,
 *   u32 len, bytes; version 1 had a u8 len), u32 ncustom, customs (u16 endpoint, u16 id, u8 timed
 *   | superseded << 1, u16 len, declaration text). */

#define CKPT_MAGIC 0x53445754u /* "TWDS" */
#define CKPT_VERSION 2         /* 1: names had a u8 length (cut at 63 bytes) */

struct cbuf {
  uint8_t *p;
  size_t cap, n;
  const uint8_t *in;
  size_t len, at;
  int bad;
};

static void cput(struct cbuf *b, const void *v, size_t n)
{
  if (b->n + n <= b->cap)
    memcpy(b->p + b->n, v, n);
  b->n += n;
}
static void cput8(struct cbuf *b, uint64_t v) { uint8_t x = (uint8_t)v; cput(b, &x, 1); }
static void cput16(struct cbuf *b, uint64_t v) { cput8(b, v); cput8(b, v >> 8); }
static void cput32(struct cbuf *b, uint64_t v) { cput16(b, v); cput16(b, v >> 16); }
static void cput64(struct cbuf *b, uint64_t v) { cput32(b, v); cput32(b, v >> 32); }

static const uint8_t *cget(struct cbuf *b, size_t n)
{
  if (b->bad || b->len - b->at < n) {
    b->bad = 1;
    return NULL;
  }
  b->at += n;
  return b->in + b->at - n;
}
static uint64_t cgetn(struct cbuf *b, unsigned bytes)
{
  const uint8_t *p = cget(b, bytes);
  uint64_t v = 0;
  for (unsigned i = 0; p && i < bytes; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* The declaration text parse_decl() turns into c again. */
static size_t custom_text(const struct custom *c, char *out, size_t cap)
{
  size_t n = (size_t)snprintf(out, cap, "%s", c->name);
  for (unsigned i = 0; i < c->desc.nfields && n < cap; i++) {
    const char *t = "U32";
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
      if (types[k].type == c->fields[i].type && types[k].bits == c->fields[i].bits) {
        t = types[k].name;
        break;
      }
    n += (size_t)snprintf(out + n, cap - n, " %s:%s", c->fnames[i], t);
  }
  return n;
}

int tw_decoder_save(const struct tw_decoder *d, void *buf, size_t cap)
{
  struct cbuf b = { .p = buf, .cap = cap };
  cput32(&b, CKPT_MAGIC);
  cput32(&b, CKPT_VERSION);
  cput32(&b, d->cfg.default_freq_hz);
  cput8(&b, d->no_freq_reported != 0);
  cput32(&b, d->nstreams);
  for (size_t i = 0; i < d->nstreams; i++) {
    const struct stream *s = &d->streams[i];
    if (s->snap.active || s->snap.skip)
      return TW_EAGAIN; /* a snapshot spans the point: not resumable here */
    cput16(&b, s->st.endpoint);
    cput16(&b, s->st.instance);
    cput16(&b, s->st.module);
    cput32(&b, s->st.freq_hz);
    cput8(&b, (unsigned)s->freq_known | (unsigned)s->have_pkt_seq << 1 | (unsigned)s->have_seq << 2 |
                  (unsigned)s->pkt_gap << 3 | (unsigned)s->st.have_time << 4 |
                  (unsigned)s->checked << 5);
    cput16(&b, s->next_pkt_seq);
    cput16(&b, s->next_seq);
    cput32(&b, s->expect);
    cput32(&b, s->seq_ext);
    cput64(&b, s->pending_drops);
    cput64(&b, s->last_ticks);
    cput64(&b, s->st.first_ticks);
  }
  cput32(&b, d->nnames);
  for (size_t i = 0; i < d->nnames; i++) {
    const struct name_slot *e = &d->names[d->name_order[i]];
    size_t n = strlen(e->name);
    cput64(&b, e->key);
    cput32(&b, n);
    cput(&b, e->name, n);
  }
  cput32(&b, d->ncustom);
  for (size_t i = 0; i < d->ncustom; i++) {
    const struct custom *c = &d->customs[i];
    char text[48 + TW_EVENT_MAX_VALUES * 32];
    size_t n = custom_text(c, text, sizeof text);
    cput16(&b, c->endpoint);
    cput16(&b, c->desc.id);
    cput8(&b, (unsigned)((c->desc.flags & TW_EVF_TIMED) != 0) | (unsigned)c->superseded << 1);
    cput16(&b, n);
    cput(&b, text, n);
  }
  if (b.n > (size_t)0x7FFFFFFF)
    return TW_ETOOBIG;
  return (int)b.n;
}

static int restore_streams(struct tw_decoder *d, struct cbuf *b)
{
  uint32_t n = (uint32_t)cgetn(b, 4);
  if (b->bad || n > d->cfg.max_streams)
    return TW_EBADMSG;
  for (uint32_t i = 0; i < n; i++) {
    uint16_t ep = (uint16_t)cgetn(b, 2), inst = (uint16_t)cgetn(b, 2), mod = (uint16_t)cgetn(b, 2);
    uint32_t hz = (uint32_t)cgetn(b, 4);
    unsigned fl = (unsigned)cgetn(b, 1);
    if (b->bad || stream_new(d, ep, inst, mod) < 0)
      return b->bad ? TW_EBADMSG : TW_ENOMEM;
    struct stream *s = &d->streams[d->nstreams - 1];
    s->freq_known = 0;
    if (fl & 1)
      stream_set_freq(s, hz);
    else if (hz) {
      stream_set_freq(s, hz); /* the assumed clock, still "unknown" */
      s->freq_known = 0;
    }
    s->have_pkt_seq = (fl >> 1) & 1;
    s->have_seq = (fl >> 2) & 1;
    s->pkt_gap = (fl >> 3) & 1;
    s->st.have_time = (fl >> 4) & 1;
    s->checked = (fl >> 5) & 1;
    s->next_pkt_seq = (uint16_t)cgetn(b, 2);
    s->next_seq = (uint16_t)cgetn(b, 2);
    s->expect = (uint32_t)cgetn(b, 4);
    s->seq_ext = (uint32_t)cgetn(b, 4);
    s->pending_drops = cgetn(b, 8);
    s->last_ticks = s->st.last_ticks = cgetn(b, 8);
    s->st.first_ticks = cgetn(b, 8);
    if (s->expect > 0x10000u)
      return TW_EBADMSG;
  }
  return b->bad ? TW_EBADMSG : 0;
}

static int restore_tables(struct tw_decoder *d, struct cbuf *b, unsigned version)
{
  uint32_t n = (uint32_t)cgetn(b, 4);
  if (b->bad || n > d->cfg.max_names)
    return TW_EBADMSG;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t key = cgetn(b, 8);
    size_t len = (size_t)cgetn(b, version == 1 ? 1 : 4);
    const char *s = (const char *)cget(b, len);
    if (!s || !(key >> 63) || memchr(s, 0, len))
      return TW_EBADMSG;
    name_set(d, -1, (uint16_t)(key >> 40), (uint32_t)(key >> 32) & 0xFF, (uint32_t)key, s, len);
    if (!tw_decoder_name(d, (uint16_t)(key >> 40), (enum tw_obj_kind)((key >> 32) & 0xFF),
                         (uint32_t)key))
      return TW_ENOMEM;
  }
  n = (uint32_t)cgetn(b, 4);
  if (b->bad || n > d->cfg.max_custom)
    return TW_EBADMSG;
  /* each saved declaration back in its own slot, current or superseded as
   * saved (replaying them through custom_declare() would not tell which
   * of a kind's is current) */
  for (uint32_t i = 0; i < n; i++) {
    struct custom *c = &d->customs[i];
    memset(c, 0, sizeof *c);
    c->endpoint = (uint16_t)cgetn(b, 2);
    c->desc.id = (uint16_t)cgetn(b, 2);
    unsigned fl = (unsigned)cgetn(b, 1);
    size_t len = (size_t)cgetn(b, 2);
    const char *text = (const char *)cget(b, len), *bad = NULL;
    size_t badn = 0;
    if (!text || fl > 3 || parse_decl(c, text, len, fl & 1, &bad, &badn) < 0)
      return TW_EBADMSG;
    c->superseded = (uint8_t)(fl >> 1);
    plan_init(&c->plan, &c->desc);
    d->ncustom = i + 1;
  }
  return 0;
}

int tw_decoder_restore(struct tw_decoder *d, const void *buf, size_t len)
{
  struct cbuf b = { .in = buf, .len = len };
  if (d->nstreams || d->nnames || d->ncustom)
    return TW_EINVAL;
  if (cgetn(&b, 4) != CKPT_MAGIC)
    return TW_EBADMSG;
  unsigned version = (unsigned)cgetn(&b, 4);
  if (version != 1 && version != CKPT_VERSION)
    return TW_EBADMSG;
  uint32_t freq = (uint32_t)cgetn(&b, 4);
  int nofreq = (int)cgetn(&b, 1);
  if (b.bad)
    return TW_EBADMSG;
  int rc = restore_streams(d, &b);
  if (rc == 0)
    rc = restore_tables(d, &b, version);
  if (rc == 0 && b.at != b.len)
    rc = TW_EBADMSG;
  if (rc < 0) {
    /* back to a fresh decoder: a half-restored one would decode wrongly */
    for (size_t i = 0; i < d->nstreams; i++)
      free(d->streams[i].snap_buf);
    d->nstreams = 0;
    d->last_stream = -1;
    names_clear(d);
    d->ncustom = 0;
    return rc;
  }
  if (freq)
    d->cfg.default_freq_hz = freq;
  d->no_freq_reported = nofreq;
  d->last_stream = -1;
  return 0;
}
