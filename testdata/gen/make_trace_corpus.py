#!/usr/bin/python3
"""Scripted archives for `jitctl check-trace`, with PyTorch's verdict on the same Python.

    /usr/bin/python3 testdata/gen/make_trace_corpus.py     # writes testdata/trace/

For each model: NAME.pt is torch.jit.script of the module (what jitctl traces itself), NAME.in{i}.pt
its input sets, and manifest.json's "trace_verdict" is what torch.jit.trace(module, in0,
check_inputs=[in0, in1, ...]) says about the original Python module ("ok", "graphs_differ",
"outputs_differ") -- the layout ../shared/oracle/compat.py --checks check_trace reads.
Every model is small: the whole directory is checked in a few seconds. diff/ holds re-exports of
feed_forward for `jitctl diff`, each with one change: a layer re-initialized, one weight value, a
buffer added, the forward's code, ReLU replaced by GELU.
"""
import copy, json, os, sys, warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "trace")
MODELS = {}


def model(name, description, train=False):
    def deco(fn):
        MODELS[name] = (fn, description, train)
        return fn
    return deco


def r(*shape):
    return torch.randn(*shape)


class LoopInTracedFn(nn.Module):
    """The reference's example (torchscript.txt, Automatic Trace Checking)."""
    def forward(self, x):
        result = x[0]
        for i in range(x.size(0)):
            result = result * x[i]
        return result


class ViewBySize(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(20, 4)

    def forward(self, x):
        return torch.relu(self.fc(x.view(x.size(0), -1)))


class ShapeBranch(nn.Module):
    def forward(self, x):
        if x.size(0) > 2:
            return x.sum(0)
        return x.mean(0)


class IntOfTensor(nn.Module):
    def forward(self, x):
        k = int(x.abs().max())
        return x * k


class FloatOfTensor(nn.Module):
    def forward(self, x):
        s = float(x.sum())
        return x + s


class Mask(nn.Module):
    def forward(self, x):
        return x[x > 0].sum() + x.masked_fill(x < 0, 0.0)


class SliceBySize(nn.Module):
    def forward(self, x):
        n = x.size(1) // 2
        return x[:, :n] * x[:, n:]


class UnbindLoop(nn.Module):
    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for row in x.unbind(0):
            acc = acc + row.relu()
        return acc


class RandomNoise(nn.Module):
    def forward(self, x):
        return x + torch.rand_like(x)


class DropoutTrain(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.fc(x))


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3))
        self.norm = nn.LayerNorm(3)

    def forward(self, x):
        return F.log_softmax(self.norm(self.net(x)), dim=-1)


class FeedForwardSoftmax(FeedForward):
    """feed_forward re-exported with another forward: the same class name and parameters."""
    def forward(self, x):
        return F.softmax(self.norm(self.net(x)), dim=-1)


FeedForwardSoftmax.__name__ = FeedForwardSoftmax.__qualname__ = "FeedForward"


class DataBranch(nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):
            return x * 2.0
        return x - 1.0


class ItemScale(nn.Module):
    def forward(self, x):
        return x / x.norm().item()


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        y = F.relu(self.bn(self.conv(x)))
        y = F.adaptive_avg_pool2d(y, 1).flatten(1)
        return self.fc(y)


class IntOfSize(nn.Module):
    """int() of a size: TorchScript compiles it away, Python's tracer bakes the size."""
    def forward(self, x):
        n = int(x.size(0))
        return x.reshape(n, -1).sum(1)


class MinOfSize(nn.Module):
    """Python's min() returns one of its arguments: the traced size itself when it is the smaller."""
    def forward(self, x):
        k = min(x.size(0), 4)
        return x[:k].sum(0)


class RandomTimesZero(nn.Module):
    """A random op whose samples never reach the output."""
    def forward(self, x):
        return x + 0.0 * torch.rand_like(x)


class AlphaDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.d = nn.AlphaDropout(0.2)

    def forward(self, x):
        return self.d(torch.selu(x))


class RowLoopSameShape(nn.Module):
    """Unrolled loop over x.size(0), but every input set has the same batch size: the trace holds."""
    def forward(self, x):
        out = x[0]
        for i in range(1, x.size(0)):
            out = out + x[i]
        return out


model("loop_in_traced_fn", "reference example: loop over x.size(0), another size unrolls differently")(
    lambda: (LoopInTracedFn(), [(r(3, 4, 5),), (r(4, 5, 6),), (r(2, 3, 4),)]))
model("view_by_size", "view(x.size(0), -1) + linear: sizes stay dynamic")(
    lambda: (ViewBySize(), [(r(2, 4, 5),), (r(6, 4, 5),), (r(1, 4, 5),)]))
model("shape_branch", "if x.size(0) > 2: sum else mean")(
    lambda: (ShapeBranch(), [(r(4, 3),), (r(2, 3),)]))
model("shape_branch_same_side", "if x.size(0) > 2, every input set on the same side")(
    lambda: (ShapeBranch(), [(r(4, 3),), (r(5, 3),)]))
model("int_of_tensor", "int(max |x|) baked in as a constant")(
    lambda: (IntOfTensor(), [(r(3, 3) * 4,), (r(3, 3) * 20,)]))
model("float_of_tensor", "float(x.sum()) baked in as a constant")(
    lambda: (FloatOfTensor(), [(r(3, 3),), (r(3, 3),)]))
model("mask_select", "boolean mask x[x > 0] and masked_fill")(
    lambda: (Mask(), [(r(4, 5),), (r(3, 7),)]))
