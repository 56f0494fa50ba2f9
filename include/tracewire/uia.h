/*
 * tracewire wire format: TI UIA packets (UIAPacket) and event records
 * (EventHdr), native API. The seed names live in tracewire/compat/uia.h.
 *
 * Byte order, stated once (docs/wire-format.md):
 *   - Packet headers and footers are big-endian on the wire. A tw_pkt_hdr in
 *     memory holds the wire image (word1 is the first four bytes on the
 *     wire), so it can be memcpy'd to and from a transport on any host; the
 *     accessors below convert to and from logical values.
 *   - Event records (EventHdr word and payload words) are 32-bit words in
 *     the sender's native order, announced by the packet's payload-endian bit.
 *     Message bodies are big-endian (network order), like the NACK error code.
 *
 * Freestanding: no libc beyond <stdint.h>/<stddef.h>/<string.h>.
 * Context: every function here is reentrant and touches only its
 * arguments, so any context (ISR included) may call it, except
 * tw_snapshot_encode (thread context: it emits many records and keeps a
 * TW_CFG_SNAP_MAX_REC_BYTES scratch record on the stack). A reassembler is
 * used by one thread at a time.
 */
#ifndef TRACEWIRE_UIA_H
#define TRACEWIRE_UIA_H

#include "tracewire/cdefs.h"

#include <stddef.h>
#include <stdint.h>
#include "tracewire/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- byte order -------------------------------------------------------- */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define TW_HOST_BIG_ENDIAN 1
#else
#define TW_HOST_BIG_ENDIAN 0
#endif

static inline uint32_t tw_bswap32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint16_t tw_bswap16(uint16_t v) { return __builtin_bswap16(v); }
/* host value <-> big-endian image (the same operation both ways) */
static inline uint32_t tw_htobe32(uint32_t v) { return TW_HOST_BIG_ENDIAN ? v : tw_bswap32(v); }
static inline uint16_t tw_htobe16(uint16_t v) { return TW_HOST_BIG_ENDIAN ? v : tw_bswap16(v); }
#define tw_be32toh tw_htobe32
#define tw_be16toh tw_htobe16

/* Unaligned loads/stores from byte buffers, explicit order. */
static inline uint32_t tw_load_be32(const void *p)
{
  const uint8_t *b = (const uint8_t *)p;
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}
static inline uint32_t tw_load_le32(const void *p)
{
  const uint8_t *b = (const uint8_t *)p;
  return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}
static inline void tw_store_be32(void *p, uint32_t v)
{
  uint8_t *b = (uint8_t *)p;
  b[0] = (uint8_t)(v >> 24); b[1] = (uint8_t)(v >> 16); b[2] = (uint8_t)(v >> 8); b[3] = (uint8_t)v;
}
static inline void tw_store_le32(void *p, uint32_t v)
{
  uint8_t *b = (uint8_t *)p;
  b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)(v >> 16); b[3] = (uint8_t)(v >> 24);
}

/* ---- constants ----------------------------------------------------------- */

#define TW_ADDR_BROADCAST 0xFFFEu /* the seed's constant wins over setDestAdrs' prose */
#define TW_ADDR_HOST      0xFFFFu
#define TW_ADDR_DEFAULT   0x0001u /* the seed's default sender address */
#define TW_FOOTER_MAGIC   0x7777u

#ifndef TW_CFG_MAX_PKT_BYTES
#define TW_CFG_MAX_PKT_BYTES 128 /* UIAPacket_maxPktLengthInBytes default */
#endif

/* Packet header type: 4 bits, word1 b31-b28. Order and values are the seed's. */
enum tw_pkt_type {
  TW_PKT_INVALID_DATA = 0, TW_PKT_MSG_WITH_PID = 1, TW_PKT_EVENT_WITH_CRC = 2,
  TW_PKT_MIN_EVENT = 3, TW_PKT_RESERVED4 = 4, TW_PKT_RESERVED5 = 5,
  TW_PKT_RESERVED6 = 6, TW_PKT_RESERVED7 = 7, TW_PKT_CHANNELIZED_DATA = 8,
  TW_PKT_MSG = 9, TW_PKT_EVENT = 10, TW_PKT_CPU_TRACE = 11, TW_PKT_STM_TRACE = 12,
  TW_PKT_MEMORY_BUFFER = 13, TW_PKT_USER2 = 14, TW_PKT_USER3 = 15
};

