#!/usr/bin/python3
"""Held-out cases for `jitctl check-trace`: models nobody here tuned the tracer on, each with the
verdict of torch.jit.trace(module, in0, check_inputs=[in0, in1, ...]) on its Python.

    /usr/bin/python3 tests/oracle/make_trace_unseen.py /tmp/trace_unseen [--no-vision] [--only a,b]
    /usr/bin/python3 ../shared/oracle/compat.py --jitctl build/cli/jitctl --models /tmp/trace_unseen --checks check_trace

For every case NAME the directory gets, in the flat layout ../shared/oracle/compat.py reads:
  NAME_s.pt            torch.jit.script(module)  (what jitctl traces itself)
  NAME_t.pt            torch.jit.trace(module, in0, check_trace=False)  (only the trace is kept)
  NAME_{s,t}.in{i}.pt  the input sets (torch.save of the positional-argument tuple)
  manifest.json        {"NAME_s": {"trace_verdict": "ok" | "graphs_differ" | "outputs_differ",
                                   "kind": "scripted" | "traced", "family": ..., "description": ...}}
A case whose Python cannot be scripted (or traced) gets only the other archive; a case torch
cannot check at all (its Python raises on a check input) is left out and listed.

The verdict is PyTorch 1.13's: a TracingCheckError whose message says the graphs differed is
"graphs_differ", any other TracingCheckError (tensor constants, a trace that raises on a check
input) or an "Output nr N. ... does not match" TracerWarning is "outputs_differ", else "ok".
Families: shape-dependent loops and branches, int()/float()/.item() of tensors, masks, slicing by
size, unbind loops, random ops, dropout in training mode, stable feed-forward nets, vision models.
Seeds are fixed: the same torch writes the same directory.
"""
import argparse, copy, json, math, os, sys, warnings
from typing import List, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

CASES = {}  # name -> (family, description, build, train)


def case(name, family, description, train=False):
    def deco(build):
        CASES[name] = (family, description, build, train)
        return build
    return deco


def r(*shape):
    return torch.randn(*shape)


# ---- shape-dependent loops and branches ----

class LoopDim1(nn.Module):
    def forward(self, x):
        acc = torch.zeros_like(x[:, 0])
        for i in range(x.size(1)):
            acc = acc + x[:, i] * (i + 1)
        return acc


class WhileHalve(nn.Module):
    def forward(self, x):
        n = x.size(0)
        while n > 1:
            h = n // 2
            x = x[:h] + x[h:2 * h]
            n = h
        return x


class RankBranch(nn.Module):
    def forward(self, x):
        if x.dim() == 3:
            x = x.mean(1)
        return torch.relu(x)


class NumelBranch(nn.Module):
    def forward(self, x):
        if x.numel() > 12:
            return x.flatten()[:12] * 2.0
        return x.flatten()


class SquareBranch(nn.Module):
    def forward(self, x):
        if x.size(0) == x.size(1):
            return x @ x
        return x @ x.t()


class FeatureBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        if x.size(-1) == 6:
            return self.fc(x)
        return self.fc(x[..., :6])


class ListSum(nn.Module):
    def forward(self, xs: List[Tensor]):
        out = xs[0]
        for t in xs[1:]:
            out = out * t
        return out


class MinOfSize(nn.Module):
    """Python's min() returns one of its arguments: the traced size itself when it is smaller."""
    def forward(self, x):
        k = min(x.size(0), 4)
        return x[:k].sum(0)


class FixedRange(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 5)

    def forward(self, x):
        for _ in range(3):
            x = torch.tanh(self.fc(x))
        return x


# ---- int() / float() / .item() of tensors ----

class IntArgmax(nn.Module):
    def forward(self, x):
        k = int(x.sum(1).argmax())
        return x[k]


class FloatStd(nn.Module):
    def forward(self, x):
        return (x - x.mean()) / float(x.std())


class IntOfSize(nn.Module):
    def forward(self, x):
        n = int(x.size(0))
        return x.reshape(n, -1).sum(1)


