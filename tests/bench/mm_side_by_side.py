#!/usr/bin/python3
"""GFLOP/s of jitctl's aten::mm (or packed 3x3 conv) against torch.mm (F.conv2d), interleaved rounds.

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 tests/bench/mm_side_by_side.py \\
      --op-bench build/tests/op_bench [--op mm|conv] [--size 1024] [--threads 1,2] [--rounds 7]

Each round times torch (in this process) and then jitctl (`op_bench`, the library side of
`jitctl bench-threads --op`) at every thread count, ITERS calls each; reported per thread count:
the median over rounds of each side's median GFLOP/s, the best round, and jitctl/torch.
The shared machine makes single rounds noisy; the median of interleaved rounds is the number.
"""
import argparse, json, statistics, subprocess, time

import torch
import torch.nn.functional as F


def torch_gflops(op, n, threads, iters):
    torch.set_num_threads(threads)
    if op == "mm":
        a, b = torch.rand(n, n) * 2 - 1, torch.rand(n, n) * 2 - 1
        f, flops = (lambda: torch.mm(a, b)), 2.0 * n ** 3
    else:
        x, w, bias = torch.rand(1, n, 56, 56), torch.rand(n, n, 3, 3), torch.rand(n)
        f, flops = (lambda: F.conv2d(x, w, bias, 1, 1)), 2.0 * n * n * 9 * 56 * 56
    with torch.no_grad():
        for _ in range(3):
            f()
        ts = []
        for _ in range(iters):
            t0 = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t0)
    return flops / statistics.median(ts) / 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--op-bench", required=True)
    ap.add_argument("--op", default="mm", choices=["mm", "conv"])
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--iters", type=int, default=10)
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    tg = {t: [] for t in threads}
    jg = {t: [] for t in threads}
    peak, isa = {}, ""
    for _ in range(a.rounds):
        for t in threads:
            tg[t].append(torch_gflops(a.op, a.size, t, a.iters))
            out = subprocess.run([a.op_bench, a.op, str(a.size), str(t), str(a.iters)], capture_output=True, text=True, check=True).stdout
            r = json.loads(out)
            isa = r["isa"]
            jg[t].append(r["rows"][0]["gflops_p50"])
            peak[t] = r["rows"][0]["peak_gflops"]
    print(f"{a.op} {a.size}: torch {torch.__version__} vs jitctl ({isa}), {a.rounds} interleaved rounds x {a.iters} calls")
    for t in threads:
        tm, jm = statistics.median(tg[t]), statistics.median(jg[t])
        print(f"threads={t}: torch {tm:7.1f} GFLOP/s (best {max(tg[t]):7.1f})  jitctl {jm:7.1f} GFLOP/s (best {max(jg[t]):7.1f})"
              f"  jitctl/torch {jm / tm:5.3f}  peak {peak[t]:.0f} (jitctl at {jm / peak[t]:.0%})")


if __name__ == "__main__":
    main()