model("slice_by_size", "x[:, :n] with n = x.size(1) // 2")(
    lambda: (SliceBySize(), [(r(2, 8),), (r(3, 6),)]))
model("unbind_loop", "for row in x.unbind(0): one trace node per row")(
    lambda: (UnbindLoop(), [(r(3, 4),), (r(5, 4),)]))
model("random_noise", "x + rand_like(x): nondeterministic")(
    lambda: (RandomNoise(), [(r(3, 4),), (r(3, 4),)]))
model("dropout_train", "nn.Dropout(0.5) in training mode", train=True)(
    lambda: (DropoutTrain(), [(r(4, 8),), (r(2, 8),)]))
model("feed_forward", "linear/relu/tanh/layernorm/log_softmax, batch size varies")(
    lambda: (FeedForward(), [(r(2, 8),), (r(7, 8),), (r(1, 8),)]))
model("data_branch", "if bool(x.sum() > 0): different arithmetic")(
    lambda: (DataBranch(), [(r(3, 3).abs(),), (-r(3, 3).abs(),)]))
model("data_branch_same_side", "if bool(x.sum() > 0), every input set positive")(
    lambda: (DataBranch(), [(r(3, 3).abs(),), (r(2, 3).abs(),)]))
model("item_scale", "x / x.norm().item(): a baked scalar")(
    lambda: (ItemScale(), [(r(3, 3),), (r(3, 3) * 5,)]))
model("small_cnn", "conv/bn/relu/pool/linear, eval mode, batch and image size vary")(
    lambda: (SmallCNN(), [(r(1, 3, 8, 8),), (r(2, 3, 12, 12),)]))
model("row_loop_same_shape", "loop over x.size(0); every input set has 3 rows")(
    lambda: (RowLoopSameShape(), [(r(3, 4),), (r(3, 6),)]))
model("int_of_size", "reshape(int(x.size(0)), -1): the batch size baked in")(
    lambda: (IntOfSize(), [(r(2, 3, 2),), (r(4, 3, 2),)]))
model("min_of_size_small", "x[:min(x.size(0), 4)], the size the smaller on every set: stays traced")(
    lambda: (MinOfSize(), [(r(2, 3),), (r(3, 3),)]))
model("min_of_size_mixed", "x[:min(x.size(0), 4)], the size smaller then larger than 4")(
    lambda: (MinOfSize(), [(r(2, 3),), (r(6, 3),)]))
model("random_times_zero", "x + 0.0 * rand_like(x): samples that never reach the output")(
    lambda: (RandomTimesZero(), [(r(3, 4),), (r(2, 5),)]))
model("alpha_dropout_train", "nn.AlphaDropout(0.2) in training mode", train=True)(
    lambda: (AlphaDropout(), [(r(5, 6),), (r(2, 6),)]))


def clone(inputs):
    return copy.deepcopy(inputs)


def trace_verdict(module, inputs):
    """What torch.jit.trace(check_inputs=...) says about the Python module (as make_corpus.py)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch.jit.trace(copy.deepcopy(module), clone(inputs[0]), check_inputs=[clone(i) for i in inputs])
        except torch.jit.TracingCheckError as e:
            return "graphs_differ" if "Graphs differed" in str(e) else "outputs_differ"
    if any("does not match the corresponding output" in str(w.message) for w in caught):
        return "outputs_differ"
    return "ok"


def main():
    os.makedirs(OUT, exist_ok=True)
    manifest = {}
    for name, (build, description, train) in sorted(MODELS.items()):
        torch.manual_seed(0)
        module, inputs = build()
        module.train(train)
        verdict = trace_verdict(module, inputs)
        torch.jit.script(module).save(os.path.join(OUT, name + ".pt"))
        for i, inp in enumerate(inputs):
            torch.save(inp, os.path.join(OUT, f"{name}.in{i}.pt"))
        manifest[name] = {"kind": "scripted", "description": description, "trace_verdict": verdict}
        print(f"{name:24} {verdict}")
    # For `jitctl diff`: re-exports of feed_forward, each with one change -- one layer re-initialized
    # (net.2), one weight value changed (net.0.weight[1, 2]), a buffer added (`offset`), the root
    # forward's code changed (softmax for log_softmax; parameters the same), and ReLU replaced by
    # GELU (a submodule's code: only the inlined graph shows it).
    os.makedirs(os.path.join(OUT, "diff"), exist_ok=True)

    def reexport(name, change):
        torch.manual_seed(0)
        module, _ = MODELS["feed_forward"][0]()
        module.eval()
        change(module)
        torch.jit.script(module).save(os.path.join(OUT, "diff", f"feed_forward_{name}.pt"))

    def relayer(m):
        torch.manual_seed(1)
        m.net[2].reset_parameters()

    def one_weight(m):
        with torch.no_grad():
            m.net[0].weight[1, 2] += 0.5

    reexport("relayer", relayer)
    reexport("weight", one_weight)
    reexport("buffer", lambda m: m.register_buffer("offset", torch.zeros(3)))
    reexport("code", lambda m: setattr(m, "__class__", FeedForwardSoftmax))
    reexport("gelu", lambda m: m.net.__setitem__(1, nn.GELU()))
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    if os.path.isabs(main.__code__.co_filename):
        # Compiled again under its repo-relative name (cwd = repo root), so that the source
        # locations the archives keep do not depend on the checkout's path.
        repo = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
        rel = os.path.relpath(os.path.abspath(__file__), repo)
        os.chdir(repo)
        exec(compile(open(rel).read(), rel, "exec"), {"__name__": "__main__", "__file__": rel})
    else:
        main()
