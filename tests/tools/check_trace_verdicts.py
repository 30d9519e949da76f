#!/usr/bin/env python3
"""`jitctl check-trace` against PyTorch's verdicts (no torch needed: the verdicts are goldens).

For every archive with a "trace_verdict" in testdata/trace/manifest.json (scripted models, verdict of
torch.jit.trace(check_inputs=...) on their Python, written by testdata/gen/make_trace_corpus.py) and
testdata/models/manifest.json (traced archives, make_corpus.py): exit 0 iff the verdict is "ok", 1
otherwise. Also: the reference's loop_in_traced_fn shows its extra aten::select/aten::mul as added
lines, --format json and junit are well formed, and a missing input file is exit 2. And `jitctl diff`
on testdata/trace/diff's re-exports.

    check_trace_verdicts.py JITCTL SOURCE_ROOT
"""
import json, os, re, subprocess, sys
import xml.etree.ElementTree as ET


def inputs_of(d, name):
    files = sorted((f for f in os.listdir(d) if re.fullmatch(re.escape(name) + r"\.in\d+\.pt", f)),
                   key=lambda f: int(re.search(r"\.in(\d+)\.pt$", f).group(1)))
    return [os.path.join(d, f) for f in files]


def check_trace(jit, model, inputs, *extra):
    cmd = [jit, "check-trace", model, *extra]
    for i in inputs:
        cmd += ["--inputs", i]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def main():
    jit, root = sys.argv[1], sys.argv[2]
    failures, n = [], 0
    for sub in ("testdata/trace", "testdata/models"):
        d = os.path.join(root, sub)
        manifest = json.load(open(os.path.join(d, "manifest.json")))
        for name, meta in sorted(manifest.items()):
            verdict = meta.get("trace_verdict")
            ins = inputs_of(d, name)
            if not verdict or len(ins) < 2:
                continue
            if name == "trace_outputs_differ_traced":
                continue  # a branch on the data leaves nothing in a traced archive (README: check-trace)
            n += 1
            p = check_trace(jit, os.path.join(d, name + ".pt"), ins)
            if p.returncode != (0 if verdict == "ok" else 1):
                failures.append(f"{sub}/{name}: torch says {verdict}, jitctl exit {p.returncode}: {p.stderr.strip()[-200:]}")

    d = os.path.join(root, "testdata/trace")
    loop = os.path.join(d, "loop_in_traced_fn.pt")
    ins = inputs_of(d, "loop_in_traced_fn")
    p = check_trace(jit, loop, ins)
    added = [l for l in p.stdout.splitlines() if l.startswith("+ ")]
    if "Graphs differed across invocations!" not in p.stdout or not any("aten::select" in l for l in added) \
            or not any("aten::mul" in l for l in added) or not all(re.search(r"#\s\S+:\d+$", l) for l in added if "return" not in l):
        failures.append("loop_in_traced_fn: the diff does not show the extra aten::select/aten::mul with file:line:\n" + p.stdout)
    p = check_trace(jit, loop, ins, "--format", "json")
    try:
        j = json.loads(p.stdout)
        if j.get("verdict") != "graphs_differ":
            failures.append(f"json verdict {j.get('verdict')!r}")
    except ValueError as e:
        failures.append(f"--format json: {e}")
    p = check_trace(jit, loop, ins, "--format", "junit")
    try:
        cases = ET.fromstring(p.stdout).iter("testcase")
        if len(list(cases)) != len(ins):
            failures.append("--format junit: not one test case per input set")
    except ET.ParseError as e:
        failures.append(f"--format junit: {e}")
    p = check_trace(jit, loop, [ins[0], os.path.join(d, "no_such_file.pt")])
    if p.returncode != 2 or len(p.stderr.strip().splitlines()) != 1:
        failures.append(f"missing input: exit {p.returncode}, stderr {p.stderr!r}")

    # jitctl diff: an archive with itself is equal (exit 0); a re-export with one layer
    # re-initialized names that layer's tensors and only them (exit 1); a changed forward shows its graph.
    ff = os.path.join(d, "feed_forward.pt")
    p = subprocess.run([jit, "diff", ff, ff], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        failures.append(f"diff of an archive with itself: exit {p.returncode}: {p.stdout}{p.stderr}")
    p = subprocess.run([jit, "diff", ff, os.path.join(d, "diff", "feed_forward_relayer.pt"), "--format", "json"],
                       capture_output=True, text=True, timeout=60)
    try:
        j = json.loads(p.stdout)
        changed = sorted(t["name"] for t in j["tensors"])
        if p.returncode != 1 or changed != ["net.2.bias", "net.2.weight"] or j["methods"]:
            failures.append(f"diff relayer: exit {p.returncode}, changed {changed}, methods {j['methods']}")
    except (ValueError, KeyError) as e:
        failures.append(f"diff --format json: {e}: {p.stdout[:200]}")
    p = subprocess.run([jit, "diff", ff, os.path.join(d, "diff", "feed_forward_gelu.pt"), "--inline"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 1 or not re.search(r"^-.*aten::relu", p.stdout, re.M) or not re.search(r"^\+.*aten::gelu", p.stdout, re.M):
        failures.append(f"diff gelu --inline: exit {p.returncode}:\n{p.stdout}")

    for f in failures:
        print("FAIL", f)
    print(f"{n - len([f for f in failures if 'torch says' in f])}/{n} verdicts agree with torch")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
