"""Writes the cases of the activation variants (selu, celu, threshold, glu, prelu), avg_pool1d,
the plain upsample_nearest2d/upsample_bilinear2d overloads and rms_norm, as PyTorch computes them
through torch.ops.aten with every argument in that version's schema order. Same case format as
make_kernel_goldens.py (read by tests/unit/test_kernels_tensor.cpp).

    /usr/bin/python3 testdata/gen/make_nn_variant_goldens.py
        -> testdata/kernels/nn_variants.pt (PyTorch 1.13: every op it has)
    /work/venv-torch2.15/bin/python testdata/gen/make_nn_variant_goldens.py
        -> testdata/kernels/nn_variants_torch2.pt (the 2.x-only ops: rms_norm, _fused_rms_norm,
           _prelu_kernel, and the plain upsample overloads again under 2.x)
"""
import os

import torch

from aten_cases import CASES, SCHEMAS, TORCH2, case  # the script's folder is on sys.path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def inplace_on_view(op, *rest):
    """op applied to a non-contiguous view of a base tensor; the base must see the writes."""
    base = torch.randn(4, 6)
    case(op, base[1:3, ::2], *rest, base=base)


torch.manual_seed(0)
f = lambda *s: torch.randn(*s)
d = lambda *s: torch.randn(*s, dtype=torch.float64)
i = lambda *s: torch.randint(-5, 6, s)
nan = float("nan")
with_nan = torch.tensor([[-1.0, nan, 0.5], [0.0, -0.0, 3.0]])


def upsample_cases():
    x = f(2, 3, 5, 4)
    xt = f(2, 3, 4, 5).transpose(2, 3)  # non-contiguous
    for align in [False, True]:
        for size, sh, sw in [([7, 9], None, None), ([10, 8], 2.0, 2.0), ([3, 2], None, None), ([8, 6], 1.7, 1.6),
                             ([1, 1], None, None), ([5, 4], None, None)]:
            case("aten::upsample_bilinear2d", x, size, align, sh, sw)
        case("aten::upsample_bilinear2d", xt, [9, 11], align, None, None)
        case("aten::upsample_bilinear2d", d(1, 2, 3, 3), [7, 5], align, 2.5, None)
    case("aten::upsample_bilinear2d", f(2, 3, 4), [5, 5], False, None, None)         # error: 3-D
    case("aten::upsample_bilinear2d", x, [5], False, None, None)                     # error: one size
    case("aten::upsample_bilinear2d", x, [0, 3], False, None, None)                  # error: empty
    for size, sh, sw in [([7, 9], None, None), ([10, 8], None, None), ([10, 8], 2.0, 2.0), ([8, 6], 1.7, 1.6),
                         ([3, 2], None, None), ([5, 12], None, 3.0)]:
        case("aten::upsample_nearest2d", x, size, sh, sw)
    case("aten::upsample_nearest2d", xt, [9, 11], None, None)
    case("aten::upsample_nearest2d", d(1, 2, 3, 3), [7, 5], 2.5, None)
    case("aten::upsample_nearest2d", f(2, 3, 4), [5, 5], None, None)                # error


