# A small GPT trained eagerly, trained by replaying one CUDA graph of a whole step, or run for
# inference through torch.compile(mode="reduce-overhead"), annotated as PyTorch users annotate:
# user ranges "iteration N" / "inference N", "forward", "backward", "optimizer", "layerK" (NVTX
# under Nsight Systems with emit_nvtx(record_shapes=True); record_function under the PyTorch
# profiler). The recorded range always holds the graph capture, so each replayed kernel's node
# can be traced back to the launch that made it.
#   python3 graphs.py --run eager|graph|compile --mode nvtx|kineto [--out trace.json]
# Under Nsight Systems, record with --capture-range=cudaProfilerApi (the script starts and stops it).
import argparse, torch, torch.nn as nn, torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--run", default="eager", choices=["eager", "graph", "compile"])
p.add_argument("--mode", default="nvtx", choices=["nvtx", "kineto"])
p.add_argument("--layers", type=int, default=2)
p.add_argument("--dmodel", type=int, default=512)
p.add_argument("--heads", type=int, default=8)
p.add_argument("--seq", type=int, default=256)
p.add_argument("--batch", type=int, default=8)
p.add_argument("--vocab", type=int, default=8192)
p.add_argument("--iters", type=int, default=3, help="iterations (or inferences) recorded")
p.add_argument("--out", default="trace.json")
a = p.parse_args()
torch.manual_seed(0)
dev = "cuda"
# Ranges inside the model are skipped under torch.compile (they would break its graph); the
# module names of the compiled run come from the ranges around each call.
annotate_layers = a.run != "compile"

_open = []
def push(name):
    if a.mode == "kineto":
        rf = torch.profiler.record_function(name); rf.__enter__(); _open.append(rf)
    else:
        torch.cuda.nvtx.range_push(name)
def pop():
    if a.mode == "kineto":
        _open.pop().__exit__(None, None, None)
    else:
        torch.cuda.nvtx.range_pop()

class Block(nn.Module):
    def __init__(s, d, h):
        super().__init__()
        s.ln1 = nn.LayerNorm(d); s.qkv = nn.Linear(d, 3 * d); s.proj = nn.Linear(d, d)
        s.ln2 = nn.LayerNorm(d); s.fc1 = nn.Linear(d, 4 * d); s.fc2 = nn.Linear(4 * d, d); s.h = h
    def forward(s, x):
        B, T, D = x.shape
        q, k, v = s.qkv(s.ln1(x)).view(B, T, 3, s.h, D // s.h).transpose(1, 3).unbind(2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + s.proj(y.transpose(1, 2).reshape(B, T, D))
        return x + s.fc2(F.gelu(s.fc1(s.ln2(x))))

class GPT(nn.Module):
    def __init__(s):
        super().__init__()
        s.tok = nn.Embedding(a.vocab, a.dmodel); s.pos = nn.Embedding(a.seq, a.dmodel)
        s.blocks = nn.ModuleList([Block(a.dmodel, a.heads) for _ in range(a.layers)])
        s.lnf = nn.LayerNorm(a.dmodel); s.head = nn.Linear(a.dmodel, a.vocab, bias=False)
    def forward(s, idx):
        x = s.tok(idx) + s.pos(torch.arange(idx.shape[1], device=idx.device))
        for i, b in enumerate(s.blocks):
            if annotate_layers: push(f"layer{i}")
            x = b(x)
            if annotate_layers: pop()
        return s.head(s.lnf(x))

model = GPT().to(dev)
idx = torch.randint(0, a.vocab, (a.batch, a.seq), device=dev)
# capturable in every run, so that the eager run's optimizer kernels are the graphed run's.
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, capturable=True)

def train_step():
    with torch.autocast("cuda", dtype=torch.bfloat16):
        push("forward")
        loss = F.cross_entropy(model(idx).view(-1, a.vocab).float(), idx.view(-1))
        pop()
    push("backward"); loss.backward(); pop()
    push("optimizer"); opt.step(); pop()
    return loss

class Recorder:
    """Nsight Systems' cudaProfilerApi range, or the PyTorch profiler, around the recorded part."""
    def __enter__(s):
        if a.mode == "nvtx":
            s.ctx = torch.autograd.profiler.emit_nvtx(record_shapes=True); s.ctx.__enter__()
            torch.cuda.profiler.start()
        else:
            from torch.profiler import profile, ProfilerActivity
            s.ctx = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                            with_flops=True, with_modules=True)
            s.ctx.__enter__()
    def __exit__(s, *exc):
        torch.cuda.synchronize()
        if a.mode == "nvtx":
            torch.cuda.profiler.stop(); s.ctx.__exit__(*exc)
        else:
            s.ctx.__exit__(*exc); s.ctx.export_chrome_trace(a.out)

if a.run == "eager":
    for _ in range(2): opt.zero_grad(set_to_none=True); train_step()
    torch.cuda.synchronize()
    with Recorder():
        for it in range(a.iters):
            push(f"iteration {it}")
            opt.zero_grad(set_to_none=True); train_step()
            pop()
            torch.cuda.synchronize()
elif a.run == "graph":
    # Warm-up on a side stream (as torch.cuda.graphs' whole-network example), then the capture
    # of one whole step and its replays, all inside the recorded range.
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3): opt.zero_grad(set_to_none=True); train_step()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with Recorder():
        push("capture")
        with torch.cuda.graph(g):
            train_step()
        pop()
        torch.cuda.synchronize()
        for it in range(a.iters):
            push(f"iteration {it}")
            g.replay()
            pop()
            torch.cuda.synchronize()
else:
    model.eval()
    compiled = torch.compile(model, mode="reduce-overhead")
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        compiled(idx)  # compiles; the CUDA graph is recorded on the next calls, inside the range
        torch.cuda.synchronize()
        with Recorder():
            for it in range(a.iters + 2):
                push(f"inference {it}")
                compiled(idx)
                pop()
                torch.cuda.synchronize()
print("done", a)
