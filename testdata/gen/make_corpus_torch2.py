#!/usr/bin/env python3
"""Write TorchScript archives with PyTorch 2.x, plus golden files, for jitctl's 2.x reader tests.

Run with a PyTorch 2.x interpreter (not Debian's 1.13), e.g. an isolated venv:

    /root/.pyenv/versions/3.11.7/bin/python3 -m venv /tmp/torch2
    /tmp/torch2/bin/pip install torch==2.4.1      # PyPI's x86_64 wheel needs its nvidia-* deps to import
    /tmp/torch2/bin/python testdata/gen/make_corpus_torch2.py

Phase 1 (torch 2.x, this interpreter) writes, for every model NAME:
    testdata/models_torch2/NAME.pt, NAME.in0.pt, NAME.in1.pt      (archive and input tuples, 2.x torch.save)
    testdata/golden_torch2/NAME/info.json                         (what `jitctl info --format json` must say)
Phase 2 (Debian's torch 1.13, /usr/bin/python3, one subprocess per model) tries to load and run each
archive and, where it can, writes golden_torch2/NAME/{graph.txt,code.txt,out0.pt,out1.pt}.
Finally testdata/models_torch2/manifest.json records kind, writer version and whether 1.13 loads it.

Options: --torch113 PATH (default /usr/bin/python3; 'none' skips phase 2).
"""
import argparse, copy, json, os, subprocess, sys, zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.dirname(HERE)
MODELS = os.path.join(TESTDATA, "models_torch2")
GOLDEN = os.path.join(TESTDATA, "golden_torch2")


# ---------------------------------------------------------------- models

class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.bn2(self.conv2(x)))
        x = torch.flatten(self.gap(x), 1)
        return self.fc(x)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 4)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = self.drop(torch.tanh(self.fc2(x)))
        return F.log_softmax(self.fc3(x), dim=-1)


class ControlFlow(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.scale = 0.5

    @torch.jit.export
    def stats(self, x: torch.Tensor) -> Dict[str, float]:
        return {"mean": float(x.mean()), "max": float(x.max())}

    def forward(self, x: torch.Tensor, n: int) -> Tuple[torch.Tensor, List[torch.Tensor], Dict[str, torch.Tensor]]:
        outs: List[torch.Tensor] = []
        h = x
        for i in range(n):
            if i % 2 == 0:
                h = torch.relu(self.lin(h))
            else:
                h = h * self.scale + 1.0
            outs.append(h.sum(dim=-1))
        k = 0
        while k < 3 and bool(h.abs().max() > 0.01):
            h = h / 2.0
            k += 1
        d: Dict[str, torch.Tensor] = {"last": h, "first": outs[0] if len(outs) > 0 else x}
        if n > 2:
            d["count"] = torch.tensor(len(outs))
        return h, outs, d


class Buffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(6, 6, bias=False)
        self.dec = nn.Linear(6, 6)
        self.dec.weight = self.enc.weight          # tied parameter
        self.register_buffer("f64", torch.linspace(0, 1, 6, dtype=torch.float64))
        self.register_buffer("i64", torch.arange(6, dtype=torch.int64))
        self.register_buffer("mask", torch.tensor([True, False, True, True, False, True]))
        self.register_buffer("f16", torch.randn(6).half())
        self.register_buffer("bf16", torch.randn(6).bfloat16())
        self.register_buffer("step", torch.zeros((), dtype=torch.int64))

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        h = self.enc(x) + self.f64.float() + self.i64.float()
        h = torch.where(self.mask, h, self.f16.float() * self.bf16.float())
        y = self.dec(h)
        return y, (self.f64 * y.sum().double()).to(torch.float64)


class LSTMNet(nn.Module):
    """A scripted nn.LSTM has only the overloads forward__0/forward__1, so it is called from a wrapper."""
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, x: torch.Tensor, state: Optional[Tuple[torch.Tensor, torch.Tensor]] = None
                ) -> Tuple[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]:
        y, (h, c) = self.lstm(x, state)
        return self.head(y), (h, c)


class WithExtra(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4))
        self.b = nn.Parameter(torch.zeros(4))

    def forward(self, x):
        return torch.addmm(self.b, x, self.w).sigmoid()