class FloatOfSize(nn.Module):
    def forward(self, x):
        return x / float(x.size(1))


class SqrtOfSize(nn.Module):
    """Attention scaled by math.sqrt of the feature size: a Python float in the trace."""
    def forward(self, q, k):
        s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        return torch.softmax(s, -1)


class ItemThreshold(nn.Module):
    def forward(self, x):
        t = x.mean().item()
        return (x > t).float() * x


class IntCountZero(nn.Module):
    """int() of a count that is 0 on every input set: baked, but the same constant each time."""
    def forward(self, x):
        k = int((x.abs() > 1000.0).sum())
        return x * (k + 1)


class ItemClamp(nn.Module):
    def forward(self, x):
        m = x.abs().max().item()
        return x.clamp(min=-0.5 * m, max=0.5 * m)


# ---- masks ----

class WhereRelu(nn.Module):
    def forward(self, x):
        return torch.where(x > 0, x, torch.zeros_like(x))


class MaskAssign(nn.Module):
    def forward(self, x):
        y = x.clone()
        y[y < 0] = 0.0
        return y * 3.0


class MaskedMean(nn.Module):
    def forward(self, x):
        m = (x > 0).float()
        return (x * m).sum(1) / m.sum(1).clamp(min=1.0)


class MaskedSelectAbove(nn.Module):
    def forward(self, x):
        return torch.masked_select(x, x.abs() > x.abs().mean()).sum()


class NonzeroCount(nn.Module):
    def forward(self, x):
        idx = torch.nonzero(x > 0)
        return idx.float().mean(0)


class PadMask(nn.Module):
    def forward(self, x, lengths):
        pos = torch.arange(x.size(1)).unsqueeze(0)
        mask = pos < lengths.unsqueeze(1)
        return x.masked_fill(~mask.unsqueeze(-1), 0.0).sum(1)


# ---- slicing by size ----

class HalfSplit(nn.Module):
    def forward(self, x):
        n = x.size(0) // 2
        return x[:n] - x[n:2 * n]


class NarrowInner(nn.Module):
    def forward(self, x):
        return x.narrow(1, 1, x.size(1) - 2)


class ChunkGate(nn.Module):
    def forward(self, x):
        a, b = x.chunk(2, 1)
        return a * torch.sigmoid(b)


class SplitLoop(nn.Module):
    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for p in x.split(2, 0):
            acc = acc + p.sum(0)
        return acc


class LastColumn(nn.Module):
    def forward(self, x):
        return x[:, x.size(1) - 1]


class PadToMultiple(nn.Module):
    def forward(self, x):
        return F.pad(x, (0, 8 - x.size(-1) % 8))


class ViewFromShape(nn.Module):
    def forward(self, x):
        b, c, h, w = x.shape
        return x.view(b, c, h * w).mean(-1)


class OnesColumn(nn.Module):
    def forward(self, x):
        return torch.cat([x, x.new_ones(x.size(0), 1)], 1)


# ---- unbind loops ----

class UnbindCols(nn.Module):
    def forward(self, x):
        acc = torch.ones_like(x[:, 0])
        for c in x.unbind(1):
            acc = acc * torch.sigmoid(c)
        return acc


class ZipUnbind(nn.Module):
    def forward(self, x, y):
        out = torch.zeros_like(x[0])
        for a, b in zip(x.unbind(0), y.unbind(0)):
            out = out + a * b
        return out


class IterRows(nn.Module):
    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for row in x:
            acc = torch.maximum(acc, row)
        return acc


class StackComprehension(nn.Module):
    def forward(self, x):
        return torch.stack([t * 2.0 for t in x.unbind(0)], 1)


# ---- random ops ----

class RandnNoise(nn.Module):
    def forward(self, x):
        return x + 0.1 * torch.randn_like(x)


class RandMask(nn.Module):
    def forward(self, x):
        return x * (torch.rand(x.size(0), x.size(1)) > 0.5).float()


