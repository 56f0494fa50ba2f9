/*
 * Scripted traces with known answers (tracewire/analysis/scenario.h). A script is a
 * table of steps {time in us from the cycle start, event id, field values
 * in vocabulary order}; the cycle repeats, and the planted problems are
 * scripts of their own. docs/analyses.md derives the expected numbers.
 */
#include <string.h>
#include "tracewire/error.h"
#include "tracewire/analysis/scenario.h"
#include "tracewire/events_gen.h"
#include "tracewire/uia.h"
#include "tracewire/vocab.h"

/* Short names for the scripts below: the vocabulary's ids and constants. */
enum { TS = TW_EV_TASK_SWITCH, INT = TW_EV_INTERRUPT, MTX = TW_EV_MUTEX, SEM = TW_EV_SEM,
       SEMT = TW_EV_SEM_TASK, EV = TW_EV_EVENT, EVT = TW_EV_EVENT_TASK, MS = TW_EV_MULTI_SEM,
       MST = TW_EV_MULTI_SEM_TASK, ME = TW_EV_MULTI_EVENT, MET = TW_EV_MULTI_EVENT_TASK,
       AS = TW_EV_ANTI_SEM, AST = TW_EV_ANTI_SEM_TASK, RS = TW_EV_RES_SEM,
       RST = TW_EV_RES_SEM_TASK, DROPS = TW_EV_DROPS, NAME = TW_EV_NAME };
enum { ENTER = TW_TASK_SWITCH_EnterInt, LEAVE = TW_TASK_SWITCH_LeaveInt };

struct step {
  uint16_t us;
  uint16_t id;
  uint32_t v[4];
};

/* The clean 1 ms cycle. */
static const struct step cycle[] = {
  {0, TS, {ENTER}}, {0, INT, {16}}, {2, SEM, {1, TW_SEM_Give}},
  {3, SEMT, {3, 1, TW_SEM_TASK_ToTask}},
  {4, EV, {1, TW_EVENT_Trigger}}, {5, EVT, {4, 1, TW_EVENT_TASK_ToTask}}, {12, TS, {LEAVE}},
  {14, TS, {3}}, {20, MTX, {3, 1, TW_MUTEX_Lock}}, {60, MTX, {3, 1, TW_MUTEX_IncLock}},
  {70, MTX, {3, 1, TW_MUTEX_DecLock}},
  {90, MTX, {3, 1, TW_MUTEX_Unlock}}, {100, SEMT, {3, 1, TW_SEM_TASK_Block}},
  {102, TS, {4}}, {120, MST, {4, 1, TW_MULTI_SEM_TASK_Take, 1}},
  {150, RST, {4, 1, TW_RES_SEM_TASK_Take}}, {200, RS, {1, TW_RES_SEM_Give}},
  {210, EVT, {4, 1, TW_EVENT_TASK_Block}},
  {212, TS, {2}},
  {250, TS, {ENTER}}, {250, INT, {17}}, {255, TS, {ENTER}}, {255, INT, {15}}, {262, TS, {LEAVE}},
  {266, EV, {1, TW_EVENT_Trigger}}, {267, EVT, {4, 1, TW_EVENT_TASK_ToTask}},
  {270, MS, {1, TW_MULTI_SEM_Give, 2}}, {280, TS, {LEAVE}},
  {282, TS, {4}}, {300, MET, {4, 1, TW_MULTI_EVENT_TASK_Block, 0}},
  {302, TS, {2}}, {320, ME, {1, TW_MULTI_EVENT_Trigger, 3}},
  {321, MET, {4, 1, TW_MULTI_EVENT_TASK_ToTask, 3}},
  {322, TS, {4}}, {340, AST, {4, 1, TW_ANTI_SEM_TASK_Pass}}, {350, AS, {1, TW_ANTI_SEM_Add}},
  {352, AS, {1, TW_ANTI_SEM_Add}},
  {360, AST, {4, 1, TW_ANTI_SEM_TASK_Wait}},
  {362, TS, {2}}, {400, AS, {1, TW_ANTI_SEM_Sub}}, {420, AS, {1, TW_ANTI_SEM_Release}},
  {422, TS, {4}}, {430, RST, {4, 1, TW_RES_SEM_TASK_Pass}}, {440, MTX, {4, 2, TW_MUTEX_Lock}},
  {480, MTX, {4, 2, TW_MUTEX_Unlock}},
  {490, MST, {4, 1, TW_MULTI_SEM_TASK_Block, 0}},
  {492, TS, {2}}, {520, MS, {1, TW_MULTI_SEM_Give, 1}},
  {521, MST, {4, 1, TW_MULTI_SEM_TASK_ToTask, 1}},
  {522, TS, {4}}, {540, SEM, {1, TW_SEM_GiveMany}}, {541, SEM, {1, TW_SEM_ToTaskList}},
  {546, TS, {3}}, {600, RST, {3, 1, TW_RES_SEM_TASK_Block}},
  {602, TS, {4}}, {610, RS, {1, TW_RES_SEM_Give}}, {611, RST, {3, 1, TW_RES_SEM_TASK_ToTask}},
  {612, TS, {3}}, {650, SEMT, {3, 1, TW_SEM_TASK_Take}}, {660, MTX, {3, 3, TW_MUTEX_Lock}},
  {670, MTX, {3, 3, TW_MUTEX_Unlock}},
  {700, SEMT, {3, 1, TW_SEM_TASK_Block}},
  {702, TS, {4}}, {720, EVT, {4, 1, TW_EVENT_TASK_Block}},
  {722, TS, {2}}, {730, MTX, {2, 3, TW_MUTEX_Lock}}, {760, MTX, {2, 3, TW_MUTEX_Unlock}},
  {800, TS, {5}}, {900, TS, {1}}, {950, TS, {0}},
};

