/*
 * Perfetto native trace (.perfetto-trace), written as Perfetto draws
 * schedulers (docs/exporters.md, "Perfetto"). The protobuf encoding is
 * written here (pbuf.h) from the field numbers of perfetto_trace.proto;
 * no code is generated.
 *
 * The file is a Trace: a run of field 1, each a TracePacket, on three
 * trusted packet sequences:
 *   1  tracks and track events: process, thread and counter descriptors,
 *      the events as instants on their task's thread track (or their
 *      core's "cpuN events" track), counters, lost-event slices, flows;
 *   2  ftrace (perfetto_sched.c): per CPU FtraceEventBundles with the
 *      context switches and wake-ups in their compact form, interrupts
 *      and blocked reasons;
 *   3  thread states ftrace cannot say (perfetto_sched.c): a task that is
 *      not running becomes blocked, suspended, deleted or unknown.
 * Compactness, measured on the 2 GiB synthetic trace of issue 16:
 *   - timestamps on sequences 1 and 3 are deltas on an incremental clock
 *     in microseconds (64) or nanoseconds (65) declared by a
 *     ClockSnapshot against BOOTTIME; a packet that would go back in time
 *     carries its absolute BOOTTIME timestamp instead;
 *   - every repeated string is interned: event names, categories (the
 *     vocabulary's marker), argument names, kernel symbols (what a task
 *     blocks on), thread names per bundle;
 *   - an instant's name carries what identifies it ("SemEventTask Take sem
 *     1 adc_ready": kind, constant, objects, by name) so only its other
 *     fields are arguments, and the task is its track;
 *   - track uuids are small (timeline.c), switches and wake-ups are packed
 *     arrays in bundles of thousands.
 * Strings are written as valid UTF-8: invalid bytes become U+FFFD, valid
 * ones are kept.
 *
 * Memory: the interning tables (bounded; names beyond them are written
 * inline), one bundle per CPU, a 1 MiB output buffer, the timeline.
 */
#include <stdlib.h>
#include <string.h>
#include "perfetto_internal.h"
#include "text.h"

#define PF_OUT_FLUSH (1u << 20)
#define PF_MAX_NAMES (1u << 18)
#define PF_VOCAB_FIELDS 16u /* fields of a vocabulary kind with an argument-name slot */

/* An event name: the kind, its constant and the objects it names. The
 * key is what the event says (its marker-field value, its object
 * fields' values and whether its task is its track); the name also
 * depends on the objects' names, kept to see a rename. */
#define PF_NFOLD 3
struct pf_nent {
  const struct tw_event_desc *d;
  uint32_t v[PF_NFOLD + 1];
  uint16_t ep;
  uint8_t on_task;
  uint16_t fold;               /* bit i: field i is in the name */
  const char *src[PF_NFOLD];   /* the model's object names it was made from */
  uint64_t iid;                /* 0: free slot */
  uint64_t gen;                /* the model's names (tw__tl_names) when src was last seen */
  uint16_t args;               /* bit i: field i (< 16) is an argument */
  uint8_t marker;              /* the category hdr holds */
  uint8_t nhdr;
  uint8_t hdr[8];              /* name_iid and category_iids, encoded */
};

/* Which fields of a vocabulary kind go into its name key: the object
 * fields but the marker field (and the task field when the task is the
 * track), worked out once per kind rather than per event. */
struct pf_kplan {
  uint8_t ready, n;
  uint8_t f[PF_NFOLD];
  uint16_t fold;
};

/* An argument name: a field of a kind. */
struct pf_dent {
  const struct tw_event_desc *d;
  uint32_t field;
  char *name;    /* a custom kind's (redeclaring the kind may rename it) */
  uint64_t iid;
};

int tw__pf_oom(struct pf *pf)
{
  return tw__export_fail(pf->x, TW_ENOMEM, "out of memory");
}

/* ---- output ------------------------------------------------------------------ */

static void flush_out(struct pf *pf)
{
  if (pf->out.n && pf->w.f && !pf->x->err &&
      fwrite(pf->out.p, 1, pf->out.n, pf->w.f) != pf->out.n)
    tw__export_fail(pf->x, TW_EIO, "%s: write failed", pf->w.path);
  pf->out.n = 0;
}

uint8_t *tw__pf_room(struct pf *pf, size_t need)
{
  if (pf->out.n >= PF_OUT_FLUSH)
    flush_out(pf);
  if (pb_room(&pf->out, need) < 0) {
    tw__pf_oom(pf);
    return NULL;
  }
  return pf->out.p;
}

void tw__pf_packet(struct pf *pf, const struct pbuf *b)
{
  if (b->err) {
    tw__pf_oom(pf);
    return;
  }
  if (!tw__pf_room(pf, b->n + 16))
    return;
  pb_bytes(&pf->out, TRACE_PACKET, b->p, b->n);
}

/* Deltas on the sequence's microsecond clock when ts is a whole
 * microsecond, else on its nanosecond clock; a step back (another core's
 * event written later, a sample for a past window) is absolute. */
