#!/usr/bin/env python3
"""PaddlePaddle profiler traces for the importer and summary-table tests, and the tables
expected of them, computed here independently of Layerscope.

No real Paddle trace with a licence that allows redistribution was found in a public repository
(searched for "span_indx", "ProfileStep#" and '"cat": "ProfileStep"'), so these files follow the
writer field by field: paddle/fluid/platform/profiler/chrometracing_logger.cc (Apache-2.0) in
PaddlePaddle/Paddle. Every field below names the logger function that writes it. Event names and
phases follow the Python side: paddle/profiler/utils.py (RecordEvent, wrap_optimizers:
"Optimization Step"), paddle/base/dygraph/tensor_patch_methods.py (backward: "Gradient Backward"),
paddle/nn/layer/layers.py (Layer.__call__: a Forward event per layer, named by the layer),
paddle/io dataloader ("_DataLoaderIterSingleProcess", Dataloader).

Run from the project root:  python3 tests/data/paddle/make_fixtures.py
It rewrites tests/data/paddle/*.json and tests/data/paddle/expected/*.csv; the tests compare
`layerscope-cli summary FILE --report R` with the expected files.
"""
import json
import os
from decimal import ROUND_HALF_UP, Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
PID = 4242  # host_node.ProcessId()
TID = 4242  # host_node.ThreadId(): written "4242(Python)" or "4242(C++)"
DEVICE = 0  # device_node.DeviceId(): the pid of device events
COMPUTE_STREAM, COMM_STREAM = 7, 13  # device_node.StreamId(): the tid of device events


def dur_display(dur_us, old):
    # LogHostTraceEventNode & co: "%s[%s]" with "%.3f ms" above a millisecond, else "%.3f us"
    # (releases before 2.4: always "[%.3f ms]").
    if old or dur_us > 1000:
        return "%.3f ms" % (dur_us / 1000)
    return "%.3f us" % dur_us


