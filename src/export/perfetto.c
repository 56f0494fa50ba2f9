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
  if (ts % 1000 == 0 && us >= pf->last_us[seq]) {
    pb_uint(b, TP_TIMESTAMP, us - pf->last_us[seq]);
    pf->last_us[seq] = us;
  } else if (ts >= pf->last_ns[seq]) {
    pb_uint(b, TP_TIMESTAMP, ts - pf->last_ns[seq]);
    pb_uint(b, TP_CLOCK_ID, CLOCK_NS);
    pf->last_ns[seq] = ts;
  } else {
    pb_uint(b, TP_TIMESTAMP, ts);
    pb_uint(b, TP_CLOCK_ID, CLOCK_BOOTTIME);
  }
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
  if (n > pf->scratch_cap) {
    size_t cap = pf->scratch_cap ? pf->scratch_cap : 256;
    char *s;
    while (cap < n)
      cap *= 2;
    if (!(s = realloc(pf->scratch, cap))) {
      tw__pf_oom(pf);
      return NULL;
    }
    pf->scratch = s;
    pf->scratch_cap = cap;
  }
  return pf->scratch;
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
  uint64_t h = (uint64_t)(uintptr_t)e->d * 0x9E3779B97F4A7C15ull ^
               ((uint64_t)e->v[0] << 32 | (uint64_t)e->on_task << 16 | e->ep) *
                   0xC2B2AE3D27D4EB4Full ^
               ((uint64_t)e->v[1] << 32 | e->v[2]) * 0x165667B19E3779F9ull ^
               (uint64_t)e->v[3] * 0xFF51AFD7ED558CCDull;
  h = (h ^ h >> 32) * 0xD6E8FEB86659FD93ull;
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
  if (n > pf->nbuf_cap) {
    size_t cap = pf->nbuf_cap ? pf->nbuf_cap : 256;
    char *s;
    while (cap < n)
      cap *= 2;
    if (!(s = realloc(pf->nbuf, cap))) {
      tw__pf_oom(pf);
      return NULL;
    }
    pf->nbuf = s;
    pf->nbuf_cap = cap;
  }
  return pf->nbuf;
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
 * into it (the marker field's bit is added once its constant is known). */
static void name_key(struct pf *pf, const struct tw_rtos_change *ch, int on_task,
                     struct pf_nent *key)
{
  const struct tw_event *ev = ch->ev;
  const struct tw_event_desc *d = ev->desc;
  const struct tw_meaning *mn = ch->meaning;
  unsigned j = 0, fold = 0;
  key->d = d;
  key->ep = ev->endpoint;
  key->on_task = (uint8_t)on_task;
  key->v[0] = d->marker_field >= 0 && (unsigned)d->marker_field < ev->nvalues
                  ? ev->values[d->marker_field] : 0;
  key->v[1] = key->v[2] = key->v[3] = 0;
  key->src[0] = key->src[1] = key->src[2] = NULL;
  for (unsigned i = 0; i < d->nfields && i < 16 && j < PF_NFOLD; i++) {
    const struct tw_field_desc *f = &d->fields[i];
    uint32_t v;
    if (f->obj == TW_OBJ_NONE || (int)i == d->marker_field ||
        (on_task && mn && (int)i == mn->task_field))
      continue;
    v = i < ev->nvalues ? ev->values[i] : 0;
    fold |= 1u << i;
    key->v[1 + j] = v;
    if (f->obj == TW_OBJ_OBJKIND)
      key->src[j] = NULL;
    else if (ch->obj && mn && (int)i == mn->obj_field)
      key->src[j] = ch->obj->name;
    else
      key->src[j] = tw_rtos_name(pf->m, ev->endpoint, f->obj, v);
    j++;
  }
  key->fold = (uint16_t)fold;
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

/* The iid of the event's name (0: the table is full; written inline),
 * and which fields it holds (*fold). */
static uint64_t event_name(struct pf *pf, const struct tw_rtos_change *ch, int on_task,
                           unsigned *fold)
{
  struct pf_nent key, *e;
  const char *k, *s;
  size_t i, len;
  name_key(pf, ch, on_task, &key);
  if (pf->nnames * 2 + 2 > pf->capnames &&
      grow_table(pf, &pf->names, &pf->capnames, pf->nnames, sizeof *pf->names, nkey_hash,
                 nent_iid) < 0)
    return *fold = key.fold, 0;
  for (i = (size_t)nkey_hash(&key) & (pf->capnames - 1); (e = &pf->names[i])->iid;
       i = (i + 1) & (pf->capnames - 1))
    if (e->d == key.d && e->ep == key.ep && e->on_task == key.on_task &&
        e->v[0] == key.v[0] && e->v[1] == key.v[1] && e->v[2] == key.v[2] &&
        e->v[3] == key.v[3]) {
      if (e->src[0] == key.src[0] && e->src[1] == key.src[1] && e->src[2] == key.src[2]) {
        *fold = e->fold;
        return e->iid;
      }
      break; /* an object was renamed: a new name */
    }
  k = name_constant(ch, &key);
  *fold = key.fold;
  if (!e->iid && pf->nnames >= PF_MAX_NAMES)
    return 0;
  if (!(s = name_text(pf, ch, k, &key, &len)))
    return 0;
  if (!e->iid)
    pf->nnames++;
  key.iid = ++pf->next_iid[ID_EVENT_NAMES];
  *e = key;
  intern_entry(pf, ID_EVENT_NAMES, e->iid, s, len);
  return e->iid;
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
 * its interned data before its payload). */
static struct pbuf *te_begin(struct pf *pf, unsigned type, uint64_t track, uint64_t ts)
{
  struct pbuf *o;
  if (!tw__pf_room(pf, 256))
    return NULL;
  o = &pf->out;
  pf->pkt_at = pb_open(o, TRACE_PACKET);
  tw__pf_timestamp(pf, o, PF_SEQ_TRACK, ts);
  pb_uint(o, TP_SEQ_ID, PF_SEQ_TRACK);
  pb_uint(o, TP_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
  pf->te_at = pb_open(o, TP_TRACK_EVENT);
  pb_uint(o, TE_TYPE, type);
  pb_uint(o, TE_TRACK, track);
  return o;
}

static void te_end(struct pf *pf)
{
  struct pbuf *o = &pf->out;
  if (pf->in.err || pb_room(o, pf->in.n + 32) < 0) {
    tw__pf_oom(pf);
    return;
  }
  pb_close(o, pf->te_at);
  if (pf->in.n) {
    pb_bytes(o, TP_INTERNED, pf->in.p, pf->in.n);
    pf->in.n = 0;
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

/* The fields the name does not hold, as debug annotations. */
static void arguments(struct pf *pf, const struct tw_rtos_change *ch, unsigned fold, int on_task)
{
  const struct tw_event *ev = ch->ev;
  const struct tw_event_desc *d = ev->desc;
  const char *const *custom = tw__tl_field_names(pf->tl, d);
  struct pbuf *b = &pf->out;
  size_t at;
  if (d->module == TW_MOD_CUSTOM && !custom)
    return; /* out of memory, reported */
  for (unsigned i = 0; i < d->nfields; i++) {
    const struct tw_field_desc *f = &d->fields[i];
    uint32_t v = i < ev->nvalues ? ev->values[i] : 0;
    if ((i < 16 && (fold >> i & 1)) ||
        (on_task && ch->meaning && (int)i == ch->meaning->task_field))
      continue;
    if (pb_room(b, 48) < 0)
      return;
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

static void on_instant(void *bk, uint64_t ts, const struct tl_track *t,
                       const struct tw_rtos_change *ch, uint64_t flow_out,
                       const struct tl_track *flow_from, uint64_t flow_in)
{
  struct pf *pf = bk;
  int on_task = t->kind == TL_TASK;
  unsigned fold;
  uint64_t iid;
  struct pbuf *o;
  (void)flow_from; /* a Perfetto flow binds to the instant itself */
  if (!(o = te_begin(pf, TYPE_INSTANT, t->uuid, ts)))
    return;
  iid = event_name(pf, ch, on_task, &fold);
  if (iid) {
    pb_uint(o, TE_NAME_IID, iid);
  } else { /* the name table is full: inline */
    struct pf_nent key;
    const char *k, *s;
    size_t len;
    name_key(pf, ch, on_task, &key);
    k = name_constant(ch, &key);
    if ((s = name_text(pf, ch, k, &key, &len)) != NULL)
      put_str(pf, o, TE_NAME, s, len);
  }
  if (ch->marker != TW_MARKER_NONE && ch->marker < TW_MARKER_COUNT)
    pb_uint(o, TE_CATEGORY_IIDS, category(pf, ch->marker));
  arguments(pf, ch, fold, on_task);
  if (pb_room(o, 24) < 0)
    return;
  if (flow_out)
    pb_fixed64(o, TE_FLOW_IDS, flow_out);
  if (flow_in)
    pb_fixed64(o, TE_TERM_FLOW_IDS, flow_in);
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
