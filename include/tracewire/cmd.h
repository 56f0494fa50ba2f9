/*
 * tracewire command service: host -> target UIA message packets.
 *
 * The host sends HdrType_Msg packets of MsgType_CMD to an endpoint. The
 * endpoint routes each by its 12-bit service id to a registered service;
 * the service answers exactly one reply per command:
 *   ACK                    done, nothing to return
 *   RESULT                 done, the body carries the answer
 *   NACK_WITH_ERROR_CODE   first body word = enum tw_nack_code
 *   NACK_BAD_DATA          the command's body, echoed
 * Every reply echoes the command's service id, sequence number, command id
 * and tag; its destination is the command's source, its source this
 * endpoint. Message bodies are 32-bit words in the byte order the header's
 * E bit announces (TI's implementation; the host sends big-endian), and a
 * reply is written in the style its command came in: the same byte order,
 * and a footer only if the command had one (TI's hosts send none).
 * docs/commands.md is the protocol reference the host implements.
 *
 * Threading: tw_cmd_receive() and tw_cmd_poll() run in ONE thread, the one
 * that owns the streamer (the collector thread): the built-in logger
 * service calls the streamer directly. No allocation: services and the
 * reply queue live in the caller's struct tw_cmd.
 */
#ifndef TRACEWIRE_CMD_H
#define TRACEWIRE_CMD_H

#include "tracewire/cdefs.h"

#include <stddef.h>
#include <stdint.h>
#include "tracewire/uia.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- wire constants (the host codes against these) ----------------------- */

#define TW_CMD_PROTOCOL_VERSION 1u
#define TW_VERSION_WORD ((0u << 16) | (1u << 8) | 0u) /* tracewire 0.1.0 */

/* Service ids (12 bits). 0x800..0xFFF are for applications. */
enum tw_service_id {
  TW_SVC_LOGGER = 0x001, /* built-in logger control (below) */
  TW_SVC_USER_FIRST = 0x800
};

/* Command ids of TW_SVC_LOGGER. Body sizes in bytes; words in the order of
 * the E bit. */
enum tw_logger_cmd {
  TW_LCMD_START       = 1, /* body 0 -> ACK. Recording starts: TRACE_START,
                              then the name table and custom declarations */
  TW_LCMD_STOP        = 2, /* body 0 -> ACK. TRACE_STOP, then a flush */
  TW_LCMD_GET_MASK    = 3, /* body 0 -> RESULT {u32 mask} */
  TW_LCMD_SET_MASK    = 4, /* body 4 {u32 mask} -> RESULT {u32 mask in force};
                              NACK_BAD_DATA when a bit names no known event */
  TW_LCMD_GET_INFO    = 5, /* body 0 -> RESULT struct tw_target_info words */
  TW_LCMD_GET_NAMES   = 6, /* body 0 -> RESULT {u32 names, u32 decls} queued;
                              they follow in the event stream (NAME, CUSTOM_DECL) */
  TW_LCMD_FLUSH       = 7, /* body 0 -> ACK after the partial packet went out;
                              NACK QUEUE_FULL when the transport refused it */
  TW_LCMD_RESET_STATS = 8, /* body 0 -> ACK */
  TW_LCMD_GET_STATS   = 9  /* body 0 -> RESULT struct tw_stats words */
};

/* RESULT body of GET_INFO: TW_INFO_WORDS words, in this order. */
enum tw_info_word {
  TW_INFO_PROTOCOL,     /* TW_CMD_PROTOCOL_VERSION */
  TW_INFO_VERSION,      /* tracewire version: major << 16 | minor << 8 | patch */
  TW_INFO_ENDIAN,       /* enum tw_endian of event payloads */
  TW_INFO_TS_FREQ_HZ,   /* timestamp clock frequency */
  TW_INFO_TS_BITS,      /* width of the logger's timestamp (32) */
  TW_INFO_CAPACITY,     /* logger ring capacity, 32-bit words */
  TW_INFO_MAX_PKT,      /* maxPktLengthInBytes of event packets */
  TW_INFO_ENDPOINT,     /* this endpoint's address (low 16 bits) */
  TW_INFO_LOGGER,       /* logger instance id << 16 | logger module id */
  TW_INFO_VOCAB,        /* highest event id of the vocabulary compiled in */
  TW_INFO_STATE,        /* 1 recording, 0 stopped */
  TW_INFO_MASK,         /* event mask in force */
  TW_INFO_WORDS
};

/* RESULT body of GET_STATS: TW_STAT_WORDS words. Counters wrap. */
enum tw_stat_word {
  TW_STAT_EVENTS,       /* events taken from the logger */
  TW_STAT_DROPS,        /* events the logger dropped (ring full) */
  TW_STAT_RECORDS,      /* records written into packets (all kinds) */
  TW_STAT_PACKETS,      /* event packets the transport accepted */
  TW_STAT_REFUSALS,     /* times the transport refused a packet (busy) */
  TW_STAT_BYTES,        /* event packet bytes accepted */
  TW_STAT_OVERSIZE,     /* logger events too big for a packet (skipped, counted as drops) */
  TW_STAT_CMDS,         /* commands handled (any reply) */
  TW_STAT_IGNORED,      /* messages for another endpoint, or not CMD/FLOWCTRL */
  TW_STAT_MALFORMED,    /* packets too short or not HdrType_Msg */
  TW_STAT_REPLIES_LOST, /* replies the transport refused with the queue full */
  TW_STAT_WORDS
};