class Writer:
    def __init__(self, old=False):
        self.old = old  # lowercase categories, names "[x ms]": releases before 2.4
        self.events = []
        self.corr = 100

    def cat(self, c):
        # StringTracerEventType(type): "Operator", "CudaRuntime" …; lowercase in older releases.
        return c.lower() if self.old else c

    def host(self, cat, name, ts, dur, python=False, args=None):
        # LogHostTraceEventNode: ProfileStep/Forward/Backward/Dataloader/Optimization/PythonOp/
        # PythonUserDefined on "<tid>(Python)", everything else on "<tid>(C++)"; ts integer us
        # (nsToUs), dur "%.3f" us (nsToUsFloat); args start_time/end_time relative to the first
        # event; Operator events add input_shapes, input_dtypes and callstack.
        a = {"start_time": "%.3f us" % (ts - 1000), "end_time": "%.3f us" % (ts + dur - 1000)}
        if args:
            a.update(args)
        self.events.append({
            "name": "%s[%s]" % (name, dur_display(dur, self.old)), "pid": PID,
            "tid": "%d(%s)" % (TID, "Python" if python else "C++"),
            "ts": ts, "dur": float("%.3f" % dur), "ph": "X", "cat": self.cat(cat),
            "cname": "thread_state_runnable", "args": a})

    def launch(self, name, ts, dur, device_name, device_ts, device_dur, kind="Kernel",
               stream=COMPUTE_STREAM, extra=None):
        # LogRuntimeTraceEventNode: the runtime call with args "correlation id", then a flow
        # start "launch" (cat "async", ph "s") at the call's middle; LogDeviceTraceEventNode: the
        # device event (HandleTypeKernel / HandleTypeMemcpy / HandleTypeMemset), then the flow
        # end (ph "f", "bp": "e" when it lasts a microsecond or more).
        self.corr += 1
        c = self.corr
        self.events.append({
            "name": "%s[%s]" % (name, dur_display(dur, self.old)), "pid": PID,
            "tid": "%d(C++)" % TID, "ts": ts, "dur": float("%.3f" % dur), "ph": "X",
            "cat": self.cat("CudaRuntime"), "cname": "thread_state_running",
            "args": {"correlation id": c, "start_time": "%.3f us" % (ts - 1000),
                     "end_time": "%.3f us" % (ts + dur - 1000)}})
        self.events.append({"name": "launch", "id": c, "pid": PID, "tid": "%d(C++)" % TID,
                            "ts": int(ts + dur / 2), "ph": "s", "cat": "async"})
        args = {"start_time": "%.3f us" % (device_ts - 1000),
                "end_time": "%.3f us" % (device_ts + device_dur - 1000)}
        if kind == "Kernel":
            # HandleTypeKernel: device, context, stream, correlation id, registers per thread,
            # shared memory (static + dynamic), blocks per SM, warps per SM, grid, block,
            # theoretical achieved occupancy %.
            args.update({"device": DEVICE, "context": 1, "stream": stream, "correlation id": c,
                         "registers per thread": 128, "shared memory": 49152,
                         "blocks per SM": 0.969697, "warps per SM": 7.757576,
                         "grid": [128, 1, 1], "block": [256, 1, 1],
                         "theoretical achieved occupancy %": 12.5})
        elif kind == "Memcpy":
            # HandleTypeMemcpy: stream, correlation id, bytes, memory bandwidth (GB/s).
            args.update({"stream": stream, "correlation id": c, "bytes": extra,
                         "memory bandwidth (GB/s)": round(extra / (device_dur * 1000), 3)})
        else:
            # HandleTypeMemset: device, context, stream, correlation id, bytes, value.
            args.update({"device": DEVICE, "context": 1, "stream": stream, "correlation id": c,
                         "bytes": extra, "value": 0})
        self.events.append({
            "name": "%s[%s]" % (device_name, dur_display(device_dur, self.old)), "pid": DEVICE,
            "tid": stream, "ts": device_ts, "dur": float("%.3f" % device_dur), "ph": "X",
            "cat": self.cat(kind), "cname": "cq_build_failed", "args": args})
        self.events.append({"name": "launch", "id": c, "pid": DEVICE, "tid": stream,
                            "ts": int(device_ts + device_dur / 2), "ph": "f", "cat": "async",
                            "bp": "e"})

    def memory(self, kind, ts, increase, allocated, reserved, peak_a, peak_r):
        # LogMemTraceEventNode: name "[memory]", ph "i", cat StringTracerMemEventType(type)
        # (Allocate, Free, ReservedAllocate, ReservedFree); args place, addr (a quoted number),
        # increase_bytes, current_allocated, current_reserved, peak_allocated, peak_reserved.
        self.events.append({
            "name": "[memory]", "pid": PID, "tid": "%d(C++)" % TID, "ts": ts, "ph": "i",
            "cat": kind, "args": {"place": "Place(gpu:0)", "addr": "140245603024896",
                                  "increase_bytes": increase, "current_allocated": allocated,
                                  "current_reserved": reserved, "peak_allocated": peak_a,
                                  "peak_reserved": peak_r}})