if not TORCH2:
    # ---- selu, celu (+ in place) --------------------------------------------------------------
    for op in ["aten::selu", "aten::selu_"]:
        case(op, f(3, 5))
        case(op, d(2, 3, 4))
        case(op, with_nan.clone())
        case(op, i(3))                                           # error: integers
    case("aten::selu", f(5, 4).t())                              # non-contiguous
    inplace_on_view("aten::selu_")
    for op in ["aten::celu", "aten::celu_"]:
        case(op, f(3, 5), 1.0)
        case(op, d(2, 7), 0.5)
        case(op, f(4), 2)
        case(op, with_nan.clone(), 1.5)
        case(op, f(3), 0.0)                                      # error: alpha 0
    case("aten::celu", f(4, 3).t(), 0.3)
    inplace_on_view("aten::celu_", 0.7)
    # ---- threshold (+ in place) ---------------------------------------------------------------
    for op in ["aten::threshold", "aten::threshold_"]:
        case(op, f(4, 5), 0.1, 20.0)
        case(op, d(3, 3), -0.5, 0)
        case(op, i(3, 4), 2, 10)
        case(op, i(6), 2.5, -1)
        case(op, with_nan.clone(), 0.0, 7.0)
        case(op, torch.tensor([True, False]), 0, 1)              # error: bool
    case("aten::threshold", f(6, 5)[::2, 1:], 0.0, -3.0)
    case("aten::threshold", torch.tensor(0.5), 1.0, 2.0)         # 0-dim
    inplace_on_view("aten::threshold_", 0.0, 0.0)
    # ---- glu ----------------------------------------------------------------------------------
    case("aten::glu", f(3, 8), -1)
    case("aten::glu", f(4, 3, 5), 0)
    case("aten::glu", d(2, 6, 3), 1)
    case("aten::glu", f(6, 4).t(), 1)                            # non-contiguous
    case("aten::glu", f(2, 5), 1)                                # error: odd
    case("aten::glu", torch.tensor(1.0), 0)                      # error: scalar
    case("aten::glu", i(2, 4), 1)                                # error: integers
    # ---- prelu --------------------------------------------------------------------------------
    case("aten::prelu", f(2, 4, 3), f(4))
    case("aten::prelu", f(2, 4, 3, 5), f(1))
    case("aten::prelu", d(3, 2, 5), d(2))
    case("aten::prelu", f(7), f(1))
    case("aten::prelu", torch.tensor(-2.0), f(1))
    case("aten::prelu", f(3, 5, 4).transpose(0, 2), f(5))        # non-contiguous
    case("aten::prelu", f(2, 6, 3), f(12)[::2])                  # strided weight
    case("aten::prelu", f(2, 4, 3), f(3))                        # error: channels
    case("aten::prelu", f(4), f(4))                              # error: channels of a 1-d input
    case("aten::prelu", i(2, 3), torch.ones(1, dtype=torch.long))  # error: integers
    # ---- avg_pool1d ---------------------------------------------------------------------------
    case("aten::avg_pool1d", f(2, 3, 9), [3], [], [0], False, True)
    case("aten::avg_pool1d", f(2, 3, 10), [3], [2], [1], False, True)
    case("aten::avg_pool1d", f(2, 3, 10), [3], [2], [1], False, False)
    case("aten::avg_pool1d", f(3, 10), [4], [3], [2], True, True)
    case("aten::avg_pool1d", f(3, 10), [4], [3], [2], True, False)
    case("aten::avg_pool1d", d(2, 2, 7), [2], [1], [1], False, True)
    case("aten::avg_pool1d", f(2, 9, 3).transpose(1, 2), [3], [2], [0], True, True)  # non-contiguous
    case("aten::avg_pool1d", f(2, 3, 7), [2, 2], [], [0], False, True)   # error: kernel_size
    case("aten::avg_pool1d", f(2, 3, 7), [3], [2], [2], False, True)     # error: pad
    case("aten::avg_pool1d", f(7), [3], [], [0], False, True)            # error: 1-D
    # ---- grid_sampler -------------------------------------------------------------------------
    gx, grid = f(2, 3, 5, 4), torch.rand(2, 6, 7, 2) * 2.6 - 1.3
    for op in ["aten::grid_sampler", "aten::grid_sampler_2d"]:
        for mode in [0, 1]:
            for pad in [0, 1, 2]:
                for align in [False, True]:
                    case(op, gx, grid, mode, pad, align)
    case("aten::grid_sampler", d(1, 2, 4, 6), torch.rand(1, 3, 5, 2, dtype=torch.float64) * 2.2 - 1.1, 0, 0, False)
    case("aten::grid_sampler", f(2, 4, 3, 5).transpose(2, 3), (torch.rand(2, 2, 3, 4) * 2 - 1).permute(0, 2, 3, 1), 0, 1, True)
    case("aten::grid_sampler", gx, grid.double(), 0, 0, False)                    # error: dtypes
    case("aten::grid_sampler", gx, grid[:1], 0, 0, False)                        # error: batch
    case("aten::grid_sampler", gx, torch.rand(2, 6, 7, 3), 0, 0, False)          # error: last dim
    upsample_cases()
    OUT = "nn_variants.pt"
else:
    # ---- rms_norm, _fused_rms_norm ------------------------------------------------------------
    x = f(2, 3, 8)
    case("aten::rms_norm", x, [8], None, None)
    case("aten::rms_norm", x, [8], f(8), 1e-5)
    case("aten::rms_norm", x, [3, 8], f(3, 8), 1e-6)
    case("aten::rms_norm", d(4, 5), [5], d(5), None)
    case("aten::rms_norm", f(5, 4, 2).transpose(0, 2), [5], f(5), None)  # non-contiguous
    case("aten::rms_norm", f(3, 7) * 1e-3, [7], None, 0.1)
    case("aten::rms_norm", f(6), [6], None, None)
    case("aten::rms_norm", x, [3], None, None)                          # error: shape
    case("aten::rms_norm", x, [8], f(3), None)                          # error: weight
    case("aten::rms_norm", x, [], None, None)                           # error: empty shape
    case("aten::_fused_rms_norm", x, [3, 8], f(3, 8), 1e-5)
    case("aten::_fused_rms_norm", d(2, 5), [5], None, None)
    # ---- _prelu_kernel ------------------------------------------------------------------------
    case("aten::_prelu_kernel", f(2, 4, 3), f(4, 1))
    case("aten::_prelu_kernel", d(3, 5), d(1))
    case("aten::_prelu_kernel", f(5, 3).t(), f(5))
    upsample_cases()
    OUT = "nn_variants_torch2.pt"

torch.save(CASES, os.path.join(ROOT, "kernels", OUT))
print(OUT, len(CASES), "cases")
