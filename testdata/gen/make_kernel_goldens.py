"""Writes testdata/kernels/tensor_ops.pt: cases for the tensor kernels (elementwise, reductions,
shape/view ops, factories), each the op's schema name, its full argument list in schema order
(inputs saved before the op ran), and what PyTorch 1.13 returned -- or the error it raised.

Run with Debian's python3-torch: /usr/bin/python3 testdata/gen/make_kernel_goldens.py

Case dict keys: op, args, outs (one entry per schema output; a Tensor[] output is a list),
alias (True when output 0 shares args[0]'s storage), error (a substring of PyTorch's message),
base/base_after (in-place on a view: the view's base before and after the op).
"""
import copy
import math
import os

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCALAR_TYPE = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4, torch.float16: 5,
               torch.float32: 6, torch.float64: 7, torch.bool: 11}


def load_schemas():
    out = {}
    with open(os.path.join(ROOT, "schemas", "schemas.txt")) as f:
        for line in f:
            line = line.strip()
            if line:
                out[line.split("(")[0]] = line
    return out


SCHEMAS = load_schemas()


def split_args(schema):
    """[(name, kw_only)] of a schema's arguments."""
    inner = schema[schema.index("(") + 1: schema.rindex(") ->")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    args, kw = [], False
    for p in parts:
        if p == "*":
            kw = True
            continue
        name = p.split("=")[0].split()[-1]
        args.append((name, kw))
    return args


def call(op, args):
    schema = SCHEMAS[op]
    name = op[len("aten::"):]
    base, _, overload = name.partition(".")
    fn = getattr(getattr(torch.ops.aten, base), overload or "default")
    spec = split_args(schema)
    assert len(spec) == len(args), (op, len(spec), len(args))
    pos = [a for (n, kw), a in zip(spec, args) if not kw]
    kws = {n: a for (n, kw), a in zip(spec, args) if kw}
    return fn(*pos, **kws)


def shares(a, b):
    return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and \
        a.storage().data_ptr() == b.storage().data_ptr()


CASES = []


def case(op, *args, base=None):
    saved_args, saved_base = copy.deepcopy((list(args), base))
    entry = {"op": op, "args": saved_args}
    try:
        out = call(op, list(args))
    except Exception as e:  # PyTorch rejects it: the kernel must too
        entry["error"] = str(e).split("\n")[0][:60]
        CASES.append(entry)
        return
    if isinstance(out, tuple):
        outs = list(out)
    else:
        outs = [out]
    entry["outs"] = outs
    entry["alias"] = bool(args) and shares(outs[0], args[0])
    if base is not None:
        entry["base"] = saved_base
        entry["base_after"] = base
    CASES.append(entry)


def inplace_on_view(op, make_rest):
    """op applied to a non-contiguous view of a base tensor; the base must see the writes."""
    base = torch.randn(4, 6)
    view = base[1:3, ::2]
    case(op, view, *make_rest(), base=base)


torch.manual_seed(0)
f = lambda *s: torch.randn(*s)
i = lambda *s: torch.randint(-5, 6, s)
NAN = float("nan")
F32, F64, I64, I32, B = (SCALAR_TYPE[t] for t in (torch.float32, torch.float64, torch.int64, torch.int32, torch.bool))

# ---- elementwise: broadcasting, promotion, in-place --------------------------------------------
case("aten::add.Tensor", f(2, 3), f(3), 1)
case("aten::add.Tensor", f(2, 1, 3), f(4, 1), 2.5)
case("aten::add.Tensor", i(2, 3), f(2, 3), 1)
case("aten::add.Tensor", i(2, 3), torch.tensor(1.5), 1)
case("aten::add.Tensor", f(2, 3), torch.tensor(1.5, dtype=torch.float64), 1)
case("aten::add.Tensor", f(2, 3).double(), f(2, 3), 1)
case("aten::add.Tensor", i(3).to(torch.int32), torch.tensor(7), 1)
case("aten::add.Tensor", i(3).to(torch.int32), i(3), 2)
case("aten::add.Tensor", torch.tensor([True, False]), torch.tensor([True, True]), 1)
case("aten::add.Tensor", torch.tensor([True, False]), i(2), 1)
case("aten::add.Tensor", f(3, 4).t(), f(4, 3), 1)
case("aten::add.Tensor", f(2, 3), f(4), 1)
case("aten::add.Tensor", i(3), i(3), 0.5)
case("aten::add.Scalar", i(2, 3), 2.5, 1)
case("aten::add.Scalar", i(2, 3), 2, 3)
case("aten::add.Scalar", f(2, 3), 1, 1)
case("aten::add.Scalar", torch.tensor([True, False]), 1, 1)
case("aten::add_.Tensor", f(2, 3), f(3), 1)
case("aten::add_.Tensor", i(2, 3), f(2, 3), 1)
case("aten::add_.Tensor", f(3), f(2, 3), 1)
case("aten::add_.Tensor", f(2, 3), f(2, 3).double(), 1)
case("aten::add_.Scalar", f(2, 3), 2, 1)
inplace_on_view("aten::add_.Tensor", lambda: (f(3), 2))
inplace_on_view("aten::add_.Scalar", lambda: (1.5, 1))
case("aten::sub.Tensor", f(2, 3), f(2, 1), 1)
case("aten::sub.Tensor", i(4), i(4), 2)
case("aten::sub.Tensor", torch.tensor([True]), torch.tensor([False]), 1)
case("aten::sub.Scalar", f(3), 2, 1)
case("aten::rsub.Scalar", f(3), 2, 1)
case("aten::mul.Tensor", f(2, 3), f(2, 3)[:, :1], )
case("aten::mul.Tensor", i(2, 3), i(3))
case("aten::mul.Tensor", torch.tensor([True, False]), torch.tensor([True, True]))
case("aten::mul.Scalar", f(2, 3), 0.125)
case("aten::mul.Scalar", i(2, 3), 3)
case("aten::mul.Scalar", i(2, 3), 0.5)
case("aten::mul_.Tensor", f(2, 3), f(3))
case("aten::mul.Scalar", torch.complex(f(3), f(3)), 2.0)
case("aten::mul.Tensor", torch.complex(f(3), f(3)), f(2, 1))
case("aten::add.Tensor", torch.complex(f(3), f(3)), torch.complex(f(3), f(3)).double(), 2)
inplace_on_view("aten::mul_.Scalar", lambda: (3,))
case("aten::div.Tensor", f(2, 3), f(3))
case("aten::div.Tensor", i(2, 3), torch.tensor([2, 3, 4]))
case("aten::div.Tensor", torch.tensor([1.0, -1.0, 0.0]), torch.tensor([0.0, 0.0, 0.0]))
case("aten::div.Scalar", i(5), 2)
case("aten::div.Scalar", f(5), 3)
for mode in ("trunc", "floor", None):
    case("aten::div.Tensor_mode", torch.tensor([7, -7, 7, -7, 0]), torch.tensor([2, 2, -2, -2, 3]), mode)
    case("aten::div.Tensor_mode", torch.tensor([7.5, -7.5, 7.0, -7.0, 0.1]), torch.tensor([2.0, 2.0, -2.0, -2.0, 0.3]), mode)
case("aten::div.Scalar_mode", torch.tensor([7, -7, 5]), 2, "floor")
case("aten::div_.Tensor", f(3), f(3))
case("aten::div_.Tensor", i(3), i(3))
case("aten::floor_divide", torch.tensor([7, -7, 7, -7]), torch.tensor([2, 2, -2, -2]))
case("aten::floor_divide", torch.tensor([7.5, -7.5, 1.0]), torch.tensor([2.0, 2.0, -0.3]))
case("aten::floor_divide.Scalar", torch.tensor([7, -7]), 2)
case("aten::remainder.Tensor", torch.tensor([7, -7, 7, -7]), torch.tensor([3, 3, -3, -3]))
case("aten::remainder.Tensor", torch.tensor([7.5, -7.5, 7.5, -7.5]), torch.tensor([2.0, 2.0, -2.0, -2.0]))
case("aten::remainder.Scalar", torch.tensor([5, -5, 3]), 3)
case("aten::remainder.Scalar", f(4), 1.5)
case("aten::pow.Tensor_Scalar", f(5), 2)
case("aten::pow.Tensor_Scalar", f(5).abs(), 0.5)
case("aten::pow.Tensor_Scalar", f(5), 3)
case("aten::pow.Tensor_Scalar", i(5), 2)
case("aten::pow.Tensor_Scalar", i(5), 2.0)
case("aten::pow.Tensor_Scalar", i(5), -1)
case("aten::pow.Tensor_Tensor", f(3).abs(), f(3))
case("aten::pow.Scalar", 2, f(3))
case("aten::maximum", torch.tensor([1.0, NAN, 3.0]), torch.tensor([2.0, 1.0, NAN]))
case("aten::minimum", torch.tensor([1.0, NAN, 3.0]), torch.tensor([2.0, 1.0, NAN]))

# ---- unary math and activations ----------------------------------------------------------------
x = torch.tensor([[-3.5, -1.0, -0.25, 0.0], [0.5, 1.0, 2.75, 7.0]])
for op in ("abs", "neg", "sigmoid", "tanh", "relu", "relu6", "hardswish", "hardsigmoid", "silu", "exp", "sign",
           "floor", "ceil", "round", "trunc", "erf", "sin", "cos", "logical_not", "expm1", "reciprocal", "mish"):
    case("aten::" + op, x)
for op in ("sqrt", "log", "rsqrt", "log1p", "log2", "log10"):
    case("aten::" + op, x.abs() + 0.5)
case("aten::sqrt", torch.tensor([-1.0, 4.0]))
case("aten::log", torch.tensor([0.0, -1.0, 2.0]))
case("aten::relu", torch.tensor([NAN, -1.0, 2.0]))
case("aten::relu", i(6))
case("aten::abs", i(6))
case("aten::neg", i(6))
case("aten::neg", torch.tensor([True]))
case("aten::sigmoid", i(4))
case("aten::sqrt", i(4).abs())
case("aten::exp", f(3).double())
case("aten::tanh", f(3, 4).t())
case("aten::round", torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5]))
case("aten::logical_not", i(5))
case("aten::relu_", f(2, 3))
inplace_on_view("aten::relu_", lambda: ())
inplace_on_view("aten::sigmoid_", lambda: ())
case("aten::relu6_", x.clone() * 3)
case("aten::hardtanh", x, -1.0, 2.0)
case("aten::hardtanh", i(6), -2, 2)
case("aten::leaky_relu", x, 0.01)
case("aten::leaky_relu", x, 0.2)
case("aten::leaky_relu", i(3), 0.2)
case("aten::leaky_relu_", x.clone(), 0.1)
inplace_on_view("aten::leaky_relu_", lambda: (0.3,))
case("aten::elu", x, 1.0, 1, 1)
case("aten::elu", x, 0.5, 2.0, 1.5)
case("aten::gelu", x, "none")
case("aten::gelu", x, "tanh")
case("aten::gelu", f(3), "bogus")
case("aten::softplus", x, 1, 20)
case("aten::softplus", x, 2.0, 1.0)

