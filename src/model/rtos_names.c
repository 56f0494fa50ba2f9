/*
 * Names of numbered things, per endpoint, whole (no length limit): NAME
 * events put them here; tw_rtos_name() reads them. Open addressing on
 * (endpoint, kind, number). A rename keeps the old string alive until the
 * model is destroyed: consumers may hold it (a track named earlier).
 */
#include <stdlib.h>
#include <string.h>
#include "rtos_internal.h"
#include "tracewire/error.h"

static uint64_t key_of(uint16_t endpoint, unsigned kind, uint32_t number)
{
  return 1ull << 63 | (uint64_t)endpoint << 40 | (uint64_t)(kind & 0xFF) << 32 | number;
}

static size_t slot(const struct rname *t, size_t cap, uint64_t key)
{
  size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
  while (t[i].key && t[i].key != key)
    i = (i + 1) & (cap - 1);
  return i;
}

static int grow(struct tw_rtos *m)
{
  size_t cap = m->names_cap ? 2 * m->names_cap : 64;
  struct rname *t = calloc(cap, sizeof *t);
  if (!t)
    return TW_ENOMEM;
  for (size_t i = 0; i < m->names_cap; i++)
    if (m->names[i].key)
      t[slot(t, cap, m->names[i].key)] = m->names[i];
  free(m->names);
  m->names = t;
  m->names_cap = cap;
  return 0;
}

static int keep_old(struct tw_rtos *m, char *s)
{
  if (m->nold == m->capold) {
    size_t cap = m->capold ? 2 * m->capold : 16;
    char **a = realloc(m->old_names, cap * sizeof *a);
    if (!a)
      return TW_ENOMEM;
    m->old_names = a;
    m->capold = cap;
  }
  m->old_names[m->nold++] = s;
  return 0;
}

int tw__rtos_name_set(struct tw_rtos *m, uint16_t endpoint, unsigned kind, uint32_t number,
                      const char *s, size_t len, const char **out)
{
  uint64_t key = key_of(endpoint, kind, number);
  struct rname *n;
  char *copy;
  *out = NULL;
  if ((m->nnames + 1) * 2 > m->names_cap && grow(m) < 0)
    return TW_ENOMEM;
  n = &m->names[slot(m->names, m->names_cap, key)];
  if (n->key && strlen(n->s) == len && !memcmp(n->s, s, len)) {
    *out = n->s; /* the same again (START repeats every name) */
    return 0;
  }
  if (!(copy = malloc(len + 1)))
    return TW_ENOMEM;
  memcpy(copy, s, len);
  copy[len] = 0;
  if (n->key && keep_old(m, n->s) < 0) {
    free(copy);
    return TW_ENOMEM;
  }
  if (!n->key)
    m->nnames++;
  n->key = key;
  n->s = copy;
  *out = copy;
  return 0;
}

const char *tw_rtos_name(const struct tw_rtos *m, uint16_t endpoint, enum tw_obj_kind kind,
                         uint32_t number)
{
  const struct rname *n;
  if (!m->names_cap)
    return NULL;
  n = &m->names[slot(m->names, m->names_cap, key_of(endpoint, (unsigned)kind, number))];
  return n->key ? n->s : NULL;
}

int tw_rtos_name_at(const struct tw_rtos *m, size_t i, uint16_t *endpoint,
                    enum tw_obj_kind *kind, uint32_t *number, const char **name)
{
  size_t k = 0;
  for (size_t j = 0; j < m->names_cap; j++) {
    const struct rname *n = &m->names[j];
    if (!n->key || k++ != i)
      continue;
    *endpoint = (uint16_t)(n->key >> 40);
    *kind = (enum tw_obj_kind)(n->key >> 32 & 0xFF);
    *number = (uint32_t)n->key;
    *name = n->s;
    return 1;
  }
  return 0;
}

void tw__rtos_names_free(struct tw_rtos *m)
{
  for (size_t i = 0; i < m->names_cap; i++)
    free(m->names[i].s);
  free(m->names);
  for (size_t i = 0; i < m->nold; i++)
    free(m->old_names[i]);
  free(m->old_names);
}
