/*
 * UIA wire format: packet headers, event records, snapshots.
 *
 * Design notes (the full rules are in docs/wire-format.md):
 *   - Every decoder takes (buf, len) and reads nothing it has not first
 *     bounds-checked against len. Checks run in a fixed order so that each
 *     malformation yields one distinct code: word1 present (ETRUNC), header
 *     type known (EHDRTYPE), length aligned (EALIGN), length covers the
 *     layout (ESHORT), length within the maximum (ETOOBIG), length within
 *     the bytes given (ETRUNC), reserved bits clear (ERESERVED), footer
 *     (EFOOTER).
 *   - Packet header words are big-endian images; event record words are in
 *     the sender's order, passed explicitly. Nothing here depends on the
 *     host's byte order except through tw_load_* / tw_store_*.
 *   - Freestanding: <string.h> for memcpy/memset only, no allocation, all
 *     state in caller-provided structs. Every function is reentrant.
 */
#include <string.h>

#include "tracewire/uia.h"

/* ---- packet headers ------------------------------------------------------ */

const char *tw_nack_name(uint32_t code)
{
  static const char *const names[] = {
    "NO_REASON_SPECIFIED", "SERVICE_NOT_SUPPORTED", "CMD_NOT_SUPPORTED",
    "QUEUE_FULL", "BAD_ENDPOINT_ADDRESS", "BAD_MESSAGE_LENGTH",
  };
  return code < sizeof names / sizeof names[0] ? names[code] : "?";
}

uint32_t tw_pkt_get_length(const tw_pkt_hdr *h)
{
  switch (tw_pkt_get_hdr_type(h)) {
  case TW_PKT_MSG:
    return tw_pkt_get_msg_length(h);
  case TW_PKT_MIN_EVENT:
    return tw_pkt_get_min_length(h);
  default: /* EventPkt layout: 27-bit length (also InvalidData) */
    return tw_pkt_get_event_length(h);
  }
}

uint32_t tw_pkt_hdr_bytes(uint32_t hdr_type)
{
  switch (hdr_type) {
  case TW_PKT_INVALID_DATA:   return 4;
  case TW_PKT_MSG:            return TW_MSG_HDR_BYTES;
  case TW_PKT_EVENT:          return TW_EVPKT_HDR_BYTES;
  case TW_PKT_EVENT_WITH_CRC: return TW_CRCPKT_HDR_BYTES;
  case TW_PKT_MIN_EVENT:      return TW_MINPKT_HDR_BYTES;
  default:                    return 0;
  }
}

static uint32_t type_max_bytes(uint32_t hdr_type)
{
  switch (hdr_type) {
  case TW_PKT_MSG:          return TW_MSG_MAX_BYTES & ~3u;
  case TW_PKT_INVALID_DATA: return 0x07FFFFFCu; /* no footer: 27 bits */
  default:                  return TW_EVPKT_MAX_BYTES & ~3u; /* footer: 16 bits */
  }
}

void tw_pkt_init_msg(tw_pkt_hdr *h, enum tw_endian e, enum tw_msg_type type,
                     uint32_t msg_length, uint32_t service_id, uint32_t seq,
                     uint32_t cmd_id, uint32_t tag, uint32_t dest, uint32_t src)
{
  memset(h, 0, sizeof *h);
  tw_pkt_set_hdr_type(h, TW_PKT_MSG);
  tw_pkt_set_endian(h, (uint32_t)e);
  tw_pkt_set_msg_length(h, msg_length);
  tw_pkt_set_msg_type(h, (uint32_t)type);
  tw_pkt_set_service_id(h, service_id);
  tw_pkt_set_seq(h, seq);
  tw_pkt_set_cmd_id(h, cmd_id);
  tw_pkt_set_tag(h, tag);
  tw_pkt_set_dest(h, dest);
  tw_pkt_set_src(h, src);
}

void tw_pkt_init_event(tw_pkt_hdr *h, enum tw_endian e, uint32_t length,
                       uint32_t seq, uint32_t priority, uint32_t module_id,
                       uint32_t instance_id, uint32_t dest, uint32_t src)
{
  memset(h, 0, sizeof *h);
  tw_pkt_set_hdr_type(h, TW_PKT_EVENT);
  tw_pkt_set_endian(h, (uint32_t)e);
  tw_pkt_set_event_length(h, length);
  tw_pkt_set_seq(h, seq);
  tw_pkt_set_priority(h, priority);
  tw_pkt_set_logger_module(h, module_id);
  tw_pkt_set_logger_instance(h, instance_id); /* D stays 0: static logger */
  tw_pkt_set_dest(h, dest);
  tw_pkt_set_src(h, src);
}

