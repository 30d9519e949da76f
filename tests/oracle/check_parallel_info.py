#!/usr/bin/python3
"""`jitctl parallel-info` against torch.__config__.parallel_info() under the same environment.

For each case (OMP_NUM_THREADS / MKL_NUM_THREADS settings, valid and invalid, and the
--threads / --interop-threads flags, which torch gets as set_num_threads / set_num_interop_threads)
both reports must have the same lines in the same order with the same labels, and the same
values on every line except the OpenMP, MKL and MKL-DNN lines, which say what each build has
(their first word must still be "OpenMP" / "MKL" / "MKL-DNN"). Warnings about invalid variables go to stderr on
both sides and are not compared.
Usage: check_parallel_info.py JITCTL"""
import os, subprocess, sys

sys.path.insert(0, os.path.dirname(__file__))
import torch_or_skip  # noqa: F401,E402

TORCH = """
import sys, torch
t, i = int(sys.argv[1]), int(sys.argv[2])
if t: torch.set_num_threads(t)
if i: torch.set_num_interop_threads(i)
sys.stdout.write(torch.__config__.parallel_info())
"""

CASES = [
    ({}, 0, 0),
    ({"OMP_NUM_THREADS": "1"}, 0, 0),
    ({"OMP_NUM_THREADS": "3"}, 0, 0),
    ({"MKL_NUM_THREADS": "5"}, 0, 0),
    ({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "3"}, 0, 0),
    ({"OMP_NUM_THREADS": "abc"}, 0, 0),
    ({"OMP_NUM_THREADS": "0"}, 0, 0),
    ({"OMP_NUM_THREADS": "4abc"}, 0, 0),
    ({"OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "-1"}, 0, 0),
    ({}, 2, 0),
    ({}, 0, 3),
    ({"OMP_NUM_THREADS": "4", "MKL_NUM_THREADS": "2"}, 3, 2),
]

# Lines whose value is a fact about the build, not a setting.
BUILD_LINES = ("OpenMP", "MKL", "MKL-DNN")


def split(line):
    if line.startswith("OpenMP "):
        return ("OpenMP", None)
    if line.startswith(("MKL not found", "Intel(R) Math Kernel", "Intel(R) oneAPI Math Kernel")):
        return ("MKL", None)
    if line.startswith(("MKL-DNN", "Intel(R) MKL-DNN", "oneDNN")):
        return ("MKL-DNN", None)
    if " : " in line:
        label, value = line.split(" : ", 1)
        return (label, value)
    return (line, None)


def run(argv, env):
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {p.returncode}: {p.stderr.strip()[-300:]}")
    return p.stdout.splitlines()


def main():
    jitctl = sys.argv[1]
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    failures = 0
    for extra, threads, interop in CASES:
        env = dict(base, **extra)
        argv = [jitctl, "parallel-info"]
        if threads:
            argv += ["--threads", str(threads)]
        if interop:
            argv += ["--interop-threads", str(interop)]
        ours = run(argv, env)
        theirs = run([sys.executable, "-c", TORCH, str(threads), str(interop)], env)
        name = f"{extra or 'no env'} threads={threads} interop={interop}"
        problems = []
        if len(ours) != len(theirs):
            problems.append(f"{len(ours)} lines, torch {len(theirs)}")
        for a, b in zip(ours, theirs):
            la, va = split(a)
            lb, vb = split(b)
            if la != lb:
                problems.append(f"line {a!r} vs torch {b!r}")
            elif la not in BUILD_LINES and va != vb:
                problems.append(f"{la.strip()}: {va} vs torch {vb}")
        if problems:
            failures += 1
            print(f"FAIL {name}: " + "; ".join(problems))
        else:
            print(f"ok   {name}")
    print(f"{len(CASES) - failures}/{len(CASES)} cases match")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
