#!/usr/bin/env python3
"""Archives written by one PyTorch version, with that version's own answers as golden files.

Needs the PyTorch whose archives it writes (any version from 1.13 on); the 2.x ones come from
PyPI into a venv outside the repository (the x86_64 wheel imports only with its nvidia-* wheels):

    python3.11 -m venv /work/venv-torch2.4 && /work/venv-torch2.4/bin/pip install torch==2.4.1 "numpy<2"
    /work/venv-torch2.4/bin/python testdata/gen/make_corpus_versions.py      # -> *_torch2.4/
    /work/venv-torch2.15/bin/python testdata/gen/make_corpus_versions.py     # torch==2.15.0 -> *_torch2.15/

Writes, for torch MAJOR.MINOR and every model NAME of the table at the end:
    testdata/models_torchMAJOR.MINOR/NAME.pt, NAME.in{i}.pt, manifest.json
    testdata/golden_torchMAJOR.MINOR/NAME/{info.json, graph.txt, inlined_graph.txt, code.txt,
                                           graph.X.txt, code.X.txt, out{i}.pt}
where graph/code/outputs are what *this* torch prints and computes for the archive it wrote
(torch.jit.load(NAME.pt).graph, .code, m(*inputs) under no_grad). The manifest records the writer
version and the model's kind and description. Every model is built in a fresh process after
torch.manual_seed(0), compiled under its repo-relative file name (so source locations do not depend
on the checkout) with PYTHONHASHSEED=0. Re-running changes archive bytes (2.x writes a random
`.data/serialization_id`) but not the golden text.

Options: --only a,b  --list  --out-tag TAG (directory suffix instead of MAJOR.MINOR)
"""
import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import warnings
import zipfile
from enum import Enum
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.normpath(os.path.join(HERE, ".."))
REPO = os.path.dirname(TESTDATA)
SELF = os.path.relpath(os.path.abspath(__file__), REPO)
TORCH_MM = ".".join(torch.__version__.split("+")[0].split(".")[:2])
V2 = int(torch.__version__.split(".")[0]) >= 2

REGISTRY = {}


def model(name, kind, description, no_grad=False, extra_files=None, needs_v2=False):
    def deco(fn):
        REGISTRY[name] = dict(kind=kind, description=description, build=fn, no_grad=no_grad,
                              extra_files=extra_files, needs_v2=needs_v2)
        return fn
    return deco


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
        x = F.hardswish(self.bn2(self.conv2(x)))
        x = torch.flatten(self.gap(x), 1)
        return self.fc(x)


@model("cnn_traced", "traced", "conv/bn/relu/maxpool/hardswish/adaptive avgpool/linear")
def _cnn():
    m = SmallCNN()
    with torch.no_grad():
        for bn in (m.bn1, m.bn2):
            bn.running_mean.uniform_(-0.2, 0.2)
            bn.running_var.uniform_(0.5, 1.5)
    return m, [(torch.randn(1, 3, 16, 16),), (torch.randn(2, 3, 16, 16),)]


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        x = self.drop(F.gelu(self.fc1(x), approximate="tanh"))
        return F.log_softmax(self.fc2(x), dim=-1)


@model("mlp_scripted", "scripted", "linear, gelu(tanh), dropout, log_softmax")
def _mlp():
    return MLP(), [(torch.randn(3, 16),), (torch.randn(5, 16),)]


class ControlFlow(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.scale = 0.5

    @torch.jit.export
    def stats(self, x: Tensor) -> Dict[str, float]:
        return {"mean": float(x.mean()), "max": float(x.max())}

    def forward(self, x: Tensor, n: int) -> Tuple[Tensor, List[Tensor], Dict[str, Tensor]]:
        outs: List[Tensor] = []
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
        d: Dict[str, Tensor] = {"last": h, "first": outs[0] if len(outs) > 0 else x}
        if n > 2:
            d["count"] = torch.tensor(len(outs))
        return h, outs, d


@model("control_flow_scripted", "scripted", "loops, if, while, List/Dict outputs, an exported method")
def _cf():
    return ControlFlow(), [(torch.randn(2, 8), 3), (torch.randn(4, 8), 2)]


def _encoder():
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.1, batch_first=True)
    kw = {"enable_nested_tensor": False} if V2 else {}
    return nn.TransformerEncoder(layer, num_layers=2, **kw)


