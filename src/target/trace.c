/*
 * The target's name table and custom-event declarations, and the trace
 * mask every emitter tests.
 *
 * Both tables are append-only arrays with a published count: a writer
 * fills the next slot, then stores count + 1 with release; readers (the
 * collector, emitters in interrupts) load the count with acquire and read
 * only slots below it, which never change again. A rename appends a new
 * entry rather than rewriting one the collector may be reading, so there is
 * no torn name and no lock. Writers (registration) are thread context and
 * serialised by the caller: registration happens at start-up or from one
 * thread (documented in trace.h).
 */
#include <string.h>

#include "tracewire/events_gen.h"
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/trace.h"

uint32_t tw_trace_mask;

/* The task numbers that name interrupt context (EnterInt, LeaveInt),
 * named like their constants in events.def. */
#define PSEUDO(value, name) {TW_OBJ_TASK, 0, (value), name},
static const struct tw_name_entry predefined[] = {TW_TASK_PSEUDO_NAMES(PSEUDO)};
#undef PSEUDO
#define NPREDEF (sizeof predefined / sizeof predefined[0])

static struct tw_name_entry names[TW_CFG_NAMES];
static uint32_t nnames;
static uint32_t nlost;

#if TW_CFG_CUSTOM_DECLS
static struct tw_custom_decl decls[TW_CFG_CUSTOM_DECLS];
/* a string event is one logger event: { timestamp, len, bytes } */
_Static_assert(2u + (TW_CFG_BYTES_MAX + 3u) / 4u <= TW_LOGGER_MAX_DATA,
               "TW_CFG_BYTES_MAX: one logger event carries at most 1012 bytes");
static uint32_t ndecls;
#endif

int tw_name_register(enum tw_obj_kind kind, uint16_t number, const char *name, uint8_t prio)
{
  if ((unsigned)kind == TW_OBJ_NONE || (unsigned)kind >= TW_OBJ_COUNT || !name || !*name)
    return TW_EINVAL;
  uint32_t n = __atomic_load_n(&nnames, __ATOMIC_RELAXED);
  if (n >= TW_CFG_NAMES) {
    /* writers are serialised (see the top): no read-modify-write needed,
     * which a Cortex-M0 would not have */
    __atomic_store_n(&nlost, __atomic_load_n(&nlost, __ATOMIC_RELAXED) + 1u, __ATOMIC_RELAXED);
    return TW_ENOSPC;
  }
  struct tw_name_entry *e = &names[n];
  size_t len = 0; /* bounded, and no strlen() pulled into small targets */
  while (len < TW_CFG_NAME_MAX - 1 && name[len])
    len++;
  memset(e, 0, sizeof *e);
  e->kind = (uint8_t)kind;
  e->prio = kind == TW_OBJ_TASK ? prio : 0;
  e->number = number;
  memcpy(e->name, name, len);
  /* release: the entry's bytes are visible before the count that covers it */
  __atomic_store_n(&nnames, n + 1, __ATOMIC_RELEASE);
  return 0;
}

uint32_t tw_name_count(void)
{
  return (uint32_t)NPREDEF + __atomic_load_n(&nnames, __ATOMIC_ACQUIRE);
}

const struct tw_name_entry *tw_name_at(uint32_t i)
{
  if (i < NPREDEF)
    return &predefined[i];
  i -= (uint32_t)NPREDEF;
  return i < __atomic_load_n(&nnames, __ATOMIC_ACQUIRE) ? &names[i] : NULL;
}

uint32_t tw_name_lost(void)
{
  return __atomic_load_n(&nlost, __ATOMIC_RELAXED);
}

void tw_name_reset(void)
{
  __atomic_store_n(&nnames, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&nlost, 0, __ATOMIC_RELAXED);
}

#if TW_CFG_CUSTOM_DECLS
/* The one-word field types; the host decoder's field_type() knows the same
 * names and what their bits mean. */
static int word_type(const char *t, size_t tl)
{
  static const char types[][4] = {"U8", "U16", "U32", "I8", "I16", "I32", "F32"};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (tl == strlen(types[i]) && !memcmp(t, types[i], tl))
      return 1;
  return 0;
}

/* "Name f:U8 g:U32": a name, then fields "ident:type". Returns the field
 * count or -1; *bytes is set for a single STR or BLOB field. */