/* Planted priority inversion (3 ms): logger holds bus_lock, control blocks
 * on it, sensor then comms (middle priorities) run until 2000 us. */
static const struct step inversion[] = {
  {0, TS, {1}}, {10, MTX, {1, 1, TW_MUTEX_Lock}},
  {50, TS, {ENTER}}, {50, INT, {16}}, {52, SEM, {1, TW_SEM_Give}},
  {53, SEMT, {3, 1, TW_SEM_TASK_ToTask}},
  {54, EV, {1, TW_EVENT_Trigger}}, {55, EVT, {4, 1, TW_EVENT_TASK_ToTask}}, {62, TS, {LEAVE}},
  {64, TS, {3}}, {70, MTX, {3, 1, TW_MUTEX_Block}},
  {72, TS, {4}}, {100, EVT, {4, 1, TW_EVENT_TASK_Block}},
  {102, TS, {2}},
  {2000, TS, {1}}, {2010, MTX, {1, 1, TW_MUTEX_Unlock}}, {2011, MTX, {3, 1, TW_MUTEX_Lock}},
  {2012, TS, {3}}, {2030, MTX, {3, 1, TW_MUTEX_Unlock}}, {2040, SEMT, {3, 1, TW_SEM_TASK_Block}},
  {2042, TS, {1}}, {2050, TS, {0}},
};

/* The end of a clean trace: everyone released, control runs. */
static const struct step tail[] = {
  {0, TS, {ENTER}}, {0, INT, {16}}, {2, SEM, {1, TW_SEM_Give}},
  {3, SEMT, {3, 1, TW_SEM_TASK_ToTask}},
  {4, EV, {1, TW_EVENT_Trigger}}, {5, EVT, {4, 1, TW_EVENT_TASK_ToTask}}, {12, TS, {LEAVE}},
  {14, TS, {3}}, {20, MTX, {3, 1, TW_MUTEX_Lock}}, {30, MTX, {3, 1, TW_MUTEX_Unlock}},
};

/* Planted deadlock: comms holds cfg_lock and wants log_lock, ui the reverse. */
static const struct step deadlock[] = {
  {0, TS, {2}}, {10, MTX, {2, 2, TW_MUTEX_Lock}}, {20, TS, {5}}, {30, MTX, {5, 3, TW_MUTEX_Lock}},
  {40, MTX, {5, 2, TW_MUTEX_Block}}, {42, TS, {2}}, {50, MTX, {2, 3, TW_MUTEX_Block}},
  {52, TS, {0}},
  {500, TS, {ENTER}}, {500, INT, {15}}, {505, TS, {LEAVE}},
};

