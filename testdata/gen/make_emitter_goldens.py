#!/usr/bin/python3
"""PyTorch 1.13's graphs for small scripted modules, one per TorchScript construct: the goldens of
jitctl's IR emitter (tests/unit/test_emitter_constructs.cpp).

    /usr/bin/python3 testdata/gen/make_emitter_goldens.py           # all cases (rewrites testdata/emitter/)
    /usr/bin/python3 testdata/gen/make_emitter_goldens.py --list    # case names

Each module is scripted and saved, so what jitctl compiles is the code PyTorch *prints* for the
construct (`self.x += 1` is printed as a GetAttr, an add and `self.x = ...`; comprehensions as
loops; `-inf` stays a unary minus on the name `inf`). For each case NAME it writes
    testdata/emitter/NAME.pt            the archive
    testdata/emitter/NAME.graph.txt     str(torch.jit.load(NAME.pt).forward.graph)
    testdata/emitter/NAME.inlined.txt   str(torch.jit.load(NAME.pt).forward.inlined_graph)
    testdata/emitter/NAME.functions.txt every method and function of the archive's code, each as
                                        `@@@@ <qualified name>` and then its graph
Each case is built in a fresh process, and the script is compiled under its repo-relative name, so
the output does not depend on the checkout path (as make_corpus.py does it). warn_id values
in these graphs come from a process-wide counter and are not meant to be compared.
"""
import os
import subprocess
import sys
from typing import Any, Dict, List, Optional, Tuple, Union

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
OUT_DIR = os.path.join(REPO, "testdata", "emitter")
SELF = os.path.relpath(os.path.abspath(__file__), REPO)

import torch  # noqa: E402
from torch import Tensor, nn  # noqa: E402


class SetAttr(nn.Module):
    """prim::SetAttr: `self.x = v`, augmented attributes, a buffer updated in place."""
    def __init__(self):
        super().__init__()
        self.count = 0
        self.total = 0.0
        self.register_buffer("steps", torch.zeros(1))

    def forward(self, x):
        self.count += 1
        self.total = self.total + 1.5
        self.steps += 1
        return x * self.count


class AugAssign(nn.Module):
    def forward(self, x, n: int):
        y = x.clone()
        y += 1
        y *= x
        y -= 2.0
        y /= 3
        k = n
        k += 2
        k *= 3
        f = 1.5
        f += n
        l: List[int] = [1, 2]
        l += [3]
        l[0] += 5
        return y, k, f, l


class Unary(nn.Module):
    """aten::neg, aten::__not__, aten::bitwise_not, and `-inf` (a constant folded by the emitter)."""
    def forward(self, x, n: int, b: bool, f: float):
        a = -x
        c = -n
        d = not b
        e = -f
        g = ~x.to(torch.int32)
        h = -(n + 1)
        return a, c, d, e, g, h, float("-inf"), -float("inf"), float("nan")


class Compare(nn.Module):
    """Chained comparisons, `is None` refinement, ternaries, `in`."""
    def forward(self, x, n: int, o: Optional[int], t: Optional[Tensor]):
        r = 0
        if 0 < n < 10:
            r += 1
        if o is not None and o > 3:
            r += o
        if t is None:
            r -= 1
        else:
            x = x + t
        y = n if n > 2 else -n
        z = x if o is None else x * o
        if not (n > 5 or n < -5):
            r = r * 2
        return r, y, z, n in [1, 2, 3], n not in [4]


class Raise(nn.Module):
    def forward(self, x, n: int):
        if n < 0:
            raise ValueError("negative: " + str(n))
        assert n < 100, "too big"
        assert n != 50
        if n == 7:
            raise RuntimeError
        return x


class Comprehension(nn.Module):
    def forward(self, x, xs: List[Tensor], d: Dict[str, int]):
        a = [t * 2 for t in xs]
        b = [i * i for i in range(5)]
        c = {k: v + 1 for k, v in d.items()}
        e = [v for v in d.values()]
        f = [k for k in d]
        g = [t.sum() for t in x]
        return a, b, c, e, f, g


