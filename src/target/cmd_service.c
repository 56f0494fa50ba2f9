/*
 * The command service: routes host commands (UIA Msg/CMD packets) to
 * services and sends exactly one reply per command. The protocol, the
 * order in which a packet is judged, and each NACK are in docs/commands.md.
 *
 * Replies are built into a stack image and handed to the transport; a
 * refused reply waits in a small FIFO (TW_CFG_CMD_REPLY_SLOTS) so replies
 * keep command order. A command that finds the FIFO full is not executed:
 * it gets a QUEUE_FULL NACK, tried once. No allocation; one thread (the
 * streamer's), so no locks.
 *
 * Not built with the minimal configuration's streamer
 * (TW_CFG_STREAMER_MINIMAL): that firmware takes no commands.
 */
#include <string.h>

#include "tracewire/cmd.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tracewire/vocab.h"

#if !TW_CFG_STREAMER_MINIMAL

#define BODY_MAX (TW_CFG_CMD_MAX_BYTES - TW_MSG_HDR_BYTES - TW_FOOTER_BYTES)

static void put_word(uint8_t *p, enum tw_endian e, uint32_t v)
{
  if (e == TW_ENDIAN_BIG)
    tw_store_be32(p, v);
  else
    tw_store_le32(p, v);
}

/* ---- replies ------------------------------------------------------------- */

static int rq_full(const struct tw_cmd *c)
{
  return c->rq_count >= TW_CFG_CMD_REPLY_SLOTS;
}

static void rq_push(struct tw_cmd *c, const uint32_t *img, uint32_t len)
{
  unsigned slot = (c->rq_head + c->rq_count) % TW_CFG_CMD_REPLY_SLOTS;
  memcpy(c->reply[slot], img, len);
  c->reply_len[slot] = (uint16_t)len;
  c->rq_count++;
}

int tw_cmd_poll(struct tw_cmd *c)
{
  while (c->rq_count) {
    unsigned h = c->rq_head;
    if (c->send(c->send_ctx, c->reply[h], c->reply_len[h]))
      break;
    c->rq_head = (h + 1) % TW_CFG_CMD_REPLY_SLOTS;
    c->rq_count--;
  }
  return (int)c->rq_count;
}

/* Image of a reply to m: header echoing m, body, and a footer if m had
 * one; the body in m's byte order (an echo is m's own bytes). Returns
 * bytes. */
static uint32_t build(const struct tw_cmd *c, const struct tw_cmd_msg *m,
                      const struct tw_cmd_reply *r, uint32_t *img)
{
  size_t blen = r->body_len > BODY_MAX ? BODY_MAX : r->body_len;
  uint32_t footer = m->footerless ? 0u : TW_FOOTER_BYTES;
  uint32_t len = (uint32_t)(TW_MSG_HDR_BYTES + ((blen + 3) & ~(size_t)3) + footer);
  uint8_t *p = (uint8_t *)img;

  tw_pkt_init_msg((tw_pkt_hdr *)img, m->endian, r->type, len, m->service, m->seq,
                  m->cmd_id, m->tag, m->src, c->endpoint);
  memset(p + TW_MSG_HDR_BYTES, 0, len - TW_MSG_HDR_BYTES);
  if (r->echo)
    memcpy(p + TW_MSG_HDR_BYTES, r->echo, blen);
  else
    for (size_t i = 0; i < blen / 4; i++)
      put_word(p + TW_MSG_HDR_BYTES + 4 * i, m->endian, r->body[i]);
  if (footer)
    tw_store_be32(p + len - 4, tw_pkt_footer(len));
  return len;
}

/* In order: straight to the transport when nothing waits, else queued. */
static void reply(struct tw_cmd *c, const struct tw_cmd_msg *m, const struct tw_cmd_reply *r)
{
  uint32_t img[TW_CFG_CMD_MAX_BYTES / 4];
  uint32_t len = build(c, m, r, img);

  if (!c->rq_count && !c->send(c->send_ctx, img, len))
    return;
  if (rq_full(c))
    c->replies_lost++;
  else
    rq_push(c, img, len);
}

