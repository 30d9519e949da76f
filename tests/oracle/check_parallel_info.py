#!/usr/bin/python3
"""`jitctl parallel-info` against torch.__config__.parallel_info() under the same environment.

For each case (OMP_NUM_THREADS / MKL_NUM_THREADS settings, valid and invalid, and the
--threads / --interop-threads flags, which torch gets as set_num_threads / set_num_interop_threads)
both reports must have the same lines in the same order with the same labels, and the same
values on every line except the OpenMP, MKL and MKL-DNN lines, which say what each build has
(their first word must still be "OpenMP" / "MKL" / "MKL-DNN"). Warnings about invalid variables go to stderr on
both sides and are not compared. After torch's lines jitctl adds its machine section, which must
start with "Machine:" and give cores, threads per core, instruction set and OpenMP runtime.
`parallel-info --format json` must give torch's numbers too: intra_op_threads ==
torch.get_num_threads(), inter_op_threads == torch.get_num_interop_threads(), omp_get_max_threads
as torch's report prints it, and the two environment variables as set (null when not).
Usage: check_parallel_info.py JITCTL"""
import json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(__file__))
import torch_or_skip  # noqa: F401,E402

TORCH = """
import sys, torch
t, i = int(sys.argv[1]), int(sys.argv[2])
if t: torch.set_num_threads(t)
if i: torch.set_num_interop_threads(i)
sys.stdout.write(torch.__config__.parallel_info())
sys.stdout.write("numbers %d %d\\n" % (torch.get_num_threads(), torch.get_num_interop_threads()))
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
        numbers = theirs.pop().split()
        torch_threads, torch_interop = int(numbers[1]), int(numbers[2])
        name = f"{extra or 'no env'} threads={threads} interop={interop}"
        problems = []
        machine = ours[len(theirs):]
        ours = ours[:len(theirs)]
        if len(ours) != len(theirs):
            problems.append(f"{len(ours)} lines, torch {len(theirs)}")
        if not machine or machine[0] != "Machine:":
            problems.append(f"no machine section after torch's lines: {machine[:1]}")
        for label in ("\tcores : ", "\tthreads per core : ", "\tinstruction set : ", "\tOpenMP runtime : "):
            if not any(line.startswith(label) for line in machine):
                problems.append(f"machine section lacks {label.strip()}")
        j = json.loads("\n".join(run(argv + ["--format", "json"], env)))
        torch_omp = next(b.split(" : ", 1)[1] for b in theirs if "omp_get_max_threads()" in b)
        for key, want in (("intra_op_threads", torch_threads), ("inter_op_threads", torch_interop),
                          ("omp_get_max_threads", int(torch_omp))):
            if j[key] != want:
                problems.append(f"json {key} {j[key]}, torch {want}")
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            if j["environment"][var] != env.get(var):
                problems.append(f"json environment {var} {j['environment'][var]!r}, set {env.get(var)!r}")
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
