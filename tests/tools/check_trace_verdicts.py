#!/usr/bin/env python3
"""`jitctl check-trace` against PyTorch's verdicts (no torch needed: the verdicts are goldens).

For every archive with a "trace_verdict" in testdata/trace/manifest.json (scripted models, verdict of
torch.jit.trace(check_inputs=...) on their Python, written by testdata/gen/make_trace_corpus.py) and
testdata/models/manifest.json (traced archives, make_corpus.py): exit 0 iff the verdict is "ok", 1
otherwise. Also: the reference's loop_in_traced_fn shows its extra aten::select/aten::mul as added
lines and hunk headers with each side's lines, --format json and junit are well formed (JUnit
test cases with their elapsed time), and a missing input file is exit 2. And `jitctl diff` on
testdata/trace/diff's re-exports: each names its one change (a re-initialized layer, one weight
value, an added buffer, the forward's code, a replaced submodule) and nothing else.

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
    text = p.stdout
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
    # Hunk headers carry both sides' lines (the extra iteration: 4 lines of the first trace from
    # line 15 against 8 of the second), as diff -u writes them.
    headers = re.findall(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$", text, re.M)
    if not headers or any(a == c and (b or "1") == (d or "1") for a, b, c, d in headers):
        failures.append(f"loop_in_traced_fn: hunk headers {headers} do not give each side its own lines")
    p = check_trace(jit, loop, ins, "--format", "junit")
    try:
        cases = list(ET.fromstring(p.stdout).iter("testcase"))
        if len(cases) != len(ins):
            failures.append("--format junit: not one test case per input set")
        if not all(float(c.get("time", "0")) > 0 for c in cases):
            failures.append(f"--format junit: a test case without its elapsed time: {[c.get('time') for c in cases]}")
    except (ET.ParseError, ValueError) as e:
        failures.append(f"--format junit: {e}")
    p = check_trace(jit, loop, [ins[0], os.path.join(d, "no_such_file.pt")])
    if p.returncode != 2 or len(p.stderr.strip().splitlines()) != 1:
        failures.append(f"missing input: exit {p.returncode}, stderr {p.stderr!r}")

    # jitctl diff: an archive with itself is equal (exit 0); each re-export of feed_forward with one
    # change exits 1 and names that change and nothing else.
    ff = os.path.join(d, "feed_forward.pt")
    p = subprocess.run([jit, "diff", ff, ff], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        failures.append(f"diff of an archive with itself: exit {p.returncode}: {p.stdout}{p.stderr}")

    def diff_json(other, *extra):
        p = subprocess.run([jit, "diff", ff, os.path.join(d, "diff", other), "--format", "json", *extra],
                           capture_output=True, text=True, timeout=60)
        try:
            return p.returncode, json.loads(p.stdout)
        except ValueError as e:
            failures.append(f"diff {other} --format json: {e}: {p.stdout[:200]}{p.stderr[:200]}")
            return p.returncode, {"tensors": [], "modules": [], "methods": []}

    def summary(j):
        return (sorted((t["name"], t["change"]) for t in j["tensors"]),
                sorted((m["path"], m["change"], m["name"]) for m in j["modules"]),
                sorted((m["name"], m["change"]) for m in j["methods"]))

    expected = {
        "feed_forward_relayer.pt": ([("net.2.bias", "values"), ("net.2.weight", "values")], [], []),
        "feed_forward_weight.pt": ([("net.0.weight", "values")], [], []),
        "feed_forward_buffer.pt": ([("offset", "added")], [], []),
        "feed_forward_code.pt": ([], [], [("forward", "graph")]),
        # ReLU -> GELU: a new module (in training mode: nn.GELU() was made after .eval()).
        "feed_forward_gelu.pt": ([], [("net.1", "attribute", "training"), ("net.1", "class", "")],
                                 [("net.1.forward", "graph"), ("net.forward", "graph")]),
    }
    for other, want in expected.items():
        rc, j = diff_json(other)
        if rc != 1 or summary(j) != want:
            failures.append(f"diff {other}: exit {rc}, changes {summary(j)}, expected {want}")
    rc, j = diff_json("feed_forward_gelu.pt", "--inline")
    graphs = "".join(m["diff"] for m in j["methods"])
    if rc != 1 or not re.search(r"^-.*aten::relu", graphs, re.M) or not re.search(r"^\+.*aten::gelu", graphs, re.M) \
            or [m["name"] for m in j["methods"]] != ["forward"]:
        failures.append(f"diff gelu --inline: exit {rc}: {j['methods']}")
    p = subprocess.run([jit, "diff", ff, os.path.join(d, "diff", "feed_forward_code.pt")], capture_output=True, text=True, timeout=60)
    if p.returncode != 1 or not re.search(r"^-.*log_softmax", p.stdout, re.M) or not re.search(r'^\+.*name="softmax"', p.stdout, re.M):
        failures.append(f"diff code: the changed call is not shown:\n{p.stdout}")

    for f in failures:
        print("FAIL", f)
    print(f"{n - len([f for f in failures if 'torch says' in f])}/{n} verdicts agree with torch")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