void tw__pf_timestamp(struct pf *pf, struct pbuf *b, int seq, uint64_t ts)
{
  uint64_t us = ts / 1000;
  uint8_t *p = b->p + b->n;
  if (ts == us * 1000 && us >= pf->last_us[seq]) {
    *p++ = TP_TIMESTAMP << 3 | PB_VARINT;
    p = pb_varint_at(p, us - pf->last_us[seq]);
    pf->last_us[seq] = us;
  } else if (ts >= pf->last_ns[seq]) {
    *p++ = TP_TIMESTAMP << 3 | PB_VARINT;
    p = pb_varint_at(p, ts - pf->last_ns[seq]);
    *p++ = (uint8_t)(TP_CLOCK_ID << 3 | PB_VARINT | 0x80); /* field 58: a two-byte tag */
    *p++ = (uint8_t)(TP_CLOCK_ID >> 4);
    *p++ = CLOCK_NS;
    pf->last_ns[seq] = ts;
  } else {
    *p++ = TP_TIMESTAMP << 3 | PB_VARINT;
    p = pb_varint_at(p, ts);
    *p++ = (uint8_t)(TP_CLOCK_ID << 3 | PB_VARINT | 0x80);
    *p++ = (uint8_t)(TP_CLOCK_ID >> 4);
    *p++ = CLOCK_BOOTTIME;
  }
  b->n = (size_t)(p - b->p);
}

/* The first packet of a timestamped sequence: clears its incremental
 * state, makes the microsecond clock the default and declares both
 * incremental clocks, at 0 with BOOTTIME at 0. */
