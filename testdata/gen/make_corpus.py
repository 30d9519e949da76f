#!/usr/bin/python3
"""Generate jitctl's test corpus: TorchScript archives, input sets, manifest and PyTorch's answers.

Run with Debian's PyTorch (the `python3` on PATH has no torch):

    /usr/bin/python3 testdata/gen/make_corpus.py            # everything (wipes models/ and golden/)
    /usr/bin/python3 testdata/gen/make_corpus.py --only a,b # just these models (manifest entries updated)
    /usr/bin/python3 testdata/gen/make_corpus.py --list     # names and descriptions

Every model is built in its own fresh Python process (so ___torch_mangle_N numbers and warn_id
counters depend only on that model), after torch.manual_seed(0), from fixed inputs.

Writes (see testdata/README.md):
    models/NAME.pt, models/NAME.in{i}.pt, models/manifest.json
    golden/NAME/{info.json, graph.txt, inlined_graph.txt, code.txt, graph.X.txt, code.X.txt,
                 out{i}.pt, frozen_graph.txt, optimized_graph.txt}
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
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, NamedTuple, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
MODELS_DIR = os.path.join(ROOT, "models")
GOLDEN_DIR = os.path.join(ROOT, "golden")

# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

REGISTRY = {}


def model(name, kind, description, train=False, strict=True, extra_files=None, no_grad=False):
    """Register a builder: fn() -> (python nn.Module, [inputs0, inputs1, ...]) (each a tuple).

    train: save in training mode (default: eval()); strict: torch.jit.trace(strict=...);
    extra_files: torch.jit.save(_extra_files=...); no_grad: trace (and check the trace) under torch.no_grad().
    """
    assert kind in ("traced", "scripted")

    def deco(fn):
        assert name not in REGISTRY, name
        REGISTRY[name] = dict(name=name, kind=kind, description=description, build=fn, train=train,
                              strict=strict, extra_files=extra_files, no_grad=no_grad)
        return fn

    return deco


def r(*shape):
    return torch.randn(*shape)


# --------------------------------------------------------------------------------------------
# CNN building blocks
# --------------------------------------------------------------------------------------------


class BasicCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool2 = nn.AvgPool2d(2)
        self.gap = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool1(F.relu(self.bn1(self.conv1(x))))
        x = self.pool2(F.relu(self.bn2(self.conv2(x))))
        x = torch.flatten(self.gap(x), 1)
        return self.fc(x)


class ConvVariants(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 5, stride=2, padding=2)
        self.grouped = nn.Conv2d(16, 16, 3, padding=1, groups=4)
        self.depthwise = nn.Conv2d(16, 16, 3, padding=2, dilation=2, groups=16, bias=False)
        self.pointwise = nn.Conv2d(16, 8, 1)
        self.asym = nn.Conv2d(8, 8, (3, 1), stride=(1, 2), padding=(1, 0))
        self.reflect = nn.Conv2d(8, 8, 3, padding=1, padding_mode="reflect")
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.amax = nn.AdaptiveMaxPool2d(3)

    def forward(self, x):
        x = F.relu6(self.stem(x))
        x = self.grouped(x) + x
        x = self.pointwise(F.relu(self.depthwise(x)))
        x = F.leaky_relu(self.asym(x), 0.1)
        x = self.reflect(x)
        x = self.up(x)
        return self.amax(x)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                            nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.layer1 = ResBlock(8, 8, 1)
        self.layer2 = ResBlock(8, 16, 2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(self.pool(x).flatten(1))


class InceptionCat(nn.Module):
    def __init__(self):
        super().__init__()
        self.b1 = nn.Conv2d(3, 4, 1)
        self.b3 = nn.Sequential(nn.Conv2d(3, 4, 1), nn.ReLU(), nn.Conv2d(4, 8, 3, padding=1))
        self.b5 = nn.Sequential(nn.Conv2d(3, 2, 1), nn.ReLU(), nn.Conv2d(2, 4, 5, padding=2))
        self.bp = nn.Sequential(nn.MaxPool2d(3, stride=1, padding=1), nn.Conv2d(3, 4, 1))
        self.head = nn.Conv2d(20, 8, 1)

    def forward(self, x):
        y = torch.cat([self.b1(x), self.b3(x), self.b5(x), self.bp(x)], dim=1)
        y = F.max_pool2d(F.relu(self.head(y)), kernel_size=3, stride=2, padding=1, ceil_mode=True)
        return torch.cat((y.mean(dim=(2, 3)), y.amax(dim=(2, 3))), 1)


def channel_shuffle(x: Tensor, groups: int) -> Tensor:
    b, c, h, w = x.size()
    x = x.view(b, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(b, -1, h, w)


class ShuffleUnit(nn.Module):
    """ShuffleNetV2-style unit: chunk, branch, cat, channel shuffle (view/transpose/view)."""

    def __init__(self, c=16):
        super().__init__()
        h = c // 2
        self.branch = nn.Sequential(
            nn.Conv2d(h, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU(inplace=True),
            nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False), nn.BatchNorm2d(h),
            nn.Conv2d(h, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU(inplace=True))

    def forward(self, x):
        a, b = x.chunk(2, dim=1)
        out = torch.cat((a, self.branch(b)), dim=1)
        return channel_shuffle(out, 2)


class ChannelShuffleReshape(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 12, 3, padding=1, groups=3)
        self.conv2 = nn.Conv2d(12, 12, 1, groups=4)

    def forward(self, x):
        x = self.conv(x)
        n, c, h, w = x.shape
        x = x.reshape(n, 3, c // 3, h, w).permute(0, 2, 1, 3, 4).reshape(n, c, h, w)
        x = self.conv2(x)
        return x.reshape(n, 4, -1).transpose(1, 2).flatten(1)


class SqueezeExcite(nn.Module):
    def __init__(self, c=16, r=4):
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Linear(c, c // r)
        self.fc2 = nn.Linear(c // r, c)

    def forward(self, x):
        x = F.relu(self.conv(x))
        b, c, _, _ = x.size()
        s = self.pool(x).view(b, c)
        s = torch.sigmoid(self.fc2(F.relu(self.fc1(s)))).view(b, c, 1, 1)
        return x * s.expand_as(x)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 32), nn.GELU(),
                                 nn.LayerNorm(32), nn.Linear(32, 4))

    def forward(self, x):
        return F.log_softmax(self.net(x), dim=-1)


class MiscOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 16, 3, padding=1)
        self.ps = nn.PixelShuffle(2)

    def forward(self, x):
        y = self.ps(self.conv(x))  # 4 x 2H x 2W
        up = F.interpolate(x, scale_factor=2.0, mode="nearest")
        bil = F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=False)
        z = torch.where(y > 0, y, up * 0.5) + F.hardswish(up)
        vals, idx = z.flatten(2).max(dim=-1)
        sm = torch.softmax(bil.mean(dim=1), dim=-1)
        st = torch.stack([vals, vals.clamp(min=-0.5, max=0.5)], dim=0)
        mm = torch.matmul(z.flatten(2), z.flatten(2).transpose(1, 2))
        return st, idx, sm, mm.tanh(), F.elu(bil).sum(dim=(2, 3))


class MultiIO(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 4)
        self.b = nn.Linear(3, 4)

    def forward(self, x, pair: Tuple[Tensor, Tensor]):
        p, q = pair
        h = self.a(x) + self.b(p) * q
        return {"h": h, "norm": h.norm(dim=-1), "pair": h.split(2, dim=-1)[0]}


class RNNWrap(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell
        self.head = nn.Linear(cell.hidden_size * (2 if cell.bidirectional else 1), 3)

    def forward(self, x):
        out, state = self.rnn(x)
        return self.head(out), state


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.out = nn.Linear(32, 8)

    def forward(self, x):
        return self.out(self.encoder(x))


# --------------------------------------------------------------------------------------------
# TorchScript language features (scripted)
# --------------------------------------------------------------------------------------------


class ControlFlow(nn.Module):
    def forward(self, x: Tensor, n: int) -> Tuple[Tensor, int]:
        acc = torch.zeros_like(x)
        steps = 0
        for i in range(n):
            if i % 3 == 0:
                acc = acc + x
            elif i % 3 == 1:
                acc = acc - 0.5 * x
            else:
                continue
            steps += 1
            if i >= 7:
                break
        k = 0
        while k < n and bool(acc.abs().sum() < 100.0):
            acc = acc * 1.5
            k += 1
        if bool(x.sum() > 0):
            acc = acc.relu()
        elif bool(x.sum() < -1.0):
            acc = -acc
        else:
            acc = acc.tanh()
        return acc, steps * 100 + k


class Containers(nn.Module):
    def forward(self, x: Tensor, xs: List[Tensor]) -> Tuple[Dict[str, Tensor], List[Tensor], Tuple[int, float, str]]:
        d: Dict[str, Tensor] = {"sum": x.sum(), "mean": x.mean()}
        for i, t in enumerate(xs):
            d["t" + str(i)] = t * 2.0
        vals = [v + 1.0 for v in d.values()]
        vals.append(x.max())
        vals.insert(0, x.min())
        last = vals.pop()
        names: List[str] = list(d.keys())
        counts: Dict[int, str] = {}
        for j in range(len(names)):
            counts[j] = names[j]
        shapes = [t.size(0) for t in xs]
        total = 0
        for s in shapes:
            total += s
        if "sum" in d:
            total += 1000
        return d, vals[1:] + [last], (total + len(counts), float(len(vals)), counts[0])


class Strings(nn.Module):
    def forward(self, x: Tensor, text: str, sep: str) -> Tuple[str, List[str], Tensor]:
        parts = text.split(sep)
        words: List[str] = []
        for p in parts:
            p = p.strip()
            if len(p) == 0:
                continue
            if p.startswith("#"):
                words.append(p[1:].upper())
            else:
                words.append(p.lower().replace("a", "4"))
        joined = "-".join(words)
        first = words[0] if len(words) > 0 else ""
        msg = "{} has {} words; first={}".format(joined, len(words), first)
        return msg, words, x * float(len(words)) + float(len(joined))


class OptionalArgs(nn.Module):
    def forward(self, x: Tensor, bias: Optional[Tensor], k: Optional[int]) -> Tensor:
        y = x * 2.0
        if bias is not None:
            y = y + bias
        scale = 1
        if k is not None:
            scale = k
        out: Optional[Tensor] = None
        for i in range(2):
            if out is None:
                out = y
            else:
                out = out + y * float(scale + i)
        assert out is not None
        return out


class Box(NamedTuple):
    lo: Tensor
    hi: Tensor


class BoxStats(NamedTuple):
    center: Tensor
    area: Tensor
    count: int


class NamedTupleIO(nn.Module):
    def forward(self, box: Box, scale: float) -> BoxStats:
        center = (box.lo + box.hi) * 0.5 * scale
        wh = (box.hi - box.lo).clamp(min=0.0)
        area = wh[:, 0] * wh[:, 1]
        return BoxStats(center, area, box.lo.size(0))


@torch.jit.script
class Accumulator(object):
    def __init__(self, scale: float):
        self.scale = scale
        self.total = torch.zeros(1)
        self.count = 0

    def add(self, x: Tensor):
        self.total = self.total + x.sum() * self.scale
        self.count += 1

    def mean(self) -> Tensor:
        return self.total / max(self.count, 1)


class UsesScriptClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 0.5

    def forward(self, xs: List[Tensor]) -> Tuple[Tensor, int]:
        acc = Accumulator(self.scale)
        for x in xs:
            acc.add(x)
        return acc.mean(), acc.count


@torch.jit.interface
class OpInterface(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        pass


class AddBias(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(4))

    def forward(self, x: Tensor) -> Tensor:
        return x + self.bias


class ScaleTanh(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 3.0

    def forward(self, x: Tensor) -> Tensor:
        return torch.tanh(x * self.scale)


class InterfaceHolder(nn.Module):
    first: OpInterface
    second: OpInterface

    def __init__(self):
        super().__init__()
        self.first = AddBias()
        self.second = ScaleTanh()

    def forward(self, x: Tensor) -> Tensor:
        return self.second(self.first(x)) + self.first(x)


class MultiMethod(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(6, 4)
        self.prior = nn.Parameter(torch.randn(4))

    def forward(self, x: Tensor) -> Tensor:
        return self.decode(self.encode(x), 2.0)

    @torch.jit.export
    def encode(self, x: Tensor) -> Tensor:
        return torch.tanh(self.linear(x)) + self.prior

    @torch.jit.export
    def decode(self, z: Tensor, temperature: float = 1.0) -> Tensor:
        return F.softmax(z / temperature, dim=-1)

    @torch.jit.export
    def num_features(self) -> int:
        return self.linear.in_features

    @torch.jit.export
    def describe(self, prefix: str) -> str:
        return prefix + ":" + str(self.linear.out_features)


def fork_left(x: Tensor, w: Tensor) -> Tensor:
    return torch.mm(x, w).relu()


def fork_right(x: Tensor, k: int) -> Tensor:
    y = x
    for _ in range(k):
        y = torch.sin(y) + x
    return y.sum(dim=1, keepdim=True)


class ForkWait(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 4))

    def forward(self, x: Tensor) -> Tensor:
        fa = torch.jit.fork(fork_left, x, self.w)
        fb = torch.jit.fork(fork_right, x, 3)
        a = torch.jit.wait(fa)
        b = torch.jit.wait(fb)
        return a * b


class RaiseAssert(nn.Module):
    def forward(self, x: Tensor, k: int) -> Tensor:
        assert x.dim() == 2, "expected a 2-D input"
        if k < 1:
            raise ValueError("k must be positive")
        if x.size(1) < k:
            raise RuntimeError("k larger than the feature count")
        vals, idx = x.topk(k, dim=1)
        return vals.sum(dim=1) + idx.float().mean(dim=1)


class ScalarArgs(nn.Module):
    def forward(self, x: Tensor, n: int, alpha: float, flag: bool, dims: List[int]) -> Tensor:
        y = x.permute(dims)
        if flag:
            y = y * alpha
        else:
            y = y + alpha
        y = y.repeat(1, n, 1) if y.dim() == 3 else y
        return y.sum(dim=[0]) / float(n)


class ModuleContainers(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 3), "reg": nn.Linear(8, 1)})

    def forward(self, x: Tensor) -> Dict[str, Tensor]:
        x = self.seq(x)
        for i, layer in enumerate(self.layers):
            x = layer(x).relu() + x * float(i)
        outs: Dict[str, Tensor] = {}
        for name, head in self.heads.items():
            outs[name] = head(x)
        return outs


class TrainingFlag(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.drop = nn.Dropout(p=0.0)

    def forward(self, x: Tensor) -> Tensor:
        y = self.drop(self.fc(x))
        if self.training:
            return y * 2.0
        return y + 1.0


# --------------------------------------------------------------------------------------------
# Archive-format corners
# --------------------------------------------------------------------------------------------


class TiedParams(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 8)
        self.b.bias = self.a.bias            # same Parameter held by two submodules
        self.out = nn.Linear(8, 10, bias=False)
        self.out.weight = self.emb.weight    # weight tying

    def forward(self, idx: Tensor) -> Tensor:
        h = self.emb(idx)
        return self.out(torch.relu(self.a(h)) + self.b(h))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x))


class SharedSubmodule(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.again = self.block              # the same submodule object, twice
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.again(self.block(x)))


class BufferZoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 4))
        self.frozen = nn.Parameter(torch.randn(4), requires_grad=False)
        self.conv = nn.Conv2d(1, 2, 1, bias=False)
        self.register_buffer("f64", torch.randn(3, dtype=torch.float64))
        self.register_buffer("i64", torch.arange(6).view(2, 3))
        self.register_buffer("flags", torch.tensor([True, False, True, True]))
        self.register_buffer("f16", torch.randn(2, 2).half())
        self.register_buffer("bf16", torch.randn(2, 2).bfloat16())
        self.register_buffer("i8", torch.tensor([-128, -1, 0, 127], dtype=torch.int8))
        self.register_buffer("u8", torch.tensor([0, 1, 128, 255], dtype=torch.uint8))
        self.register_buffer("c64", torch.complex(torch.randn(3), torch.randn(3)))
        self.register_buffer("scalar", torch.tensor(3.5))
        self.register_buffer("empty", torch.zeros(0, 4))
        base = torch.arange(12.0).view(3, 4)
        self.register_buffer("base", base)
        self.register_buffer("base_t", base.t())          # non-contiguous view, shares storage
        self.register_buffer("base_tail", base[1:, 1:])   # view with a storage offset (2x3)

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        y = x @ self.weight + self.frozen * self.flags.float()
        y = y + self.f64.sum().float() + self.f16.float().sum() + self.bf16.float().mean()
        y = y + self.i8.float() + self.u8.float() / 255.0 + self.scalar + self.empty.sum()
        z = self.base_t.matmul(self.base_tail.t()) + float(self.i64.sum().item())
        c = self.c64 * 2.0
        img = self.conv(x.view(1, 1, -1, 4))
        return y, z, torch.view_as_real(c), img


class GetSetState(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0
        self.steps = 3
        self.tag = "v1"
        self.register_buffer("w", torch.randn(4))

    def forward(self, x: Tensor) -> Tensor:
        for _ in range(self.steps):
            x = x * self.scale + self.w
        return x

    @torch.jit.export
    def __getstate__(self) -> Tuple[float, int, str, Tensor, bool]:
        return (self.scale, self.steps, self.tag, self.w, self.training)

    @torch.jit.export
    def __setstate__(self, state: Tuple[float, int, str, Tensor, bool]) -> None:
        self.scale = state[0]
        self.steps = state[1]
        self.tag = state[2]
        self.w = state[3]
        self.training = state[4]


class FinalConstants(nn.Module):
    eps: torch.jit.Final[float]
    depth: torch.jit.Final[int]
    mode: torch.jit.Final[str]
    shape: torch.jit.Final[Tuple[int, int]]
    use_bias: torch.jit.Final[bool]

    def __init__(self):
        super().__init__()
        self.eps = 1e-3
        self.depth = 3
        self.mode = "relu"
        self.shape = (2, 6)
        self.use_bias = True
        self.bias = nn.Parameter(torch.randn(6))

    def forward(self, x: Tensor) -> Tensor:
        for _ in range(self.depth):
            x = x * (1.0 + self.eps)
        if self.mode == "relu":
            x = torch.relu(x)
        else:
            x = torch.sigmoid(x)
        if self.use_bias:
            x = x + self.bias
        table = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        return x.reshape(self.shape) * table


GLOBAL_TABLE = torch.linspace(-1.0, 1.0, 6)


class TensorConstant(nn.Module):
    def forward(self, x):
        offs = torch.tensor([0.5, -0.5, 1.0, 2.0, 0.0, 3.0])  # becomes a constant in the trace
        return x * GLOBAL_TABLE + offs, x.sum(dim=1) * torch.tensor(2.0)


# --------------------------------------------------------------------------------------------
# Trace checking
# --------------------------------------------------------------------------------------------


class TraceGeneralizes(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 5)

    def forward(self, x):
        return self.fc(x.view(x.size(0), -1)).softmax(dim=1)


UP_TABLE = [1.0 + i / 8 for i in range(12)]
DOWN_TABLE = [(-1.0) ** i * 0.5 for i in range(12)]


class DataDependentBranch(nn.Module):
    """Branches on the data. Both branches sit on one source line and trace to the same graph text (a
    12-element tensor constant prints as <Tensor>); only that constant's value differs."""

    def forward(self, x):
        scale = torch.tensor(UP_TABLE if bool(x.sum() > 0) else DOWN_TABLE)  # traced as a constant
        return x * scale


class ShapeDependentLoop(nn.Module):
    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for i in range(x.size(0)):  # unrolled by the tracer: the graph depends on x.size(0)
            acc = acc * 0.5 + x[i]
        return acc


# --------------------------------------------------------------------------------------------
# Model table
# --------------------------------------------------------------------------------------------

IMG = lambda b=1, s=32: r(b, 3, s, s)  # noqa: E731

model("cnn_basic_traced", "traced", "conv(+bias)/bn/relu/maxpool, conv(no bias)/bn/avgpool, adaptive avgpool, flatten, linear")(
    lambda: (BasicCNN(), [(IMG(1),), (IMG(2),)]))
model("cnn_basic_scripted", "scripted", "same CNN as cnn_basic_traced, scripted")(
    lambda: (BasicCNN(), [(IMG(1),), (IMG(2),)]))
model("conv_variants_traced", "traced", "conv stride/padding 5x5, groups, depthwise+dilation (bias=False), 1x1, asymmetric kernel, reflect padding, conv-transpose, adaptive maxpool")(
    lambda: (ConvVariants(), [(IMG(1),), (IMG(2, 24),)]))
model("conv_variants_scripted", "scripted", "same as conv_variants_traced, scripted (padding_mode branch, None bias)")(
    lambda: (ConvVariants(), [(IMG(1),), (IMG(2, 24),)]))
model("resnet_block_traced", "traced", "tiny ResNet: BasicBlocks with downsample, in-place residual add, relu(inplace)")(
    lambda: (TinyResNet(), [(IMG(1),), (IMG(2),)]))
model("resnet_block_scripted", "scripted", "tiny ResNet scripted: Optional downsample submodule (None), residual add")(
    lambda: (TinyResNet(), [(IMG(1),), (IMG(2),)]))
model("inception_cat_traced", "traced", "four branches concatenated with torch.cat, maxpool ceil_mode, mean/amax over dims")(
    lambda: (InceptionCat(), [(IMG(1),), (IMG(2, 20),)]))
model("shuffle_unit_scripted", "scripted", "ShuffleNetV2 unit: chunk, depthwise conv, cat, channel shuffle via view/transpose/contiguous/view (a scripted function)")(
    lambda: (ShuffleUnit(), [(r(1, 16, 16, 16),), (r(2, 16, 8, 8),)]))
model("channel_shuffle_traced", "traced", "channel shuffle via reshape/permute/reshape, grouped convs, tensor.shape unpacking")(
    lambda: (ChannelShuffleReshape(), [(IMG(1, 16),), (IMG(2, 8),)]))
model("se_block_traced", "traced", "squeeze-excite: adaptive avgpool + linear + relu + linear + sigmoid + view + mul")(
    lambda: (SqueezeExcite(), [(IMG(1, 16),), (IMG(2, 16),)]))