void tw_pkt_init_min_event(tw_pkt_hdr *h, enum tw_endian e, uint32_t device)
{
  h->word1 = 0;
  h->word2 = 0;
  tw_pkt_set_hdr_type(h, TW_PKT_MIN_EVENT);
  tw_pkt_set_endian(h, (uint32_t)e);
  tw_pkt_set_min_device(h, device);
}

void tw_pkt_set_invalid(tw_pkt_hdr *h, uint32_t length)
{
  h->word1 = 0; /* type InvalidData, bit 27 reserved zero */
  tw_pkt_set_event_length(h, length);
}

uint16_t tw_crc16(const void *data, size_t len)
{
  /* A byte at a time without a table: the polynomial 0x1021 folded into
   * shifts of the byte just mixed in (the well-known table-free form of
   * this CRC; test_payload_check compares it with the bit-by-bit
   * definition). It runs over every event packet when the streamer adds a
   * payload check: the bitwise loop cost four times as much, a 16-entry
   * nibble table twice, a 512-byte table would weigh on the target's
   * size budget for a feature that is off by default. */
  const uint8_t *p = (const uint8_t *)data;
  uint16_t crc = 0xFFFFu;
  while (len--) {
    crc = (uint16_t)(crc >> 8 | crc << 8);
    crc ^= *p++;
    crc ^= (uint16_t)((crc & 0xFFu) >> 4);
    crc ^= (uint16_t)(crc << 12);
    crc ^= (uint16_t)((crc & 0xFFu) << 5);
  }
  return crc;
}

/* ---- packet parsing ------------------------------------------------------ */

static int check_pkt_length(uint32_t type, uint32_t length, size_t len, size_t max_len,
                            int footer)
{
  uint32_t min = tw_pkt_hdr_bytes(type) + (footer ? TW_FOOTER_BYTES : 0);
  if (length % 4)
    return TW_EALIGN;
  if (length < min)
    return TW_ESHORT;
  if (length > type_max_bytes(type) || (max_len && length > max_len))
    return TW_ETOOBIG;
  if (length > len)
    return TW_ETRUNC;
  return 0;
}

int tw_pkt_parse(const uint8_t *buf, size_t len, size_t max_len, struct tw_pkt *out)
{
  return tw_pkt_parse_ex(buf, len, max_len, 0, out);
}

int tw_pkt_parse_ex(const uint8_t *buf, size_t len, size_t max_len, unsigned flags,
                    struct tw_pkt *out)
{
  if (len < 4)
    return TW_ETRUNC;
  memset(out, 0, sizeof *out);
  memcpy(&out->hdr.word1, buf, 4);
  uint32_t type = tw_pkt_get_hdr_type(&out->hdr);
  uint32_t hbytes = tw_pkt_hdr_bytes(type);
  if (!hbytes)
    return TW_EHDRTYPE;
  uint32_t length = tw_pkt_get_length(&out->hdr);
  out->length = length; /* on TW_ETRUNC: what a stream reader waits for */
  int footer = type != TW_PKT_INVALID_DATA && !(flags & TW_PKT_NO_FOOTER);
  int rc = check_pkt_length(type, length, len, max_len, footer);
  if (rc)
    return rc;
  /* length >= hbytes and length <= len: the whole header is in buf */
  memcpy(&out->hdr, buf, hbytes < 16 ? hbytes : 16);
  if (type == TW_PKT_INVALID_DATA && tw_pkt_get_endian(&out->hdr))
    return TW_ERESERVED;
  if (type == TW_PKT_MIN_EVENT && tw_pkt_get_min_reserved(&out->hdr))
    return TW_ERESERVED;
  if (type == TW_PKT_EVENT_WITH_CRC) {
    uint32_t w5 = tw_load_be32(buf + 16);
    if (w5 >> 16)
      return TW_ERESERVED;
    out->crc = w5;
  }
  out->hdr_type = type;
  out->length = length;
  out->endian = (enum tw_endian)tw_pkt_get_endian(&out->hdr);
  out->payload = buf + hbytes;
  if (type == TW_PKT_INVALID_DATA)
    return (int)length; /* padding: no footer, nothing to read */
  if (!footer) {
    out->footerless = 1;
    out->payload_len = length - hbytes;
    return (int)length;
  }
  if (tw_load_be32(buf + length - 4) != tw_pkt_footer(length))
    return TW_EFOOTER;
  out->payload_len = length - hbytes - TW_FOOTER_BYTES;
  return (int)length;
}

/* ---- event records ------------------------------------------------------- */

static uint32_t load_word(const uint8_t *p, enum tw_endian e)
{
  return e == TW_ENDIAN_BIG ? tw_load_be32(p) : tw_load_le32(p);
}

/* Bytes before the data of each record layout. */
static uint32_t rec_layout_bytes(uint32_t type)
{
  static const uint8_t bytes[] = { 8, 16, 32, 40 };
  return bytes[type];
}