@model("transformer_traced", "traced", "TransformerEncoder traced with grad on: the op-by-op path")
def _tr():
    return _encoder(), [(torch.randn(2, 5, 32),), (torch.randn(3, 7, 32),)]


@model("transformer_fastpath_traced", "traced", "TransformerEncoder traced under no_grad: the fused fast path",
       no_grad=True)
def _trf():
    return _encoder(), [(torch.randn(2, 5, 32),), (torch.randn(3, 7, 32),)]


class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x: Tensor, pad: Tensor) -> Tuple[Tensor, Optional[Tensor]]:
        return self.attn(x, x, x, key_padding_mask=pad, need_weights=True)


@model("mha_scripted", "scripted", "nn.MultiheadAttention with a key padding mask and averaged weights")
def _mha():
    pad0 = torch.tensor([[False, False, False, True], [False, False, False, False]])
    pad1 = torch.tensor([[False, True, True]])
    return MHA(), [(torch.randn(2, 4, 16), pad0), (torch.randn(1, 3, 16), pad1)]


class LSTMNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, x: Tensor, state: Optional[Tuple[Tensor, Tensor]] = None) -> Tuple[Tensor, Tuple[Tensor, Tensor]]:
        y, (h, c) = self.lstm(x, state)
        return self.head(y), (h, c)


@model("lstm_scripted", "scripted", "2-layer nn.LSTM behind a wrapper, optional (h0, c0)")
def _lstm():
    return LSTMNet(), [(torch.randn(2, 5, 8),), (torch.randn(2, 3, 8), (torch.randn(2, 2, 16), torch.randn(2, 2, 16)))]


class GRUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(6, 8, bidirectional=True)

    def forward(self, x):
        y, h = self.gru(x)
        return y.mean(0), h


@model("gru_traced", "traced", "bidirectional nn.GRU, sequence-first")
def _gru():
    return GRUNet(), [(torch.randn(5, 2, 6),), (torch.randn(5, 2, 6),)]


class SDPA(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)

    def forward(self, x: Tensor) -> Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


@model("sdpa_scripted", "scripted", "F.scaled_dot_product_attention, causal (a 2.x op)", needs_v2=True)
def _sdpa():
    return SDPA(), [(torch.randn(1, 4, 16),), (torch.randn(2, 6, 16),)]


class SDPAMasks(nn.Module):
    def forward(self, q: Tensor, k: Tensor, v: Tensor, keep: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        bias = torch.zeros(keep.shape, dtype=q.dtype).masked_fill(keep.logical_not(), float("-inf"))
        b = F.scaled_dot_product_attention(q, k, v, attn_mask=bias * 0.3)  # `scale` is 2.1+
        c = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0)
        return a, b, c


@model("sdpa_masks_scripted", "scripted", "scaled_dot_product_attention with bool and float masks and a scale",
       needs_v2=True)
def _sdpa_masks():
    def case(b, h, t, s, d):
        keep = torch.rand(t, s) > 0.3
        keep[:, 0] = True
        return (torch.randn(b, h, t, d), torch.randn(b, h, s, d), torch.randn(b, h, s, d), keep)
    return SDPAMasks(), [case(1, 2, 3, 5, 4), case(2, 1, 4, 4, 8)]


