#!/usr/bin/python3
"""PyTorch 1.13 as the oracle for `frozen-concat-linear` (FrozenConcatLinear, which torch.jit.freeze
runs) and `frozen-linear-transpose` (FrozenLinearTranspose, which torch.jit.optimize_for_inference
runs), through their Python bindings: the layout of make_freeze_goldens.py
(testdata/freeze_passes/NAME.in.txt, .in.npz, NAME.PASS.out.txt, .out.npz).

    /usr/bin/python3 testdata/gen/make_linear_pass_goldens.py

Debian's torch has no CUDA, and FrozenConcatLinear merges CUDA weights only: the concat cases here
show what it leaves alone on the CPU (everything); what it does to CUDA weights is checked in
tests/unit/test_freeze_passes.cpp against the pass's documented output form.
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_freeze_goldens import write_case  # noqa: E402

torch.manual_seed(11)
R = lambda *s: torch.randn(*s)  # noqa: E731

PASSES = {
    "frozen-concat-linear": torch._C._jit_pass_concat_frozen_linear,
    "frozen-linear-transpose": torch._C._jit_pass_transpose_frozen_linear,
}

# (name, passes, IR text, {const_K: tensor})
CASES = [
    # With and without a bias, in a nested block, and one whose weight is not a constant (kept).
    ("linear_transpose", ["frozen-linear-transpose"], """
graph(%x : Tensor, %c : bool, %w : Tensor, %const_0 : Tensor, %const_1 : Tensor, %const_2 : Tensor, %const_3 : Tensor):
  %none : NoneType = prim::Constant()
  %y1 : Tensor = aten::linear(%x, %const_0, %const_1)
  %y2 : Tensor = aten::linear(%x, %const_2, %const_3)
  %y3 : Tensor = aten::linear(%x, %const_2, %none)
  %y4 : Tensor = prim::If(%c)
    block0():
      %y5 : Tensor = aten::linear(%x, %const_2, %const_3)
      -> (%y5)
    block1():
      -> (%y3)
  %y6 : Tensor = aten::linear(%x, %w, %const_3)
  %r : (Tensor, Tensor, Tensor, Tensor, Tensor) = prim::TupleConstruct(%y1, %y2, %y3, %y4, %y6)
  return (%r)
""", {"const_0": R(4, 3), "const_1": R(4), "const_2": R(5, 3), "const_3": R(5)}),
    # A linear of a non-constant bias is kept; a chain of linears each becomes matmul + add.
    ("linear_transpose_chain", ["frozen-linear-transpose"], """
graph(%x : Tensor, %b : Tensor, %const_0 : Tensor, %const_1 : Tensor, %const_2 : Tensor):
  %y1 : Tensor = aten::linear(%x, %const_0, %const_1)
  %y2 : Tensor = aten::relu(%y1)
  %y3 : Tensor = aten::linear(%y2, %const_2, %b)
  %y4 : Tensor = aten::linear(%y2, %const_2, %const_1)
  return (%y3, %y4)
""", {"const_0": R(6, 2), "const_1": R(6), "const_2": R(6, 6)}),
    # Three linears of one input, constant CPU weights of matching shapes: PyTorch merges only
    # CUDA weights, so nothing changes.
    ("concat_linear_cpu", ["frozen-concat-linear"], """
graph(%x : Tensor, %const_0 : Tensor, %const_1 : Tensor, %const_2 : Tensor, %const_3 : Tensor, %const_4 : Tensor, %const_5 : Tensor):
  %y1 : Tensor = aten::linear(%x, %const_0, %const_1)
  %y2 : Tensor = aten::linear(%x, %const_2, %const_3)
  %y3 : Tensor = aten::linear(%x, %const_4, %const_5)
  %r : (Tensor, Tensor, Tensor) = prim::TupleConstruct(%y1, %y2, %y3)
  return (%r)
""", {"const_0": R(4, 3), "const_1": R(4), "const_2": R(2, 3), "const_3": R(2), "const_4": R(5, 3), "const_5": R(5)}),
]


def main():
    for name, ps, text, consts in CASES:
        write_case(name, ps, text, consts, PASSES, f"make_linear_pass_goldens.py with torch {torch.__version__}")

if __name__ == "__main__":
    main()
