#!/usr/bin/python3
"""`jitctl bench-threads --op mm|conv` beside the torch.mm thread sweep of
shared/reference/cpu_threading.txt, in one run, alternating the two per thread count so that
drift of a shared machine hits both alike.

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 tests/bench/op_sweep_torch.py \
      build/cli/jitctl [--op mm|conv] [--size 1024] [--threads 1,2,4] [--iters 20] [--rounds 3]

torch side: the reference script's loop (torch.set_num_threads(t), then timing the op on fresh
random operands), p50 of the per-call times over all rounds; the same FLOP counts as jitctl's
(mm: 2 N^3; conv: 1x64xNxN * 64x64x3x3, padding 1: 2*64*64*9*N^2). jitctl side: its JSON rows.
Prints threads, both GFLOP/s at the p50 time, jitctl's percent of its measured peak, and the ratio."""
import argparse
import json
import os
import statistics
import subprocess
import time

import torch
import torch.nn.functional as F


def torch_times(op, n, threads, iters):
    torch.set_num_threads(threads)
    if op == "mm":
        x, y = torch.randn(n, n), torch.randn(n, n)
        call = lambda: torch.mm(x, y)
    else:
        x, w, b = torch.randn(1, 64, n, n), torch.randn(64, 64, 3, 3), torch.randn(64)
        call = lambda: F.conv2d(x, w, b, 1, 1)
    for _ in range(3):
        call()
    out = []
    for _ in range(iters):
        t0 = time.perf_counter()
        call()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jitctl")
    ap.add_argument("--op", default="mm", choices=["mm", "conv"])
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--threads", default="1,2,4")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    flops = 2.0 * a.size ** 3 if a.op == "mm" else 2.0 * 64 * 64 * 9 * a.size * a.size
    per_round = max(1, a.iters // a.rounds)
    torch_ms = {t: [] for t in threads}
    jit_ms = {t: [] for t in threads}
    peak = None
    for r in range(a.rounds):
        order = threads if r % 2 == 0 else list(reversed(threads))
        for t in order:
            torch_ms[t] += torch_times(a.op, a.size, t, per_round)
            p = subprocess.run([a.jitctl, "bench-threads", "--op", a.op, "--size", str(a.size), "--threads", str(t),
                                "--iters", str(per_round), "--rounds", "1", "--format", "json"],
                               capture_output=True, text=True, check=True)
            j = json.loads(p.stdout)
            peak = j["machine"]["fp32_peak_gflops_per_core"]
            # jitctl reports percentiles; keep its p50 per round (one value each).
            jit_ms[t].append(j["rows"][0]["latency_ms"]["p50"])
    print(f"--op {a.op} --size {a.size}: {flops / 1e9:.3g} GFLOP a call; {a.rounds} rounds x {per_round} calls; "
          f"jitctl's measured peak {peak:.1f} GFLOP/s per core; torch {torch.__version__}")
    print(f"{'threads':>7} {'jitctl GFLOP/s':>15} {'torch GFLOP/s':>14} {'jitctl/torch':>13} {'jitctl % peak':>14}")
    for t in threads:
        j50 = statistics.median(jit_ms[t])
        t50 = statistics.median(torch_ms[t])
        jg, tg = flops / (j50 / 1e3) / 1e9, flops / (t50 / 1e3) / 1e9
        pct = jg / (peak * min(t, len(os.sched_getaffinity(0)))) * 100
        print(f"{t:>7} {jg:>15.1f} {tg:>14.1f} {jg / tg:>13.2f} {pct:>13.1f}%")


if __name__ == "__main__":
    main()
