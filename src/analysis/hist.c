/*
 * Log-bucket histogram (HDR-style): value v >= 2*SUB falls in exponent
 * e = floor(log2 v) - log2(SUB) + 1 and sub-bucket (v >> (e-1)) - SUB, so a
 * bucket spans 1/SUB of its power of two; values below 2*SUB have buckets
 * of width 1 (exact). The reported percentile is the bucket midpoint,
 * clamped to the exact [min, max]: relative error <= 1/(2*SUB).
 */
#include <string.h>
#include "tracewire/analysis/analysis.h"

#define NB (TW_HIST_EXP * TW_HIST_SUB)

static unsigned log2u(uint64_t v)
{
  return 63u - (unsigned)__builtin_clzll(v);
}

static unsigned bucket_of(uint64_t v)
{
  if (v < 2 * TW_HIST_SUB)
    return (unsigned)v;
  unsigned l = log2u(v), e = l - 4u + 1u; /* log2(TW_HIST_SUB) == 4 */
  unsigned i = e * TW_HIST_SUB + (unsigned)(v >> (e - 1)) - TW_HIST_SUB;
  return i < NB ? i : NB - 1;
}

uint64_t tw_hist_bucket_lo(unsigned i)
{
  if (i < 2 * TW_HIST_SUB)
    return i;
  unsigned e = i / TW_HIST_SUB, s = i % TW_HIST_SUB;
  return (uint64_t)(TW_HIST_SUB + s) << (e - 1);
}

static uint64_t bucket_width(unsigned i)
{
  return i < 2 * TW_HIST_SUB ? 1 : 1ull << (i / TW_HIST_SUB - 1);
}

_Static_assert(TW_HIST_SUB == 16, "bucket_of assumes 16 sub-buckets");

void tw_hist_add(struct tw_hist *h, uint64_t v)
{
  if (!h->n || v < h->min)
    h->min = v;
  if (v > h->max)
    h->max = v;
  h->n++;
  h->sum += (double)v;
  h->b[bucket_of(v)]++;
}

double tw_hist_mean(const struct tw_hist *h)
{
  return h->n ? h->sum / (double)h->n : 0.0;
}

uint64_t tw_hist_pct(const struct tw_hist *h, double p)
{
  if (!h->n)
    return 0;
  /* rank of the p-th percentile, nearest-rank definition */
  uint64_t rank = (uint64_t)(p / 100.0 * (double)h->n + 0.999999);
  if (rank < 1)
    rank = 1;
  if (rank > h->n)
    rank = h->n;
  uint64_t seen = 0;
  for (unsigned i = 0; i < NB; i++) {
    seen += h->b[i];
    if (seen >= rank) {
      uint64_t w = bucket_width(i), mid = tw_hist_bucket_lo(i) + w / 2;
      if (w == 1)
        mid = tw_hist_bucket_lo(i);
      return mid < h->min ? h->min : mid > h->max ? h->max : mid;
    }
  }
  return h->max;
}
