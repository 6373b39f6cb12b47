#!/usr/bin/env python3
"""Reference `kern_sum` of a PyTorch profiler (Kineto) Chrome-trace JSON, computed independently
of the C++ importer: prints what `layerscope-cli summary FILE --report kern_sum --format csv`
prints for the same trace, so the two can be diffed byte for byte.

usage: kineto_kern_sum.py FILE        (FILE: .json or gzip, told by its first bytes 1f 8b)

Stdout holds the CSV and nothing else. A file that cannot be read, is not JSON, or is JSON but
not a Chrome trace (an object with "traceEvents", or a bare array of events) prints one line on
stderr and exits 2.

What is counted
  Kernels are the elements of "traceEvents" that are JSON objects with "ph" == "X" and "cat"
  "kernel" or "Kernel" (older traces; both spellings are the same kind), grouped by their "name"
  exactly. Every "traceEvents" member of the top-level object is read, in order (as the C++
  stream reader does), and a top-level array is the JSON Array Format: events only.
  A kernel is skipped when its "name" is not a string or its "dur" is absent, not a number, or
  does not fit in int64 nanoseconds (the C++ event parser rejects such an event as a whole).
  A negative duration counts as 0 ns: the importers set such an event's end to its start and
  report a `negative_duration` anomaly.

Durations
  ns = round(dur_us * 1000), computed exactly on the decimal text of "dur" (decimal.Decimal),
  rounding halves away from zero (ROUND_HALF_UP in Python's decimal module is "away from zero"),
  which is what core/import/kineto/json_time.cpp does by looking at the fourth decimal: any
  further digits only matter when the fourth is 4 or 5, and there ">= 5 rounds the magnitude up"
  is exactly half-away-from-zero. "dur" is never derived from ts (ts has rounding of its own).
  Integers ("dur": 68) are exact as Python ints (parse_int stays int: as exact as Decimal, and
  faster on large files). Only exponent forms ("1.5e3", never seen in a
  real trace) can differ: json_time.cpp reads those through a double.

Statistics and formatting (mirroring core/reports/summary.cpp, app/cli/cmd_summary.cpp,
core/reports/table_writer.cpp)
  Total, Instances, Min, Max: exact integers.
  Avg: sum / n; Med: middle value, or for an even count the mean of the two middle values;
  StdDev: sample standard deviation (n - 1), 0 for one instance; Time (%): 100 * total / sum of
  all totals (0 when that sum is 0). Avg, StdDev and Time (%) are computed exactly (fractions,
  integer square root) and then rounded once to the nearest double; the C++ computes them in long
  double and casts to double, which gives the same double except when the exact value lies within
  about 1e-19 (relative) of the midpoint between two doubles. The even-count median is computed as
  the C++ does, (double(lower) + double(upper)) / 2.0, which is exact below 2**52 ns.
  Each of those doubles is then printed like formatOneDecimal: r = round(v * 10.0) / 10.0 in
  double arithmetic with std::round (halves away from zero), printed with "%.1f".
  Rows: total descending, then name ascending by bytes (std::string's operator<, unsigned chars).
  CSV: "," separated, "\\n" line ends, a field is quoted (with "" for ") only when it holds
  one of , " \\r \\n (RFC 4180).
"""
import decimal
import gzip
import json
import math
import re
import sys
import zlib
from fractions import Fraction

HEADER = ["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
          "StdDev (ns)", "Name"]
KERNEL_CATS = ("kernel", "Kernel")
INT64_MAX = 2**63 - 1
_WS = re.compile(r"[ \t\n\r]*")
_CTX = decimal.Context(prec=1000, rounding=decimal.ROUND_HALF_UP, traps=[decimal.InvalidOperation])


class NotATrace(Exception):
    pass


