/*
 * UTF-8 as Unicode 15 defines it, for text the target sent (names,
 * declarations, strings), which may be anything. Host internals shared by
 * the layers above (src/export/text.c builds its writers on them; the
 * analyses' JSON and the HTML report repair names with them): each
 * maximal ill-formed subpart becomes one U+FFFD (Unicode 15, section 3.9),
 * what Python's decode(errors='replace') does. Pure functions: reentrant,
 * any thread.
 */
#ifndef TW_WIRE_UTF8_H
#define TW_WIRE_UTF8_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One step of UTF-8 decoding at s[0..n), n > 0: the length of the valid
 * sequence there (1..4), or minus the length of the maximal ill-formed
 * subpart there (-1..-3). Overlong forms, surrogates (ED A0..BF) and code
 * points above U+10FFFF are ill-formed. */
int tw__utf8_step(const unsigned char *s, size_t n);
/* Length of the longest valid UTF-8 prefix of s[0..n). */
size_t tw__utf8_valid_len(const char *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif
