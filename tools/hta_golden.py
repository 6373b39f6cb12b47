#!/usr/bin/env python3
"""Golden outputs of Holistic Trace Analysis (HTA) for checking `summary --report rank_sum`.

Runs HTA's TraceAnalysis over each trace set (a folder of per-rank PyTorch profiler traces) and
writes, per set, two CSV files into OUT (tests/data/hta):

  <set>.temporal_breakdown.csv   get_temporal_breakdown(): idle, compute, non-compute and kernel
                                 (span) time per rank, in us as HTA gives them, and the same in ns
  <set>.comm_comp_overlap.csv    get_comm_comp_overlap(): HTA's overlap percentage per rank, and
                                 the communication and overlap times behind it (derived below)

Each analysis runs under three HTA configurations (column hta_config):

  default         TraceAnalysis(trace_dir=DIR), as HTA's documentation runs it: GPU work launched
                  in the last ProfilerStep is left out (include_last_profiler_step=False), and
                  timestamps with fractions of a microsecond are rounded inwards to whole us
                  (start up, end down: hta/common/trace_parser.py round_down_time_stamps)
  whole_trace     TraceAnalysis(trace_dir=DIR, include_last_profiler_step=True): every step, the
                  rounding still on (what the rounding alone changes)
  whole_trace_ns  the same with HTA_DISABLE_NS_ROUNDING=1: every step and ns timestamps, the
                  configuration whose definitions are those of rank_sum

HTA's public API gives the overlap as a percentage rounded to 2 decimals only. The columns
comm_time(us), overlap_time(us) and comp_comm_overlap_ratio are computed here with HTA's own
helpers (get_kernel_type, merge_kernel_intervals) over HTA's own per-rank data frames, exactly as
hta/analyzers/communication_analysis.py does; the script checks that its ratio rounds to HTA's
percentage before writing anything.

ns columns: round(us * 1000). They are exact when HTA's times are whole microseconds (traces with
integer us timestamps, or HTA's rounding on: default, whole_trace); ns_exact says so. Otherwise the
us values are doubles parsed from timestamps near 4.6e12 us, whose spacing is about 1 ns, so each
ns value may be a few ns off.

Not needed by the test suite (the goldens are committed). Needs HTA's source tree and its Python
dependencies; tests/data/hta/README.md says exactly how the committed files were made.

usage: PYTHONPATH=/tmp/hta /usr/bin/python3 tools/hta_golden.py OUT SET=FILE[,FILE...] ...
"""
import csv
import gzip
import json
import logging
import os
import shutil
import sys
import tempfile

CONFIGS = [
    # name, include_last_profiler_step, disable_ns_rounding
    ("default", False, False),
    ("whole_trace", True, False),
    ("whole_trace_ns", True, True),
]


def integer_times(files):
    """True when every GPU event of every file has whole-microsecond ts and dur."""
    for f in files:
        opener = gzip.open if f.endswith(".gz") else open
        with opener(f, "rt") as fh:
            events = json.load(fh)["traceEvents"]
        for e in events:
            if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
                if not float(e["ts"]).is_integer() or not float(e.get("dur", 0)).is_integer():
                    return False
    return True


def ns(us):
    return int(round(float(us) * 1000))


