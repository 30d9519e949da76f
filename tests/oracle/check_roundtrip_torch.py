#!/usr/bin/python3
"""Every corpus archive written back by `jitctl optimize M -o OUT --passes none` must load in
PyTorch (torch.jit.load), print PyTorch's graph and code for M, and compute PyTorch's outputs
(testdata/golden*/NAME/out*.pt on the input sets NAME.in*.pt, rtol 1e-4, atol 1e-5; a model saved
in training mode, which optimize switches to eval mode, against itself in eval mode).

Usage: check_roundtrip_torch.py JITCTL TESTDATA [OPTIMIZE ARGS...]  (default: --passes none)
With passes that rewrite graphs, the outputs are compared, and the graph `jitctl dump-graph` reads
from the written archive with the one PyTorch reads.
Skips (exit 77) without torch. An archive of testdata/models_torch2 that torch 1.13 itself cannot
load is reported and not counted."""
import copy, glob, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
import torch_or_skip  # noqa: F401,E402
import torch  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


def to_plain(x):
    """As the goldens were saved: NamedTuples as plain tuples."""
    if isinstance(x, tuple):
        return tuple(to_plain(v) for v in x)
    if isinstance(x, list):
        return [to_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: to_plain(v) for k, v in x.items()}
    return x


def close(a, b, path="out"):
    """None when a (the written archive's result) matches b (PyTorch's golden), else why not."""
    if isinstance(b, torch.Tensor):
        if not isinstance(a, torch.Tensor):
            return f"{path}: expected a Tensor, got {type(a).__name__}"
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{path}: {a.dtype}{list(a.shape)} != {b.dtype}{list(b.shape)}"
        if a.dtype.is_floating_point or a.dtype.is_complex:
            ok = torch.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)
        else:
            ok = torch.equal(a, b)
        return None if ok else f"{path}: values differ"
    if isinstance(b, (list, tuple)):
        if not isinstance(a, (list, tuple)) or len(a) != len(b):
            return f"{path}: expected a sequence of {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            why = close(x, y, f"{path}[{i}]")
            if why:
                return why
        return None
    if isinstance(b, dict):
        if not isinstance(a, dict) or list(a.keys()) != list(b.keys()):
            return f"{path}: dict keys differ"
        for k in b:
            why = close(a[k], b[k], f"{path}[{k!r}]")
            if why:
                return why
        return None
    if isinstance(b, float) and isinstance(a, (int, float)):
        return None if abs(a - b) <= ATOL + RTOL * abs(b) else f"{path}: {a} != {b}"
    return None if a == b else f"{path}: {a!r} != {b!r}"


def read(path):
    with open(path) as f:
        return f.read().rstrip()


def graph_text(text):
    """warn_id is a per-process counter of torch: the same graph loaded twice numbers it anew."""
    return re.sub(r"warn_id=\d+", "warn_id=N", str(text).rstrip())


def check(jitctl, model, golden, tmp, args, passes_run):
    """None when the written archive is right, "skip: ..." or a failure reason otherwise."""
    name = os.path.basename(model)[:-3]
    try:
        original = torch.jit.load(model)
    except Exception as e:  # a torch 2.x archive this torch cannot read
        first = next((line for line in str(e).splitlines() if line.strip()), type(e).__name__)
        return f"skip: torch {torch.__version__} cannot load the original ({first.strip()[:120]})"
    out = os.path.join(tmp, name + ".pt")
    p = subprocess.run([jitctl, "optimize", model, "-o", out, *args], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return f"jitctl optimize exit {p.returncode}: {p.stderr.strip()[-300:]}"
    try:
        written = torch.jit.load(out)
    except Exception as e:
        return f"torch.jit.load rejects the written archive: {str(e)[:300]}"
    if passes_run:
        # Rewritten code and debug records: jitctl and PyTorch read the same graph from them,
        # `# file:line:col` comments included.
        g = subprocess.run([jitctl, "dump-graph", out], capture_output=True, text=True, timeout=300)
        if g.returncode != 0:
            return f"jitctl dump-graph of the written archive: exit {g.returncode}: {g.stderr.strip()[-300:]}"
        if graph_text(g.stdout) != graph_text(written.graph):
            return "jitctl and torch read different graphs from the written archive"
        return compare_outputs(written, original, model, golden)
    # Nothing was rewritten: the graph and code PyTorch shows for the written archive are the original's.
    if graph_text(written.graph) != graph_text(original.graph):
        return "its graph differs from the original's"
    if written.code != original.code:
        return "its code differs from the original's"
    if os.path.exists(os.path.join(golden, "graph.txt")) and "torch2" not in golden:
        if graph_text(written.graph) != graph_text(read(os.path.join(golden, "graph.txt"))):
            return "its graph differs from golden graph.txt"
    return compare_outputs(written, original, model, golden)


def compare_outputs(written, original, model, golden):
    name = os.path.basename(model)[:-3]
    # optimize puts modules in eval mode (as optimize_for_inference does); the goldens are the
    # outputs of the module as saved, so a module saved in training mode is compared with itself
    # in eval mode instead.
    same_mode = written.training == original.training
    if not same_mode:
        original.train(written.training)
    inputs = sorted(glob.glob(os.path.join(os.path.dirname(model), name + ".in*.pt")))
    for i, inp in enumerate(inputs):
        want_path = os.path.join(golden, f"out{i}.pt")
        if not os.path.exists(want_path):
            continue
        with torch.no_grad():
            got = to_plain(written(*copy.deepcopy(torch.load(inp))))
            want = torch.load(want_path) if same_mode else to_plain(original(*copy.deepcopy(torch.load(inp))))
        why = close(got, want)
        if why:
            return f"input {i}: {why}"
    return None


def main():
    jitctl, testdata = sys.argv[1], sys.argv[2]
    args = sys.argv[3:] or ["--passes", "none"]
    passes_run = "none" not in args
    passed, failed, skipped = 0, 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for models, golden in (("models", "golden"), ("models_torch2", "golden_torch2")):
            for model in sorted(glob.glob(os.path.join(testdata, models, "*.pt"))):
                if re.search(r"\.in\d+\.pt$", model):
                    continue
                name = os.path.basename(model)[:-3]
                why = check(jitctl, model, os.path.join(testdata, golden, name), tmp, args, passes_run)
                if why is None:
                    passed += 1
                elif why.startswith("skip"):
                    skipped += 1
                    print(f"{models}/{name}: {why}")
                else:
                    failed += 1
                    print(f"FAIL {models}/{name}: {why}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
