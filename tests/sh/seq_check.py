#!/usr/bin/env python3
"""Check a raw stream of UIA event packets against the streamer's sequence
number rules (docs/streamer.md, "Sequence numbers and drops"): packet
sequence numbers count up by one from 0; every record takes the next
16-bit event sequence number, except that after a DROPS record of count d
the next one is d further on; each packet's header names its first
record's number (14 bits). Independent of the decoder, which takes a
DROPS count at its word and so does not see a skip that is missing.

    seq_check.py SRC_DIR STREAM.bin

Handles EventPkt and MinEventPkt with little-endian records (this host's
order); the packet and record types and the DROPS id come from the
sources (uia.h, events.def). Prints the number of packets and records,
exits 1 on the first violation. Stdlib only.
"""
import os
import re
import struct
import sys


def constant(path, pattern):
    m = re.search(pattern, open(path).read())
    if not m:
        sys.exit("seq_check: %s: no %s" % (path, pattern))
    return int(m.group(1), 0)


def main(src, path):
    uia = os.path.join(src, "include/tracewire/uia.h")
    min_pkt = constant(uia, r"TW_PKT_MIN_EVENT = (\d+)")
    timed = {constant(uia, r"TW_REC_EVENT_TS = (\d+)"), constant(uia, r"TW_REC_SNAPSHOT_TS = (\d+)")}
    drops_id = constant(os.path.join(src, "include/tracewire/events.def"),
                        r"TW_EVENT\(DROPS, (0x[0-9A-Fa-f]+)")
    data = open(path, "rb").read()
    off, pkt_seq, want, packets, records = 0, 0, None, 0, 0
    while off < len(data):
        w1, w2 = struct.unpack_from(">II", data, off)
        kind = w1 >> 28
        length = w1 & 0xFFFF if kind == min_pkt else w1 & 0x07FFFFFF
        hdr = 8 if kind == min_pkt else 16
        if length < hdr + 4 or off + length > len(data):
            sys.exit("seq_check: packet %d at byte %d: bad length %d" % (packets, off, length))
        if w2 >> 16 != pkt_seq & 0xFFFF:
            sys.exit("seq_check: packet %d has sequence number %d" % (pkt_seq, w2 >> 16))
        first = (w2 >> 2) & 0x3FFF
        p, end = off + hdr, off + length - 4
        while p < end:
            eh, = struct.unpack_from("<I", data, p)
            rlen, seq, rtype = (eh >> 16) & 0x7FF, eh & 0xFFFF, eh >> 27
            if rlen < 8 or p + rlen > end:
                sys.exit("seq_check: packet %d: bad record length %d" % (pkt_seq, rlen))
            if p == off + hdr and seq & 0x3FFF != first:
                sys.exit("seq_check: packet %d names %d as its first record, which is %d"
                         % (pkt_seq, first, seq & 0x3FFF))
            if want is not None and seq != want:
                sys.exit("seq_check: record %d (packet %d): sequence number %d, expected %d"
                         % (records, pkt_seq, seq, want))
            want = (seq + 1) & 0xFFFF
            idw_at = p + (12 if rtype in timed else 4)
            idw, = struct.unpack_from("<I", data, idw_at)
            if idw >> 16 == drops_id:
                count, = struct.unpack_from("<I", data, idw_at + 4)
                want = (want + count) & 0xFFFF
            p += rlen
            records += 1
        off += length
        pkt_seq += 1
        packets += 1
    print("seq_check: %d packets, %d records: sequence numbers as the rules say" % (packets, records))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