model("se_block_scripted", "scripted", "squeeze-excite, scripted (size() tuple unpacking)")(
    lambda: (SqueezeExcite(), [(IMG(1, 16),), (IMG(2, 16),)]))
model("mlp_traced", "traced", "MLP: linear/relu/dropout(eval)/gelu/layernorm/log_softmax")(
    lambda: (MLP(), [(r(4, 16),), (r(7, 16),)]))
model("mlp_scripted", "scripted", "same MLP, scripted")(
    lambda: (MLP(), [(r(4, 16),), (r(1, 16),)]))
model("misc_ops_traced", "traced", "pixel shuffle, interpolate nearest/bilinear, where, hardswish, max with indices, softmax, stack, clamp, matmul, elu; tuple of 5 outputs")(
    lambda: (MiscOps(), [(r(1, 4, 6, 6),), (r(2, 4, 6, 6),)]))
model("multi_io_traced", "traced", "tuple-of-tensors input, dict output (strict=False)", strict=False)(
    lambda: (MultiIO(), [(r(2, 6), (r(2, 3), r(2, 4))), (r(5, 6), (r(5, 3), r(5, 4)))]))
model("lstm_traced", "traced", "nn.LSTM 2 layers batch_first + linear head, returns (out, (h, c))")(
    lambda: (RNNWrap(nn.LSTM(8, 16, num_layers=2, batch_first=True)), [(r(2, 5, 8),), (r(3, 7, 8),)]))
