/*
 * Grouped findings (tracewire/analysis/analysis.h, docs/analyses.md
 * "Groups"). The detectors (detect.c) report instances; this file files
 * each one under its group as it is added, so a live view sees the groups
 * grow, and keeps per group the count, the first and last time, the total
 * and the worst instance. It knows nothing of how a finding is detected:
 * only which of its tasks and objects say what problem it is.
 *
 * A group's key is (kind, bounded, endpoint, key tasks, objects). The key tasks are
 * all of the finding's, except where a kind's rule below says fewer (a
 * priority inversion's middle tasks differ from one episode to the next,
 * and are collected in others[]); a cyclic kind (a deadlock) is rotated to
 * start at its lowest task, so the same cycle closed by another of its
 * tasks is the same group. A kind added to the detectors later gets the
 * default rule: every task and object is key.
 *
 * Findings are kept (tw_an_finding_at) unless cfg.recent_findings bounds
 * them: then, past 2N, all but the latest N and the open deadlocks (which
 * the detectors still update by index) are let go; the groups keep
 * counting and keep a copy of their worst instance.
 */
#include <stdlib.h>
#include <string.h>
#include "an_internal.h"
#include "tracewire/error.h"

static const struct {
  int8_t key_tasks; /* how many of the finding's first tasks are key; 0: all */
  uint8_t cyclic;   /* tasks[i] waits on objs[i] held by tasks[i + 1]: rotate */
} rules[TW_AN_NKINDS] = {
  [TW_AN_PRIO_INVERSION] = {.key_tasks = 2}, /* the blocked task and the holder */
  [TW_AN_DEADLOCK] = {.cyclic = 1},
};

/* Worst kind first; a kind not listed sorts after these, in enum order. */
static int kind_rank(enum tw_an_finding_kind k)
{
  switch (k) {
  case TW_AN_DEADLOCK: return 0;
  case TW_AN_PRIO_INVERSION: return 1;
  case TW_AN_STARVATION: return 2;
  case TW_AN_BLOCKED_AT_END: return 3;
  default: return 4 + (int)k;
  }
}

static uint16_t endpoint_of(const struct tw_an *a, int core)
{
  const struct tw_rtos_core *mc = core >= 0 ? tw_rtos_core_at(a->m, (size_t)core) : NULL;
  return mc ? mc->endpoint : 0;
}

/* The key of finding f, written into g's key fields. */
static void make_key(const struct tw_an *a, const struct tw_an_finding *f, struct tw_an_group *g)
{
  int kt = (unsigned)f->kind < TW_AN_NKINDS ? rules[f->kind].key_tasks : 0;
  int cyc = (unsigned)f->kind < TW_AN_NKINDS && rules[f->kind].cyclic;
  int nt = kt && kt < f->ntasks ? kt : f->ntasks, rot = 0;
  memset(g, 0, sizeof *g);
  g->kind = f->kind;
  g->bounded = f->bounded != 0;
  g->core = f->core;
  g->endpoint = endpoint_of(a, f->core);
  if (cyc && f->ntasks == f->nobjs)
    for (int i = 1; i < f->ntasks; i++)
      if (f->tasks[i] < f->tasks[rot])
        rot = i;
  g->ntasks = nt;
  g->nobjs = f->nobjs;
  for (int i = 0; i < nt; i++)
    g->tasks[i] = f->tasks[(i + rot) % nt];
  for (int i = 0; i < f->nobjs; i++) {
    int k = cyc && f->ntasks == f->nobjs ? (i + rot) % f->nobjs : i;
    g->obj_kinds[i] = f->obj_kinds[k];
    g->objs[i] = f->objs[k];
  }
}

static int same_key(const struct tw_an_group *x, const struct tw_an_group *y)
{
  if (x->kind != y->kind || x->bounded != y->bounded || x->endpoint != y->endpoint ||
      x->ntasks != y->ntasks || x->nobjs != y->nobjs)
    return 0;
  for (int i = 0; i < x->ntasks; i++)
    if (x->tasks[i] != y->tasks[i])
      return 0;
  for (int i = 0; i < x->nobjs; i++)
    if (x->obj_kinds[i] != y->obj_kinds[i] || x->objs[i] != y->objs[i])
      return 0;
  return 1;
}

static size_t key_hash(const struct tw_an_group *g)
{
  uint64_t h = 1469598103934665603ull;
  h = (h ^ (uint64_t)g->kind << 1 ^ (uint64_t)g->bounded) * 1099511628211ull;
  h = (h ^ g->endpoint) * 1099511628211ull;
  for (int i = 0; i < g->ntasks; i++)
    h = (h ^ g->tasks[i]) * 1099511628211ull;
  for (int i = 0; i < g->nobjs; i++)
    h = (h ^ ((uint64_t)g->obj_kinds[i] << 16 | g->objs[i])) * 1099511628211ull;
  return (size_t)(h ^ h >> 29);
}

