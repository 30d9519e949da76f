#!/usr/bin/python3
"""PyTorch 1.13 as the oracle for the passes freezing runs (passes/): IR text in, IR text out.

Run with Debian's PyTorch; the passes without Python bindings (EliminateNoOps, removeDropout on a
graph, RemoveListMutation) go through a small C++ extension, which needs libtorch-dev,
pybind11-dev and g++ (compiled once, ~30 s):

    /usr/bin/python3 testdata/gen/make_freeze_goldens.py          # rewrites testdata/freeze_passes/
    /usr/bin/python3 testdata/gen/make_freeze_goldens.py --list

Each case is a graph written for one behaviour, and the passes it is run through:
    testdata/freeze_passes/NAME.in.txt         the graph; inputs named %const_K stand for tensor
                                               constants (parse_ir cannot read tensor values)
    testdata/freeze_passes/NAME.in.npz         their values, const_K
    testdata/freeze_passes/NAME.PASS.out.txt   str(graph) after torch's pass ran on the graph with
                                               each %const_K replaced by a prim::Constant of its
                                               value, inserted in front of the first node in K order
    testdata/freeze_passes/NAME.PASS.out.npz   the tensor constants of that graph, c0, c1, ... in
                                               the order the printed graph shows them (folded
                                               weights are compared as numbers, not as text)
tests/unit/test_freeze_passes.cpp compares jitctl's passes with these in compat.py's canonical form.
"""
import argparse
import hashlib
import os
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "freeze_passes"))

EXTENSION_SOURCE = r"""
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/eliminate_no_ops.h>
#include <torch/csrc/jit/passes/remove_dropout.h>
#include <torch/csrc/jit/passes/remove_mutation.h>
#include <torch/extension.h>
using namespace torch::jit;
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("eliminate_no_ops", [](std::shared_ptr<Graph> g) { return EliminateNoOps(g); });
  m.def("remove_dropout", [](std::shared_ptr<Graph> g) { removeDropout(g); });
  m.def("remove_list_mutation", [](std::shared_ptr<Graph> g) { return RemoveListMutation(g); });
}
"""


def load_extension():
    from torch.utils.cpp_extension import load_inline
    digest = hashlib.sha1(EXTENSION_SOURCE.encode()).hexdigest()[:12]
    build = os.path.join(tempfile.gettempdir(), "jitctl_freeze_oracle_" + digest)
    os.makedirs(build, exist_ok=True)
    return load_inline("jitctl_freeze_oracle", cpp_sources=[EXTENSION_SOURCE], build_directory=build, verbose=False)


def passes(ext):
    return {
        "constant-propagation": torch._C._jit_pass_constant_propagation,
        "cse": torch._C._jit_pass_cse,
        "unroll-constant-loops": torch._C._jit_pass_constant_loop_unrolling,
        "eliminate-no-ops": ext.eliminate_no_ops,
        "remove-dropout": ext.remove_dropout,
        "remove-list-mutation": ext.remove_list_mutation,
        "fold-frozen-conv-bn": torch._C._jit_pass_fold_frozen_conv_bn,
        "fold-frozen-conv-add-sub": torch._C._jit_pass_fold_frozen_conv_add_or_sub,
        "fold-frozen-conv-mul-div": torch._C._jit_pass_fold_frozen_conv_mul_or_div,
    }


torch.manual_seed(3)
R = lambda *s: torch.randn(*s)  # noqa: E731
POS = lambda *s: torch.rand(*s) + 0.5  # noqa: E731