model("lstm_scripted", "scripted", "nn.LSTM 2 layers batch_first, scripted")(
    lambda: (RNNWrap(nn.LSTM(8, 16, num_layers=2, batch_first=True)), [(r(2, 5, 8),), (r(3, 7, 8),)]))
model("gru_traced", "traced", "nn.GRU bidirectional, seq-first + linear head")(
    lambda: (RNNWrap(nn.GRU(8, 12, bidirectional=True)), [(r(5, 2, 8),), (r(7, 3, 8),)]))
model("gru_scripted", "scripted", "nn.GRU bidirectional, seq-first, scripted")(
    lambda: (RNNWrap(nn.GRU(8, 12, bidirectional=True)), [(r(5, 2, 8),), (r(7, 3, 8),)]))
model("transformer_traced", "traced", "nn.TransformerEncoder 2 layers, d_model 32, nhead 4, batch_first, + linear; traced with grad enabled (slow path). Trace check says graphs_differ: torch re-traces the check inputs under no_grad, which takes the fused fast path")(
    lambda: (Encoder(), [(r(2, 6, 32),), (r(3, 4, 32),)]))
model("transformer_nograd_traced", "traced", "nn.TransformerEncoder as transformer_traced, traced under torch.no_grad(): the fused fast path (aten::_transformer_encoder_layer_fwd)", no_grad=True)(
    lambda: (Encoder(), [(r(2, 6, 32),), (r(3, 4, 32),)]))
