#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare what a viewer shows of a converted trace with slimtrace report.

    viewers.py ctf REPORT FORMATS BABELTRACE2_OUT [empty-string-bug]
    viewers.py ctf1 REPORT FORMATS BABELTRACE1_OUT
    viewers.py perfetto REPORT FORMATS PROTOC_OUT [START,END[,KEY]]
    viewers.py kshark REPORT KSHARK_DUMP

REPORT is `slimtrace report -R -t -N FILE` (-t only, for kshark), FORMATS
is `slimtrace list -f FILE`.  Every event is turned into (time in ns,
thread id, thread name, event, fields) on both sides, the fields typed
from the format (a signed field sign-extended, arrays split into
elements), and the two lists must be equal.  Prints "OK N" or the first
differences, and exits 1 on a difference.
"""
import re
import sys

# Element sizes of __data_loc arrays by type name (the format gives none).
ELEM = {}
for names, size in (("char unsigned_char signed_char u8 s8 __u8 __s8 uint8_t int8_t bool _Bool", 1),
                    ("short unsigned_short u16 s16 __u16 __s16 uint16_t int16_t", 2),
                    ("int unsigned_int unsigned u32 s32 __u32 __s32 uint32_t int32_t pid_t", 4),
                    ("long_long unsigned_long_long u64 s64 __u64 __s64 uint64_t int64_t", 8),
                    ("long unsigned_long size_t ssize_t", 8)):
    for n in names.split():
        ELEM[n.replace("_", " ") if n.startswith(("unsigned_", "signed_", "long_")) else n] = size


class Field:
    def __init__(self, line):
        m = re.match(r"\s*field:(.*?)\s*([A-Za-z_]\w*)(\[(\d*)\])?;\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d+);", line)
        if not m:
            raise ValueError("bad field line: " + line)
        self.type, self.name = m.group(1).strip(), m.group(2)
        self.size, self.signed = int(m.group(6)), m.group(7) == "1"
        self.dynamic = self.type.startswith(("__data_loc", "__rel_loc"))
        base = re.sub(r"^__(data|rel)_loc\s+", "", self.type)
        base = re.sub(r"^const\s+", "", base).replace("[]", "").strip()
        self.text = base == "char" and (self.dynamic or m.group(3) is not None)
        self.pointer = base.endswith("*")
        if self.dynamic:
            self.elem = ELEM.get(base, 8 if self.pointer else 1)
        elif m.group(3) is not None:
            count = int(m.group(4) or 1)
            self.elem = self.size // count if count else self.size
        else:
            self.elem = None


def read_formats(path):
    events, cur = {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("name: "):
            cur = events.setdefault(line[6:].strip(), [])
        elif line.lstrip().startswith("field:") and cur is not None:
            f = Field(line)
            if not f.name.startswith("common_"):
                cur.append(f)
    return events


def sext(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def number(text):
    text = text.strip()
    if text == "(nil)":
        return 0
    return int(text, 16) if text.lower().startswith(("0x", "-0x")) else int(text, 10)


def ref_value(f, text):
    """A value as `report -R` prints it, typed from the format."""
    if f.text:
        return text
    if text.startswith("ARRAY["):
        raw = bytes(int(b, 16) for b in text[6:-1].split(", ") if b)
        out = []
        for i in range(0, len(raw) - len(raw) % f.elem, f.elem):
            v = int.from_bytes(raw[i:i + f.elem], sys.byteorder)
            out.append(sext(v, 8 * f.elem) if f.signed else v)
        return out
    v = number(text)
    if f.elem is not None and not f.dynamic:
        return [v]
    return sext(v, 8 * f.size) if f.signed else v & ((1 << (8 * f.size)) - 1)


LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s(\S+):\s(.*)$")


DROPPED = re.compile(r"^CPU:(\d+) \[(\d+) EVENTS DROPPED\]$")


def read_report(path, formats, raw=True, dropped=None):
    """slimtrace report -R -t: (ts, tid, comm, event, fields or info).
    DROPPED, a list, gets (cpu, count, time of the event after)."""
    events, pending = [], None
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        d = DROPPED.match(line)
        if d and dropped is not None:
            pending = (int(d.group(1)), int(d.group(2)))
            continue
        m = LINE.match(line)
        if not m:
            continue
        if pending:
            dropped.append((pending[0], pending[1], int(m.group(4)) * 10**9 + int(m.group(5))))
            pending = None
        comm, tid, ts, name, rest = m.group(1), int(m.group(2)), int(m.group(4)) * 10**9 + int(m.group(5)), m.group(6), m.group(7)
        if not raw:
            events.append((ts, tid, comm, name, rest.strip()))
            continue
        fields = formats[name]
        rest = rest.lstrip(" ")
        vals = {}
        for i, f in enumerate(fields):
            start = f.name + "="
            if not rest.startswith(start):
                raise ValueError("field %s not where expected in: %s" % (f.name, line))
            rest = rest[len(start):]
            if i + 1 < len(fields):
                end = rest.find(" " + fields[i + 1].name + "=")
                if end < 0:
                    raise ValueError("field %s not found in: %s" % (fields[i + 1].name, line))
                text, rest = rest[:end], rest[end + 1:]
            else:
                text, rest = rest, ""
            vals[f.name] = ref_value(f, text)
        events.append((ts, tid, comm, name, vals))
    return events


# ---- babeltrace2 ------------------------------------------------------------

class Parser:
    """babeltrace2's pretty values: { a = 1, s = "x", arr = [ [0] = 1 ] }."""

    # babeltrace 1 prints strings without escapes: a string ends at the
    # quote that a next field or the end of the structure follows.
    END = re.compile(r'"(, [A-Za-z_]\w* = | \}|, \[\d+\] = | \])')

    def __init__(self, text, escapes=True):
        self.s, self.i, self.escapes = text, 0, escapes

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def expect(self, t):
        self.ws()
        if not self.s.startswith(t, self.i):
            raise ValueError("expected %r at %d in %s" % (t, self.i, self.s))
        self.i += len(t)

    def value(self):
        self.ws()
        c = self.s[self.i]
        if c == "{":
            return self.struct()
        if c == "[":
            self.i += 1
            out = []
            self.ws()
            while self.s[self.i] != "]":
                self.expect("[")
                while self.s[self.i] != "]":
                    self.i += 1
                self.expect("]")
                self.expect("=")
                out.append(self.value())
                self.ws()
                if self.s[self.i] == ",":
                    self.i += 1
                self.ws()
            self.i += 1
            return out
        if c == '"' and not self.escapes:
            m = self.END.search(self.s, self.i + 1)
            if not m:
                raise ValueError("unterminated string at %d in %s" % (self.i, self.s))
            out, self.i = self.s[self.i + 1:m.start()], m.start() + 1
            return out
        if c == '"':
            self.i += 1
            out = []
            while self.s[self.i] != '"':
                if self.s[self.i] == "\\":
                    self.i += 1
                out.append(self.s[self.i])
                self.i += 1
            self.i += 1
            return "".join(out)
        m = re.compile(r"-?(0x[0-9A-Fa-f]+|\d+)").match(self.s, self.i)
        if not m:
            raise ValueError("no value at %d in %s" % (self.i, self.s))
        self.i = m.end()
        return number(m.group(0))

    def struct(self):
        self.expect("{")
        out = {}
        self.ws()
        while self.s[self.i] != "}":
            m = re.compile(r"[A-Za-z_]\w*").match(self.s, self.i)
            self.i = m.end()
            self.expect("=")
            out[m.group(0)] = self.value()
            self.ws()
            if self.s[self.i] == ",":
                self.i += 1
            self.ws()
        self.i += 1
        return out