static void set_nack(struct tw_cmd_reply *r, enum tw_nack_code code)
{
  r->type = TW_MSG_NACK_WITH_ERROR_CODE;
  r->body[0] = (uint32_t)code;
  r->body_len = 4;
  r->echo = NULL;
}

static void set_bad_data(struct tw_cmd_reply *r, const struct tw_cmd_msg *m)
{
  r->type = TW_MSG_NACK_BAD_DATA;
  r->echo = m->body;
  r->body_len = m->body_len;
}

/* ---- the built-in logger-control service ----------------------------------- */

static int mask_known(uint32_t mask)
{
  for (uint32_t id = 1; id <= 32; id++) {
    if (!(mask >> (id - 1) & 1u))
      continue;
    uint32_t w = tw_event_wire(id); /* not the descriptor tables: hosts' */
    if (!(w && !(TW_EVW_FLAGS(w) & TW_EVF_STREAMER)) && !tw_custom_find((uint16_t)id))
      return 0;
  }
  return 1;
}

static void result(struct tw_cmd_reply *r, size_t words)
{
  r->type = TW_MSG_RESULT;
  r->body_len = words * 4;
}

static void target_info(const struct tw_cmd *c, const struct tw_streamer *s, uint32_t *w)
{
  w[TW_INFO_PROTOCOL] = TW_CMD_PROTOCOL_VERSION;
  w[TW_INFO_VERSION] = TW_VERSION_WORD;
  w[TW_INFO_ENDIAN] = TW_ENDIAN_NATIVE;
  w[TW_INFO_TS_FREQ_HZ] = s->cfg.source.freq_hz;
  w[TW_INFO_TS_BITS] = 32;
  w[TW_INFO_CAPACITY] = s->cfg.source.capacity_words;
  w[TW_INFO_MAX_PKT] = s->max_bytes;
  w[TW_INFO_ENDPOINT] = c->endpoint;
  w[TW_INFO_LOGGER] = (uint32_t)s->cfg.instance_id << 16 | s->cfg.module_id;
  w[TW_INFO_VOCAB] = TW_EV_MAX_ID;
  w[TW_INFO_STATE] = (uint32_t)tw_streamer_running(s);
  w[TW_INFO_MASK] = tw_streamer_get_mask(s);
}

static void stats(const struct tw_cmd *c, const struct tw_streamer *s, uint32_t *w)
{
  struct tw_streamer_stats st;
  tw_streamer_stats(s, &st);
  w[TW_STAT_EVENTS] = st.events;
  w[TW_STAT_DROPS] = st.drops;
  w[TW_STAT_RECORDS] = st.records;
  w[TW_STAT_PACKETS] = st.packets;
  w[TW_STAT_REFUSALS] = st.refusals;
  w[TW_STAT_BYTES] = st.bytes;
  w[TW_STAT_OVERSIZE] = st.oversize;
  w[TW_STAT_CMDS] = c->cmds;
  w[TW_STAT_IGNORED] = c->ignored;
  w[TW_STAT_MALFORMED] = c->malformed;
  w[TW_STAT_REPLIES_LOST] = c->replies_lost;
}

