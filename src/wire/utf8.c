/*
 * UTF-8 validation (tracewire/wire/utf8.h), in the lowest host layer that
 * handles text so every consumer of target strings (the exporters, the
 * analyses' JSON, the HTML report) repairs them by the one rule.
 */
#include <stdint.h>
#include <string.h>
#include "tracewire/wire/utf8.h"

/* Unicode Table 3-7: the second byte's range depends on the first (that is
 * what rules out overlong forms, surrogates and code points past
 * U+10FFFF); later bytes are 80..BF. */
int tw__utf8_step(const unsigned char *s, size_t n)
{
  unsigned c = s[0], lo = 0x80, hi = 0xBF, len;
  size_t i;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0)
      lo = 0xA0;
    else if (c == 0xED)
      hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0)
      lo = 0x90;
    else if (c == 0xF4)
      hi = 0x8F;
  } else
    return -1; /* 80..C1, F5..FF: never a first byte */
  for (i = 1; i < len; i++) {
    if (i >= n || s[i] < lo || s[i] > hi)
      return -(int)i; /* the bytes so far are one maximal subpart */
    lo = 0x80;
    hi = 0xBF;
  }
  return (int)len;
}

size_t tw__utf8_valid_len(const char *s, size_t n)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    int k;
    uint64_t w;
    if (i + 8 <= n && (memcpy(&w, u + i, 8), !(w & 0x8080808080808080ull))) {
      i += 8; /* eight ASCII bytes at once: most names are plain */
      continue;
    }
    if (u[i] < 0x80) {
      i++;
      continue;
    }
    if ((k = tw__utf8_step(u + i, n - i)) < 0)
      break;
    i += (size_t)k;
  }
  return i;
}