static void seq_start(struct pf *pf, int seq)
{
  struct pbuf *b = &pf->tmp;
  size_t cs, ck, d;
  b->n = 0;
  if (pb_room(b, 128) < 0) {
    tw__pf_oom(pf);
    return;
  }
  pb_uint(b, TP_SEQ_ID, (uint64_t)seq);
  pb_uint(b, TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
  d = pb_open(b, TP_DEFAULTS);
  pb_uint(b, TPD_CLOCK_ID, CLOCK_US);
  pb_close(b, d);
  cs = pb_open(b, TP_CLOCK_SNAPSHOT);
  ck = pb_open(b, CS_CLOCKS);
  pb_uint(b, CK_ID, CLOCK_BOOTTIME);
  pb_uint(b, CK_TIMESTAMP, 0);
  pb_close(b, ck);
  ck = pb_open(b, CS_CLOCKS);
  pb_uint(b, CK_ID, CLOCK_US);
  pb_uint(b, CK_TIMESTAMP, 0);
  pb_uint(b, CK_INCREMENTAL, 1);
  pb_uint(b, CK_UNIT_NS, 1000);
  pb_close(b, ck);
  ck = pb_open(b, CS_CLOCKS);
  pb_uint(b, CK_ID, CLOCK_NS);
  pb_uint(b, CK_TIMESTAMP, 0);
  pb_uint(b, CK_INCREMENTAL, 1);
  pb_close(b, ck);
  pb_close(b, cs);
  tw__pf_packet(pf, b);
}

/* ---- strings ------------------------------------------------------------------ */

static char *scratch(struct pf *pf, size_t n)
{
  char *s = tw__buf_at_least(&pf->scratch, &pf->scratch_cap, n);
  if (!s)
    tw__pf_oom(pf);
  return s;
}

/* Valid UTF-8 as every format writes it (text.h: each maximal ill-formed
 * subpart one U+FFFD), in pf's scratch; s itself when it already is. */
const char *tw__pf_utf8(struct pf *pf, const char *s, size_t n, size_t *out_len)
{
  size_t len = tw__utf8_fix_len(s, n);
  char *d;
  if (len == n) {
    *out_len = n;
    return s;
  }
  if (!(d = scratch(pf, len + 1))) {
    *out_len = 0;
    return "";
  }
  *out_len = tw__utf8_fix_to(d, s, n);
  return d;
}

static void put_str(struct pf *pf, struct pbuf *b, unsigned field, const char *s, size_t n)
{
  size_t len;
  const char *v = tw__pf_utf8(pf, s, n, &len);
  if (pb_room(b, len + 16) < 0)
    return;
  pb_bytes(b, field, v, len);
}

/* ---- interning ------------------------------------------------------------------ */

static uint64_t mix(uint64_t h, uint64_t v)
{
  h ^= v * 0x9E3779B97F4A7C15ull;
  return (h ^ h >> 31) * 0xFF51AFD7ED558CCDull;
}

/* An InternedData entry (iid, string) under field k, into this packet's. */
static void intern_entry(struct pf *pf, unsigned k, uint64_t iid, const char *s, size_t n)
{
  size_t at, len;
  const char *v = tw__pf_utf8(pf, s, n, &len);
  if (pb_room(&pf->in, len + 32) < 0) {
    tw__pf_oom(pf);
    return;
  }
  at = pb_open(&pf->in, k);
  pb_uint(&pf->in, IN_IID, iid);
  pb_bytes(&pf->in, IN_NAME, v, len);
  pb_close(&pf->in, at);
}

static int grow_table(struct pf *pf, void *tabp, size_t *cap, size_t n, size_t elem,
                      uint64_t (*hash)(const void *), uint64_t (*iid_of)(const void *))
{
  char **tab = tabp, *t;
  size_t nc = *cap ? *cap * 2 : 256;
  if (2 * (n + 1) <= *cap)
    return 0;
  if (!(t = calloc(nc, elem)))
    return tw__pf_oom(pf);
  for (size_t i = 0; i < *cap; i++) {
    const char *e = *tab + i * elem;
    if (iid_of(e)) {
      size_t j = (size_t)hash(e) & (nc - 1);
      while (iid_of(t + j * elem))
        j = (j + 1) & (nc - 1);
      memcpy(t + j * elem, e, elem);
    }
  }
  free(*tab);
  *tab = t;
  *cap = nc;
  return 0;
}

static uint64_t nkey_hash(const void *p)
{
  const struct pf_nent *e = p;
  /* every field reaches the low bits, which pick the slot (the table is
   * small): each product's high half is folded down before the next */
  uint64_t h = ((uint64_t)(uintptr_t)e->d ^ ((uint64_t)e->v[0] << 32 | (uint64_t)e->on_task << 16 |
                                             e->ep)) * 0x9E3779B97F4A7C15ull;
  h = (h ^ h >> 32 ^ ((uint64_t)e->v[1] << 32 | e->v[2])) * 0xD6E8FEB86659FD93ull;
  h = (h ^ h >> 32 ^ e->v[3]) * 0x9E3779B97F4A7C15ull;
  return h ^ h >> 32;
}

static uint64_t nent_iid(const void *p) { return ((const struct pf_nent *)p)->iid; }

static uint64_t dkey_hash(const void *p)
{
  const struct pf_dent *e = p;
  return mix((uint64_t)(uintptr_t)e->d, e->field);
}

static uint64_t dent_iid(const void *p) { return ((const struct pf_dent *)p)->iid; }

/* Name text is built in its own buffer: sanitising uses the scratch. */
static char *name_buf(struct pf *pf, size_t n)
{
  char *s = tw__buf_at_least(&pf->nbuf, &pf->nbuf_cap, n);
  if (!s)
    tw__pf_oom(pf);
  return s;
}

/* The text of an event's name (see the top of the file). */
static const char *name_text(struct pf *pf, const struct tw_rtos_change *ch, const char *k,
                             const struct pf_nent *key, size_t *len)
{
  const struct tw_event_desc *d = ch->ev->desc;
  const char *seed = d->seed_name ? d->seed_name : d->name;
  size_t cap = strlen(seed) + (k ? strlen(k) + 1 : 0) + 1, n;
  unsigned j;
  char *s;
  for (j = 0; j < PF_NFOLD; j++)
    cap += 32 + (key->src[j] ? strlen(key->src[j]) + 1 : 0);
  if (!(s = name_buf(pf, cap)))
    return NULL;
  n = (size_t)snprintf(s, cap, "%s%s%s", seed, k ? " " : "", k ? k : "");
  j = 0;
  for (unsigned i = 0; i < d->nfields && i < 16; i++) {
    const struct tw_field_desc *f = &d->fields[i];
    if (!(key->fold >> i & 1) || (int)i == d->marker_field)
      continue;
    if (f->obj == TW_OBJ_OBJKIND)
      n += (size_t)snprintf(s + n, cap - n, " %s",
                            tw_obj_kind_name((enum tw_obj_kind)key->v[1 + j]));
    else
      n += (size_t)snprintf(s + n, cap - n, " %s %u%s%s", tw_obj_kind_name(f->obj), key->v[1 + j],
                            key->src[j] ? " " : "", key->src[j] ? key->src[j] : "");
    j++;
  }
  *len = n;
  return s;
}

/* The key of the event's name: fold holds the object fields that go
 * into it (the marker field's bit is added once its constant is known).
 * The objects' names (src) are looked up by name_sources, only when the
 * model's names changed since the entry was made: a lookup per field and
 * event was the largest share of an instant's cost. */
static void name_key(const struct tw_rtos_change *ch, int on_task, struct pf_nent *key)
{
  const struct tw_event *ev = ch->ev;
  const struct tw_event_desc *d = ev->desc;
  const struct tw_meaning *mn = ch->meaning;
  int skip = on_task && mn ? mn->task_field : -1;
  unsigned j = 0, fold = 0, n = d->nfields < 16 ? d->nfields : 16;
  key->d = d;
  key->ep = ev->endpoint;
  key->on_task = (uint8_t)on_task;
  key->v[0] = d->marker_field >= 0 && (unsigned)d->marker_field < ev->nvalues
                  ? ev->values[d->marker_field] : 0;
  key->v[1] = key->v[2] = key->v[3] = 0;
  for (unsigned i = 0; i < n && j < PF_NFOLD; i++) {
    if (d->fields[i].obj == TW_OBJ_NONE || (int)i == d->marker_field || (int)i == skip)
      continue;
    fold |= 1u << i;
    key->v[1 + j++] = i < ev->nvalues ? ev->values[i] : 0;
  }
  key->fold = (uint16_t)fold;
}

/* name_key by a plan: per meaning row and track (the row fixes the task
 * field), or per vocabulary kind for an event that means nothing. */
static inline void name_key_fast(struct pf *pf, const struct tw_rtos_change *ch, int on_task,
                                 struct pf_nent *key)
{
  const struct tw_event *ev = ch->ev;
  const struct tw_event_desc *d = ev->desc;
  const struct tw_meaning *mn = ch->meaning;
  size_t vi = (size_t)(d - tw_event_descs), k;
  struct pf_kplan *kp;
  if (mn)
    k = mn->row < tw_nmeanings ? (size_t)mn->row * 2 + (unsigned)on_task : SIZE_MAX;
  else
    k = d >= tw_event_descs && vi < tw_event_ndescs ? (tw_nmeanings + vi) * 2 : SIZE_MAX;
  if (k == SIZE_MAX || !pf->kplan) {
    name_key(ch, on_task, key);
    return;
  }
  kp = &pf->kplan[k];
  if (__builtin_expect(!kp->ready, 0)) {
    name_key(ch, on_task, key);
    kp->fold = key->fold;
    kp->n = 0;
    for (unsigned i = 0; i < 16; i++)
      if (key->fold >> i & 1)
        kp->f[kp->n++] = (uint8_t)i;
    kp->ready = 1;
    return;
  }
  key->d = d;
  key->ep = ev->endpoint;
  key->on_task = (uint8_t)on_task;
  key->v[0] = d->marker_field >= 0 && (unsigned)d->marker_field < ev->nvalues
                  ? ev->values[d->marker_field] : 0;
  key->v[1] = key->v[2] = key->v[3] = 0;
  for (unsigned j = 0; j < kp->n; j++)
    key->v[1 + j] = kp->f[j] < ev->nvalues ? ev->values[kp->f[j]] : 0;
  key->fold = kp->fold;
}

/* The model's names of the objects in key (fold and v set). */
static void name_sources(struct pf *pf, const struct tw_rtos_change *ch, struct pf_nent *key)
{
  const struct tw_event_desc *d = key->d;
  const struct tw_meaning *mn = ch->meaning;
  unsigned j = 0;
  key->src[0] = key->src[1] = key->src[2] = NULL;
  for (unsigned i = 0; i < d->nfields && i < 16 && j < PF_NFOLD; i++) {
    const struct tw_field_desc *f = &d->fields[i];
    if (!(key->fold >> i & 1) || (int)i == d->marker_field)
      continue;
    if (f->obj == TW_OBJ_OBJKIND)
      key->src[j] = NULL;
    else if (ch->obj && mn && (int)i == mn->obj_field)
      key->src[j] = ch->obj->name;
    else
      key->src[j] = tw_rtos_name(pf->m, key->ep, f->obj, key->v[1 + j]);
    j++;
  }
}

/* The constant the marker field names, and its bit in fold; NULL when
 * the value is no constant (then it is an argument). */
static const char *name_constant(const struct tw_rtos_change *ch, struct pf_nent *key)
{
  const struct tw_event_desc *d = ch->ev->desc;
  const char *k;
  if (d->marker_field < 0 || d->marker_field >= 16 ||
      (unsigned)d->marker_field >= ch->ev->nvalues ||
      !(k = tw_event_enum_name(d, key->v[0])))
    return NULL;
  key->fold |= (uint16_t)(1u << d->marker_field);
  return k;
}

static uint64_t category(struct pf *pf, enum tw_marker mk);

/* Which fields (< 16) of the event are arguments: those its name does not
 * hold, but the task of an event on its task's track. */
static uint16_t arg_fields(const struct tw_rtos_change *ch, unsigned fold, int on_task)
{
  const struct tw_event_desc *d = ch->ev->desc;
  int skip = on_task && ch->meaning ? ch->meaning->task_field : -1;
  unsigned args = 0;
  for (unsigned i = 0; i < d->nfields && i < 16; i++)
    if (!(fold >> i & 1) && (int)i != skip)
      args |= 1u << i;
  return (uint16_t)args;
}

/* The encoded name_iid and category of an entry (its category interned
 * in this packet when new). */
static void entry_hdr(struct pf *pf, struct pf_nent *e, enum tw_marker mk)
{
  uint8_t *p = e->hdr;
  *p++ = TE_NAME_IID << 3 | PB_VARINT;
  p = pb_varint_at(p, e->iid);
  if (mk != TW_MARKER_NONE && mk < TW_MARKER_COUNT) {
    *p++ = TE_CATEGORY_IIDS << 3 | PB_VARINT;
    p = pb_varint_at(p, category(pf, mk));
  }
  e->marker = (uint8_t)mk;
  e->nhdr = (uint8_t)(p - e->hdr);
}

/* The entry of the event's name, or NULL when the table is full (the
 * name is then written inline). */
static const struct pf_nent *event_name(struct pf *pf, const struct tw_rtos_change *ch,
                                        int on_task)
{
  struct pf_nent key, *e;
  const char *k, *s;
  size_t i, len;
  uint64_t gen = tw__tl_names(pf->tl);
  name_key_fast(pf, ch, on_task, &key);
  if (__builtin_expect(pf->nnames * 2 + 2 > pf->capnames, 0) &&
      grow_table(pf, &pf->names, &pf->capnames, pf->nnames, sizeof *pf->names, nkey_hash,
                 nent_iid) < 0)
    return NULL;
  for (i = (size_t)nkey_hash(&key) & (pf->capnames - 1); (e = &pf->names[i])->iid;
       i = (i + 1) & (pf->capnames - 1))
    if (e->d == key.d && e->v[0] == key.v[0] && e->v[1] == key.v[1] && e->v[2] == key.v[2] &&
        e->v[3] == key.v[3] && e->ep == key.ep && e->on_task == key.on_task) {
      if (__builtin_expect(e->gen == gen, 1))
        return e;
      name_sources(pf, ch, &key);
      if (e->src[0] == key.src[0] && e->src[1] == key.src[1] && e->src[2] == key.src[2]) {
        e->gen = gen; /* no object of its name was renamed */
        return e;
      }
      break; /* an object was renamed: a new name */
    }
  name_sources(pf, ch, &key);
  k = name_constant(ch, &key);
  if (!e->iid && pf->nnames >= PF_MAX_NAMES)
    return NULL;
  if (!(s = name_text(pf, ch, k, &key, &len)))
    return NULL;
  if (!e->iid)
    pf->nnames++;
  key.iid = ++pf->next_iid[ID_EVENT_NAMES];
  key.gen = gen;
  key.args = arg_fields(ch, key.fold, on_task);
  *e = key;
  intern_entry(pf, ID_EVENT_NAMES, e->iid, s, len);
  entry_hdr(pf, e, ch->marker);
  return e;
}

/* The name of an argument the exporter adds itself ("time"). */
static uint64_t own_arg_name(struct pf *pf, uint64_t *iid, const char *name)
{
  if (!*iid) {
    *iid = ++pf->next_iid[ID_DEBUG_NAMES];
    intern_entry(pf, ID_DEBUG_NAMES, *iid, name, strlen(name));
  }
  return *iid;
}

/* An argument's name: the vocabulary's field name, or a custom kind's
 * made valid and unique (the timeline's, as JSON writes them). */
static uint64_t arg_name(struct pf *pf, const struct tw_event_desc *d, unsigned field,
                         const char *const *custom)
{
  struct pf_dent key = {d, field, NULL, 0}, *e;
  const char *name = custom ? custom[field] : d->fields[field].name;
  size_t i, vi = (size_t)(d - tw_event_descs);
  /* the vocabulary's kinds: straight from a table by descriptor and field */
  if (!custom && d >= tw_event_descs && vi < tw_event_ndescs && field < PF_VOCAB_FIELDS) {
    uint64_t *slot;
    if (!pf->vocab_args && !(pf->vocab_args = calloc(tw_event_ndescs * PF_VOCAB_FIELDS,
                                                      sizeof *pf->vocab_args))) {
      tw__pf_oom(pf);
      return 0;
    }
    slot = &pf->vocab_args[vi * PF_VOCAB_FIELDS + field];
    return *slot ? *slot : own_arg_name(pf, slot, name);
  }
  if (pf->ndnames * 2 + 2 > pf->capdnames &&
      grow_table(pf, &pf->dnames, &pf->capdnames, pf->ndnames, sizeof *pf->dnames, dkey_hash,
                 dent_iid) < 0)
    return 0;
  for (i = (size_t)dkey_hash(&key) & (pf->capdnames - 1); (e = &pf->dnames[i])->iid;
       i = (i + 1) & (pf->capdnames - 1))
    if (e->d == d && e->field == field) {
      if (!custom || !strcmp(e->name, name))
        return e->iid;
      break; /* the kind was declared again with other names */
    }
  if (!e->iid)
    pf->ndnames++;
  free(e->name);
  if (custom && !(key.name = strdup(name))) {
    tw__pf_oom(pf);
    return 0;
  }
  key.iid = ++pf->next_iid[ID_DEBUG_NAMES];
  *e = key;
  intern_entry(pf, ID_DEBUG_NAMES, e->iid, name, strlen(name));
  return e->iid;
}

static uint64_t category(struct pf *pf, enum tw_marker mk)
{
  if (!pf->cat_iid[mk]) {
    const char *s = tw_marker_name(mk);
    pf->cat_iid[mk] = ++pf->next_iid[ID_CATEGORIES];
    intern_entry(pf, ID_CATEGORIES, pf->cat_iid[mk], s, strlen(s));
  }
  return pf->cat_iid[mk];
}

/* ---- track events ----------------------------------------------------------------- */

/* A track event is written straight into the output: the packet, its
 * timestamp and sequence, the event's type and track; the caller adds
 * its fields to pf->out, te_end closes it and appends the interned data
 * the event introduced (a packet's fields come in any order; readers take
 * its interned data before its payload). Tens of millions a second: the
 * room is reserved once (PF_TE_ROOM: the event's own fields and its
 * arguments reserve theirs), the bytes that never change are copied. */
#define PF_TE_ROOM 256
static inline struct pbuf *te_begin(struct pf *pf, unsigned type, uint64_t track, uint64_t ts)
{
  /* sequence, its flags, then the track event's tag */
  static const uint8_t head[5] = {TP_SEQ_ID << 3 | PB_VARINT, PF_SEQ_TRACK,
                                  TP_SEQ_FLAGS << 3 | PB_VARINT, SEQ_NEEDS_INCREMENTAL_STATE,
                                  TP_TRACK_EVENT << 3 | PB_LEN};
  struct pbuf *o = &pf->out;
  uint8_t *p;
  if (__builtin_expect(o->n >= PF_OUT_FLUSH || o->n + PF_TE_ROOM > o->cap, 0) &&
      !tw__pf_room(pf, PF_TE_ROOM))
    return NULL;
  p = o->p + o->n;
  *p++ = TRACE_PACKET << 3 | PB_LEN;
  pf->pkt_at = (size_t)(p - o->p);
  *p++ = 0;
  o->n = (size_t)(p - o->p);
  tw__pf_timestamp(pf, o, PF_SEQ_TRACK, ts);
  p = o->p + o->n;
  memcpy(p, head, sizeof head);
  p += sizeof head;
  pf->te_at = (size_t)(p - o->p);
  *p++ = 0;
  *p++ = TE_TYPE << 3 | PB_VARINT;
  *p++ = (uint8_t)type;
  *p++ = TE_TRACK << 3 | PB_VARINT;
  o->n = (size_t)(pb_varint_at(p, track) - o->p);
  return o;
}

static inline void te_end(struct pf *pf)
{
  struct pbuf *o = &pf->out;
  if (__builtin_expect(pf->in.n != 0 || pf->in.err, 0)) {
    if (pf->in.err || pb_room(o, pf->in.n + 32) < 0) {
      tw__pf_oom(pf);
      return;
    }
    pb_close(o, pf->te_at);
    pb_bytes(o, TP_INTERNED, pf->in.p, pf->in.n);
    pf->in.n = 0;
  } else {
    pb_close(o, pf->te_at);
  }
  pb_close(o, pf->pkt_at);
}

/* A packet with no timestamp on the track sequence (descriptors). */
static void plain_packet(struct pf *pf, unsigned field, const struct pbuf *body)
{
  struct pbuf *o;
  size_t at;
  if (body->err) {
    tw__pf_oom(pf);
    return;
  }
  if (!tw__pf_room(pf, body->n + 32))
    return;
  o = &pf->out;
  at = pb_open(o, TRACE_PACKET);
  pb_uint(o, TP_SEQ_ID, PF_SEQ_TRACK);
  pb_uint(o, TP_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
  pb_bytes(o, field, body->p, body->n);
  pb_close(o, at);
}

/* Processes and threads also go into a ProcessTree: the tid -> pid link
 * the ftrace data needs does not wait for a thread's first track event. */
static void process_tree(struct pf *pf, const struct tl_track *t)
{
  struct pbuf *b = &pf->tmp;
  size_t e;
  b->n = 0;
  if (pb_room(b, 64) < 0)
    return;
  if (t->kind == TL_PROCESS) {
    e = pb_open(b, PT_PROCESSES);
    pb_uint(b, PTP_PID, (uint32_t)t->pid);
    put_str(pf, b, PTP_CMDLINE, t->name, strlen(t->name));
  } else {
    e = pb_open(b, PT_THREADS);
    pb_uint(b, PTT_TID, (uint32_t)t->tid);
    pb_uint(b, PTT_TGID, (uint32_t)t->pid);
    put_str(pf, b, PTT_NAME, t->name, strlen(t->name));
  }
  if (pb_room(b, 16) < 0)
    return;
  pb_close(b, e);
  plain_packet(pf, TP_PROCESS_TREE, b);
}

static void on_track(void *bk, const struct tl_track *t)
{
  struct pf *pf = bk;
  struct pbuf *d = &pf->te;
  size_t sub;
  d->n = 0;
  if (pb_room(d, 64) < 0)
    return;
  pb_uint(d, TD_UUID, t->uuid);
  if (t->parent)
    pb_uint(d, TD_PARENT, t->parent);
  if (t->kind == TL_PROCESS) {
    sub = pb_open(d, TD_PROCESS);
    pb_uint(d, PD_PID, (uint32_t)t->pid);
    put_str(pf, d, PD_NAME, t->name, strlen(t->name));
  } else if (t->counter) {
    put_str(pf, d, TD_NAME, t->name, strlen(t->name));
    if (pb_room(d, 32) < 0)
      return;
    sub = pb_open(d, TD_COUNTER);
    if (t->kind == TL_LOAD)
      pb_bytes(d, CD_UNIT_NAME, "%", 1);
  } else if (t->tid) {
    sub = pb_open(d, TD_THREAD);
    pb_uint(d, THD_PID, (uint32_t)t->pid);
    pb_uint(d, THD_TID, (uint32_t)t->tid);
    put_str(pf, d, THD_NAME, t->name, strlen(t->name));
  } else {
    put_str(pf, d, TD_NAME, t->name, strlen(t->name));
    plain_packet(pf, TP_TRACK_DESCRIPTOR, d);
    return;
  }
  if (pb_room(d, 16) < 0)
    return;
  pb_close(d, sub);
  plain_packet(pf, TP_TRACK_DESCRIPTOR, d);
  if (t->kind == TL_PROCESS || t->tid)
    process_tree(pf, t);
}

static void on_slice_begin(void *bk, uint64_t ts, const struct tl_track *t, const char *name)
{
  struct pf *pf = bk;
  struct pbuf *o = te_begin(pf, TYPE_SLICE_BEGIN, t->uuid, ts);
  if (!o)
    return;
  put_str(pf, o, TE_NAME, name, strlen(name)); /* lost-event counts: seldom repeated */
  te_end(pf);
}

static void on_slice_end(void *bk, uint64_t ts, const struct tl_track *t)
{
  struct pf *pf = bk;
  if (te_begin(pf, TYPE_SLICE_END, t->uuid, ts))
    te_end(pf);
}

static void on_counter(void *bk, uint64_t ts, const struct tl_track *t, int64_t v)
{
  struct pf *pf = bk;
  struct pbuf *o = te_begin(pf, TYPE_COUNTER, t->uuid, ts);
  if (!o)
    return;
  pb_int(o, TE_COUNTER_VALUE, v);
  te_end(pf);
}

static uint64_t double_bits(double v)
{
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}

/* One field as a debug annotation. */
static void argument(struct pf *pf, const struct tw_event *ev, unsigned i,
                     const char *const *custom)
{
  const struct tw_event_desc *d = ev->desc;
  const struct tw_field_desc *f = &d->fields[i];
  struct pbuf *b = &pf->out;
  uint32_t v = i < ev->nvalues ? ev->values[i] : 0;
  size_t at;
  if (pb_room(b, 48) < 0)
    return;
  if (f->type != TW_FT_STRING && f->type != TW_FT_F32 && !tw_field_type_signed(f->type)) {
    /* the common argument, a number: its length known before it is written */
    uint64_t iid = arg_name(pf, d, i, custom);
    uint8_t *p = b->p + b->n;
    *p++ = TE_DEBUG << 3 | PB_LEN;
    *p++ = (uint8_t)(2 + pb_varint_len(iid) + pb_varint_len(v)); /* at most 12 */
    *p++ = DA_NAME_IID << 3 | PB_VARINT;
    p = pb_varint_at(p, iid);
    *p++ = DA_UINT << 3 | PB_VARINT;
    b->n = (size_t)(pb_varint_at(p, v) - b->p);
    return;
  }
  at = pb_open(b, TE_DEBUG);
  pb_uint(b, DA_NAME_IID, arg_name(pf, d, i, custom));
  if (f->type == TW_FT_STRING) /* whole, NUL bytes and all */
    put_str(pf, b, DA_STRING, ev->str ? ev->str : "", ev->str ? ev->str_len : 0);
  else if (tw_field_type_signed(f->type))
    pb_int(b, DA_INT, tw_field_i32(f, v));
  else if (f->type == TW_FT_F32)
    pb_fixed64(b, DA_DOUBLE, double_bits(tw_f32_from_bits(v)));
  else
    pb_uint(b, DA_UINT, v);
  if (pb_room(b, 16) < 0)
    return;
  pb_close(b, at);
}

/* The fields the name does not hold (args: those below 16; every one
 * above), as debug annotations. */
static void arguments(struct pf *pf, const struct tw_rtos_change *ch, unsigned args)
{
  const struct tw_event *ev = ch->ev;
  const struct tw_event_desc *d = ev->desc;
  const char *const *custom = NULL;
  struct pbuf *b = &pf->out;
  size_t at;
  if (d->module == TW_MOD_CUSTOM && !(custom = tw__tl_field_names(pf->tl, d)))
    return; /* out of memory, reported */
  for (; args; args &= args - 1)
    argument(pf, ev, (unsigned)__builtin_ctz(args), custom);
  for (unsigned i = 16; i < d->nfields; i++)
    argument(pf, ev, i, custom);
  if (ev->flags & TW_EVENT_TIME_INFERRED) { /* docs/exporters.md */
    if (pb_room(b, 48) < 0)
      return;
    at = pb_open(b, TE_DEBUG);
    pb_uint(b, DA_NAME_IID, own_arg_name(pf, &pf->time_iid, "time"));
    pb_bytes(b, DA_STRING, "inferred", 8);
    pb_close(b, at);
  }
}

/* An instant of the timeline's own ("time inferred"): rare, so its
 * strings are written inline. */
static void on_note(void *bk, uint64_t ts, const struct tl_track *t, const char *name,
                    const struct tl_arg *a, unsigned na)
{
  struct pf *pf = bk;
  struct pbuf *o = te_begin(pf, TYPE_INSTANT, t->uuid, ts);
  if (!o)
    return;
  put_str(pf, o, TE_NAME, name, strlen(name));
  for (unsigned i = 0; i < na; i++) {
    size_t at;
    if (pb_room(o, 32) < 0)
      return;
    at = pb_open(o, TE_DEBUG);
    put_str(pf, o, DA_NAME, a[i].name, strlen(a[i].name));
    if (a[i].str)
      put_str(pf, o, DA_STRING, a[i].str, a[i].str_len);
    else if (a[i].kind == TL_NUM_INT)
      pb_int(o, DA_INT, a[i].inum);
    else
      pb_uint(o, DA_UINT, a[i].num);
    if (pb_room(o, 16) < 0)
      return;
    pb_close(o, at);
  }
  te_end(pf);
}

/* The common instant whole, in one go: its name interned before (no
 * interned data to add), no arguments or flows, a timestamp on the
 * microsecond clock; both lengths then fit one byte. The same bytes as
 * te_begin ... te_end; 0 when it is not that case. */
static inline int instant_fast(struct pf *pf, uint64_t ts, uint64_t track,
                               const struct pf_nent *e)
{
  static const uint8_t head[5] = {TP_SEQ_ID << 3 | PB_VARINT, PF_SEQ_TRACK,
                                  TP_SEQ_FLAGS << 3 | PB_VARINT, SEQ_NEEDS_INCREMENTAL_STATE,
                                  TP_TRACK_EVENT << 3 | PB_LEN};
  struct pbuf *o = &pf->out;
  uint64_t us = ts / 1000;
  uint8_t *p, *pkt, *te;
  if (ts != us * 1000 || us < pf->last_us[PF_SEQ_TRACK] || pf->in.n ||
      o->n >= PF_OUT_FLUSH || o->n + PF_TE_ROOM > o->cap)
    return 0;
  p = o->p + o->n;
  *p++ = TRACE_PACKET << 3 | PB_LEN;
  pkt = p++;
  *p++ = TP_TIMESTAMP << 3 | PB_VARINT;
  p = pb_varint_at(p, us - pf->last_us[PF_SEQ_TRACK]);
  pf->last_us[PF_SEQ_TRACK] = us;
  memcpy(p, head, sizeof head);
  p += sizeof head;
  te = p++;
  *p++ = TE_TYPE << 3 | PB_VARINT;
  *p++ = TYPE_INSTANT;
  *p++ = TE_TRACK << 3 | PB_VARINT;
  p = pb_varint_at(p, track);
  memcpy(p, e->hdr, sizeof e->hdr);
  p += e->nhdr;
  *te = (uint8_t)(p - te - 1); /* at most 24 */
  *pkt = (uint8_t)(p - pkt - 1); /* at most 45 */
  o->n = (size_t)(p - o->p);
  return 1;
}

static void on_instant(void *bk, uint64_t ts, const struct tl_track *t,
                       const struct tw_rtos_change *ch, uint64_t flow_out,
                       const struct tl_track *flow_from, uint64_t flow_in)
{
  struct pf *pf = bk;
  int on_task = t->kind == TL_TASK;
  const struct pf_nent *e;
  struct pbuf *o;
  unsigned args;
  (void)flow_from; /* a Perfetto flow binds to the instant itself */
  /* the name first: new interned data goes into pf->in, written with
   * the packet */
  e = event_name(pf, ch, on_task);
  if (e && e->marker == ch->marker && !e->args && !(flow_out | flow_in) &&
      !(ch->ev->flags & TW_EVENT_TIME_INFERRED) && ch->ev->desc->nfields <= 16 &&
      instant_fast(pf, ts, t->uuid, e))
    return;
  if (!(o = te_begin(pf, TYPE_INSTANT, t->uuid, ts)))
    return;
  if (e && e->marker == ch->marker) {
    memcpy(o->p + o->n, e->hdr, sizeof e->hdr); /* PF_TE_ROOM has it */
    o->n += e->nhdr;
    args = e->args;
  } else {
    struct pf_nent key;
    if (e) {
      pb_uint(o, TE_NAME_IID, e->iid);
      args = e->args;
    } else { /* the name table is full: inline */
      const char *k, *s;
      size_t len;
      name_key(ch, on_task, &key);
      name_sources(pf, ch, &key);
      k = name_constant(ch, &key);
      if ((s = name_text(pf, ch, k, &key, &len)) != NULL)
        put_str(pf, o, TE_NAME, s, len);
      args = arg_fields(ch, key.fold, on_task);
    }
    if (ch->marker != TW_MARKER_NONE && ch->marker < TW_MARKER_COUNT)
      pb_uint(o, TE_CATEGORY_IIDS, category(pf, ch->marker));
  }
  if (args || ch->ev->desc->nfields > 16 || (ch->ev->flags & TW_EVENT_TIME_INFERRED))
    arguments(pf, ch, args);
  if (flow_out | flow_in) {
    if (pb_room(o, 24) < 0)
      return;
    if (flow_out)
      pb_fixed64(o, TE_FLOW_IDS, flow_out);
    if (flow_in)
      pb_fixed64(o, TE_TERM_FLOW_IDS, flow_in);
  }
  te_end(pf);
}

static const struct tl_ops pf_ops = {.track = on_track, .slice_begin = on_slice_begin,
                                     .slice_end = on_slice_end, .instant = on_instant,
                                     .counter = on_counter, .note = on_note,
                                     .sched = &tw__pf_sched};

/* ---- the exporter ---------------------------------------------------------------------- */

static int pf_open(struct tw_export *x)
{
  struct pf *pf = calloc(1, sizeof *pf);
  if (!pf)
    return tw__export_fail(x, TW_ENOMEM, "out of memory");
  x->state = pf;
  pf->x = x;
  if (tw__wfile_open(x, &pf->w, x->out) < 0)
    return x->err;
  if (!(pf->tl = tw__tl_open(x, &pf_ops, pf)))
    return x->err;
  pf->m = tw__tl_model(pf->tl);
  if (!(pf->kplan = calloc((tw_nmeanings + tw_event_ndescs) * 2, sizeof *pf->kplan)))
    return tw__pf_oom(pf);
  seq_start(pf, PF_SEQ_TRACK);
  seq_start(pf, PF_SEQ_STATE);
  return x->err;
}

static int pf_event(struct tw_export *x, const struct tw_event *ev)
{
  struct pf *pf = x->state;
  if (ev->time_ns > pf->now) {
    pf->now = ev->time_ns;
    if (pf->nmarks > pf->mark0)
      tw__pf_sched_time(pf, pf->now);
  }
  tw__tl_event(pf->tl, ev);
  return x->err;
}

static int pf_finish(struct tw_export *x)
{
  struct pf *pf = x->state;
  tw__tl_finish(pf->tl);
  tw__pf_sched_finish(pf);
  flush_out(pf);
  return tw__wfile_close(x, &pf->w);
}

static void pf_free(struct tw_export *x)
{
  struct pf *pf = x->state;
  if (!pf)
    return;
  tw__tl_close(pf->tl);
  if (pf->w.f)
    tw__wfile_close(x, &pf->w);
  tw__pf_sched_free(pf);
  pb_free(&pf->out);
  pb_free(&pf->te);
  pb_free(&pf->in);
  pb_free(&pf->tmp);
  free(pf->names);
  free(pf->kplan);
  free(pf->vocab_args);
  for (size_t i = 0; i < pf->capdnames; i++)
    free(pf->dnames[i].name);
  free(pf->dnames);
  free(pf->scratch);
  free(pf->nbuf);
  free(pf);
  x->state = NULL;
}

static void pf_loss(struct tw_export *x, uint16_t ep, uint16_t inst, uint64_t count)
{
  struct pf *pf = x->state;
  if (pf && pf->tl)
    tw__tl_loss(pf->tl, ep, inst, count);
}

const struct tw__export_ops tw__export_perfetto = {.name = "perfetto", .open = pf_open,
                                                   .event = pf_event, .finish = pf_finish,
                                                   .free = pf_free, .loss = pf_loss};