model("transformer_scripted", "scripted", "nn.TransformerEncoder 2 layers, d_model 32, nhead 4, batch_first, scripted (fast path + slow path)")(
    lambda: (Encoder(), [(r(2, 6, 32),), (r(3, 4, 32),)]))
model("control_flow_scripted", "scripted", "for/range, if-elif-else, continue, break, while with data-dependent condition; returns (Tensor, int)")(
    lambda: (ControlFlow(), [(r(3, 4), 5), (-r(3, 4).abs(), 11)]))
model("containers_scripted", "scripted", "List[Tensor] input; dicts (str and int keys), list comprehension, append/insert/pop/slice, enumerate, `in`, tuple output")(
    lambda: (Containers(), [(r(3, 4), [r(2), r(5)]), (r(2, 2), [r(1), r(3), r(4)])]))
model("strings_scripted", "scripted", "str inputs: split, strip, startswith, slice, upper/lower/replace, join, format; returns (str, List[str], Tensor)")(
    lambda: (Strings(), [(r(2), "alpha, #beta ,gamma,,", ","), (r(3), "one two #three", " ")]))
model("optional_scripted", "scripted", "Optional[Tensor]/Optional[int] args with `is not None` refinement, Optional local, assert")(
    lambda: (OptionalArgs(), [(r(2, 3), r(3), 4), (r(2, 3), None, None)]))
model("namedtuple_scripted", "scripted", "typing.NamedTuple input (passed as a plain tuple) and NamedTuple output")(
    lambda: (NamedTupleIO(), [((r(3, 2), r(3, 2) + 1.0), 2.0), ((r(1, 2), r(1, 2) + 0.5), 0.5)]))
model("script_class_scripted", "scripted", "a @torch.jit.script class (Accumulator) constructed and mutated in forward")(
    lambda: (UsesScriptClass(), [([r(2), r(3, 3)],), ([r(4)],)]))
model("interface_scripted", "scripted", "@torch.jit.interface type with two implementations held as submodules")(
    lambda: (InterfaceHolder(), [(r(2, 4),), (r(3, 4),)]))
model("exports_scripted", "scripted", "several @torch.jit.export methods (encode, decode with default arg, num_features -> int, describe -> str)")(
    lambda: (MultiMethod(), [(r(2, 6),), (r(5, 6),)]))
model("fork_wait_scripted", "scripted", "torch.jit.fork/wait of two independent branches (free functions)")(
    lambda: (ForkWait(), [(r(3, 8),), (r(5, 8),)]))
model("raise_assert_scripted", "scripted", "assert with message, raise ValueError/RuntimeError on bad args (inputs do not raise), topk")(
    lambda: (RaiseAssert(), [(r(3, 5), 2), (r(2, 4), 4)]))
model("scalar_args_scripted", "scripted", "int, float, bool and List[int] arguments")(
    lambda: (ScalarArgs(), [(r(2, 3, 4), 2, 0.5, True, [0, 2, 1]), (r(3, 2, 2), 3, -1.25, False, [1, 0, 2])]))
model("module_containers_scripted", "scripted", "nn.Sequential, nn.ModuleList iterated with enumerate, nn.ModuleDict .items(); Dict[str, Tensor] output")(
    lambda: (ModuleContainers(), [(r(2, 8),), (r(4, 8),)]))
model("training_flag_scripted", "scripted", "saved in TRAINING mode: branches on self.training, Dropout(p=0)", train=True)(
    lambda: (TrainingFlag(), [(r(2, 4),), (r(3, 4),)]))
model("tied_params_scripted", "scripted", "a Parameter shared by two submodules (b.bias is a.bias) and embedding/output weight tying")(
    lambda: (TiedParams(), [(torch.tensor([[1, 2, 3], [4, 5, 9]]),), (torch.tensor([[0, 7]]),)]))
model("shared_submodule_traced", "traced", "the same submodule object held under two names and called twice")(
    lambda: (SharedSubmodule(), [(r(2, 8),), (r(3, 8),)]))
model("shared_submodule_scripted", "scripted", "the same submodule object held under two names and called twice, scripted")(
    lambda: (SharedSubmodule(), [(r(2, 8),), (r(3, 8),)]))
model("buffer_zoo_scripted", "scripted", "requires_grad=False parameter, conv bias=None, buffers float64/int64/bool/float16/bfloat16/int8/uint8/complex64, 0-dim, numel-0, non-contiguous views sharing storage (transpose, offset slice)")(
    lambda: (BufferZoo(), [(r(2, 4),), (r(5, 4),)]))
model("extra_files_traced", "traced", "small CNN saved with _extra_files meta.json and notes.txt",
      extra_files={"meta.json": json.dumps({"name": "extra_files_traced", "input": [1, 3, 16, 16], "labels": ["a", "b"]}),
                   "notes.txt": "Saved by testdata/gen/make_corpus.py.\nSecond line.\n"})(
    lambda: (nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2)),
             [(IMG(1, 16),), (IMG(3, 16),)]))
