#!/usr/bin/python3
"""`jitctl optimize`'s own rewrites (passes with no PyTorch counterpart: fold-tensor-queries,
eliminate-dead-branches, simplify-arithmetic, remove-no-op-conversions) and
`--freeze --pipeline optimize-for-inference` (FrozenLinearTranspose) on small modules written for
them, scripted and traced: PyTorch 1.13 must load every written archive and compute the
original's outputs (rtol 1e-4, atol 1e-5) on two input sets, and the nodes the rewrites are for
must be gone from the graph torch reads -- while the ones they must keep stay. For
optimize-for-inference on models without convolutions (where torch's own pass would make MKLDNN
ops), the graph torch reads must also equal torch.jit.optimize_for_inference's, saved and loaded,
in compat.py's canonical form.

Usage: check_optimize_rewrites.py JITCTL   (skips, exit 77, without torch)"""
import os, re, subprocess, sys, tempfile
from typing import List

sys.path.insert(0, os.path.dirname(__file__))
import torch_or_skip  # noqa: F401,E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

JIT = sys.argv[1]
torch.manual_seed(0)


class Checks(torch.nn.Module):
    """Rank and dtype checks after a conv, identities, no-op conversions."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3)
        self.bn = torch.nn.BatchNorm2d(6)
        self.fc = torch.nn.Linear(6 * 6 * 6, 5)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        if y.dim() < 3:  # rank 3 or 4 after a conv2d: never true
            raise ValueError("rank")
        if len(y.size()) > 5:
            raise ValueError("rank")
        y = y.to(torch.float32) * 1.0
        y = y / 1 - 0.0
        z = torch.flatten(y, 1)
        z = z.contiguous().contiguous()
        z = torch.flatten(z, 1)  # one dim of a 2-D tensor: returns z
        if z.is_floating_point():
            z = z + 0
        else:
            z = z - 1
        return self.fc(z)


class Squeeze(torch.nn.Module):
    """An SE block: F.adaptive_avg_pool2d's own rank check, in scripted code."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, 1)
        self.fc1 = torch.nn.Conv2d(8, 2, 1)
        self.fc2 = torch.nn.Conv2d(2, 8, 1)

    def forward(self, x):
        y = F.relu(self.conv(x))
        s = F.adaptive_avg_pool2d(y, 1)
        s = torch.sigmoid(self.fc2(F.relu(self.fc1(s))))
        return y * s


class Flagged(torch.nn.Module):
    """One condition checked twice: after the check that raises, the second is decided."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x, strict: bool):
        if strict:
            raise RuntimeError("strict mode is not supported")
        y = self.fc(x)
        if strict:
            y = y * 2.0
        else:
            y = torch.relu(y)
        if not strict:
            y = y + 1.0
        return y


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Dropout(0.2),
                                       torch.nn.Linear(16, 3))

    def forward(self, x):
        return self.net(x)


def randomize(m):
    for mod in m.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.5, 0.5)
            mod.running_var.uniform_(0.5, 2.0)
    return m.eval()


# name, module, input sets, how, [jitctl args], kinds that must be gone, kinds that must stay
CASES = [
    ("checks", Checks, [(torch.randn(2, 3, 8, 8),), (torch.randn(1, 3, 8, 8),)], "script", [],
     ["prim::RaiseException", "aten::dim", "aten::len", "aten::to", "aten::mul", "aten::div", "aten::sub", "aten::add",
      "aten::is_floating_point", "aten::batch_norm"], ["aten::contiguous", "aten::linear"]),
    ("checks", Checks, [(torch.randn(2, 3, 8, 8),), (torch.randn(1, 3, 8, 8),)], "trace", [],
     ["aten::to", "aten::mul", "aten::div", "aten::sub", "aten::add", "aten::batch_norm"], ["aten::contiguous"]),
    ("squeeze", Squeeze, [(torch.randn(2, 4, 5, 5),), (torch.randn(4, 5, 5),)], "script", [],
     ["prim::RaiseException", "aten::len"], ["aten::adaptive_avg_pool2d"]),
    ("flagged", Flagged, [(torch.randn(3, 4), False), (torch.randn(2, 4), False)], "script", [],
     ["aten::mul", "aten::__not__"], ["prim::RaiseException", "aten::relu", "aten::add"]),
    ("mlp_transposed", Mlp, [(torch.randn(4, 8),), (torch.randn(1, 8),)], "trace",
     ["--freeze", "--pipeline", "optimize-for-inference"], ["aten::linear", "aten::dropout"], ["aten::matmul"]),
    ("mlp_transposed", Mlp, [(torch.randn(4, 8),), (torch.randn(1, 8),)], "script",
     ["--freeze", "--pipeline", "optimize-for-inference"], ["aten::linear", "aten::dropout"], ["aten::matmul"]),
]


def kinds(graph):
    out = set()

    def walk(block):
        for n in block.nodes():
            out.add(n.kind())
            for b in n.blocks():
                walk(b)
    walk(graph)
    return out


def canonical(graph):
    names = {}

    def rename(m):
        return names.setdefault(m.group(1), f"%v{len(names)}")

    out = []
    for line in str(graph).strip().splitlines():
        line = re.sub(r"\s+#\s.*$", "", line)
        line = re.sub(r"___torch_mangle_\d+\.", "", line)
        out.append(re.sub(r"%([A-Za-z0-9_.]+)", rename, line).rstrip())
    return "\n".join(out)


def close(a, b):
    if isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape and \
            torch.allclose(a, b, rtol=1e-4, atol=1e-5)
    if isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return a == b


def main():
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, inputs, how, args, gone, kept in CASES:
            label = f"{name}_{how}"
            m = randomize(make())
            sm = torch.jit.script(m) if how == "script" else torch.jit.trace(m, inputs[0])
            src, dst = os.path.join(tmp, label + ".pt"), os.path.join(tmp, label + ".opt.pt")
            sm.save(src)
            p = subprocess.run([JIT, "optimize", src, "-o", dst] + args, capture_output=True, text=True, timeout=120)
            if p.returncode != 0:
                failures.append(f"{label}: jitctl optimize exit {p.returncode}: {p.stderr.strip()[-300:]}")
                continue
            opt = torch.jit.load(dst)
            orig = torch.jit.load(src).eval()
            for i, inp in enumerate(inputs):
                with torch.no_grad():
                    if not close(opt(*inp), orig(*inp)):
                        failures.append(f"{label}: input set {i}: outputs differ from the original's")
            present = kinds(opt.graph)
            for k in gone:
                if k in present:
                    failures.append(f"{label}: {k} is still in the optimized graph")
            for k in kept:
                if k not in present:
                    failures.append(f"{label}: {k} should have stayed")
            if "optimize-for-inference" in args:
                ref = os.path.join(tmp, label + ".torch.pt")
                torch.jit.optimize_for_inference(torch.jit.load(src).eval()).save(ref)
                if canonical(torch.jit.load(ref).graph) != canonical(opt.graph):
                    failures.append(f"{label}: graph differs from torch.jit.optimize_for_inference's")
            if os.path.getsize(dst) > os.path.getsize(src):
                failures.append(f"{label}: {os.path.getsize(dst)} bytes written, more than the input's {os.path.getsize(src)}")
            checked += 1
            print(f"{label:<24} ok" if not any(f.startswith(label + ":") for f in failures) else f"{label:<24} FAILED")
    for f in failures:
        print("FAIL", f)
    print(f"{checked}/{len(CASES)} optimized, {len(failures)} failure(s)")
    sys.exit(1 if failures or checked != len(CASES) else 0)


if __name__ == "__main__":
    main()