/* The snapshot length word, in either layout (docs/wire-format.md,
 * "Snapshot lengths: the seed's layout and TI's"). room: the record's data
 * bytes. The seed: total << 16 | this. TI's loggers: this record's data
 * rounded up to whole words << 16 | total, and that rounded length is
 * exactly the record's room. TI's is taken where the seed's reading is
 * impossible (this > total) or could never complete (a record with room
 * for exactly the rounded total announcing less than that total). */
static int snap_lengths(uint32_t lens, uint32_t room, struct tw_snap_info *s)
{
  uint32_t hi = lens >> 16, lo = lens & 0xFFFFu;
  int ti = hi == room && (lo > hi || (lo < hi && ((lo + 3u) & ~3u) == hi));
  s->ti_layout = (uint8_t)ti;
  s->total_len = (uint16_t)(ti ? lo : hi);
  s->this_len = (uint16_t)(ti ? hi : lo);
  if (!ti && (lo > room || lo > hi))
    return TW_ESNAPLEN;
  return 0;
}

int tw_record_parse(const uint8_t *buf, size_t len, enum tw_endian e, struct tw_record *out)
{
  if (len < 4)
    return TW_ETRUNC;
  uint32_t w0 = load_word(buf, e);
  uint32_t type = tw_evhdr_type(w0), length = tw_evhdr_length(w0);
  if (type > TW_REC_SNAPSHOT_TS)
    return TW_EHDRTYPE;
  if (length % 4)
    return TW_EALIGN;
  uint32_t hbytes = rec_layout_bytes(type);
  if (length < hbytes)
    return TW_ESHORT;
  if (length > len)
    return TW_ETRUNC;

  memset(out, 0, sizeof *out);
  out->type = type;
  out->length = length;
  out->seq = tw_evhdr_seq(w0);
  out->endian = e;
  out->has_ts = (type == TW_REC_EVENT_TS || type == TW_REC_SNAPSHOT_TS);
  const uint8_t *p = buf + 4;
  if (out->has_ts) {
    out->ts = (uint64_t)load_word(p + 4, e) << 32 | load_word(p, e);
    p += 8;
  }
  uint32_t id = load_word(p, e);
  p += 4;
  out->event_id = (uint16_t)(id >> 16);
  out->module_id = (uint16_t)id;
  out->is_snapshot = (type == TW_REC_SNAPSHOT || type == TW_REC_SNAPSHOT_TS);
  if (!out->is_snapshot) {
    out->payload = p;
    out->payload_len = length - hbytes;
    return (int)length;
  }
  struct tw_snap_info *s = &out->snap;
  s->file = load_word(p, e);
  s->line = load_word(p + 4, e);
  s->snap_id = load_word(p + 8, e);
  s->address = load_word(p + 12, e);
  s->format = load_word(p + 20, e);
  if (snap_lengths(load_word(p + 16, e), length - hbytes, s) < 0)
    return TW_ESNAPLEN;
  out->payload = p + 24;
  out->payload_len = s->this_len;
  return (int)length;
}

int tw_records_tile(const uint8_t *payload, size_t len, enum tw_endian e)
{
  size_t off = 0;
  while (off < len) {
    if (len - off < 4)
      return TW_ETRUNC;
    uint32_t w0 = load_word(payload + off, e), type = tw_evhdr_type(w0);
    uint32_t n = tw_evhdr_length(w0);
    if (type > TW_REC_SNAPSHOT_TS)
      return TW_EHDRTYPE;
    if (n % 4)
      return TW_EALIGN;
    if (n < rec_layout_bytes(type))
      return TW_ESHORT;
    if (n > len - off)
      return TW_ETRUNC;
    off += n;
  }
  return 0;
}

int tw_record_encode(uint32_t *dst, size_t cap_words, uint32_t seq, int with_ts,
                     uint64_t ts, uint16_t event_id, uint16_t module_id,
                     const uint32_t *payload, size_t npayload)
{
  size_t hwords = with_ts ? 4 : 2;
  if (npayload > TW_REC_MAX_BYTES / 4 - hwords)
    return TW_ETOOBIG;
  size_t words = hwords + npayload;
  if (words > cap_words)
    return TW_ENOSPC;
  uint32_t type = with_ts ? TW_REC_EVENT_TS : TW_REC_EVENT;
  size_t i = 0;
  dst[i++] = tw_evhdr_make(type, (uint32_t)words * 4, seq);
  if (with_ts) {
    dst[i++] = (uint32_t)ts;
    dst[i++] = (uint32_t)(ts >> 32);
  }
  dst[i++] = (uint32_t)event_id << 16 | module_id;
  for (size_t k = 0; k < npayload; k++)
    dst[i++] = payload[k];
  return (int)words;
}

