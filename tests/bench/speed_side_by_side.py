#!/usr/bin/python3
"""jitctl against PyTorch's best and ONNX Runtime on the issue-12 models, side by side, one run.

Engines, per model and thread count, in interleaved rounds (machine drift hits all alike):
  torch   torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.load(NAME.pt).eval())),
          torch.set_num_threads(t), median of ITERS calls under no_grad after WARMUP calls
  jitctl  `jitctl bench-threads ARCHIVE --inputs NAME.in0.pt --threads t --format json` -> p50,
          ARCHIVE = NAME.frozen.pt (torch-frozen) by default, --archive plain for NAME.pt,
          --archive optimized for `jitctl optimize NAME.pt` written into a temporary folder first
  ort     ONNX Runtime on NAME.onnx (intra-op threads t, sequential, all graph optimizations),
          when --ort-python names an interpreter with onnxruntime (tests/bench/ort_time.py)
Reported: the median over rounds of each engine's per-round median, jitctl/torch and jitctl/ort
per model, and their geometric means (all models, and the "tuned" and "unseen" sets apart).

--stat min reports each engine's fastest call over all rounds instead: on a machine whose cores
are shared with other tenants (per-call times here spread 20-60% above the fastest, for all three
engines, in bursts), the fastest call measures the code rather than the neighbours.

--metric cpu (1 thread only) measures CPU time per call instead of wall time: user+sys of the
process (torch: time.process_time over the timed calls; jitctl: the difference between a run of
WARMUP+ITERS and one of WARMUP calls, from the children's rusage; ort: process_time). On a machine
other jobs keep busy, wall time mostly measures the scheduler; CPU time still measures the work.

--probe BUILD/tests/core_distance labels every engine's round with where the two vCPUs sat while
it ran: the cache-line round trip between them (tests/bench/core_distance.cpp) just before and
just after, "near" when both are below --probe-split ns, "far" when both are above, else mixed.
On VMs whose host moves the vCPUs (this project's), 2-thread calls of every engine slow down in
the far placement, so each row then also reports the statistic over the rounds of one placement
(when every engine has such a round): a comparison between runs that met the same machine.
One-thread rows are not split: their work never crosses between the vCPUs.

Models come from tests/bench/make_speed_models.py. Run with Debian's torch, without the
OPENBLAS_* overrides, as the project's timings are:
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 tests/bench/speed_side_by_side.py \\
      --jitctl build/cli/jitctl --models /tmp/jitctl-speed --ort-python /work/venv-ort/bin/python
"""
import argparse, json, math, os, resource, statistics, subprocess, sys, tempfile, time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def torch_best(path):
    m = torch.jit.load(path).eval()
    return torch.jit.optimize_for_inference(torch.jit.freeze(m))