class RandpermShuffle(nn.Module):
    def forward(self, x):
        return x[torch.randperm(x.size(0))]


class Bernoulli(nn.Module):
    def forward(self, x):
        return torch.bernoulli(torch.sigmoid(x))


class NormalInplace(nn.Module):
    def forward(self, x):
        return x + torch.empty_like(x).normal_()


class RandomTimesZero(nn.Module):
    """A random op whose samples never reach the output: the outputs match."""
    def forward(self, x):
        return x + 0.0 * torch.rand_like(x)


# ---- dropout ----

class DropoutMLP(nn.Module):
    def __init__(self, p=0.2):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


class FunctionalDropout(nn.Module):
    def forward(self, x):
        return F.dropout(x, 0.3, self.training) * 2.0


class AlphaDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.d = nn.AlphaDropout(0.2)

    def forward(self, x):
        return self.d(torch.selu(x))


class Dropout2d(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.d = nn.Dropout2d(0.5)

    def forward(self, x):
        return self.d(self.conv(x))


# ---- stable feed-forward nets ----

class GeluLayerNormMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 24), nn.GELU(), nn.LayerNorm(24), nn.Linear(24, 6))

    def forward(self, x):
        return self.net(x)


class ResidualMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(10, 10) for _ in range(3)])
        self.out = nn.Linear(10, 3)

    def forward(self, x):
        for b in self.blocks:
            x = x + torch.relu(b(x))
        return torch.softmax(self.out(x), -1)


class Conv1dNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 8, 3, padding=1)
        self.c2 = nn.Conv1d(8, 8, 3, padding=1, groups=2)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        y = torch.relu(self.c2(torch.relu(self.c1(x))))
        return self.head(y.mean(-1))


class LSTMHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        return self.fc(y[:, -1]) + c.sum(0)[:, :3]


class GRUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(5, 7, num_layers=2)

    def forward(self, x):
        y, h = self.gru(x)
        return y.sum(0) + h[-1]


class EmbedMean(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, ids):
        return self.fc(self.emb(ids).mean(1))


class TinyMHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x):
        y, w = self.attn(x, x, x)
        return y, w


class EncoderLayerEval(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)

    def forward(self, x):
        return self.layer(x)


class UpsampleScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 1)

    def forward(self, x):
        return self.conv(F.interpolate(x, scale_factor=2.0, mode="nearest"))


class BatchNormTrain(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.bn = nn.BatchNorm1d(6)

    def forward(self, x):
        return self.bn(self.fc(x))


class InterpRecompute(nn.Module):
    """F.interpolate(recompute_scale_factor=True): Python's tracing branch keeps the size traced."""
    def forward(self, x):
        return F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False, recompute_scale_factor=True)


class RangeLen(nn.Module):
    """for i in range(len(x)): len() of a tensor is a Python int."""
    def forward(self, x):
        out = torch.zeros_like(x[0])
        for i in range(len(x)):
            out = out + x[i] * float(i)
        return out


class ArangeSize(nn.Module):
    def forward(self, x):
        pos = torch.arange(x.size(1), dtype=torch.float32)
        return x + pos


class ExpandRows(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(1, 4))

    def forward(self, x):
        return x + self.bias.expand(x.size(0), -1)


class SharedTwice(nn.Module):
    """One submodule called twice (forward, forward1 in the traced module)."""
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Linear(6, 6), nn.Tanh())
        self.head = nn.Linear(6, 2)

    def forward(self, x):
        return self.head(self.block(self.block(x)))


class CatLoop(nn.Module):
    def forward(self, x):
        parts = []
        for i in range(x.size(0)):
            parts.append(x[i:i + 1] * 2.0)
        return torch.cat(parts, 0)


class TupleOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x) -> Tuple[Tensor, Tensor]:
        y = self.fc(x)
        return y, y.softmax(-1)


class ShapeTupleView(nn.Module):
    def forward(self, x):
        shape = x.shape
        return x.reshape(shape[0] * shape[1], shape[2]).mean(0)