/* Message type: 4 bits, Msg word1 b15-b12. */
enum tw_msg_type {
  TW_MSG_ACK = 0, TW_MSG_CMD = 1, TW_MSG_RESULT = 2, TW_MSG_PARTIALRESULT = 3,
  TW_MSG_NOTIFY = 4, /* the seed's prose calls it MsgType_EVENT */
  TW_MSG_FLOWCTRL = 5, TW_MSG_DATA = 6,
  TW_MSG_NACK_BAD_DATA = 14, TW_MSG_NACK_WITH_ERROR_CODE = 15
};
#define TW_MSG_EVENT TW_MSG_NOTIFY

/* NACK error code: first body word of a NACK_WITH_ERROR_CODE, big-endian. */
enum tw_nack_code {
  TW_NACK_NO_REASON_SPECIFIED = 0, TW_NACK_SERVICE_NOT_SUPPORTED = 1,
  TW_NACK_CMD_NOT_SUPPORTED = 2, TW_NACK_QUEUE_FULL = 3,
  TW_NACK_BAD_ENDPOINT_ADDRESS = 4, TW_NACK_BAD_MESSAGE_LENGTH = 5
};
const char *tw_nack_name(uint32_t code); /* "BAD_MESSAGE_LENGTH"; "?" if unknown */

enum tw_endian { TW_ENDIAN_LITTLE = 0, TW_ENDIAN_BIG = 1 };
#define TW_ENDIAN_NATIVE (TW_HOST_BIG_ENDIAN ? TW_ENDIAN_BIG : TW_ENDIAN_LITTLE)

/* Event record header type: 5 bits, EventHdr b31-b27. */
enum tw_rec_type {
  TW_REC_EVENT = 0, TW_REC_EVENT_TS = 1, TW_REC_SNAPSHOT = 2, TW_REC_SNAPSHOT_TS = 3
};

/* ---- packet header image ------------------------------------------------- */

/* Words hold the big-endian wire image; use the accessors. */
typedef struct tw_pkt_hdr {
  uint32_t word1, word2, word3, word4;
} tw_pkt_hdr;
TW_STATIC_ASSERT(sizeof(tw_pkt_hdr) == 16, "UIA packet header is 4 words");

#define TW_MSG_HDR_BYTES     16u
#define TW_EVPKT_HDR_BYTES   16u
#define TW_CRCPKT_HDR_BYTES  20u
#define TW_MINPKT_HDR_BYTES   8u
#define TW_FOOTER_BYTES       4u
#define TW_MSG_MAX_BYTES   2047u  /* 11-bit length */
#define TW_EVPKT_MAX_BYTES 0xFFFFu /* the footer carries 16 bits of length */

/* read-modify-write of a bit field in a wire-image word */
static inline uint32_t tw__getf(uint32_t be, unsigned shift, unsigned bits)
{
  return (tw_be32toh(be) >> shift) & ((bits == 32) ? 0xFFFFFFFFu : ((1u << bits) - 1u));
}
static inline void tw__setf(uint32_t *be, unsigned shift, unsigned bits, uint32_t v)
{
  uint32_t m = ((bits == 32) ? 0xFFFFFFFFu : ((1u << bits) - 1u)) << shift;
  *be = tw_htobe32((tw_be32toh(*be) & ~m) | ((v << shift) & m));
}

/* Every field of every header type, as (word, shift, bits). One line each;
 * the tw_pkt_get_<field>/tw_pkt_set_<field> pairs below are expanded from
 * it (tracewire/compat/uia.h wraps those). Setters mask the value to the
 * field's width and leave every other bit alone. */
#define TW_PKT_FIELDS(XX)                                          \
  XX(hdr_type,        word1, 28,  4) /* all types */                \
  XX(endian,          word1, 27,  1) /* all but InvalidData */      \
  XX(msg_length,      word1, 16, 11) /* Msg */                      \
  XX(msg_type,        word1, 12,  4) /* Msg */                      \
  XX(service_id,      word1,  0, 12) /* Msg */                      \
  XX(event_length,    word1,  0, 27) /* EventPkt, WithCRC, Invalid */ \
  XX(min_device,      word1, 22,  5) /* MinEventPkt */              \
  XX(min_reserved,    word1, 16,  6) /* MinEventPkt, must be 0 */   \
  XX(min_length,      word1,  0, 16) /* MinEventPkt */              \
  XX(seq,             word2, 16, 16) /* Msg, EventPkt, MinEventPkt */ \
  XX(cmd_id,          word2,  0, 16) /* Msg */                      \
  XX(event_seq,       word2,  2, 14) /* EventPkt, MinEventPkt */    \
  XX(priority,        word2,  0,  2) /* EventPkt, MinEventPkt */    \
  XX(tag,             word3,  0, 32) /* Msg */                      \
  XX(logger_dynamic,  word3, 31,  1) /* EventPkt */                 \
  XX(logger_instance, word3, 16, 15) /* EventPkt */                 \
  XX(logger_module,   word3,  0, 16) /* EventPkt */                 \
  XX(dest,            word4, 16, 16) /* Msg, EventPkt */            \
  XX(src,             word4,  0, 16) /* Msg, EventPkt */

