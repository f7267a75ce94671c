#!/usr/bin/env python3
"""Events an LTTng trace lost, read from its CTF packet index files.

Usage: ctf_lost.py TRACE_DIR
Prints "lost=N packets=P content_bytes=B streams=S".

Each stream file ch_K has an index/ch_K.idx written by the consumer daemon:
a header (magic 0xC1F1DCC1, major, minor, entry length) and one big-endian
entry per packet whose sixth u64 is the stream's running count of discarded
events.  The last entry of every stream, summed, is what the trace lost.
Read from the trace itself, it survives per-process buffers, whose
statistics vanish with the process.
"""

import os
import struct
import sys

MAGIC = 0xC1F1DCC1
HDR = struct.Struct(">IIII")


def scan(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HDR.size:
        return None
    magic, major, minor, entry_len = HDR.unpack_from(data)
    if magic != MAGIC or entry_len < 48:
        raise ValueError("%s: not a CTF packet index (magic %#x)" % (path, magic))
    n = (len(data) - HDR.size) // entry_len
    if n == 0:
        return None
    content = 0
    lost = 0
    for i in range(n):
        off = HDR.size + i * entry_len
        _, _, content_bits, _, _, discarded = struct.unpack_from(">6Q", data, off)
        content += content_bits // 8
        lost = discarded
    return lost, n, content


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: ctf_lost.py TRACE_DIR")
    lost = packets = content = streams = 0
    for root, _, files in os.walk(sys.argv[1]):
        for name in files:
            if not name.endswith(".idx"):
                continue
            try:
                res = scan(os.path.join(root, name))
            except (OSError, ValueError) as e:
                sys.exit("ctf_lost: %s" % e)
            if res is None:
                continue
            lost += res[0]
            packets += res[1]
            content += res[2]
            streams += 1
    print("lost=%d packets=%d content_bytes=%d streams=%d"
          % (lost, packets, content, streams))


if __name__ == "__main__":
    main()