class Slicing(nn.Module):
    """Tensor, list, tuple and string slicing and indexing, and subscripted assignment."""
    def forward(self, x, l: List[int], t: Tuple[int, int, int], st: str):
        a = x[1:3]
        b = x[:, 1]
        c = x[None]
        d = x[..., 0]
        e = x[0]
        f = x[1:, :2, None]
        g = l[1:]
        h = l[::2]
        i = t[1:]
        j = t[-1]
        k = st[1:3]
        m = x[torch.tensor([0, 1])]
        o = x[x > 0]
        x[0] = 1.0
        x[1:2] = x[0:1]
        x[:, 0] += 1
        p = x[-1, -2:]
        return a, b, c, d, e, f, g, h, i, j, k, m, o, p, st[0]


class With(nn.Module):
    """prim::Enter / prim::Exit around the body (torch.no_grad is a class in the archive)."""
    def forward(self, x):
        with torch.no_grad():
            y = x * 2
        with torch.no_grad():
            z = x + 1
        return y, z


class Delete(nn.Module):
    def forward(self, l: List[int], d: Dict[str, int]):
        del l[0]
        del d["a"]
        x = 3
        del x
        return l, d


class IsInstance(nn.Module):
    """isinstance on Any, Union and Optional (prim::isinstance plus unchecked_cast), hasattr."""
    def forward(self, x: Any, y: Union[int, Tensor], z: Optional[List[int]]):
        r = 0
        if isinstance(x, int):
            r += x
        if isinstance(y, Tensor):
            r += 1
        else:
            r += y
        if torch.jit.isinstance(z, List[int]):
            r += len(z)
        if hasattr(self, "training"):
            r += 1
        return r


class Iteration(nn.Module):
    """range with start and step, iterating over tensors, dicts, tuples, strings, enumerate, zip,
    ModuleList and ModuleDict, break and continue."""
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
        self.acts = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Tanh()})

    def forward(self, x, d: Dict[str, Tensor], t: Tuple[int, int], st: str, xs: List[Tensor]):
        acc = 0
        for i in range(1, 10, 2):
            acc += i
        for row in x:
            acc += 1
        for k in d:
            acc += len(k)
        for k, v in d.items():
            acc += 1
        for v in t:
            acc += v
        for c in st:
            acc += 1
        for i, v in enumerate(xs):
            acc += i
        for a, b in zip(xs, xs):
            acc += 1
        for m in self.layers:
            x = m(x)
        for m in self.acts.values():
            x = m(x)
        for i in range(10):
            if i == 3:
                continue
            if i == 7:
                break
            acc += i
        while acc > 100:
            acc -= 7
            if acc == 50:
                break
        return x, acc


def _scaled(x: Tensor, k: int) -> Tensor:
    return x * k


class Fork(nn.Module):
    """fork of a function with arguments and of a builtin."""
    def forward(self, x):
        f = torch.jit.fork(_scaled, x, 3)
        g = torch.jit.fork(torch.relu, x)
        return torch.jit.wait(f) + torch.jit.wait(g)


class Builtins(nn.Module):
    """print, min/max/abs, format strings, tensor properties, tolist, casts, operators on scalars."""
    def forward(self, x, n: int, st: str):
        a = min(n, 3)
        b = max([1, 2, n])
        c = abs(-n)
        d = f"v{n}"
        e = "{} and {}".format(n, st)
        print("hello", n)
        g = x.shape[0]
        i = x.dtype
        j = x.device
        l = list(range(n))
        r: List[List[float]] = x.tolist()
        v = float(n)
        w = bool(n)
        y = str(n)
        z = x.T
        ab = n ** 2
        ac = n // 3
        ae = n / 3
        af = n << 1
        ai = n ^ 1
        am = [1] * 3
        aq = sorted([3, 1])
        ar = any([True])
        return a, b, c, d, e, g, i, j, l, r, v, w, y, z, ab, ac, ae, af, ai, am, aq, ar


