#!/usr/bin/python3
"""Time and peak memory from process start to the first output: `jitctl run M --inputs I`
against a Python process doing torch.jit.load(M) + one call under no_grad, each a fresh
process, measured from outside (wall time of the process, peak RSS from wait4's rusage).
Several interleaved rounds; medians.

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 tests/bench/first_output.py \\
      --jitctl build/cli/jitctl --model /tmp/jitctl-speed/resnet18.pt --inputs /tmp/jitctl-speed/resnet18.in0.pt
"""
import argparse, os, statistics, subprocess, sys, time

TORCH = """
import torch
m = torch.jit.load({model!r})
a = torch.load({inputs!r})
with torch.no_grad():
    y = m(*a)
"""


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd[0]} failed: {p.stderr.read().decode()[-300:]}")
    return wall, ru.ru_maxrss / 1024.0  # KiB -> MiB


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jitctl", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    env_threads = str(a.threads)
    os.environ["OMP_NUM_THREADS"] = env_threads
    jit = [a.jitctl, "run", a.model, "--inputs", a.inputs, "--threads", env_threads]
    torch_cmd = ["/usr/bin/python3", "-c", TORCH.format(model=a.model, inputs=a.inputs)]
    js, ts = [], []
    for _ in range(a.rounds):
        js.append(run(jit))
        ts.append(run(torch_cmd))
    for name, rs in (("jitctl run", js), ("torch.jit.load + first call", ts)):
        print(f"{name:28s} {statistics.median(r[0] for r in rs) * 1e3:8.0f} ms  peak RSS {statistics.median(r[1] for r in rs):7.1f} MiB")


if __name__ == "__main__":
    main()
