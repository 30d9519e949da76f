#!/usr/bin/python3
"""What `jitctl optimize` gains for `jitctl run`: each model of a directory (NAME.pt with its input
NAME.in0.pt, as compat.py reads them) against its optimized copy, side by side, in instructions per
call -- callgrind's Ir count of `jitctl bench`, which other jobs on a shared machine do not change.
Per archive: (Ir of 2K timed calls - Ir of K timed calls) / K, so loading and warm-up cancel.

  /usr/bin/python3 tests/bench/optimize_gain.py --jitctl build/cli/jitctl \\
      --measure-jitctl build-portable/cli/jitctl --models /tmp/freeze_unseen --only resnet18_traced,...

--measure-jitctl must be built with -Dnative=false (`meson setup build-portable -Dnative=false`):
valgrind decodes no AVX-512, and under it oneDNN picks its AVX2 kernels for both archives alike.
Slow (valgrind): a ResNet-18 at 64x64 takes minutes."""
import argparse, math, os, re, subprocess, sys, tempfile


def instructions(jit, model, inputs, iters):
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", jit, "bench", model, "--inputs",
                        inputs, "--threads", "1", "--warmup", "1", "--iters", str(iters), "--rounds", "1", "--format", "json"],
                       capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    if p.returncode != 0 or not m:
        raise RuntimeError(f"{model}: {p.stderr.strip()[-400:]}")
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jitctl", required=True, help="the jitctl that optimizes")
    ap.add_argument("--measure-jitctl", required=True, help="a -Dnative=false jitctl that runs under valgrind")
    ap.add_argument("--models", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--iters", type=int, default=3, help="K")
    a = ap.parse_args()
    names = sorted(f[:-7] for f in os.listdir(a.models) if f.endswith(".in0.pt"))
    if a.only:
        names = [n for n in names if n in set(a.only.split(","))]
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            src, inputs = os.path.join(a.models, n + ".pt"), os.path.join(a.models, n + ".in0.pt")
            opt = os.path.join(tmp, n + ".opt.pt")
            subprocess.run([a.jitctl, "optimize", src, "-o", opt], check=True, capture_output=True)
            per = [(instructions(a.measure_jitctl, m, inputs, 2 * a.iters) - instructions(a.measure_jitctl, m, inputs, a.iters))
                   / a.iters for m in (src, opt)]
            ratios.append(per[1] / per[0])
            print(f"{n:<32} original {per[0] / 1e6:9.2f} M instructions/call  optimized {per[1] / 1e6:9.2f}  "
                  f"optimized/original {per[1] / per[0]:.3f}  bytes {os.path.getsize(src)} -> {os.path.getsize(opt)}",
                  flush=True)
    if ratios:
        print(f"geomean optimized/original {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} over {len(ratios)} models")


if __name__ == "__main__":
    sys.exit(main())
