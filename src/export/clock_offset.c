/*
 * The CTF clock offset as text: seconds since the epoch, parsed as a
 * decimal so that every nanosecond written is exact. Through a double,
 * 1700000000.25 s is 1700000000249999872 ns (a double near 1.7e18 steps by
 * 256 ns) and the offset lands one 1 MHz tick early.
 */
#include <stdio.h>
#include "tracewire/error.h"
#include "tracewire/export/export.h"

#define NS_MAX 9223372036854775807ull /* INT64_MAX */

static int bad(char *err, size_t errcap, const char *fmt, const char *s)
{
  if (err && errcap)
    snprintf(err, errcap, fmt, s);
  return TW_EINVAL;
}

int tw_export_parse_offset(const char *s, int64_t *ns, char *err, size_t errcap)
{
  const char *p = s;
  unsigned long long sec = 0, frac = 0, scale = 100000000;
  int neg = *p == '-', digits = 0;
  p += neg;
  for (; *p >= '0' && *p <= '9'; p++, digits++) {
    if (sec > NS_MAX / 1000000000u)
      return bad(err, errcap, "'%s': out of range (at most 9223372036.854775807 seconds)", s);
    sec = sec * 10 + (unsigned)(*p - '0');
  }
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
      if (!scale && *p != '0')
        return bad(err, errcap, "'%s': more than 9 decimals (finer than a nanosecond)", s);
      frac += (unsigned long long)(*p - '0') * scale;
      scale /= 10;
    }
  if (!digits || *p)
    return bad(err, errcap,
               "'%s': not a decimal number of seconds (digits, an optional '-' and fraction)", s);
  if (sec > NS_MAX / 1000000000u || sec * 1000000000u > NS_MAX - frac)
    return bad(err, errcap, "'%s': out of range (at most 9223372036.854775807 seconds)", s);
  *ns = neg ? -(int64_t)(sec * 1000000000u + frac) : (int64_t)(sec * 1000000000u + frac);
  return 0;
}
