# A small GPT training loop with one planted performance defect at a time, for the findings'
# ground truth. The same model and step as the clean baseline (--defect none), annotated with
# user ranges "iteration N", "forward", "backward", "optimizer", "layerK" (NVTX under Nsight
# Systems with emit_nvtx(record_shapes=True); record_function under the PyTorch profiler).
#   python3 defects.py --defect none|sync|item|tf32off|loader|pageable|tiny [--mode nvtx|kineto]
#   torchrun --nproc_per_node 2 defects.py --defect straggler ...   (rank 1 sleeps before its all-reduce)
# Defects, each once per training step:
#   sync      torch.cuda.synchronize() between forward and backward
#   item      loss.item() after the forward (a host read that waits for the GPU)
#   tf32off   fp32 everywhere with TF32 off: GEMMs on CUDA cores (the baseline runs bf16 autocast)
#   loader    a data loader that sleeps 100 ms on the host before each step (longer than the
#             step's GPU work, so the GPU waits for it)
#   pageable  a 64 MiB batch copied from pageable host memory every step (synchronous copy)
#   tiny      batch 1, d 128, 1 layer, seq 32: launch-bound (no baseline of its own)
#   straggler 2-GPU DDP, rank 1 sleeps 30 ms before the backward (its all-reduce starts late)
#   ddp       the same 2-GPU DDP without the sleep: the straggler's clean baseline
import argparse, os, time, torch, torch.nn as nn, torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--defect", default="none")
p.add_argument("--mode", default="nvtx", choices=["nvtx", "kineto"])
p.add_argument("--iters", type=int, default=4, help="steps recorded (after 3 warm-up steps)")
p.add_argument("--out", default="trace.json")
a = p.parse_args()
tiny = a.defect == "tiny"
# Big enough that the GPU, not the host, sets the pace of the clean step (about 65 ms of GPU
# work a step on an H200 against about 30 ms of host time under emit_nvtx).
layers, dmodel, heads, seq, batch, vocab = (1, 128, 2, 32, 1, 1024) if tiny else (4, 768, 12, 1024, 48, 8192)
fp32 = a.defect == "tf32off"
if fp32:
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
ddp = a.defect in ("straggler", "ddp")
rank = int(os.environ.get("RANK", "0"))
if ddp:
    import torch.distributed as dist
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
torch.manual_seed(0)
dev = "cuda"

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
        s.tok = nn.Embedding(vocab, dmodel); s.pos = nn.Embedding(seq, dmodel)
        s.blocks = nn.ModuleList([Block(dmodel, heads) for _ in range(layers)])
        s.lnf = nn.LayerNorm(dmodel); s.head = nn.Linear(dmodel, vocab, bias=False)
    def forward(s, idx):
        x = s.tok(idx) + s.pos(torch.arange(idx.shape[1], device=idx.device))
        for i, b in enumerate(s.blocks):
            push(f"layer{i}"); x = b(x); pop()
        return s.head(s.lnf(x))

model = GPT().to(dev)
if ddp:
    model = nn.parallel.DistributedDataParallel(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
idx = torch.randint(0, vocab, (batch, seq), device=dev)
host_batch = torch.randn(16 * 1024 * 1024) if a.defect == "pageable" else None  # 64 MiB, pageable

def step():
    if a.defect == "loader":
        push("data loader"); time.sleep(0.100); pop()
    if host_batch is not None:
        push("copy batch"); host_batch.to(dev); pop()  # from pageable memory: synchronous
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=not fp32):
        push("forward")
        loss = F.cross_entropy(model(idx).view(-1, vocab).float(), idx.view(-1))
        pop()
    if a.defect == "sync": torch.cuda.synchronize()
    if a.defect == "item": loss.item()
    if a.defect == "straggler" and rank == 1:
        push("straggle"); time.sleep(0.030); pop()
    push("backward"); loss.backward(); pop()
    push("optimizer"); opt.step(); opt.zero_grad(set_to_none=True); pop()

for _ in range(3): step()
torch.cuda.synchronize()
if a.mode == "nvtx":
    with torch.autograd.profiler.emit_nvtx(record_shapes=True):
        torch.cuda.profiler.start()
        for it in range(a.iters):
            push(f"iteration {it}"); step(); pop()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
else:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        for it in range(a.iters):
            push(f"iteration {it}"); step(); pop()
        torch.cuda.synchronize()
    prof.export_chrome_trace(a.out)
if ddp:
    dist.destroy_process_group()
print("done", a.defect, rank)
