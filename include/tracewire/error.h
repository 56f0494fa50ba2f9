/*
 * tracewire error codes.
 *
 * Fallible functions return int: 0 (or a positive count) on success, a
 * negative TW_E* code on failure. TW_ERRNO_MAP is the only list; the enum,
 * tw_err_name() and tw_strerror() are all expanded from it, so a code can
 * not exist without a name and a message. Values are fixed (they may cross
 * the wire in RESULT bodies): append, never renumber.
 *
 * Freestanding: usable on the target (no errno.h involved).
 */
#ifndef TRACEWIRE_ERROR_H
#define TRACEWIRE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#define TW_ERRNO_MAP(XX)                                                      \
  XX(EINVAL,      1, "invalid argument")                                       \
  XX(ENOMEM,      2, "not enough memory")                                      \
  XX(ENOSPC,      3, "no space left (buffer or ring full)")                    \
  XX(EMSGSIZE,    4, "caller's buffer too small for the message")              \
  XX(EAGAIN,      5, "try again (nothing available yet)")                      \
  XX(ETIMEDOUT,   6, "timed out")                                              \
  XX(EBUSY,       7, "busy")                                                   \
  XX(ENOENT,      8, "no such entry")                                          \
  XX(EEXIST,      9, "already exists")                                         \
  XX(ERANGE,     10, "value out of range")                                     \
  XX(ENOTSUP,    11, "not supported")                                          \
  XX(EIO,        12, "input/output error")                                     \
  XX(EOF,        13, "end of input")                                           \
  XX(ETRUNC,     14, "truncated: length field exceeds the bytes given")        \
  XX(ESHORT,     15, "length field smaller than the header")                   \
  XX(EALIGN,     16, "length is not a multiple of 4 bytes")                    \
  XX(EHDRTYPE,   17, "unknown or unsupported header type")                     \
  XX(EFOOTER,    18, "packet footer does not match the header")                \
  XX(ERESERVED,  19, "reserved bits are set")                                  \
  XX(ECRC,       20, "CRC mismatch")                                           \
  XX(ETOOBIG,    21, "length exceeds the configured maximum")                  \
  XX(ESNAPGAP,   22, "snapshot record missing (address discontinuity)")        \
  XX(ESNAPLEN,   23, "snapshot lengths inconsistent")                          \
  XX(EUNKNOWNID, 24, "unknown event id")                                       \
  XX(EBADMSG,    25, "malformed message")                                      \
  XX(ECONNRESET, 26, "connection reset")                                       \
  XX(ENOTCONN,   27, "not connected")                                          \
  XX(ECANCELED,  28, "canceled")                                               \
  XX(EABI,       29, "ABI revision mismatch")                                  \
  XX(EPROTO,     30, "protocol error")                                         \
  XX(ENACK,      31, "target answered NACK")                                   \
  XX(EBACKWARDS, 32, "timestamp went backwards")                               \
  XX(ESYS,       33, "system call failed (see errno)")

enum tw_errno {
#define TW__ERR_ENUM(name, val, msg) TW_##name = -(val),
  TW_ERRNO_MAP(TW__ERR_ENUM)
#undef TW__ERR_ENUM
  TW_OK = 0
};

/* "TW_EINVAL" for TW_EINVAL; "TW_E?" for an unknown code. Any context. */
const char *tw_err_name(int err);
/* Human message; "success" for 0; "unknown error" otherwise. Any context. */
const char *tw_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif
