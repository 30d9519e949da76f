#!/usr/bin/python3
"""`jitctl check-trace` on held-out models (tests/oracle/make_trace_unseen.py) against
torch.jit.trace(check_inputs=...)'s verdicts, through ../shared/oracle/compat.py --checks check_trace.

    check_trace_unseen.py JITCTL COMPAT_PY [--models DIR] [--min-scripted 1.0] [--min-traced 0.8]
                          [--min-saved 0.9] [--no-vision]

Without --models the cases are generated into a temporary directory first (torch and torchvision
needed; the vision models take a minute or two). Prints compat.py's rows, then the agreement per
archive kind: scripted archives (jitctl traces the code) and traced ones (only the trace is kept;
what it cannot show is listed by check-trace as "cannot tell"). Fails when either share is below
its bar. Then --save-trace on every scripted archive NAME_s.pt: the saved trace must load in torch
and give the model's outputs on the first input set (models that do not sample), and its inlined
graph is compared canonically (compat.py's form, class names aside) with that of NAME_t.pt, which
is torch.jit.trace of the same Python on the same input set; fails when fewer than --min-saved of
them are equal. Skips (77) without torch or the shared oracle.
"""
import argparse, difflib, importlib.util, json, os, re, subprocess, sys, tempfile, warnings

sys.path.insert(0, os.path.dirname(__file__))
import torch_or_skip  # noqa: F401,E402
from seeded_outputs import seeded_outputs  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jitctl")
    ap.add_argument("compat")
    ap.add_argument("--models")
    ap.add_argument("--min-scripted", type=float, default=1.0)
    ap.add_argument("--min-traced", type=float, default=0.0)
    ap.add_argument("--min-saved", type=float, default=0.0)
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
        saved_ok = saved_traces(a.jitctl, a.compat, models, manifest, tmp)
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
    same, total, problems = saved_ok
    print(f"saved     {same}/{total} saved traces' inlined graphs canonically equal torch.jit.trace's")
    for p in problems:
        print(f"    {p}")
    if total == 0 or same < a.min_saved * total or any(p.startswith("FAIL") for p in problems):
        failed = True
    sys.exit(1 if failed else 0)


def saved_traces(jitctl, compat_py, models, manifest, tmp):
    import torch
    spec = importlib.util.spec_from_file_location("compat", compat_py)
    compat = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compat)
    strip = lambda g: re.sub(r"__torch__\.[\w.]+", "CLASS", compat.canonical_graph(g))  # noqa: E731
    warnings.simplefilter("ignore")
    same, total, problems = 0, 0, []
    for name in sorted(manifest):
        if manifest[name]["kind"] != "scripted" or name[:-2] + "_t" not in manifest:
            continue
        base = name[:-2]
        ins = sorted(f for f in os.listdir(models) if re.fullmatch(re.escape(name) + r"\.in\d+\.pt", f))
        out = os.path.join(tmp, base + ".saved.pt")
        cmd = [jitctl, "check-trace", os.path.join(models, name + ".pt"), "--save-trace", out]
        for i in ins:
            cmd += ["--inputs", os.path.join(models, i)]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        total += 1
        if p.returncode not in (0, 1) or not os.path.exists(out):
            problems.append(f"FAIL {base}: exit {p.returncode}: {p.stderr.strip()[-200:]}")
            continue
        saved = torch.jit.load(out)
        x = torch.load(os.path.join(models, ins[0]))
        model = torch.jit.load(os.path.join(models, name + ".pt"))
        want, again, got = seeded_outputs(model, saved, x)
        if compat.close(want, again) is None and compat.close(got, want) is not None:
            problems.append(f"FAIL {base}: the saved trace's outputs differ from the model's: {compat.close(got, want)}")
        ref = strip(str(torch.jit.load(os.path.join(models, base + "_t.pt")).inlined_graph))
        mine = strip(str(saved.inlined_graph))
        if ref == mine:
            same += 1
        else:
            diff = list(difflib.unified_diff(ref.splitlines(), mine.splitlines(), "torch", "jitctl", lineterm="", n=0))
            problems.append(f"{base}: " + " | ".join(diff[2:8]))
    return same, total, problems


if __name__ == "__main__":
    main()