class Containers(nn.Module):
    def forward(self, d: Dict[str, Tensor], l: List[Tensor]):
        d["x"] = l[0]
        l[1] = d["x"]
        v = d.get("y")
        w = d.get("y", l[0])
        keys = list(d.keys())
        l.insert(0, l[0])
        l.pop()
        x = d.pop("x")
        d.update({"z": x})
        return d, l, v, w, keys, "x" in d


@torch.jit.script
class _Point:
    def __init__(self, x: int, y: int):
        self.x = x
        self.y = y

    def __add__(self, o: "_Point") -> "_Point":
        return _Point(self.x + o.x, self.y + o.y)

    def norm(self) -> int:
        return self.x * self.x + self.y * self.y


class ScriptClass(nn.Module):
    """A script class: constructor, __add__, SetAttr on an object."""
    def forward(self, n: int):
        p = _Point(n, 2)
        q = p + _Point(1, 1)
        q.x += 1
        q.y = q.y * 2
        return q.norm()


class FloatNames(nn.Module):
    """inf and nan in printed code (names the archive resolver turns into constants)."""
    def forward(self, x):
        b = torch.full([2], float("inf"))
        c = torch.full([2], float("nan"))
        d = torch.clamp(x, min=-float("inf"), max=1e30)
        e = x.masked_fill(x > 0, float("-inf"))
        return b, c, d, e, 1e-8, -1e-8


class Attention(nn.Module):
    """functional.multi_head_attention_forward and friends, compiled into the archive."""
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2)

    def forward(self, q):
        out, _ = self.mha(q, q, q)
        return out


CASES = {
    "setattr": SetAttr, "aug_assign": AugAssign, "unary": Unary, "compare": Compare, "raise": Raise,
    "comprehension": Comprehension, "slicing": Slicing, "with": With, "delete": Delete,
    "isinstance": IsInstance, "iteration": Iteration, "fork": Fork, "builtins": Builtins,
    "containers": Containers, "script_class": ScriptClass, "float_names": FloatNames, "attention": Attention,
}


def child(name):
    torch.manual_seed(0)
    path = os.path.join(OUT_DIR, name + ".pt")
    torch.jit.script(CASES[name]().eval()).save(path)
    m = torch.jit.load(path)
    with open(os.path.join(OUT_DIR, name + ".graph.txt"), "w") as f:
        f.write(str(m.forward.graph))
    with open(os.path.join(OUT_DIR, name + ".inlined.txt"), "w") as f:
        f.write(str(m.forward.inlined_graph))
    # Every function the archive's code defines, as PyTorch compiles it on loading.
    cu = torch._C.CompilationUnit()
    torch._C.import_ir_module(cu, path, None, {})
    with open(os.path.join(OUT_DIR, name + ".functions.txt"), "w") as f:
        for fn in sorted(cu.get_functions(), key=lambda fn: fn.qualified_name):
            f.write(f"@@@@ {fn.qualified_name}\n{fn.graph}")


CHILD = """import sys, types
sys.argv = sys.argv[1:]
m = types.ModuleType("__main__"); m.__file__ = sys.argv[0]; sys.modules["__main__"] = m
exec(compile(open(sys.argv[0]).read(), sys.argv[0], "exec"), m.__dict__)"""


def main():
    if "--child" in sys.argv:
        child(sys.argv[sys.argv.index("--child") + 1])
        return
    if "--list" in sys.argv:
        print("\n".join(CASES))
        return
    os.makedirs(OUT_DIR, exist_ok=True)
    env = dict(os.environ, PYTHONHASHSEED="0")
    for name in CASES:
        p = subprocess.run([sys.executable, "-c", CHILD, SELF, "--child", name], cwd=REPO, env=env,
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"{name}: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else p.returncode}")
        print("wrote", name)


if __name__ == "__main__":
    main()
