/*
 * The HTML report writer (tracewire/analysis/report.h).
 *
 * The page is src/analysis/report_template.html, compiled in as a byte
 * array (the build turns it into tw_report_template.h). The writer copies
 * it up to the "<!--TW:DATA-->" marker, then writes the data as inline
 * <script> blocks, then the rest:
 *
 *   tw-summary   the analysis results as tw_an_write_json writes them, with
 *                the finding groups but not every instance (strings escape
 *                '<', so no block can close the script early)
 *   tw-fi-*      every finding (instance), columnar, base64: its group,
 *                t0, t1 - t0, ns, across_gap (write_instances)
 *   tw-meta      lanes, event codes (name + marker), bin and detail facts
 *   tw-ev-*      detail events, columnar, base64: t (zigzag varint deltas,
 *                ns from t0), lane and object lane (uint16 LE), code (one
 *                byte: index into tw-meta's codes), aux (varint: index/value)
 *   tw-sg-*      detail intervals: t0 (zigzag varint deltas), dur (varint),
 *                lane, ref lane (uint16 LE), state (byte)
 *   tw-bin-*     per lane TW_REPORT_BINS busy fractions (a byte: 0 idle,
 *                1..255 busy 0..100 %) and event counts (varints), lane
 *                after lane
 *
 * Items arrive nearly in time order (interrupt entries are announced once
 * their irq is known, intervals when they end); the page sorts per lane.
 */
#include <stdlib.h>
#include <string.h>
#include "an_internal.h"
#include "tracewire/error.h"
#include "tracewire/analysis/report.h"
#include "tw_report_template.h"

#define NO_LANE 0xFFFFu
#define NCODES (32 * 16)

struct lane {
  int core;
  uint8_t kind;
  uint32_t num;
  float *busy;
  uint32_t *cnt;
};

#pragma pack(push, 1)
struct ev_rec {
  int64_t t;
  uint16_t lane, code, olane;
  uint32_t aux;
};
struct sg_rec {
  int64_t t0, t1;
  uint16_t lane, ref;
  uint8_t state;
};
#pragma pack(pop)

struct b64 {
  FILE *f;
  uint8_t in[3];
  int n;
  unsigned col;
  size_t len;
  char out[1 << 16];
};

struct tw_report {
  struct b64 b64;            /* the output encoder's buffer */
  struct tw_report_cfg cfg;
  double bin_w, bin_inv;    /* bin width (ns) and its inverse (a multiply per item) */
  FILE *ev, *sg;
  uint64_t nev, nsg, ev_over, sg_over;
  double detail_end;         /* time of the first event not embedded */
  struct lane *lanes;
  size_t nlanes, cap;
  uint16_t *hash;            /* open addressing: lane index + 1 */
  size_t hcap;
  uint8_t code_used[NCODES];
  uint8_t code_marker[NCODES];
  uint8_t code_index[NCODES]; /* code -> position in the page's code table */
  int err;
  /* the hot path's caches: the last lanes looked up (items come in runs
   * on a few lanes), and each event id's descriptor */
  struct { uint64_t key; uint16_t lane; } recent[64];
  const struct tw_event_desc *descs[NCODES / 16];
  uint8_t have_desc[NCODES / 16];
  struct { uint32_t key; uint16_t code; } codes[256]; /* (id, type) -> code, recent ones */
};

static uint64_t lane_key(int core, unsigned kind, uint32_t num)
{
  return (uint64_t)(unsigned)core << 40 | (uint64_t)kind << 32 | num;
}

static size_t hslot(uint64_t k, size_t cap)
{
  k ^= k >> 29;
  k *= 0xbf58476d1ce4e5b9ull;
  k ^= k >> 32;
  return (size_t)k & (cap - 1);
}

static int rehash(struct tw_report *r)
{
  size_t cap = r->hcap ? r->hcap * 2 : 256;
  uint16_t *h = calloc(cap, sizeof *h);
  if (!h)
    return -1;
  for (size_t i = 0; i < r->nlanes; i++) {
    size_t s = hslot(lane_key(r->lanes[i].core, r->lanes[i].kind, r->lanes[i].num), cap);
    while (h[s])
      s = (s + 1) & (cap - 1);
    h[s] = (uint16_t)(i + 1);
  }
  free(r->hash);
  r->hash = h;
  r->hcap = cap;
  return 0;
}

static uint16_t lane_lookup(struct tw_report *r, int core, unsigned kind, uint32_t num)
    __attribute__((noinline));