def derived_overlap(t, rank):
    """Communication union, computation-communication overlap (us) and their ratio for one rank,
    step by step as CommunicationAnalysis.get_comm_comp_overlap computes its ratio."""
    import pandas as pd
    from hta.utils.utils import get_kernel_type, KernelType, merge_kernel_intervals

    sym_table = t.symbol_table.get_sym_table()
    trace_df = t.traces[rank]
    gpu_kernels = trace_df[trace_df["stream"].ne(-1)].copy()
    gpu_kernels["kernel_type"] = gpu_kernels[["name"]].apply(lambda x: get_kernel_type(sym_table[x["name"]]), axis=1)
    comp = merge_kernel_intervals(gpu_kernels[gpu_kernels["kernel_type"].eq(KernelType.COMPUTATION.name)].copy())
    comm = merge_kernel_intervals(gpu_kernels[gpu_kernels["kernel_type"].eq(KernelType.COMMUNICATION.name)].copy())
    status = (
        pd.concat(
            [
                comm.melt(var_name="status", value_name="time").replace({"ts": 1, "end": -1}),
                comp.melt(var_name="status", value_name="time").replace({"ts": 2, "end": -2}),
            ]
        )
        .sort_values(by="time")
        .reset_index(drop=True)
    )
    status["running"] = status["status"].cumsum()
    both = status[status["running"].eq(3)]
    shifted = both.merge(status.shift(-1).dropna(), left_index=True, right_index=True)
    overlap = (shifted["time_y"] - shifted["time_x"]).sum()
    comm_time = (comm["end"] - comm["ts"]).sum()
    counts = gpu_kernels["kernel_type"].value_counts()
    return comm_time, overlap, overlap / comm_time, len(gpu_kernels), int(counts.get(KernelType.COMMUNICATION.name, 0))


def run_set(out_dir, name, files):
    from hta.configs.env_options import HTAEnvOptions
    from hta.trace_analysis import TraceAnalysis

    exact_input = integer_times(files)
    breakdown_rows, overlap_rows = [], []
    with tempfile.TemporaryDirectory() as d:
        for f in files:  # HTA reads every .json/.gz of a folder, the rank from "rank": N
            shutil.copy(f, os.path.join(d, os.path.basename(f)))
        for config, include_last, no_rounding in CONFIGS:
            HTAEnvOptions.instance().set_disable_ns_rounding(no_rounding)
            exact = exact_input or not no_rounding
            ta = TraceAnalysis(trace_dir=d, include_last_profiler_step=include_last)
            tb = ta.get_temporal_breakdown(visualize=False)
            ov = ta.get_comm_comp_overlap(visualize=False)
            for _, r in tb.iterrows():
                rank = int(r["rank"])
                row = {"hta_config": config, "rank": rank}
                for col in ["idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)"]:
                    row[col] = repr(float(r[col]))
                for col in ["idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"]:
                    row[col] = repr(float(r[col]))
                for col in ["idle_time", "compute_time", "non_compute_time", "kernel_time"]:
                    row[col + "_ns"] = ns(r[col + "(us)"])
                row["ns_exact"] = "yes" if exact else "no"
                comm, overlap, ratio, gpu_events, comm_kernels = derived_overlap(ta.t, rank)
                row["gpu_events"] = gpu_events
                breakdown_rows.append(row)
                pctg = float(ov[ov["rank"] == rank]["comp_comm_overlap_pctg"].iloc[0])
                if round(100 * ratio, 2) != pctg:
                    sys.exit(f"{name} {config} rank {rank}: derived ratio {ratio} does not give HTA's {pctg}%")
                overlap_rows.append(
                    {
                        "hta_config": config,
                        "rank": rank,
                        "comp_comm_overlap_pctg": repr(pctg),
                        "comp_comm_overlap_ratio": repr(float(ratio)),
                        "comm_time(us)": repr(float(comm)),
                        "overlap_time(us)": repr(float(overlap)),
                        "comm_time_ns": ns(comm),
                        "overlap_time_ns": ns(overlap),
                        "ns_exact": "yes" if exact else "no",
                        "comm_kernels": comm_kernels,
                    }
                )
    for suffix, rows in (("temporal_breakdown", breakdown_rows), ("comm_comp_overlap", overlap_rows)):
        path = os.path.join(out_dir, f"{name}.{suffix}.csv")
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()), lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        print(path)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    logging.disable(logging.WARNING)  # HTA logs every parse at WARNING
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for spec in sys.argv[2:]:
        name, _, files = spec.partition("=")
        run_set(out_dir, name, files.split(","))


if __name__ == "__main__":
    main()
