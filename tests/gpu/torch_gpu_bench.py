#!/usr/bin/env python3
"""PyTorch's side of the GPU benchmarks (tests/gpu/run_gpu_checks.sh), on the same GPU in the same
call as jitctl's: ResNet-18 through torch.jit.load at batch 1 and 32, fp32 (TF32 off for
convolutions and matmuls) and with TF32 allowed, as eager calls and as a replayed CUDA graph.
Each figure is the median of --iters calls, each timed from launch until torch.cuda.synchronize()
returns, inputs resident on the GPU (what `jitctl bench --device cuda` times).

  make:  torch_gpu_bench.py make DIR      writes DIR/resnet18_traced.pt (torchvision, random weights)
  time:  torch_gpu_bench.py time MODEL [--iters N]  -> one JSON line per batch (1, 32), math
         (fp32, TF32) and mode (eager, graph)
  make-seq: torch_gpu_bench.py make-seq DIR  writes a 2-layer bidirectional LSTM (scripted) and a
         4-layer nn.TransformerEncoder (traced without grad, so on its fast path,
         aten::_transformer_encoder_layer_fwd), each with an input and PyTorch's CPU output
  time-seq: torch_gpu_bench.py time-seq MODEL INPUT [--iters N]  -> one JSON line (fp32, eager
         and graph)
"""
import argparse
import json
import statistics
import sys
import time

import torch


def make(dir_):
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet18(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        t = torch.jit.trace(m, x)
    t.save(f"{dir_}/resnet18_traced.pt")
    torch.save((x,), f"{dir_}/resnet18_in_b1.pt")
    torch.save((torch.randn(32, 3, 224, 224),), f"{dir_}/resnet18_in_b32.pt")
    with torch.no_grad():
        torch.save(t(x), f"{dir_}/resnet18_out_b1.pt")
    # An archive saved from the GPU (storages at cuda:0), which must load on either device.
    small = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8 * 16 * 16, 10)).eval()
    xs = torch.randn(2, 3, 16, 16)
    with torch.no_grad():
        want = small(xs)
        torch.jit.trace(small.cuda(), xs.cuda()).save(f"{dir_}/cuda_saved.pt")
    torch.save((xs,), f"{dir_}/cuda_saved_in.pt")
    torch.save(want, f"{dir_}/cuda_saved_out.pt")


class LstmOut(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(128, 256, num_layers=2, bidirectional=True, batch_first=True)

    def forward(self, x):
        y, _ = self.lstm(x)
        return y


def make_seq(dir_):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True)
    # The LSTM scripted: traced, its zero initial state is a CPU constant, which PyTorch cannot
    # run on the GPU.
    models = {
        "lstm_seq": (LstmOut().eval(), torch.randn(8, 32, 128), torch.jit.script),
        "encoder_seq": (torch.nn.TransformerEncoder(layer, 4, enable_nested_tensor=False).eval(), torch.randn(8, 64, 256), None),
    }
    for name, (m, x, script) in models.items():
        with torch.no_grad():
            t = script(m) if script else torch.jit.trace(m, x)
            t.save(f"{dir_}/{name}.pt")
            torch.save((x,), f"{dir_}/{name}_in.pt")
            torch.save(m(x), f"{dir_}/{name}_out.pt")


def captured(m, x):
    """m(x) recorded as a CUDA graph after a few calls on a side stream (what CUDA graphs need);
    returns the graph's replay."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            m(x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        m(x)
    return g.replay


def timed_calls(m, x, warmup, graph, iters):
    """Milliseconds of `iters` calls of m(x) (or its captured graph), each until the GPU is done,
    after `warmup` calls."""
    with torch.no_grad():
        for _ in range(warmup):  # the GPU raises its clocks
            m(x)
        torch.cuda.synchronize()
        call = captured(m, x) if graph else (lambda: m(x))
        for _ in range(5):
            call()
        torch.cuda.synchronize()
        ms = []
        for _ in range(iters):
            t0 = time.perf_counter()
            call()
            torch.cuda.synchronize()
            ms.append((time.perf_counter() - t0) * 1000)
    return ms


def time_seq(args):
    set_tf32(False)
    m = torch.jit.load(args.model, map_location="cuda").eval()
    x = torch.load(args.input)[0].cuda()
    for graph in (False, True):
        try:
            ms = timed_calls(m, x, 50, graph, args.iters)
        except Exception as e:  # noqa: BLE001 - a model torch cannot capture: say so
            print(json.dumps({"model": args.model, "graph": graph, "error": str(e).splitlines()[0]}), flush=True)
            continue
        print(json.dumps({"model": args.model, "graph": graph, "p50_ms": statistics.median(ms), "min_ms": min(ms)}), flush=True)


def set_tf32(tf32):
    # PyTorch 2.9+ has fp32_precision ("ieee" or "tf32"); older ones the allow_tf32 flags.
    if hasattr(torch.backends.cudnn, "conv") and hasattr(torch.backends.cudnn.conv, "fp32_precision"):
        torch.backends.cudnn.conv.fp32_precision = "tf32" if tf32 else "ieee"
        torch.backends.cuda.matmul.fp32_precision = "tf32" if tf32 else "ieee"
    else:
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32


def time_one(m, cpu_model, batch, tf32, graph, iters):
    set_tf32(tf32)
    x = torch.randn(batch, 3, 224, 224, device="cuda")
    with torch.no_grad():
        # How far the GPU's output is from the CPU's: about 1e-6 relative in fp32, 1e-3 with TF32.
        diff = float((m(x).cpu() - cpu_model(x.cpu())).abs().max())
    ms = timed_calls(m, x, 200, graph, iters)  # 200 warm-up calls, as jitctl's --warmup 200
    p50 = statistics.median(ms)
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "batch": batch, "tf32": tf32,
                      "graph": graph, "p50_ms": p50, "min_ms": min(ms), "items_per_s": batch * 1000 / p50,
                      "max_abs_diff_vs_cpu": diff}), flush=True)


def time_model(args):
    m = torch.jit.load(args.model, map_location="cuda").eval()
    cpu_model = torch.jit.load(args.model, map_location="cpu").eval()
    for batch in (1, 32):
        for tf32 in (False, True):
            for graph in (False, True):
                time_one(m, cpu_model, batch, tf32, graph, args.iters)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make")
    mk.add_argument("dir")
    tm = sub.add_parser("time")
    tm.add_argument("model")
    tm.add_argument("--iters", type=int, default=300)
    ms = sub.add_parser("make-seq")
    ms.add_argument("dir")
    ts = sub.add_parser("time-seq")
    ts.add_argument("model")
    ts.add_argument("input")
    ts.add_argument("--iters", type=int, default=200)
    a = ap.parse_args()
    if a.cmd == "make":
        make(a.dir)
    elif a.cmd == "make-seq":
        make_seq(a.dir)
    elif a.cmd == "time-seq":
        time_seq(a)
    else:
        time_model(a)


if __name__ == "__main__":
    sys.exit(main())
