"""Writes testdata/kernels/tensor_ops_torch2.pt: cases for the kernels of ops PyTorch 2.x models call
(scaled_dot_product_attention, the Tensor overloads of linspace/logspace) and the statistics and
indexing kernels (var/std and their _mean forms in every overload, median, mode, quantile, scatter,
index_put, masked_select, take, nonzero, ...), computed by a PyTorch 2.x through torch.ops.aten with
every argument in that version's schema order. Same case format as make_kernel_goldens.py (read by
tests/unit/test_kernels_tensor.cpp).

Needs PyTorch 2.x (a venv, see make_corpus_versions.py):
    /work/venv-torch2.15/bin/python testdata/gen/make_kernel_goldens_torch2.py
"""
import os

import torch

from aten_cases import CASES, SCHEMAS, case  # the script's folder is on sys.path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
F32, F64, I64, B = 6, 7, 4, 11

torch.manual_seed(0)
f = lambda *s: torch.randn(*s)
d = lambda *s: torch.randn(*s, dtype=torch.float64)
GQA = "enable_gqa" in [a.name for a in SCHEMAS["aten::scaled_dot_product_attention"].arguments]


def sdpa(q, k, v, mask=None, p=0.0, causal=False, scale=None, gqa=False):
    args = [q, k, v, mask, p, causal, scale] + ([gqa] if GQA else [])
    case("aten::scaled_dot_product_attention", *args)


# ---- scaled_dot_product_attention ----------------------------------------------------------------
sdpa(f(2, 3, 4, 8), f(2, 3, 5, 8), f(2, 3, 5, 6))
sdpa(f(2, 3, 4, 8), f(2, 3, 4, 8), f(2, 3, 4, 8), causal=True)
sdpa(f(1, 5, 8), f(1, 5, 8), f(1, 5, 8), causal=True, scale=0.25)
sdpa(f(3, 4, 8), f(3, 6, 8), f(3, 6, 3))
sdpa(f(2, 2, 3, 4), f(2, 2, 5, 4), f(2, 2, 5, 4), mask=torch.rand(3, 5) > 0.3)
sdpa(f(2, 2, 3, 4), f(2, 2, 5, 4), f(2, 2, 5, 4), mask=(torch.rand(2, 1, 3, 5) > 0.3) | torch.eye(3, 5, dtype=torch.bool))
sdpa(f(2, 2, 3, 4), f(2, 2, 5, 4), f(2, 2, 5, 4), mask=f(2, 2, 3, 5))
sdpa(f(2, 2, 3, 4), f(2, 2, 5, 4), f(2, 2, 5, 4), mask=f(5), scale=1.5)
sdpa(d(2, 3, 4), d(2, 6, 4), d(2, 6, 2), mask=torch.randn(3, 6, dtype=torch.float64))
sdpa(f(4, 2, 8).transpose(0, 1), f(4, 2, 8).transpose(0, 1), f(2, 8, 4).transpose(1, 2))   # non-contiguous
sdpa(f(2, 3, 4), f(2, 3, 4), f(2, 3, 4), mask=torch.ones(3, 3, dtype=torch.bool), causal=True)  # error
sdpa(f(2, 3, 4), d(2, 3, 4), f(2, 3, 4))  # error: dtypes
if GQA:
    sdpa(f(1, 4, 3, 8), f(1, 2, 5, 8), f(1, 2, 5, 8), gqa=True)

# ---- var/std and the _mean forms -------------------------------------------------------------------
x = f(3, 4, 5)
for op in ("std", "var", "std_mean", "var_mean"):
    case(f"aten::{op}", x, True)
    case(f"aten::{op}", x[:, 1], False)
    case(f"aten::{op}.dim", x, [1], True, False)
    case(f"aten::{op}.dim", x, [0, 2], False, True)
    case(f"aten::{op}.dim", x, None, True, False)
    case(f"aten::{op}.dim", x.transpose(0, 2), [-1], True, True)
    case(f"aten::{op}.correction", x, [1], 0, False)
    case(f"aten::{op}.correction", x, None, None, True)
    case(f"aten::{op}.correction", x, [2], 2, False)
    case(f"aten::{op}.correction", x, [0], 0.5, True)
    case(f"aten::{op}.correction", d(4, 2), [0, 1], 1, False)
