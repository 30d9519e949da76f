"""Writes cases.json: IR graphs with inputs and what PyTorch 1.13 returns for them (or the error
it raises), for tests/unit/test_interpreter.cpp; stateful.pt (+ .json), a scripted module whose
attributes change between calls; raise_k0.in.pt (+ .txt), inputs on which a corpus model raises,
with PyTorch's message; with_print.pt (+ .json), a `with` block and print(). Run with Debian's python3-torch: /usr/bin/python3 gen_cases.py
"""
import json
import os

import torch
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = {
    "loop_sum": ("""graph(%n : int):
  %c0 : int = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %r : int = prim::Loop(%n, %t, %c0)
    block0(%i : int, %acc : int):
      %a2 : int = aten::add(%acc, %i)
      -> (%t, %a2)
  return (%r)
""", [[5], [0], [-3]]),
    "loop_if_even": ("""graph(%n : int):
  %c0 : int = prim::Constant[value=0]()
  %c2 : int = prim::Constant[value=2]()
  %t : bool = prim::Constant[value=1]()
  %r : int = prim::Loop(%n, %t, %c0)
    block0(%i : int, %acc : int):
      %m : int = aten::remainder(%i, %c2)
      %z : bool = aten::eq(%m, %c0)
      %next : int = prim::If(%z)
        block0():
          %s : int = aten::add(%acc, %i)
          -> (%s)
        block1():
          -> (%acc)
      -> (%t, %next)
  return (%r)
""", [[7], [1]]),
    "while_doubling": ("""graph(%n : int):
  %c1 : int = prim::Constant[value=1]()
  %c2 : int = prim::Constant[value=2]()
  %big : int = prim::Constant[value=9223372036854775807]()
  %go : bool = aten::lt(%c1, %n)
  %r : int, %steps : int = prim::Loop(%big, %go, %c1, %c1)
    block0(%i : int, %x : int, %k : int):
      %x2 : int = aten::mul(%x, %c2)
      %k2 : int = aten::add(%k, %c1)
      %more : bool = aten::lt(%x2, %n)
      -> (%more, %x2, %k2)
  %out : (int, int) = prim::TupleConstruct(%r, %steps)
  return (%out)
""", [[100], [1], [2]]),
    "swap_carried": ("""graph(%n : int, %a : int, %b : int):
  %t : bool = prim::Constant[value=1]()
  %x : int, %y : int = prim::Loop(%n, %t, %a, %b)
    block0(%i : int, %p : int, %q : int):
      -> (%t, %q, %p)
  %out : (int, int) = prim::TupleConstruct(%x, %y)
  return (%out)
""", [[3, 1, 2], [4, 1, 2]]),
    "nested_lists": ("""graph(%n : int):
  %t : bool = prim::Constant[value=1]()
  %l : int[] = prim::ListConstruct()
  prim::Loop(%n, %t)
    block0(%i : int):
      prim::Loop(%n, %t)
        block0(%j : int):
          %p : int = aten::mul(%i, %j)
          %_ : int[] = aten::append(%l, %p)
          -> (%t)
      -> (%t)
  %len : int = aten::len(%l)
  %out : (int[], int) = prim::TupleConstruct(%l, %len)
  return (%out)
""", [[3], [0]]),
    "list_ops": ("""graph(%a : int, %b : int, %c : int):
  %m1 : int = prim::Constant[value=-1]()
  %l : int[] = prim::ListConstruct(%a, %b, %c)
  %last : int = aten::__getitem__(%l, %m1)
  %x : int, %y : int, %z : int = prim::ListUnpack(%l)
  %s : int = aten::add(%x, %z)
  %alias : int[] = aten::list(%l)
  %_ : int[] = aten::append(%l, %s)
  %n : int = aten::len(%l)
  %n2 : int = aten::len(%alias)
  %out : (int, int, int, int, int[]) = prim::TupleConstruct(%last, %s, %n, %n2, %l)
  return (%out)
""", [[1, 2, 3], [5, -4, 9]]),
    "aliasing": ("""graph(%a : int):
  %l : int[] = prim::ListConstruct(%a)
  %tup : (int[], int[]) = prim::TupleConstruct(%l, %l)
  %first : int[] = prim::TupleIndex(%tup, %a)
  %_ : int[] = aten::append(%first, %a)
  %n : int = aten::len(%l)
  return (%n)
""", [[0], [1]]),
    "tuples": ("""graph(%a : int, %s : str):
  %c1 : int = prim::Constant[value=1]()
  %tup : (int, str, int) = prim::TupleConstruct(%a, %s, %c1)
  %x : int, %y : str, %z : int = prim::TupleUnpack(%tup)
  %mid : str = prim::TupleIndex(%tup, %c1)
  %sum : int = aten::add(%x, %z)
  %out : (str, int, str) = prim::TupleConstruct(%mid, %sum, %y)
  return (%out)
""", [[4, "hi"], [-1, ""]]),
    "dicts": ("""graph(%k : str, %v : int):
  %ka : str = prim::Constant[value="a"]()
  %c1 : int = prim::Constant[value=1]()
  %d : Dict(str, int) = prim::DictConstruct(%ka, %c1, %k, %v)
  %got : int = aten::__getitem__(%d, %k)
  %ga : int = aten::__getitem__(%d, %ka)
  %n : int = aten::len(%d)
  %out : (int, int, int, Dict(str, int)) = prim::TupleConstruct(%got, %ga, %n, %d)
  return (%out)
""", [["b", 7], ["a", 9]]),
    "raise_value_error": ("""graph(%n : int):
  %c0 : int = prim::Constant[value=0]()
  %msg : str = prim::Constant[value="n must be non-negative"]()
  %cls : str = prim::Constant[value="builtins.ValueError"]()
  %neg : bool = aten::lt(%n, %c0)
  prim::If(%neg)
    block0():
      prim::RaiseException(%msg, %cls)
      -> ()
    block1():
      -> ()
  %r : int = aten::mul(%n, %n)
  return (%r)
""", [[3], [-2]]),
    "raise_assert": ("""graph(%n : int):
  %c0 : int = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %msg : str = prim::Constant[value="AssertionError: positive please"]()
  %ok : bool = aten::gt(%n, %c0)
  prim::If(%ok)
    block0():
      -> ()
    block1():
      prim::RaiseException(%msg, %none)
      -> ()
  return (%n)
""", [[1], [0]]),
    "optional_refine": ("""graph(%x : int?):
  %none : NoneType = prim::Constant()
  %c10 : int = prim::Constant[value=10]()
  %isnone : bool = aten::__is__(%x, %none)
  %r : int = prim::If(%isnone)
    block0():
      -> (%c10)
    block1():
      %v : int = prim::unchecked_cast(%x)
      %w : int = aten::add(%v, %c10)
      -> (%w)
  return (%r)
""", [[None], [5]]),
    "isinstance": ("""graph(%x : Any):
  %a : bool = prim::isinstance[types=[int]](%x)
  %b : bool = prim::isinstance[types=[str, float]](%x)
  %out : (bool, bool) = prim::TupleConstruct(%a, %b)
  return (%out)
""", [[3], [2.5], ["s"]]),
    "min_max": ("""graph(%a : int, %b : int, %l : int[]):
  %lo : int = prim::min(%a, %b)
  %hi : int = prim::max(%a, %b)
  %lmin : int = prim::min(%l)
  %out : (int, int, int) = prim::TupleConstruct(%lo, %hi, %lmin)
  return (%out)
""", [[3, -2, [4, 1, 9]]]),
    "num_to_tensor": ("""graph(%a : int, %f : float):
  %t : Tensor = prim::NumToTensor(%a)
  %u : Tensor = prim::NumToTensor(%f)
  %dt : int = prim::dtype(%t)
  %du : int = prim::dtype(%u)
  %out : (Tensor, Tensor, int, int) = prim::TupleConstruct(%t, %u, %dt, %du)
  return (%out)
""", [[3, 0.5]]),
    "uninitialized_if": ("""graph(%c : bool, %a : int):
  %u : int = prim::Uninitialized()
  %c1 : int = prim::Constant[value=1]()
  %r : int = prim::If(%c)
    block0():
      %s : int = aten::add(%a, %c1)
      -> (%s)
    block1():
      -> (%u)
  %out : int = prim::If(%c)
    block0():
      -> (%r)
    block1():
      -> (%a)
  return (%out)
""", [[True, 4], [False, 4]]),
}