def step(w, k):
    T = 1000 + k * 10000
    w.host("ProfileStep", "ProfileStep#%d" % k, T, 9000, python=True)
    w.host("Dataloader", "_DataLoaderIterSingleProcess", T + 10, 200, python=True)
    w.launch("cudaMemcpyAsync", T + 100, 10, "Memcpy HtoD (Pinned -> Device)", T + 120, 30.5,
             kind="Memcpy", extra=4 << 20)
    w.host("Forward", "GPTModel", T + 300, 3000, python=True)
    w.host("Forward", "Linear_0", T + 400, 1000, python=True)
    w.host("PythonOp", "paddle.matmul", T + 495, 510, python=True)
    shapes = {"input_shapes": {"X": [[8, 768]], "Y": [[768, 3072]]},
              "input_dtypes": {"X": ["float16"], "Y": ["float16"]},
              "callstack": "  File 'train.py', line 12, in forward\\n    y = x @ w"}
    w.host("Operator", "matmul dygraph", T + 500, 500, args=shapes)
    w.host("OperatorInner", "matmul infer_meta", T + 510, 10)
    w.host("OperatorInner", "matmul compute", T + 530, 370)
    w.launch("cudaLaunchKernel", T + 600, 10, "volta_h884gemm_128x64_nn", T + 620, 199.875 + k)
    w.memory("ReservedAllocate", T + 604, 8 << 20, 0, 8 << 20, 0, 8 << 20)
    w.memory("Allocate", T + 605, 4096, 4096, 8 << 20, 4096, 8 << 20)
    w.host("OperatorInner", "matmul node_creation", T + 910, 10)
    w.memory("Free", T + 950, -4096, 0, 8 << 20, 4096, 8 << 20)
    w.host("Operator", "add dygraph", T + 1100, 200)
    w.host("OperatorInner", "add compute", T + 1110, 180)
    w.launch("cudaLaunchKernel", T + 1120, 5, "elementwise_add_kernel", T + 1130, 30.25)
    w.launch("cudaLaunchKernel", T + 1291, 4, "fill_constant_kernel", T + 1296, 4)
    w.host("UserDefined", "attention_block", T + 1500, 1500)
    w.host("Operator", "softmax dygraph", T + 1600, 400)
    w.host("OperatorInner", "softmax compute", T + 1610, 380)
    w.launch("cudaLaunchKernel", T + 1700, 5, "softmax_kernel", T + 1710, 90)
    w.host("Operator", "matmul dygraph", T + 3100, 150, args=shapes)
    w.host("OperatorInner", "matmul compute", T + 3110, 130)
    w.launch("cudaLaunchKernel", T + 3120, 5, "volta_h884gemm_128x64_nn", T + 3130, 100)
    w.host("Backward", "Gradient Backward", T + 3500, 3000, python=True)
    w.host("Operator", "matmul_grad grad_node", T + 3600, 1000)
    w.host("OperatorInner", "matmul_grad compute", T + 3610, 980)
    w.launch("cudaLaunchKernel", T + 3700, 5, "volta_h884gemm_64x64_nt", T + 3710, 300)
    w.launch("cudaLaunchKernel", T + 3800, 5, "volta_h884gemm_64x64_nt", T + 4020, 300.5)
    w.host("Communication", "c_allreduce_sum dygraph", T + 4700, 300)
    w.launch("cudaLaunchKernel", T + 4710, 5, "ncclKernel_AllReduce_RING_LL_Sum_half", T + 4720,
             880, stream=COMM_STREAM)
    w.host("Operator", "add_grad grad_node", T + 5100, 200)
    w.host("OperatorInner", "add_grad compute", T + 5110, 180)
    w.launch("cudaLaunchKernel", T + 5120, 5, "elementwise_add_grad_kernel", T + 5130, 270)
    w.host("Optimization", "Optimization Step", T + 7000, 1500, python=True)
    w.host("Operator", "adamw_ dygraph", T + 7100, 900)
    w.host("OperatorInner", "adamw_ compute", T + 7110, 880)
    w.launch("cudaLaunchKernel", T + 7200, 5, "adamw_kernel", T + 7210, 490)
    w.launch("cudaMemsetAsync", T + 7300, 5, "Memset (Device)", T + 7710, 10, kind="Memset",
             extra=1024)
    w.host("UserDefined", "logging", T + 8600, 300)
    w.memory("ReservedFree", T + 8950, -(8 << 20), 0, 0, 4096, 8 << 20)


def trace_text(w, schema):
    # StartLog: schemaVersion, displayTimeUnit, span_indx, deviceProperties (CUDA builds), then
    # traceEvents; LogMetaInfo: RefineDisplayName's metadata events, the "{}" sentinel, ExtraInfo.
    meta = []
    for lang in ("Python", "C++"):
        meta.append({"name": "process_name", "pid": PID, "tid": "%d(%s)" % (TID, lang),
                     "ph": "M", "args": {"name": "Process %d (CPU)" % PID}})
        meta.append({"name": "thread_name", "pid": PID, "tid": "%d(%s)" % (TID, lang),
                     "ph": "M", "args": {"name": "thread %d:MainThread(%s)" % (TID, lang)}})
    for s in (COMPUTE_STREAM, COMM_STREAM):
        meta.append({"name": "process_name", "pid": DEVICE, "tid": s, "ph": "M",
                     "args": {"name": "Deivce %d (GPU)" % DEVICE}})
        meta.append({"name": "thread_name", "pid": DEVICE, "tid": s, "ph": "M",
                     "args": {"name": "stream %d" % s}})
    events = ",\n".join("  " + json.dumps(e) for e in w.events + meta)
    devices = json.dumps([{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045231616,
                           "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024,
                           "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
                           "regsPerMultiprocessor": 65536, "warpSize": 32,
                           "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 233472,
                           "smCount": 132, "sharedMemPerBlockOptin": 232448}])
    extra = ('"ExtraInfo": {"Process Cpu Utilization": "1.02", "System Cpu Utilization": '
             '"0.35", "4242": "MainThread"}')
    return ('{\n  "schemaVersion": "%s",\n  "displayTimeUnit": "ms",\n  "span_indx": "0",\n'
            '  "deviceProperties": %s,\n  "traceEvents": [\n%s,\n  {}\n  ],\n  %s\n}\n'
            % (schema, devices, events, extra))