model("getstate_scripted", "scripted", "scripted module defining both __getstate__ and __setstate__ (state pickled as a tuple)")(
    lambda: (GetSetState(), [(r(4),), (r(2, 4),)]))
model("final_constants_scripted", "scripted", "Final[float/int/str/Tuple/bool] constants, constant-folded branch, torch.tensor literal in forward")(
    lambda: (FinalConstants(), [(r(2, 6),), (r(1, 2, 6),)]))
model("tensor_constant_traced", "traced", "traced forward that creates torch.tensor(...) and captures a global tensor -> constants.pkl / CONSTANTS.cN")(
    lambda: (TensorConstant(), [(r(2, 6),), (r(4, 6),)]))
model("trace_ok_traced", "traced", "trace check: view(x.size(0), -1) + linear generalizes across batch sizes (ok)")(
    lambda: (TraceGeneralizes(), [(r(2, 3, 4),), (r(5, 3, 4),), (r(1, 3, 4),)]))
model("trace_outputs_differ_traced", "traced", "trace check: data-dependent if on x.sum(); same graph text, different tensor constant -> outputs differ")(
    lambda: (DataDependentBranch(), [(r(3, 12).abs(),), (-r(3, 12).abs(),), (r(2, 12).abs(),)]))
model("trace_graphs_differ_traced", "traced", "trace check: python loop over x.size(0) is unrolled -> graphs differ for another batch size")(
    lambda: (ShapeDependentLoop(), [(r(3, 4),), (r(5, 4),), (r(3, 4),)]))


def _squeezenet():
    import torchvision
    return torchvision.models.squeezenet1_1(weights=None), [(IMG(1, 64),), (IMG(2, 48),)]


def _shufflenet():
    import torchvision
    return torchvision.models.shufflenet_v2_x0_5(weights=None), [(IMG(1, 64),), (IMG(2, 32),)]


model("squeezenet1_1_traced", "traced", "torchvision squeezenet1_1 (random init), traced")(_squeezenet)
model("shufflenet_v2_x0_5_scripted", "scripted", "torchvision shufflenet_v2_x0_5 (random init), scripted")(_shufflenet)


# --------------------------------------------------------------------------------------------
# Writer (runs in a child process, one model each)
# --------------------------------------------------------------------------------------------


def clone_inputs(x):
    return copy.deepcopy(x)


