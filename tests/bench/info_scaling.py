#!/usr/bin/python3
"""Does `jitctl info` time grow with the weights? Makes (with Debian's torch, random weights):
ResNet-18 traced (~45 MB) and two MLPs with the same structure, one with 10x the weight bytes of
the other; then times `jitctl info --format json` on each (median wall time and peak RSS over
runs, side by side), and Python+PyTorch loading the same file and listing named_parameters().

Usage: tests/bench/info_scaling.py BUILD/cli/jitctl [--runs 21]"""
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
        print(f"{'archive':10s} {'size':>9s} {'jitctl ms':>10s} {'jitctl MiB':>11s} {'torch ms':>9s} {'torch MiB':>10s}")
        for name, m in models.items():
            path = os.path.join(tmp, name + ".pt")
            m.save(path)
            size = os.path.getsize(path) / 2**20
            runs = [timed([a.jitctl, "info", "--format", "json", path]) for _ in range(a.runs)]
            py = [timed(["/usr/bin/python3", "-c",
                         f"import torch; m = torch.jit.load({path!r}); print(list(m.named_parameters())[:0])"])
                  for _ in range(3)]
            print(f"{name:10s} {size:7.1f}MB {statistics.median(r[0] for r in runs):10.2f} "
                  f"{statistics.median(r[1] for r in runs):11.1f} {statistics.median(r[0] for r in py):9.0f} "
                  f"{statistics.median(r[1] for r in py):10.0f}", flush=True)


if __name__ == "__main__":
    main()