# ---- comparisons, logical, where, masked_fill, clamp -------------------------------------------
a, b = torch.tensor([[1.0, 2.0, NAN], [4.0, 5.0, 6.0]]), torch.tensor([2.0, 2.0, 2.0])
for op in ("eq", "ne", "lt", "le", "gt", "ge"):
    case("aten::%s.Tensor" % op, a, b)
    case("aten::%s.Scalar" % op, a, 2)
    case("aten::%s.Scalar" % op, i(5), 1.5)
case("aten::eq.Tensor", i(2, 3), f(3))
case("aten::gt.Tensor", torch.tensor([True, False]), torch.tensor(0.5))
case("aten::logical_or", torch.tensor([True, False, False]), torch.tensor([False, False, True]))
case("aten::logical_or", i(4), f(4))
case("aten::logical_and", torch.tensor([[True], [False]]), torch.tensor([True, False, True]))
case("aten::logical_xor", i(4), i(4))
cond = torch.tensor([[True, False, True], [False, False, True]])
case("aten::where.self", cond, f(2, 3), f(3))
case("aten::where.self", cond, i(2, 3), f(2, 1))
case("aten::where.self", cond[0], torch.tensor(1.0), torch.tensor(0.0))
case("aten::where.self", torch.tensor([1, 0, 1], dtype=torch.uint8), f(3), f(3))
case("aten::where.ScalarOther", cond, f(2, 3), 0.0)
case("aten::where.ScalarSelf", cond, 1, i(2, 3))
case("aten::where.Scalar", cond, 1.0, 0)
case("aten::masked_fill.Scalar", f(2, 3), cond, -1e9)
case("aten::masked_fill.Scalar", f(2, 3), cond[1], 0.0)
case("aten::masked_fill.Scalar", f(3), cond, 2)
case("aten::masked_fill.Scalar", i(2, 3), cond, 7)
case("aten::masked_fill.Scalar", i(2, 3), cond, 2.7)
case("aten::masked_fill.Scalar", f(2, 3), cond.int(), 1.0)
case("aten::masked_fill.Tensor", f(2, 3), cond, torch.tensor(3.5))
case("aten::masked_fill_.Scalar", f(2, 3), cond, float("-inf"))
case("aten::masked_fill_.Scalar", f(3), cond, 1.0)
inplace_on_view("aten::masked_fill_.Scalar", lambda: (torch.tensor([[True, False, True], [False, False, False]]), 5.0))
case("aten::clamp", x, -1.0, 1.0)
case("aten::clamp", x, 0, None)
case("aten::clamp", x, None, 0.5)
case("aten::clamp", i(6), 0.5, None)
case("aten::clamp", i(6), -2, 2)
case("aten::clamp", torch.tensor([NAN, 1.0, -5.0]), -1.0, 1.0)
case("aten::clamp", x, 2.0, 1.0)
case("aten::clamp", x, None, None)
case("aten::clamp.Tensor", x, torch.tensor([-1.0, 0.0, 0.0, -1.0]), None)
case("aten::clamp_", x.clone(), -0.5, 0.5)
case("aten::clamp_min", x, 0.0)
case("aten::max.other", a, b)

