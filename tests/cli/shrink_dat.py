#!/usr/bin/env python3
# Make a small test file from a kernel trace.dat (version 6, uncompressed,
# little-endian): keep the first N pages of each CPU, the formats of the
# events those pages hold, the command lines of the pids they name and the
# small options; drop kallsyms, printk formats and every other format.
# How tests/cli/kernel-v6.dat was made (see tests/cli/README.md).
#
#   usage: shrink_dat.py IN OUT [PAGES_PER_CPU]
import re
import struct
import sys


class Reader:
    def __init__(self, data):
        self.d = data
        self.p = 0

    def take(self, n):
        b = self.d[self.p:self.p + n]
        if len(b) != n:
            sys.exit("truncated input at %d" % self.p)
        self.p += n
        return b

    def u16(self):
        return struct.unpack('<H', self.take(2))[0]

    def u32(self):
        return struct.unpack('<I', self.take(4))[0]

    def u64(self):
        return struct.unpack('<Q', self.take(8))[0]

    def cstr(self):
        e = self.d.index(b'\0', self.p)
        s = self.d[self.p:e]
        self.p = e + 1
        return s


def page_records(page):
    """Yield the payload of each data event of one ring-buffer page."""
    commit = struct.unpack_from('<Q', page, 8)[0] & ((1 << 27) - 1)
    p, end = 16, 16 + commit
    while p < end:
        hdr = struct.unpack_from('<I', page, p)[0]
        tl = hdr & 31
        if tl == 0:
            n = struct.unpack_from('<I', page, p + 4)[0]
            yield page[p + 8:p + 4 + n]
            p += 4 + n
        elif tl <= 28:
            yield page[p + 4:p + 4 + tl * 4]
            p += 4 + tl * 4
        elif tl == 29:
            if hdr >> 5 == 0:
                break
            p += 4 + struct.unpack_from('<I', page, p + 4)[0]
        else:
            p += 8


def pid_offsets(fmt):
    """Offsets of the 4-byte fields whose name ends in 'pid'."""
    return [int(m.group(1)) for m in re.finditer(
        rb'field:[^;]*pid;\s*offset:(\d+);\s*size:4;', fmt)]


def main():
    src, dst = sys.argv[1], sys.argv[2]
    keep_pages = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    r = Reader(open(src, 'rb').read())
    magic = r.take(10)
    version = r.cstr()
    if version != b'6':
        sys.exit("want a version 6 file")
    endian_long = r.take(2)
    page_size = r.u32()
    r.take(12)
    header_page = r.take(r.u64())
    r.take(13)
    header_event = r.take(r.u64())
    for _ in range(r.u32()):
        r.take(r.u64())
    formats = {}                    # id -> (system, text)
    for _ in range(r.u32()):
        system = r.cstr()
        for _ in range(r.u32()):
            text = r.take(r.u64())
            m = re.search(rb'\nID: (\d+)', text)
            formats[int(m.group(1))] = (system, text)
    r.take(r.u32())
    r.take(r.u32())
    cmdlines = r.take(r.u64())
    ncpus = r.u32()
    if r.take(10) != b'options  \0':
        sys.exit("want options")
    options = []
    while True:
        oid = r.u16()
        if oid == 0:
            break
        data = r.take(r.u32())
        if oid in (2, 4, 5, 8, 9, 11):      # cpustat clock uname cpucount version traceid
            options.append((oid, data))
    if r.take(10) != b'flyrecord\0':
        sys.exit("want flyrecord")
    cpus = [(r.u64(), r.u64()) for _ in range(ncpus)]
    clock = r.take(r.u64()) if any(oid == 4 for oid, _ in options) else None

    pages, used, pids = [], set(), set()
    for off, size in cpus:
        data = r.d[off:off + min(size, keep_pages * page_size)]
        pages.append(data)
        for i in range(0, len(data), page_size):
            for rec in page_records(data[i:i + page_size]):
                eid = struct.unpack_from('<H', rec, 0)[0]
                used.add(eid)
                for o in [4] + pid_offsets(formats[eid][1]):
                    pids.add(struct.unpack_from('<i', rec, o)[0])

    out = bytearray(magic + version + b'\0' + endian_long)
    out += struct.pack('<I', page_size)
    out += b'header_page\0' + struct.pack('<Q', len(header_page)) + header_page
    out += b'header_event\0' + struct.pack('<Q', len(header_event)) + header_event
    out += struct.pack('<I', 0)
    systems = {}
    for eid in sorted(used):
        systems.setdefault(formats[eid][0], []).append(formats[eid][1])
    out += struct.pack('<I', len(systems))
    for system, texts in systems.items():
        out += system + b'\0' + struct.pack('<I', len(texts))
        for t in texts:
            out += struct.pack('<Q', len(t)) + t
    out += struct.pack('<I', 0) + struct.pack('<I', 0)
    lines = [l for l in cmdlines.split(b'\n')
             if l and int(l.split(b' ', 1)[0]) in pids]
    text = b'\n'.join(lines) + b'\n'
    out += struct.pack('<Q', len(text)) + text
    out += struct.pack('<I', ncpus) + b'options  \0'
    for oid, data in options:
        out += struct.pack('<HI', oid, len(data)) + data
    out += struct.pack('<H', 0) + b'flyrecord\0'
    table = len(out)
    out += bytes(16 * ncpus)
    if clock is not None:                   # the trace_clock file follows the table
        out += struct.pack('<Q', len(clock)) + clock
    for i, data in enumerate(pages):
        out += bytes(-len(out) % page_size)
        struct.pack_into('<QQ', out, table + 16 * i, len(out), len(data))
        out += data
    open(dst, 'wb').write(out)


main()
