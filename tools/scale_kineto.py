#!/usr/bin/env python3
"""Scale a real PyTorch profiler (Kineto) Chrome-trace JSON by repeating its events.

usage: scale_kineto.py SRC DST --copies K [--gzip-level N]

SRC is .json or gzip (told by its first bytes 1f 8b). DST is written gzip-compressed when its name
ends with .gz, else as plain JSON. DST holds SRC's top-level members once, in SRC's order, and its
"traceEvents" K times (a top-level array, the JSON Array Format, stays an array), so that the
result has the shape of one long capture:

- Time: copy k is shifted by k * stride, stride = ceil(span + 1000 us) in whole microseconds,
  span = max(ts + dur) - min(ts) over the events that have a ts. The copies follow each other
  with a gap of at least 1 ms and never overlap. A whole-microsecond stride keeps every shifted
  time exact with the decimals its token had ("ts": 4628894605263.866 stays three decimals,
  "ts": 1682725898236567 stays an integer); times are computed as scaled integers, never floats.
  Only "ts" is shifted ("dur" is kept), on every event that has one.
- Ids, shifted by k * (max + 1) of the field in SRC (non-negative integers only; other values are
  copied as they are), so that they stay unique across copies and links stay consistent:
    correlation ids: args "correlation", the ids of "ac2g" flow events (they are correlation
      ids, so they share one offset with them) and args "wait_on_cuda_event_record_corr_id";
    args "External id" (shared by cpu_op, user annotations and the GPU events they launch);
    args "Sequence number"; the ids of "fwdbwd" flow events; the ids of flows of any other
      category (one offset per category);
    args "Ev Idx" (a unique per-event index in Kineto's CPU events);
    args "Python id" and "Python parent id" (one offset for both; Python stack events).
  Left alone: "Record function id" (0 in every trace seen: not an identity), "Fwd thread id",
  pid, tid, stream, device: the copies run in the same processes, threads and streams.
- Names: "ProfilerStep#N", "iteration N" and "step N" (the user annotations of the FSDP trace)
  become N + k * (max N - min N + 1) for their prefix, which is N + k * steps for consecutive
  steps: iterations stay distinct and consecutive across copies.
- Once only: "ph": "M" metadata events and "ph": "i" instant markers ("Iteration Start",
  "Record Window End") are written in copy 0 only, as is the "cat": "Trace" span event
  ("PyTorch Profiler (0)"), whose dur is extended by (K - 1) * stride so that it covers all
  copies. "Record Window End" is moved by (K - 1) * stride: it stays after the last event.
- Numbers are copied with their exact decimal text (decimal.Decimal; "1e3"-style tokens are
  rewritten in fixed notation where they are shifted). Strings are written as UTF-8 without
  escaping (those holding lone surrogates, with \\u escapes).

The output is streamed: SRC is parsed once, each event is turned once into a template (its JSON
text with holes for the shifted values), and each copy is written event by event from those
templates, so memory holds SRC and one copy's text, not K copies. Measured on the 2-core dev
machine with gpt2_2layer_fp16_h200.kineto.json.gz (5,483 events, 1.8 MB of JSON; this writer's
one-line events make a copy 1.69 MB): --copies 570 gives 3.09M events, 965 MB in 11.7 s
(73.7 MB as .gz in 22 s); --copies 634 gives 1.07 GB in 13 s; about 37 MB of memory.
"""
import argparse
import decimal
import gzip
import json
import re
import sys
import time
import zlib

GAP_US = 1000
ID_ARGS_CORR = ("correlation", "wait_on_cuda_event_record_corr_id")
ID_ARGS = {"External id": "external", "Sequence number": "seq", "Ev Idx": "evidx",
           "Python id": "python", "Python parent id": "python"}
STEP_NAME = re.compile(r"(ProfilerStep#|iteration |step )(\d+)")
RECORD_WINDOW_END = "Record Window End"


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data, parse_float=decimal.Decimal)


def fixed(units, d):
    """Text of units / 10**d with exactly d decimals."""
    if d == 0:
        return str(units)
    sign = "-" if units < 0 else ""
    q, r = divmod(abs(units), 10**d)
    return f"{sign}{q}.{r:0{d}d}"


def scaled(v):
    """(units, decimals) with v == units / 10**decimals exactly, or None for a non-number."""
    if is_int(v):
        return v, 0
    if isinstance(v, decimal.Decimal) and v.is_finite():
        exp = v.as_tuple().exponent
        d = -exp if exp < 0 else 0
        return int(v.scaleb(d, context=decimal.Context(prec=10**6))), d
    return None