static const struct { uint8_t kind, prio; uint16_t num; const char *name; } names[] = {
  {TW_OBJ_TASK, 0, 0, "idle"}, {TW_OBJ_TASK, 2, 1, "logger"}, {TW_OBJ_TASK, 5, 2, "comms"},
  {TW_OBJ_TASK, 8, 3, "control"}, {TW_OBJ_TASK, 6, 4, "sensor"}, {TW_OBJ_TASK, 3, 5, "ui"},
  {TW_OBJ_MUTEX, 0, 1, "bus_lock"}, {TW_OBJ_MUTEX, 0, 2, "cfg_lock"},
  {TW_OBJ_MUTEX, 0, 3, "log_lock"}, {TW_OBJ_SEM, 0, 1, "adc_ready"},
  {TW_OBJ_EVENT, 0, 1, "rx_event"}, {TW_OBJ_MSEM, 0, 1, "rx_msem"},
  {TW_OBJ_MEVENT, 0, 1, "io_mevent"}, {TW_OBJ_ASEM, 0, 1, "flush_asem"},
  {TW_OBJ_RSEM, 0, 1, "buf_pool"}, {TW_OBJ_IRQ, 0, 15, "SysTick"}, {TW_OBJ_IRQ, 0, 16, "ADC"},
  {TW_OBJ_IRQ, 0, 17, "UART"},
};

_Static_assert(sizeof cycle / sizeof cycle[0] == TW_SCN_EVENTS_PER_CYCLE,
               "TW_SCN_EVENTS_PER_CYCLE");

struct gen {
  tw_scn_fn fn;
  void *ctx;
  uint32_t seq;
};

static int put(struct gen *g, uint64_t t_ns, uint16_t id, const uint32_t *v, const char *str)
{
  struct tw_event e;
  memset(&e, 0, sizeof e);
  e.desc = tw_event_desc_by_id(id);
  if (!e.desc)
    return TW_EINVAL;
  e.time_ns = e.ticks = t_ns;
  e.seq = g->seq++;
  e.endpoint = 1;
  e.id = id;
  e.module = e.desc->module;
  e.nvalues = e.desc->nfields;
  for (unsigned i = 0; i < e.nvalues && i < 4; i++)
    e.values[i] = v[i];
  if (str) {
    e.str = str;
    e.str_len = strlen(str);
  }
  return g->fn(g->ctx, &e);
}

static int script(struct gen *g, uint64_t base_ns, const struct step *s, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    int rc = put(g, base_ns + 1000ull * s[i].us, s[i].id, s[i].v, NULL);
    if (rc)
      return rc;
  }
  return 0;
}

#define SCRIPT(g, base, arr) script((g), (base), (arr), sizeof(arr) / sizeof(arr)[0])

int tw_scn_run(const struct tw_scn_cfg *cfg, tw_scn_fn fn, void *ctx)
{
  struct tw_scn_cfg c = {20, -1, 0, -1};
  struct gen g = {fn, ctx, 0};
  uint64_t t = 0;
  int rc;
  if (cfg)
    c = *cfg;
  if (!c.cycles)
    c.cycles = 20;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    uint32_t v[4] = {names[i].kind, names[i].prio, names[i].num, 0};
    if ((rc = put(&g, 0, NAME, v, names[i].name)) != 0)
      return rc;
  }
  for (uint64_t k = 0; k < c.cycles; k++) {
    int inv = c.inversion_at >= 0 && (uint64_t)c.inversion_at == k;
    uint32_t drops[4] = {7};
    if (c.drops_at >= 0 && (uint64_t)c.drops_at == k && !inv &&
        (rc = put(&g, t, DROPS, drops, NULL)) != 0)
      return rc;
    if (inv) {
      if ((rc = script(&g, t, inversion, 14)) != 0)
        return rc;
      if (c.drops_at >= 0 && (uint64_t)c.drops_at == k &&
          (rc = put(&g, t + 1000000ull, DROPS, drops, NULL)) != 0)
        return rc; /* inside the inversion: its finding must say so */
      if ((rc = script(&g, t, inversion + 14, sizeof inversion / sizeof inversion[0] - 14)) != 0)
        return rc;
      t += 3000000ull;
    } else {
      if ((rc = SCRIPT(&g, t, cycle)) != 0)
        return rc;
      t += 1000000ull;
    }
  }
  return c.deadlock ? SCRIPT(&g, t, deadlock) : SCRIPT(&g, t, tail);
}