static inline uint16_t lane_of(struct tw_report *r, int core, unsigned kind, uint32_t num)
{
  uint64_t k = lane_key(core, kind, num) + 1; /* 0: an empty cache entry */
  size_t h = hslot(k, sizeof r->recent / sizeof r->recent[0]);
  uint16_t lane;
  if (r->recent[h].key == k)
    return r->recent[h].lane;
  lane = lane_lookup(r, core, kind, num);
  if (lane != NO_LANE) {
    r->recent[h].key = k;
    r->recent[h].lane = lane;
  }
  return lane;
}

static uint16_t lane_lookup(struct tw_report *r, int core, unsigned kind, uint32_t num)
{
  uint64_t k = lane_key(core, kind, num);
  if (r->hcap) {
    for (size_t s = hslot(k, r->hcap); r->hash[s]; s = (s + 1) & (r->hcap - 1)) {
      const struct lane *l = &r->lanes[r->hash[s] - 1];
      if (lane_key(l->core, l->kind, l->num) == k)
        return (uint16_t)(r->hash[s] - 1);
    }
  }
  if (r->nlanes >= 0xFFF0)
    return NO_LANE;
  if ((r->nlanes + 1) * 2 > r->hcap && rehash(r) < 0)
    return NO_LANE;
  if (r->nlanes == r->cap) {
    size_t n = r->cap ? r->cap * 2 : 64;
    struct lane *l = realloc(r->lanes, n * sizeof *l);
    if (!l)
      return NO_LANE;
    r->lanes = l;
    r->cap = n;
  }
  struct lane *l = &r->lanes[r->nlanes];
  l->core = core;
  l->kind = (uint8_t)kind;
  l->num = num;
  l->busy = calloc(TW_REPORT_BINS, sizeof *l->busy);
  l->cnt = calloc(TW_REPORT_BINS, sizeof *l->cnt);
  if (!l->busy || !l->cnt) {
    free(l->busy);
    free(l->cnt);
    return NO_LANE;
  }
  size_t s = hslot(k, r->hcap);
  while (r->hash[s])
    s = (s + 1) & (r->hcap - 1);
  r->hash[s] = (uint16_t)(r->nlanes + 1);
  return (uint16_t)r->nlanes++;
}

int tw_report_open(struct tw_report **out, const struct tw_report_cfg *cfg)
{
  struct tw_report *r = calloc(1, sizeof *r);
  if (!r)
    return TW_ENOMEM;
  r->cfg = *cfg;
  if (!r->cfg.max_detail)
    r->cfg.max_detail = 2000000;
  if (r->cfg.t1 <= r->cfg.t0)
    r->cfg.t1 = r->cfg.t0 + 1;
  r->bin_w = (double)(r->cfg.t1 - r->cfg.t0) / TW_REPORT_BINS;
  r->bin_inv = 1.0 / r->bin_w;
  r->detail_end = -1;
  r->ev = tmpfile();
  r->sg = tmpfile();
  if (!r->ev || !r->sg) {
    tw_report_close(r);
    return TW_EIO;
  }
  *out = r;
  return 0;
}

void tw_report_close(struct tw_report *r)
{
  if (!r)
    return;
  if (r->ev)
    fclose(r->ev);
  if (r->sg)
    fclose(r->sg);
  for (size_t i = 0; i < r->nlanes; i++) {
    free(r->lanes[i].busy);
    free(r->lanes[i].cnt);
  }
  free(r->lanes);
  free(r->hash);
  free(r);
}

/* Page times are ns from t0, saturated at +-REL_MAX (about 146 years) so
 * that the difference of any two (the varint deltas, the interval lengths)
 * fits an int64: a damaged timestamp near 2^64 ns once wrapped to a
 * negative time and overflowed the delta (docs/analyses.md, "Report"). */
#define REL_MAX (INT64_MAX / 2)

static int64_t rel(const struct tw_report *r, uint64_t t)
{
  uint64_t d = t >= r->cfg.t0 ? t - r->cfg.t0 : r->cfg.t0 - t;
  int64_t m = d > (uint64_t)REL_MAX ? REL_MAX : (int64_t)d;
  return t >= r->cfg.t0 ? m : -m;
}

static int bin_of(const struct tw_report *r, double t)
{
  double b = t * r->bin_inv;
  return b < 0 ? 0 : b >= TW_REPORT_BINS ? TW_REPORT_BINS - 1 : (int)b;
}

