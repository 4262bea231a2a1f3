#!/usr/bin/env python3
"""hdr_counts.py FILE.json PATH [FILE.json PATH ...]: decode the HdrHistogram
(V2 compressed, base64, as pacer's JSON holds it at PATH, e.g.
latency.histogram) of each file and print the bucket counts of their sum as
"index:count" lines, non-zero buckets only. Two sums that print the same are
equal bucket for bucket. Python's standard library only."""
import base64, json, struct, sys, zlib
from collections import Counter


def counts(b64):
    raw = base64.b64decode(b64)
    cookie, length = struct.unpack(">ii", raw[:8])
    body = zlib.decompress(raw[8:8 + length])
    _, plen, _, _, lowest, highest, _ = struct.unpack(">iiiiqqd", body[:40])
    data, out, i, pos = body[40:40 + plen], Counter(), 0, 0
    while pos < len(data):
        shift = value = 0
        while True:  # LEB128, then ZigZag
            b = data[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80 or shift >= 63:
                break
        value = (value >> 1) ^ -(value & 1)
        if value < 0:
            i += -value  # a run of empty buckets
        else:
            if value:
                out[i] += value
            i += 1
    return out, (lowest, highest)


total, shape = Counter(), None
args = sys.argv[1:]
for f, path in zip(args[::2], args[1::2]):
    v = json.load(open(f))
    for k in path.split("."):
        v = v[k]
    c, s = counts(v)
    if shape and s != shape:
        sys.exit("hdr_counts.py: %s has another layout %s than %s" % (f, s, shape))
    shape = s
    total.update(c)
for k in sorted(total):
    print("%d:%d" % (k, total[k]))