static int parse_decl(const char *d, int *bytes)
{
  int nf = 0, nbytes = 0;
  const char *p = d;

  while (*p && *p != ' ')
    p++;
  if (p == d)
    return -1;
  while (*p) {
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    const char *f = p;
    while (*p && *p != ':' && *p != ' ')
      p++;
    if (p == f || *p != ':')
      return -1;
    const char *t = ++p;
    while (*p && *p != ' ')
      p++;
    size_t tl = (size_t)(p - t);
    if ((tl == 3 && !memcmp(t, "STR", 3)) || (tl == 4 && !memcmp(t, "BLOB", 4)))
      nbytes++;
    else if (!word_type(t, tl))
      return -1;
    nf++;
  }
  if (nbytes && nf != 1)
    return -1; /* a bytes field stands alone */
  *bytes = nbytes;
  return nf <= TW_CUSTOM_MAX_WORDS ? nf : -1;
}

int tw_custom_declare(uint16_t id, int timed, const char *decl)
{
  if (id == 0 || tw_event_wire(id) || !decl || strlen(decl) >= TW_CFG_DECL_MAX)
    return TW_EINVAL;
  int bytes = 0;
  int nf = parse_decl(decl, &bytes);
  if (nf < 0 || (nf == 0 && !timed))
    return TW_EINVAL; /* the logger needs at least one data word */
  if (tw_custom_find(id))
    return TW_EEXIST;
  uint32_t n = __atomic_load_n(&ndecls, __ATOMIC_RELAXED);
  if (n >= TW_CFG_CUSTOM_DECLS)
    return TW_ENOSPC;
  struct tw_custom_decl *c = &decls[n];
  memset(c, 0, sizeof *c);
  c->id = id;
  c->timed = timed ? 1 : 0;
  c->nfields = (uint8_t)nf;
  c->bytes = (uint8_t)bytes;
  memcpy(c->decl, decl, strlen(decl));
  __atomic_store_n(&ndecls, n + 1, __ATOMIC_RELEASE);
  return 0;
}

uint32_t tw_custom_count(void)
{
  return __atomic_load_n(&ndecls, __ATOMIC_ACQUIRE);
}

const struct tw_custom_decl *tw_custom_at(uint32_t i)
{
  return i < tw_custom_count() ? &decls[i] : NULL;
}

const struct tw_custom_decl *tw_custom_find(uint16_t id)
{
  uint32_t n = tw_custom_count();
  for (uint32_t i = 0; i < n; i++)
    if (decls[i].id == id)
      return &decls[i];
  return NULL;
}

void tw_custom_reset(void)
{
  __atomic_store_n(&ndecls, 0, __ATOMIC_RELEASE);
}

static int custom_on(uint16_t id)
{
  uint32_t mask = __atomic_load_n(&tw_trace_mask, __ATOMIC_RELAXED);
  return id - 1u < 32u ? (mask >> (id - 1u)) & 1u : mask != 0;
}

static void put_custom(const struct tw_custom_decl *c, uint16_t id, const uint32_t *w, uint32_t n)
{
  if (c->timed)
    tw__trace_put_stamped(id, w, n);
  else
    tw__trace_put(id, w, n);
}

void tw_custom_bytes(uint16_t id, const void *data, uint32_t len)
{
  if (!custom_on(id))
    return;
  const struct tw_custom_decl *c = tw_custom_find(id);
  if (!c || !c->bytes || (len && !data))
    return;
  if (len > TW_CFG_BYTES_MAX)
    len = TW_CFG_BYTES_MAX;
  uint32_t w[2 + (TW_CFG_BYTES_MAX + 3) / 4];
  uint32_t k = 0;
  if (c->timed)
    w[k++] = 0; /* the clock, read by the put */
  w[k++] = len;
  if (len % 4)
    w[k + len / 4] = 0; /* zero the pad bytes of the last word */
  if (len)
    memcpy(&w[k], data, len);
  put_custom(c, id, w, k + (len + 3) / 4);
}

void tw_custom(uint16_t id, const uint32_t *data, uint32_t n)
{
  if (!custom_on(id))
    return;
  const struct tw_custom_decl *c = tw_custom_find(id);
  if (!c || c->bytes || (n && !data))
    return; /* undeclared: the host could not decode it */
  if (n > TW_CUSTOM_MAX_WORDS) {
    tw__logger_drop(tw_klog_here()); /* too large to record: a drop, never silent */
    return;
  }
  uint32_t w[1 + TW_CUSTOM_MAX_WORDS];
  uint32_t k = 0;
  if (c->timed)
    w[k++] = 0; /* the clock, read by the put */
  for (uint32_t i = 0; i < n; i++)
    w[k++] = data[i];
  if (k)
    put_custom(c, id, w, k);
}
#endif