static void logger_service(void *ctx, const struct tw_cmd_msg *m, struct tw_cmd_reply *r)
{
  struct tw_cmd *c = ctx;
  struct tw_streamer *s = c->streamer;
  size_t want = m->cmd_id == TW_LCMD_SET_MASK ? 4 : 0;

  r->type = TW_MSG_ACK;
  if (m->cmd_id < TW_LCMD_START || m->cmd_id > TW_LCMD_GET_STATS) {
    set_nack(r, TW_NACK_CMD_NOT_SUPPORTED);
    return;
  }
  if (m->body_len != want) {
    set_nack(r, TW_NACK_BAD_MESSAGE_LENGTH);
    return;
  }
  switch (m->cmd_id) {
  case TW_LCMD_START:
    if (tw_streamer_start(s))
      set_nack(r, TW_NACK_QUEUE_FULL);
    break;
  case TW_LCMD_STOP:
    if (tw_streamer_stop(s, 0))
      set_nack(r, TW_NACK_QUEUE_FULL);
    break;
  case TW_LCMD_GET_MASK:
    r->body[0] = tw_streamer_get_mask(s);
    result(r, 1);
    break;
  case TW_LCMD_SET_MASK: {
    uint32_t mask = tw_cmd_body_word(m, 0);
    if (!mask_known(mask)) {
      set_bad_data(r, m);
      break;
    }
    tw_streamer_set_mask(s, mask);
    r->body[0] = tw_streamer_get_mask(s);
    result(r, 1);
    break;
  }
  case TW_LCMD_GET_INFO:
    target_info(c, s, r->body);
    result(r, TW_INFO_WORDS);
    break;
  case TW_LCMD_GET_NAMES:
    if (tw_streamer_send_names(s, &r->body[0], &r->body[1]))
      set_nack(r, TW_NACK_QUEUE_FULL);
    else
      result(r, 2);
    break;
  case TW_LCMD_FLUSH:
    if (tw_streamer_flush(s))
      set_nack(r, TW_NACK_QUEUE_FULL);
    break;
  case TW_LCMD_RESET_STATS:
    tw_streamer_reset_stats(s);
    tw_cmd_reset_stats(c);
    break;
  case TW_LCMD_GET_STATS:
    stats(c, s, r->body);
    result(r, TW_STAT_WORDS);
    break;
  }
}

/* ---- endpoint -------------------------------------------------------------- */

int tw_cmd_init(struct tw_cmd *c, uint16_t endpoint, tw_msg_send_fn send, void *send_ctx,
                struct tw_streamer *s)
{
  if (!c || !send || endpoint == TW_ADDR_BROADCAST || endpoint == TW_ADDR_HOST)
    return TW_EINVAL;
  memset(c, 0, sizeof *c);
  c->endpoint = endpoint;
  c->send = send;
  c->send_ctx = send_ctx;
  c->streamer = s;
  return s ? tw_cmd_register(c, TW_SVC_LOGGER, logger_service, c) : 0;
}

int tw_cmd_register(struct tw_cmd *c, uint16_t service_id, tw_service_fn fn, void *ctx)
{
  if (!service_id || service_id > 0xFFFu || !fn)
    return TW_EINVAL;
  for (unsigned i = 0; i < c->nsvc; i++)
    if (c->svc[i].id == service_id)
      return TW_EEXIST;
  if (c->nsvc >= TW_CFG_CMD_SERVICES)
    return TW_ENOSPC;
  c->svc[c->nsvc++] = (struct tw_cmd_service){service_id, fn, ctx};
  return 0;
}

void tw_cmd_reset_stats(struct tw_cmd *c)
{
  c->cmds = c->ignored = c->malformed = c->replies_lost = 0;
}

static const struct tw_cmd_service *find(const struct tw_cmd *c, uint16_t id)
{
  for (unsigned i = 0; i < c->nsvc; i++)
    if (c->svc[i].id == id)
      return &c->svc[i];
  return NULL;
}

/* Body bytes of a command of len bytes whose length field says mlen, and
 * whether it came with a footer (*footerless 0) or without one, as TI's
 * hosts send it (1); -1 for a length no command can have. A command whose
 * last word is the footer for its length has one: a footer-less body whose
 * last word happens to be that value reads as one word shorter (1 in 2^32
 * for an arbitrary word; docs/commands.md). */
static long body_bytes(const uint8_t *b, size_t len, uint32_t mlen, int *footerless)
{
  if (mlen != len || mlen % 4 || mlen < TW_MSG_HDR_BYTES || mlen > TW_CFG_CMD_MAX_BYTES)
    return -1;
  *footerless = !(mlen >= TW_MSG_HDR_BYTES + TW_FOOTER_BYTES &&
                  tw_load_be32(b + mlen - 4) == tw_pkt_footer(mlen));
  return (long)(mlen - TW_MSG_HDR_BYTES - (*footerless ? 0u : TW_FOOTER_BYTES));
}

