#!/usr/bin/python3
"""Latency of `jitctl info` and `jitctl dump-graph` next to Python+PyTorch doing the same, and
whether it grows with the weights. Makes (with Debian's torch, random weights): ResNet-18 traced
(~45 MB) and two MLPs with the same structure, one with 10x the weight bytes of the other; then
times each command (median wall time and peak RSS over runs), and Python+PyTorch loading the same
file and printing its graph.

Usage: tests/bench/cli_latency.py BUILD/cli/jitctl [--runs 21]"""
import argparse, os, statistics, subprocess, sys, tempfile, time  # noqa: E401

import torch
import torchvision


def timed(cmd):
    # GNU time reports the peak RSS of its own child; measuring from this process would count the
    # memory of the forked Python (with torch loaded) as the child's.
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{cmd} failed: {p.stderr}")
    return wall * 1e3, int(p.stderr.strip().splitlines()[-1]) / 1024


def mlp(width, depth=8):
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).eval()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jitctl")
    ap.add_argument("--runs", type=int, default=21)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        models = {}
        models["resnet18"] = torch.jit.trace(torchvision.models.resnet18().eval(), torch.randn(1, 3, 224, 224))
        models["mlp_1x"] = torch.jit.script(mlp(768))    # 8 x 768^2 floats: ~19 MB
        models["mlp_10x"] = torch.jit.script(mlp(2429))  # 10x the weight bytes, same structure
        print(f"{'archive':10s} {'size':>9s} {'info ms':>8s} {'info MiB':>9s} {'graph ms':>9s} {'graph MiB':>10s} "
              f"{'torch ms':>9s} {'torch MiB':>10s}")
        for name, m in models.items():
            path = os.path.join(tmp, name + ".pt")
            m.save(path)
            size = os.path.getsize(path) / 2**20
            runs = [timed([a.jitctl, "info", "--format", "json", path]) for _ in range(a.runs)]
            graph = [timed([a.jitctl, "dump-graph", path]) for _ in range(a.runs)]
            py = [timed(["/usr/bin/python3", "-c", f"import torch; print(torch.jit.load({path!r}).graph)"])
                  for _ in range(3)]
            med = lambda rs, i: statistics.median(r[i] for r in rs)  # noqa: E731
            print(f"{name:10s} {size:7.1f}MB {med(runs, 0):8.2f} {med(runs, 1):9.1f} {med(graph, 0):9.2f} "
                  f"{med(graph, 1):10.1f} {med(py, 0):9.0f} {med(py, 1):10.0f}", flush=True)


if __name__ == "__main__":
    main()
