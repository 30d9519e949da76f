#!/usr/bin/python3
"""jitctl's latency under libgomp's default (spinning) and passive waiting, side by side.

jitctl re-executes itself with OMP_WAIT_POLICY=PASSIVE when it may use 2+ threads on a busy
machine (cli/wait_policy.h); JITCTL_MACHINE_BUSY=0/1 forces the choice. This runs each model at
THREADS threads under both, in interleaved rounds, and reports the median p50 of each and
passive/spinning, with the load average beside it: on a quiet machine passive waiting should
cost little (it is not chosen there anyway), on a busy one spinning should lose badly.

  python3 tests/bench/wait_policy_side_by_side.py --jitctl build/cli/jitctl \\
      --models /tmp/jitctl-speed [--only resnet18,mobilenet_v2] [--threads 2] [--rounds 5]

Models: NAME.pt and NAME.in0.pt from tests/bench/make_speed_models.py (the plain archives, or
point --suffix at another set, e.g. .frozen.pt).
"""
import argparse, json, os, statistics, subprocess


def p50(jit, model, inputs, threads, busy, iters):
    env = dict(os.environ, JITCTL_MACHINE_BUSY=busy)
    for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT"):
        env.pop(k, None)
    p = subprocess.run([jit, "bench-threads", model, "--inputs", inputs, "--threads", str(threads), "--iters", str(iters), "--rounds", "1",
                        "--format", "json"], capture_output=True, text=True, env=env, timeout=900, check=True)
    return float(json.loads(p.stdout)["rows"][0]["latency_ms"]["p50"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jitctl", required=True)
    ap.add_argument("--models", default="/tmp/jitctl-speed")
    ap.add_argument("--suffix", default=".pt")
    ap.add_argument("--only", default="resnet18,mobilenet_v2,encoder,mlp")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args()
    jit = os.path.abspath(a.jitctl)
    for name in a.only.split(","):
        model, inputs = os.path.join(a.models, name + a.suffix), os.path.join(a.models, name + ".in0.pt")
        spin, passive, loads = [], [], []
        for _ in range(a.rounds):
            loads.append(os.getloadavg()[0])
            spin.append(p50(jit, model, inputs, a.threads, "0", a.iters))
            passive.append(p50(jit, model, inputs, a.threads, "1", a.iters))
        s, p = statistics.median(spin), statistics.median(passive)
        print(f"{name:16s} t={a.threads}  spinning {s:8.2f} ms  passive {p:8.2f} ms  passive/spinning {p / s:6.3f}  "
              f"load {min(loads):.1f}-{max(loads):.1f}", flush=True)


if __name__ == "__main__":
    main()
