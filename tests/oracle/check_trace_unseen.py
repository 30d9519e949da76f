#!/usr/bin/python3
"""`jitctl check-trace` on held-out models (tests/oracle/make_trace_unseen.py) against
torch.jit.trace(check_inputs=...)'s verdicts, through ../shared/oracle/compat.py --checks check_trace.

    check_trace_unseen.py JITCTL COMPAT_PY [--models DIR] [--min-scripted 1.0] [--min-traced 0.8] [--no-vision]

Without --models the cases are generated into a temporary directory first (torch and torchvision
needed; the vision models take a minute or two). Prints compat.py's rows, then the agreement per
archive kind: scripted archives (jitctl traces the code) and traced ones (only the trace is kept;
what it cannot show is listed by check-trace as "cannot tell"). Fails when either share is below
its bar. Skips (77) without torch or the shared oracle.
"""
import argparse, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
import torch_or_skip  # noqa: F401,E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jitctl")
    ap.add_argument("compat")
    ap.add_argument("--models")
    ap.add_argument("--min-scripted", type=float, default=1.0)
    ap.add_argument("--min-traced", type=float, default=0.0)
    ap.add_argument("--no-vision", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(a.compat):
        print(f"SKIP: {a.compat} not found")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="trace-unseen-") as tmp:
        models = a.models
        if not models:
            models = os.path.join(tmp, "models")
            gen = [sys.executable, os.path.join(os.path.dirname(__file__), "make_trace_unseen.py"), models]
            subprocess.run(gen + (["--no-vision"] if a.no_vision else []), check=True)
        report = os.path.join(tmp, "report.json")
        subprocess.run([sys.executable, a.compat, "--jitctl", a.jitctl, "--models", models, "--checks", "check_trace",
                        "--json", report, "--timeout", "300"], check=True)
        rows = json.load(open(report))["models"]
        manifest = json.load(open(os.path.join(models, "manifest.json")))
    failed = False
    for kind, bar in (("scripted", a.min_scripted), ("traced", a.min_traced)):
        names = sorted(n for n in rows if manifest.get(n, {}).get("kind") == kind and not rows[n]["check_trace"].get("skip"))
        agree = [n for n in names if rows[n]["check_trace"]["ok"]]
        print(f"{kind:9} {len(agree)}/{len(names)} agree with torch.jit.trace(check_inputs=...)")
        for n in names:
            if n not in agree:
                print(f"    {n}: {rows[n]['check_trace'].get('why', '')[:200]}")
        if not names or len(agree) < bar * len(names):
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