class Stats(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        s = x.std(0)
        v = x.var(dim=1, unbiased=False, keepdim=True)
        sm = torch.std_mean(x, dim=[0, 1])
        vm = torch.var_mean(x, 1, correction=0)
        med = x.median(dim=1)
        mo = x.round().mode(0)
        q = torch.quantile(x, 0.25, dim=1)
        return s, v, sm[0] + sm[1], vm[0] * vm[1], med.values, med.indices, mo.values, q, x.std()


@model("stats_scripted", "scripted", "std/var/std_mean/var_mean overloads, median, mode, quantile")
def _stats():
    return Stats(), [(torch.randn(4, 6, 3),), (torch.randn(5, 3, 2) * 3,)]


class Indexing(nn.Module):
    def forward(self, x: Tensor, idx: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        a = x.index_select(1, idx)
        g = torch.gather(x, 1, idx.unsqueeze(0).expand(x.size(0), idx.size(0)))
        s = torch.zeros_like(x).scatter_(1, idx.unsqueeze(0).expand(x.size(0), idx.size(0)), 1.0)
        m = x.masked_fill(x > 0.5, -1.0)
        nz = torch.nonzero(x > 0)
        y = x.clone()
        y[:, idx] = 0.0
        return a, g, s, m, nz, y


@model("indexing_scripted", "scripted", "index_select, gather, scatter_, masked_fill, nonzero, index_put")
def _indexing():
    return Indexing(), [(torch.randn(3, 5), torch.tensor([0, 2, 4])), (torch.randn(2, 4), torch.tensor([3, 1]))]


class UpgradedOps(nn.Module):
    """Ops with versioned schemas: the archive's format version goes up to 10 (`.data/version`)."""
    def forward(self, x: Tensor) -> Tensor:
        n = x.size(-1)
        a = x + torch.linspace(0.0, 1.0, steps=n) - torch.logspace(0.0, 1.0, steps=n, base=2.0)
        b = F.gelu(a, approximate="tanh")
        c = torch.div(b, 0.25, rounding_mode="floor") + torch.full([n], 2.0)
        return c


@model("upgraded_ops_scripted", "scripted", "linspace/logspace/gelu(tanh)/div(rounding_mode)/full")
def _upgraded():
    return UpgradedOps(), [(torch.randn(2, 5),), (torch.randn(3, 4, 7),)]


class Buffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(6, 6, bias=False)
        self.dec = nn.Linear(6, 6)
        self.dec.weight = self.enc.weight
        self.register_buffer("f64", torch.linspace(0, 1, 6, dtype=torch.float64))
        self.register_buffer("i64", torch.arange(6, dtype=torch.int64))
        self.register_buffer("mask", torch.tensor([True, False, True, True, False, True]))
        self.register_buffer("f16", torch.randn(6).half())
        self.register_buffer("bf16", torch.randn(6).bfloat16())

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
        h = self.enc(x) + self.f64.float() + self.i64.float()
        h = torch.where(self.mask, h, self.f16.float() * self.bf16.float())
        y = self.dec(h)
        return y, (self.f64 * y.sum().double()).to(torch.float64)


@model("buffers_dtypes_scripted", "scripted", "float64/int64/bool/float16/bfloat16 buffers, a tied weight",
       extra_files={"meta.json": '{"author": "jitctl testdata"}'})
def _buffers():
    return Buffers(), [(torch.randn(2, 6),), (torch.randn(3, 6),)]


class Layout(Enum):
    NCHW = "NCHW"
    NHWC = "NHWC"
    NLC = "NLC"


class Scale(Enum):
    ONE = 1
    TWO = 2


def to_layout(x: Tensor, fmt: Layout) -> Tensor:
    if fmt == Layout.NHWC:
        return x.permute(0, 2, 3, 1)
    if fmt == Layout.NLC:
        return x.flatten(2).transpose(1, 2)
    return x


class EnumAttrs(nn.Module):
    """An Enum module attribute (pickled as class + value), Enum constants, ==/!=, .name, .value."""

    def __init__(self):
        super().__init__()
        self.fmt = Layout.NLC
        self.scale = Scale.TWO

    def forward(self, x: Tensor) -> Tuple[Tensor, str, int]:
        y = to_layout(x, self.fmt) * self.scale.value
        if self.fmt != Layout.NCHW:
            y = y + 1
        return y, self.fmt.name + "/" + Layout.NHWC.value, self.scale.value


@model("enum_attrs_scripted", "scripted", "Enum attributes, constants, comparisons, .name and .value (timm's Format)")
def _enum_attrs():
    return EnumAttrs(), [(torch.randn(1, 3, 4, 4),), (torch.randn(2, 2, 3, 5),)]


# ---------------------------------------------------------------- writing

def tensor_rows(named):
    return [{"name": n, "dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
             "bytes": t.numel() * t.element_size()} for n, t in named]


def to_plain(v):
    """NamedTuples (torch.return_types) as tuples, so torch.save writes no class jitctl must know."""
    if isinstance(v, tuple):
        return tuple(to_plain(x) for x in v)
    if isinstance(v, list):
        return [to_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: to_plain(x) for k, x in v.items()}
    return v


def write_text(path, text):
    with open(path, "w") as f:
        f.write(text)


def write_golden(out, archive, inputs):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    m = torch.jit.load(archive)
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        root = names[0].split("/")[0]
        vrec = f"{root}/version" if f"{root}/version" in names else f"{root}/.data/version"
        version = int(z.read(vrec).decode().strip())
        extra = sorted(n[len(root) + len("/extra/"):] for n in names if n.startswith(f"{root}/extra/"))
    params, buffers = tensor_rows(m.named_parameters()), tensor_rows(m.named_buffers())
    methods = sorted(m._c._method_names())
    info = {"format_version": version, "root": root, "class": m._c._type().qualified_name(),
            "methods": methods, "parameters": params, "buffers": buffers, "extra_files": extra,
            "total_parameters": sum(p.numel() for _, p in m.named_parameters()),
            "total_bytes": sum(r["bytes"] for r in params + buffers)}
    write_text(os.path.join(out, "info.json"), json.dumps(info, indent=1) + "\n")
    write_text(os.path.join(out, "graph.txt"), str(m.graph))
    write_text(os.path.join(out, "inlined_graph.txt"), str(m.inlined_graph))
    write_text(os.path.join(out, "code.txt"), m.code)
    for meth in methods:
        if meth != "forward":
            fn = m._c._get_method(meth)
            write_text(os.path.join(out, f"graph.{meth}.txt"), str(fn.graph))
            write_text(os.path.join(out, f"code.{meth}.txt"), fn.code)
    with torch.no_grad():
        for i, inp in enumerate(inputs):
            torch.save(to_plain(m(*copy.deepcopy(inp))), os.path.join(out, f"out{i}.pt"))


def generate(name, models_dir, golden_dir):
    spec = REGISTRY[name]
    torch.manual_seed(0)
    module, inputs = spec["build"]()
    module.eval()
    archive = os.path.join(models_dir, f"{name}.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if spec["kind"] == "traced":
            with torch.set_grad_enabled(not spec["no_grad"]):
                sm = torch.jit.trace(module, copy.deepcopy(inputs[0]), check_trace=False)
        else:
            sm = torch.jit.script(module)
    torch.jit.save(sm, archive, _extra_files=spec["extra_files"] or {})
    for i, inp in enumerate(inputs):
        torch.save(inp, os.path.join(models_dir, f"{name}.in{i}.pt"))
    write_golden(os.path.join(golden_dir, name), archive, inputs)
    return {"kind": spec["kind"], "description": spec["description"], "written_by": torch.__version__}


MARK = "@@MANIFEST@@ "
CHILD = """import sys, types
sys.argv = sys.argv[1:]
m = types.ModuleType("__main__"); m.__file__ = sys.argv[0]; sys.modules["__main__"] = m
exec(compile(open(sys.argv[0]).read(), sys.argv[0], "exec"), m.__dict__)"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--out-tag", default=TORCH_MM)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    models_dir = os.path.join(TESTDATA, f"models_torch{a.out_tag}")
    golden_dir = os.path.join(TESTDATA, f"golden_torch{a.out_tag}")
    if a.child:
        torch.set_num_threads(1)
        print(MARK + json.dumps(generate(a.child, models_dir, golden_dir)), flush=True)
        return
    names = [n for n, s in REGISTRY.items() if V2 or not s["needs_v2"]]
    if a.list:
        for n in names:
            print(f"{n:30} {REGISTRY[n]['kind']:9} {REGISTRY[n]['description']}")
        return
    manifest_path = os.path.join(models_dir, "manifest.json")
    if a.only:
        names = a.only.split(",")
        manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {}
    else:
        manifest = {}
        shutil.rmtree(models_dir, ignore_errors=True)
        shutil.rmtree(golden_dir, ignore_errors=True)
    os.makedirs(models_dir, exist_ok=True)
    os.makedirs(golden_dir, exist_ok=True)
    failed = []
    env = dict(os.environ, PYTHONHASHSEED="0")
    for name in names:
        p = subprocess.run([sys.executable, "-c", CHILD, SELF, "--out-tag", a.out_tag, "--child", name],
                           capture_output=True, text=True, cwd=REPO, env=env)
        entry = next((json.loads(l[len(MARK):]) for l in p.stdout.splitlines() if l.startswith(MARK)), None)
        if p.returncode != 0 or entry is None:
            failed.append(name)
            print(f"FAIL {name}\n{p.stderr[-2000:]}", file=sys.stderr)
            continue
        manifest[name] = entry
        print(f"ok   {name}", flush=True)
    with open(manifest_path, "w") as f:
        json.dump(dict(sorted(manifest.items())), f, indent=1)
        f.write("\n")
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