static int rehash(struct tw_an *a, size_t cap)
{
  uint32_t *h = tw__an_calloc(a, cap, sizeof *h);
  if (!h)
    return TW_ENOMEM;
  for (size_t i = 0; i < a->ngroups; i++) {
    size_t s = key_hash(&a->groups[i]) & (cap - 1);
    while (h[s])
      s = (s + 1) & (cap - 1);
    h[s] = (uint32_t)(i + 1);
  }
  free(a->ghash);
  a->ghash = h;
  a->ghcap = cap;
  return 0;
}

/* The group of key k: found, or made (SIZE_MAX when out of memory). */
static size_t group_of(struct tw_an *a, const struct tw_an_group *k)
{
  size_t s = 0;
  if (a->ghcap) {
    for (s = key_hash(k) & (a->ghcap - 1); a->ghash[s]; s = (s + 1) & (a->ghcap - 1))
      if (same_key(&a->groups[a->ghash[s] - 1], k))
        return a->ghash[s] - 1;
  }
  if (a->ngroups >= UINT32_MAX - 1)
    return SIZE_MAX;
  if ((a->ngroups + 1) * 2 > a->ghcap) {
    if (rehash(a, a->ghcap ? a->ghcap * 2 : 64) < 0)
      return SIZE_MAX;
    for (s = key_hash(k) & (a->ghcap - 1); a->ghash[s]; s = (s + 1) & (a->ghcap - 1))
      ;
  }
  if (tw__an_grow(a, &a->groups, &a->ngroups_cap, a->ngroups + 1, sizeof *a->groups) < 0)
    return SIZE_MAX;
  a->groups[a->ngroups] = *k;
  a->groups[a->ngroups].seq = a->ngroups;
  a->groups[a->ngroups].first = UINT64_MAX;
  a->ghash[s] = (uint32_t)(a->ngroups + 1);
  return a->ngroups++;
}

static void add_other(struct tw_an_group *g, uint16_t task)
{
  for (int i = 0; i < g->nothers; i++)
    if (g->others[i] == task)
      return;
  if (g->nothers < TW_AN_MAX_INVOLVED)
    g->others[g->nothers++] = task;
}

static void take_worst(struct tw_an_group *g, const struct tw_an_finding *f, size_t i)
{
  if (g->count == 1 || f->ns > g->worst.ns ||
      (f->ns == g->worst.ns && f->t0 < g->worst.t0)) {
    g->worst = *f;
    g->worst_index = i;
  }
}

/* Keeps the latest N findings and the open deadlocks, in order; the
 * detectors' open_dl indices and the groups' worst_index follow. */
static void let_go(struct tw_an *a)
{
  size_t keep_from = a->nfind - a->cfg.recent_findings, o = 0;
  size_t *map = malloc(a->nfind * sizeof *map);
  if (!map)
    return; /* kept for now; tried again at the next finding */
  for (size_t i = 0; i < a->nfind; i++) {
    int open = 0;
    for (size_t k = 0; k < a->nopen_dl && !open; k++)
      open = a->open_dl[k] == i;
    map[i] = SIZE_MAX;
    if (i >= keep_from || open) {
      a->findings[o] = a->findings[i];
      a->fgroup[o] = a->fgroup[i];
      map[i] = o++;
    }
  }
  for (size_t k = 0; k < a->nopen_dl; k++)
    a->open_dl[k] = map[a->open_dl[k]];
  for (size_t g = 0; g < a->ngroups; g++)
    if (a->groups[g].worst_index != SIZE_MAX)
      a->groups[g].worst_index = map[a->groups[g].worst_index];
  a->nfind_dropped += a->nfind - o;
  a->nfind = o;
  free(map);
}

void tw__an_group_add(struct tw_an *a, size_t i)
{
  const struct tw_an_finding *f = &a->findings[i];
  struct tw_an_group k;
  if (tw__an_grow(a, &a->fgroup, &a->fgroup_cap, i + 1, sizeof *a->fgroup) < 0)
    return;
  make_key(a, f, &k);
  size_t gi = group_of(a, &k);
  a->fgroup[i] = gi;
  if (gi == SIZE_MAX)
    return;
  struct tw_an_group *g = &a->groups[gi];
  g->count++;
  g->across_gap += f->across_gap != 0;
  g->first = f->t0 < g->first ? f->t0 : g->first;
  g->last = f->t1 > g->last ? f->t1 : g->last;
  g->total_ns += f->ns;
  for (int t = g->ntasks; f->kind == TW_AN_PRIO_INVERSION && t < f->ntasks; t++)
    add_other(g, f->tasks[t]);
  take_worst(g, f, i);
  if (a->cfg.recent_findings && a->nfind > 2 * a->cfg.recent_findings)
    let_go(a);
}