case("aten::std", torch.tensor([2.0]), True)                 # one element, unbiased: nan
case("aten::var.dim", torch.arange(6).view(2, 3), [1], True, False)  # error: integer input
case("aten::std.dim", x, [3], True, False)                   # error: dim out of range

# ---- median, nanmedian, mode, quantile --------------------------------------------------------------
y = f(4, 7)
yn = y.clone()
yn[1, 2] = float("nan")
case("aten::median", y)
case("aten::median", torch.arange(10).float().flip(0))
case("aten::median.dim", y, 1, False)
case("aten::median.dim", y, 0, True)
case("aten::median.dim", yn, 1, False)
case("aten::nanmedian", yn)
case("aten::nanmedian.dim", yn, 1, True)
case("aten::median.dim", torch.tensor([[5, 3, 1, 4]]), 1, False)
m = torch.tensor([[1, 2, 2, 3, 3, 0], [4, 4, 1, 1, 5, 4]])
case("aten::mode", m, -1, False)
case("aten::mode", m.float().t(), 0, True)
for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
    case("aten::quantile", y, torch.tensor([0.0, 0.25, 0.5, 0.9, 1.0]), 1, False, interp)
case("aten::quantile.scalar", y, 0.3, None, False, "linear")
case("aten::quantile.scalar", y, 0.3, None, True, "linear")
case("aten::quantile.scalar", y, 0.75, 0, True, "nearest")
case("aten::quantile", d(5, 3), torch.tensor(0.5, dtype=torch.float64), 0, False, "linear")
case("aten::quantile.scalar", yn, 0.5, 1, False, "linear")
case("aten::nanquantile.scalar", yn, 0.5, 1, False, "linear")
case("aten::nanquantile", yn, torch.tensor([0.1, 0.6]), None, False, "midpoint")
case("aten::quantile.scalar", torch.arange(4), 0.5, None, False, "linear")   # error: integer input
case("aten::quantile.scalar", y, 1.5, None, False, "linear")                  # error: q out of range
case("aten::quantile.scalar", y, 0.5, None, False, "cubic")                   # error: interpolation

# ---- indexing --------------------------------------------------------------------------------------
t = f(3, 5)
idx = torch.tensor([[0, 4, 2], [1, 1, 3]])
case("aten::scatter.src", t, 1, idx, f(2, 3))
case("aten::scatter.value", t, 0, torch.tensor([[2, 0, 1, 2, 0]]), 7.5)
case("aten::scatter_.src", t.clone(), 1, idx, f(2, 4))
case("aten::scatter_.value", torch.zeros(3, 4, dtype=torch.int64), 1, torch.tensor([[3], [0], [1]]), 5)
case("aten::scatter.reduce", t, 1, idx, f(2, 3), "add")
case("aten::scatter.reduce", t, 1, idx, f(2, 3), "multiply")
case("aten::scatter.value_reduce", t, 1, idx, 2.0, "multiply")
case("aten::scatter_add", t, 1, idx, f(2, 3))
case("aten::scatter_add_", torch.zeros(5), 0, torch.tensor([0, 1, 1, 4, 1]), torch.ones(5))
for red in ("sum", "prod", "mean", "amax", "amin"):
    for inc in (True, False):
        case("aten::scatter_reduce.two", t, 1, idx, f(2, 3), red, inc)
case("aten::scatter_reduce.two", torch.tensor([1, 2, 3, 4]), 0, torch.tensor([0, 0, 1, 1, 1]), torch.tensor([5, 6, 7, 8, 9]), "mean", True)
case("aten::scatter.src", t, 1, idx.int(), f(2, 3))             # int32 indices are accepted
case("aten::scatter.src", t, 1, torch.tensor([[0, 5]]), f(1, 2))  # error: out of bounds
case("aten::scatter.src", t, 1, idx, d(2, 3))                    # error: src dtype