# ---- the cases: (module, input sets) ----

def cases():
    case("loop_dim1", "shape", "loop over x.size(1); sets differ in dim 1")(lambda: (LoopDim1(), [(r(3, 4),), (r(3, 6),)]))
    case("loop_dim1_same", "shape", "loop over x.size(1); only dim 0 differs")(lambda: (LoopDim1(), [(r(3, 4),), (r(5, 4),)]))
    case("while_halve", "shape", "while n > 1 halving x.size(0): 3 vs 2 iterations")(lambda: (WhileHalve(), [(r(8, 3),), (r(4, 3),)]))
    case("while_halve_same", "shape", "while loop on x.size(0), same size")(lambda: (WhileHalve(), [(r(8, 3),), (r(8, 5),)]))
    case("rank_branch", "shape", "if x.dim() == 3, ranks differ")(lambda: (RankBranch(), [(r(2, 3, 4),), (r(2, 4),)]))
    case("rank_branch_same", "shape", "if x.dim() == 3, every set 3-D")(lambda: (RankBranch(), [(r(2, 3, 4),), (r(5, 2, 4),)]))
    case("numel_branch", "shape", "if x.numel() > 12, sides differ")(lambda: (NumelBranch(), [(r(4, 4),), (r(3, 4),)]))
    case("square_branch", "shape", "if square: x @ x else x @ x.t(); sides differ")(lambda: (SquareBranch(), [(r(3, 3),), (r(3, 5),)]))
    case("square_branch_same", "shape", "if square, every set square")(lambda: (SquareBranch(), [(r(3, 3),), (r(4, 4),)]))
    case("feature_branch", "shape", "if x.size(-1) == 6 then linear; batch varies")(lambda: (FeatureBranch(), [(r(2, 6),), (r(5, 6),)]))
    case("list_input_loop", "shape", "loop over a list argument of 3 vs 2 tensors")(
        lambda: (ListSum(), [([r(2, 3), r(2, 3), r(2, 3)],), ([r(2, 3), r(2, 3)],)]))
    case("list_input_same", "shape", "loop over a list argument, same length")(
        lambda: (ListSum(), [([r(2, 3), r(2, 3)],), ([r(4, 3), r(4, 3)],)]))
    case("min_of_size_small", "shape", "k = min(x.size(0), 4), the size smaller on every set")(
        lambda: (MinOfSize(), [(r(2, 3),), (r(3, 3),)]))
    case("min_of_size_mixed", "shape", "k = min(x.size(0), 4), size below then above 4")(
        lambda: (MinOfSize(), [(r(2, 3),), (r(6, 3),)]))
    case("min_of_size_large", "shape", "k = min(x.size(0), 4), the size larger on every set")(
        lambda: (MinOfSize(), [(r(5, 3),), (r(7, 3),)]))
    case("fixed_range", "shape", "for _ in range(3): a fixed loop")(lambda: (FixedRange(), [(r(2, 5),), (r(6, 5),)]))

    case("int_argmax", "int_float", "x[int(argmax)]: another row on the second set")(
        lambda: (IntArgmax(), [(torch.tensor([[1.0, 2.0], [5.0, 5.0], [0.0, 0.0]]),), (torch.tensor([[9.0, 9.0], [1.0, 0.0], [2.0, 2.0]]),)]))
    case("int_argmax_same", "int_float", "x[int(argmax)]: the same row on every set")(
        lambda: (IntArgmax(), [(torch.tensor([[1.0, 2.0], [5.0, 5.0]]),), (torch.tensor([[0.0, 1.0], [3.0, 2.0], [-1.0, 0.0]]),)]))
    case("float_std", "int_float", "/ float(x.std())")(lambda: (FloatStd(), [(r(4, 4),), (r(4, 4) * 3,)]))
    case("int_of_size", "int_float", "reshape(int(x.size(0)), -1); batch differs")(lambda: (IntOfSize(), [(r(2, 3, 2),), (r(4, 3, 2),)]))
    case("int_of_size_same", "int_float", "reshape(int(x.size(0)), -1); batch the same")(lambda: (IntOfSize(), [(r(2, 3, 2),), (r(2, 5, 2),)]))
    case("float_of_size", "int_float", "x / float(x.size(1)); dim 1 differs")(lambda: (FloatOfSize(), [(r(2, 4),), (r(2, 8),)]))
    case("sqrt_of_size", "int_float", "q @ k^T / math.sqrt(q.size(-1)); feature size the same")(
        lambda: (SqrtOfSize(), [(r(2, 3, 4), r(2, 5, 4)), (r(1, 6, 4), r(1, 2, 4))]))
    case("sqrt_of_size_differ", "int_float", "q @ k^T / math.sqrt(q.size(-1)); feature size differs")(
        lambda: (SqrtOfSize(), [(r(2, 3, 4), r(2, 5, 4)), (r(2, 3, 9), r(2, 5, 9))]))
    case("item_threshold", "int_float", "x > x.mean().item()")(lambda: (ItemThreshold(), [(r(3, 4),), (r(3, 4) + 2,)]))
    case("int_count_zero", "int_float", "int() of a count that is 0 on every set")(lambda: (IntCountZero(), [(r(3, 4),), (r(5, 4),)]))
    case("item_clamp", "int_float", "clamp to half of x.abs().max().item()")(lambda: (ItemClamp(), [(r(3, 4),), (r(3, 4) * 4,)]))

    case("where_relu", "mask", "torch.where(x > 0, x, 0)")(lambda: (WhereRelu(), [(r(3, 4),), (r(6, 2),)]))
    case("mask_assign", "mask", "y[y < 0] = 0")(lambda: (MaskAssign(), [(r(3, 4),), (r(5, 5),)]))
    case("masked_mean", "mask", "mean over positive entries")(lambda: (MaskedMean(), [(r(3, 4),), (r(2, 7),)]))
    case("masked_select_above", "mask", "masked_select of entries above the mean")(lambda: (MaskedSelectAbove(), [(r(3, 4),), (r(6, 6),)]))
    case("nonzero_count", "mask", "nonzero(x > 0)")(lambda: (NonzeroCount(), [(r(3, 4),), (r(5, 2),)]))
    case("pad_mask", "mask", "a length mask from arange(x.size(1))")(
        lambda: (PadMask(), [(r(2, 5, 3), torch.tensor([2, 5])), (r(3, 7, 3), torch.tensor([1, 7, 4]))]))

    case("half_split", "slice", "x[:n] - x[n:2n], n = x.size(0) // 2")(lambda: (HalfSplit(), [(r(4, 3),), (r(7, 3),)]))
    case("narrow_inner", "slice", "x.narrow(1, 1, x.size(1) - 2)")(lambda: (NarrowInner(), [(r(2, 5),), (r(3, 9),)]))
    case("chunk_gate", "slice", "a, b = x.chunk(2, 1): a * sigmoid(b)")(lambda: (ChunkGate(), [(r(2, 6),), (r(3, 10),)]))
    case("split_loop", "slice", "loop over x.split(2): 2 vs 3 parts")(lambda: (SplitLoop(), [(r(4, 3),), (r(6, 3),)]))
    case("split_loop_same", "slice", "loop over x.split(2): the same parts")(lambda: (SplitLoop(), [(r(4, 3),), (r(4, 5),)]))
    case("last_column", "slice", "x[:, x.size(1) - 1]")(lambda: (LastColumn(), [(r(2, 5),), (r(3, 8),)]))
    case("pad_to_multiple", "slice", "F.pad to a multiple of 8 from x.size(-1)")(lambda: (PadToMultiple(), [(r(2, 5),), (r(2, 11),)]))
    case("view_from_shape", "slice", "b, c, h, w = x.shape; view(b, c, h * w)")(lambda: (ViewFromShape(), [(r(1, 2, 3, 4),), (r(2, 3, 5, 2),)]))
    case("ones_column", "slice", "cat with x.new_ones(x.size(0), 1)")(lambda: (OnesColumn(), [(r(2, 3),), (r(5, 4),)]))

    case("unbind_cols", "unbind", "for c in x.unbind(1): 4 vs 3 columns")(lambda: (UnbindCols(), [(r(2, 4),), (r(2, 3),)]))
    case("unbind_cols_same", "unbind", "for c in x.unbind(1): same columns")(lambda: (UnbindCols(), [(r(2, 4),), (r(6, 4),)]))
    case("zip_unbind", "unbind", "zip(x.unbind(0), y.unbind(0)); sizes differ")(
        lambda: (ZipUnbind(), [(r(3, 2), r(3, 2)), (r(2, 2), r(2, 2))]))
    case("zip_unbind_same", "unbind", "zip(x.unbind(0), y.unbind(0)); same sizes")(
        lambda: (ZipUnbind(), [(r(3, 2), r(3, 2)), (r(3, 5), r(3, 5))]))
    case("iter_rows", "unbind", "for row in x: rows differ")(lambda: (IterRows(), [(r(3, 4),), (r(5, 4),)]))
    case("iter_rows_same", "unbind", "for row in x: same rows")(lambda: (IterRows(), [(r(3, 4),), (r(3, 2),)]))
    case("stack_comprehension", "unbind", "stack([t * 2 for t in x.unbind(0)], 1)")(
        lambda: (StackComprehension(), [(r(2, 3),), (r(4, 3),)]))

    case("randn_noise", "random", "x + 0.1 * randn_like(x)")(lambda: (RandnNoise(), [(r(3, 4),), (r(3, 4),)]))
    case("rand_mask", "random", "x * (rand(x.size(0), x.size(1)) > 0.5)")(lambda: (RandMask(), [(r(6, 5),), (r(4, 5),)]))
    case("randperm_shuffle", "random", "x[randperm(x.size(0))]")(lambda: (RandpermShuffle(), [(r(6, 3),), (r(5, 3),)]))
    case("bernoulli", "random", "bernoulli(sigmoid(x))")(lambda: (Bernoulli(), [(r(5, 5),), (r(4, 6),)]))
    case("normal_inplace", "random", "x + empty_like(x).normal_()")(lambda: (NormalInplace(), [(r(3, 4),), (r(2, 2),)]))
    case("random_times_zero", "random", "x + 0.0 * rand_like(x): samples never reach the output")(
        lambda: (RandomTimesZero(), [(r(3, 4),), (r(2, 5),)]))

    case("dropout_mlp_train", "dropout", "MLP with nn.Dropout(0.2), training mode", train=True)(
        lambda: (DropoutMLP(), [(r(4, 8),), (r(3, 8),)]))
    case("dropout_mlp_eval", "dropout", "MLP with nn.Dropout(0.2), eval mode")(lambda: (DropoutMLP(), [(r(4, 8),), (r(3, 8),)]))
    case("dropout_p0_train", "dropout", "nn.Dropout(0.0) in training mode: nothing dropped", train=True)(
        lambda: (DropoutMLP(0.0), [(r(4, 8),), (r(3, 8),)]))
    case("functional_dropout_train", "dropout", "F.dropout(x, 0.3, self.training), training mode", train=True)(
        lambda: (FunctionalDropout(), [(r(5, 6),), (r(2, 6),)]))
    case("alpha_dropout_train", "dropout", "nn.AlphaDropout(0.2), training mode", train=True)(
        lambda: (AlphaDropout(), [(r(5, 6),), (r(2, 6),)]))
    case("dropout2d_train", "dropout", "nn.Dropout2d(0.5) after a conv, training mode", train=True)(
        lambda: (Dropout2d(), [(r(2, 3, 6, 6),), (r(1, 3, 5, 5),)]))

    case("gelu_layernorm_mlp", "feed_forward", "linear/gelu/layernorm/linear")(
        lambda: (GeluLayerNormMLP(), [(r(3, 12),), (r(1, 12),), (r(8, 12),)]))
    case("residual_mlp", "feed_forward", "3 residual linear blocks in a ModuleList, softmax")(
        lambda: (ResidualMLP(), [(r(2, 10),), (r(5, 10),)]))
    case("conv1d_net", "feed_forward", "conv1d (grouped) net, length varies")(lambda: (Conv1dNet(), [(r(2, 4, 9),), (r(3, 4, 17),)]))
    case("lstm_head", "feed_forward", "LSTM(batch_first) + linear on the last step, length varies")(
        lambda: (LSTMHead(), [(r(2, 5, 6),), (r(3, 8, 6),)]))
    case("gru_net", "feed_forward", "2-layer GRU, length and batch vary")(lambda: (GRUNet(), [(r(4, 2, 5),), (r(7, 3, 5),)]))
    case("embed_mean", "feed_forward", "embedding + mean + linear, length varies")(
        lambda: (EmbedMean(), [(torch.randint(0, 50, (2, 5)),), (torch.randint(0, 50, (3, 9)),)]))
    case("tiny_mha", "feed_forward", "nn.MultiheadAttention self-attention, eval mode")(
        lambda: (TinyMHA(), [(r(2, 5, 16),), (r(3, 4, 16),)]))
    case("encoder_layer_eval", "feed_forward", "nn.TransformerEncoderLayer, eval mode")(
        lambda: (EncoderLayerEval(), [(r(2, 5, 16),), (r(3, 4, 16),)]))
    case("upsample_scale", "feed_forward", "F.interpolate(scale_factor=2) + conv, image size varies")(
        lambda: (UpsampleScale(), [(r(1, 2, 4, 4),), (r(2, 2, 6, 5),)]))
    case("interp_recompute", "feed_forward", "bilinear interpolate, recompute_scale_factor=True, image size varies")(
        lambda: (InterpRecompute(), [(r(1, 2, 4, 4),), (r(1, 2, 6, 8),)]))
    case("range_len", "shape", "for i in range(len(x)): len() of a tensor, rows differ")(
        lambda: (RangeLen(), [(r(3, 2),), (r(4, 2),)]))
    case("range_len_same", "shape", "for i in range(len(x)), same rows")(lambda: (RangeLen(), [(r(3, 2),), (r(3, 5),)]))
    case("arange_size", "slice", "x + arange(x.size(1))")(lambda: (ArangeSize(), [(r(2, 3),), (r(4, 6),)]))
    case("expand_rows", "slice", "bias.expand(x.size(0), -1)")(lambda: (ExpandRows(), [(r(2, 4),), (r(5, 4),)]))
    case("shared_twice", "feed_forward", "one submodule called twice, batch varies")(
        lambda: (SharedTwice(), [(r(2, 6),), (r(3, 6),)]))
    case("cat_loop", "shape", "cat of rows appended in a loop over x.size(0)")(lambda: (CatLoop(), [(r(2, 3),), (r(3, 3),)]))
    case("cat_loop_same", "shape", "cat of rows appended in a loop, same rows")(lambda: (CatLoop(), [(r(2, 3),), (r(2, 5),)]))
    case("tuple_out", "feed_forward", "returns (logits, softmax)")(lambda: (TupleOut(), [(r(2, 4),), (r(6, 4),)]))
    case("shape_tuple_view", "slice", "shape = x.shape; reshape(shape[0] * shape[1], shape[2])")(
        lambda: (ShapeTupleView(), [(r(2, 3, 4),), (r(3, 5, 4),)]))
    case("batchnorm_train", "feed_forward", "linear + BatchNorm1d in training mode (batch statistics)", train=True)(
        lambda: (BatchNormTrain(), [(r(4, 6),), (r(7, 6),)]))


