#!/usr/bin/env python3
"""Runs the libFuzzer targets of tests/fuzz for a set time each and keeps what they find.

    CC=clang-14 CXX=clang++-14 meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \\
        -Db_lundef=false --buildtype=plain -Doptimization=1 -Dcpp_args=-gline-tables-only \\
        -Dnative=false -Dcuda=disabled
    python3 tests/fuzz/run_fuzzers.py --seconds 600 [--targets zip,run] [--build build-fuzz]

Each target runs alone (one core) for --seconds with AddressSanitizer, UBSan (halting on the first
report) and LeakSanitizer on, a per-input -timeout and a -max_len fitting its input kind. The
seed corpora are made by make_seeds.py under WORK/seeds (once); what a run adds to the corpus goes
to WORK/corpus/<target>, logs to WORK/<target>.log. Every crasher, timeout, leak or out-of-memory
input found is copied to tests/fuzz/regressions/<target>/ (replayed by `meson test --suite fuzz`
from then on). Prints one line per target -- executions, coverage, result -- and exits 1 when any
target found something.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# target: (-max_len, -timeout in seconds). Archives are up to 64 KiB (make_seeds.py --max-archive)
# plus the input-spec record of the run seeds; the timeouts are far above any legitimate input
# (the run target bounds its own work).
TARGETS = {
    "zip": (70000, 10),
    "unpickle": (16384, 10),
    "parser": (16384, 10),
    "type": (512, 10),
    "debug_pkl": (16384, 10),
    "graph_text": (16384, 10),
    "load_print": (70000, 20),
    "run": (70000, 20),
}
FINDINGS = ("crash-", "timeout-", "leak-", "oom-")
# Tokens of the input's language (dicts/*.dict), for the targets that read text or pickles.
DICTS = {"unpickle": "unpickle", "debug_pkl": "unpickle", "parser": "parser", "type": "graph_text",
         "graph_text": "graph_text"}


def sanitizer_env():
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=1:allocator_may_return_null=0:detect_stack_use_after_return=0"
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    env["OMP_NUM_THREADS"] = "1"
    env["OPENBLAS_NUM_THREADS"] = "1"
    return env


def stats(log: str):
    """Executions and coverage from libFuzzer's log (its last status line and final stats)."""
    execs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", log)
    # "#1234\tNEW    cov: ..." in the normal mode, "#1234: cov: ..." in fork mode.
    lines = re.findall(r"^#(\d+):?\s+(?:\w+\s+)?cov: (\d+) ft: (\d+) corp: (\d+)", log, re.M)
    out = {"execs": int(execs[-1]) if execs else (int(lines[-1][0]) if lines else 0)}
    if lines:
        out.update(cov=int(lines[-1][1]), ft=int(lines[-1][2]), corpus=int(lines[-1][3]))
    rate = re.findall(r"stat::average_exec_per_sec:\s*(\d+)", log)
    if rate:
        out["exec_per_s"] = int(rate[-1])
    return out


def run_target(name, args, work: Path):
    max_len, timeout = TARGETS[name]
    binary = Path(args.build) / "tests" / "fuzz" / f"fuzz_{name}"
    if not binary.exists():
        sys.exit(f"{binary}: not built (ninja -C {args.build} tests/fuzz/fuzz_{name})")
    corpus = work / "corpus" / name
    artifacts = work / "artifacts" / name
    regressions = HERE / "regressions" / name
    for d in (corpus, artifacts):
        d.mkdir(parents=True, exist_ok=True)
    before = set(artifacts.iterdir())
    dirs = [corpus, work / "seeds" / name] + ([regressions] if regressions.is_dir() else [])
    cmd = [str(binary), f"-max_total_time={args.seconds}", f"-max_len={max_len}", f"-timeout={timeout}",
           "-rss_limit_mb=2560", "-detect_leaks=1", "-print_final_stats=1", "-print_funcs=0", f"-artifact_prefix={artifacts}/"]
    if name in DICTS:
        cmd.append(f"-dict={HERE / 'dicts' / (DICTS[name] + '.dict')}")
    if args.keep_going:
        cmd += ["-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1"]
    cmd += [str(d) for d in dirs]
    log_path = work / f"{name}.log"
    start = time.time()
    with open(log_path, "w") as log:
        log.write(" ".join(cmd) + "\n")
        log.flush()
        rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT, env=sanitizer_env())
    wall = time.time() - start
    found = sorted(p for p in set(artifacts.iterdir()) - before if p.name.startswith(FINDINGS))
    for p in found:
        regressions.mkdir(parents=True, exist_ok=True)
        shutil.copy(p, regressions / p.name)
    s = stats(log_path.read_text(errors="replace"))
    result = "ok" if rc == 0 and not found else f"FOUND {len(found)} ({', '.join(p.name for p in found)}; exit {rc})"
    if rc != 0 and not found:
        result = f"FAILED (exit {rc}, nothing kept: see {log_path})"
    line = (f"{name}: {wall:.0f}s, {s.get('execs', 0)} executions ({s.get('exec_per_s', '?')}/s), "
            f"cov {s.get('cov', '?')}, features {s.get('ft', '?')}, corpus {s.get('corpus', '?')}: {result}")
    print(line, flush=True)
    with open(work / "summary.txt", "a") as f:
        f.write(time.strftime("%Y-%m-%d %H:%M:%S ") + line + "\n")
    return rc == 0 and not found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=60, help="time per target (default 60)")
    ap.add_argument("--targets", default=",".join(TARGETS), help="comma-separated (default: all)")
    ap.add_argument("--build", default=str(ROOT / "build-fuzz"), help="the -Dfuzz=true build folder")
    ap.add_argument("--work", default="/tmp/fuzz", help="seeds, corpora, artifacts and logs (default /tmp/fuzz)")
    ap.add_argument("--keep-going", action="store_true",
                    help="fork mode: go on after a finding (every finding is still kept)")
    args = ap.parse_args()
    work = Path(args.work)
    names = [t for t in args.targets.split(",") if t]
    for t in names:
        if t not in TARGETS:
            sys.exit(f"unknown target {t}; targets: {', '.join(TARGETS)}")
    if not (work / "seeds").is_dir():
        subprocess.check_call([sys.executable, str(HERE / "make_seeds.py"), str(work / "seeds")], stdout=subprocess.DEVNULL)
    ok = True
    for t in names:
        ok = run_target(t, args, work) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
