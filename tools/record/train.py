# Small GPT-style training loop annotated for Nsight Systems / PyTorch NVTX.
# A copy of ../shared/tools/gpu/train.py with --memory (record_memory.sh).
# Usage: python3 train.py [--mode nvtx|kineto|plain] [--layers N] [--dtype fp16|fp32|bf16] [--iters N] [--out PATH]
import argparse, math, time, torch, torch.nn as nn, torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--mode", default="nvtx")
p.add_argument("--layers", type=int, default=4)
p.add_argument("--dmodel", type=int, default=768)
p.add_argument("--heads", type=int, default=12)
p.add_argument("--seq", type=int, default=512)
p.add_argument("--batch", type=int, default=8)
p.add_argument("--vocab", type=int, default=50257)
p.add_argument("--dtype", default="fp16")
p.add_argument("--iters", type=int, default=3)
p.add_argument("--capture", type=int, default=2, help="first iteration captured by cudaProfilerStart/Stop")
p.add_argument("--ncapture", type=int, default=1, help="iterations captured")
p.add_argument("--model", default="gpt", help="gpt or resnet50")
p.add_argument("--out", default="trace.json")
p.add_argument("--conv", action="store_true", help="add a small conv stem")
p.add_argument("--memory", action="store_true",
               help="record GPU memory (the PyTorch profiler's profile_memory; nsys needs --cuda-memory-usage) "
                    "and print the captured window's peaks")
a = p.parse_args()

# user ranges: NVTX for Nsight Systems, record_function (user_annotation) for the PyTorch profiler
_open = []
def range_push(name):
    if a.mode == "kineto":
        rf = torch.profiler.record_function(name); rf.__enter__(); _open.append(rf)
    else:
        torch.cuda.nvtx.range_push(name)
def range_pop():
    if a.mode == "kineto":
        _open.pop().__exit__(None, None, None)
    else:
        torch.cuda.nvtx.range_pop()

class Block(nn.Module):
    def __init__(s, d, h):
        super().__init__()
        s.ln1 = nn.LayerNorm(d); s.attn = nn.MultiheadAttention(d, h, batch_first=True)
        s.ln2 = nn.LayerNorm(d); s.fc1 = nn.Linear(d, 4 * d); s.fc2 = nn.Linear(4 * d, d)
    def forward(s, x, mask):
        y = s.ln1(x)
        y, _ = s.attn(y, y, y, attn_mask=mask, need_weights=False)
        x = x + y
        return x + s.fc2(F.gelu(s.fc1(s.ln2(x))))

class GPT(nn.Module):
    def __init__(s):
        super().__init__()
        s.tok = nn.Embedding(a.vocab, a.dmodel); s.pos = nn.Embedding(a.seq, a.dmodel)
        s.blocks = nn.ModuleList([Block(a.dmodel, a.heads) for _ in range(a.layers)])
        s.lnf = nn.LayerNorm(a.dmodel); s.head = nn.Linear(a.dmodel, a.vocab, bias=False)
        s.conv = nn.Conv2d(3, 16, 3, padding=1) if a.conv else None
    def forward(s, idx, img=None):
        T = idx.shape[1]
        mask = torch.triu(torch.full((T, T), float("-inf"), device=idx.device), 1)
        x = s.tok(idx) + s.pos(torch.arange(T, device=idx.device))
        for i, b in enumerate(s.blocks):
            range_push(f"layer{i}")
            x = b(x, mask)
            range_pop()
        out = s.head(s.lnf(x))
        if s.conv is not None and img is not None:
            out = out.float().sum() + s.conv(img).float().mean()
        return out

dev = "cuda"
if a.model == "resnet50":
    import torchvision
    model = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
else:
    model = GPT().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
dt = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[a.dtype]
scaler = torch.amp.GradScaler(enabled=(a.dtype == "fp16"))
idx = torch.randint(0, a.vocab, (a.batch, a.seq), device=dev)
img = torch.randn(a.batch, 3, 64, 64, device=dev) if a.conv else None
imgs = torch.randn(a.batch, 3, 224, 224, device=dev).to(memory_format=torch.channels_last)
labels = torch.randint(0, 1000, (a.batch,), device=dev)

def step():
    with torch.autocast("cuda", dtype=dt, enabled=(a.dtype != "fp32")):
        range_push("forward")
        if a.model == "resnet50":
            loss = F.cross_entropy(model(imgs).float(), labels)
        else:
            out = model(idx, img)
            loss = out.float().mean() if out.dim() == 0 else F.cross_entropy(out.view(-1, a.vocab).float(), idx.view(-1))
        range_pop()
    range_push("backward")
    scaler.scale(loss).backward()
    range_pop()
    range_push("optimizer")
    scaler.step(opt); scaler.update(); opt.zero_grad(set_to_none=True)
    range_pop()

if a.mode == "nvtx":
    with torch.autograd.profiler.emit_nvtx(record_shapes=True):
        for it in range(a.iters):
            if it == a.capture:
                if a.memory:
                    torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats()
                    print("memory at start", "allocated", torch.cuda.memory_allocated(),
                          "reserved", torch.cuda.memory_reserved(), flush=True)
                torch.cuda.profiler.start()
            range_push(f"iteration {it}")
            step()
            range_pop()
            torch.cuda.synchronize()
            if it == a.capture + a.ncapture - 1:
                torch.cuda.profiler.stop()
                if a.memory:
                    print("memory peak", "max_memory_allocated", torch.cuda.max_memory_allocated(),
                          "max_memory_reserved", torch.cuda.max_memory_reserved(), flush=True)
elif a.mode == "kineto":
    for _ in range(a.capture): step()
    torch.cuda.synchronize()
    from torch.profiler import profile, ProfilerActivity
    from torch.profiler import schedule
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True, with_stack=False,
                 profile_memory=a.memory, schedule=schedule(wait=0, warmup=1, active=a.ncapture),
                 on_trace_ready=lambda p: p.export_chrome_trace(a.out)) as prof:
        for it in range(1 + a.ncapture):
            if it == 1 and a.memory:  # the first active step: the recorded window starts
                torch.cuda.reset_peak_memory_stats()
                print("memory at start", "allocated", torch.cuda.memory_allocated(),
                      "reserved", torch.cuda.memory_reserved(), flush=True)
            range_push(f"iteration {it}"); step(); range_pop()
            torch.cuda.synchronize(); prof.step()
    if a.memory:
        print("memory peak", "max_memory_allocated", torch.cuda.max_memory_allocated(),
              "max_memory_reserved", torch.cuda.max_memory_reserved(), flush=True)
else:
    for _ in range(a.iters): step()
    torch.cuda.synchronize()
print("done", a)