def vision_cases():
    import torchvision
    tv = torchvision.models
    small = lambda: [(r(1, 3, 64, 64),), (r(2, 3, 80, 72),)]  # noqa: E731
    for name, ctor in [("resnet18", tv.resnet18), ("mobilenet_v2", tv.mobilenet_v2),
                       ("mobilenet_v3_small", tv.mobilenet_v3_small), ("squeezenet1_1", tv.squeezenet1_1),
                       ("shufflenet_v2_x0_5", tv.shufflenet_v2_x0_5), ("mnasnet0_5", tv.mnasnet0_5),
                       ("efficientnet_b0", tv.efficientnet_b0), ("regnet_x_400mf", tv.regnet_x_400mf)]:
        case(f"tv_{name}", "vision", f"torchvision {name}, eval mode, batch and image size vary")(
            lambda ctor=ctor: (ctor(), small()))
    case("tv_resnet18_train", "vision", "torchvision resnet18 in training mode (batch norm statistics)", train=True)(
        lambda: (tv.resnet18(), [(r(2, 3, 64, 64),), (r(3, 3, 64, 64),)]))
    case("tv_efficientnet_b0_train", "vision", "torchvision efficientnet_b0 in training mode (dropout, stochastic depth)",
         train=True)(lambda: (tv.efficientnet_b0(), [(r(2, 3, 64, 64),), (r(2, 3, 64, 64),)]))