class SDPA(nn.Module):
    """Uses F.scaled_dot_product_attention (new in 2.0): an op torch 1.13 does not have."""
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


class UpgradedOps(nn.Module):
    """Ops with versioned schemas (upgraders): the writer bumps the archive's format version to 10,
    and PyTorchStreamWriter then stores it as `.data/version` instead of `version` (it does so for
    versions >= 6)."""
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.size(-1)
        a = x + torch.linspace(0.0, 1.0, steps=n) - torch.logspace(0.0, 1.0, steps=n)
        b = F.gelu(a, approximate="tanh")
        c = torch.div(b, 0.25, rounding_mode="floor") + torch.full([n], 2.0)
        return c


def transformer():
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.1, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()


def build():
    """[(name, kind, module, [input tuples], extra_files or None)]"""
    out = []
    torch.manual_seed(0)

    cnn = SmallCNN()
    with torch.no_grad():                        # non-trivial running stats
        for bn in (cnn.bn1, cnn.bn2):
            bn.running_mean.uniform_(-0.2, 0.2)
            bn.running_var.uniform_(0.5, 1.5)
    cnn.eval()
    ins = [(torch.randn(1, 3, 16, 16),), (torch.randn(2, 3, 16, 16),)]
    out.append(("cnn_traced", "traced", torch.jit.trace(cnn, ins[0]), ins, None))

    mlp = torch.jit.script(MLP().eval())
    out.append(("mlp_scripted", "scripted", mlp, [(torch.randn(3, 16),), (torch.randn(5, 16),)], None))

    cf = torch.jit.script(ControlFlow())
    out.append(("control_flow_scripted", "scripted", cf, [(torch.randn(2, 8), 3), (torch.randn(4, 8), 2)], None))

    tr = transformer()
    tins = [(torch.randn(2, 5, 32),), (torch.randn(3, 7, 32),)]
    # Grad enabled + params requiring grad: the fast path is skipped, so the trace is plain aten ops.
    out.append(("transformer_traced", "traced", torch.jit.trace(tr, tins[0], check_trace=False), tins, None))
    # Under no_grad in eval, PyTorch 2.x takes the fused fast path (aten::_transformer_encoder_layer_fwd).
    tr2 = transformer()
    tr2.load_state_dict(tr.state_dict())
    with torch.no_grad():
        fast = torch.jit.trace(tr2, tins[0], check_trace=False)
    out.append(("transformer_fastpath_traced", "traced", fast, tins, None))

    lstm = torch.jit.script(LSTMNet().eval())
    h0, c0 = torch.randn(2, 2, 16), torch.randn(2, 2, 16)
    out.append(("lstm_scripted", "scripted", lstm, [(torch.randn(2, 5, 8),), (torch.randn(2, 3, 8), (h0, c0))], None))

    buf = torch.jit.script(Buffers())
    out.append(("buffers_dtypes_scripted", "scripted", buf, [(torch.randn(2, 6),), (torch.randn(3, 6),)], None))

    ex = torch.jit.script(WithExtra())
    extra = {"meta.json": json.dumps({"author": "jitctl testdata", "torch": torch.__version__}),
             "notes.txt": "extra files are stored under <root>/extra/\n"}
    out.append(("extra_files_scripted", "scripted", ex, [(torch.randn(2, 4),), (torch.randn(1, 4),)], extra))

    up = torch.jit.script(UpgradedOps())
    out.append(("upgraded_ops_scripted", "scripted", up, [(torch.randn(2, 5),), (torch.randn(3, 4, 7),)], None))

    sd = torch.jit.script(SDPA())
    out.append(("sdpa_scripted", "scripted", sd, [(torch.randn(1, 4, 16),), (torch.randn(2, 6, 16),)], None))
    return out


# ---------------------------------------------------------------- phase 1 (torch 2.x)

def tensor_rows(named):
    rows = []
    for name, t in named:
        rows.append({"name": name, "dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
                     "bytes": t.numel() * t.element_size()})
    return rows