/* Busy fraction of [a, b) spread over the bins it covers. */
static void bin_busy(const struct tw_report *r, struct lane *l, double a, double b)
{
  if (b <= a)
    return;
  int i = bin_of(r, a), j = bin_of(r, b);
  for (int k = i; k <= j; k++) {
    double lo = k * r->bin_w, hi = lo + r->bin_w;
    double x = a > lo ? a : lo, y = b < hi ? b : hi;
    if (y > x)
      l->busy[k] += (float)((y - x) / r->bin_w);
  }
}

/* Event codes: id * 16 + which constant of the event's marker field its
 * type value is (1 + its index in the vocabulary's list), 0 for none (a
 * switch to a task). Events beyond the table share code 0. */
static int constant_of(const struct tw_event_desc *d, uint32_t value)
{
  for (uint8_t i = 0; d && i < d->nenums; i++)
    if (d->enums[i].value == value)
      return i + 1;
  return 0;
}

static uint16_t code_of(struct tw_report *r, const struct tw_an_item *it)
{
  int k;
  uint32_t key = (uint32_t)it->id << 16 ^ (it->type & 0xFFFFu), h;
  if (it->id >= NCODES / 16)
    return 0;
  h = (key * 0x9E3779B1u) >> 24; /* most events repeat a few (id, type): no search */
  if (r->codes[h].key == key + 1 && it->type <= 0xFFFFu)
    return r->codes[h].code;
  if (!r->have_desc[it->id]) {
    r->descs[it->id] = tw_event_desc_by_id(it->id);
    r->have_desc[it->id] = 1;
  }
  k = constant_of(r->descs[it->id], it->type);
  k = k < 16 ? it->id * 16 + k : 0;
  if (it->type <= 0xFFFFu) {
    r->codes[h].key = key + 1; /* 0: an empty entry */
    r->codes[h].code = (uint16_t)k;
  }
  return (uint16_t)k;
}

static void add_event(struct tw_report *r, const struct tw_an_item *it)
{
  int64_t t = rel(r, it->t);
  uint16_t lane = lane_of(r, it->core, it->lane_kind, it->lane);
  uint16_t olane = NO_LANE;
  if (it->obj_kind >= TW_OBJ_MUTEX && it->obj_kind <= TW_OBJ_RSEM &&
      !(it->lane_kind == it->obj_kind && it->lane == it->obj))
    olane = lane_of(r, it->core, it->obj_kind, it->obj);
  if (lane == NO_LANE)
    return;
  r->lanes[lane].cnt[bin_of(r, (double)t)]++;
  if (olane != NO_LANE)
    r->lanes[olane].cnt[bin_of(r, (double)t)]++;
  uint16_t code = code_of(r, it);
  r->code_used[code] = 1;
  r->code_marker[code] = (uint8_t)it->marker;
  if (r->nev >= r->cfg.max_detail) {
    if (!r->ev_over++ || (double)t < r->detail_end)
      r->detail_end = (double)t;
    return;
  }
  struct ev_rec e = {t, lane, code, olane, it->index}; /* aux: a multi object's input */
  if (fwrite(&e, sizeof e, 1, r->ev) != 1)
    r->err = TW_EIO;
  r->nev++;
}

static void add_interval(struct tw_report *r, const struct tw_an_item *it)
{
  uint16_t lane = lane_of(r, it->core, it->lane_kind, it->lane);
  if (lane == NO_LANE)
    return;
  int64_t a = rel(r, it->t), b = rel(r, it->t1);
  uint16_t ref = NO_LANE;
  uint8_t state = (uint8_t)it->state;
  if (it->kind == TW_AN_ITEM_IRQ)
    state = (uint8_t)(TW_AN_NSTATES + (it->depth > 1)); /* irq, nested irq */
  if (it->wait_kind && (it->state == TW_AN_BLOCKED || it->lane_kind == TW_OBJ_MUTEX))
    ref = lane_of(r, it->core, it->wait_kind, it->wait_obj);
  if (state == TW_AN_RUNNING || it->kind == TW_AN_ITEM_IRQ)
    bin_busy(r, &r->lanes[lane], (double)a, (double)b);
  if (r->nsg >= r->cfg.max_detail) {
    r->sg_over++;
    return;
  }
  struct sg_rec s = {a, b, lane, ref, state};
  if (fwrite(&s, sizeof s, 1, r->sg) != 1)
    r->err = TW_EIO;
  r->nsg++;
}

