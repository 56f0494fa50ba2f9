/*
 * What the public headers need to read the same in C99, C11 and C++11:
 * a static assertion. (C linkage is each header's own extern "C" block.)
 */
#ifndef TRACEWIRE_CDEFS_H
#define TRACEWIRE_CDEFS_H

#if defined(__cplusplus)
#define TW_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define TW_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#endif