def encode(v):
    if isinstance(v, torch.Tensor):
        return {"tensor": {"dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape),
                           "data": v.flatten().tolist()}}
    if isinstance(v, tuple):
        return {"tuple": [encode(x) for x in v]}
    if isinstance(v, list):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {"dict": [[encode(k), encode(x)] for k, x in v.items()]}
    if isinstance(v, float):
        return {"float": v}
    return v


def run_cases():
    out = {}
    for name, (text, inputs) in CASES.items():
        g = torch._C.parse_ir(text)
        fn = torch._C._create_function_from_graph(name, g)
        runs = []
        for args in inputs:
            try:
                runs.append({"inputs": [encode(a) for a in args], "output": encode(fn(*args))})
            except Exception as e:  # the model's exception: the last line of PyTorch's message
                runs.append({"inputs": [encode(a) for a in args], "error": str(e).strip().splitlines()[-1]})
        out[name] = {"graph": text, "runs": runs}
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


@torch.jit.interface
class Op(torch.nn.Module):
    def forward(self, x: int) -> int:
        pass


class AddK(torch.nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x: int) -> int:
        return x + self.k


class MulK(torch.nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x: int) -> int:
        return x * self.k


class Stateful(torch.nn.Module):
    """Each call bumps a counter and appends to a history list; ops run through an interface."""
    op: Op
    history: List[int]
    seen: Dict[str, int]

    def __init__(self):
        super().__init__()
        self.calls = 0
        self.history = []
        self.seen = {}
        self.op = AddK(3)
        self.other = MulK(2)

    def forward(self, x: int, key: str) -> List[int]:
        self.calls += 1
        self.history.append(self.op(x) + self.other(x))
        self.seen[key] = self.seen.get(key, 0) + 1
        return [self.calls, len(self.history), self.history[-1], self.seen[key]]