def info_json(path):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        root = names[0].split("/")[0]
        rec = f"{root}/.data/version" if f"{root}/.data/version" in names else f"{root}/version"
        version = int(z.read(rec).decode().strip())
        extra = sorted(n[len(root) + len("/extra/"):] for n in names if n.startswith(f"{root}/extra/"))
    m = torch.jit.load(path)
    params = tensor_rows(m.named_parameters())
    bufs = tensor_rows(m.named_buffers())
    return {
        "format_version": version,
        "root": root,
        "class": m._c._type().qualified_name(),
        "methods": sorted(m._c._method_names()),
        "parameters": params,
        "buffers": bufs,
        "extra_files": extra,
        "total_parameters": sum(p.numel() for _, p in m.named_parameters()),
        "total_bytes": sum(r["bytes"] for r in params) + sum(r["bytes"] for r in bufs),
    }


def phase1():
    os.makedirs(MODELS, exist_ok=True)
    os.makedirs(GOLDEN, exist_ok=True)
    manifest = {}
    for name, kind, mod, inputs, extra in build():
        path = os.path.join(MODELS, name + ".pt")
        if extra:
            torch.jit.save(mod, path, _extra_files=extra)
        else:
            torch.jit.save(mod, path)
        for i, args in enumerate(inputs):
            torch.save(tuple(args), os.path.join(MODELS, f"{name}.in{i}.pt"))
        # the saved archive must run on its own inputs in the writer too
        re = torch.jit.load(path)
        with torch.no_grad():
            for args in inputs:
                re(*copy.deepcopy(args))
        d = os.path.join(GOLDEN, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "info.json"), "w") as f:
            json.dump(info_json(path), f, indent=1)
            f.write("\n")
        manifest[name] = {"kind": kind, "written_by": torch.__version__}
        print(f"wrote {name}", flush=True)
    return manifest


# ---------------------------------------------------------------- phase 2 (torch 1.13)

def golden_113(name):
    """Runs under torch 1.13: load NAME, write graph/code/outputs. Exit 0 iff it loads and runs."""
    path = os.path.join(MODELS, name + ".pt")
    d = os.path.join(GOLDEN, name)
    m = torch.jit.load(path)
    graph, code = str(m.graph), m.code
    outs = []
    i = 0
    while os.path.exists(os.path.join(MODELS, f"{name}.in{i}.pt")):
        args = torch.load(os.path.join(MODELS, f"{name}.in{i}.pt"))
        with torch.no_grad():
            outs.append(m(*copy.deepcopy(args)))
        i += 1
    with open(os.path.join(d, "graph.txt"), "w") as f:
        f.write(graph)
    with open(os.path.join(d, "code.txt"), "w") as f:
        f.write(code)
    for i, o in enumerate(outs):
        torch.save(o, os.path.join(d, f"out{i}.pt"))


def phase2(manifest, py113):
    for name in manifest:
        d = os.path.join(GOLDEN, name)
        for f in ("graph.txt", "code.txt", "out0.pt", "out1.pt", "out2.pt"):
            if os.path.exists(os.path.join(d, f)):
                os.remove(os.path.join(d, f))
        p = subprocess.run([py113, os.path.abspath(__file__), "--golden-113", name],
                           capture_output=True, text=True)
        ok = p.returncode == 0
        manifest[name]["loads_in_1_13"] = ok
        why = ""
        if not ok:
            lines = [l.strip() for l in p.stderr.splitlines() if l.strip()]
            errs = [i for i, l in enumerate(lines) if l.startswith(("RuntimeError", "Error", "Exception"))
                    or "Error:" in l]
            if errs and lines[errs[-1]].rstrip().endswith(":") and errs[-1] + 1 < len(lines):
                why = lines[errs[-1]] + " " + lines[errs[-1] + 1]
            else:
                why = lines[errs[-1]] if errs else (lines[-1] if lines else f"exit {p.returncode}")
            manifest[name]["why_not_1_13"] = why[:200]
        print(f"1.13 {name}: {'ok' if ok else 'FAIL ' + why}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch113", default="/usr/bin/python3")
    ap.add_argument("--golden-113", metavar="NAME", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.golden_113:
        golden_113(a.golden_113)
        return
    if int(torch.__version__.split(".")[0]) < 2:
        sys.exit(f"needs PyTorch 2.x, this is {torch.__version__}")
    manifest = phase1()
    if a.torch113 != "none":
        phase2(manifest, a.torch113)
    with open(os.path.join(MODELS, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