z = f(4, 5)
case("aten::index_put_", z.clone(), [torch.tensor([0, 2])], torch.tensor(1.5), False)
case("aten::index_put_", z.clone(), [None, torch.tensor([1, 3, 3])], f(4, 3), True)
case("aten::index_put_", z.clone(), [torch.tensor([0, 3]), torch.tensor([4, 1])], f(2), False)
case("aten::index_put_", z.clone(), [z > 0.5], torch.tensor(0.0), False)
case("aten::index_put", z, [torch.tensor([[0], [2]]), torch.tensor([1, 2])], f(2, 2), False)
case("aten::index_put", torch.zeros(3, 4, 5), [torch.tensor([0, 2]), None, torch.tensor([1, 4])], f(2, 4), False)
case("aten::index_put", torch.zeros(3, 4, 5), [None, torch.tensor([0, 2]), torch.tensor([1, 4])], f(3, 2), True)
case("aten::index_put_", z.clone(), [torch.tensor([0, 1])], f(3, 5), False)     # error: shape
case("aten::index_put_", z.clone(), [torch.tensor([0, 1])], d(2, 5), False)     # error: dtype
case("aten::index_fill.int_Scalar", z, 1, torch.tensor([0, 3]), -1.0)
case("aten::index_fill_.int_Tensor", z.clone(), 0, torch.tensor([1]), torch.tensor(2.0))
case("aten::index_add", z, 0, torch.tensor([0, 0, 3]), f(3, 5), 2)
case("aten::index_add_", torch.zeros(3, 2, dtype=torch.int64), 1, torch.tensor([1, 1, 0]), torch.ones(3, 3, dtype=torch.int64), 1)
case("aten::index_copy", z, 1, torch.tensor([4, 0]), f(4, 2))
case("aten::index_copy", z, 1, torch.tensor([4, 0]), f(4, 3))   # error: count
case("aten::masked_select", z, z > 0)
case("aten::masked_select", z, torch.tensor([True, False, True, False, True]))
case("aten::masked_scatter", z, z > 0, torch.arange(20.0))
case("aten::take", z, torch.tensor([[0, 19], [-1, 7]]))
case("aten::take", z, torch.tensor([20]))     # error
case("aten::put", z, torch.tensor([1, 3, 1]), torch.tensor([1.0, 2.0, 3.0]), True)
case("aten::put_", z.clone(), torch.tensor([0, -1]), torch.tensor([9.0, 8.0]), False)
case("aten::nonzero", torch.tensor([[0, 1, 0], [2, 0, 3]]))
case("aten::nonzero", torch.tensor(0.5))
case("aten::argwhere", z > 0.3)

# ---- factories: logspace, the Tensor overloads of linspace/logspace ----------------------------------
case("aten::logspace", 0, 2, 5, 10.0, None, None, None, None)
case("aten::logspace", -1.0, 1.0, 4, 2.0, F64, None, None, None)
case("aten::logspace", 0, 3, 4, 2.0, I64, None, None, None)
case("aten::logspace.Tensor_Tensor", torch.tensor(0.0), torch.tensor(1.0), 3, 10.0, None, None, None, None)
case("aten::logspace.Scalar_Tensor", 1, torch.tensor(2.0), 3, 3.0, None, None, None, None)
case("aten::linspace.Tensor_Scalar", torch.tensor(-1.0), 1, 5, None, None, None, None)
case("aten::linspace.Tensor_Tensor", torch.tensor([0.0]), torch.tensor(1.0), 5, None, None, None, None)  # error: not 0-dim

