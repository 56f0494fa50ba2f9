/*
 * The .twt trace file on disk: every byte's meaning, in one place
 * (docs/trace-file.md tells the story; trace_file.c and twt_index.c
 * write and read it). All integers little-endian.
 *
 *   file header   TW_TWT_HDR_BYTES (32): "TWTRACE\0", u32 version (1),
 *                 u32 header bytes (32), u64 wall-clock ns at creation,
 *                 u32 flags (0), u32 reserved (0). A reader accepts a
 *                 larger header (a later version's) up to TW_TWT_MAX_HDR.
 *   chunk*        TW_TWT_CHUNK_HDR_BYTES (24) header + payload:
 *                 u32 magic TW_TWT_CHUNK_MAGIC ("TWCK"), u16 type,
 *                 u16 source id, u32 payload bytes, u32 check
 *                 (tw_twt_check_word()), u64 arrival (wall-clock ns when
 *                 the bytes were received). A payload is at most
 *                 TW_TWT_MAX_CHUNK bytes.
 *
 * Chunk payloads by type:
 *   SOURCE  the URI of a source id (text, no NUL).
 *   DATA    bytes exactly as the transport delivered them: packets, and any
 *           garbage between them.
 *   INFO    a target's GET_INFO reply body, big-endian words as received;
 *           the chunk's source id says whose.
 *   NOTE    text.
 *   FRAMING u32 flags: bit 0 = the source's target writes packets without a
 *           footer, as TI's do (record --no-footer); written after its
 *           SOURCE chunk, before its data. Absent: detected (reader.h).
 *   END     the footer, written by a clean stop: u64 data bytes, u64 data
 *           chunks, u64 wall-clock ns at the end; in an indexed file also
 *           u64 file offset of the TOC (then 32 bytes).
 *   INDEX   u32 version 1, u32 nsrc, per source: u32 id (-1: all DATA),
 *           u32 framing (tw_reader_resume_point(): bit 0 in sync, bit 1
 *           footer-less stream, bit 2 footers seen), u64 foff, u64 soff, u64 resume, u64 packets,
 *           u64 last_ns, u32 state bytes, state (tw_decoder_save()).
 *   TOC     u32 version 1, u32 nsrc, u32 npoints, nsrc x (u32 id, u32 flags:
 *           bit 0 = the source's event times went backwards), per point:
 *           u64 INDEX chunk offset, per source u64 max_before + 1 (0: no
 *           event before), u64 min_after (all ones: none after).
 *   INDEX and TOC end in u32 FNV-1a of the bytes before it: chunk headers
 *   have a check word but payloads none, and an offset that a flipped bit
 *   moved onto another chunk header would otherwise pass every other test.
 *   What the index means and how readers use it: twt_index.h.
 *
 * Readers skip chunk types they do not know, so the index needed no new
 * version (docs/trace-file.md).
 */
#ifndef TRACEWIRE_TWT_LAYOUT_H
#define TRACEWIRE_TWT_LAYOUT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TW_TWT_MAGIC "TWTRACE"
#define TW_TWT_VERSION 1u
#define TW_TWT_HDR_BYTES 32u
#define TW_TWT_MAX_HDR 4096u
#define TW_TWT_CHUNK_HDR_BYTES 24u
#define TW_TWT_CHUNK_MAGIC 0x4B435754u
#define TW_TWT_MAX_CHUNK (4u << 20)

enum tw_twt_chunk_type {
  TW_TWT_SOURCE = 1, TW_TWT_DATA = 2, TW_TWT_INFO = 3, TW_TWT_NOTE = 4, TW_TWT_END = 5,
  TW_TWT_INDEX = 6, TW_TWT_TOC = 7, TW_TWT_FRAMING = 8
};
#define TW_TWT_FRAMING_FOOTERLESS 1u

/* The chunk header's check word: a damaged header is detected without
 * reading the payload. */
static inline uint32_t tw_twt_check_word(uint32_t len, uint16_t type, uint16_t source)
{
  return len ^ type ^ (uint32_t)source << 16 ^ 0x5457u;
}

#ifdef __cplusplus
}
#endif

#endif