def micros_to_ns(v):
    """Exact round(v * 1000), halves away from zero; None when v is not a number or too large."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        ns = v * 1000
    elif isinstance(v, decimal.Decimal):
        if not v.is_finite():
            return None
        ns = int(_CTX.multiply(v, 1000).quantize(decimal.Decimal(1), context=_CTX))
    else:  # float NaN/Infinity constants, strings, objects
        return None
    return ns if -INT64_MAX <= ns <= INT64_MAX else None


def events(text):
    """Yields the elements of every top-level "traceEvents" array (or of a top-level array).
    The whole text is checked to be one JSON value; events are decoded one at a time so a large
    trace costs its text, not a tree of Python objects."""
    dec = json.JSONDecoder(parse_float=decimal.Decimal)

    def ws(i):
        return _WS.match(text, i).end()

    def value(i):
        try:
            return dec.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise NotATrace(f"not JSON: {e}") from None

    def array(i):  # text[i] == "["
        i = ws(i + 1)
        if i < len(text) and text[i] == "]":
            return i + 1
        while True:
            ev, i = value(i)
            yield ev
            i = ws(i)
            c = text[i:i + 1]
            if c == "]":
                return i + 1
            if c != ",":
                raise NotATrace(f"not JSON: expected ',' or ']' at char {i}")
            i = ws(i + 1)

    i = ws(0)
    c = text[i:i + 1]
    if c == "[":
        i = yield from array(i)
    elif c == "{":
        seen = False
        i = ws(i + 1)
        if text[i:i + 1] == "}":
            i += 1
        else:
            while True:
                if text[i:i + 1] != '"':
                    raise NotATrace(f"not JSON: expected a member name at char {i}")
                key, i = value(i)
                i = ws(i)
                if text[i:i + 1] != ":":
                    raise NotATrace(f"not JSON: expected ':' at char {i}")
                i = ws(i + 1)
                if key == "traceEvents" and text[i:i + 1] == "[":
                    seen = True
                    i = yield from array(i)
                else:
                    _, i = value(i)
                i = ws(i)
                c = text[i:i + 1]
                if c == "}":
                    i += 1
                    break
                if c != ",":
                    raise NotATrace(f"not JSON: expected ',' or '}}' at char {i}")
                i = ws(i + 1)
        if not seen:
            raise NotATrace("JSON without \"traceEvents\": not a Chrome trace")
    else:
        value(i)  # raises "not JSON" unless the text is a valid scalar
        raise NotATrace("JSON but neither an object nor an array: not a Chrome trace")
    if ws(i) != len(text):
        raise NotATrace(f"not JSON: extra data at char {ws(i)}")


def read_text(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise NotATrace(f"broken gzip: {e}") from None
    try:
        return data.decode(json.detect_encoding(data), "surrogatepass")
    except (UnicodeDecodeError, LookupError) as e:
        raise NotATrace(f"not JSON: {e}") from None


def nearest_double(q):
    """The double nearest to the non-negative rational q (Python's int / int is correctly rounded)."""
    q = Fraction(q)
    return q.numerator / q.denominator


def sqrt_nearest_double(q):
    """The double nearest to sqrt(q) for a non-negative rational q, exactly: with s = isqrt(N) of
    at least 60 bits, sqrt(N) and s + 1/2 lie strictly between the same two integers, and every
    rounding boundary of a 53-bit result is an integer at that scale, so both round alike."""
    q = Fraction(q)
    if q == 0:
        return 0.0
    p, d = q.numerator, q.denominator
    k = max(0, 130 - (p * d).bit_length() // 2)  # s gets about 130 bits
    n = (p * d) << (2 * k)
    s = math.isqrt(n)
    den = d << k
    if s * s == n:
        return nearest_double(Fraction(s, den))
    return nearest_double(Fraction(2 * s + 1, 2 * den))


def cpp_round(x):
    """std::round on a double: halves away from zero (exact: a - floor(a) is exact in doubles)."""
    a = abs(x)
    f = math.floor(a)
    r = float(f + 1 if a - f >= 0.5 else f)
    return math.copysign(r, x)


def format_one_decimal(v):
    # core/reports/summary.cpp formatOneDecimal: std::round(v * 10.0) / 10.0, then "%.1f"
    return "%.1f" % (cpp_round(v * 10.0) / 10.0)


def csv_field(f):
    # core/reports/table_writer.cpp csvField
    if any(c in f for c in ',"\r\n'):
        return '"' + f.replace('"', '""') + '"'
    return f


def fast_stats_sq(d, total):
    """sum((v - mean)^2) exactly, as a Fraction, with integers only."""
    n = len(d)
    return Fraction(n * sum(v * v for v in d) - total * total, n)


def kern_sum(text):
    groups = {}
    for e in events(text):
        if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") not in KERNEL_CATS:
            continue
        name = e.get("name")
        if not isinstance(name, str) or "dur" not in e:
            continue
        ns = micros_to_ns(e["dur"])
        if ns is None:
            continue
        groups.setdefault(name, []).append(max(ns, 0))
    rows = []
    for name, d in groups.items():
        n = len(d)
        total = sum(d)
        d.sort()
        mid = n // 2
        med = float(d[mid]) if n % 2 else (float(d[mid - 1]) + float(d[mid])) / 2.0
        std = sqrt_nearest_double(fast_stats_sq(d, total) / (n - 1)) if n > 1 else 0.0
        rows.append((total, n, nearest_double(Fraction(total, n)), med, d[0], d[-1], std, name))
    rows.sort(key=lambda r: (-r[0], r[7].encode("utf-8", "surrogatepass")))
    grand = sum(r[0] for r in rows)
    out = [",".join(csv_field(h) for h in HEADER)]
    for total, n, avg, med, lo, hi, std, name in rows:
        pct = nearest_double(Fraction(100 * total, grand)) if grand > 0 else 0.0
        fields = [format_one_decimal(pct), str(total), str(n), format_one_decimal(avg), format_one_decimal(med),
                  str(lo), str(hi), format_one_decimal(std), name]
        out.append(",".join(csv_field(f) for f in fields))
    return "".join(line + "\n" for line in out)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: kineto_kern_sum.py FILE", file=sys.stderr)
        return 2
    path = argv[1]
    try:
        csv = kern_sum(read_text(path))
    except NotATrace as e:
        print(f"error: {path}: {e}", file=sys.stderr)
        return 2
    except (OSError, RecursionError, MemoryError) as e:
        print(f"error: {path}: {type(e).__name__}: {e}".replace("\n", " "), file=sys.stderr)
        return 2
    sys.stdout.buffer.write(csv.encode("utf-8", "surrogatepass"))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
