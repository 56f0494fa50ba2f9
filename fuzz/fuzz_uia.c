/*
 * libFuzzer target for the wire decoders: a byte stream is read the way the
 * host reader does (packet after packet, records inside each, snapshot
 * records into a reassembler). The interesting property is ASan's: no read
 * or write outside the input or the reassembly buffer. Checked-in corpus:
 * fuzz/corpus/uia (the demo's packets). Run: tests/sh/fuzz_uia.sh, or
 *   clang -fsanitize=fuzzer,address,undefined -Iinclude fuzz/fuzz_uia.c \
 *     src/common/uia.c src/common/error.c -o fuzz_uia && ./fuzz_uia fuzz/corpus/uia
 */
#include <stddef.h>
#include <stdint.h>

#include "tracewire/uia.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static uint8_t snap[512];
  struct tw_snap_reasm ra;
  tw_snap_reasm_init(&ra, snap, sizeof snap);
  size_t off = 0;
  while (off < size) {
    struct tw_pkt p;
    int n = tw_pkt_parse(data + off, size - off, 0, &p);
    if (n <= 0) {
      off += 4; /* resync the crude way: next word */
      continue;
    }
    size_t r = 0;
    while (r < p.payload_len) {
      struct tw_record rec;
      int m = tw_record_parse(p.payload + r, p.payload_len - r, p.endian, &rec);
      if (m <= 0)
        break;
      if (rec.is_snapshot)
        (void)tw_snap_reasm_feed(&ra, &rec);
      else if (rec.payload_len >= 4)
        (void)tw_record_word(&rec, rec.payload_len / 4 - 1);
      r += (size_t)m;
    }
    off += (size_t)n;
  }
  return 0;
}