# ---- reductions: logsumexp, nansum/nanmean, count_nonzero, any/all over dims, aminmax, cumulative, kth, sorts
r = f(3, 4, 5)
rn = r.clone()
rn[0, 1, 2] = float("nan")
case("aten::logsumexp", r, [1], False)
case("aten::logsumexp", r, [0, 2], True)
case("aten::logsumexp", torch.tensor([[-float("inf"), -float("inf")], [1.0, float("inf")]]), [1], False)
case("aten::nansum", rn, None, False, None)
case("aten::nansum", rn, [2], True, None)
case("aten::nansum", torch.arange(6).view(2, 3), [1], False, None)
case("aten::nanmean", rn, [1], False, None)
case("aten::nanmean", torch.arange(6).view(2, 3), None, False, None)   # error: integer input
case("aten::count_nonzero", torch.tensor([[0, 1, 2], [0, 0, 3]]), None)
case("aten::count_nonzero", torch.tensor([[0, 1, 2], [0, 0, 3]]), 1)
case("aten::count_nonzero.dim_IntList", r > 0, [0, 2])
case("aten::all.dims", r > -1, [1, 2], False)
case("aten::any.dims", r > 1.5, None, True)
case("aten::aminmax", r, None, False)
case("aten::aminmax", r, 1, True)
case("aten::cumprod", f(3, 4), 1, None)
case("aten::cumprod", torch.arange(1, 7).view(2, 3), 0, None)
case("aten::cumprod", f(4), 0, F64)
case("aten::cummax", torch.tensor([1.0, 3.0, 2.0, 3.0, float("nan"), 5.0]), 0)
case("aten::cummin", torch.tensor([[4, 2, 2, 5], [1, 3, 0, 0]]), 1)
case("aten::logcumsumexp", f(3, 4), 1)
case("aten::kthvalue", f(3, 6), 2, 1, False)
case("aten::kthvalue", f(5, 2), 5, 0, True)
case("aten::kthvalue", f(5, 2), 6, 0, True)   # error: k out of range
case("aten::sort.stable", torch.tensor([3, 1, 2, 1, 3]), True, 0, False)
case("aten::sort.stable", torch.tensor([[3.0, float("nan"), 1.0], [2.0, 2.0, -1.0]]), None, -1, True)
case("aten::argsort.stable", torch.tensor([2, 1, 2, 0, 1]), True, -1, False)
case("aten::msort", f(4, 3))

# ---- where(cond), take_along_dim, *_scatter, searchsorted/bucketize ---------------------------------------
case("aten::where", torch.tensor([[0, 1, 0], [2, 0, 3]]))
case("aten::take_along_dim", f(3, 4), torch.tensor([[0], [3], [1]]), 1)
case("aten::take_along_dim", f(3, 4), torch.argsort(f(3, 4), dim=0), 0)
case("aten::take_along_dim", f(3, 4), torch.tensor([0, 11, 5]), None)
case("aten::select_scatter", torch.zeros(3, 4), torch.ones(4), 0, 1)
case("aten::slice_scatter", torch.zeros(4, 6), torch.ones(4, 2), 1, 1, 5, 2)
case("aten::slice_scatter", torch.zeros(4, 6), torch.ones(2, 6), 0, None, 2, 1)
case("aten::diagonal_scatter", torch.zeros(3, 3), torch.arange(3.0), 0, 0, 1)
case("aten::diagonal_scatter", torch.zeros(3, 4), torch.ones(3), 1, 0, 1)
case("aten::select_scatter", torch.zeros(3, 4), torch.ones(3), 0, 1)   # error: size
seq = torch.tensor([1.0, 3.0, 5.0, 7.0, 9.0])
case("aten::searchsorted.Tensor", seq, torch.tensor([[3.0, 6.0, 9.0], [0.0, 10.0, 5.0]]), False, False, None, None)
case("aten::searchsorted.Tensor", seq, torch.tensor([3.0, 6.0, 9.0]), True, True, None, None)
case("aten::searchsorted.Tensor", torch.tensor([[1, 3, 5], [2, 4, 6]]), torch.tensor([[3, 6], [1, 7]]), False, False, "right", None)
case("aten::searchsorted.Scalar", seq, 4, False, False, None, None)
case("aten::searchsorted.Tensor", torch.tensor([5.0, 1.0, 3.0]), torch.tensor([2.0, 4.0]), False, False, None, torch.tensor([1, 2, 0]))
case("aten::bucketize.Tensor", torch.tensor([[0.5, 3.0], [9.0, 12.0]]), seq, False, True)
case("aten::bucketize.Scalar", 3, seq, True, False)

