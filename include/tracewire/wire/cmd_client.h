/*
 * The host side of the command protocol (docs/commands.md): send a CMD,
 * wait for the reply that echoes its service, command id, sequence number
 * and tag, resend the same message on timeout (so a late reply to the first
 * attempt still matches), report NACK codes by name.
 *
 * Commands go out big-endian (E = 1 and a big-endian body), with a footer
 * unless footerless is set (a TI target); replies are read in the order
 * their E bit announces, with or without a footer (the owner's reader
 * frames them: tw_reader_cfg.footerless for a target known to write none).
 *
 * The client does not read the transport itself: the owner's pump function
 * reads and dispatches one packet (decoding events as usual), and routes
 * message packets to tw_cmd_client_msg(). So a reply can arrive between
 * event packets without either being lost.
 *
 * Context: one thread (the one that pumps).
 */
#ifndef TRACEWIRE_WIRE_CMD_CLIENT_H
#define TRACEWIRE_WIRE_CMD_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/uia.h"
#include "tracewire/io/conn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read and dispatch for up to timeout_ms. 0 or TW_EAGAIN to go on; another
 * error (TW_EOF, a source error) ends the wait. */
typedef int (*tw_cmd_pump_fn)(void *ctx, int timeout_ms);

struct tw_cmd_reply_info {
  enum tw_msg_type type;      /* ACK, RESULT, PARTIALRESULT, NACK_* */
  uint32_t nack;              /* NACK_WITH_ERROR_CODE: the code */
  uint32_t body[32];          /* body words, host order (read in the E bit's order) */
  size_t nbody;               /* words */
  unsigned attempts;          /* sends it took */
};

struct tw_cmd_client {
  struct tw_conn *src;
  tw_cmd_pump_fn pump;
  void *pump_ctx;
  uint16_t dest;              /* target endpoint (BROADCAST until known) */
  uint16_t seq;
  uint32_t tag;
  int timeout_ms;             /* per attempt (default 500) */
  int footerless;             /* send commands without a footer, as TI's hosts do
                                 (record --no-footer; default 0: with one) */
  unsigned retries;           /* resends after the first (default 3) */
  /* the outstanding command */
  int waiting, done;
  uint16_t w_service, w_cmd, w_seq;
  uint32_t w_tag;
  struct tw_cmd_reply_info *reply;
  unsigned long long stale;   /* replies that matched no outstanding command */
  char err[256];
};

void tw_cmd_client_init(struct tw_cmd_client *c, struct tw_conn *src, tw_cmd_pump_fn pump,
                        void *pump_ctx);
/* Route a received message packet here. Returns 1 when it was the awaited reply. */
int tw_cmd_client_msg(struct tw_cmd_client *c, const struct tw_pkt *pkt);
/* Send and wait. 0 (ACK/RESULT; *r filled), TW_ENACK (r->type/nack say
 * which; tw_cmd_client_error() names the code), TW_ETIMEDOUT (no reply after
 * all attempts), or a source error. body: words in host order. */
int tw_cmd_call(struct tw_cmd_client *c, uint16_t service, uint16_t cmd,
                const uint32_t *body, size_t nbody, struct tw_cmd_reply_info *r);
const char *tw_cmd_client_error(const struct tw_cmd_client *c);
/* "START", "GET_INFO", ... for the logger service's commands; "?" otherwise. */
const char *tw_logger_cmd_name(uint16_t cmd);

#ifdef __cplusplus
}
#endif

#endif