size_t tw_cmd_frame(const uint8_t *b, size_t avail)
{
  if (avail < 4)
    return 0;
  uint32_t w1 = tw_load_be32(b);
  uint32_t len = (w1 >> 16) & 0x7FFu;
  if (w1 >> 28 != TW_PKT_MSG || len < TW_MSG_HDR_BYTES || len % 4 || len > TW_CFG_CMD_MAX_BYTES)
    return 0;
  return len;
}

static void flowctrl(struct tw_cmd *c, const struct tw_cmd_msg *m, struct tw_cmd_reply *r)
{
  int32_t level = m->body_len == 4 ? (int32_t)tw_cmd_body_word(m, 0) : 0;
  if (m->body_len != 4 || level < TW_FLOWCTRL_MIN || level > TW_FLOWCTRL_MAX) {
    set_bad_data(r, m);
    reply(c, m, r);
    return;
  }
  if (c->streamer)
    tw_streamer_set_congestion(c->streamer, (int)level);
}

int tw_cmd_receive(struct tw_cmd *c, const void *pkt, size_t len)
{
  const uint8_t *b = pkt;
  tw_pkt_hdr h;

  if (!pkt || len < TW_MSG_HDR_BYTES) {
    c->malformed++;
    return TW_EBADMSG;
  }
  memcpy(&h, b, sizeof h);
  if (tw_pkt_get_hdr_type(&h) != TW_PKT_MSG) {
    c->malformed++;
    return TW_EBADMSG;
  }
  uint32_t type = tw_pkt_get_msg_type(&h);
  uint32_t dest = tw_pkt_get_dest(&h);
  if ((dest != c->endpoint && dest != TW_ADDR_BROADCAST) ||
      (type != TW_MSG_CMD && type != TW_MSG_FLOWCTRL)) {
    c->ignored++;
    return 0;
  }
  uint32_t mlen = tw_pkt_get_msg_length(&h);
  int footerless = 0;
  long blen = body_bytes(b, len, mlen, &footerless);
  struct tw_cmd_msg m = {
    .service = (uint16_t)tw_pkt_get_service_id(&h), .cmd_id = (uint16_t)tw_pkt_get_cmd_id(&h),
    .seq = (uint16_t)tw_pkt_get_seq(&h), .src = (uint16_t)tw_pkt_get_src(&h),
    .dest = (uint16_t)dest, .tag = tw_pkt_get_tag(&h), .body = b + TW_MSG_HDR_BYTES,
    .endian = (enum tw_endian)tw_pkt_get_endian(&h), .footerless = footerless,
  };
  struct tw_cmd_reply r;
  memset(&r, 0, sizeof r);

  tw_cmd_poll(c); /* earlier replies first */
  c->cmds++;
  if (blen < 0) {
    set_nack(&r, TW_NACK_BAD_MESSAGE_LENGTH);
  } else if (m.src == TW_ADDR_BROADCAST || m.src == c->endpoint) {
    set_nack(&r, TW_NACK_BAD_ENDPOINT_ADDRESS);
  } else {
    m.body_len = (size_t)blen;
    if (type == TW_MSG_FLOWCTRL) {
      flowctrl(c, &m, &r);
      return 0;
    }
    if (rq_full(c)) {
      /* cannot promise a reply in order: refuse without executing */
      uint32_t img[TW_CFG_CMD_MAX_BYTES / 4];
      set_nack(&r, TW_NACK_QUEUE_FULL);
      uint32_t n = build(c, &m, &r, img);
      if (c->send(c->send_ctx, img, n))
        c->replies_lost++;
      return 0;
    }
    const struct tw_cmd_service *svc = find(c, m.service);
    if (!svc)
      set_nack(&r, TW_NACK_SERVICE_NOT_SUPPORTED);
    else
      svc->fn(svc->ctx, &m, &r);
  }
  reply(c, &m, &r);
  return 0;
}
#endif /* !TW_CFG_STREAMER_MINIMAL */