#define TW__PKT_ACCESSORS(name, word, shift, bits)                                  \
  static inline uint32_t tw_pkt_get_##name(const tw_pkt_hdr *h)                     \
  { return tw__getf(h->word, shift, bits); }                                         \
  static inline void tw_pkt_set_##name(tw_pkt_hdr *h, uint32_t v)                   \
  { tw__setf(&h->word, shift, bits, v); }
TW_PKT_FIELDS(TW__PKT_ACCESSORS)
#undef TW__PKT_ACCESSORS

/* Packet length in bytes (header and footer included), whatever the type. */
uint32_t tw_pkt_get_length(const tw_pkt_hdr *h);
/* Header bytes for a type this implementation decodes; 0 otherwise. */
uint32_t tw_pkt_hdr_bytes(uint32_t hdr_type);

/* Footer word, logical value: (length << 16) | 0x7777. Big-endian on the wire. */
static inline uint32_t tw_pkt_footer(uint32_t length)
{
  return (length & 0xFFFFu) << 16 | TW_FOOTER_MAGIC;
}

void tw_pkt_init_msg(tw_pkt_hdr *h, enum tw_endian e, enum tw_msg_type type,
                     uint32_t msg_length, uint32_t service_id, uint32_t seq,
                     uint32_t cmd_id, uint32_t tag, uint32_t dest, uint32_t src);
void tw_pkt_init_event(tw_pkt_hdr *h, enum tw_endian e, uint32_t length,
                       uint32_t seq, uint32_t priority, uint32_t module_id,
                       uint32_t instance_id, uint32_t dest, uint32_t src);
/* 2-word header: only word1 and word2 are written. */
void tw_pkt_init_min_event(tw_pkt_hdr *h, enum tw_endian e, uint32_t device);
/* InvalidData padding: only word1 is written; length includes that word. */
void tw_pkt_set_invalid(tw_pkt_hdr *h, uint32_t length);

/* CRC of the application name for EventPktWithCRC (word 5, low 16 bits),
 * and of a packet in its PKT_CHECK record (docs/wire-format.md, "Payload
 * check"):
 * CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0;
 * check value 0x29B1 for "123456789"). See docs/wire-format.md. */
uint16_t tw_crc16(const void *data, size_t len);

/* ---- packet parsing (host and target) ------------------------------------ */

/* A packet validated in place in a caller's buffer. */
struct tw_pkt {
  tw_pkt_hdr hdr;            /* wire image; word4 zero for MinEventPkt */
  uint32_t hdr_type;
  uint32_t length;           /* bytes, header and footer included */
  uint32_t crc;              /* word 5 of EventPktWithCRC, else 0 */
  enum tw_endian endian;     /* payload byte order */
  const uint8_t *payload;    /* after the header, before the footer */
  size_t payload_len;        /* bytes, a multiple of 4 */
  uint8_t footerless;        /* parsed with TW_PKT_NO_FOOTER: no footer word */
};

/* Word i of the payload (a message body, or an event packet's records) in
 * host order, read in the byte order the E bit announces. */
static inline uint32_t tw_pkt_word(const struct tw_pkt *p, size_t i)
{
  const uint8_t *w = p->payload + 4 * i;
  return p->endian == TW_ENDIAN_BIG ? tw_load_be32(w) : tw_load_le32(w);
}