void tw_report_item(void *ctx, const struct tw_an_item *it)
{
  struct tw_report *r = ctx;
  if (it->kind == TW_AN_ITEM_EVENT)
    add_event(r, it);
  else
    add_interval(r, it);
}

/* ---- writing ------------------------------------------------------------------ */

static void b64_drain(struct b64 *b)
{
  fwrite(b->out, 1, b->len, b->f);
  b->len = 0;
}

static void b64_flush3(struct b64 *b)
{
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  uint32_t v = (uint32_t)b->in[0] << 16 | (uint32_t)b->in[1] << 8 | b->in[2];
  char *o = b->out + b->len;
  o[0] = tab[v >> 18 & 63];
  o[1] = tab[v >> 12 & 63];
  o[2] = b->n > 1 ? tab[v >> 6 & 63] : '=';
  o[3] = b->n > 2 ? tab[v & 63] : '=';
  b->len += 4;
  if ((b->col += 4) >= 120) {
    b->out[b->len++] = '\n';
    b->col = 0;
  }
  if (b->len > sizeof b->out - 8)
    b64_drain(b);
  b->n = 0;
  b->in[0] = b->in[1] = b->in[2] = 0;
}

static void b64_put(struct b64 *b, const void *p, size_t n)
{
  const uint8_t *s = p;
  for (size_t i = 0; i < n; i++) {
    b->in[b->n++] = s[i];
    if (b->n == 3)
      b64_flush3(b);
  }
}

static void b64_end(struct b64 *b)
{
  if (b->n)
    b64_flush3(b);
  b64_drain(b);
}

static void b64_init(struct b64 *b, FILE *f)
{
  b->f = f;
  b->n = 0;
  b->col = 0;
  b->len = 0;
  memset(b->in, 0, sizeof b->in);
}

/* How a column is written: raw little-endian bytes, zigzag varints of the
 * difference to the previous record's value (times), varints (small
 * unsigned values), the varint of t1 - t0 (interval lengths), or one byte
 * per event code (its index in the page's code table). Varints are LEB128:
 * 7 bits per byte, low first, high bit = more. */
enum col_enc { COL_RAW, COL_DELTA, COL_VARINT, COL_DUR, COL_CODE };

static void put_varint(struct b64 *b, uint64_t v)
{
  uint8_t o[10];
  size_t n = 0;
  do {
    o[n] = (uint8_t)(v & 0x7F);
    v >>= 7;
    if (v)
      o[n] |= 0x80;
    n++;
  } while (v);
  b64_put(b, o, n);
}

struct col {
  const char *id;
  enum col_enc enc;
  size_t off, width, off2;
};

static void col_value(struct tw_report *r, struct b64 *b, const struct col *c, const uint8_t *p,
                      int64_t *prev)
{
  int64_t x, y;
  uint32_t u = 0;
  uint16_t code;
  switch (c->enc) {
  case COL_RAW:
    b64_put(b, p + c->off, c->width);
    break;
  case COL_DELTA:
    memcpy(&x, p + c->off, 8);
    y = x - *prev; /* both within +-REL_MAX: cannot overflow */
    *prev = x;
    put_varint(b, ((uint64_t)y << 1) ^ (0u - ((uint64_t)y >> 63))); /* zigzag, no signed shift */
    break;
  case COL_VARINT:
    memcpy(&u, p + c->off, c->width);
    put_varint(b, u);
    break;
  case COL_DUR:
    memcpy(&x, p + c->off, 8);
    memcpy(&y, p + c->off2, 8);
    put_varint(b, y > x ? (uint64_t)(y - x) : 0);
    break;
  case COL_CODE:
    memcpy(&code, p + c->off, 2);
    b64_put(b, &r->code_index[code < NCODES ? code : 0], 1);
    break;
  }
}

/* One column of a spooled file as a base64 <script> block. */
static int column(struct tw_report *r, FILE *out, FILE *spool, size_t rec, const struct col *c)
{
  static uint8_t buf[4096 * 32]; /* one report at a time (report.h) */
  size_t n, per = sizeof buf / rec;
  int64_t prev = 0;
  struct b64 *b = &r->b64;
  b64_init(b, out);
  fprintf(out, "<script type=\"application/octet-stream\" id=\"%s\">\n", c->id);
  rewind(spool);
  while ((n = fread(buf, rec, per, spool)) > 0)
    for (size_t i = 0; i < n; i++)
      col_value(r, b, c, buf + i * rec, &prev);
  b64_end(b);
  fputs("</script>\n", out);
  return ferror(spool) ? TW_EIO : r->err;
}