def trace_verdict(module, inputs, strict):
    """What torch.jit.trace(check_inputs=...) says about the original Python module."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch.jit.trace(copy.deepcopy(module), clone_inputs(inputs[0]), strict=strict,
                            check_inputs=[clone_inputs(i) for i in inputs])
        except torch.jit.TracingCheckError as e:
            return "graphs_differ" if "Graphs differed" in str(e) else "outputs_differ"
    if any("does not match the corresponding output" in str(w.message) for w in caught):
        return "outputs_differ"
    return "ok"


def to_plain(x):
    """Results for torch.save: NamedTuples become plain tuples (their classes are not importable)."""
    if isinstance(x, tuple):
        return tuple(to_plain(v) for v in x)
    if isinstance(x, list):
        return [to_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: to_plain(v) for k, v in x.items()}
    return x


def tensor_rows(named):
    return [{"name": n, "dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
             "bytes": t.numel() * t.element_size()} for n, t in named]


def write_text(path, text):
    with open(path, "w") as f:
        f.write(text)


def write_golden(name, archive, inputs):
    out = os.path.join(GOLDEN_DIR, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    m = torch.jit.load(archive)

    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        root = names[0].split("/")[0]
        vrec = f"{root}/version" if f"{root}/version" in names else f"{root}/.data/version"  # file format >= 6
        version = int(z.read(vrec).decode().strip())
        extra = sorted(n[len(root) + len("/extra/"):] for n in names if n.startswith(f"{root}/extra/"))
    params = tensor_rows(m.named_parameters())
    buffers = tensor_rows(m.named_buffers())
    methods = sorted(m._c._method_names())
    info = {
        "format_version": version,
        "root": root,
        "class": m._c._type().qualified_name(),
        "methods": methods,
        "method_schemas": {meth: str(m._c._get_method(meth).schema) for meth in methods},
        "parameters": params,
        "buffers": buffers,
        "extra_files": extra,
        "total_parameters": sum(p.numel() for _, p in m.named_parameters()),
        "total_bytes": sum(row["bytes"] for row in params + buffers),
    }
    write_text(os.path.join(out, "info.json"), json.dumps(info, indent=1) + "\n")

    write_text(os.path.join(out, "graph.txt"), str(m.graph))
    write_text(os.path.join(out, "inlined_graph.txt"), str(m.inlined_graph))
    write_text(os.path.join(out, "code.txt"), m.code)
    for meth in methods:
        if meth == "forward":
            continue
        fn = m._c._get_method(meth)  # getattr(m, "__getstate__") would find object.__getstate__
        write_text(os.path.join(out, f"graph.{meth}.txt"), str(fn.graph))
        write_text(os.path.join(out, f"code.{meth}.txt"), fn.code)

    with torch.no_grad():
        for i, inp in enumerate(inputs):
            torch.save(to_plain(m(*copy.deepcopy(inp))), os.path.join(out, f"out{i}.pt"))

    for fname, make in (("frozen_graph.txt", torch.jit.freeze),
                        ("optimized_graph.txt", torch.jit.optimize_for_inference)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                write_text(os.path.join(out, fname), str(make(copy.deepcopy(m).eval()).graph))
        except Exception as e:  # noqa: BLE001 - freezing is allowed to fail
            print(f"{name}: {fname} skipped: {type(e).__name__}: {str(e).splitlines()[0][:120]}", file=sys.stderr)


def generate(name):
    spec = REGISTRY[name]
    torch.manual_seed(0)
    module, inputs = spec["build"]()
    if not spec["train"]:
        module.eval()
    archive = os.path.join(MODELS_DIR, f"{name}.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if spec["kind"] == "traced":
            with torch.set_grad_enabled(not spec["no_grad"]):
                sm = torch.jit.trace(module, clone_inputs(inputs[0]), check_trace=False,
                                     strict=spec["strict"])
        else:
            sm = torch.jit.script(module)
    torch.jit.save(sm, archive, _extra_files=spec["extra_files"] or {})
    for i, inp in enumerate(inputs):
        assert isinstance(inp, tuple)
        torch.save(inp, os.path.join(MODELS_DIR, f"{name}.in{i}.pt"))
    write_golden(name, archive, inputs)
    entry = {"kind": spec["kind"], "description": spec["description"]}
    if spec["kind"] == "traced":
        with torch.set_grad_enabled(not spec["no_grad"]):
            entry["trace_verdict"] = trace_verdict(module, inputs, spec["strict"])
    return entry


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------

MARK = "@@MANIFEST@@ "


REPO = os.path.normpath(os.path.join(ROOT, ".."))
SELF = os.path.relpath(os.path.abspath(__file__), REPO)  # testdata/gen/make_corpus.py
# The child runs this file compiled under its repo-relative name (cwd = repo root): source locations
# that the tracer records, and that archives and golden graphs keep, do not depend on the checkout path.
CHILD = """import sys, types
sys.argv = sys.argv[1:]
m = types.ModuleType("__main__"); m.__file__ = sys.argv[0]; sys.modules["__main__"] = m
exec(compile(open(sys.argv[0]).read(), sys.argv[0], "exec"), m.__dict__)"""


def run_child(name):
    # PYTHONHASHSEED: __constants__ is a set of str; its order shows up in the archive's class code.
    env = dict(os.environ, PYTHONHASHSEED="0")
    p = subprocess.run([sys.executable, "-c", CHILD, SELF, "--child", name],
                       capture_output=True, text=True, cwd=REPO, env=env)
    entry = None
    for line in p.stdout.splitlines():
        if line.startswith(MARK):
            entry = json.loads(line[len(MARK):])
    return name, p.returncode, entry, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated model names")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 1))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()

    if a.child:
        torch.set_num_threads(1)
        print(MARK + json.dumps(generate(a.child)), flush=True)
        return
    if a.list:
        for n, s in REGISTRY.items():
            print(f"{n:32} {s['kind']:9} {s['description']}")
        return

    manifest_path = os.path.join(MODELS_DIR, "manifest.json")
    if a.only:
        names = a.only.split(",")
        unknown = [n for n in names if n not in REGISTRY]
        if unknown:
            sys.exit(f"unknown model(s): {', '.join(unknown)}")
        manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {}
        for n in names:
            for f in os.listdir(MODELS_DIR):
                if f == f"{n}.pt" or (f.startswith(f"{n}.in") and f.endswith(".pt")):
                    os.remove(os.path.join(MODELS_DIR, f))
    else:
        names = list(REGISTRY)
        manifest = {}
        shutil.rmtree(MODELS_DIR, ignore_errors=True)
        shutil.rmtree(GOLDEN_DIR, ignore_errors=True)
    os.makedirs(MODELS_DIR, exist_ok=True)
    os.makedirs(GOLDEN_DIR, exist_ok=True)

    failed = []
    with ThreadPoolExecutor(a.jobs) as pool:
        for name, rc, entry, err in pool.map(run_child, names):
            notes = [ln for ln in err.splitlines() if ln.startswith(name + ":")]
            if rc != 0 or entry is None:
                failed.append(name)
                print(f"FAIL {name}\n{err[-3000:]}", file=sys.stderr)
                manifest.pop(name, None)
                continue
            manifest[name] = entry
            verdict = entry.get("trace_verdict", "")
            print(f"ok   {name:32} {entry['kind']:9} {verdict}")
            for ln in notes:
                print(f"     {ln}")
    with open(manifest_path, "w") as f:
        json.dump(dict(sorted(manifest.items())), f, indent=1)
        f.write("\n")
    if failed:
        sys.exit(f"{len(failed)} model(s) failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