/* Parse one packet at buf[0..len). max_len bounds the length field (0: no
 * bound beyond the type's own). Returns the packet length (> 0) or:
 *   TW_ETRUNC    fewer bytes given than the header or the length says
 *   TW_ESHORT    length smaller than header + footer
 *   TW_EALIGN    length not a multiple of 4
 *   TW_EHDRTYPE  a header type this implementation does not decode
 *   TW_EFOOTER   footer magic or length does not match
 *   TW_ERESERVED reserved bits set (MinEventPkt R, WithCRC word 5 b31-16,
 *                InvalidData b27)
 *   TW_ETOOBIG   length exceeds max_len or the type's maximum
 * Checked in that order after ETRUNC for a missing word 1: EHDRTYPE,
 * EALIGN, ESHORT, ETOOBIG, ETRUNC, ERESERVED, EFOOTER. Nothing outside
 * buf[0..len) is read. On TW_ETRUNC with len >= 4 (and a decodable
 * type), out->length is the length the header announces: the bytes a
 * stream reader must have before parsing again. Otherwise out is
 * unspecified on error.
 * InvalidData padding parses as a packet with no footer and no payload. */
int tw_pkt_parse(const uint8_t *buf, size_t len, size_t max_len, struct tw_pkt *out);

/* As tw_pkt_parse, with flags:
 *   TW_PKT_NO_FOOTER  the packet has no footer word, as TI's own senders
 *                     write it: the length counts header and payload
 *                     only; no TW_EFOOTER, length >= header suffices, and
 *                     out->footerless is 1. (Which packets of a stream have
 *                     a footer is the framing reader's call:
 *                     tracewire/wire/reader.h.) */
#define TW_PKT_NO_FOOTER 1u
int tw_pkt_parse_ex(const uint8_t *buf, size_t len, size_t max_len, unsigned flags,
                    struct tw_pkt *out);

/* 0 when payload[0..len) is a whole number of well-formed event records in
 * order e (each a known type, aligned, at least its layout, and their
 * lengths add up to len exactly), else the TW_E* of the first that is not.
 * A footer-less packet has only this to confirm its length. */
int tw_records_tile(const uint8_t *payload, size_t len, enum tw_endian e);

/* ---- event records (EventHdr) -------------------------------------------- */

#define TW_REC_MAX_BYTES 2044u /* 11-bit length, multiple of 4 */

static inline uint32_t tw_evhdr_make(uint32_t type, uint32_t length, uint32_t seq)
{
  return (type & 0x1Fu) << 27 | (length & 0x7FFu) << 16 | (seq & 0xFFFFu);
}
static inline uint32_t tw_evhdr_type(uint32_t w)   { return w >> 27; }
static inline uint32_t tw_evhdr_length(uint32_t w) { return (w >> 16) & 0x7FFu; }
static inline uint32_t tw_evhdr_seq(uint32_t w)    { return w & 0xFFFFu; }
static inline uint32_t tw_evhdr_with_type(uint32_t w, uint32_t t)
{ return (w & 0x07FFFFFFu) | (t & 0x1Fu) << 27; }
static inline uint32_t tw_evhdr_with_length(uint32_t w, uint32_t n)
{ return (w & 0xF800FFFFu) | (n & 0x7FFu) << 16; }
static inline uint32_t tw_evhdr_with_seq(uint32_t w, uint32_t s)
{ return (w & 0xFFFF0000u) | (s & 0xFFFFu); }

/* Snapshot part of a record (words after the id word). */
struct tw_snap_info {
  uint32_t file;      /* filename pointer (target address, or 0) */
  uint32_t line;
  uint32_t snap_id;
  uint32_t address;   /* where this record's data was on the target */
  uint16_t total_len; /* bytes of data under this snapshot id, all records */
  uint16_t this_len;  /* bytes of data in this record (TI layout: rounded up
                         to whole words; the last record may pass total_len
                         by its padding, which the reassembler drops) */
  uint32_t format;    /* format pointer (target address, or 0) */
  uint8_t ti_layout;  /* the length word was TI's: this record's length in
                         the upper half, the total in the lower (uia.c) */
};

/* A decoded record; header words converted to host order. */
struct tw_record {
  uint32_t type;          /* enum tw_rec_type */
  uint32_t length;        /* bytes including the header word */
  uint32_t seq;           /* 16-bit event sequence number */
  int has_ts;
  uint64_t ts;            /* 64-bit timestamp, target clock ticks */
  uint16_t event_id;      /* top 16 bits of the id word */
  uint16_t module_id;     /* bottom 16 bits */
  int is_snapshot;
  struct tw_snap_info snap;
  const uint8_t *payload; /* payload words (sender order) or snapshot data */
  size_t payload_len;     /* bytes; for snapshots this_len */
  enum tw_endian endian;  /* order of payload words */
};

