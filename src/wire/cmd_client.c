/* Command client (contract: include/tracewire/wire/cmd_client.h). */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <stdio.h>
#include <string.h>
#include "tracewire/wire/cmd_client.h"
#include "tracewire/io/sys.h"
#include "tracewire/cmd.h"
#include "tracewire/error.h"

const char *tw_logger_cmd_name(uint16_t cmd)
{
  static const char *const names[] = {
    [TW_LCMD_START] = "START", [TW_LCMD_STOP] = "STOP", [TW_LCMD_GET_MASK] = "GET_MASK",
    [TW_LCMD_SET_MASK] = "SET_MASK", [TW_LCMD_GET_INFO] = "GET_INFO",
    [TW_LCMD_GET_NAMES] = "GET_NAMES", [TW_LCMD_FLUSH] = "FLUSH",
    [TW_LCMD_RESET_STATS] = "RESET_STATS", [TW_LCMD_GET_STATS] = "GET_STATS",
  };
  return cmd < sizeof names / sizeof names[0] && names[cmd] ? names[cmd] : "?";
}

void tw_cmd_client_init(struct tw_cmd_client *c, struct tw_conn *src, tw_cmd_pump_fn pump,
                        void *pump_ctx)
{
  memset(c, 0, sizeof *c);
  c->src = src;
  c->pump = pump;
  c->pump_ctx = pump_ctx;
  c->dest = TW_ADDR_BROADCAST;
  c->timeout_ms = 500;
  c->retries = 3;
  /* tags differ between runs so a reply meant for an earlier session of
   * the same target is not taken for ours */
  c->tag = (uint32_t)tw_sys_mono_ns() * 2654435761u;
  c->seq = (uint16_t)(c->tag >> 16);
}

int tw_cmd_client_msg(struct tw_cmd_client *c, const struct tw_pkt *pkt)
{
  const tw_pkt_hdr *h = &pkt->hdr;
  if (pkt->hdr_type != TW_PKT_MSG)
    return 0;
  uint32_t type = tw_pkt_get_msg_type(h);
  if (type == TW_MSG_CMD || type == TW_MSG_FLOWCTRL || type == TW_MSG_NOTIFY || type == TW_MSG_DATA)
    return 0;
  if (!c->waiting || tw_pkt_get_seq(h) != c->w_seq || tw_pkt_get_tag(h) != c->w_tag ||
      tw_pkt_get_service_id(h) != c->w_service || tw_pkt_get_cmd_id(h) != c->w_cmd) {
    c->stale++;
    return 0;
  }
  struct tw_cmd_reply_info *r = c->reply;
  r->type = (enum tw_msg_type)type;
  r->nbody = pkt->payload_len / 4;
  if (r->nbody > sizeof r->body / sizeof r->body[0])
    r->nbody = sizeof r->body / sizeof r->body[0];
  for (size_t i = 0; i < r->nbody; i++)
    r->body[i] = tw_pkt_word(pkt, i); /* in the order the E bit announces */
  r->nack = type == TW_MSG_NACK_WITH_ERROR_CODE && r->nbody ? r->body[0] : 0;
  if (c->dest == TW_ADDR_BROADCAST)
    c->dest = (uint16_t)tw_pkt_get_src(h); /* the target's address, learnt */
  c->waiting = 0;
  c->done = 1;
  return 1;
}

/* A command: E = big-endian and a big-endian body (network order, the
 * seed's rule for message bodies, which every target reads right: TI's by
 * the E bit, older tracewire ones always), a footer unless c->footerless. */
static int send_cmd(struct tw_cmd_client *c, const uint32_t *body, size_t nbody)
{
  uint8_t msg[TW_MSG_MAX_BYTES + 1];
  size_t footer = c->footerless ? 0 : TW_FOOTER_BYTES;
  size_t len = TW_MSG_HDR_BYTES + 4 * nbody + footer;
  tw_pkt_hdr h;
  tw_pkt_init_msg(&h, TW_ENDIAN_BIG, TW_MSG_CMD, (uint32_t)len, c->w_service, c->w_seq,
                  c->w_cmd, c->w_tag, c->dest, TW_ADDR_HOST);
  memcpy(msg, &h, sizeof h);
  for (size_t i = 0; i < nbody; i++)
    tw_store_be32(msg + TW_MSG_HDR_BYTES + 4 * i, body[i]);
  if (footer)
    tw_store_be32(msg + len - 4, tw_pkt_footer((uint32_t)len));
  return tw_conn_write(c->src, msg, len);
}

int tw_cmd_call(struct tw_cmd_client *c, uint16_t service, uint16_t cmd,
                const uint32_t *body, size_t nbody, struct tw_cmd_reply_info *r)
{
  if (4 * nbody + TW_MSG_HDR_BYTES + (c->footerless ? 0 : TW_FOOTER_BYTES) > TW_MSG_MAX_BYTES)
    return TW_ETOOBIG;
  memset(r, 0, sizeof *r);
  c->w_service = service;
  c->w_cmd = cmd;
  c->w_seq = c->seq++;
  c->w_tag = c->tag++;
  c->reply = r;
  c->done = 0;
  for (unsigned attempt = 0; attempt <= c->retries; attempt++) {
    r->attempts = attempt + 1;
    int rc = send_cmd(c, body, nbody);
    if (rc < 0 && rc != TW_EAGAIN && rc != TW_ENOTCONN) {
      snprintf(c->err, sizeof c->err, "%s", tw_conn_error(c->src));
      c->waiting = 0;
      return rc;
    }
    c->waiting = 1;
    unsigned long long deadline = tw_sys_mono_ns() + (unsigned long long)c->timeout_ms * 1000000u;
    while (!c->done) {
      unsigned long long now = tw_sys_mono_ns();
      if (now >= deadline)
        break;
      int prc = c->pump(c->pump_ctx, (int)((deadline - now) / 1000000u) + 1);
      if (prc < 0 && prc != TW_EAGAIN) {
        c->waiting = 0;
        snprintf(c->err, sizeof c->err, "%s: no reply to %s: %s", c->src->name,
                 tw_logger_cmd_name(cmd), tw_strerror(prc));
        return prc;
      }
    }
    if (c->done)
      break;
  }
  c->waiting = 0;
  if (!c->done) {
    snprintf(c->err, sizeof c->err, "%s: no reply to %s (service 0x%03x) after %u attempts of %d ms",
             c->src->name, tw_logger_cmd_name(cmd), service, c->retries + 1, c->timeout_ms);
    return TW_ETIMEDOUT;
  }
  if (r->type == TW_MSG_NACK_WITH_ERROR_CODE) {
    snprintf(c->err, sizeof c->err, "%s: %s answered NACK %s (%u)", c->src->name,
             tw_logger_cmd_name(cmd), tw_nack_name(r->nack), r->nack);
    return TW_ENACK;
  }
  if (r->type == TW_MSG_NACK_BAD_DATA) {
    snprintf(c->err, sizeof c->err, "%s: %s answered NACK_BAD_DATA (the target rejected the body)",
             c->src->name, tw_logger_cmd_name(cmd));
    return TW_ENACK;
  }
  return 0;
}

const char *tw_cmd_client_error(const struct tw_cmd_client *c) { return c->err[0] ? c->err : "no error"; }
