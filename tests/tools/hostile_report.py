#!/usr/bin/env python3
"""Measures the hostile corpus the way issue 15's acceptance words it, and prints the counts.

Every malformed archive of testdata/hostile/expect.json through `jitctl info`, `jitctl dump-graph`
and `jitctl run` (with its model's valid inputs, or as the inputs of its model): exit 2 (3 for a
real unsupported feature, 0 allowed only where expect.json says may_succeed), one clean line on
stderr, no signal, no hang (20 s). Then every model of testdata/hostile/running/ through
`jitctl run M --inputs M.in.pt --timeout 5 --max-memory 2G`: exit 2, one line, how long it took.

    python3 tests/tools/hostile_report.py build/cli/jitctl testdata
"""
import json
import subprocess
import sys
import time
from pathlib import Path

UNSUPPORTED = {"byteorder_big", "rebuild_sparse", "rebuild_qtensor"}


def clean(err):
    try:
        err.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return err.count(b"\n") == 1 and err.endswith(b"\n") and not any(c < 0x20 and c != 0x0a or c == 0x7f for c in err)


def run(argv, timeout):
    t = time.monotonic()
    try:
        r = subprocess.run(argv, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, b"", timeout
    return r.returncode, r.stderr, time.monotonic() - t


def main():
    jitctl, testdata = sys.argv[1], Path(sys.argv[2])
    hostile = testdata / "hostile"
    expect = json.loads((hostile / "expect.json").read_text())
    bases = {e.get("model", "base_valid.pt") for e in expect.values()}
    total = passed = 0
    failures = []
    codes = {}
    for name, e in sorted(expect.items()):
        f = str(hostile / f"{name}.pt")
        model, inputs = str(hostile / e.get("model", "base_valid.pt")), str(hostile / e.get("inputs", "base_inputs_valid.pt"))
        if e["command"] == "run-inputs":
            runs = [[jitctl, "run", model, "--inputs", f]]
        else:
            runs = [[jitctl, "info", f], [jitctl, "dump-graph", f], [jitctl, "run", f, "--inputs", inputs]]
        for argv in runs:
            total += 1
            rc, err, _ = run(argv, 20)
            codes[rc] = codes.get(rc, 0) + 1
            want = 3 if name in UNSUPPORTED else 2
            ok = rc is not None and rc >= 0 and (rc == want or (rc == 0 and e.get("may_succeed")))
            ok = ok and (rc == 0 or (clean(err) and err.startswith(b"jitctl: ") and e["mentions"].encode() in err.lower()))
            passed += ok
            if not ok:
                failures.append(f"{name} [{argv[1]}]: rc={rc} {err[:200]!r}")
    print(f"malformed archives: {len(expect)} files made from {len(bases)} models; {total} runs "
          f"(info, dump-graph, run), {passed} met the contract ({100.0 * passed / total:.1f}%); exit codes "
          + ", ".join(f"{k}: {v}" for k, v in sorted(codes.items(), key=lambda kv: str(kv[0]))))
    for f in failures:
        print("  FAIL", f)
    running = json.loads((hostile / "running" / "running.json").read_text())
    worst = 0
    ok_models = 0
    for name, e in sorted(running.items()):
        d = hostile / "running"
        rc, err, secs = run([jitctl, "run", str(d / f"{name}.pt"), "--inputs", str(d / e["inputs"]), "--timeout", "5",
                             "--max-memory", "2G"], 60)
        ok = rc == 2 and clean(err) and any(m.encode() in err.lower() for m in e["mentions"])
        ok_models += ok
        worst = max(worst, secs)
        print(f"  {'ok  ' if ok else 'FAIL'} {name:16s} exit {rc} in {secs:5.2f} s: {err.decode(errors='replace').strip()}")
    print(f"hostile models: {ok_models}/{len(running)} ended with exit 2 and one line; slowest {worst:.2f} s")
    return 0 if passed == total and ok_models == len(running) else 1


if __name__ == "__main__":
    sys.exit(main())
