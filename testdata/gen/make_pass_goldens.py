#!/usr/bin/python3
"""PyTorch 1.13 as the oracle for jitctl's clean-up passes (passes/): IR text in, IR text out.

Run with Debian's PyTorch (the `python3` on PATH has no torch); needs g++ (the pass entry points
are C++ functions without Python bindings, so a small extension is compiled once, ~25 s):

    /usr/bin/python3 testdata/gen/make_pass_goldens.py           # rewrites testdata/passes/
    /usr/bin/python3 testdata/gen/make_pass_goldens.py --list    # case names

The passes run are the ones `to_ir` runs after emitting a method, through their C++ entry points:
    dce                             EliminateDeadCode(graph)   (the AliasDb variant; the Python
                                    binding _jit_pass_dce runs the block variant, which differs)
    constant-pooling                ConstantPooling(graph)
    lower-simple-tuples             LowerSimpleTuples(graph)   (ends with EliminateDeadCode)
    canonicalize-outputs            CanonicalizeOutputs(graph)
    constant-propagation-immutable  ConstantPropagationImmutableTypes(graph)

Outputs:
- Synthetic cases (CASES below, IR text written for one behaviour each, run through every pass):
      testdata/passes/NAME.in.txt         str(torch._C.parse_ir(text)), after a header comment
      testdata/passes/NAME.PASS.out.txt   str(graph) after that pass, one file per pass
  parse_ir renumbers: node outputs lose their names and print as ids in creation order, graph and
  block inputs keep theirs. The .in.txt is what torch printed, so jitctl parses the same ids.
  Values a pass creates take the graph's next id, which text does not show: the header line
  `# torch next value id: N` gives it (every value ever created counts, so it is the number of
  values parse_ir made).
- Real graphs: for every corpus model, `m.graph` (golden/NAME/graph.txt, already cleaned up by
  torch.jit.load, so a fixed point) and `m.inlined_graph` (golden/NAME/inlined_graph.txt, not
  cleaned up) when they are small enough. Their inputs are the golden files themselves;
      testdata/passes/golden_cases.txt                     one line per (model, graph, pass):
                                                           `MODEL FILE PASS same` or
                                                           `MODEL FILE PASS changed`
      testdata/passes/golden/MODEL.FILE.PASS.out.txt       str(graph) after the pass, when changed
  A changed output whose pass created values starts with `# torch next value id: N` (N taken from
  the smallest new id), which the test strips before comparing.
- The compile pipeline itself (needs gdb): graphs as `to_ir` hands them from pass to pass while it
  compiles a method, dumped (Graph::dump(), as in lib/frontend/EMITTER_NOTES.md section 0) on entry
  to LowerSimpleTuples, ConstantPropagationImmutableTypes, ConstantPooling, CanonicalizeOutputs and
  AnnotateWarns. Each pass's input and output are consecutive dumps:
      testdata/passes/pipe_CASE_STAGE.in.txt + pipe_CASE_STAGE.PASS.out.txt
  for the TorchScript functions in PIPELINE_FUNCTIONS (torch.jit.CompilationUnit), the modules in
  TRACED_MODULES and every method of the corpus archives (torch.jit.load); identical pairs are
  written once. These are freshly
  emitted graphs with every id, name and `# file:line:col` PyTorch gave them; the header gives the
  graph's id counter, read from torch's Graph at the breakpoint. For archive methods only the
  pairs a pass changed are kept.
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
OUT_DIR = os.path.join(REPO, "testdata", "passes")
GOLDEN_DIR = os.path.join(REPO, "testdata", "golden")
MODELS_DIR = os.path.join(REPO, "testdata", "models")
MAX_REAL_GRAPH_BYTES = 40000

PASSES = ["dce", "constant-pooling", "lower-simple-tuples", "canonicalize-outputs", "constant-propagation-immutable"]

EXTENSION_SOURCE = r"""
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/canonicalize.h>
#include <torch/csrc/jit/passes/constant_pooling.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/extension.h>
using namespace torch::jit;
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("dce", [](std::shared_ptr<Graph> g) { EliminateDeadCode(g); });
  m.def("constant_pooling", [](std::shared_ptr<Graph> g) { ConstantPooling(g); });
  m.def("lower_simple_tuples", [](std::shared_ptr<Graph> g) { LowerSimpleTuples(g); });
  m.def("canonicalize_outputs", [](std::shared_ptr<Graph> g) { CanonicalizeOutputs(g); });
  m.def("constant_propagation_immutable", [](std::shared_ptr<Graph> g) { return ConstantPropagationImmutableTypes(g); });
}
"""

CLS = "__torch__.torch.classes.quantized.LinearPackedParamsBase"  # a class type parse_ir can name

# ------------------------------------------------------------------------------------------------
# Synthetic cases: (name, IR text). parse_ir needs every aten/prim node to match a registered
# operator (alias analysis asserts otherwise), so the ops and argument types are real ones.
# ------------------------------------------------------------------------------------------------

CASES = [
    # ---- dead code elimination
    ("dce_straight_line", """