# ---- histc, bincount, cov, corrcoef, cdist, dist ---------------------------------------------------------
case("aten::histc", f(50), 10, 0, 0)
case("aten::histc", f(50).double(), 4, -1, 1)
case("aten::histc", torch.tensor([1.0, 1.0, 1.0]), 5, 0, 0)
case("aten::bincount", torch.tensor([0, 2, 2, 5]), None, 0)
case("aten::bincount", torch.tensor([0, 2, 2, 5]), torch.tensor([0.5, 1.0, 2.0, 3.0]), 8)
case("aten::bincount", torch.tensor([1, 1]), torch.tensor([1.0, 2.0], dtype=torch.float64), 0)
case("aten::bincount", torch.tensor([-1, 2]), None, 0)   # error: negative
case("aten::cov", f(3, 6), 1, None, None)
case("aten::cov", f(6), 0, None, None)
case("aten::cov", torch.tensor([[1, 2, 4], [0, 5, 1]]), 1, None, None)
case("aten::corrcoef", f(4, 7))
case("aten::cdist", f(4, 3), f(5, 3), 2.0, None)
case("aten::cdist", f(2, 4, 3), f(5, 3), 1.0, None)
case("aten::cdist", f(4, 3), f(5, 3), 0.0, None)
case("aten::cdist", f(4, 3), f(5, 3), float("inf"), None)
case("aten::cdist", f(4, 3), f(5, 2), 2.0, None)   # error: columns
case("aten::dist", f(3, 4), f(4), 2)
case("aten::dist", f(3, 4), f(4), 1.5)
case("aten::pdist", f(5, 3), 2.0)
case("aten::pdist", f(4, 2), 1.0)
case("aten::nonzero_static", torch.tensor([[0, 1], [2, 0]]), 5, -1)
case("aten::nonzero_static", torch.tensor([1, 1, 1]), 2, 0)
case("aten::mvlgamma", torch.tensor([2.5, 3.0, 10.0]), 3)
case("aten::norm.ScalarOpt_dtype", f(3, 4), 2, F64)
case("aten::norm.ScalarOpt_dim_dtype", f(3, 4), 1, [1], True, F64)
case("aten::as_tensor.float", 1.5, None, None)
case("aten::as_tensor.int", 3, F64, None)
case("aten::as_tensor", f(3), F64, None)
case("aten::as_tensor", f(3), None, None)
case("aten::range", 0, 4, None, None, None, None)
case("aten::range.step", 1, 2, 0.25, F64, None, None, None)
case("aten::tril_indices", 3, 4, 0, I64, None, None, None)
case("aten::tril_indices", -1, 4, 0, I64, None, None, None)   # error: negative row
case("aten::quantile.scalar", torch.tensor([]), 0.5, None, False, "linear")   # error: empty
case("aten::searchsorted.Tensor", torch.tensor(1.0), torch.tensor([1.0]), False, False, None, None)   # error: 0-dim boundaries
case("aten::triu_indices", 4, 3, -1, I64, None, None, None)

# ---- einsum and small algebra; repeat_interleave, tile, meshgrid, one_hot, tensor_split ---------------
case("aten::einsum", "ij,jk->ik", [f(2, 3), f(3, 4)], None)
case("aten::einsum", "bhqd,bhkd->bhqk", [f(2, 2, 3, 4), f(2, 2, 5, 4)], None)
case("aten::einsum", "ii", [f(3, 3)], None)
case("aten::einsum", "ij->ji", [f(2, 3)], None)
case("aten::einsum", "i,i", [f(4), f(4)], None)
case("aten::einsum", "bi,bj", [f(2, 3), torch.arange(8).view(2, 4)], None)
case("aten::einsum", "ij,jk->ik", [f(2, 3), f(4, 4)], None)   # error: sizes
case("aten::einsum", "...ij,...jk->...ik", [f(2, 3, 4), f(4, 5)], None)
case("aten::einsum", "...d,...d->...", [f(2, 3, 4), f(3, 4)], None)
case("aten::einsum", "b...,b...", [f(2, 3), f(2, 3)], None)
case("aten::einsum", "i...->...", [f(3, 2, 2)], None)
case("aten::outer", f(3), f(4))
case("aten::ger", torch.arange(3), torch.arange(2))
case("aten::cross", f(4, 3), f(4, 3), None)
case("aten::linalg_cross", f(2, 3), f(1, 3), -1)
case("aten::trace", f(3, 4))
case("aten::trace", torch.arange(9).view(3, 3))
case("aten::diag", f(3), 1)
case("aten::diag", f(3), -1)
case("aten::diag", f(3, 4), 0)
case("aten::diag_embed", f(2, 3), 0, -2, -1)
case("aten::diag_embed", f(3), 1, 0, 1)
case("aten::linalg_vector_norm", f(3, 4), 2, None, False, None)
case("aten::linalg_vector_norm", f(3, 4), 1, [1], True, None)
case("aten::linalg_vector_norm", f(3, 4), float("inf"), [0], False, F64)
case("aten::linalg_vector_norm", f(2, 3, 4), 3.5, [0, 2], False, None)
case("aten::cosine_similarity", f(3, 5), f(3, 5), 1, 1e-8)
case("aten::cosine_similarity", f(4, 2), f(1, 2), -1, 1e-8)
case("aten::pairwise_distance", f(3, 5), f(3, 5), 2.0, 1e-6, False)
case("aten::pairwise_distance", f(3, 5), f(5), 1.0, 1e-6, True)
case("aten::repeat_interleave.self_int", f(2, 3), 2, 1, None)
case("aten::repeat_interleave.self_int", f(2, 3), 2, None, None)
case("aten::repeat_interleave.self_Tensor", f(3, 2), torch.tensor([1, 0, 2]), 0, None)
case("aten::repeat_interleave.Tensor", torch.tensor([2, 0, 1]), None)
case("aten::tile", f(2, 3), [2])
case("aten::tile", f(2, 3), [2, 1, 2])
case("aten::meshgrid", [torch.arange(3), torch.arange(2)])
case("aten::meshgrid.indexing", [torch.arange(3), torch.arange(2), torch.arange(4)], "xy")
case("aten::one_hot", torch.tensor([0, 3, 1]), -1)
case("aten::one_hot", torch.tensor([[0, 1], [2, 0]]), 4)
case("aten::one_hot", torch.tensor([0, 5]), 3)   # error
case("aten::tensor_split.sections", torch.arange(7), 3, 0)
case("aten::tensor_split.indices", f(3, 6), [1, 4], 1)
case("aten::hsplit.int", f(3, 6), 3)
case("aten::vsplit.int", f(4, 2), 2)
case("aten::hsplit.int", f(3, 6), 4)   # error: not divisible

