/* Lookup in the generated meaning table (tracewire/model/meaning.h). */
#include "tracewire/model/meaning.h"

const struct tw_meaning *tw_meaning_find(uint16_t id, uint32_t marker_value)
{
  size_t lo = 0, hi = tw_nmeanings;
  while (lo < hi) { /* sorted by id: the first row of the id */
    size_t mid = lo + (hi - lo) / 2;
    if (tw_meanings[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < tw_nmeanings && tw_meanings[lo].id == id; lo++)
    if (tw_meanings[lo].any || tw_meanings[lo].value == marker_value)
      return &tw_meanings[lo];
  return NULL;
}
