#!/usr/bin/python3
"""`jitctl check-trace --save-trace` against torch.jit.trace on the same Python.

For every model of testdata/gen/make_trace_corpus.py: the saved trace must load in PyTorch and give
the scripted model's outputs on the first input set (deterministic models; the others must run); its inlined graph is
compared canonically (compat.py's canonical form, class names aside) with that of
torch.jit.trace(module, in0) saved and loaded. Fails when fewer than MIN_SAME graphs are equal.
Skips (77) without torch or the shared oracle.

    check_saved_trace.py JITCTL SOURCE_ROOT COMPAT_PY MIN_SAME
"""
import difflib, importlib.util, io, os, re, subprocess, sys, tempfile, warnings

import torch_or_skip  # noqa: F401  (exit 77 without torch)
import torch
from seeded_outputs import seeded_outputs


def load_py(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    jit, root, compat_py, min_same = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    if not os.path.exists(compat_py):
        # The canonical graph form lives in the shared oracle, beside the checkout, not in it.
        print(f"skipped: no shared oracle at {compat_py}")
        sys.exit(77)
    compat = load_py("compat", compat_py)
    corpus = load_py("make_trace_corpus", os.path.join(root, "testdata/gen/make_trace_corpus.py"))
    d = os.path.join(root, "testdata/trace")
    tmp = tempfile.mkdtemp(prefix="saved-trace-")
    warnings.simplefilter("ignore")
    strip = lambda g: re.sub(r"__torch__\.[\w.]+", "CLASS", compat.canonical_graph(g))  # noqa: E731
    failures, same, differ = [], 0, []
    for name, (build, _, train) in sorted(corpus.MODELS.items()):
        out = os.path.join(tmp, name + ".pt")
        ins = [os.path.join(d, f"{name}.in{i}.pt") for i in range(2)]
        p = subprocess.run([jit, "check-trace", os.path.join(d, name + ".pt"), "--inputs", ins[0], "--inputs", ins[1],
                            "--save-trace", out], capture_output=True, text=True, timeout=120)
        if p.returncode not in (0, 1) or not os.path.exists(out):
            failures.append(f"{name}: exit {p.returncode}: {p.stderr.strip()[-200:]}")
            continue
        saved = torch.jit.load(out)
        x = torch.load(ins[0])
        model = torch.jit.load(os.path.join(d, name + ".pt"))
        want, again, got = seeded_outputs(model, saved, x)
        if torch.equal(want, again) and not torch.allclose(got, want, rtol=1e-4, atol=1e-5):
            failures.append(f"{name}: the saved trace's outputs differ from the model's")
        torch.manual_seed(0)
        module, inputs = build()
        module.train(train)
        buf = io.BytesIO()
        torch.jit.save(torch.jit.trace(module, inputs[0], check_trace=False), buf)
        buf.seek(0)
        ref, got = strip(str(torch.jit.load(buf).inlined_graph)), strip(str(saved.inlined_graph))
        if ref == got:
            same += 1
        else:
            differ.append(name + "\n" + "\n".join(list(difflib.unified_diff(ref.splitlines(), got.splitlines(), "torch", "jitctl", lineterm="", n=1))[:12]))
    print(f"{same}/{len(corpus.MODELS)} saved traces canonically equal torch.jit.trace's inlined_graph")
    for dd in differ:
        print("differs:", dd)
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures or same < min_same else 0)


if __name__ == "__main__":
    main()