def write_stateful():
    m = torch.jit.script(Stateful())
    path = os.path.join(HERE, "stateful.pt")
    torch.jit.save(m, path)
    m = torch.jit.load(path)
    calls = [(1, "a"), (5, "b"), (2, "a")]
    outs = [m(*c) for c in calls]
    with open(os.path.join(HERE, "stateful.json"), "w") as f:
        json.dump({"calls": [list(c) for c in calls], "outputs": outs}, f, indent=1)
        f.write("\n")


@torch.jit.script
class Counter(object):
    def __init__(self):
        self.depth = 0
        self.entered = 0

    def __enter__(self):
        self.depth += 1
        self.entered += 1

    def __exit__(self, type: Any, value: Any, tb: Any):
        self.depth -= 1


class WithPrint(torch.nn.Module):
    """A `with` block on a script class, and print()."""

    def forward(self, x: int) -> List[int]:
        c = Counter()
        inside = 0
        with c:
            inside = c.depth
            print("inside", x, inside)
        return [inside, c.depth, c.entered]


def write_with_print():
    path = os.path.join(HERE, "with_print.pt")
    torch.jit.save(torch.jit.script(WithPrint()), path)
    m = torch.jit.load(path)
    torch.save((7,), os.path.join(HERE, "with_print.in.pt"))
    with open(os.path.join(HERE, "with_print.json"), "w") as f:
        json.dump({"input": 7, "output": m(7), "stdout": "inside 7 1"}, f, indent=1)
        f.write("\n")


def write_raising_inputs():
    """Inputs on which testdata/models/raise_assert_scripted.pt raises, and PyTorch's message."""
    m = torch.jit.load(os.path.join(HERE, "..", "models", "raise_assert_scripted.pt"))
    args = (torch.ones(3, 5), 0)
    torch.save(args, os.path.join(HERE, "raise_k0.in.pt"))
    try:
        m(*args)
        raise SystemExit("raise_assert_scripted did not raise")
    except torch.jit.Error as e:
        with open(os.path.join(HERE, "raise_k0.txt"), "w") as f:
            f.write(str(e).strip().splitlines()[-1] + "\n")


if __name__ == "__main__":
    run_cases()
    write_stateful()
    write_raising_inputs()
    write_with_print()