#define TW_FLOWCTRL_MIN (-100)
#define TW_FLOWCTRL_MAX 100

/* ---- target API -------------------------------------------------------- */

struct tw_cmd;
struct tw_streamer;

/* A command as a service sees it: header fields decoded, body as received
 * (words in the order endian says: read them with tw_cmd_body_word()). */
struct tw_cmd_msg {
  uint16_t service, cmd_id, seq, src, dest;
  uint32_t tag;
  const uint8_t *body;
  size_t body_len;
  enum tw_endian endian;     /* the E bit: the body's byte order, and the reply's */
  int footerless;            /* the command came without a footer: so does the reply */
};

/* Body word i of a command, in host order. */
static inline uint32_t tw_cmd_body_word(const struct tw_cmd_msg *m, size_t i)
{
  const uint8_t *p = m->body + 4 * i;
  return m->endian == TW_ENDIAN_BIG ? tw_load_be32(p) : tw_load_le32(p);
}

/* Reply a service builds: type ACK/RESULT/NACK_*; body words in host order
 * (written in the command's byte order). */
struct tw_cmd_reply {
  enum tw_msg_type type;
  uint32_t body[16];         /* >= TW_INFO_WORDS, TW_STAT_WORDS */
  size_t body_len;           /* bytes */
  const uint8_t *echo;       /* NACK_BAD_DATA: bytes echoed (instead of body) */
};

/* A service handler: fill *r. Called in the tw_cmd_receive() thread. */
typedef void (*tw_service_fn)(void *ctx, const struct tw_cmd_msg *m, struct tw_cmd_reply *r);

/* Send one message packet (header + body [+ footer], wire image). Returns
 * 0, or TW_EBUSY to refuse (the service keeps the reply and retries). */
typedef int (*tw_msg_send_fn)(void *ctx, const void *pkt, size_t len);

#ifndef TW_CFG_CMD_SERVICES
#define TW_CFG_CMD_SERVICES 4 /* registered services, the logger's included */
#endif
#ifndef TW_CFG_CMD_REPLY_SLOTS
#define TW_CFG_CMD_REPLY_SLOTS 2 /* replies held while the transport is busy */
#endif
#ifndef TW_CFG_CMD_MAX_BYTES
#define TW_CFG_CMD_MAX_BYTES 128 /* largest command or reply message */
#endif
TW_STATIC_ASSERT(TW_CFG_CMD_MAX_BYTES % 4 == 0 && TW_CFG_CMD_MAX_BYTES >= 16 + 4 * (TW_INFO_WORDS + 1) &&
               TW_CFG_CMD_MAX_BYTES <= TW_MSG_MAX_BYTES, "command message size");

struct tw_cmd_service {
  uint16_t id;
  tw_service_fn fn;
  void *ctx;
};

struct tw_cmd {
  uint16_t endpoint;                 /* this endpoint's address */
  tw_msg_send_fn send;
  void *send_ctx;
  struct tw_streamer *streamer;      /* for the built-in logger service; may be NULL */
  struct tw_cmd_service svc[TW_CFG_CMD_SERVICES];
  unsigned nsvc;
  uint32_t reply[TW_CFG_CMD_REPLY_SLOTS][TW_CFG_CMD_MAX_BYTES / 4];
  uint16_t reply_len[TW_CFG_CMD_REPLY_SLOTS];
  unsigned rq_head, rq_count;        /* FIFO of refused replies */
  uint32_t cmds, ignored, malformed, replies_lost;
};

/* Initialise; registers the built-in logger service when s is not NULL.
 * Thread context. Returns 0 or TW_EINVAL. */
int tw_cmd_init(struct tw_cmd *c, uint16_t endpoint, tw_msg_send_fn send, void *send_ctx,
                struct tw_streamer *s);
/* Register a service. TW_EEXIST (id taken), TW_ENOSPC (table full),
 * TW_EINVAL (id 0 or > 0xFFF). Thread context, before traffic starts. */
int tw_cmd_register(struct tw_cmd *c, uint16_t service_id, tw_service_fn fn, void *ctx);
/* Handle one received packet (wire image, len bytes: the message length
 * field's). With a footer when its last word is the footer for that
 * length, else without one, as TI's hosts send it (a body whose last word
 * equals that footer is taken for one: docs/commands.md). Replies go out
 * through send (or are queued). Returns 0 when handled or ignored (see the
 * counters), TW_EBADMSG for a packet that is not a message. Thread context:
 * the streamer's thread. */
int tw_cmd_receive(struct tw_cmd *c, const void *pkt, size_t len);
/* Bytes of the message whose header starts b (avail bytes there, >= 4), so
 * a transport can cut commands out of a byte stream: its length field, 0
 * when b cannot start a command (not HdrType_Msg, or a length no command
 * can have, footer or none). Any context. */
size_t tw_cmd_frame(const uint8_t *b, size_t avail);
/* Retry queued replies. Returns how many are still queued. Same thread. */
int tw_cmd_poll(struct tw_cmd *c);
/* Zero the counters (cmds, ignored, malformed, replies_lost). */
void tw_cmd_reset_stats(struct tw_cmd *c);

#ifdef __cplusplus
}
#endif

#endif
