#!/usr/bin/env python3
"""Independent reference counts for one GPU trace file, for the real-trace corpus test.

usage: reference.py FILE [--nsys PATH]

Prints one JSON object on stdout:
  format           nsys-sqlite | nvprof | kineto-json | nsys-rep | ...
  kernels, memcpy, memset
                   GPU operations in the file, counted as Layerscope's `info` counts them
  kern_sum         {kernel name: {"count": n, "total_ns": t}}, as `summary --report kern_sum`
                   groups them (by name only)
  no_call          GPU operations (kernels, copies, sets) whose correlation id has no CPU-side
                   call (CUDA/HIP runtime or driver API row) anywhere in the file: the most
                   orphans a correct loader can report
  notes            things in the file that the counts above leave out on purpose
A file this script cannot count prints {"format": ..., "countable": false, "why": ...} and exits 0;
a file it cannot read at all prints one line on stderr and exits 2.

Written with the Python 3 standard library only (json, gzip, sqlite3, csv, decimal, subprocess)
and without reading Layerscope's output, so that the two can disagree. How each format is
counted:

Nsight Systems SQLite export (`nsys export --type sqlite`)
  kernels = rows of CUPTI_ACTIVITY_KIND_KERNEL, memcpy = CUPTI_ACTIVITY_KIND_MEMCPY, memset =
  CUPTI_ACTIVITY_KIND_MEMSET (an absent table counts 0: a lazy export omits empty tables), rows
  with a NULL start left out. Kernel names are StringIds[demangledName]: Layerscope's kern_sum
  reports the demangled name, as `nsys stats --report cuda_gpu_kern_sum` does (checked on
  /work/shared/traces/gpt2_2layer_fp16_h200.sqlite: its top row is
  "void cutlass::Kernel2<cutlass_75_tensorop_f16_s1688gemm_f16_128x128_tn_align1>(T1::Params)",
  the demangledName, whose shortName is "Kernel2"; core/reports/summary.cpp kernelSummary with
  KernelNaming::Demangled). A name id missing from StringIds gives "". Duration = end - start
  (ns), 0 when end is NULL or before start. no_call: GPU rows whose correlationId appears in no
  row of CUPTI_ACTIVITY_KIND_RUNTIME (runtime and driver calls live in that one table).

Legacy nvprof database (`nvprof -o x.nvvp` / `.sql` / `.prof`)
  kernels from CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, or CUPTI_ACTIVITY_KIND_KERNEL when the
  former is absent (nvprof fills one of them); memcpy = CUPTI_ACTIVITY_KIND_MEMCPY, memset =
  CUPTI_ACTIVITY_KIND_MEMSET. Peer copies in CUPTI_ACTIVITY_KIND_MEMCPY2 are not counted (noted
  when present). Names are StringTable values, stored mangled: they are demangled with binutils'
  `c++filt` (an implementation independent of the C++ runtime's abi::__cxa_demangle that
  Layerscope uses) when it is on PATH; without it names stay mangled and "names_mangled" is true
  (the test then compares the (count, total) multiset only). no_call: a kernel or set whose
  correlationId is in neither CUPTI_ACTIVITY_KIND_RUNTIME nor _DRIVER; a copy when neither its
  correlationId (driver side) nor its runtimeCorrelationId matches a call.

PyTorch profiler (Kineto) / ROCm / Chrome-trace JSON (.json, .json.gz, .pt.trace.json)
  The file is JSON (gzip told by its first two bytes 1f 8b): an object with a "traceEvents"
  array (any position among its keys), or a bare array of events. GPU operations are events
  with "ph" == "X" and "cat" in {kernel, Kernel} (kernels; "Kernel" is PyTorch 1.8/1.9 and
  Paddle), {gpu_memcpy, Memcpy}, {gpu_memset, Memset}. An event needs a string "name" and
  numeric "ts" and "dur"; events without them are left out (noted). Times: ns = round(us * 1000)
  computed exactly on the decimal text (decimal.Decimal), halves away from zero, as
  core/import/kineto/json_time.cpp does; a negative dur counts 0 ns. Calls: "ph" == "X" events of
  cat cuda_runtime, cuda_driver, Runtime, Driver (ROCm traces name their hip* calls under the same
  categories). A call is a call whatever its other args hold: ROCm traces write some of them as
  strings ("stream": "0x0" on hipLaunchKernel with ROCm 6.2, "bytes": "256" on hipMemcpyAsync), and
  the copy or kernel is still that call's work. no_call: GPU operations whose args.correlation is
  missing or matches no call's args.correlation.

Nsight Compute CSV (`ncu --csv`, --page details or raw)
  Not a timeline: "page" and "ncu_kernels" (distinct launch IDs) instead of the counts above.

Nsight Systems report (.nsys-rep / .qdrep)
  Countable only with a local `nsys` (--nsys PATH, $LAYERSCOPE_NSYS, `nsys` on PATH, or the
  install folders Layerscope searches): exported here with `nsys export --type sqlite` into a
  temporary folder, then counted as an export. Without nsys: countable false.
"""
import decimal
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