/* Payload word i in host order. */
static inline uint32_t tw_record_word(const struct tw_record *r, size_t i)
{
  const uint8_t *p = r->payload + 4 * i;
  return r->endian == TW_ENDIAN_BIG ? tw_load_be32(p) : tw_load_le32(p);
}

/* Parse one record at buf[0..len) whose words are in order e. Returns the
 * record length (> 0) or TW_ETRUNC, TW_ESHORT (shorter than its layout),
 * TW_EALIGN, TW_EHDRTYPE (reserved type), TW_ESNAPLEN (the snapshot length
 * word fits neither layout: this_len exceeds the record or total_len).
 * Snapshot length words are read in the seed's layout (total << 16 | this)
 * or TI's (this rounded to words << 16 | total), told apart as
 * docs/wire-format.md says; snap.ti_layout says which. */
int tw_record_parse(const uint8_t *buf, size_t len, enum tw_endian e, struct tw_record *out);

/* Encode a plain or timestamped record with npayload payload words into
 * dst (native order). Returns words written or TW_ENOSPC / TW_ETOOBIG. */
int tw_record_encode(uint32_t *dst, size_t cap_words, uint32_t seq, int with_ts,
                     uint64_t ts, uint16_t event_id, uint16_t module_id,
                     const uint32_t *payload, size_t npayload);

/* Split a snapshot of data[0..len) into records of at most max_rec_bytes
 * each (<= TW_REC_MAX_BYTES), all with snap_id, the address advanced per
 * record, total/this lengths in the length word. emit() is called once per
 * record with its native-order words; a nonzero return stops and is
 * returned. seq is the first record's sequence number, incremented per
 * record; *seq_out receives the next free one. Returns 0 or an error. */
/* Records are built in a stack buffer of TW_CFG_SNAP_MAX_REC_BYTES; a larger
 * (or 0) max_rec_bytes is clamped to it. Empty data (len 0) still yields one
 * record. Errors: TW_ETOOBIG (len > 0xFFFF, the 16-bit total), TW_EINVAL
 * (max_rec_bytes leaves no room for data). Thread context (not ISR: it may
 * emit many records). */
#ifndef TW_CFG_SNAP_MAX_REC_BYTES
#define TW_CFG_SNAP_MAX_REC_BYTES 256
#endif
TW_STATIC_ASSERT(TW_CFG_SNAP_MAX_REC_BYTES % 4 == 0 && TW_CFG_SNAP_MAX_REC_BYTES <= 2044 &&
               TW_CFG_SNAP_MAX_REC_BYTES > 40, "snapshot record scratch size");
typedef int (*tw_record_sink)(void *ctx, const uint32_t *words, size_t nwords);
int tw_snapshot_encode(tw_record_sink emit, void *ctx, uint32_t seq, uint32_t *seq_out,
                       int with_ts, uint64_t ts, uint16_t event_id, uint16_t module_id,
                       uint32_t file, uint32_t line, uint32_t snap_id, uint32_t address,
                       uint32_t format, const void *data, size_t len, size_t max_rec_bytes);

/* Reassembles one snapshot id at a time into a caller's buffer.
 * Host or target, one thread per reassembler; no allocation. */
struct tw_snap_reasm {
  uint8_t *buf;
  size_t cap;
  int active;             /* a snapshot is being collected */
  int complete;           /* buf[0..total) holds a whole snapshot */
  int skip;               /* a record of snap_id was lost: drop the rest of it */
  uint32_t snap_id, base_addr, next_addr;
  uint16_t total, got;
  uint16_t event_id, module_id;
};
void tw_snap_reasm_init(struct tw_snap_reasm *r, uint8_t *buf, size_t cap);
/* Feed a snapshot record. Returns 1 when the snapshot is complete (data in
 * r->buf[0..r->total), snapshot id in r->snap_id), 0 when more records are
 * expected (or the record belongs to a snapshot already reported broken),
 * or:
 *   TW_ESNAPGAP  a record is missing. Same snapshot id, address not the
 *                previous record's end: the partial snapshot is dropped and
 *                the rest of that id is ignored. Different id while one is
 *                incomplete: the old one is dropped and rec starts the new
 *                one (r->complete is set if rec alone completes it).
 *   TW_ESNAPLEN  total length changed within one id, or data beyond total
 *   TW_ETOOBIG   total exceeds cap (the snapshot is skipped)
 *   TW_EINVAL    rec is not a snapshot record */
int tw_snap_reasm_feed(struct tw_snap_reasm *r, const struct tw_record *rec);

#ifdef __cplusplus
}
#endif

#endif