# (name, passes, IR text, {const_K: tensor})
CASES = [
    # ---- constant propagation over tensors
    ("cp_tensor_ops", ["constant-propagation"], """
graph(%x : Tensor, %const_0 : Tensor, %const_1 : Tensor):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : float = prim::Constant[value=2.]()
  %none : NoneType = prim::Constant()
  %t : Tensor = aten::t(%const_0)
  %s : Tensor = aten::mul(%t, %two)
  %d : int = aten::dim(%const_0)
  %n : int = aten::size(%const_0, %zero)
  %l : int[] = prim::ListConstruct(%n, %d)
  %sum : Tensor = aten::add(%const_1, %const_1, %one)
  %y : Tensor = aten::matmul(%x, %s)
  %z : Tensor = aten::add(%y, %sum, %one)
  %r : Tensor = aten::reshape(%z, %l)
  %dt : int = prim::dtype(%const_0)
  %o : (Tensor, int) = prim::TupleConstruct(%r, %dt)
  return (%o)
""", {"const_0": R(4, 3), "const_1": R(3)}),
    ("cp_alias_writes", ["constant-propagation"], """
graph(%x : Tensor, %const_0 : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%const_0)
  %b : Tensor = aten::add_(%const_0, %x, %one)
  %c : Tensor = aten::sigmoid(%const_0)
  %o : (Tensor, Tensor, Tensor) = prim::TupleConstruct(%a, %b, %c)
  return (%o)
""", {"const_0": R(3)}),
    ("cp_random_and_dropout", ["constant-propagation"], """
graph(%const_0 : Tensor):
  %f : bool = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %p : float = prim::Constant[value=0.5]()
  %none : NoneType = prim::Constant()
  %three : int = prim::Constant[value=3]()
  %shape : int[] = prim::ListConstruct(%three)
  %r : Tensor = aten::rand(%shape, %none, %none, %none, %none)
  %d1 : Tensor = aten::dropout(%const_0, %p, %f)
  %d2 : Tensor = aten::dropout(%const_0, %p, %t)
  %o : (Tensor, Tensor, Tensor) = prim::TupleConstruct(%r, %d1, %d2)
  return (%o)
""", {"const_0": R(3)}),
    ("cp_control_flow", ["constant-propagation"], """
graph(%x : Tensor, %const_0 : Tensor):
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %d : int = aten::dim(%const_0)
  %c : bool = aten::eq(%d, %zero)
  %y : Tensor = prim::If(%c)
    block0():
      %a : Tensor = aten::neg(%x)
      -> (%a)
    block1():
      %b : Tensor = aten::mul(%x, %const_0)
      -> (%b)
  %z : Tensor = prim::Loop(%zero, %t, %y)
    block0(%i : int, %acc : Tensor):
      %n : Tensor = aten::relu(%acc)
      -> (%t, %n)
  return (%z)
""", {"const_0": R(2, 2)}),
    ("cp_containers", ["constant-propagation"], """
graph(%const_0 : Tensor, %const_1 : Tensor):
  %zero : int = prim::Constant[value=0]()
  %l : Tensor[] = prim::ListConstruct(%const_0, %const_1)
  %c : Tensor = aten::cat(%l, %zero)
  %two : int = prim::Constant[value=2]()
  %s : Tensor[] = aten::split(%c, %two, %zero)
  %ints : int[] = prim::ListConstruct(%zero, %zero)
  %a : int, %b : int = prim::ListUnpack(%ints)
  %o : (Tensor, Tensor[], int) = prim::TupleConstruct(%c, %s, %b)
  return (%o)
""", {"const_0": R(2), "const_1": R(3)}),
    # ---- common subexpression elimination: what aliasing allows
    ("cse_basic", ["cse"], """
graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %one2 : int = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::relu(%x)
  %c : Tensor = aten::add(%a, %b, %one)
  %d : Tensor = aten::add(%a, %b, %one2)
  %e : Tensor = aten::mul(%c, %d)
  return (%e)
""", {}),
    ("cse_outputs_alias", ["cse"], """
graph(%x : Tensor):
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::relu(%x)
  return (%a, %b)
""", {}),
    ("cse_returned_tuple_precise", ["cse"], """
graph(%box : (Tensor, Tensor), %y : Tensor):
  %0 : int = prim::Constant[value=0]()
  %a : Tensor = prim::TupleIndex(%box, %0)
  %b : Tensor = prim::TupleIndex(%box, %0)
  %c : Tensor = aten::mul(%a, %b)
  %t : (Tensor, Tensor) = prim::TupleConstruct(%c, %c)
  return (%t)
""", {}),
    ("cse_returned_tuple_wildcard", ["cse"], """
graph(%box : (Tensor, Tensor), %y : Tensor):
  %0 : int = prim::Constant[value=0]()
  %a : Tensor = prim::TupleIndex(%box, %0)
  %b : Tensor = prim::TupleIndex(%box, %0)
  %c : Tensor = aten::mul(%a, %b)
  %t : (Tensor, Tensor) = prim::TupleConstruct(%c, %y)
  return (%t)
""", {}),
    ("cse_tuple_not_returned", ["cse"], """
graph(%x : Tensor, %w : Tensor[]):
  %0 : int = prim::Constant[value=0]()
  %2 : int = prim::Constant[value=2]()
  %6 : int = prim::Constant[value=6]()
  %f : bool = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %fl : float = prim::Constant[value=0.]()
  %n : NoneType = prim::Constant()
  %s : int = aten::size(%x, %0)
  %l : int[] = prim::ListConstruct(%2, %s)
  %l2 : int[] = prim::ListConstruct(%2, %s)
  %a : Tensor = aten::zeros(%l, %6, %n, %n, %n)
  %b : Tensor = aten::zeros(%l2, %6, %n, %n, %n)
  %h : (Tensor, Tensor) = prim::TupleConstruct(%a, %b)
  %u1 : Tensor, %u2 : Tensor = prim::TupleUnpack(%h)
  %hl : Tensor[] = prim::ListConstruct(%u1, %u2)
  %o1 : Tensor, %o2 : Tensor, %o3 : Tensor = aten::lstm(%x, %hl, %w, %t, %2, %fl, %f, %f, %t)
  %st : (Tensor, Tensor) = prim::TupleConstruct(%o2, %o3)
  %r : (Tensor, (Tensor, Tensor)) = prim::TupleConstruct(%o1, %st)
  return (%r)
""", {}),
    ("cse_writes_and_blocks", ["cse"], """
graph(%x : Tensor, %c : bool):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
  %w : Tensor = aten::add_(%x, %one, %one)
  %b : Tensor = aten::relu(%x)
  %s : Tensor = aten::sigmoid(%a)
  %y : Tensor = prim::If(%c)
    block0():
      %s2 : Tensor = aten::sigmoid(%a)
      %s3 : Tensor = aten::sigmoid(%a)
      %m : Tensor = aten::mul(%s2, %s3)
      -> (%m)
    block1():
      -> (%s)
  %z : Tensor = aten::add(%y, %b, %one)
  return (%z)
""", {}),
    # ---- loop unrolling
    ("unroll_counter", ["unroll-constant-loops"], """
graph(%x : Tensor):
  %t : bool = prim::Constant[value=1]()
  %three : int = prim::Constant[value=3]()
  %y : Tensor = prim::Loop(%three, %t, %x)
    block0(%i : int, %acc : Tensor):
      %one : int = prim::Constant[value=1]()
      %n : Tensor = aten::add(%acc, %i, %one)
      -> (%t, %n)
  return (%y)
""", {}),
    ("unroll_nested_and_not", ["unroll-constant-loops"], """
graph(%x : Tensor, %k : int):
  %t : bool = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %y : Tensor = prim::Loop(%two, %t, %x)
    block0(%i : int, %acc : Tensor):
      %z : Tensor = prim::Loop(%two, %t, %acc)
        block0(%j : int, %inner : Tensor):
          %n : Tensor = aten::relu(%inner)
          -> (%t, %n)
      -> (%t, %z)
  %w : Tensor = prim::Loop(%k, %t, %y)
    block0(%i2 : int, %acc2 : Tensor):
      %m : Tensor = aten::neg(%acc2)
      -> (%t, %m)
  return (%w)
""", {}),
    ("unroll_large", ["unroll-constant-loops"], """
graph(%x : Tensor):
  %t : bool = prim::Constant[value=1]()
  %n : int = prim::Constant[value=70]()
  %y : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %acc : Tensor):
      %one : int = prim::Constant[value=1]()
      %s : Tensor = aten::add(%acc, %i, %one)
      -> (%t, %s)
  return (%y)
""", {}),
    # ---- EliminateNoOps
    ("no_ops_detach", ["eliminate-no-ops"], """
graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::detach(%x)
  %b : Tensor = aten::detach(%a)
  %y : Tensor = prim::If(%c)
    block0():
      %d : Tensor = aten::detach(%b)
      -> (%d)
    block1():
      -> (%b)
  return (%y)
""", {}),
    ("no_ops_identity_check", ["eliminate-no-ops"], """
graph(%x : Tensor):
  %a : Tensor = aten::detach(%x)
  %same : bool = aten::__is__(%a, %x)
  return (%a, %same)
""", {}),
    # ---- RemoveListMutation (after loop unrolling): appends folded into the ListConstruct, which
    # moves down to the last one, unless something between reads the list
    ("list_mutation_appends", ["remove-list-mutation"], """
graph(%x : Tensor, %i : int):
  %one : int = prim::Constant[value=1]()
  %l : Tensor[] = prim::ListConstruct()
  %a : Tensor = aten::relu(%x)
  %1 : Tensor[] = aten::append(%l, %a)
  %b : Tensor = aten::sigmoid(%x)
  %2 : Tensor[] = aten::append(%l, %b)
  %m : int[] = prim::ListConstruct(%one)
  %3 : int[] = aten::append(%m, %i)
  %j : int = aten::add(%i, %one)
  %4 : int[] = aten::append(%m, %j)
  %o : (Tensor[], int[]) = prim::TupleConstruct(%l, %m)
  return (%o)
""", {}),
    ("list_mutation_blocked", ["remove-list-mutation"], """
graph(%x : Tensor, %c : bool, %l0 : Tensor[]):
  %zero : int = prim::Constant[value=0]()
  %l : Tensor[] = prim::ListConstruct()
  %a : Tensor = aten::relu(%x)
  %1 : Tensor[] = aten::append(%l, %a)
  %n : int = aten::len(%l)
  %b : Tensor = aten::sigmoid(%x)
  %2 : Tensor[] = aten::append(%l, %b)
  %k : Tensor[] = prim::ListConstruct(%x)
  %cat : Tensor = aten::cat(%k, %zero)
  %3 : Tensor[] = aten::append(%k, %a)
  %m : Tensor[] = prim::ListConstruct()
  %y : Tensor = prim::If(%c)
    block0():
      %4 : Tensor[] = aten::append(%m, %a)
      -> (%a)
    block1():
      -> (%x)
  %5 : Tensor[] = aten::append(%m, %y)
  %6 : Tensor[] = aten::append(%l0, %y)
  %o : (Tensor[], int, Tensor[], Tensor, Tensor[]) = prim::TupleConstruct(%l, %n, %k, %cat, %m)
  return (%o)
""", {}),
    # ---- dropout
    ("dropout_kinds", ["remove-dropout"], """
graph(%x : Tensor, %train : bool):
  %f : bool = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %p : float = prim::Constant[value=0.2]()
  %a : Tensor = aten::dropout(%x, %p, %f)
  %b : Tensor = aten::feature_dropout(%a, %p, %f)
  %c : Tensor = aten::dropout(%b, %p, %t)
  %d : Tensor = aten::dropout(%c, %p, %train)
  %e : Tensor = aten::dropout_(%d, %p, %f)
  return (%e)
""", {}),
    # ---- frozen conv folding (every conv argument but the input must be a constant: freezing's
    # constant propagation has made the int lists constants by the time these passes run)
    ("conv_bn", ["fold-frozen-conv-bn"], """
graph(%x : Tensor, %const_0 : Tensor, %const_1 : Tensor, %const_2 : Tensor, %const_3 : Tensor, %const_4 : Tensor, %const_5 : Tensor):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %f : bool = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %mom : float = prim::Constant[value=0.1]()
  %s : int[] = prim::Constant[value=[1, 1]]()
  %p : int[] = prim::Constant[value=[1, 1]]()
  %y : Tensor = aten::conv2d(%x, %const_0, %const_1, %s, %p, %s, %one)
  %z : Tensor = aten::batch_norm(%y, %const_2, %const_3, %const_4, %const_5, %f, %mom, %eps, %t)
  return (%z)
""", {"const_0": R(4, 3, 3, 3), "const_1": R(4), "const_2": POS(4), "const_3": R(4), "const_4": R(4), "const_5": POS(4)}),
    ("conv_bn_no_bias_no_affine", ["fold-frozen-conv-bn"], """
graph(%x : Tensor, %const_0 : Tensor, %const_1 : Tensor, %const_2 : Tensor):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %f : bool = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %eps : float = prim::Constant[value=0.001]()
  %mom : float = prim::Constant[value=0.1]()
  %s : int[] = prim::Constant[value=[1]]()
  %p : int[] = prim::Constant[value=[0]]()
  %y : Tensor = aten::conv1d(%x, %const_0, %none, %s, %p, %s, %one)
  %z : Tensor = aten::batch_norm(%y, %none, %none, %const_1, %const_2, %f, %mom, %eps, %t)
  return (%z)
""", {"const_0": R(5, 2, 3), "const_1": R(5), "const_2": POS(5)}),
    ("conv_bn_not_folded", ["fold-frozen-conv-bn"], """
graph(%x : Tensor, %w : Tensor, %const_0 : Tensor, %const_1 : Tensor, %const_2 : Tensor, %const_3 : Tensor):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %f : bool = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %mom : float = prim::Constant[value=0.1]()
  %s : int[] = prim::Constant[value=[1, 1]]()
  %p : int[] = prim::Constant[value=[0, 0]]()
  %y : Tensor = aten::conv2d(%x, %w, %none, %s, %p, %s, %one)
  %z : Tensor = aten::batch_norm(%y, %const_0, %const_1, %const_2, %const_3, %f, %mom, %eps, %t)
  %tr : Tensor = aten::_convolution(%x, %const_0, %none, %s, %p, %s, %t, %p, %one, %f, %f, %t, %t)
  %u : Tensor = aten::batch_norm(%tr, %const_0, %const_1, %const_2, %const_3, %f, %mom, %eps, %t)
  return (%z, %u)
""", {"const_0": R(3), "const_1": R(3), "const_2": R(3), "const_3": POS(3)}),
    ("conv_add_sub", ["fold-frozen-conv-add-sub"], """
graph(%x : Tensor, %const_0 : Tensor, %const_1 : Tensor, %const_2 : Tensor, %const_3 : Tensor):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %zero : int = prim::Constant[value=0]()
  %f : bool = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %half : float = prim::Constant[value=0.5]()
  %none : NoneType = prim::Constant()
  %s : int[] = prim::Constant[value=[1, 1]]()
  %p : int[] = prim::Constant[value=[0, 0]]()
  %y : Tensor = aten::_convolution(%x, %const_0, %none, %s, %p, %s, %f, %p, %one, %f, %f, %t, %t)
  %a : Tensor = aten::add(%y, %half, %one)
  %b : Tensor = aten::conv2d(%x, %const_0, %const_1, %s, %p, %s, %one)
  %c : Tensor = aten::sub(%b, %const_2, %two)
  %d : Tensor = aten::conv2d(%x, %const_0, %const_1, %s, %p, %s, %one)
  %e : Tensor = aten::add(%d, %const_3, %one)
  return (%a, %c, %e)
""", {"const_0": R(4, 2, 1, 1), "const_1": R(4), "const_2": R(1, 4, 1, 1), "const_3": R(4, 1, 1)}),
    ("conv_mul_div", ["fold-frozen-conv-mul-div"], """
graph(%x : Tensor, %const_0 : Tensor, %const_1 : Tensor, %const_2 : Tensor):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %three : float = prim::Constant[value=3.]()
  %s : int[] = prim::Constant[value=[1, 1]]()
  %p : int[] = prim::Constant[value=[0, 0]]()
  %y : Tensor = aten::conv2d(%x, %const_0, %const_1, %s, %p, %s, %one)
  %m : Tensor = aten::mul(%y, %const_2)
  %d : Tensor = aten::div(%m, %three)
  %y2 : Tensor = aten::conv2d(%x, %const_0, %const_1, %s, %p, %s, %one)
  %m2 : Tensor = aten::mul(%y2, %three)
  %r : Tensor = aten::relu(%y2)
  return (%d, %m2, %r)
""", {"const_0": R(3, 2, 2, 2), "const_1": R(3), "const_2": POS(1, 3, 1, 1)}),
]