void tw__an_group_update(struct tw_an *a, size_t i, const struct tw_an_finding *before)
{
  if (i >= a->nfind || i >= a->fgroup_cap || a->fgroup[i] >= a->ngroups)
    return;
  const struct tw_an_finding *f = &a->findings[i];
  struct tw_an_group *g = &a->groups[a->fgroup[i]];
  g->across_gap += (f->across_gap != 0) - (before->across_gap != 0);
  g->last = f->t1 > g->last ? f->t1 : g->last;
  g->total_ns += f->ns - before->ns;
  if (g->worst_index == i)
    g->worst = *f; /* (grows: still the worst) */
  else if (f->ns > g->worst.ns || (f->ns == g->worst.ns && f->t0 < g->worst.t0)) {
    g->worst = *f;
    g->worst_index = i;
  }
}

int tw_an_group_cmp(const struct tw_an_group *x, const struct tw_an_group *y)
{
  int kx = kind_rank(x->kind), ky = kind_rank(y->kind);
  if (kx != ky)
    return kx < ky ? -1 : 1;
  if (x->bounded != y->bounded)
    return x->bounded ? 1 : -1; /* inheritance bounded it: less urgent */
  if (x->worst.ns != y->worst.ns)
    return x->worst.ns > y->worst.ns ? -1 : 1;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  if (x->first != y->first)
    return x->first < y->first ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_groups(const void *x, const void *y) { return tw_an_group_cmp(x, y); }

void tw__an_groups_finish(struct tw_an *a)
{
  size_t *rank;
  if (!a->ngroups)
    return;
  qsort(a->groups, a->ngroups, sizeof *a->groups, cmp_groups);
  /* findings point at groups by index: their old index is seq */
  if (!(rank = tw__an_calloc(a, a->ngroups, sizeof *rank)))
    return;
  for (size_t i = 0; i < a->ngroups; i++)
    rank[a->groups[i].seq] = i;
  for (size_t i = 0; i < a->nfind && i < a->fgroup_cap; i++)
    if (a->fgroup[i] < a->ngroups)
      a->fgroup[i] = rank[a->fgroup[i]];
  free(rank);
  rehash(a, a->ghcap); /* (lookups after the end are not made; kept consistent anyway) */
}

void tw__an_groups_free(struct tw_an *a)
{
  free(a->groups);
  free(a->ghash);
  free(a->fgroup);
}

size_t tw_an_ngroups(const struct tw_an *a) { return a->ngroups; }

const struct tw_an_group *tw_an_group_at(const struct tw_an *a, size_t i)
{
  return i < a->ngroups ? &a->groups[i] : NULL;
}

size_t tw_an_finding_group(const struct tw_an *a, size_t i)
{
  return i < a->nfind && i < a->fgroup_cap ? a->fgroup[i] : SIZE_MAX;
}

void tw_an_finding_text(const struct tw_an *a, const struct tw_an_finding *f, char *buf,
                        size_t cap)
{
  tw__an_finding_text(a, f, buf, cap);
}

static void fmt_t(char *buf, size_t cap, uint64_t ns)
{
  if (ns >= 1000000000ull)
    snprintf(buf, cap, "%.3f s", (double)ns / 1e9);
  else if (ns >= 1000000ull)
    snprintf(buf, cap, "%.3f ms", (double)ns / 1e6);
  else
    snprintf(buf, cap, "%.3f us", (double)ns / 1e3);
}

void tw_an_group_text(const struct tw_an *a, const struct tw_an_group *g, char *buf, size_t cap)
{
  char first[32], last[32];
  size_t n;
  if (!cap)
    return;
  if (g->count <= 1) {
    tw__an_finding_text(a, &g->worst, buf, cap);
    return;
  }
  fmt_t(first, sizeof first, g->first);
  fmt_t(last, sizeof last, g->last);
  n = (size_t)snprintf(buf, cap, "%llu times from %s to %s", (unsigned long long)g->count, first,
                       last);
  if (g->across_gap && n < cap)
    n += (size_t)snprintf(buf + n, cap - n, " (%llu across a gap)",
                          (unsigned long long)g->across_gap);
  if (n < cap)
    n += (size_t)snprintf(buf + n, cap - n, "; worst: ");
  if (n < cap)
    tw__an_finding_text(a, &g->worst, buf + n, cap - n);
}