/* ---- as UIA packets ------------------------------------------------------- */

struct writer {
  FILE *f;
  uint8_t pkt[1024];
  size_t len;             /* bytes of records in pkt after the header */
  uint16_t pkt_seq;
  uint32_t ev_seq;
  int err;
};

static void flush_pkt(struct writer *w)
{
  if (!w->len)
    return;
  uint32_t length = (uint32_t)(TW_EVPKT_HDR_BYTES + w->len + TW_FOOTER_BYTES);
  tw_pkt_hdr h;
  tw_pkt_init_event(&h, TW_ENDIAN_NATIVE, length, w->pkt_seq++, 0, 1, 0, TW_ADDR_HOST, 1);
  tw_pkt_set_event_seq(&h, 0);
  memcpy(w->pkt, &h, sizeof h);
  tw_store_be32(w->pkt + TW_EVPKT_HDR_BYTES + w->len, tw_pkt_footer(length));
  if (fwrite(w->pkt, 1, length, w->f) != length)
    w->err = TW_EIO;
  w->len = 0;
}

static int add_words(void *ctx, const uint32_t *words, size_t n)
{
  struct writer *w = ctx;
  size_t room = sizeof w->pkt - TW_EVPKT_HDR_BYTES - TW_FOOTER_BYTES;
  if (w->len + 4 * n > room)
    flush_pkt(w);
  memcpy(w->pkt + TW_EVPKT_HDR_BYTES + w->len, words, 4 * n);
  w->len += 4 * n;
  return 0;
}

static int write_event(void *ctx, const struct tw_event *e)
{
  struct writer *w = ctx;
  const struct tw_event_desc *d = e->desc;
  uint32_t payload[8] = {0}, rec[16];
  for (unsigned i = 0; i < d->nfields; i++) {
    const struct tw_field_desc *f = &d->fields[i];
    if (f->type == TW_FT_STRING)
      continue;
    uint32_t m = f->bits >= 32 ? 0xFFFFFFFFu : (1u << f->bits) - 1u;
    payload[f->word] |= (e->values[i] & m) << f->shift;
  }
  if (e->str) {
    uint8_t data[128];
    size_t n = 4u * d->payload_words;
    memcpy(data, payload, n);
    size_t sl = e->str_len < sizeof data - n - 1 ? e->str_len : sizeof data - n - 1;
    memcpy(data + n, e->str, sl);
    data[n + sl] = 0;
    uint32_t next;
    int rc = tw_snapshot_encode(add_words, w, w->ev_seq, &next, 1, e->ticks, d->id, d->module,
                                0, 0, w->ev_seq + 1, 0x20000000u, 0, data, n + sl + 1, 64);
    w->ev_seq = next;
    return rc;
  }
  int n = tw_record_encode(rec, 16, w->ev_seq++ & 0xFFFF, 1, e->ticks, d->id, d->module,
                           payload, d->payload_words);
  if (n < 0)
    return n;
  add_words(w, rec, (size_t)n);
  return w->err;
}

int tw_scn_write(const struct tw_scn_cfg *cfg, FILE *f)
{
  struct writer w;
  memset(&w, 0, sizeof w);
  w.f = f;
  uint32_t rec[8], freq = 1000000000u;
  int n = tw_record_encode(rec, 8, w.ev_seq++, 1, 0, TW_EV_SYNC, TW_MOD_CONTROL, &freq, 1);
  if (n < 0)
    return n;
  add_words(&w, rec, (size_t)n);
  int rc = tw_scn_run(cfg, write_event, &w);
  flush_pkt(&w);
  return rc ? rc : w.err;
}
