"""A small protobuf wire-format reader for the export tests (tests/sh/*.sh).

Written from the wire format's definition, independent of the exporter it
checks: a message is a run of (key varint = field << 3 | wire type, value).
"""


def varint(b, i):
    v = s = 0
    while True:
        if i >= len(b):
            raise ValueError('varint runs past the end at byte %d' % i)
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields_raw(b):
    """[(field, wire type, value)]: value int for varints, else the bytes
    (fixed64/fixed32 little-endian as stored, or the length-delimited body)."""
    i, out = 0, []
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt in (1, 5):
            n = 8 if wt == 1 else 4
            v = b[i:i + n]
            i += n
        elif wt == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        else:
            raise ValueError('wire type %d at byte %d' % (wt, i))
        if i > len(b):
            raise ValueError('field %d overruns its message (%d > %d bytes)' % (f, i, len(b)))
        out.append((f, wt, v))
    return out


def fields(b):
    """[(field, value)]: fixed64/fixed32 as unsigned ints, the rest as fields_raw."""
    return [(f, int.from_bytes(v, 'little') if wt in (1, 5) else v) for f, wt, v in fields_raw(b)]
