#!/usr/bin/env python3
"""Real-trace corpus test: every file of tests/corpus/manifest.tsv that tools/fetch_corpus.sh
brought into tests/corpus/files is opened with layerscope-cli and checked against
tests/corpus/reference.py, an independent reader written with the Python standard library.

usage: run_corpus_test.py LAYERSCOPE_CLI [--only ID[,ID...]] [--manifest TSV] [--files DIR]
                          [--nsys PATH] [-v]

Per file (one line each; exit status 1 when any present file fails, else 0):
  SKIP  not fetched, or a .nsys-rep/.qdrep with no local nsys (or one too old to export it)
  PASS / FAIL, from these checks:
  - `layerscope-cli info FILE --no-cache` exits 0, prints nothing on stderr and its load report
    has no `error` entry
  - the kernels / memcpy / memset counts of `info` equal reference.py's
  - `summary FILE --report kern_sum --format csv --no-cache` has, per kernel name, the
    reference's instance count and total ns (names compared exactly; where the reference could
    not demangle nvprof names, the multiset of (count, total) pairs is compared)
  - the load report's orphan_gpu_op count is at most reference.py's no_call: GPU operations whose
    correlation id has no runtime/driver call anywhere in the file. Layerscope joins within a
    process, so it may only find fewer calls, never more; reporting more orphans than the file
    has is a loader bug (a copy or kernel not linked to a call that is there).
  Nsight Compute CSV rows (format ncu-csv) are metrics of kernels, not a trace: they are read
  with `info HOST --ncu FILE`, HOST being the first present nsys-sqlite file, and must give exit
  0, no error, and the page (details or raw) and number of kernel launches reference.py counts
  (whether they match HOST's kernels does not matter here).

The CLI runs with --no-cache and XDG_CACHE_HOME in a temporary folder, so each check reads the
file itself (and a report is exported again), never a model cache left by an earlier run.
"""
import csv
import io
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ beside the corpus scripts
import reference  # noqa: E402


def extension(path):
    base = os.path.basename(path)
    for multi in (".pt.trace.json.gz", ".pt.trace.json", ".json.gz"):
        if base.endswith(multi):
            return multi
    return "." + base.rsplit(".", 1)[1] if "." in base else ""


def read_manifest(path):
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if r["id"] and not r["id"].startswith("#"):
                rows.append(r)
    return rows


def run(cmd, env):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env)
    return p, time.monotonic() - t0


def show(cmd):
    return " ".join(c if re.fullmatch(r"[\w./+=:,-]+", c) else repr(c) for c in cmd)


def tail(text, n=6):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return "\n".join("      | " + l for l in lines[-n:])


def parse_info(out):
    counts = {}
    for key in ("kernels", "memcpy", "memset"):
        m = re.search(rf"^{key}: (\d+)$", out, re.M)
        counts[key] = int(m.group(1)) if m else None
    m = re.search(r"^\s+\w+ orphan_gpu_op: (\d+)", out, re.M)
    counts["orphans"] = int(m.group(1)) if m else 0
    counts["errors"] = re.findall(r"^  error .*$", out, re.M)
    return counts


def parse_kern_sum(text):
    out = {}
    for r in csv.DictReader(io.StringIO(text)):
        name = r["Name"]
        if name in out:  # one row per name is the report's contract
            out[name] = (out[name][0] + int(r["Instances"]), out[name][1] + int(r["Total Time (ns)"]))
        else:
            out[name] = (int(r["Instances"]), int(r["Total Time (ns)"]))
    return out


def compare_kern_sum(ls, ref, mangled):
    problems = []
    want = {k: (v["count"], v["total_ns"]) for k, v in ref.items()}
    if mangled:
        if sorted(ls.values()) != sorted(want.values()):
            problems.append(f"kern_sum (count, total) multisets differ ({len(ls)} vs {len(want)} names; c++filt absent, names not compared)")
        return problems
    for name in sorted(set(want) | set(ls)):
        a, b = ls.get(name), want.get(name)
        if a != b:
            problems.append(f"kern_sum {name[:100]!r}: layerscope {a}, reference {b}")
    if len(problems) > 6:
        problems = problems[:6] + [f"... and {len(problems) - 6} more kern_sum differences"]
    return problems