int tw_snapshot_encode(tw_record_sink emit, void *ctx, uint32_t seq, uint32_t *seq_out,
                       int with_ts, uint64_t ts, uint16_t event_id, uint16_t module_id,
                       uint32_t file, uint32_t line, uint32_t snap_id, uint32_t address,
                       uint32_t format, const void *data, size_t len, size_t max_rec_bytes)
{
  uint32_t rec[TW_CFG_SNAP_MAX_REC_BYTES / 4];
  size_t hwords = with_ts ? 10 : 8;
  if (max_rec_bytes == 0 || max_rec_bytes > sizeof rec)
    max_rec_bytes = sizeof rec;
  if (max_rec_bytes / 4 <= hwords)
    return TW_EINVAL;
  size_t chunk = (max_rec_bytes / 4 - hwords) * 4;
  if (len > 0xFFFFu)
    return TW_ETOOBIG;

  const uint8_t *src = (const uint8_t *)data;
  size_t off = 0;
  do {
    size_t n = len - off < chunk ? len - off : chunk;
    size_t dwords = (n + 3) / 4, words = hwords + dwords, i = 0;
    uint32_t type = with_ts ? TW_REC_SNAPSHOT_TS : TW_REC_SNAPSHOT;
    rec[i++] = tw_evhdr_make(type, (uint32_t)words * 4, seq++);
    if (with_ts) {
      rec[i++] = (uint32_t)ts;
      rec[i++] = (uint32_t)(ts >> 32);
    }
    rec[i++] = (uint32_t)event_id << 16 | module_id;
    rec[i++] = file;
    rec[i++] = line;
    rec[i++] = snap_id;
    rec[i++] = address + (uint32_t)off;
    rec[i++] = (uint32_t)len << 16 | (uint32_t)n;
    rec[i++] = format;
    if (dwords)
      rec[words - 1] = 0; /* zero the padding of the last data word */
    if (n)
      memcpy(&rec[i], src + off, n);
    int rc = emit(ctx, rec, words);
    if (rc)
      return rc;
    off += n;
  } while (off < len);
  if (seq_out)
    *seq_out = seq & 0xFFFFu;
  return 0;
}

/* ---- snapshot reassembly ------------------------------------------------- */

void tw_snap_reasm_init(struct tw_snap_reasm *r, uint8_t *buf, size_t cap)
{
  memset(r, 0, sizeof *r);
  r->buf = buf;
  r->cap = cap;
}

/* rec is taken as the first record of a new snapshot: its address is the
 * base. (A lost first record cannot be seen here; it shows up as a total
 * that is never reached, reported when the next snapshot id arrives.) */
static int reasm_start(struct tw_snap_reasm *r, const struct tw_record *rec)
{
  const struct tw_snap_info *s = &rec->snap;
  r->active = 0;
  r->complete = 0;
  r->skip = 0;
  r->snap_id = s->snap_id;
  if (s->total_len > r->cap) {
    r->skip = 1;
    return TW_ETOOBIG;
  }
  r->active = 1;
  r->base_addr = s->address;
  r->next_addr = s->address;
  r->total = s->total_len;
  r->got = 0;
  r->event_id = rec->event_id;
  r->module_id = rec->module_id;
  return 0;
}

static int reasm_append(struct tw_snap_reasm *r, const struct tw_record *rec)
{
  const struct tw_snap_info *s = &rec->snap;
  uint32_t n = s->this_len, left = (uint32_t)r->total - r->got;
  /* TI's layout counts whole words: the last record's padding may pass the
   * total (never by a word or more) */
  if (s->ti_layout && n > left && n - left < 4u)
    n = left;
  if (s->total_len != r->total || n > left) {
    r->active = 0;
    r->skip = 1;
    return TW_ESNAPLEN;
  }
  if (n)
    memcpy(r->buf + r->got, rec->payload, n);
  r->got = (uint16_t)(r->got + n);
  r->next_addr = s->address + s->this_len; /* TI advances by whole words too */
  if (r->got == r->total) {
    r->active = 0;
    r->complete = 1;
    return 1;
  }
  return 0;
}

int tw_snap_reasm_feed(struct tw_snap_reasm *r, const struct tw_record *rec)
{
  if (!rec->is_snapshot)
    return TW_EINVAL;
  const struct tw_snap_info *s = &rec->snap;
  if (r->active && s->snap_id == r->snap_id) {
    if (s->address != r->next_addr) {
      r->active = 0;
      r->skip = 1;
      return TW_ESNAPGAP;
    }
    return reasm_append(r, rec);
  }
  if (!r->active && r->skip && s->snap_id == r->snap_id)
    return 0; /* the rest of a snapshot already reported broken */
  int lost = r->active; /* a different id while one is incomplete */
  int rc = reasm_start(r, rec);
  if (rc == 0)
    rc = reasm_append(r, rec);
  return lost ? TW_ESNAPGAP : rc;
}