# ---- reductions ---------------------------------------------------------------------------------
r = f(2, 3, 4)
case("aten::sum", r, None)
case("aten::sum", i(3, 4), None)
case("aten::sum", torch.tensor([True, True, False]), None)
case("aten::sum", i(3, 4), F64)
case("aten::sum.dim_IntList", r, [1], False, None)
case("aten::sum.dim_IntList", r, [-1], True, None)
case("aten::sum.dim_IntList", r, [0, 2], False, None)
case("aten::sum.dim_IntList", r, [0, 2], True, None)
case("aten::sum.dim_IntList", r, [0, 1], False, None)
case("aten::sum.dim_IntList", r, None, False, None)
case("aten::sum.dim_IntList", r, [], True, None)
case("aten::sum.dim_IntList", r.transpose(0, 2), [1], False, None)
case("aten::sum.dim_IntList", i(3, 4), [0], False, None)
case("aten::sum.dim_IntList", r, [1, 1], False, None)
case("aten::sum.dim_IntList", r, [3], False, None)
case("aten::sum.dim_IntList", f(100, 50), [1], False, None)
case("aten::mean", r, None)
case("aten::mean", i(3), None)
case("aten::mean", i(3), F32)
case("aten::mean.dim", r, [-1], False, None)
case("aten::mean.dim", r, [2, 0], True, None)
case("aten::mean.dim", f(1, 8, 5, 5), [-1, -2], True, None)
case("aten::prod", i(4), None)
case("aten::prod.dim_int", f(3, 4), 1, False, None)
mx = torch.tensor([[1.0, 5.0, 5.0, -2.0], [NAN, 3.0, 7.0, NAN], [0.0, -1.0, -1.0, 4.0]])
case("aten::max", mx)
case("aten::max", r)
case("aten::max", i(5))
case("aten::max", torch.zeros(0))
case("aten::min", r)
case("aten::min", mx)
case("aten::max.dim", mx, 1, False)
case("aten::max.dim", mx, 0, True)
case("aten::max.dim", r, -1, False)
case("aten::min.dim", mx, 1, False)
case("aten::min.dim", i(3, 5), 0, False)
case("aten::amax", r, [1, 2], False)
case("aten::amax", mx, [1], True)
case("aten::amin", r, [0], False)
case("aten::argmax", mx, 1, False)
case("aten::argmax", r, None, False)
case("aten::argmax", r, 1, True)
case("aten::argmax", r, None, True)
case("aten::argmin", mx, 0, False)
case("aten::any", torch.tensor([0, 0, 1]))
case("aten::all", torch.tensor([True, True, False]))
case("aten::any.dim", cond, 1, False)
case("aten::all.dim", cond, 0, True)
case("aten::frobenius_norm.dim", r, [1], False)
case("aten::frobenius_norm.dim", r, [0, 2], True)
case("aten::frobenius_norm", r)
case("aten::norm.Scalar", r, 2)
case("aten::norm.Scalar", r, 1)
case("aten::norm.Scalar", r, 3)
case("aten::norm.Scalar", r, float("inf"))
case("aten::norm.ScalarOpt_dim", r, 2, [-1], True)
case("aten::norm.ScalarOpt_dim", r, None, [0], False)
case("aten::norm.ScalarOpt_dim", r, 1, [1, 2], False)
case("aten::norm.Scalar", i(3), 2)
s = f(2, 3, 5) * 3
case("aten::softmax.int", s, -1, None)
case("aten::softmax.int", s, 1, None)
case("aten::softmax.int", s, 0, None)
case("aten::softmax.int", s.transpose(1, 2), 2, None)
case("aten::softmax.int", s, -1, F64)
case("aten::softmax.int", torch.tensor([[1.0, float("-inf"), 2.0], [float("-inf")] * 3]), 1, None)
case("aten::softmax.int", i(3), 0, None)
case("aten::softmax.int", torch.tensor(2.0), 0, None)
case("aten::log_softmax.int", s, -1, None)
case("aten::log_softmax.int", s, 1, None)
case("aten::log_softmax.int", f(4, 3).t(), 0, None)
case("aten::topk", torch.tensor([3.0, 1.0, 4.0, 1.5, 9.0, 2.0]), 3, -1, True, True)
case("aten::topk", torch.tensor([3.0, 1.0, 4.0, 1.5, 9.0, 2.0]), 2, 0, False, True)
case("aten::topk", f(3, 5), 2, 1, True, True)
case("aten::topk", f(4, 3), 2, 0, True, True)
case("aten::topk", torch.tensor([[5, 1, 3], [2, 8, 0]]), 1, 1, True, True)
case("aten::topk", torch.tensor([1.0, NAN, 3.0]), 2, 0, True, True)
case("aten::topk", f(5), 6, 0, True, True)
case("aten::sort", torch.tensor([3.0, 1.0, 2.0, 0.5]), -1, False)
case("aten::sort", f(3, 4), 0, True)
case("aten::argsort", torch.tensor([3, 1, 2]), -1, True)
case("aten::cumsum", f(3, 4), 1, None)
case("aten::cumsum", f(3, 4), 0, None)
case("aten::cumsum", i(3, 4), -1, None)
case("aten::cumsum", torch.tensor([True, True, False]), 0, None)
case("aten::cumsum", i(5), 0, F32)