BT = re.compile(r"^\[(\d+)\.(\d{9})\] \([^)]*\) ([^:]+):(\S+): (.*)$")


def read_babeltrace(path, formats, escapes):
    events = []
    for line in open(path, encoding="utf-8", errors="replace"):
        m = BT.match(line.rstrip("\n"))
        if not m:
            raise ValueError("not an event line: " + line)
        ts = int(m.group(1)) * 10**9 + int(m.group(2))
        p = Parser(m.group(5), escapes)
        packet = p.struct()
        p.expect(",")
        ctx = p.struct()
        fields = {}
        if formats[m.group(4)]:
            p.expect(",")
            fields = p.struct()
        vals = {}
        for f in formats[m.group(4)]:
            v = fields.pop(f.name)
            vals[f.name] = v
            if f.dynamic and not f.text:
                n = fields.pop("_%s_length" % f.name)
                if n != len(v):
                    raise ValueError("length %d of %s, %d elements" % (n, f.name, len(v)))
        if fields:
            raise ValueError("fields the format does not have: %s" % fields)
        events.append((ts, ctx["tid"], ctx["procname"], m.group(4), vals, packet["cpu_id"]))
    return events


# ---- protoc --decode ----------------------------------------------------------

def parse_text_proto(path):
    """protoc's text format, as nested lists of (key, value)."""
    stack = [[]]
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            node = []
            stack[-1].append((line[:-1].strip(), node))
            stack.append(node)
        elif line == "}":
            stack.pop()
        else:
            key, _, val = line.partition(": ")
            if val.startswith('"'):
                val = bytes(val[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
            elif re.match(r"^-?\d+$", val):
                val = int(val)
            stack[-1].append((key, val))
    return stack[0]


def get(node, key, default=None):
    for k, v in node:
        if k == key:
            return v
    return default


def annotation_value(da):
    arr = [annotation_value(a) for k, a in da if k == "array_values"]
    if arr:
        return arr
    for key in ("int_value", "uint_value", "pointer_value", "string_value", "bool_value"):
        v = get(da, key)
        if v is not None:
            return v
    return []


def read_perfetto(path):
    """Tracks and events, interned names resolved: an iid must have been
    defined (in this packet or one before) when it is used."""
    threads, named, events = {}, {}, []
    interned = {"event_categories": {}, "event_names": {}, "debug_annotation_names": {}}
    cleared, state = False, [False]

    def lookup(table, iid):
        if not state[0]:
            raise ValueError("an iid in a packet without SEQ_NEEDS_INCREMENTAL_STATE after a clear")
        if iid not in interned[table]:
            raise ValueError("%s iid %r used before it is interned" % (table, iid))
        return interned[table][iid]

    for key, pkt in parse_text_proto(path):
        if key != "packet":
            raise ValueError("not a packet: " + key)
        if get(pkt, "trusted_packet_sequence_id") != 1:
            raise ValueError("packet without the sequence id")
        flags = get(pkt, "sequence_flags", 0)
        cleared |= bool(flags & 1)
        for table, entries in get(pkt, "interned_data", []):
            iid, name = get(entries, "iid"), get(entries, "name")
            if iid in interned[table] and interned[table][iid] != name:
                raise ValueError("%s iid %d interned twice" % (table, iid))
            interned[table][iid] = name
        state[0] = bool(flags & 2) and cleared
        td = get(pkt, "track_descriptor")
        if td is not None:
            th = get(td, "thread")
            if th is not None:
                if get(th, "pid") != get(th, "tid"):
                    raise ValueError("thread pid != tid")
                threads[get(td, "uuid")] = (get(th, "tid"), get(th, "thread_name"))
            elif get(td, "name") is not None:
                named[get(td, "uuid")] = get(td, "name")
            continue
        te = get(pkt, "track_event")
        if te is None:
            raise ValueError("packet with neither a track nor an event")
        fields = {}
        for k, da in te:
            if k == "debug_annotations":
                name = get(da, "name")
                if name is None:
                    name = lookup("debug_annotation_names", get(da, "name_iid"))
                fields[name] = annotation_value(da)
        name, cat = get(te, "name"), get(te, "categories")
        if get(te, "name_iid") is not None:
            name = lookup("event_names", get(te, "name_iid"))
        if get(te, "category_iids") is not None:
            cat = lookup("event_categories", get(te, "category_iids"))
        events.append((get(pkt, "timestamp"), get(te, "type"), get(te, "track_uuid"), cat, name, fields))
    return threads, named, events


def empty_string_bug(a, b):
    """babeltrace2 2.0.0-2.0.4 shows an empty string as the text an
    earlier event of the stream had in that field (fixed upstream, "String
    fields display the value of a previous event"): equal but for that?"""
    if a[:4] != b[:4] or not isinstance(a[4], dict):
        return False
    diff = [k for k in a[4] if a[4][k] != b[4].get(k)]
    return diff and all(a[4][k] == "" and isinstance(b[4].get(k), str) for k in diff)


def compare(ref, got, what, tolerate_empty=False):
    key = lambda e: (e[0], e[1] if e[1] is not None else -1, e[3], repr(e))
    ref, got = sorted(ref, key=key), sorted(got, key=key)
    if tolerate_empty and len(ref) == len(got):
        n = 0
        for i, (a, b) in enumerate(zip(ref, got)):
            if a != b and empty_string_bug(a, b):
                got[i] = a
                n += 1
        if n:
            print("NOTE: %d empty strings shown as an earlier event's text "
                  "(the babeltrace2 2.0 bug), taken as empty" % n)
    if ref == got:
        return True
    print("MISMATCH %s: %d events in the report, %d in the viewer" % (what, len(ref), len(got)))
    shown = 0
    for a, b in zip(ref, got):
        if a != b and shown < 5:
            print("  report: %r\n  viewer: %r" % (a, b))
            shown += 1
    return False


def norm_fields(formats, name, vals):
    """Viewer values to the report's shapes: fixed arrays as lists."""
    out = {}
    for f in formats[name]:
        v = vals[f.name]
        if f.elem is not None and not f.dynamic and not f.text and not isinstance(v, list):
            v = [v]
        out[f.name] = v
    return out


def main(argv):
    mode = argv[1]
    if mode in ("ctf", "ctf1"):
        formats = read_formats(argv[3])
        ref = [(ts, tid, comm, name, vals) for ts, tid, comm, name, vals in read_report(argv[2], formats)]
        got = [(ts, tid, comm, name.split(":")[-1], norm_fields(formats, name, vals))
               for ts, tid, comm, name, vals, cpu in read_babeltrace(argv[4], formats, mode == "ctf")]
        # babeltrace2 names events system:name; the report shows the name.
        ok = compare(ref, got, mode, len(argv) > 5 and argv[5] == "empty-string-bug")
    elif mode == "perfetto":
        formats = read_formats(argv[3])
        ref = read_report(argv[2], formats)
        threads, named, events = read_perfetto(argv[4])
        slices = argv[5].split(",") if len(argv) > 5 else None
        if slices:
            slices[:2] = [e.split(":")[-1] for e in slices[:2]]
        got, ok, lanes = [], True, {}
        open_on = {}
        lost = pairs = 0
        for ts, typ, track, cat, name, fields in events:
            if track in named:
                if named[track].endswith(": lost events"):
                    lost += fields["count"] if isinstance(fields["count"], int) else 0
                    continue
                if not slices:
                    print("event on a named track without --slice:", named[track])
                    ok = False
                    continue
            if typ == "TYPE_SLICE_BEGIN":
                if name != slices[0]:
                    print("slice begins with %s, not %s" % (name, slices[0]))
                    ok = False
                open_on.setdefault(track, []).append(fields)
            elif typ == "TYPE_SLICE_END":
                stack = open_on.get(track)
                if not stack:
                    print("slice end without a begin on track", track)
                    ok = False
                    continue
                name = slices[1]
                begin = stack.pop()
                if len(slices) > 2 and begin[slices[2]] != fields[slices[2]]:
                    print("slice from %s=%r ends with %s=%r" % (slices[2], begin[slices[2]],
                                                                 slices[2], fields[slices[2]]))
                    ok = False
                pairs += 1
            elif typ != "TYPE_INSTANT":
                print("unexpected type", typ)
                ok = False
            if track in threads:
                tid, comm = threads[track]
            else:
                tid, comm = None, None
            got.append((ts, tid, comm, name, norm_fields(formats, name, fields)))
        if slices:
            # Lane events carry no thread: compare them without one.
            ref = [(ts, tid if name not in slices[:2] or len(slices) < 3 else None,
                    comm if name not in slices[:2] or len(slices) < 3 else None, name, vals)
                   for ts, tid, comm, name, vals in ref]
        ok &= compare(ref, got, "perfetto")
        print("LOST %d" % lost)
        print("SLICES %d" % pairs)
    elif mode == "kshark":
        ref_lost = []
        ref = read_report(argv[2], None, raw=False, dropped=ref_lost)
        got, got_lost = [], []
        for line in open(argv[3], encoding="utf-8", errors="replace"):
            ts, cpu, pid, comm, name, info = line.rstrip("\n").split("\t")
            if name == "missed_events":
                # KernelShark's own entry, just before the page's first event.
                got_lost.append((int(cpu), int(info.split("=")[-1]), int(ts)))
                continue
            got.append((int(ts), int(pid), comm, name.split("/")[-1], info.strip()))
        ok = compare(ref, got, "kshark")
        ref_lost.sort()
        got_lost.sort()
        if len(ref_lost) != len(got_lost) or any(
                a[:2] != b[:2] or not 0 <= a[2] - b[2] <= 1000 for a, b in zip(ref_lost, got_lost)):
            print("MISMATCH lost events: report %r, KernelShark %r" % (ref_lost, got_lost))
            ok = False
        print("LOST %d" % sum(c for _, c, _ in got_lost))
    else:
        raise SystemExit("unknown mode " + mode)
    if ok:
        print("OK %d" % len(ref))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