graph(%x : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %unused : float = prim::Constant[value=0.5]()
  %a : int = aten::add(%n, %one)
  %b : int = aten::mul(%a, %two)
  %dead : int = aten::sub(%b, %one)
  %dead2 : int = aten::mul(%dead, %dead)
  %y : Tensor = aten::relu(%x)
  %z : Tensor = aten::sigmoid(%y)
  %u : Tensor = prim::Uninitialized()
  %ub : bool = prim::Uninitialized()
  %t : (Tensor, int) = prim::TupleConstruct(%z, %b)
  %t2 : (Tensor, int) = prim::TupleConstruct(%y, %a)
  return (%t)
"""),
    ("dce_side_effects", f"""
graph(%self : {CLS}, %x : Tensor, %c : bool):
  %msg : str = prim::Constant[value="bad"]()
  %none : NoneType = prim::Constant()
  %two : int = prim::Constant[value=2]()
  %m : Tensor = prim::CallMethod[name="forward"](%self, %x)
  prim::Print(%msg, %x)
  aten::warn(%msg, %two)
  %w : Tensor = prim::GetAttr[name="weight"](%self)
  %w2 : Tensor = prim::GetAttr[name="bias"](%self)
  prim::SetAttr[name="weight"](%self, %x)
  %obj : {CLS} = prim::CreateObject()
  prim::SetAttr[name="weight"](%obj, %x)
  prim::If(%c)
    block0():
      prim::RaiseException(%msg, %none)
      -> ()
    block1():
      -> ()
  %r : int = prim::If(%c)
    block0():
      prim::RaiseException(%msg, %none)
      -> (%two)
    block1():
      -> (%two)
  %s : Tensor = aten::mul(%w2, %x)
  return (%s)
"""),
    ("dce_if_outputs", """
graph(%x : Tensor, %c : bool, %d : bool):
  %one : int = prim::Constant[value=1]()
  %a : Tensor, %b : Tensor, %e : int = prim::If(%c)
    block0():
      %p : Tensor = aten::relu(%x)
      %q : Tensor = aten::tanh(%x)
      %k : int = aten::dim(%x)
      -> (%p, %q, %k)
    block1():
      %r : Tensor, %s : Tensor = prim::If(%d)
        block0():
          %r1 : Tensor = aten::neg(%x)
          %s1 : Tensor = aten::exp(%x)
          -> (%r1, %s1)
        block1():
          -> (%x, %x)
      -> (%r, %s, %one)
  %f : Tensor = aten::mul(%b, %b)
  return (%f)
"""),
    ("dce_loop_carried", """
graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %acc : Tensor, %cnt : int, %other : int, %dead : Tensor = prim::Loop(%n, %true, %x, %zero, %zero, %x)
    block0(%i : int, %acc.1 : Tensor, %cnt.1 : int, %other.1 : int, %dead.1 : Tensor):
      %acc.2 : Tensor = aten::add(%acc.1, %x, %one)
      %cnt.2 : int = aten::add(%cnt.1, %one)
      %other.2 : int = aten::add(%other.1, %one)
      %dead.2 : Tensor = aten::relu(%x)
      %cond : bool = aten::lt(%cnt.2, %n)
      -> (%cond, %acc.2, %cnt.2, %other.2, %dead.2)
  %out : Tensor = aten::mul(%acc, %acc)
  return (%out)
"""),
    ("dce_loop_body_reads", """
graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %a : Tensor, %k : int, %j : int = prim::Loop(%n, %true, %x, %zero, %zero)
    block0(%i : int, %a.1 : Tensor, %k.1 : int, %j.1 : int):
      %k.2 : int = aten::add(%k.1, %one)
      %b : bool = aten::gt(%k.1, %n)
      %a.2 : Tensor = prim::If(%b)
        block0():
          %t : Tensor = aten::neg(%a.1)
          -> (%t)
        block1():
          -> (%a.1)
      %j.2 : int = aten::add(%j.1, %i)
      -> (%true, %a.2, %k.2, %j.2)
  return (%a)
"""),
    ("dce_inplace", """
graph(%x : Tensor, %y : Tensor):
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %in1 : Tensor = aten::add_(%x, %y, %one)
  %a : Tensor = aten::zeros_like(%x, %none, %none, %none, %none, %none)
  %a1 : Tensor = aten::add_(%a, %y, %one)
  %b : Tensor = aten::zeros_like(%x, %none, %none, %none, %none, %none)
  %b1 : Tensor = aten::mul_(%b, %y)
  %c : Tensor = aten::zeros_like(%x, %none, %none, %none, %none, %none)
  %cv : Tensor = aten::select(%c, %zero, %zero)
  %cv1 : Tensor = aten::relu_(%cv)
  %d : Tensor = aten::ones_like(%x, %none, %none, %none, %none, %none)
  %dv : Tensor = aten::select(%d, %zero, %zero)
  %dv1 : Tensor = aten::relu_(%dv)
  %e : Tensor = aten::clone(%y, %none)
  %e1 : Tensor = aten::sigmoid_(%e)
  %r : (Tensor, Tensor) = prim::TupleConstruct(%b, %c)
  return (%r)
"""),
    ("dce_lists", f"""
graph(%self : {CLS}, %x : Tensor, %y : Tensor):
  %zero : int = prim::Constant[value=0]()
  %l1 : Tensor[] = prim::ListConstruct(%x)
  %a1 : Tensor[] = aten::append(%l1, %y)
  %l2 : Tensor[] = prim::ListConstruct(%x)
  %a2 : Tensor[] = aten::append(%l2, %y)
  %l3 : Tensor[] = prim::ListConstruct()
  %a3 : Tensor[] = aten::append(%l3, %y)
  %m : Tensor = prim::CallMethod[name="consume"](%self, %l3)
  %l4 : Tensor[] = prim::ListConstruct(%x, %y)
  %cat : Tensor = aten::cat(%l4, %zero)
  %l5 : Tensor[] = prim::ListConstruct(%x, %y)
  %cat2 : Tensor = aten::cat(%l5, %zero)
  %l6 : int[] = prim::ListConstruct(%zero)
  %a6 : int[] = aten::append(%l6, %zero)
  %len : int = aten::len(%l6)
  %r : (Tensor[], Tensor, int) = prim::TupleConstruct(%l2, %cat2, %len)
  return (%r)
"""),
    ("dce_dict", """
graph(%x : Tensor, %k : str):
  %d : Dict(str, Tensor) = prim::DictConstruct()
  aten::_set_item(%d, %k, %x)
  %d2 : Dict(str, Tensor) = prim::DictConstruct()
  aten::_set_item(%d2, %k, %x)
  %v : Tensor = aten::__getitem__(%d2, %k)
  return (%v)
"""),
    ("dce_loop_alias", """
graph(%a : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %t : Tensor = aten::zeros_like(%a, %none, %none, %none, %none, %none)
  %tot : Tensor = prim::Loop(%n, %true, %t)
    block0(%i : int, %tot.1 : Tensor):
      %s : Tensor = aten::select(%t, %zero, %zero)
      %tot.2 : Tensor = aten::add(%tot.1, %s, %one)
      %b : Tensor = aten::select(%t, %zero, %zero)
      %b1 : Tensor = aten::add_(%b, %one, %one)
      -> (%true, %tot.2)
  %u : Tensor = aten::zeros_like(%a, %none, %none, %none, %none, %none)
  prim::Loop(%n, %true)
    block0(%j : int):
      %ub : Tensor = aten::select(%u, %zero, %zero)
      %ub1 : Tensor = aten::add_(%ub, %one, %one)
      -> (%true)
  return (%tot)
"""),
    ("dce_batch_norm", """
graph(%x : Tensor, %w : Tensor, %b : Tensor, %rm : Tensor, %rv : Tensor, %training : bool):
  %false : bool = prim::Constant[value=0]()
  %true : bool = prim::Constant[value=1]()
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1e-05]()
  %none : NoneType = prim::Constant()
  %y1 : Tensor = aten::batch_norm(%x, %w, %b, %rm, %rv, %false, %mom, %eps, %true)
  %y2 : Tensor = aten::batch_norm(%x, %w, %b, %rm, %rv, %training, %mom, %eps, %true)
  %m : Tensor = aten::zeros_like(%x, %none, %none, %none, %none, %none)
  %v : Tensor = aten::ones_like(%x, %none, %none, %none, %none, %none)
  %y3 : Tensor = aten::batch_norm(%x, %w, %b, %m, %v, %true, %mom, %eps, %true)
  %y4 : Tensor = aten::instance_norm(%x, %w, %b, %rm, %rv, %training, %mom, %eps, %true)
  return (%x)
"""),
    ("dce_nested_blocks", """
graph(%x : Tensor, %n : int, %c : bool):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %msg : str = prim::Constant[value="x"]()
  %none : NoneType = prim::Constant()
  %r : int = prim::Loop(%n, %true, %one)
    block0(%i : int, %r.1 : int):
      %u : int = aten::mul(%i, %i)
      %r.2 : int, %v : int = prim::If(%c)
        block0():
          %r.3 : int = aten::add(%r.1, %one)
          -> (%r.3, %u)
        block1():
          prim::If(%c)
            block0():
              prim::RaiseException(%msg, %none)
              -> ()
            block1():
              -> ()
          -> (%r.1, %one)
      -> (%true, %r.2)
  %dead : int = prim::Loop(%n, %true, %one)
    block0(%i2 : int, %d.1 : int):
      %d.2 : int = aten::add(%d.1, %i2)
      -> (%true, %d.2)
  return (%r)
"""),
    ("dce_optional_none", """
graph(%x : Tensor, %c : bool):
  %none : NoneType = prim::Constant()
  %o : Tensor? = prim::If(%c)
    block0():
      -> (%x)
    block1():
      -> (%none)
  %o2 : Tensor? = prim::If(%c)
    block0():
      %z : Tensor = aten::relu(%x)
      -> (%z)
    block1():
      -> (%none)
  %isn : bool = aten::__is__(%o, %none)
  return (%isn)
"""),
    # ---- constant pooling
    ("pool_order", """
graph(%x : Tensor, %n : int):
  %a : int = prim::Constant[value=3]()
  %b : int = aten::add(%n, %a)
  %c : float = prim::Constant[value=0.5]()
  %d : int = prim::Constant[value=3]()
  %e : int = aten::mul(%b, %d)
  %f : bool = prim::Constant[value=1]()
  %g : int = prim::Constant[value=1]()
  %h : float = prim::Constant[value=1.]()
  %i : str = prim::Constant[value="a"]()
  %j : str = prim::Constant[value="a"]()
  %k : NoneType = prim::Constant()
  %l : NoneType = prim::Constant()
  %m : float = prim::Constant[value=0.5]()
  %dead : int = prim::Constant[value=99]()
  %t : (int, float, bool, int, float, str, str, NoneType, NoneType, float) = prim::TupleConstruct(%e, %c, %f, %g, %h, %i, %j, %k, %l, %m)
  return (%t)
"""),
    ("pool_blocks", """
graph(%x : Tensor, %n : int, %c : bool):
  %true : bool = prim::Constant[value=1]()
  %r : int = prim::If(%c)
    block0():
      %one : int = prim::Constant[value=1]()
      %two : int = prim::Constant[value=2]()
      %s : int = aten::add(%one, %n)
      %s2 : int = aten::add(%s, %two)
      -> (%s2)
    block1():
      %one.2 : int = prim::Constant[value=1]()
      %three : int = prim::Constant[value=3]()
      %t : int = aten::sub(%n, %one.2)
      %t2 : int = aten::sub(%t, %three)
      -> (%t2)
  %l : int = prim::Loop(%n, %true, %r)
    block0(%i : int, %l.1 : int):
      %two.2 : int = prim::Constant[value=2]()
      %four : int = prim::Constant[value=4]()
      %true.2 : bool = prim::Constant[value=1]()
      %l.2 : int = aten::add(%l.1, %two.2)
      %l.3 : int = aten::add(%l.2, %four)
      -> (%true.2, %l.3)
  %five : int = prim::Constant[value=5]()
  %out : int = aten::add(%l, %five)
  return (%out)
"""),
    ("pool_value_kinds", """
graph(%x : Tensor):
  %a : float = prim::Constant[value=0.]()
  %b : float = prim::Constant[value=-0.]()
  %c : float = prim::Constant[value=0.25]()
  %d : float = prim::Constant[value=0.25]()
  %e : bool = prim::Constant[value=0]()
  %f : int = prim::Constant[value=0]()
  %g : Device = prim::Constant[value="cpu"]()
  %h : Device = prim::Constant[value="cpu"]()
  %i : str = prim::Constant[value="cpu"]()
  %j : int? = prim::Constant()
  %k : NoneType = prim::Constant()
  %l : int = prim::Constant[value=9223372036854775807]()
  %m : int = prim::Constant[value=9223372036854775807]()
  %n : float = prim::Constant[value=1e+200]()
  %o : float = prim::Constant[value=1e+200]()
  %p : complex = prim::Constant[value=1j]()
  %q : complex = prim::Constant[value=1j]()
  %t : (float, float, float, float, bool, int, Device, Device, str, int?, NoneType, int, int, float, float, complex, complex) = prim::TupleConstruct(%a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k, %l, %m, %n, %o, %p, %q)
  return (%t)
"""),
    ("pool_containers", f"""
graph(%self : {CLS}, %x : Tensor):
  %false : bool = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %a : int[] = prim::Constant[value=[1, 2]]()
  %b : int[] = prim::Constant[value=[1, 2]]()
  %c : Tensor = aten::sum(%x, %a, %false, %none)
  %d : Tensor = aten::sum(%x, %b, %false, %none)
  %g : int[] = prim::Constant[value=[3]]()
  %h : int[] = prim::Constant[value=[3]]()
  %m : Tensor = prim::CallMethod[name="use"](%self, %g)
  %i : int[] = prim::Constant[value=[4]]()
  %j : int[] = prim::Constant[value=[4]]()
  %i.0 : int = prim::Constant[value=4]()
  %k : int[] = aten::append(%j, %i.0)
  %r : (Tensor, Tensor, int[], int[], int[]) = prim::TupleConstruct(%c, %d, %h, %i, %j)
  return (%r)
"""),
    # ---- LowerSimpleTuples
    ("tuples_simple", """
graph(%x : Tensor, %y : int, %p : (Tensor, int), %k : int):
  %zero : int = prim::Constant[value=0]()
  %m1 : int = prim::Constant[value=-1]()
  %big : int = prim::Constant[value=5]()
  %t : (Tensor, int, int) = prim::TupleConstruct(%x, %y, %y)
  %a : Tensor, %b : int, %c : int = prim::TupleUnpack(%t)
  %d : int = prim::TupleIndex(%t, %m1)
  %e : Tensor = prim::TupleIndex(%t, %zero)
  %f : Tensor, %g : int = prim::TupleUnpack(%p)
  %h : int = prim::TupleIndex(%p, %m1)
  %s : (int, int) = prim::TupleSlice[beg=1, end=3](%t)
  %s2 : (int, int) = prim::TupleSlice[beg=1, end=3](%t)
  %u : (int, int) = prim::TupleConstruct(%y, %y)
  %v : int = prim::TupleIndex(%u, %k)
  %w : int = prim::TupleIndex(%u, %big)
  %r : (Tensor, int, Tensor, int, (int, int), int, int) = prim::TupleConstruct(%a, %d, %f, %h, %s, %v, %w)
  return (%r)
"""),
    ("tuples_blocks", """
graph(%x : Tensor, %n : int, %c : bool):
  %true : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %t : (Tensor, int) = prim::TupleConstruct(%x, %n)
  %r : Tensor = prim::If(%c)
    block0():
      %a : Tensor, %b : int = prim::TupleUnpack(%t)
      %t2 : (int, Tensor) = prim::TupleConstruct(%b, %a)
      %q : Tensor = prim::TupleIndex(%t2, %one)
      -> (%q)
    block1():
      %l : Tensor = prim::Loop(%n, %true, %x)
        block0(%i : int, %l.1 : Tensor):
          %u : (Tensor, int) = prim::TupleConstruct(%l.1, %i)
          %v : Tensor = prim::TupleIndex(%u, %zero)
          %w : Tensor = aten::relu(%v)
          -> (%true, %w)
      -> (%l)
  %nt : (Tensor, (Tensor, int)) = prim::TupleConstruct(%r, %t)
  %inner : (Tensor, int) = prim::TupleIndex(%nt, %one)
  %z : int = prim::TupleIndex(%inner, %one)
  %out : (Tensor, int) = prim::TupleConstruct(%r, %z)
  return (%out)
"""),
    # ---- CanonicalizeOutputs
    ("canon_if", """
graph(%x : Tensor, %c : bool, %d : bool):
  %one : int = prim::Constant[value=1]()
  %a : Tensor, %b : Tensor, %u : Tensor, %e : int = prim::If(%c)
    block0():
      %p : Tensor = aten::relu(%x)
      -> (%p, %x, %x, %one)
    block1():
      -> (%x, %x, %x, %one)
  %f : int = aten::add(%e, %one)
  %g : Tensor = prim::If(%d)
    block0():
      %h : Tensor = aten::mul(%b, %a)
      -> (%h)
    block1():
      -> (%a)
  %r : (Tensor, int) = prim::TupleConstruct(%g, %f)
  return (%r)
"""),
    ("canon_loop", """
graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %a : int, %b : Tensor, %c : int, %d : int = prim::Loop(%n, %true, %zero, %x, %one, %zero)
    block0(%i : int, %a.1 : int, %b.1 : Tensor, %c.1 : int, %d.1 : int):
      %a.2 : int = aten::add(%a.1, %i)
      %b.2 : Tensor = aten::relu(%b.1)
      %c.2 : int = aten::mul(%c.1, %a.2)
      %d.2 : int = aten::add(%d.1, %one)
      -> (%true, %a.2, %b.2, %c.2, %d.2)
  %e : int = aten::add(%d, %c)
  %f : Tensor = aten::mul(%b, %b)
  %r : (int, Tensor) = prim::TupleConstruct(%e, %f)
  return (%r)
"""),
    ("canon_nested", """
graph(%x : Tensor, %n : int, %c : bool):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %p : int, %q : int = prim::If(%c)
    block0():
      -> (%one, %n)
    block1():
      -> (%n, %one)
  %l1 : int, %l2 : int = prim::Loop(%n, %true, %p, %q)
    block0(%i : int, %l1.1 : int, %l2.1 : int):
      %s : int, %t : int = prim::If(%c)
        block0():
          %w : int = aten::add(%l2.1, %l1.1)
          -> (%w, %l1.1)
        block1():
          -> (%l1.1, %l2.1)
      %v : int = aten::mul(%t, %s)
      -> (%true, %v, %t)
  %out : int = prim::If(%c)
    block0():
      %k : int = aten::add(%l2, %q)
      -> (%k)
    block1():
      %k2 : int = aten::add(%l1, %p)
      -> (%k2)
  return (%out)
"""),
    # ---- ConstantPropagationImmutableTypes
    ("cp_scalars", """
graph(%x : Tensor, %n : int):
  %i2 : int = prim::Constant[value=2]()
  %i3 : int = prim::Constant[value=3]()
  %im7 : int = prim::Constant[value=-7]()
  %i0 : int = prim::Constant[value=0]()
  %f15 : float = prim::Constant[value=1.5]()
  %fm25 : float = prim::Constant[value=-2.5]()
  %f0 : float = prim::Constant[value=0.]()
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %a1 : int = aten::add(%i2, %i3)
  %a2 : int = aten::sub(%i2, %im7)
  %a3 : int = aten::mul(%im7, %i3)
  %a4 : float = aten::div(%im7, %i2)
  %a5 : int = aten::floordiv(%im7, %i2)
  %a6 : int = aten::remainder(%im7, %i3)
  %a7 : float = aten::add(%i2, %f15)
  %a8 : float = aten::mul(%f15, %fm25)
  %a9 : float = aten::floordiv(%fm25, %f15)
  %a10 : float = aten::remainder(%fm25, %f15)
  %a11 : int = aten::neg(%im7)
  %a12 : float = aten::neg(%f15)
  %a13 : float = aten::pow(%i2, %i3)
  %a14 : float = aten::pow(%f15, %i2)
  %a15 : float = aten::div(%f15, %f0)
  %a16 : float = aten::sub(%f15, %i3)
  %b1 : bool = aten::lt(%i2, %i3)
  %b2 : bool = aten::eq(%i2, %f15)
  %b3 : bool = aten::ge(%fm25, %im7)
  %b4 : bool = aten::ne(%t, %f)
  %b5 : bool = aten::__not__(%t)
  %b6 : bool = aten::__and__(%t, %f)
  %b7 : bool = aten::__or__(%t, %f)
  %b8 : int = aten::__and__(%i3, %im7)
  %b9 : int = aten::__xor__(%i3, %im7)
  %c1 : bool = aten::Bool(%i0)
  %c2 : int = aten::Int(%fm25)
  %c3 : float = aten::Float(%im7)
  %c4 : int = aten::Int(%t)
  %c5 : int = aten::floor(%fm25)
  %c6 : int = aten::ceil(%fm25)
  %c7 : int = prim::min(%i2, %im7)
  %c8 : float = prim::max(%f15, %fm25)
  %c9 : int = prim::abs(%im7)
  %c10 : int = aten::__round_to_zero_floordiv(%im7, %i2)
  %r : (int, int, int, float, int, int, float, float, float, float, int, float, float, float, float, float, bool, bool, bool, bool, bool, bool, bool, int, int, bool, int, float, int, int, int, int, float, int, int) = prim::TupleConstruct(%a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %a13, %a14, %a15, %a16, %b1, %b2, %b3, %b4, %b5, %b6, %b7, %b8, %b9, %c1, %c2, %c3, %c4, %c5, %c6, %c7, %c8, %c9, %c10)
  return (%r)
"""),
    ("cp_no_fold", """
graph(%x : Tensor, %n : int):
  %i2 : int = prim::Constant[value=2]()
  %i0 : int = prim::Constant[value=0]()
  %im1 : int = prim::Constant[value=-1]()
  %f0 : float = prim::Constant[value=0.]()
  %s : str = prim::Constant[value="cpx"]()
  %none : NoneType = prim::Constant()
  %a1 : int = aten::floordiv(%i2, %i0)
  %a2 : float = aten::pow(%f0, %im1)
  %a3 : Device = aten::device(%s)
  %a4 : int = aten::add(%n, %i2)
  %l : int[] = prim::ListConstruct(%i2, %i0)
  %a5 : int = aten::len(%l)
  %a6 : Tensor = aten::mul(%x, %i2)
  %a7 : int = aten::size(%x, %i0)
  prim::RaiseException(%s, %none)
  %r : (int, float, Device, int, int, Tensor, int) = prim::TupleConstruct(%a1, %a2, %a3, %a4, %a5, %a6, %a7)
  return (%r)
"""),
    ("cp_strings_devices", """
graph(%x : Tensor):
  %a : str = prim::Constant[value="ab"]()
  %b : str = prim::Constant[value="cd"]()
  %dev : str = prim::Constant[value="cpu"]()
  %i1 : int = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %c : str = aten::add(%a, %b)
  %d : bool = aten::eq(%a, %b)
  %e : bool = aten::lt(%a, %b)
  %f : int = aten::len(%c)
  %g : Device = aten::device(%dev)
  %h : str = aten::__getitem__(%a, %i1)
  %i : bool = aten::__is__(%none, %none)
  %j : bool = aten::__isnot__(%i1, %none)
  %k : bool = aten::__is__(%a, %a)
  %r : (str, bool, bool, int, Device, str, bool, bool, bool) = prim::TupleConstruct(%c, %d, %e, %f, %g, %h, %i, %j, %k)
  return (%r)
"""),
    ("cp_tuples", """
graph(%x : Tensor, %n : int):
  %i1 : int = prim::Constant[value=1]()
  %f2 : float = prim::Constant[value=2.5]()
  %none : NoneType = prim::Constant()
  %s : str = prim::Constant[value="s"]()
  %m1 : int = prim::Constant[value=-1]()
  %t : (int, float, NoneType, str) = prim::TupleConstruct(%i1, %f2, %none, %s)
  %a : float = prim::TupleIndex(%t, %i1)
  %b : str = prim::TupleIndex(%t, %m1)
  %c : int, %d : float, %e : NoneType, %f : str = prim::TupleUnpack(%t)
  %empty : () = prim::TupleConstruct()
  %mixed : (Tensor, int) = prim::TupleConstruct(%x, %i1)
  %part : (int, int) = prim::TupleConstruct(%n, %i1)
  %nested : ((int, float, NoneType, str), int) = prim::TupleConstruct(%t, %i1)
  %r : (float, str, int, float, NoneType, (), (Tensor, int), (int, int), ((int, float, NoneType, str), int)) = prim::TupleConstruct(%a, %b, %c, %d, %e, %empty, %mixed, %part, %nested)
  return (%r)
"""),
    ("cp_if", """
graph(%x : Tensor, %c : bool, %n : int):
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %msg : str = prim::Constant[value="no"]()
  %none : NoneType = prim::Constant()
  %a : Tensor = prim::If(%t)
    block0():
      %a1 : Tensor = aten::relu(%x)
      -> (%a1)
    block1():
      %a2 : Tensor = aten::neg(%x)
      -> (%a2)
  %b : int = prim::If(%f)
    block0():
      prim::RaiseException(%msg, %none)
      -> (%one)
    block1():
      %b2 : int = aten::add(%one, %two)
      -> (%b2)
  %c1 : int, %c2 : Tensor, %c3 : int, %c4 : int = prim::If(%c)
    block0():
      %o1 : int = prim::Constant[value=1]()
      %u : Tensor = aten::relu(%x)
      -> (%o1, %x, %n, %two)
    block1():
      %o2 : int = prim::Constant[value=1]()
      -> (%o2, %x, %two, %two)
  %cond : bool = aten::lt(%one, %two)
  %d : int = prim::If(%cond)
    block0():
      %d1 : int = aten::mul(%two, %two)
      -> (%d1)
    block1():
      -> (%one)
  %r : (Tensor, int, int, Tensor, int, int, int) = prim::TupleConstruct(%a, %b, %c1, %c2, %c3, %c4, %d)
  return (%r)
"""),
    ("cp_loops", """
graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %mone : int = prim::Constant[value=-1]()
  %a : Tensor = prim::Loop(%zero, %t, %x)
    block0(%i : int, %a.1 : Tensor):
      %a.2 : Tensor = aten::relu(%a.1)
      -> (%t, %a.2)
  %b : Tensor = prim::Loop(%n, %f, %x)
    block0(%j : int, %b.1 : Tensor):
      %b.2 : Tensor = aten::relu(%b.1)
      -> (%t, %b.2)
  %c : Tensor = prim::Loop(%mone, %t, %x)
    block0(%k : int, %c.1 : Tensor):
      -> (%t, %c.1)
  %d : Tensor, %e : int = prim::Loop(%n, %t, %x, %zero)
    block0(%l : int, %d.1 : Tensor, %e.1 : int):
      %e.2 : int = aten::add(%e.1, %l)
      %k2 : int = aten::add(%one, %one)
      %e.3 : int = aten::add(%e.2, %k2)
      -> (%t, %d.1, %e.3)
  %r : (Tensor, Tensor, Tensor, Tensor, int) = prim::TupleConstruct(%a, %b, %c, %d, %e)
  return (%r)
"""),
    ("cp_optional_result", """
graph(%x : Tensor, %c : bool):
  %none : NoneType = prim::Constant()
  %i0 : int = prim::Constant[value=0]()
  %i1 : int = prim::Constant[value=1]()
  %t : (NoneType, int) = prim::TupleConstruct(%none, %i1)
  %a : int? = prim::TupleIndex(%t, %i0)
  %b : bool = aten::__is__(%a, %none)
  %o : int? = prim::If(%c)
    block0():
      %n1 : int? = prim::Constant()
      -> (%n1)
    block1():
      %n2 : int? = prim::Constant()
      -> (%n2)
  %r : (int?, bool, int?) = prim::TupleConstruct(%a, %b, %o)
  return (%r)
"""),
    ("cp_nested", """
graph(%x : Tensor, %n : int, %c : bool):
  %t : bool = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %three : int = prim::Constant[value=3]()
  %r : int = prim::Loop(%n, %t, %two)
    block0(%i : int, %r.1 : int):
      %k : int = aten::mul(%two, %three)
      %cond : bool = aten::gt(%k, %three)
      %r.2 : int = prim::If(%cond)
        block0():
          %s : int = aten::add(%r.1, %k)
          -> (%s)
        block1():
          -> (%r.1)
      %r.3 : int = prim::If(%c)
        block0():
          %w : int = aten::sub(%three, %two)
          %w2 : int = aten::add(%r.2, %w)
          -> (%w2)
        block1():
          -> (%r.2)
      -> (%t, %r.3)
  return (%r)
"""),
    ("cp_edge_semantics", """
graph(%x : Tensor):
  %i0 : int = prim::Constant[value=0]()
  %i2 : int = prim::Constant[value=2]()
  %im1 : int = prim::Constant[value=-1]()
  %im3 : int = prim::Constant[value=-3]()
  %imax : int = prim::Constant[value=9223372036854775807]()
  %imin : int = prim::Constant[value=-9223372036854775808]()
  %big : int = prim::Constant[value=9007199254740993]()
  %p53 : int = prim::Constant[value=9007199254740992]()
  %fbig : float = aten::Float(%p53)
  %fm8 : float = prim::Constant[value=-8.]()
  %fhalf : float = prim::Constant[value=0.5]()
  %fm35 : float = prim::Constant[value=-3.5]()
  %f1e30 : float = prim::Constant[value=1e+30]()
  %fz : float = prim::Constant[value=0.]()
  %fnz : float = prim::Constant[value=-0.]()
  %sa : str = prim::Constant[value="abc"]()
  %sb : str = prim::Constant[value="abd"]()
  %se : str = prim::Constant[value=""]()
  %a1 : int = aten::add(%imax, %i2)
  %a2 : int = aten::mul(%imin, %im1)
  %a3 : int = aten::neg(%imin)
  %a4 : float = aten::pow(%fm8, %fhalf)
  %a5 : float = aten::pow(%i0, %im1)
  %a6 : float = aten::pow(%im3, %i2)
  %a7 : int = aten::Int(%f1e30)
  %a8 : int = aten::floor(%fm35)
  %a9 : float = aten::remainder(%fm35, %i2)
  %a10 : float = aten::floordiv(%fm35, %i2)
  %a11 : int = aten::remainder(%im3, %im1)
  %a12 : int = aten::floordiv(%im3, %im1)
  %b1 : bool = aten::eq(%big, %fbig)
  %b2 : bool = aten::lt(%sa, %sb)
  %b3 : bool = aten::ge(%se, %sa)
  %b4 : bool = aten::__is__(%fz, %fnz)
  %b5 : bool = aten::eq(%fz, %fnz)
  %b6 : float = prim::min(%fz, %fnz)
  %b7 : float = prim::max(%fnz, %fz)
  %b8 : str = aten::__getitem__(%sa, %im1)
  %b9 : int = aten::len(%se)
  %c1 : bool = aten::Bool(%fnz)
  %c2 : float = aten::Float(%imax)
  %c3 : float = aten::div(%fz, %fz)
  %c4 : int = aten::__and__(%imin, %im1)
  %c5 : int = aten::ceil(%fbig)
  %r : (int, int, int, float, float, float, int, int, float, float, int, int, bool, bool, bool, bool, bool, float, float, str, int, bool, float, float, int, int) = prim::TupleConstruct(%a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %b1, %b2, %b3, %b4, %b5, %b6, %b7, %b8, %b9, %c1, %c2, %c3, %c4, %c5)
  return (%r)
"""),
    ("cp_devices", """
graph(%x : Tensor):
  %s1 : str = prim::Constant[value="cuda:1"]()
  %s2 : str = prim::Constant[value="cpu:0"]()
  %s3 : str = prim::Constant[value="meta"]()
  %s4 : str = prim::Constant[value="cuda"]()
  %s5 : str = prim::Constant[value="cpu"]()
  %d1 : Device = aten::device(%s1)
  %d2 : Device = aten::device(%s2)
  %d3 : Device = aten::device(%s3)
  %d4 : Device = aten::device(%s4)
  %d5 : Device = aten::device(%s5)
  %e1 : bool = aten::eq(%d2, %d5)
  %e2 : bool = aten::ne(%d1, %d4)
  %r : (Device, Device, Device, Device, Device, bool, bool) = prim::TupleConstruct(%d1, %d2, %d3, %d4, %d5, %e1, %e2)
  return (%r)
"""),
    ("cp_if_constant_outputs", """
graph(%x : Tensor, %c : bool):
  %none : NoneType = prim::Constant()
  %a : int, %b : str, %d : float, %e : NoneType, %f : Tensor = prim::If(%c)
    block0():
      %a1 : int = prim::Constant[value=7]()
      %b1 : str = prim::Constant[value="s"]()
      %d1 : float = prim::Constant[value=0.]()
      %n1 : NoneType = prim::Constant()
      -> (%a1, %b1, %d1, %n1, %x)
    block1():
      %a2 : int = prim::Constant[value=7]()
      %b2 : str = prim::Constant[value="t"]()
      %d2 : float = prim::Constant[value=-0.]()
      %n2 : NoneType = prim::Constant()
      %y : Tensor = aten::relu(%x)
      -> (%a2, %b2, %d2, %n2, %y)
  %r : (int, str, float, NoneType, Tensor) = prim::TupleConstruct(%a, %b, %d, %e, %f)
  return (%r)
"""),
    # ---- mixed: the shapes the emitter leaves behind (exits, raise paths, tuples of returns)
    ("mixed_emitter_leftovers", """
graph(%self : Tensor, %x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %ub : bool = prim::Uninitialized()
  %t.2 : bool = prim::Constant[value=1]()
  %f.2 : bool = prim::Constant[value=0]()
  %ub2 : bool = prim::Uninitialized()
  %ut : Tensor = prim::Uninitialized()
  %zero : int = prim::Constant[value=0]()
  %msg : str = prim::Constant[value="Exception"]()
  %none : NoneType = prim::Constant()
  %cond : bool = aten::gt(%n, %zero)
  prim::If(%cond)
    block0():
      -> ()
    block1():
      prim::RaiseException(%msg, %none)
      %e : () = prim::TupleConstruct()
      -> ()
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::add(%x, %x, %one)
  %tp : (Tensor, int) = prim::TupleConstruct(%y, %n)
  %a : Tensor, %b : int = prim::TupleUnpack(%tp)
  %z : Tensor = aten::mul(%a, %b)
  %one.2 : int = prim::Constant[value=1]()
  %w : Tensor = aten::add(%z, %y, %one.2)
  return (%w)
"""),
]

# ------------------------------------------------------------------------------------------------


def load_extension():
    import torch  # noqa: F401
    from torch.utils.cpp_extension import load_inline
    digest = hashlib.sha1(EXTENSION_SOURCE.encode()).hexdigest()[:12]
    build = os.path.join(tempfile.gettempdir(), "jitctl_pass_oracle_" + digest)
    os.makedirs(build, exist_ok=True)
    return load_inline("jitctl_pass_oracle", cpp_sources=[EXTENSION_SOURCE], build_directory=build, verbose=False)


def run_pass(ext, name, graph):
    {"dce": ext.dce,
     "constant-pooling": ext.constant_pooling,
     "lower-simple-tuples": ext.lower_simple_tuples,
     "canonicalize-outputs": ext.canonicalize_outputs,
     "constant-propagation-immutable": ext.constant_propagation_immutable}[name](graph)


def all_values(graph):
    out = list(graph.inputs())

    def walk(block):
        for n in block.nodes():
            for b in n.blocks():
                out.extend(b.paramNode().outputs())
                walk(b)
            out.extend(n.outputs())
    walk(graph)
    return out


DEF_RE = re.compile(r"%([A-Za-z0-9_.]+) :")


def defined_ids(text):
    return {int(m) for m in DEF_RE.findall(text) if m.isdigit()}


TENSOR_CONSTANT_RE = re.compile(r"^\s*%[\w.]+ : [^=]*= prim::Constant\[value=(.*)\]\(\)", re.M)


def ambiguous_tensor_constants(text):
    """Two tensor constants that print alike: torch merges them without asking alias analysis when
    they are the same tensor object (an archive's CONSTANTS.cN read twice), and text does not say
    whether they are, nor what a `<Tensor>` holds. Pooling such a graph read from text is not
    comparable with torch."""
    values = [v for v in TENSOR_CONSTANT_RE.findall(text) if v.startswith("{") or v.startswith("<Tensor>") or "[ CPU" in v]
    return len(values) != len(set(values))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def synthetic(ext, only):
    import torch
    count = 0
    for name, src in CASES:
        if only and name not in only:
            continue
        g = torch._C.parse_ir(src)
        values = all_values(g)
        next_id = len(values)
        assert max(v.unique() for v in values) + 1 == next_id, f"{name}: parse_ir ids are not dense"
        in_text = str(g)
        write(os.path.join(OUT_DIR, name + ".in.txt"), f"# torch next value id: {next_id}\n" + in_text)
        for p in PASSES:
            g = torch._C.parse_ir(src)
            assert str(g) == in_text
            try:
                run_pass(ext, p, g)
            except RuntimeError as e:
                print(f"  {name}: {p} failed in torch: {str(e).splitlines()[0]}", file=sys.stderr)
                continue
            write(os.path.join(OUT_DIR, f"{name}.{p}.out.txt"), str(g))
            count += 1
    return count


def real_graphs(ext):
    import torch
    lines = []
    models = sorted(d for d in os.listdir(GOLDEN_DIR) if os.path.isfile(os.path.join(MODELS_DIR, d + ".pt")))
    for model in models:
        path = os.path.join(MODELS_DIR, model + ".pt")
        for fname, getter in (("graph.txt", lambda m: m.graph), ("inlined_graph.txt", lambda m: m.inlined_graph)):
            golden_path = os.path.join(GOLDEN_DIR, model, fname)
            if not os.path.isfile(golden_path) or os.path.getsize(golden_path) > MAX_REAL_GRAPH_BYTES:
                continue
            with open(golden_path) as f:
                golden = f.read()
            m = torch.jit.load(path)
            if str(getter(m)) != golden:
                print(f"  {model}/{fname}: torch prints it differently now; skipped", file=sys.stderr)
                continue
            for p in PASSES:
                if p == "constant-pooling" and ambiguous_tensor_constants(golden):
                    continue
                m = torch.jit.load(path)
                g = getter(m)
                try:
                    run_pass(ext, p, g)
                except RuntimeError as e:
                    print(f"  {model}/{fname}: {p} failed in torch: {str(e).splitlines()[0]}", file=sys.stderr)
                    continue
                out = str(g)
                stem = fname[:-len(".txt")]
                if out == golden:
                    lines.append(f"{model} {fname} {p} same")
                    continue
                lines.append(f"{model} {fname} {p} changed")
                new_ids = defined_ids(out) - defined_ids(golden)
                header = f"# torch next value id: {min(new_ids)}\n" if new_ids else ""
                write(os.path.join(OUT_DIR, "golden", f"{model}.{stem}.{p}.out.txt"), header + out)
    write(os.path.join(OUT_DIR, "golden_cases.txt"), "".join(l + "\n" for l in lines))
    return len(lines)


# ------------------------------------------------------------------------------------------------
# The compile pipeline, dumped by gdb between the clean-up passes
# ------------------------------------------------------------------------------------------------

# TorchScript functions whose compilation exercises the passes (one function each).
PIPELINE_FUNCTIONS = {
    "const_if": """
def f(x: int) -> int:
    if 1 < 2:
        y = x + 2 * 3
    else:
        y = x - 1
    if False:
        y = y * 7
    return y
""",
    "tuples": """
def f(x: Tensor, n: int) -> Tuple[Tensor, int]:
    t = (x, n, n + 1, 4)
    a, b, c, d = t
    s = t[1:3]
    u = (a * 2, s[0] + s[1])
    return u
""",
    "tuple_index_loop": """
def f(xs: List[Tensor], n: int) -> Tensor:
    acc = xs[0]
    for i in range(n):
        p = (acc, i)
        acc = p[0] + float(p[1])
    return acc
""",
    "raise_paths": """
def f(x: Tensor, k: int) -> Tensor:
    if k < 0:
        raise ValueError("negative k")
    assert k < 100, "too big"
    y = x
    for i in range(k):
        if i > 50:
            raise RuntimeError("unreachable")
        y = y + 1
    return y
""",
    "loop_carried": """
def f(x: Tensor, n: int) -> Tensor:
    a = 0
    b = 1
    c = x
    unused = 5
    while a < n:
        a = a + 1
        b = b * 2
        unused = unused + b
        c = c * 2
    return c + b
""",
    "outputs_order": """
def f(x: Tensor, c: bool, n: int) -> Tensor:
    p = x
    q = x
    r = 0
    if c:
        r = n
        q = x + 1
        p = x * 2
    else:
        p = x - 1
        r = 2
    for i in range(n):
        q = q + p
        r = r + i
        p = p * 0.5
    return q + r + p
""",
    "folding": """
def f(x: Tensor) -> Tuple[int, float, str, bool, Device]:
    a = 2 * 3 + 4
    b = 7 / 2
    c = "ab" + "cd"
    d = len(c) > 3
    e = torch.device("cpu")
    return a, b, c, d and not False, e
""",
    "lists_inplace": """
def f(x: Tensor) -> int:
    l = [1, 2]
    l.append(3)
    dead = [4]
    dead.append(5)
    y = x.clone()
    y.add_(1)
    z = torch.zeros_like(x)
    z.add_(x)
    return len(l)
""",
    "optional": """
def f(x: Optional[int], y: Optional[Tensor]) -> int:
    if x is None:
        return 0
    if y is not None:
        return x + y.dim()
    return x
""",
    "dict_ops": """
def f(x: Tensor) -> Dict[str, Tensor]:
    d: Dict[str, Tensor] = {}
    d["a"] = x
    d["b"] = x + 1
    unused: Dict[str, int] = {"k": 1}
    return d
""",
}

# Modules traced here and loaded back (tracing stores tensor literals as archive constants).
TRACED_MODULES = r"""
import sys
import warnings
import torch

class EqualTensorConstants(torch.nn.Module):
    def forward(self, x):
        a = x * torch.tensor([0.5, 1.5]) + torch.tensor(2.0)
        b = a * torch.tensor([0.5, 1.5]) - torch.tensor(2.0)
        return b

class EscapingTensorConstants(torch.nn.Module):
    def forward(self, x):
        return x + 1, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])

warnings.simplefilter("ignore")
for name, cls in (("traced_equal_tensors", EqualTensorConstants), ("traced_escaping_tensors", EscapingTensorConstants)):
    torch.jit.trace(cls(), (torch.ones(2),)).save("%s/%s.pt" % (sys.argv[1], name))
"""

GDB_SCRIPT = r"""
import gdb
P = "std::shared_ptr<torch::jit::Graph>"
FUNCS = [("LowerSimpleTuples(%s const&)" % P, "lst"),
         ("ConstantPropagationImmutableTypes(%s&)" % P, "cp"),
         ("ConstantPooling(%s const&)" % P, "pool"),
         ("CanonicalizeOutputs(%s&)" % P, "canon"),
         ("AnnotateWarns(%s const&)" % P, "warns")]
class BP(gdb.Breakpoint):
    def __init__(self, spec, label):
        super().__init__(spec, internal=True)
        self.label = label
    def stop(self):
        # Graph::next_unique_ follows three unordered_sets (56 bytes each in libstdc++) in 1.13's
        # struct Graph: the id the next new value gets, which the dump cannot show.
        next_id = int(gdb.parse_and_eval("*(unsigned long*)(*(char**)$rdi + 168)"))
        gdb.execute('call (int)fflush(0)', to_string=True)
        gdb.execute('call (int)puts("@@@@ stage %s %d")' % (self.label, next_id), to_string=True)
        gdb.execute("call (void)'torch::jit::Graph::dump() const'(*(void**)$rdi)", to_string=True)
        gdb.execute('call (int)fflush(0)', to_string=True)
        return False
gdb.execute("set breakpoint pending on")
gdb.execute("set pagination off")
def on_obj(ev):
    if 'libtorch_cpu' in ev.new_objfile.filename and not getattr(on_obj, 'done', False):
        on_obj.done = True
        for f, l in FUNCS:
            BP("'torch::jit::" + f + "'", l)
gdb.events.new_objfile.connect(on_obj)
"""

# The compiling process; markers share stdout with Graph::dump(), flushed in between.
DRIVER = r"""
import sys
import torch

def mark(s):
    sys.stdout.flush()
    sys.stdout.write("@@@@ %s\n" % s)
    sys.stdout.flush()

for line in open(sys.argv[1]).read().splitlines():
    kind, name, arg = line.split("\t")
    mark("case " + name)
    try:
        if kind == "cu":
            torch.jit.CompilationUnit(open(arg).read())
        else:
            torch.jit.load(arg)
    except Exception as e:
        mark("error " + " ".join(str(e).split()))
    mark("end " + name)
"""

STAGES = ["lst", "cp", "pool", "canon", "warns"]
STAGE_PASS = {"lst": "lower-simple-tuples", "cp": "constant-propagation-immutable", "pool": "constant-pooling",
              "canon": "canonicalize-outputs"}
MAX_PIPELINE_GRAPH_BYTES = 20000
MAX_PIPELINE_PAIRS_PER_ARCHIVE = 8


def split_dumps(stdout):
    """{case: [[dump per stage] per compile]} from the marked stdout."""
    cases, current, stage, buf = {}, None, None, []

    def flush():
        if current is not None and stage is not None:
            label, next_id = stage.split()
            cases[current].append((label, ("".join(buf).rstrip("\n") + "\n", int(next_id))))

    for line in stdout.splitlines(True):
        if line.startswith("@@@@ "):
            flush()
            stage, buf = None, []
            word, _, rest = line[5:].strip().partition(" ")
            if word == "case":
                current = rest
                cases[current] = []
            elif word == "end":
                current = None
            elif word == "stage":
                stage = rest
            elif word == "error":
                raise SystemExit(f"case {current} does not compile: {rest}")
        elif stage is not None:
            buf.append(line)
    flush()
    compiles = {}
    for name, dumps in cases.items():
        groups = []
        for i in range(0, len(dumps), len(STAGES)):
            group = dumps[i:i + len(STAGES)]
            if [s for s, _ in group] != STAGES:
                raise SystemExit(f"{name}: the clean-up passes did not run in the expected order")
            groups.append([text for _, text in group])
        compiles[name] = groups
    return compiles


def pipeline():
    env = dict(os.environ, PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory() as tmp:
        jobs = []
        for name, src in PIPELINE_FUNCTIONS.items():
            path = os.path.join(tmp, name + ".ts")
            with open(path, "w") as f:
                f.write(src)
            jobs.append(("cu", name, path))
        subprocess.run([sys.executable, "-c", TRACED_MODULES, tmp], check=True, env=env, cwd=tmp,
                       stderr=subprocess.DEVNULL)
        for name in ("traced_equal_tensors", "traced_escaping_tensors"):
            jobs.append(("load", name, os.path.join(tmp, name + ".pt")))
        for model in sorted(f[:-3] for f in os.listdir(MODELS_DIR) if f.endswith(".pt") and ".in" not in f):
            jobs.append(("load", model, os.path.join(MODELS_DIR, model + ".pt")))
        job_file = os.path.join(tmp, "jobs.tsv")
        with open(job_file, "w") as f:
            f.write("".join("\t".join(j) + "\n" for j in jobs))
        gdb_file = os.path.join(tmp, "dump.py")
        with open(gdb_file, "w") as f:
            f.write(GDB_SCRIPT)
        driver = os.path.join(tmp, "driver.py")
        with open(driver, "w") as f:
            f.write(DRIVER)
        p = subprocess.run(["gdb", "-q", "-batch", "-x", gdb_file, "-ex", "run", "--args", sys.executable, driver,
                            job_file], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp)
        compiles = split_dumps(p.stdout)

    seen = set()
    count = 0
    for kind, name, _ in jobs:
        if name not in compiles:
            raise SystemExit("no dumps for %s; the end of gdb's stderr:\n%s" % (name, "\n".join(p.stderr.splitlines()[-15:])))
        groups = compiles[name]
        if kind == "cu":
            picked = [("", groups[-1])]  # builtins it needs compile first; the function comes last
        else:
            # Every class of the archive compiles (and builtins on demand): keep the archive's own.
            mine = [g for g in groups if re.match(r"graph\(%[\w.]+ : __torch__\.", g[0][0])]
            picked = [(f"_{i}", g) for i, g in enumerate(mine)]
        per_stage = {}
        for suffix, group in picked:
            for i, stage in enumerate(STAGES[:-1]):
                (before, next_id), (after, _) = group[i], group[i + 1]
                # Unchanged graphs are kept for the functions written for this, not for every method;
                # archives with many similar classes (torchvision's) contribute a few of each.
                if len(before) > MAX_PIPELINE_GRAPH_BYTES or (before, after) in seen or (kind != "cu" and before == after):
                    continue
                if per_stage.get(stage, 0) >= MAX_PIPELINE_PAIRS_PER_ARCHIVE:
                    continue
                if stage == "pool" and ambiguous_tensor_constants(before):
                    continue
                per_stage[stage] = per_stage.get(stage, 0) + 1
                seen.add((before, after))
                case = f"pipe_{name}{suffix}_{stage}"
                write(os.path.join(OUT_DIR, case + ".in.txt"), f"# torch next value id: {next_id}\n" + before)
                write(os.path.join(OUT_DIR, f"{case}.{STAGE_PASS[stage]}.out.txt"), after)
                count += 1
    return count


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="print the synthetic case names")
    ap.add_argument("--only", default="", help="comma-separated synthetic case names (skips the real graphs)")
    args = ap.parse_args()
    if args.list:
        for name, _ in CASES:
            print(name)
        return
    only = set(filter(None, args.only.split(",")))
    ext = load_extension()
    if not only:
        for f in os.listdir(OUT_DIR) if os.path.isdir(OUT_DIR) else []:
            if f.endswith(".txt"):
                os.remove(os.path.join(OUT_DIR, f))
        gdir = os.path.join(OUT_DIR, "golden")
        for f in os.listdir(gdir) if os.path.isdir(gdir) else []:
            os.remove(os.path.join(gdir, f))
    n = synthetic(ext, only)
    print(f"synthetic: {n} (case, pass) outputs")
    if not only:
        n = real_graphs(ext)
        print(f"golden graphs: {n} (graph, pass) results")
        n = pipeline()
        print(f"compile pipeline: {n} (graph, pass) pairs")


if __name__ == "__main__":
    main()