def to_decimal(v):
    s = scaled(v)
    return None if s is None else decimal.Decimal(s[0]).scaleb(-s[1])


class Template:
    """One event as JSON text with %s holes: (text, slots); a slot is (units, step, decimals) for
    a number written as fixed(units + k * step, decimals), or (n, stride, None, prefix) for a
    renumbered name written as the JSON string prefix + str(n + k * stride)."""

    def __init__(self):
        self.parts = []
        self.slots = []

    def lit(self, s):
        self.parts.append(s.replace("%", "%%"))

    def hole(self, slot):
        self.parts.append("%s")
        self.slots.append(slot)


def json_str(s):
    try:
        s.encode("utf-8")
        return json.dumps(s, ensure_ascii=False)
    except UnicodeEncodeError:  # a lone surrogate: keep it as an escape
        return json.dumps(s, ensure_ascii=True)


def write_value(t, v):
    if isinstance(v, dict):
        t.lit("{")
        for i, (key, x) in enumerate(v.items()):
            t.lit((", " if i else "") + json_str(key) + ": ")
            write_value(t, x)
        t.lit("}")
    elif isinstance(v, list):
        t.lit("[")
        for i, x in enumerate(v):
            if i:
                t.lit(", ")
            write_value(t, x)
        t.lit("]")
    elif isinstance(v, str):
        t.lit(json_str(v))
    elif isinstance(v, decimal.Decimal):
        t.lit(str(v))
    else:  # int, bool, None, float NaN/Infinity: as Python's json writes them
        t.lit(json.dumps(v))


class Plan:
    """What SRC holds and how copy k differs from copy 0."""

    def __init__(self, events, copies):
        timed = [(e, to_decimal(e.get("ts"))) for e in events if isinstance(e, dict)]
        timed = [(e, ts) for e, ts in timed if ts is not None]
        if timed:
            lo = min(ts for _, ts in timed)
            hi = max(ts + (to_decimal(e.get("dur")) or 0) for e, ts in timed)
            span = hi - lo
        else:
            span = decimal.Decimal(0)
        self.span = span
        self.stride = int((span + GAP_US).to_integral_value(rounding=decimal.ROUND_CEILING))
        self.copies = copies
        top = {}

        def see(field, v):
            if is_int(v) and v >= 0:
                top[field] = max(top.get(field, -1), v)

        steps = {}
        for e in events:
            if not isinstance(e, dict):
                continue
            args = e.get("args")
            if isinstance(args, dict):
                for a in ID_ARGS_CORR:
                    see("corr", args.get(a))
                for a, field in ID_ARGS.items():
                    see(field, args.get(a))
            if "id" in e and e.get("ph") in ("s", "t", "f"):
                see(self.flow_field(e), e["id"])
            m = STEP_NAME.fullmatch(e.get("name", "")) if isinstance(e.get("name"), str) else None
            if m:
                n = int(m.group(2))
                lo_n, hi_n = steps.get(m.group(1), (n, n))
                steps[m.group(1)] = (min(lo_n, n), max(hi_n, n))
        self.offset = {field: mx + 1 for field, mx in top.items()}
        self.step_stride = {p: hi_n - lo_n + 1 for p, (lo_n, hi_n) in steps.items()}

    @staticmethod
    def flow_field(e):
        cat = e.get("cat")
        return "corr" if cat == "ac2g" else ("flow", cat if isinstance(cat, str) else repr(cat))

    @staticmethod
    def once(e):
        return e.get("ph") in ("M", "i") or e.get("cat") == "Trace"

    def template(self, e):
        """The event as a Template for the repeated copies (k >= 1 gets the shifts)."""
        t = Template()
        t.lit("{")
        for i, (key, v) in enumerate(e.items()):
            t.lit((", " if i else "") + json_str(key) + ": ")
            s = scaled(v)
            if key == "ts" and s is not None:
                t.hole((s[0], self.stride * 10**s[1], s[1]))
            elif key == "id" and e.get("ph") in ("s", "t", "f") and is_int(v) and v >= 0:
                t.hole((v, self.offset[self.flow_field(e)], 0))
            elif key == "name" and isinstance(v, str) and STEP_NAME.fullmatch(v):
                m = STEP_NAME.fullmatch(v)
                t.hole((int(m.group(2)), self.step_stride[m.group(1)], None, m.group(1)))
            elif key == "args" and isinstance(v, dict):
                t.lit("{")
                for j, (a, x) in enumerate(v.items()):
                    t.lit((", " if j else "") + json_str(a) + ": ")
                    field = "corr" if a in ID_ARGS_CORR else ID_ARGS.get(a)
                    if field and is_int(x) and x >= 0:
                        t.hole((x, self.offset[field], 0))
                    else:
                        write_value(t, x)
                t.lit("}")
            else:
                write_value(t, v)
        t.lit("}")
        return "".join(t.parts), tuple(t.slots)

    def once_template(self, e):
        """A copy-0-only event (no holes); the Trace span and the window end reach over all copies."""
        e = dict(e)
        extra = (self.copies - 1) * self.stride
        if e.get("cat") == "Trace" and e.get("ph") == "X" and scaled(e.get("dur")) is not None:
            units, d = scaled(e["dur"])
            e["dur"] = decimal.Decimal(fixed(units + extra * 10**d, d))
        if e.get("ph") == "i" and e.get("name") == RECORD_WINDOW_END and scaled(e.get("ts")) is not None:
            units, d = scaled(e["ts"])
            e["ts"] = decimal.Decimal(fixed(units + extra * 10**d, d))
        t = Template()
        write_value(t, e)
        return "".join(t.parts), ()