# ---- triangles, eye ----------------------------------------------------------------------------------
case("aten::triu", f(3, 4), 0)
case("aten::triu", f(2, 3, 4), 1)
case("aten::tril", f(4, 3).t(), -1)
case("aten::tril_", torch.arange(12).view(3, 4), 0)
case("aten::triu", f(3), 0)      # error: 1-D
case("aten::eye", 3, None, None, None, None)
case("aten::eye.m", 2, 4, I64, None, None, None)

# ---- math functions ------------------------------------------------------------------------------------
u = torch.tensor([-0.9, -0.5, 0.0, 0.3, 0.99])
g = torch.tensor([0.5, 1.0, 2.5, 10.0])
for op, arg in [("acos", u), ("arccos", u), ("asin", u), ("arcsin", u), ("atan", f(5)), ("arctan", f(5)), ("sinh", f(5)),
                ("cosh", f(5)), ("asinh", f(5)), ("acosh", g + 1), ("atanh", u), ("exp2", f(5)), ("erfc", f(5)),
                ("lgamma", g), ("deg2rad", f(5)), ("rad2deg", f(5)), ("sinc", torch.tensor([0.0, 0.5, -1.5, 2.0])),
                ("acos", torch.tensor([0, 1])), ("sinh", d(3))]:
    case(f"aten::{op}", arg)
case("aten::logit", torch.tensor([0.1, 0.5, 0.9]), None)
case("aten::logit", torch.tensor([0.0, 0.5, 1.0]), 1e-6)
special = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 1.5, -2.0])
for op in ("isnan", "isinf", "isposinf", "isneginf", "isfinite", "signbit"):
    case(f"aten::{op}", special)
    case(f"aten::{op}", torch.tensor([-3, 0, 4]))