def main(argv):
    args = argv[1:]
    opts = {"--only": None, "--manifest": os.path.join(HERE, "manifest.tsv"), "--files": os.path.join(HERE, "files"), "--nsys": None}
    verbose = False
    positional = []
    i = 0
    while i < len(args):
        if args[i] in opts and i + 1 < len(args):
            opts[args[i]] = args[i + 1]
            i += 2
        elif args[i] == "-v":
            verbose = True
            i += 1
        else:
            positional.append(args[i])
            i += 1
    if len(positional) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    cli = os.path.abspath(positional[0])
    if not os.access(cli, os.X_OK):
        print(f"run_corpus_test.py: {cli} is not an executable", file=sys.stderr)
        return 2
    only = set(opts["--only"].split(",")) if opts["--only"] else None
    rows = read_manifest(opts["--manifest"])
    files = opts["--files"]
    nsys = reference.find_nsys(opts["--nsys"])

    cache = tempfile.TemporaryDirectory(prefix="ls-corpus-cache-")
    env = dict(os.environ, XDG_CACHE_HOME=cache.name, LAYERSCOPE_NO_CACHE="1")
    if nsys:
        env["LAYERSCOPE_NSYS"] = nsys  # the CLI and the reference use the same nsys
    # Small permissively licensed files are committed in data/ (licences in licences/); the rest
    # are fetched into files/.
    committed = os.path.join(HERE, "data")

    def located(r):
        name = r["id"] + extension(r["path"])
        for folder in (committed, files):
            if os.path.exists(os.path.join(folder, name)):
                return os.path.join(folder, name)
        return os.path.join(files, name)

    host = next((located(r) for r in rows if r["format"] == "nsys-sqlite" and os.path.exists(located(r))), None)

    results = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    for r in rows:
        rid = r["id"]
        if only and rid not in only:
            continue
        path = located(r)
        if not os.path.exists(path):
            print(f"SKIP {rid}: not fetched (tools/fetch_corpus.sh)")
            results["SKIP"] += 1
            continue
        fmt = r["format"]
        problems = []
        detail = ""

        if fmt == "ncu-csv":
            if not host:
                print(f"SKIP {rid}: no nsys-sqlite file of the corpus present to pair with")
                results["SKIP"] += 1
                continue
            ref = reference.reference(path, nsys)
            cmd = [cli, "info", host, "--ncu", path, "--no-cache"]
            p, _ = run(cmd, env)
            if p.returncode != 0 or p.stderr.strip() or parse_info(p.stdout)["errors"]:
                problems.append(f"`{show(cmd)}` exit {p.returncode}\n{tail(p.stderr + p.stdout)}")
            else:
                m = re.search(r"^ncu file: .*: (\w+) page, (\d+) kernels, (\d+) metrics", p.stdout, re.M)
                if not m:
                    problems.append(f"`{show(cmd)}` printed no `ncu file:` line\n{tail(p.stdout)}")
                elif (m.group(1), int(m.group(2))) != (ref["page"], ref["ncu_kernels"]):
                    problems.append(f"`{show(cmd)}`: {m.group(1)} page, {m.group(2)} kernels; reference {ref['page']} page, {ref['ncu_kernels']} kernels")
                else:
                    detail = f"{m.group(1)} page, {m.group(2)} kernels, {m.group(3)} metrics (read with --ncu beside {os.path.basename(host)})"
            verdict = "FAIL" if problems else "PASS"
            print(f"{verdict} {rid} ({fmt})" + (f": {detail}" if detail else "") + "".join("\n    " + x for x in problems))
            results[verdict] += 1
            continue

        ref = reference.reference(path, nsys)
        if fmt == "nsys-rep" and not ref.get("countable"):
            # No nsys, or one that cannot export this report (a report from a newer Nsight
            # Systems than the local nsys): Layerscope opens reports through that same nsys.
            print(f"SKIP {rid}: {ref['why']}")
            results["SKIP"] += 1
            continue

        info_cmd = [cli, "info", path, "--no-cache"]
        p, seconds = run(info_cmd, env)
        info = parse_info(p.stdout)
        if p.returncode != 0:
            problems.append(f"`{show(info_cmd)}` exit {p.returncode}\n{tail(p.stderr + p.stdout)}")
        else:
            if p.stderr.strip():
                problems.append(f"`{show(info_cmd)}` wrote on stderr\n{tail(p.stderr)}")
            if info["errors"]:
                problems.append("load report errors: " + "; ".join(e.strip() for e in info["errors"]))
            for key in ("kernels", "memcpy", "memset"):
                if info[key] != ref[key]:
                    problems.append(f"{key}: layerscope {info[key]}, reference {ref[key]}")
            if info["orphans"] > ref["no_call"]:
                problems.append(f"orphan_gpu_op {info['orphans']} > {ref['no_call']} GPU operations without a call in the file")
            ks_cmd = [cli, "summary", path, "--report", "kern_sum", "--format", "csv", "--no-cache"]
            q, _ = run(ks_cmd, env)
            if q.returncode != 0:
                problems.append(f"`{show(ks_cmd)}` exit {q.returncode}\n{tail(q.stderr + q.stdout)}")
            else:
                problems += compare_kern_sum(parse_kern_sum(q.stdout), ref["kern_sum"], ref.get("names_mangled", False))
            detail = (f"kernels {info['kernels']}, memcpy {info['memcpy']}, memset {info['memset']}, "
                      f"{len(ref['kern_sum'])} kernel names, orphans {info['orphans']} (<= {ref['no_call']}), info {seconds:.2f} s")
        verdict = "FAIL" if problems else "PASS"
        if problems and "`" not in problems[0]:
            problems.insert(0, f"command: `{show(info_cmd)}`")
        line = f"{verdict} {rid} ({fmt})" + (f": {detail}" if detail and (verdict == 'PASS' or verbose) else "")
        print(line + "".join("\n    " + x for x in problems))
        if verbose and ref.get("notes"):
            print("    notes: " + "; ".join(ref["notes"]))
        results[verdict] += 1

    print(f"corpus: {results['PASS']} passed, {results['FAIL']} failed, {results['SKIP']} skipped")
    if results["FAIL"]:
        return 1
    return 0 if results["PASS"] else 77  # nothing checked: ctest shows the test as skipped


if __name__ == "__main__":
    sys.exit(main(sys.argv))