KERNEL_CATS = {"kernel", "Kernel"}
MEMCPY_CATS = {"gpu_memcpy", "Memcpy"}
MEMSET_CATS = {"gpu_memset", "Memset"}
CALL_CATS = {"cuda_runtime", "cuda_driver", "Runtime", "Driver"}
_CTX = decimal.Context(prec=200, rounding=decimal.ROUND_HALF_UP)


class Unreadable(Exception):
    pass


# ------------------------------------------------------------------ shared


def add_kernel(out, name, duration_ns):
    row = out["kern_sum"].setdefault(name, {"count": 0, "total_ns": 0})
    row["count"] += 1
    row["total_ns"] += max(0, duration_ns)


def empty(fmt):
    return {"format": fmt, "countable": True, "kernels": 0, "memcpy": 0, "memset": 0, "kern_sum": {}, "no_call": 0, "notes": []}


# ------------------------------------------------------------------ SQLite


def sqlite_tables(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def columns(db, table):
    return {r[1] for r in db.execute(f'PRAGMA table_info("{table}")')}


def is_nvprof(tables):
    return "StringTable" in tables and "Version" in tables and (
        "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL" in tables or "CUPTI_ACTIVITY_KIND_KERNEL" in tables
        or "CUPTI_ACTIVITY_KIND_RUNTIME" in tables)


def count_nsys(db, tables, out):
    calls = set()
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in tables:
        calls = {r[0] for r in db.execute("SELECT DISTINCT correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NOT NULL")}
    names = {}
    if "StringIds" in tables:
        names = dict(db.execute("SELECT id, value FROM StringIds"))
    if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
        name_col = "demangledName" if "demangledName" in columns(db, "CUPTI_ACTIVITY_KIND_KERNEL") else "shortName"
        if name_col != "demangledName":
            out["notes"].append("no demangledName column: names from shortName")
        for start, end, name_id, corr in db.execute(
                f'SELECT start, "end", {name_col}, correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start IS NOT NULL'):
            out["kernels"] += 1
            add_kernel(out, names.get(name_id, "") or "", (end - start) if end is not None else 0)
            if corr not in calls:
                out["no_call"] += 1
    for table, key in (("CUPTI_ACTIVITY_KIND_MEMCPY", "memcpy"), ("CUPTI_ACTIVITY_KIND_MEMSET", "memset")):
        if table not in tables:
            continue
        for (corr,) in db.execute(f"SELECT correlationId FROM {table} WHERE start IS NOT NULL"):
            out[key] += 1
            if corr not in calls:
                out["no_call"] += 1


def demangle_all(names):
    """{mangled: demangled} with c++filt, or None when c++filt is missing."""
    cxxfilt = shutil.which("c++filt")
    if not cxxfilt:
        return None
    mangled = sorted(n for n in names if n.startswith("_Z") and "\n" not in n)
    if not mangled:
        return {}
    r = subprocess.run([cxxfilt], input="\n".join(mangled) + "\n", capture_output=True, text=True, check=True)
    lines = r.stdout.split("\n")
    return {m: lines[i] for i, m in enumerate(mangled)}


def count_nvprof(db, tables, out):
    out["format"] = "nvprof"
    strings = dict(db.execute("SELECT _id_, value FROM StringTable"))
    calls = set()
    for table in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"):
        if table in tables:
            calls |= {r[0] for r in db.execute(f"SELECT DISTINCT correlationId FROM {table}")}
    kt = ("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL" if "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL" in tables
          else "CUPTI_ACTIVITY_KIND_KERNEL" if "CUPTI_ACTIVITY_KIND_KERNEL" in tables else None)
    rows = list(db.execute(f'SELECT start, "end", name, correlationId FROM {kt}')) if kt else []
    raw_names = {strings.get(r[2], "") for r in rows}
    demangled = demangle_all(raw_names)
    out["names_mangled"] = demangled is None
    for start, end, name_id, corr in rows:
        if start is None:
            continue
        name = strings.get(name_id, "")
        if demangled is not None:
            name = demangled.get(name, name)
        out["kernels"] += 1
        add_kernel(out, name, (end - start) if end is not None else 0)
        if corr not in calls:
            out["no_call"] += 1
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in tables:
        has_rt = "runtimeCorrelationId" in columns(db, "CUPTI_ACTIVITY_KIND_MEMCPY")
        sql = "SELECT correlationId, " + ("runtimeCorrelationId" if has_rt else "NULL") + " FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE start IS NOT NULL"
        for corr, rt in db.execute(sql):
            out["memcpy"] += 1
            if corr not in calls and rt not in calls:
                out["no_call"] += 1
    if "CUPTI_ACTIVITY_KIND_MEMSET" in tables:
        for (corr,) in db.execute("SELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE start IS NOT NULL"):
            out["memset"] += 1
            if corr not in calls:
                out["no_call"] += 1
    if "CUPTI_ACTIVITY_KIND_MEMCPY2" in tables:
        n = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY2").fetchone()[0]
        if n:
            out["notes"].append(f"{n} peer copies in CUPTI_ACTIVITY_KIND_MEMCPY2 not counted")


def count_sqlite(path):
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        tables = sqlite_tables(db)
        out = empty("nsys-sqlite")
        if is_nvprof(tables):
            count_nvprof(db, tables, out)
        else:
            count_nsys(db, tables, out)
        return out
    finally:
        db.close()


# ------------------------------------------------------------------ Chrome-trace JSON


def micros_to_ns(v):
    """round(v * 1000) exactly, halves away from zero; None when v is not a JSON number."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v * 1000
    if isinstance(v, decimal.Decimal):
        if not v.is_finite():
            return None
        return int(_CTX.multiply(v, 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))
    return None


def load_json(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        return json.loads(data, parse_float=decimal.Decimal)
    except (ValueError, UnicodeDecodeError) as e:
        raise Unreadable(f"not JSON: {e}")


def count_chrome(path):
    doc = load_json(path)
    if isinstance(doc, dict):
        if not isinstance(doc.get("traceEvents"), list):
            raise Unreadable("JSON object without a traceEvents array")
        events = doc["traceEvents"]
        fmt = "paddle-json" if any(isinstance(e, dict) and e.get("cat") in ("Operator", "CudaRuntime") for e in events[:2000]) else "kineto-json"
    elif isinstance(doc, list):
        events, fmt = doc, "kineto-json"
    else:
        raise Unreadable("JSON that is neither an object nor an array")
    out = empty(fmt)
    calls = set()
    gpu = []  # correlation ids of GPU operations
    untimed = 0
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat = e.get("cat")
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        corr = args.get("correlation")
        corr = corr if isinstance(corr, int) and not isinstance(corr, bool) else None
        if cat in CALL_CATS:
            if corr is not None:
                calls.add(corr)
            continue
        if cat not in KERNEL_CATS and cat not in MEMCPY_CATS and cat not in MEMSET_CATS:
            continue
        ts, dur = micros_to_ns(e.get("ts")), micros_to_ns(e.get("dur"))
        if ts is None or dur is None or not isinstance(e.get("name"), str):
            untimed += 1
            continue
        if cat in KERNEL_CATS:
            out["kernels"] += 1
            add_kernel(out, e["name"], dur)
        elif cat in MEMCPY_CATS:
            out["memcpy"] += 1
        else:
            out["memset"] += 1
        gpu.append(corr)
    out["no_call"] = sum(1 for c in gpu if c is None or c not in calls)
    if untimed:
        out["notes"].append(f"{untimed} GPU events without a string name or numeric ts/dur not counted")
    return out


# ------------------------------------------------------------------ .nsys-rep / .qdrep


def find_nsys(explicit=None):
    """Where Layerscope's nsys_locator.cpp looks, in its order (no preference file here)."""
    for value in (explicit, os.environ.get("LAYERSCOPE_NSYS")):
        if value:
            p = os.path.join(value, "nsys") if os.path.isdir(value) else value
            return p if os.access(p, os.X_OK) else None
    on_path = shutil.which("nsys")
    if on_path:
        return on_path
    candidates = []
    if os.path.isdir("/opt/nvidia"):
        for product in sorted(os.listdir("/opt/nvidia"), reverse=True):
            if product.startswith("nsight-systems"):
                base = os.path.join("/opt/nvidia", product)
                candidates.append(os.path.join(base, "bin"))
                for version in sorted(os.listdir(base), reverse=True):
                    candidates.append(os.path.join(base, version, "bin"))
    candidates.append("/usr/local/cuda/bin")
    for d in candidates:
        p = os.path.join(d, "nsys")
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def count_report(path, nsys):
    if not nsys:
        return {"format": "nsys-rep", "countable": False, "why": "no nsys found (LAYERSCOPE_NSYS, PATH, /opt/nvidia/nsight-systems*, /usr/local/cuda/bin)"}
    with tempfile.TemporaryDirectory(prefix="ls-corpus-ref-") as tmp:
        src = os.path.join(tmp, "report" + (".qdrep" if path.endswith(".qdrep") else ".nsys-rep"))
        shutil.copyfile(path, src)  # nsys may write beside its input; never beside the corpus file
        dst = os.path.join(tmp, "report.sqlite")
        r = subprocess.run([nsys, "export", "--type", "sqlite", "--force-overwrite", "true", "-o", dst, src],
                           capture_output=True, text=True, env=dict(os.environ, HOME=tmp))
        if r.returncode != 0 or not os.path.exists(dst):
            tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [""]
            return {"format": "nsys-rep", "countable": False,
                    "why": f"the local nsys cannot export this report ({nsys} export exit {r.returncode}: {tail[0]})"}
        out = count_sqlite(dst)
        out["format"] = "nsys-rep"
        out["notes"].append(f"counted from `{nsys} export --type sqlite`")
        return out


# ------------------------------------------------------------------ Nsight Compute CSV


def count_ncu_csv(path):
    """An `ncu --csv` file is metrics of kernel launches, not a timeline: the kernels/memcpy/memset
    of a trace do not apply. Counted: the launches (distinct values of the "ID" column) and the
    page: "details" (one row per metric, with Section Name / Metric Name / Metric Value) or "raw"
    (one row per launch, one column per metric, a units row under the header). Lines before the
    header (the program's own output, ==PROF== lines) are skipped, as ncu writes them there."""
    import csv
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID","Process ID"')), None)
    if start is None:
        raise Unreadable('no "ID","Process ID",... header: not an ncu --csv file')
    rows = list(csv.reader(lines[start:]))
    header = rows[0]
    page = "details" if "Metric Name" in header and "Metric Value" in header else "raw"
    body = rows[1:]
    if page == "raw" and body and body[0] and body[0][0] == "":
        body = body[1:]  # the units row
    ids = {r[0] for r in body if r and r[0].strip().isdigit()}
    return {"format": "ncu-csv", "countable": True, "page": page, "ncu_kernels": len(ids), "notes": []}


# ------------------------------------------------------------------ main


def reference(path, nsys=None):
    with open(path, "rb") as f:
        head = f.read(16)
    if head.startswith(b"SQLite format 3\0"):
        return count_sqlite(path)
    lower = path.lower()
    if lower.endswith(".nsys-rep") or lower.endswith(".qdrep"):
        return count_report(path, find_nsys(nsys))
    if lower.endswith(".csv"):
        return count_ncu_csv(path)
    return count_chrome(path)


def main(argv):
    args = argv[1:]
    nsys = None
    if "--nsys" in args:
        i = args.index("--nsys")
        nsys = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        out = reference(args[0], nsys)
    except (OSError, sqlite3.Error, Unreadable) as e:
        print(f"reference.py: {args[0]}: {e}", file=sys.stderr)
        return 2
    json.dump(out, sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