def render(templates, k):
    out = []
    for text, slots in templates:
        if not slots:
            out.append(text.replace("%%", "%"))
            continue
        vals = []
        for s in slots:
            if s[2] is None:  # renumbered name
                vals.append(json_str(f"{s[3]}{s[0] + k * s[1]}"))
            elif s[2] == 0:
                vals.append(str(s[0] + k * s[1]))
            else:
                vals.append(fixed(s[0] + k * s[1], s[2]))
        out.append(text % tuple(vals))
    return out


def main():
    ap = argparse.ArgumentParser(description="Repeat a Kineto Chrome-trace JSON K times (see the module docstring).")
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--copies", type=int, required=True, metavar="K")
    ap.add_argument("--gzip-level", type=int, default=6, choices=range(0, 10), metavar="N",
                    help="compression level when DST ends with .gz (default 6)")
    a = ap.parse_args()
    if a.copies < 1:
        ap.error("--copies must be at least 1")
    t0 = time.time()
    try:
        src = load(a.src)
    except (OSError, EOFError, zlib.error, ValueError) as e:
        print(f"error: {a.src}: {e}".replace("\n", " "), file=sys.stderr)
        return 2
    if isinstance(src, list):
        members, events = None, src
    elif isinstance(src, dict) and isinstance(src.get("traceEvents"), list):
        members, events = src, src["traceEvents"]
    else:
        print(f"error: {a.src}: not a Chrome trace (no traceEvents array)", file=sys.stderr)
        return 2
    plan = Plan(events, a.copies)
    copy0, repeated = [], []  # copy 0 keeps SRC's order; copies 1.. skip the once-only events
    for e in events:
        if not isinstance(e, dict):  # not an event; repeated as it is
            t = Template()
            write_value(t, e)
            copy0.append(("".join(t.parts), ()))
            repeated.append(copy0[-1])
        elif plan.once(e):
            copy0.append(plan.once_template(e))
        else:
            copy0.append(plan.template(e))
            repeated.append(copy0[-1])
    once = len(copy0) - len(repeated)

    raw = open(a.dst, "wb")
    f = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=a.gzip_level, mtime=0) if a.dst.endswith(".gz") else raw
    try:
        def write(s):
            f.write(s.encode("utf-8"))

        def write_events():
            first = True
            for k in range(a.copies):
                chunk = render(copy0 if k == 0 else repeated, k)
                if chunk:
                    write(("\n" if first else ",\n") + ",\n".join(chunk))
                    first = False
            write("\n]")

        if members is None:
            write("[")
            write_events()
            write("\n")
        else:
            write("{\n")
            for i, (key, v) in enumerate(members.items()):
                write(("" if i == 0 else ",\n") + json_str(key) + ": ")
                if key == "traceEvents":
                    write("[")
                    write_events()
                else:
                    t = Template()
                    write_value(t, v)
                    write("".join(t.parts).replace("%%", "%"))
            write("\n}\n")
    finally:
        if f is not raw:
            f.close()
        raw.close()
    n = once + len(repeated) * a.copies
    print(f"{a.dst}: {n} events ({a.copies} copies of {len(repeated)}, {once} once), stride {plan.stride} us, "
          f"{time.time() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