static void write_meta(struct tw_report *r, const struct tw_an *an, FILE *out)
{
  char buf[128];
  fputs("<script type=\"application/json\" id=\"tw-meta\">{\"title\":", out);
  tw__an_jstr(out, r->cfg.title ? r->cfg.title : "trace");
  fprintf(out, ",\"nfi\":%zu", tw_an_nfindings(an));
  fprintf(out, ",\"t0\":%llu,\"t1\":%llu,\"bins\":%d,\"nev\":%llu,\"nsg\":%llu,"
               "\"ev_over\":%llu,\"sg_over\":%llu,\"detail_end\":%.0f,\"lanes\":[",
          (unsigned long long)r->cfg.t0, (unsigned long long)r->cfg.t1, TW_REPORT_BINS,
          (unsigned long long)r->nev, (unsigned long long)r->nsg,
          (unsigned long long)r->ev_over, (unsigned long long)r->sg_over, r->detail_end);
  for (size_t i = 0; i < r->nlanes; i++) {
    const struct lane *l = &r->lanes[i];
    int prio = -1;
    const char *name = tw_an_name(an, l->core, (enum tw_obj_kind)l->kind, l->num, buf, sizeof buf);
    const struct tw_rtos_core *mc = tw_rtos_core_at(tw_an_model(an), (size_t)l->core);
    const struct tw_rtos_task *t = l->kind == TW_OBJ_TASK && mc
                                       ? tw_rtos_task(tw_an_model(an), mc->endpoint, l->num) : NULL;
    if (t)
      prio = t->base_prio;
    fprintf(out, "%s{\"core\":%d,\"kind\":\"%s\",\"num\":%lld,\"prio\":%d,\"name\":", i ? "," : "",
            l->core, tw_obj_kind_name((enum tw_obj_kind)l->kind),
            l->num == TW_AN_IRQ_UNKNOWN ? -1ll : (long long)l->num, prio);
    tw__an_jstr(out, name); /* the target's: repaired, no `<` */
    fputc('}', out);
  }
  fputs("],\"codes\":[", out);
  int first = 1;
  unsigned idx = 0;
  for (unsigned c = 0; c < NCODES; c++) {
    if (!r->code_used[c])
      continue;
    r->code_index[c] = (uint8_t)idx++;
    unsigned id = c / 16, k = c % 16;
    const struct tw_event_desc *d = tw_event_desc_by_id((uint16_t)id);
    const char *tn = d && k && k <= d->nenums ? d->enums[k - 1].name : NULL;
    fprintf(out, "%s[\"%s\",\"%s\",\"%s\"]", first ? "" : ",", d ? d->name : "?",
            tn ? tn : "", tw_marker_name((enum tw_marker)r->code_marker[c]));
    first = 0;
  }
  fputs("],\"states\":[\"unknown\",\"running\",\"ready\",\"blocked\",\"suspended\",\"irq\","
        "\"irq_nested\"]}</script>\n", out);
}

/* Bins: busy fraction quantised to a byte (1/255 is finer than a pixel's
 * shade), counts as varints (mostly one byte: zoomed-out lanes are sparse). */
static int write_bins(struct tw_report *r, FILE *out)
{
  struct b64 *b = &r->b64;
  b64_init(b, out);
  fputs("<script type=\"application/octet-stream\" id=\"tw-bin-busy\">\n", out);
  for (size_t i = 0; i < r->nlanes; i++)
    for (int k = 0; k < TW_REPORT_BINS; k++) {
      float f = r->lanes[i].busy[k];
      uint8_t q = (uint8_t)(f <= 0 ? 0 : f >= 1 ? 255 : f * 254.0f + 1.0f);
      b64_put(b, &q, 1);
    }
  b64_end(b);
  fputs("</script>\n<script type=\"application/octet-stream\" id=\"tw-bin-cnt\">\n", out);
  b64_init(b, out);
  for (size_t i = 0; i < r->nlanes; i++)
    for (int k = 0; k < TW_REPORT_BINS; k++)
      put_varint(b, r->lanes[i].cnt[k]);
  b64_end(b);
  fputs("</script>\n", out);
  return 0;
}