# ---- shape and view ops ------------------------------------------------------------------------
v = f(2, 3, 4)
case("aten::view", v, [6, 4])
case("aten::view", v, [-1])
case("aten::view", v, [2, -1, 2])
case("aten::view", v, [5, -1])
case("aten::view", v, [-1, -1])
case("aten::view", v.transpose(1, 2), [2, 12])
case("aten::view", v.transpose(1, 2), [2, 4, 3])
case("aten::view", v.transpose(0, 1), [3, 2, 2, 2])
case("aten::view", v[:, 1], [8])
case("aten::view", torch.tensor(3.0), [1, 1])
case("aten::reshape", v, [4, 6])
case("aten::reshape", v.transpose(1, 2), [2, 12])
case("aten::reshape", v.transpose(1, 2), [-1])
case("aten::view_as", v, f(24))
case("aten::permute", v, [2, 0, 1])
case("aten::permute", v, [-1, 0, 1])
case("aten::permute", v, [0, 1])
case("aten::transpose.int", v, 0, 2)
case("aten::transpose.int", v, -1, -2)
case("aten::t", f(2, 3))
case("aten::t", f(3))
case("aten::t", v)
case("aten::flatten.using_ints", v, 1, -1)
case("aten::flatten.using_ints", v, 0, -1)
case("aten::flatten.using_ints", v.transpose(0, 2), 1, 2)
case("aten::flatten.using_ints", torch.tensor(1.0), 0, -1)
case("aten::flatten.using_ints", v, 2, 1)
case("aten::unflatten.int", f(2, 12), 1, [3, -1])
case("aten::contiguous", v.transpose(0, 2), 0)
case("aten::contiguous", v, 0)
case("aten::squeeze", f(1, 3, 1, 2))
case("aten::squeeze.dim", f(1, 3, 1, 2), 2)
case("aten::squeeze.dim", f(1, 3, 1, 2), 1)
case("aten::squeeze.dim", f(1, 3, 1, 2), -4)
case("aten::unsqueeze", v, 0)
case("aten::unsqueeze", v, -1)
case("aten::unsqueeze", v, 2)
case("aten::unsqueeze", v.transpose(0, 2), 1)
case("aten::unsqueeze", v, 4)
case("aten::expand", f(3, 1), [3, 4], False)
case("aten::expand", f(3, 1), [2, -1, 4], False)
case("aten::expand", f(3, 2), [3, 4], False)
case("aten::expand_as", f(1, 4), f(3, 4))
case("aten::slice.Tensor", v, 1, 0, 2, 1)
case("aten::slice.Tensor", v, 2, 1, None, 2)
case("aten::slice.Tensor", v, -1, -3, -1, 1)
case("aten::slice.Tensor", v, 0, 5, 10, 1)
case("aten::slice.Tensor", v, 0, None, None, 1)
case("aten::slice.Tensor", v, 2, 3, 1, 1)
case("aten::slice.Tensor", v, 0, 0, 2, 0)
case("aten::select.int", v, 1, 2)
case("aten::select.int", v, -1, -1)
case("aten::select.int", v, 0, 2)
case("aten::narrow", v, 2, 1, 2)
case("aten::narrow", v, 2, -2, 2)
case("aten::chunk", f(7, 2), 3, 0)
case("aten::chunk", f(2, 6), 4, 1)
case("aten::chunk", f(2, 6), 2, -1)
case("aten::split.Tensor", f(5, 2), 2, 0)
case("aten::split.Tensor", f(2, 6), 3, 1)
case("aten::split.sizes", f(2, 6), [1, 2, 3], 1)
case("aten::split.sizes", f(2, 6), [1, 2], 1)
case("aten::split", f(6, 2), [4, 2], 0)
case("aten::split_with_sizes", f(6, 2), [4, 2], 0)
case("aten::unbind.int", f(3, 2), 0)
case("aten::unbind.int", f(3, 2), 1)
case("aten::diagonal", f(3, 4), 0, 0, 1)
case("aten::diagonal", f(3, 4), 1, 0, 1)
case("aten::diagonal", f(2, 3, 4), -1, 2, 1)
case("aten::unfold", torch.arange(8.0), 0, 3, 2)
case("aten::unfold", f(2, 5), 1, 2, 1)
case("aten::as_strided", torch.arange(10.0), [3, 2], [2, 1], 1)
case("aten::view_as_real", torch.complex(f(3), f(3)))
case("aten::view_as_real", torch.complex(f(3), f(3)).to(torch.complex128)[1:])
case("aten::cat", [f(2, 3), f(1, 3)], 0)
case("aten::cat", [f(2, 3), f(2, 1), f(2, 2)], 1)
case("aten::cat", [f(2, 3), i(2, 3)], -1)
case("aten::cat", [f(2, 3).t(), f(3, 1)], 1)
case("aten::cat", [f(2, 3), torch.zeros(0)], 0)
case("aten::cat", [f(2, 3), f(2, 4)], 0)
case("aten::cat", [f(2, 3), f(2, 3, 1)], 0)
case("aten::stack", [f(2, 3), f(2, 3)], 0)
case("aten::stack", [f(2, 3), f(2, 3), f(2, 3)], -1)
case("aten::stack", [f(2, 3), f(2, 3).t().t()], 1)
case("aten::stack", [f(2, 3), f(3, 2)], 1)
case("aten::repeat", f(2, 3), [2, 1])
case("aten::repeat", f(2, 3), [2, 1, 3])
case("aten::repeat", f(3), [2, 2])
case("aten::repeat", f(2, 3).t(), [1, 2])
case("aten::repeat", f(2, 3), [2])
case("aten::pad", f(1, 2, 3), [1, 2], "constant", None)
case("aten::pad", f(1, 2, 3), [1, 1, 2, 0], "constant", 0.5)
case("aten::pad", f(1, 2, 3), [-1, 1], "constant", None)
case("aten::pad", i(2, 3), [1, 1], "constant", 2.0)
case("aten::pad", f(1, 2, 4), [2, 1], "reflect", None)
case("aten::pad", f(1, 2, 3, 3), [1, 1, 2, 0], "replicate", None)
case("aten::pad", f(1, 2, 3), [1, 2], "circular", None)
case("aten::constant_pad_nd", f(2, 2), [1, 1, 1, 1], 3)
case("aten::pixel_shuffle", f(1, 8, 2, 3), 2)
case("aten::pixel_shuffle", f(8, 2, 3), 2)
case("aten::pixel_unshuffle", f(1, 2, 4, 6), 2)
g = f(4, 5, 6)
case("aten::index.Tensor", g, [torch.tensor([0, 2, -1])])
case("aten::index.Tensor", g, [None, torch.tensor([[0, 1], [4, 3]])])
case("aten::index.Tensor", g, [torch.tensor([0, 1]), torch.tensor([2, 3])])
case("aten::index.Tensor", g, [torch.tensor([0, 1]), None, torch.tensor([2, 3])])
case("aten::index.Tensor", g, [None, torch.tensor([0, 1]), torch.tensor([[2], [3]])])
case("aten::index.Tensor", g, [g[:, 0, 0] > 0])
case("aten::index.Tensor", g, [None, None, torch.tensor([True, False, True, False, False, True])])
case("aten::index.Tensor", g, [g[:, :, 0] > 0])
case("aten::index.Tensor", g, [torch.tensor([5])])
case("aten::index.Tensor", g.transpose(0, 2), [None, torch.tensor([1])])
case("aten::index_select", g, 1, torch.tensor([4, 0, 0]))
case("aten::index_select", g, -1, torch.tensor([1]))
case("aten::index_select", g, 0, torch.tensor([4]))
case("aten::gather", f(3, 4), 1, torch.tensor([[0, 0], [1, 3], [2, 1]]), False)
case("aten::gather", f(3, 4), 0, torch.tensor([[0, 2, 1, 0]]), False)
case("aten::flip", f(2, 3, 4), [0, 2])
case("aten::roll", torch.arange(10.0).view(2, 5), [1], [1])
case("aten::roll", torch.arange(10.0).view(2, 5), [-3], [])
case("aten::movedim.int", f(2, 3, 4), 0, 2)