def clone(x):
    return copy.deepcopy(x)


class NoVerdict(Exception):
    pass


def trace_verdict(module, inputs):
    """torch.jit.trace(module, in0, check_inputs=[in0, in1, ...]) on the Python module."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch.jit.trace(clone(module), clone(inputs[0]), check_inputs=[clone(i) for i in inputs])
        except torch.jit.TracingCheckError as e:
            return "graphs_differ" if "Graphs differed" in str(e) else "outputs_differ"
        except Exception as e:  # the Python itself fails: torch gives no verdict
            raise NoVerdict(f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")
    if any("does not match the corresponding output" in str(w.message) for w in caught):
        return "outputs_differ"
    return "ok"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", default="/tmp/trace_unseen")
    ap.add_argument("--no-vision", action="store_true", help="leave out the torchvision models (the slow part)")
    ap.add_argument("--only", default="", help="comma-separated case names")
    a = ap.parse_args()
    cases()
    if not a.no_vision:
        vision_cases()
    os.makedirs(a.out, exist_ok=True)
    only = set(filter(None, a.only.split(",")))
    manifest, left_out = {}, []
    warnings.simplefilter("ignore")
    for name, (family, description, build, train) in CASES.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        module, inputs = build()
        module.train(train)
        torch.manual_seed(1)
        try:
            verdict = trace_verdict(module, inputs)
        except NoVerdict as e:
            left_out.append(f"{name}: {e}")
            continue
        written = []
        for kind, suffix in (("scripted", "_s"), ("traced", "_t")):
            torch.manual_seed(2)
            try:
                if kind == "scripted":
                    archive = torch.jit.script(clone(module))
                else:
                    archive = torch.jit.trace(clone(module), clone(inputs[0]), check_trace=False)
            except Exception as e:
                left_out.append(f"{name}{suffix}: torch.jit.{'script' if kind == 'scripted' else 'trace'} fails: "
                                f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")
                continue
            archive.save(os.path.join(a.out, name + suffix + ".pt"))
            for i, inp in enumerate(inputs):
                torch.save(inp, os.path.join(a.out, f"{name}{suffix}.in{i}.pt"))
            manifest[name + suffix] = {"trace_verdict": verdict, "kind": kind, "family": family,
                                       "description": description, "train": train}
            written.append(suffix)
        print(f"{name:28} {verdict:15} {' '.join(written)}", flush=True)
    mpath = os.path.join(a.out, "manifest.json")
    if only and os.path.exists(mpath):
        old = json.load(open(mpath))
        old.update(manifest)
        manifest = old
    with open(mpath, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    for line in left_out:
        print("left out:", line)
    print(f"{len(manifest)} archives, {len({k[:-2] for k in manifest})} cases in {a.out}")


if __name__ == "__main__":
    main()