# ---- the tables, computed from the events (docs/summary-tables.md gives the definitions) ----

def ns_of(e):
    start = e["ts"] * 1000
    return start, start + int(Decimal(str(e["dur"])) * 1000)


def union(iv):
    out = []
    for s, e in sorted(x for x in iv if x[1] > x[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(u):
    return sum(e - s for s, e in u)


def intersection(a, b):
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def one_decimal(v):
    return str(Decimal(v).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def pct(v, base):
    return "%.2f" % (100.0 * v / base if base > 0 else 0.0)


class Stat:
    def __init__(self):
        self.d = []

    def row(self, base, total_only=False):
        if total_only:
            t = sum(self.d)
            return [str(t), "", "", "", pct(t, base)]
        t = sum(self.d)
        if not self.d:
            return [str(t), "", "", "", pct(t, base)]
        return [str(t), one_decimal(Decimal(t) / len(self.d)), str(max(self.d)), str(min(self.d)),
                pct(t, base)]


def expected_tables(w):
    ev = [e for e in w.events if e["ph"] == "X"]
    cat = lambda e: e["cat"].lower()
    name = lambda e: e["name"][:e["name"].rindex("[")]
    steps = [ns_of(e) for e in ev if cat(e) == "profilestep"]
    base = sum(e - s for s, e in steps)
    runtime = {e["args"]["correlation id"]: e for e in ev if cat(e) == "cudaruntime"}
    gpu = [e for e in ev if cat(e) in ("kernel", "memcpy", "memset")]
    kernels = [e for e in gpu if cat(e) == "kernel"]
    host = [e for e in ev if e["tid"].__class__ is str and cat(e) not in ("cudaruntime",)]
    op_cats = ("operator", "operatorinner", "communication")

    def within(t, e):
        s, end = ns_of(e)
        return s <= t <= end

    def windows(c):
        return [e for e in host if cat(e) == c]

    def outermost(c):
        es = windows(c)
        return [e for e in es if not any(o is not e and within(ns_of(e)[0], o) and
                                         ns_of(o)[1] >= ns_of(e)[1] for o in es)]

    # ops: op-category events not inside another op-category event
    opev = [e for e in host if cat(e) in op_cats]
    def inside_op(e):
        s, end = ns_of(e)
        return any(o is not e and ns_of(o)[0] <= s and end <= ns_of(o)[1] for o in opev)
    top_ops = [e for e in opev if not inside_op(e)]
    inner = [e for e in opev if inside_op(e)]

    def step_of(t):
        for i, (s, e) in enumerate(steps):
            if s <= t <= e:
                return i
        return -1

    def launch_time(g):
        return ns_of(runtime[g["args"]["correlation id"]])[0]

    def phase_of(g):
        t = launch_time(g)
        if any(within(t, d) for d in windows("dataloader")):
            return "Dataloader"
        if cat(g) != "kernel":
            return "Others"
        if any(within(t, b) for b in windows("backward")):
            return "Backward"
        if any(within(t, o) for o in windows("optimization")):
            return "Optimization"
        return "Forward"

    def gdur(g):
        s, e = ns_of(g)
        return e - s

    tables = {}
    # Model
    rows = []
    step_gpu = [0] * len(steps)
    phase_gpu = [{p: 0 for p in ("Dataloader", "Forward", "Backward", "Optimization", "Others")}
                 for _ in steps]
    for g in gpu:
        i = step_of(launch_time(g))
        if i >= 0:
            step_gpu[i] += gdur(g)
            phase_gpu[i][phase_of(g)] += gdur(g)
    gpu_all = sum(step_gpu)
    cpu_s, gpu_s = Stat(), Stat()
    cpu_s.d = [e - s for s, e in steps]
    gpu_s.d = step_gpu
    rows.append(["ProfileStep", str(len(steps))] + cpu_s.row(base) + gpu_s.row(gpu_all)[:4] +
                [pct(gpu_all, gpu_all) if gpu_all else "0.00", "0", "total"])
    listed_c = listed_g = 0
    for p in ("Dataloader", "Forward", "Backward", "Optimization"):
        c = Stat()
        c.d = [ns_of(e)[1] - ns_of(e)[0] for e in outermost(p.lower())]
        g = Stat()
        g.d = [pg[p] for pg in phase_gpu]
        rows.append([p, str(len(c.d))] + c.row(base) + g.row(gpu_all) + ["1", "phase"])
        listed_c += sum(c.d)
        listed_g += sum(g.d)
    oc, og = base - listed_c, gpu_all - listed_g
    rows.append(["Others", "", str(oc), "", "", "", pct(oc, base), str(og), "", "", "",
                 pct(og, gpu_all), "1", "phase"])
    tables["model"] = rows

    # Overview
    def type_row(n, calls, t, gpu_side, depth=1, kind="event_type"):
        cells = [str(t), "", "", "", pct(t, base)]
        empty = [""] * 5
        return [n, str(calls)] + (empty + cells if gpu_side else cells + empty) + [str(depth), kind]
    rows = [type_row("ProfileStep", len(steps), base, False, 0, "total")]
    cpu_rows = []
    rt = list(runtime.values())
    cpu_rows.append(type_row("CudaRuntime", len(rt), length(union(ns_of(e) for e in rt)), False))
    cpu_rows.append(type_row("Operator", len(top_ops), length(union(ns_of(e) for e in top_ops)),
                             False))
    cpu_rows.append(type_row("OperatorInner", len(inner), length(union(ns_of(e) for e in inner)),
                             False))
    user = [e for e in host if cat(e) == "userdefined" and not inside_op(e)]
    cpu_rows.append(type_row("UserDefined", len(user), length(union(ns_of(e) for e in user)),
                             False))
    for p in ("Dataloader", "Forward", "Backward", "Optimization"):
        o = outermost(p.lower())
        cpu_rows.append(type_row(p, len(o), sum(ns_of(e)[1] - ns_of(e)[0] for e in o), False))
    comm_ops = [e for e in top_ops if "allreduce" in name(e).lower()]
    cpu_rows.append(type_row("Communication", len(comm_ops),
                             length(union(ns_of(e) for e in comm_ops)), False))
    cpu_rows.sort(key=lambda r: -int(r[2]))  # stable: ties keep their order
    rows += cpu_rows
    for c, n in (("kernel", "Kernel"), ("memcpy", "Memcpy"), ("memset", "Memset")):
        es = [e for e in gpu if cat(e) == c]
        rows.append(type_row(n, len(es), length(union(ns_of(e) for e in es)), True))
    nccl = [e for e in kernels if "nccl" in name(e).lower()]
    rows.append(type_row("Communication", len(nccl), length(union(ns_of(e) for e in nccl)), True))
    tables["overview"] = rows

    # Distribution
    comm_u = union([ns_of(e) for e in comm_ops] + [ns_of(e) for e in nccl])
    comp_u = union(ns_of(e) for e in kernels if e not in nccl)
    def dist_row(n, t, depth, kind):
        return [n, "", str(t), "", "", "", pct(t, base), "", "", "", "", "", str(depth), kind]
    tables["distribution"] = [dist_row("ProfileStep", base, 0, "total"),
                              dist_row("Communication", length(comm_u), 1, "event_type"),
                              dist_row("Computation", length(comp_u), 1, "event_type"),
                              dist_row("Overlap", intersection(comm_u, comp_u), 1, "event_type")]

    # Kernel and Operator tables, sorted as Paddle's sorted_by
    all_k = sum(gdur(k) for k in kernels)

    def key_of(sort, cpu, gpu_):
        side = gpu_ if sort.startswith("gpu") else cpu
        if side is None:
            side = cpu if sort.startswith("gpu") else gpu_
        stat = sort.split("_")[1]
        if not side:
            return 1e300 if stat == "min" else -1
        v = {"total": sum(side), "avg": sum(side) / len(side), "max": max(side),
             "min": min(side)}[stat]
        return v if stat == "min" else -v

    def ordered(items, sort):  # items: (name, cpu list or None, gpu list, payload)
        return sorted(items, key=lambda it: (key_of(sort, it[1], it[2]), it[0]))

    def kernel_rows(ks, depth, sort):
        by = {}
        for k in ks:
            by.setdefault(name(k), []).append(gdur(k))
        out = []
        for n, d, g, _ in ordered([(n, None, d, None) for n, d in by.items()], sort):
            s = Stat()
            s.d = g
            out.append([n, str(len(g)), "", "", "", "", ""] + s.row(all_k) + [str(depth), "kernel"])
        return out

    def kernel_table(sort):
        return kernel_rows(kernels, 0, sort)

    def inside(e, o):
        return ns_of(o)[0] <= ns_of(e)[0] and ns_of(e)[1] <= ns_of(o)[1]

    def launched_in(k, o):
        return within(launch_time(k), o)

    def operator_table(sort):
        groups = {}
        for o in top_ops:
            groups.setdefault(name(o), []).append(o)
        items = []
        for n, insts in groups.items():
            cpu = [ns_of(o)[1] - ns_of(o)[0] for o in insts]
            gpu_ = [sum(gdur(k) for k in kernels if launched_in(k, o)) for o in insts]
            items.append((n, cpu, gpu_, insts))
        rows = []
        for n, cpu, gpu_, insts in ordered(items, sort):
            c, g = Stat(), Stat()
            c.d, g.d = cpu, gpu_
            rows.append([n, str(len(cpu))] + c.row(base) + g.row(all_k) + ["0", "op"])
            children = {}
            direct = []
            for o in insts:
                kids = [e for e in opev + user if e is not o and inside(e, o) and
                        not any(m is not e and m is not o and inside(e, m) and inside(m, o)
                                for m in opev)]
                for kid in kids:
                    children.setdefault(name(kid), []).append(kid)
                for k in kernels:
                    if launched_in(k, o) and not any(launched_in(k, kid) for kid in kids):
                        direct.append(k)
            citems = []
            for cn, kids in children.items():
                ccpu = [ns_of(x)[1] - ns_of(x)[0] for x in kids]
                cgpu = [sum(gdur(k) for k in kernels if launched_in(k, x)) for x in kids]
                citems.append((cn, ccpu, cgpu, kids))
            for cn, ccpu, cgpu, kids in ordered(citems, sort):
                c, g = Stat(), Stat()
                c.d, g.d = ccpu, cgpu
                rows.append([cn, str(len(ccpu))] + c.row(base) + g.row(all_k) + ["1", "inner"])
                rows += kernel_rows([k for k in kernels if any(launched_in(k, x) for x in kids)],
                                    2, sort)
            rows += kernel_rows(direct, 1, sort)
        return rows

    tables["kernel_table"] = kernel_table("gpu_total")
    tables["kernel_table.gpu_min"] = kernel_table("gpu_min")
    tables["operator"] = operator_table("cpu_total")
    tables["operator.gpu_total"] = operator_table("gpu_total")
    tables["operator.cpu_min"] = operator_table("cpu_min")
    return tables


def csv_line(fields):
    out = []
    for f in fields:
        if any(c in f for c in ',"\n\r'):
            f = '"' + f.replace('"', '""') + '"'
        out.append(f)
    return ",".join(out)


HEADER = ("name,calls,cpu_total_ns,cpu_avg_ns,cpu_max_ns,cpu_min_ns,cpu_ratio_pct,gpu_total_ns,"
          "gpu_avg_ns,gpu_max_ns,gpu_min_ns,gpu_ratio_pct,depth,kind")


def main():
    os.makedirs(os.path.join(HERE, "expected"), exist_ok=True)
    for stem, old, schema in (("paddle_gpt_2steps", False, "1.0.1"),
                              ("paddle_gpt_2steps_lowercase", True, "1.0.0")):
        w = Writer(old=old)
        step(w, 0)
        step(w, 1)
        with open(os.path.join(HERE, stem + ".paddle_trace.json"), "w") as f:
            f.write(trace_text(w, schema))
        if old:
            continue  # the same events: the test checks it gives the same tables
        for report, rows in expected_tables(w).items():
            with open(os.path.join(HERE, "expected", "%s.%s.csv" % (stem, report)), "w") as f:
                f.write(HEADER + "\n" + "".join(csv_line(r) + "\n" for r in rows))


if __name__ == "__main__":
    main()