# ---- factories, conversions, copies ------------------------------------------------------------
case("aten::zeros", [2, 3], None, None, None, None)
case("aten::zeros", [2], I64, None, None, None)
case("aten::ones", [3, 1], F64, None, None, None)
case("aten::ones", [2, -1], None, None, None, None)
case("aten::full", [2, 2], 3, None, None, None, None)
case("aten::full", [2, 2], 1.5, None, None, None, None)
case("aten::full", [2], True, None, None, None, None)
case("aten::full", [2], 2.5, I64, None, None, None)
case("aten::zeros_like", i(2, 3), None, None, None, None, None)
case("aten::zeros_like", f(2, 3), F64, None, None, None, None)
case("aten::ones_like", f(2, 3).t(), None, None, None, None, None)
case("aten::full_like", f(2, 3), 7, None, None, None, None, None)
case("aten::new_zeros", i(2), [3], None, None, None, None)
case("aten::new_ones", f(2), [2, 2], I32, None, None, None)
case("aten::arange", 5, None, None, None, None)
case("aten::arange", 2.5, None, None, None, None)
case("aten::arange.start", 2, 7, None, None, None, None)
case("aten::arange.start", -1.0, 1.0, F64, None, None, None)
case("aten::arange.start_step", 0, 10, 3, None, None, None, None)
case("aten::arange.start_step", 1.0, 0.0, -0.25, None, None, None, None)
case("aten::arange.start_step", 0, 1, 0.1, None, None, None, None)
case("aten::arange.start_step", 10, 0, -3, None, None, None, None)
case("aten::arange.start_step", 0, 10, -1, None, None, None, None)
case("aten::linspace", 0, 1, 5, None, None, None, None)
case("aten::to.dtype", f(2, 3) * 10, I64, False, False, None)
case("aten::to.dtype", f(2, 3), F32, False, False, None)
case("aten::to.dtype", f(2, 3), F32, False, True, None)
case("aten::to.dtype", torch.tensor([0.0, 0.5, -2.0]), B, False, False, None)
case("aten::to.dtype", i(2, 3).t(), F64, False, False, None)
case("aten::to.device", f(2), torch.device("cpu"), F64, False, False, None)
case("aten::to.other", i(3), f(1), False, False, None)
F16, BF16 = SCALAR_TYPE[torch.float16], 15
half_in = torch.tensor([0.0, 1.0, -2.5, 65504.0, 1e-5, 3e-8, 70000.0, 0.1, 1.0 / 3])
case("aten::to.dtype", half_in, F16, False, False, None)
case("aten::to.dtype", half_in, BF16, False, False, None)
case("aten::to.dtype", half_in.half(), F32, False, False, None)
case("aten::to.dtype", half_in.bfloat16(), F64, False, False, None)
case("aten::to.dtype", half_in.half()[::2], I64, False, False, None)
case("aten::to.dtype_layout", i(3), F32, None, None, None, False, False, None)
case("aten::type_as", i(3), f(1).double())
case("aten::clone", f(2, 3).t(), None)
case("aten::detach", f(2, 3))
case("aten::dropout", f(2, 3), 0.5, False)
case("aten::copy_", f(2, 3), f(3), False)
case("aten::copy_", f(2, 3), i(2, 3), False)
case("aten::copy_", i(2, 3), f(2, 3) * 4, False)
inplace_on_view("aten::copy_", lambda: (torch.arange(6.0).view(2, 3), False))
inplace_on_view("aten::fill_.Scalar", lambda: (2,))
inplace_on_view("aten::zero_", lambda: ())

os.makedirs(os.path.join(ROOT, "kernels"), exist_ok=True)
torch.save(CASES, os.path.join(ROOT, "kernels", "tensor_ops.pt"))
print(len(CASES), "cases,", sum("error" in c for c in CASES), "errors")