/* Every finding, columnar (the page lists them under their group and
 * zooms to any): group (varint), t0 (zigzag varint delta, page time),
 * t1 - t0 (varint), ns (varint), across_gap (a byte). */
static void write_instances(struct tw_report *r, const struct tw_an *an, FILE *out)
{
  static const char *const ids[] = {"tw-fi-group", "tw-fi-t0", "tw-fi-dur", "tw-fi-ns", "tw-fi-gap"};
  struct b64 *b = &r->b64;
  size_t n = tw_an_nfindings(an);
  for (size_t c = 0; c < sizeof ids / sizeof ids[0]; c++) {
    int64_t prev = 0;
    b64_init(b, out);
    fprintf(out, "<script type=\"application/octet-stream\" id=\"%s\">\n", ids[c]);
    for (size_t i = 0; i < n; i++) {
      const struct tw_an_finding *f = tw_an_finding_at(an, i);
      size_t g = tw_an_finding_group(an, i);
      int64_t t0 = rel(r, f->t0), t1 = rel(r, f->t1), d;
      uint8_t gap = f->across_gap != 0;
      switch (c) {
      case 0: put_varint(b, g == SIZE_MAX ? 0 : g); break;
      case 1:
        d = t0 - prev; /* both within +-REL_MAX: cannot overflow */
        prev = t0;
        put_varint(b, ((uint64_t)d << 1) ^ (0u - ((uint64_t)d >> 63)));
        break;
      case 2: put_varint(b, t1 > t0 ? (uint64_t)(t1 - t0) : 0); break;
      case 3: put_varint(b, f->ns); break;
      default: b64_put(b, &gap, 1);
      }
    }
    b64_end(b);
    fputs("</script>\n", out);
  }
}

_Static_assert(sizeof(struct ev_rec) == 18 && sizeof(struct sg_rec) == 21, "packed spool records");

int tw_report_write(struct tw_report *r, const struct tw_an *an, FILE *out)
{
  static const char marker[] = "<!--TW:DATA-->";
  const char *tpl = (const char *)tw_report_template;
  const char *cut = strstr(tpl, marker);
  int rc = 0;
  if (!cut)
    return TW_EINVAL;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error "the page reads the typed arrays as little-endian"
#endif
  fwrite(tpl, 1, (size_t)(cut - tpl), out);
  fputs("<script type=\"application/json\" id=\"tw-summary\">", out);
  tw__an_write_json(an, out, 0); /* the groups; the instances follow, columnar (write
                                    errors: ferror below; the engine's own: tw_an_error) */
  fputs("</script>\n", out);
  write_meta(r, an, out);
  write_instances(r, an, out);
  fflush(r->ev);
  fflush(r->sg);
  static const struct col evc[] = {
    {"tw-ev-t", COL_DELTA, offsetof(struct ev_rec, t), 8, 0},
    {"tw-ev-lane", COL_RAW, offsetof(struct ev_rec, lane), 2, 0},
    {"tw-ev-code", COL_CODE, offsetof(struct ev_rec, code), 2, 0},
    {"tw-ev-olane", COL_RAW, offsetof(struct ev_rec, olane), 2, 0},
    {"tw-ev-aux", COL_VARINT, offsetof(struct ev_rec, aux), 4, 0}};
  static const struct col sgc[] = {
    {"tw-sg-t0", COL_DELTA, offsetof(struct sg_rec, t0), 8, 0},
    {"tw-sg-dur", COL_DUR, offsetof(struct sg_rec, t0), 8, offsetof(struct sg_rec, t1)},
    {"tw-sg-lane", COL_RAW, offsetof(struct sg_rec, lane), 2, 0},
    {"tw-sg-ref", COL_RAW, offsetof(struct sg_rec, ref), 2, 0},
    {"tw-sg-state", COL_RAW, offsetof(struct sg_rec, state), 1, 0}};
  for (size_t i = 0; !rc && i < sizeof evc / sizeof evc[0]; i++)
    rc = column(r, out, r->ev, sizeof(struct ev_rec), &evc[i]);
  for (size_t i = 0; !rc && i < sizeof sgc / sizeof sgc[0]; i++)
    rc = column(r, out, r->sg, sizeof(struct sg_rec), &sgc[i]);
  rc = rc ? rc : write_bins(r, out);
  fputs(cut + sizeof marker - 1, out);
  if (!rc && (ferror(out) || fflush(out) != 0))
    rc = TW_EIO;
  return rc;
}