case("aten::nan_to_num", special, None, None, None)
case("aten::nan_to_num", special.double(), 1.0, 100.0, -100.0)
case("aten::atan2", f(3, 1), f(4))
case("aten::arctan2", torch.tensor([1, -2]), torch.tensor([3, 3]))
case("aten::hypot", f(2, 3), f(3))
case("aten::fmod.Tensor", f(4) * 5, torch.tensor([1.5, -2.0, 3.0, 0.7]))
case("aten::fmod.Scalar", torch.tensor([-7, 7, 5]), 3)
case("aten::copysign.Tensor", f(4), f(4))
case("aten::copysign.Scalar", torch.tensor([1, -2, 3]), -1.0)
case("aten::logaddexp", f(3), f(3))
case("aten::logaddexp2", f(3), torch.tensor([-float("inf"), 0.0, 100.0]))
case("aten::fmax", torch.tensor([1.0, float("nan"), 3.0]), torch.tensor([float("nan"), 2.0, 1.0]))
case("aten::fmin", torch.tensor([1, 5]), torch.tensor([3, 2]))
case("aten::xlogy.Tensor", torch.tensor([0.0, 2.0, 3.0]), torch.tensor([0.0, 3.0, float("nan")]))
case("aten::xlogy.Scalar_Self", 2, f(3).abs())
case("aten::float_power.Tensor_Scalar", f(3).abs(), 2)
case("aten::float_power.Tensor_Tensor", torch.tensor([2, 3]), torch.tensor([0.5, 2.0]))
case("aten::heaviside", torch.tensor([-1.0, 0.0, 2.0]), torch.tensor([0.5]))
case("aten::lerp.Scalar", f(4), f(4), 0.3)
case("aten::lerp.Tensor", f(2, 4), f(4), torch.rand(2, 1))
case("aten::addcmul", f(3), f(3), f(2, 3), 0.5)
case("aten::addcdiv", f(3), f(3), f(3).abs() + 1, 2)
case("aten::addcdiv", torch.tensor([1]), torch.tensor([1]), torch.tensor([2]), 1)   # error: integer division
case("aten::divide.Tensor", f(3), f(3))
case("aten::divide.Tensor_mode", torch.tensor([7, -7]), torch.tensor([2, 2]), "floor")
case("aten::true_divide.Scalar", torch.tensor([7, 8]), 2)
case("aten::multiply.Scalar", torch.tensor([1, 2]), 1.5)
case("aten::subtract.Tensor", f(3), f(3), 2)
case("aten::absolute", f(3))
case("aten::negative", torch.tensor([1, -2]))
case("aten::clip", f(4), -0.5, 0.5)
case("aten::sgn", f(4))
case("aten::erfinv", torch.tensor([-0.999, -0.5, 0.0, 0.3, 0.9, 0.99999, 1.0, -1.0]))
case("aten::digamma", torch.tensor([0.1, 0.5, 1.0, 2.5, 10.0, -0.5, 30.0]))
case("aten::i0", torch.tensor([0.0, 0.5, -2.0, 5.0, 20.0]))
case("aten::frac", torch.tensor([1.5, -2.25, 3.0]))
case("aten::frac", torch.tensor([1, 2]))   # error: integer
case("aten::fix", torch.tensor([1.5, -2.7]))
case("aten::round.decimals", torch.tensor([1.2345, -2.675, 1234.5]), 2)
case("aten::round.decimals", torch.tensor([1234.5, 1250.0, -1350.0]), -2)
case("aten::gcd", torch.tensor([12, 18, -7, 0]), torch.tensor([8, 27, 14, 5]))
case("aten::lcm", torch.tensor([4, 6, -3, 0]), torch.tensor([6, 4, 5, 2]))
case("aten::isclose", torch.tensor([1.0, 1.0001, float("nan"), float("inf")]), torch.tensor([1.0, 1.0, float("nan"), float("inf")]), 1e-5, 1e-8, False)
case("aten::isclose", torch.tensor([1.0, 1.0001, float("nan")]), torch.tensor([1.0, 1.0, float("nan")]), 1e-3, 0.0, True)
case("aten::allclose", f(3), f(3), 1e-5, 1e-8, False)
case("aten::allclose", torch.ones(3), torch.ones(3) + 1e-9, 1e-5, 1e-8, False)
case("aten::equal", torch.tensor([1, 2]), torch.tensor([1, 2]))
case("aten::equal", torch.tensor([1, 2]), torch.tensor([1, 2, 3]))
case("aten::bitwise_and.Scalar_Tensor", 6, torch.tensor([3, 5, 12]))
case("aten::bitwise_xor.Scalar_Tensor", True, torch.tensor([True, False]))

os.makedirs(os.path.join(ROOT, "kernels"), exist_ok=True)
torch.save(CASES, os.path.join(ROOT, "kernels", "tensor_ops_torch2.pt"))
print(len(CASES), "cases,", sum("error" in c for c in CASES), "errors, torch", torch.__version__)