def prepare(text, consts):
    g = torch._C.parse_ir(text)
    names = [i.debugName() for i in g.inputs()]
    first = next(iter(g.nodes()))
    for k in range(len(consts)):
        name = f"const_{k}"
        c = g.insertConstant(consts[name])
        c.node().moveBefore(first)
        list(g.inputs())[names.index(name)].replaceAllUsesWith(c)
    for name in reversed([n for n in names if n.startswith("const_")]):
        g.eraseInput(names.index(name))
    return g


def tensor_constants(g):
    out = []

    def walk(block):
        for n in block.nodes():
            if n.kind() == "prim::Constant" and n.output().type().kind() == "TensorType":
                out.append(n.t("value"))
            for b in n.blocks():
                walk(b)
    walk(g)
    return out


def write_case(name, ps, text, consts, table, written_by):
    """NAME.in.txt/.in.npz, then per pass NAME.PASS.out.txt/.out.npz: the graph and its tensor
    constants after PyTorch's pass (table[PASS]) ran on a fresh copy of the input."""
    header = f"# {name}: %const_K inputs are tensor constants (NAME.in.npz); written by {written_by}\n"
    with open(os.path.join(OUT, name + ".in.txt"), "w") as f:
        f.write(header + text.strip() + "\n")
    np.savez(os.path.join(OUT, name + ".in.npz"), **{k: v.numpy() for k, v in consts.items()})
    for p in ps:
        g = prepare(text, consts)
        table[p](g)
        with open(os.path.join(OUT, f"{name}.{p}.out.txt"), "w") as f:
            f.write(str(g))
        np.savez(os.path.join(OUT, f"{name}.{p}.out.npz"),
                 **{f"c{i}": t.contiguous().numpy() for i, t in enumerate(tensor_constants(g))})
    print("ok", name, file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        for name, ps, _, _ in CASES:
            print(name, ",".join(ps))
        return
    os.makedirs(OUT, exist_ok=True)
    table = passes(load_extension())
    for name, ps, text, consts in CASES:
        write_case(name, ps, text, consts, table, "make_freeze_goldens.py")

if __name__ == "__main__":
    main()
