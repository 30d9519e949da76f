#!/usr/bin/env python3
"""PyTorch 2.x as the oracle for `fold-frozen-linear-bn` (torch 1.13 has no FoldFrozenLinearBatchnorm):
the same layout as make_freeze_goldens.py (testdata/freeze_passes/NAME.in.txt, .in.npz,
NAME.PASS.out.txt, .out.npz), for graphs where torch's fold is right -- the linear's input is
2-D. (On other ranks torch's pass folds anyway and changes the outputs; jitctl's does not fold,
which tests/unit/test_freeze_passes.cpp checks by running the graph.)

    /work/venv-torch2.4/bin/python testdata/gen/make_linear_bn_goldens.py
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_freeze_goldens import write_case  # noqa: E402

torch.manual_seed(5)
R = lambda *s: torch.randn(*s)  # noqa: E731
POS = lambda *s: torch.rand(*s) + 0.5  # noqa: E731

CASES = [
    ("linear_bn_flatten", """
graph(%x : Tensor, %const_0 : Tensor, %const_1 : Tensor, %const_2 : Tensor, %const_3 : Tensor, %const_4 : Tensor, %const_5 : Tensor):
  %one : int = prim::Constant[value=1]()
  %minus1 : int = prim::Constant[value=-1]()
  %f : bool = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %mom : float = prim::Constant[value=0.1]()
  %flat : Tensor = aten::flatten(%x, %one, %minus1)
  %y : Tensor = aten::linear(%flat, %const_0, %const_1)
  %z : Tensor = aten::batch_norm(%y, %const_2, %const_3, %const_4, %const_5, %f, %mom, %eps, %t)
  return (%z)
""", {"const_0": R(4, 6), "const_1": R(4), "const_2": POS(4), "const_3": R(4), "const_4": R(4), "const_5": POS(4)}),
    ("linear_bn_no_bias_no_affine", """
graph(%x : Tensor, %const_0 : Tensor, %const_1 : Tensor, %const_2 : Tensor):
  %one : int = prim::Constant[value=1]()
  %minus1 : int = prim::Constant[value=-1]()
  %f : bool = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %eps : float = prim::Constant[value=0.001]()
  %mom : float = prim::Constant[value=0.1]()
  %flat : Tensor = aten::flatten(%x, %one, %minus1)
  %r : Tensor = aten::relu(%flat)
  %y : Tensor = aten::linear(%r, %const_0, %none)
  %z : Tensor = aten::batch_norm(%y, %none, %none, %const_1, %const_2, %f, %mom, %eps, %t)
  return (%z)
""", {"const_0": R(3, 5), "const_1": R(3), "const_2": POS(3)}),
]


def main():
    table = {"fold-frozen-linear-bn": torch._C._jit_pass_fold_frozen_linear_bn}
    for name, text, consts in CASES:
        write_case(name, ["fold-frozen-linear-bn"], text, consts, table,
                   f"make_linear_bn_goldens.py with torch {torch.__version__}")

if __name__ == "__main__":
    main()