def torch_ms(m, args, threads, warmup, iters, metric="wall", stat="median"):
    torch.set_num_threads(threads)
    with torch.no_grad():
        for _ in range(warmup):
            m(*args)
        if metric == "cpu":
            t0 = time.process_time()
            for _ in range(iters):
                m(*args)
            return (time.process_time() - t0) / iters * 1e3
        ts = []
        for _ in range(iters):
            t0 = time.perf_counter()
            m(*args)
            ts.append(time.perf_counter() - t0)
    return (min(ts) if stat == "min" else statistics.median(ts)) * 1e3


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def jitctl_cpu_ms(jit, path, inp, warmup, iters):
    # One round: with several, bench-threads repeats the warm-up per round, and the two runs would
    # differ by those extra calls as well.
    base = [jit, "bench-threads", path, "--inputs", inp, "--threads", "1", "--warmup", str(warmup), "--rounds", "1", "--format", "json"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    t0 = children_cpu()
    subprocess.run(base + ["--iters", "1"], capture_output=True, check=True, env=env, timeout=900)
    t1 = children_cpu()
    subprocess.run(base + ["--iters", str(iters + 1)], capture_output=True, check=True, env=env, timeout=900)
    t2 = children_cpu()
    return ((t2 - t1) - (t1 - t0)) / iters * 1e3


def jitctl_ms(jit, path, inp, threads, warmup, iters, stat="median"):
    p = subprocess.run([jit, "bench-threads", path, "--inputs", inp, "--threads", str(threads), "--warmup", str(warmup),
                        "--iters", str(iters), "--format", "json"], capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        raise RuntimeError("jitctl: " + p.stderr.strip()[-300:])
    return float(json.loads(p.stdout)["rows"][0]["latency_ms"]["min" if stat == "min" else "p50"])


def ort_ms(py, onnx, npz, threads, warmup, iters, metric="wall"):
    p = subprocess.run([py, os.path.join(HERE, "ort_time.py"), onnx, npz, str(threads), str(warmup), str(iters), metric],
                       capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        raise RuntimeError("onnxruntime: " + p.stderr.strip()[-300:])
    return json.loads(p.stdout)


def probe(a):
    """The vCPUs' round trip in ns now, or None without --probe."""
    if not a.probe:
        return None
    return float(subprocess.run([a.probe], check=True, capture_output=True, text=True, timeout=60).stdout.split()[0])


def label(a, out, before):
    """Appends the placement an engine's round ran in (from the probes around it); returns the
    probe after it, which is the next round's before."""
    after = probe(a)
    if after is not None:
        out.append("near" if max(before, after) < a.probe_split else "far" if min(before, after) >= a.probe_split else "mixed")
    return after


def by_state(row, tt, jj, oo, states, over_rounds):
    """Adds row["near"] / row["far"]: the statistic over each engine's rounds in that placement,
    when every engine measured has one; prints them."""
    for st in ("near", "far"):
        pick = lambda xs, labels: [x for x, l in zip(xs, labels) if l == st]
        t_, j_, o_ = pick(tt, states["torch"]), pick(jj, states["jitctl"]), pick(oo, states["ort"])
        if not t_ or not j_ or (oo and not o_):
            continue
        r = {"torch_ms": over_rounds(t_), "jitctl_ms": over_rounds(j_), "rounds": [len(t_), len(j_), len(o_)]}
        r["ratio_torch"] = r["jitctl_ms"] / r["torch_ms"]
        line = f"    vCPUs {st:4s} ({len(t_)}/{len(j_)}/{len(o_)} rounds)  jitctl/torch {r['ratio_torch']:6.3f}"
        if o_:
            r["ort_ms"] = over_rounds(o_)
            r["ratio_ort"] = r["jitctl_ms"] / r["ort_ms"]
            line += f"  jitctl {r['jitctl_ms']:8.2f} ms  ort {r['ort_ms']:8.2f} ms  jitctl/ort {r['ratio_ort']:6.3f}"
        row[st] = r
        print(line, flush=True)
    row["vcpu_states"] = states


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jitctl", required=True)
    ap.add_argument("--models", default="/tmp/jitctl-speed")
    ap.add_argument("--archive", choices=["frozen", "plain", "optimized"], default="frozen")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--only", default="")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--ort-python", default="")
    ap.add_argument("--metric", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--stat", choices=["median", "min"], default="median")
    ap.add_argument("--json")
    ap.add_argument("--probe", default="", help="core_distance binary: label rounds by the vCPUs' placement")
    ap.add_argument("--probe-split", type=float, default=200.0, help="round trip (ns) between near and far")
    a = ap.parse_args()
    if a.stat == "min" and a.metric == "cpu":
        ap.error("--stat min is for wall time")
    if a.metric == "cpu" and a.threads != "1":
        ap.error("--metric cpu measures one thread: use --threads 1")
    jit = os.path.abspath(a.jitctl)
    with open(os.path.join(a.models, "models.json")) as f:
        index = json.load(f)
    if a.only:
        index = [e for e in index if e["name"] in set(a.only.split(","))]
    threads = [int(x) for x in a.threads.split(",")]
    tmp = tempfile.mkdtemp(prefix="jitctl-speed-")
    what = {"frozen": "torch-frozen", "plain": "plain", "optimized": "its own `optimize` output of the plain"}[a.archive]
    print(f"torch {torch.__version__}; jitctl runs {what} archives; "
          f"{a.rounds} rounds x {a.iters} iterations, {'CPU time' if a.metric == 'cpu' else 'wall time'} per call"
          f"{', fastest call' if a.stat == 'min' else ''}", flush=True)
    over_rounds = min if a.stat == "min" else statistics.median
    results = []
    for e in index:
        name = e["name"]
        base = os.path.join(a.models, name)
        archive = base + (".frozen.pt" if a.archive == "frozen" else ".pt")
        if a.archive == "optimized":
            archive = os.path.join(tmp, name + ".optimized.pt")
            subprocess.run([jit, "optimize", base + ".pt", "-o", archive], check=True, capture_output=True, timeout=900)
        inp = base + ".in0.pt"
        args = torch.load(inp)
        m = torch_best(base + ".pt")
        onnx = base + ".onnx"
        use_ort = bool(a.ort_python) and os.path.exists(onnx)
        npz = os.path.join(tmp, name + ".npz")
        if use_ort:
            np.savez(npz, **{f"arg{k}": t.numpy() for k, t in enumerate(args)})
        for t in threads:
            tt, jj, oo, ort_version, err = [], [], [], "", ""
            states = {"torch": [], "jitctl": [], "ort": []}  # per round, with --probe
            for _ in range(a.rounds):
                before = probe(a)
                tt.append(torch_ms(m, args, t, a.warmup, a.iters, a.metric, a.stat))
                before = label(a, states["torch"], before)
                try:
                    jj.append(jitctl_cpu_ms(jit, archive, inp, a.warmup, a.iters) if a.metric == "cpu"
                              else jitctl_ms(jit, archive, inp, t, a.warmup, a.iters, a.stat))
                except Exception as ex:
                    err = str(ex)
                    break
                before = label(a, states["jitctl"], before)
                if use_ort:
                    try:
                        r = ort_ms(a.ort_python, onnx, npz, t, a.warmup, a.iters, a.metric)
                        oo.append(r["min"] if a.stat == "min" else r["ms"])
                        ort_version = r["version"]
                        label(a, states["ort"], before)
                    except Exception as ex:
                        print(f"  {name}: {str(ex)[:200]}")
                        use_ort = False
            row = {"name": name, "set": e["set"], "threads": t, "torch_ms": over_rounds(tt)}
            if err:
                row["error"] = err[:300]
                print(f"{name:16s} t={t}  torch {row['torch_ms']:8.2f} ms  jitctl FAILED: {err[:200]}", flush=True)
                results.append(row)
                continue
            row["jitctl_ms"] = over_rounds(jj)
            row["ratio_torch"] = row["jitctl_ms"] / row["torch_ms"]
            line = f"{name:16s} t={t}  torch {row['torch_ms']:8.2f} ms  jitctl {row['jitctl_ms']:8.2f} ms  jitctl/torch {row['ratio_torch']:6.3f}"
            if oo:
                row["ort_ms"] = over_rounds(oo)
                row["ratio_ort"] = row["jitctl_ms"] / row["ort_ms"]
                row["ort_version"] = ort_version
                line += f"  ort {row['ort_ms']:8.2f} ms  jitctl/ort {row['ratio_ort']:6.3f}"
            print(line, flush=True)
            if a.probe and t > 1:  # one thread never crosses between the vCPUs: all its rounds compare
                by_state(row, tt, jj, oo, states, over_rounds)
            results.append(row)
    summary = {}
    for t in threads:
        for group in ("all", "tuned", "unseen"):
            rows = [r for r in results if r["threads"] == t and "jitctl_ms" in r and (group == "all" or r["set"] == group)]
            if not rows:
                continue
            s = {"models": len(rows), "geomean_torch": geomean([r["ratio_torch"] for r in rows]),
                 "max_torch": max(r["ratio_torch"] for r in rows)}
            ort_rows = [r for r in rows if "ratio_ort" in r]
            if ort_rows:
                s["geomean_ort"] = geomean([r["ratio_ort"] for r in ort_rows])
                s["max_ort"] = max(r["ratio_ort"] for r in ort_rows)
            summary[f"{group}@{t}"] = s
            line = f"geomean {group:6s} t={t}: jitctl/torch {s['geomean_torch']:.3f} (max {s['max_torch']:.3f}, {len(rows)} models)"
            if ort_rows:
                line += f"  jitctl/ort {s['geomean_ort']:.3f} (max {s['max_ort']:.3f}, {len(ort_rows)} models)"
            print(line)
            for st in ("near", "far"):
                ratios = [r[st]["ratio_ort"] for r in ort_rows if st in r and "ratio_ort" in r[st]]
                if ratios:
                    s[f"{st}_geomean_ort"], s[f"{st}_max_ort"], s[f"{st}_models"] = geomean(ratios), max(ratios), len(ratios)
                    print(f"  vCPUs {st:4s}: jitctl/ort {geomean(ratios):.3f} (max {max(ratios):.3f}, {len(ratios)} models"
                          f" with rounds of all engines in that placement)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"results": results, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
