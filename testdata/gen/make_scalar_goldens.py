#!/usr/bin/python3
"""Expected results of the non-tensor kernels (kernels/cpu/scalar_ops.cpp, list_ops.cpp, ...).

Each case runs one TorchScript function in torch 1.13 that calls exactly one op; the script
checks, through the graph, that the op and overload are the intended ones, and records the
arguments in schema order, the result (or PyTorch's error text) and, for ops that mutate their
first argument, its value afterwards. Run with /usr/bin/python3 (which has torch):

    /usr/bin/python3 testdata/gen/make_scalar_goldens.py > testdata/kernels_scalar/cases.json
"""
import json
import math
import sys
from typing import Any, Dict, List, Optional, Tuple  # noqa: F401 (names for TorchScript)

import torch

CASES = []
INF, NAN = float("inf"), float("nan")


def enc(v):
    """Typed JSON: ints and bools and strings as themselves, floats as {"f": repr}."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return {"f": repr(v)}
    if isinstance(v, list):
        return {"list": [enc(x) for x in v]}
    if isinstance(v, tuple):
        return {"tuple": [enc(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[enc(k), enc(x)] for k, x in v.items()]}
    if isinstance(v, torch.device):
        return {"device": str(v)}
    if isinstance(v, torch.Tensor):
        return {"tensor": {"dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape),
                           "data": [enc(x) for x in v.flatten().tolist()]}}
    raise TypeError(type(v))


def copy_arg(v):
    if isinstance(v, list):
        return [copy_arg(x) for x in v]
    if isinstance(v, dict):
        return {k: copy_arg(x) for k, x in v.items()}
    return v


def split_params(sig):
    """Top-level comma split of "a: int, b: Dict[str, int]"."""
    parts, depth, cur = [], 0, ""
    for ch in sig:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur] if cur.strip() else parts


def case(op, sig, args, expr, mutates=False, no_grad=False):
    """op: full schema name; sig: the TorchScript parameters; args: all op arguments in schema
    order (they are also the function's arguments); expr: the call. mutates: the op changes its
    first argument (record it afterwards) and returns nothing or the value of expr. no_grad: call
    under torch.no_grad(), as jitctl runs models."""
    names = [p.split(":")[0].strip() for p in split_params(sig)]
    assert len(names) == len(args), (op, names, args)
    statement = expr.startswith("del ") or "=" in expr.replace("==", "").replace("!=", "")
    if mutates and statement:  # an assignment or del statement: no value
        body = f"    {expr}\n    return (), {names[0]}\n"
    elif mutates:
        body = f"    r = {expr}\n    return r, {names[0]}\n"
    else:
        body = f"    return {expr}\n"
    src = f"def f({sig}):\n{body}"
    cu = torch.jit.CompilationUnit(src)
    schemas = [n.schema() for n in cu.f.graph.nodes() if n.kind().startswith(("aten::", "prim::min", "prim::max", "prim::abs"))]
    names_seen = [s.split("(")[0] for s in schemas]
    if op not in names_seen:  # PyTorch picked another overload (e.g. the Scalar one): test that
        same_base = [n for n in names_seen if n.split(".")[0] == op.split(".")[0]]
        assert same_base, (op, schemas, src)
        op = same_base[0]
    entry = {"op": op, "args": [enc(a) for a in args]}
    call_args = [copy_arg(a) for a in args]
    try:
        with torch.set_grad_enabled(not no_grad):
            out = cu.f(*call_args)
    except Exception as e:  # PyTorch's message: the last line, without the exception class
        msg = str(e).strip().splitlines()[-1]
        entry["error"] = msg.split(": ", 1)[1] if msg.startswith("RuntimeError: ") else msg
        CASES.append(entry)
        return
    if mutates:
        r, after = out
        if not statement:  # an assignment or del statement has no value to record
            entry["void"] = r == ()
            if r != ():
                entry["result"] = enc(r)
        entry["after"] = enc(after)
    else:
        entry["result"] = enc(out)
    CASES.append(entry)


def binary(op, ta, tb, expr, pairs):
    for a, b in pairs:
        case(op, f"a: {ta}, b: {tb}", [a, b], expr)


INT_PAIRS = [(7, 3), (-7, 3), (7, -3), (-7, -3), (0, 5), (2**62, 4), (-2**63, -1), (9, 0)]
FLOAT_PAIRS = [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (INF, 2.0), (NAN, 1.0), (0.1, 0.2)]
INT_FLOAT = [(7, 2.5), (-7, 2.0), (3, 0.0), (0, -1.5)]
FLOAT_INT = [(7.5, 2), (-7.5, 2), (1.5, 0), (2.0, -3)]

ARITH = {"add": "a + b", "sub": "a - b", "mul": "a * b", "div": "a / b", "floordiv": "a // b", "remainder": "a % b"}
for name, expr in ARITH.items():
    # int % 0 and INT64_MIN // -1 kill the PyTorch process (SIGFPE): nothing to compare with.
    safe_int = [(a, b) for a, b in INT_PAIRS
                if not (name == "remainder" and b == 0) and not (name in ("floordiv", "remainder") and b == -1)]
    binary(f"aten::{name}.int", "int", "int", expr, safe_int)
    binary(f"aten::{name}.float", "float", "float", expr, FLOAT_PAIRS)
    binary(f"aten::{name}.int_float", "int", "float", expr, INT_FLOAT)
    binary(f"aten::{name}.float_int", "float", "int", expr, FLOAT_INT)
binary("aten::pow.int", "int", "int", "a ** b", [(2, 10), (2, -1), (-3, 3), (0, 0)])
binary("aten::pow.float", "float", "float", "a ** b", [(2.0, 0.5), (-8.0, 1.0 / 3), (0.0, -1.0)])
binary("aten::pow.int_float", "int", "float", "a ** b", [(2, 0.5)])
binary("aten::pow.float_int", "float", "int", "a ** b", [(1.5, 3), (2.0, -2)])
binary("aten::fmod.float", "float", "float", "math.fmod(a, b)", [(7.5, 2.0), (-7.5, 2.0), (1.0, 0.0)])
binary("aten::atan2.float", "float", "float", "math.atan2(a, b)", [(1.0, -1.0), (0.0, -0.0)])
binary("aten::copysign.float", "float", "float", "math.copysign(a, b)", [(3.0, -0.0)])
binary("aten::log.float_float", "float", "float", "math.log(a, b)", [(8.0, 2.0)])
binary("aten::log.int_int", "int", "int", "math.log(a, b)", [(100, 10)])
binary("aten::mathremainder.float", "float", "float", "math.remainder(a, b)", [(7.5, 2.0), (5.0, 2.0)])

for name, sym in {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}.items():
    binary(f"aten::{name}.int", "int", "int", f"a {sym} b", [(1, 2), (2, 2), (3, 2)])
    binary(f"aten::{name}.float", "float", "float", f"a {sym} b", [(1.0, 2.0), (2.0, 2.0), (NAN, NAN)])
    binary(f"aten::{name}.int_float", "int", "float", f"a {sym} b", [(2, 2.0), (2, 2.5)])
    binary(f"aten::{name}.float_int", "float", "int", f"a {sym} b", [(2.0, 2), (2.5, 2)])
    binary(f"aten::{name}.str", "str", "str", f"a {sym} b", [("abc", "abd"), ("b", "b"), ("b", "")])
for name, sym in {"eq": "==", "ne": "!="}.items():
    binary(f"aten::{name}.bool", "bool", "bool", f"a {sym} b", [(True, False), (True, True)])
    binary(f"aten::{name}.int_list", "List[int]", "List[int]", f"a {sym} b", [([1, 2], [1, 2]), ([1], [1, 2]), ([], [])])
    binary(f"aten::{name}.float_list", "List[float]", "List[float]", f"a {sym} b", [([1.0], [1.0]), ([NAN], [NAN])])
    binary(f"aten::{name}.str_list", "List[str]", "List[str]", f"a {sym} b", [(["a"], ["a"]), (["a"], ["b"])])
    binary(f"aten::{name}.bool_list", "List[bool]", "List[bool]", f"a {sym} b", [([True], [True])])

binary("aten::__and__.bool", "bool", "bool", "a and b" if False else "a & b", [(True, False), (True, True)])
binary("aten::__or__.bool", "bool", "bool", "a | b", [(True, False), (False, False)])
binary("aten::__xor__.bool", "bool", "bool", "a ^ b", [(True, False), (True, True)])
binary("aten::__and__.int", "int", "int", "a & b", [(12, 10), (-1, 5)])
binary("aten::__or__.int", "int", "int", "a | b", [(12, 10)])
binary("aten::__xor__.int", "int", "int", "a ^ b", [(12, 10)])
binary("aten::__lshift__.int", "int", "int", "a << b", [(1, 10), (3, 62)])
binary("aten::__rshift__.int", "int", "int", "a >> b", [(1024, 3), (-9, 1)])
for a in (True, False):
    case("aten::__not__", "a: bool", [a], "not a")
for v in (5, -2**63):
    case("aten::neg.int", "a: int", [v], "-a")
for v in (2.5, 0.0):
    case("aten::neg.float", "a: float", [v], "-a")

binary("prim::min.int", "int", "int", "min(a, b)", [(3, -2)])
binary("prim::max.int", "int", "int", "max(a, b)", [(3, -2)])
binary("prim::min.float", "float", "float", "min(a, b)", [(3.5, -2.0), (NAN, 1.0), (1.0, NAN)])
binary("prim::max.float", "float", "float", "max(a, b)", [(3.5, -2.0), (NAN, 1.0)])
binary("prim::min.int_float", "int", "float", "min(a, b)", [(3, 2.5)])
binary("prim::max.float_int", "float", "int", "max(a, b)", [(3.5, 4)])
case("prim::min.self_int", "a: List[int]", [[3, 1, 2]], "min(a)")
case("prim::max.self_int", "a: List[int]", [[3, 1, 2]], "max(a)")
case("prim::max.self_int", "a: List[int]", [[]], "max(a)")
case("prim::min.self_float", "a: List[float]", [[3.0, -1.5]], "min(a)")
case("prim::min.int_list", "a: List[int], b: List[int]", [[1, 2], [1, 3]], "min(a, b)")
case("prim::max.int_list", "a: List[int], b: List[int]", [[1, 2], [1, 2, 0]], "max(a, b)")
case("prim::abs.int", "a: int", [-4], "abs(a)")
case("prim::abs.float", "a: float", [-4.5], "abs(a)")

MATH = ["sqrt", "exp", "log", "log10", "log1p", "expm1", "sin", "cos", "tan", "asin", "acos", "atan",
        "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "gamma", "lgamma", "fabs",
        "degrees", "radians"]
for fn in MATH:
    for v in (0.5, 2.0, -1.0, 0.0):
        case(f"aten::{fn}.float", "a: float", [v], f"math.{fn}(a)")
    case(f"aten::{fn}.int", "a: int", [3], f"math.{fn}(a)")
for fn in ("floor", "ceil"):
    for v in (2.5, -2.5, 3.0, 1e300, NAN):
        case(f"aten::{fn}.float", "a: float", [v], f"math.{fn}(a)")
    case(f"aten::{fn}.int", "a: int", [-7], f"math.{fn}(a)")
for v in (2.5, 3.5, -0.5, 1.25):
    case("aten::round.float", "a: float", [v], "round(a)")
for fn in ("isnan", "isinf", "isfinite"):
    for v in (1.0, INF, NAN):
        case(f"aten::{fn}.float", "a: float", [v], f"math.{fn}(a)")
case("aten::factorial.int", "a: int", [5], "math.factorial(a)")
case("aten::factorial.int", "a: int", [-1], "math.factorial(a)")
case("aten::gcd.int", "a: int, b: int", [12, -18], "math.gcd(a, b)")
case("aten::modf", "a: float", [-3.25], "math.modf(a)")
case("aten::frexp", "a: float", [12.0], "math.frexp(a)")
case("aten::ldexp", "a: float, b: int", [0.75, 4], "math.ldexp(a, b)")
for a, b in [(7, 2), (-7, 2), (7, 0)]:
    case("aten::divmod.int", "a: int, b: int", [a, b], "divmod(a, b)")
for a, b in [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0)]:
    case("aten::divmod.float", "a: float, b: float", [a, b], "divmod(a, b)")

for v in (2.9, -2.9, 1e30, NAN, INF):
    case("aten::Int.float", "a: float", [v], "int(a)")
case("aten::Int.bool", "a: bool", [True], "int(a)")
for v in ("42", " -7", "12abc", "abc", "99999999999999999999", ""):
    case("aten::Int.str", "a: str", [v], "int(a)")
for v in ("1.5", "1e3", "inf", "x", "1.5x", " 2"):
    case("aten::Float.str", "a: str", [v], "float(a)")
case("aten::Float.int", "a: int", [3], "float(a)")
case("aten::Float.bool", "a: bool", [True], "float(a)")
for v in (0, 3):
    case("aten::Bool.int", "a: int", [v], "bool(a)")
for v in (0.0, -0.5, NAN):
    case("aten::Bool.float", "a: float", [v], "bool(a)")

# Tensor metadata and tensor <-> number conversions.
T23 = torch.arange(6, dtype=torch.float32).reshape(2, 3)
case("aten::size", "a: torch.Tensor", [T23], "a.size()")
for d in (0, -1, 2):
    case("aten::size.int", "a: torch.Tensor, d: int", [T23, d], "a.size(d)")
case("aten::dim", "a: torch.Tensor", [T23], "a.dim()")
case("aten::numel", "a: torch.Tensor", [T23], "a.numel()")
case("aten::len.Tensor", "a: torch.Tensor", [T23], "len(a)")
case("aten::len.Tensor", "a: torch.Tensor", [torch.tensor(1.0)], "len(a)")
for t in (T23, torch.tensor([1, 2])):
    case("aten::is_floating_point", "a: torch.Tensor", [t], "a.is_floating_point()")
for t in (torch.tensor([2.75]), torch.tensor(-3), torch.tensor(True), torch.tensor([1.0, 2.0])):
    case("aten::Int.Tensor", "a: torch.Tensor", [t], "int(a)")
    case("aten::Float.Tensor", "a: torch.Tensor", [t], "float(a)")
    case("aten::Bool.Tensor", "a: torch.Tensor", [t], "bool(a)")
    case("aten::item", "a: torch.Tensor", [t], "a.item()")
TENSOR_OPTS = "d: Optional[int], dev: Optional[torch.device], rg: bool"
TENSOR_CALL = "torch.tensor(a, dtype=d, device=dev, requires_grad=rg)"
for op, ty, v in [("aten::tensor.float", "float", 1.5), ("aten::tensor.int", "int", 7), ("aten::tensor.bool", "bool", True),
                  ("aten::tensor", "List[int]", [1, 2, 3]), ("aten::tensor", "List[float]", [1.5, 2.0]),
                  ("aten::tensor", "List[List[float]]", [[1.0, 2.0], [3.0, 4.0]]), ("aten::tensor", "List[float]", []),
                  ("aten::tensor", "List[bool]", [True, False])]:
    for dtype in (None, torch.float64, torch.int64):
        code = None if dtype is None else {torch.float64: 7, torch.int64: 4}[dtype]
        case(op, f"a: {ty}, {TENSOR_OPTS}", [v, code, None, False], TENSOR_CALL)
case("aten::tensor", f"a: List[List[int]], {TENSOR_OPTS}", [[[1], [2, 3]], None, None, False], TENSOR_CALL)
case("aten::is_grad_enabled", "", [], "torch.is_grad_enabled()", no_grad=True)
case("aten::is_autocast_enabled", "", [], "torch.is_autocast_enabled()")
for v in ("cpu", "cuda:1", "cuda", "bogus", "cuda:x", "cpu:0"):
    case("aten::device", "a: str", [v], "torch.device(a)")
for v in (None, 3):
    case("aten::__is__", "a: Optional[int], b: None", [v, None], "a is b")
    case("aten::__isnot__", "a: Optional[int], b: None", [v, None], "a is not b")

# Strings.
binary("aten::add.str", "str", "str", "a + b", [("ab", "cd")])
case("aten::len.str", "a: str", ["hello"], "len(a)")
for i in (0, -1, 3, -4):
    case("aten::__getitem__.str", "a: str, i: int", ["abc", i], "a[i]")
for s, e, st in [(None, None, -1), (1, None, 2), (-2, None, 1), (None, None, 0), (5, 1, -2), (-100, 100, 1)]:
    case("aten::slice.str", "a: str, s: Optional[int], e: Optional[int], st: int", ["abcdef", s, e, st], "a[s:e:st]")
for v in ("Hello World1", ""):
    case("aten::lower", "a: str", [v], "a.lower()")
    case("aten::upper", "a: str", [v], "a.upper()")
    case("aten::swapcase", "a: str", [v], "a.swapcase()")
    case("aten::capitalize", "a: str", [v], "a.capitalize()")
    case("aten::title", "a: str", [v], "a.title()")
for v in ("Ab1", "123", " \t", "", "ABC", "abc d", "Hello World", "_x", "a\x01"):
    for fn in ("isdigit", "isalpha", "isalnum", "isspace", "islower", "isupper", "istitle", "isdecimal",
               "isnumeric", "isidentifier", "isprintable"):
        case(f"aten::{fn}", "a: str", [v], f"a.{fn}()")
for v, c in [("  xx\n", " \n\t\f\v"), ("xxaxx", "x"), ("xxx", "x")]:
    case("aten::strip", "a: str, c: str", [v, c], "a.strip(c)")
    case("aten::lstrip", "a: str, c: str", [v, c], "a.lstrip(c)")
    case("aten::rstrip", "a: str, c: str", [v, c], "a.rstrip(c)")
for v, sep, m in [(" a  b c ", None, -1), ("a,b,,c", ",", -1), ("a,b,,c", ",", 1), ("", None, -1), ("", ",", -1),
                  (" a b ", None, 1), ("abc", "", -1), ("a--b--c", "--", 5)]:
    case("aten::split.str", "a: str, s: Optional[str], m: int", [v, sep, m], "a.split(s, m)")
for v, sep, m in [("a,b,,c", ",", 1), (" a  b", " ", -1), ("a--b--c", "--", -1)]:
    case("aten::rsplit", "a: str, s: str, m: int", [v, sep, m], "a.rsplit(s, m)")
for v, k in [("a\nb\r\nc", False), ("a\nb\n", True)]:
    case("aten::splitlines", "a: str, k: bool", [v, k], "a.splitlines(k)")
case("aten::join", "a: str, b: List[str]", [", ", ["x", "y", "z"]], "a.join(b)")
case("aten::join", "a: str, b: List[str]", ["-", []], "a.join(b)")
for v, o, n, m in [("aaaa", "a", "b", 2), ("aaaa", "a", "b", -1), ("abcabc", "bc", "X", -1), ("aaa", "aa", "", -1)]:
    case("aten::replace", "a: str, o: str, n: str, m: int", [v, o, n, m], "a.replace(o, n, m)")
FIND = [("abcabc", "c", 0, -1), ("abcabc", "c", 3, 6), ("abcabc", "c", -3, 100), ("abc", "", 2, -1),
        ("abcabc", "bc", 0, -1), ("abcabc", "z", 0, -1), ("abcabc", "bc", 2, 4)]
for fn in ("find", "rfind"):
    for args in FIND:
        case(f"aten::{fn}", "a: str, b: str, s: int, e: int", list(args), f"a.{fn}(b, s, e)")
for args in [("abcabc", "bc", 0, -1), ("abc", "z", 0, -1)]:
    case("aten::index.str", "a: str, b: str, s: int, e: int", list(args), "a.index(b, s, e)")
    case("aten::rindex", "a: str, b: str, s: int, e: int", list(args), "a.rindex(b, s, e)")
for args in [("aaaa", "aa", 0, -1), ("abcabc", "bc", 1, -1), ("abcabc", "c", 0, 3)]:
    case("aten::count", "a: str, b: str, s: int, e: int", list(args), "a.count(b, s, e)")
for args in [("abc", "bc", 1, -1), ("abc", "ab", 0, -1), ("abc", "c", 0, 3), ("abc", "", 0, -1), ("abc", "abcd", 0, -1)]:
    case("aten::startswith", "a: str, b: str, s: int, e: int", list(args), "a.startswith(b, s, e)")
    case("aten::endswith", "a: str, b: str, s: int, e: int", list(args), "a.endswith(b, s, e)")
for w in (2, 7, 8):
    case("aten::ljust", "a: str, w: int, c: str", ["abc", w, "*"], "a.ljust(w, c)")
    case("aten::rjust", "a: str, w: int, c: str", ["abc", w, "*"], "a.rjust(w, c)")
    case("aten::center", "a: str, w: int, c: str", ["abc", w, "*"], "a.center(w, c)")
    case("aten::center", "a: str, w: int, c: str", ["ab", w, "*"], "a.center(w, c)")
    case("aten::zfill", "a: str, w: int", ["-12", w], "a.zfill(w)")
case("aten::ljust", "a: str, w: int, c: str", ["abc", 5, "**"], "a.ljust(w, c)")
case("aten::expandtabs", "a: str, t: int", ["a\tbc\td", 4], "a.expandtabs(t)")
for v, sep in [("a=b=c", "="), ("abc", "=")]:
    case("aten::partition", "a: str, s: str", [v, sep], "a.partition(s)")
    case("aten::rpartition", "a: str, s: str", [v, sep], "a.rpartition(s)")
for v in ("a", "ab"):
    case("aten::ord", "a: str", [v], "ord(a)")
for v in (65, -1, 0x110000):
    case("aten::chr", "a: int", [v], "chr(a)")
for v in (-10, 0, 255):
    case("aten::hex", "a: int", [v], "hex(a)")
    case("aten::oct", "a: int", [v], "oct(a)")
    case("aten::bin", "a: int", [v], "bin(a)")
case("aten::list", "a: str", ["abc"], "list(a)")

# str() and format(): TorchScript's printing of values.
for v in (1.0, 1e-5, 1e16, 1e17, 1e20, 123456789012.5, 0.1 + 0.2, INF, -INF, NAN, -0.0, -3.0, 5e-324, 3.14159):
    case("aten::str", "a: float", [v], "str(a)")
case("aten::str", "a: int", [-5], "str(a)")
case("aten::str", "a: bool", [True], "str(a)")
case("aten::str", "a: List[float]", [[1.0, 2.5, 1e-7]], "str(a)")
case("aten::str", "a: List[str]", [["a", "b'c"]], "str(a)")
case("aten::str", "a: List[List[int]]", [[[1], []]], "str(a)")
case("aten::str", "a: Tuple[int]", [(1,)], "str(a)")
case("aten::str", "a: Tuple[int, float, str]", [(1, 2.0, "z")], "str(a)")
case("aten::str", "a: Dict[str, int]", [{"a": 1, "b": 2}], "str(a)")
case("aten::str", "a: List[Optional[int]]", [[None, 1]], "str(a)")
case("aten::format", "f: str, a: int, b: str, c: float", ["{} x {} {}", 4, "q", 2.0], "f.format(a, b, c)")
case("aten::format", "f: str, a: int, b: int", ["{0} {x} {} {{}}", 1, 2], "f.format(a, b)")
case("aten::format", "f: str, a: int, b: int", ["x{}y", 1, 2], "f.format(a, b)")
case("aten::format", "f: str, a: int", ["{} and {}", 1], "f.format(a)")
case("aten::format", "f: str, a: List[float], b: Optional[int]", ["{}: {}", [1.0], None], "f.format(a, b)")

# Lists.
for l, i in [([1, 2, 3], 0), ([1, 2, 3], -1), ([1, 2, 3], 3), ([1, 2, 3], -4)]:
    case("aten::__getitem__.t", "a: List[int], i: int", [l, i], "a[i]")
for l, i in [([1, 2, 3], 1), ([1, 2, 3], 5)]:
    case("aten::_set_item.t", "a: List[int], i: int, v: int", [l, i, 9], "a[i] = v", mutates=True)
case("aten::append.t", "a: List[int], b: int", [[1, 2], 3], "a.append(b)", mutates=True)
for i in (0, -1, 10, -10):
    case("aten::insert.t", "a: List[int], i: int, b: int", [[1, 2, 3], i, 9], "a.insert(i, b)", mutates=True)
for l, i in [([1, 2, 3], -1), ([1, 2, 3], 0), ([], -1), ([1], 5)]:
    case("aten::pop.t", "a: List[int], i: int", [l, i], "a.pop(i)", mutates=True)
case("aten::len.t", "a: List[int]", [[1, 2, 3]], "len(a)")
case("aten::list.t", "a: List[int]", [[1, 2]], "list(a)")
for s, e, st in [(None, None, -1), (1, None, 2), (-2, None, 1), (None, None, 0), (5, 1, -2), (-100, 100, 1), (1, 1, 1)]:
    case("aten::slice.t", "a: List[int], s: Optional[int], e: Optional[int], st: int", [[0, 1, 2, 3, 4, 5], s, e, st], "a[s:e:st]")
case("aten::add.t", "a: List[int], b: List[int]", [[1], [2, 3]], "a + b")
case("aten::extend.t", "a: List[int], b: List[int]", [[1], [2, 3]], "a.extend(b)", mutates=True)
case("aten::mul.left_t", "a: List[int], n: int", [[1, 2], 3], "a * n")
case("aten::mul.left_t", "a: List[int], n: int", [[1, 2], -1], "a * n")
case("aten::clear.t", "a: List[int]", [[1, 2]], "a.clear()", mutates=True)
case("aten::reverse.t", "a: List[int]", [[1, 2, 3]], "a.reverse()", mutates=True)
case("aten::copy.t", "a: List[int]", [[1, 2]], "a.copy()")
for v in (2, 5):
    case("aten::__contains__.int_list", "a: List[int], b: int", [[1, 2], v], "b in a")
    case("aten::index.list_int", "a: List[int], b: int", [[1, 2, 2], v], "a.index(b)")
    case("aten::count.int", "a: List[int], b: int", [[1, 2, 2], v], "a.count(b)")
    case("aten::remove.int", "a: List[int], b: int", [[1, 2, 2], v], "a.remove(b)", mutates=True)
case("aten::__contains__.str_list", "a: List[str], b: str", [["x", "y"], "y"], "b in a")
case("aten::__contains__.float_list", "a: List[float], b: float", [[1.0, 2.0], 2.0], "b in a")
case("aten::index.list_str", "a: List[str], b: str", [["x", "y"], "q"], "a.index(b)")
for rev in (False, True):
    case("aten::sort.int", "a: List[int], r: bool", [[3, 1, 2, 1], rev], "a.sort(reverse=r)", mutates=True)
    case("aten::sort.str", "a: List[str], r: bool", [["b", "a", "B", ""], rev], "a.sort(reverse=r)", mutates=True)
    case("aten::sort.float", "a: List[float], r: bool", [[2.5, -1.0, 0.0], rev], "a.sort(reverse=r)", mutates=True)
case("aten::sorted.int", "a: List[int]", [[3, 1, 2]], "sorted(a)")
case("aten::sum.int", "a: List[int]", [[1, 2, 3]], "sum(a)")
case("aten::sum.float", "a: List[float]", [[1.5, 2.0]], "sum(a)")
case("aten::any.bool", "a: List[bool]", [[False, True]], "any(a)")
case("aten::all.bool", "a: List[bool]", [[False, True]], "all(a)")
case("aten::any.int", "a: List[int]", [[0, 0]], "any(a)")
case("aten::all.int", "a: List[int]", [[]], "all(a)")

case("aten::mul.right_", "n: int, a: List[int]", [2, [1, 2]], "n * a")
case("aten::mul_.t", "a: List[int], n: int", [[1, 2], 2], "a *= n", mutates=True)
case("aten::add_.t", "a: List[int], b: List[int]", [[1], [2]], "a += b", mutates=True)
for i in (0, -1, 5):
    case("aten::Delete.t", "a: List[int], i: int", [[1, 2, 3], i], "del a[i]", mutates=True)
case("aten::sorted.str", "a: List[str]", [["b", "a", "c"]], "sorted(a)")
case("aten::sorted.float", "a: List[float]", [[2.0, -1.0]], "sorted(a)")
case("aten::any.str", "a: List[str]", [["", "x"]], "any(a)")
case("aten::sum.bool", "a: List[bool]", [[True, True, False]], "sum(a)")
case("aten::count.str", "a: List[str], b: str", [["x", "y", "x"], "x"], "a.count(b)")
case("aten::index.list_float", "a: List[float], b: float", [[1.0, 2.0], 2.0], "a.index(b)")
case("aten::remove.str", "a: List[str], b: str", [["x", "y", "x"], "x"], "a.remove(b)", mutates=True)
case("aten::len.t", "a: List[str]", [[]], "len(a)")

# Dicts.
D = {"a": 1, "b": 2}
for k in ("a", "x"):
    case("aten::__getitem__.Dict_str", "d: Dict[str, int], k: str", [D, k], "d[k]")
    case("aten::__contains__.str", "d: Dict[str, int], k: str", [D, k], "k in d")
    case("aten::get.str", "d: Dict[str, int], k: str", [D, k], "d.get(k)")
    case("aten::get.default_str", "d: Dict[str, int], k: str, v: int", [D, k, 7], "d.get(k, v)")
    case("aten::pop.Dict_str", "d: Dict[str, int], k: str", [D, k], "d.pop(k)", mutates=True)
    case("aten::pop.Dict_default_str", "d: Dict[str, int], k: str, v: int", [D, k, 7], "d.pop(k, v)", mutates=True)
    case("aten::setdefault.str", "d: Dict[str, int], k: str, v: int", [D, k, 7], "d.setdefault(k, v)", mutates=True)
case("aten::__getitem__.Dict_int", "d: Dict[int, int], k: int", [{1: 1}, 5], "d[k]")
case("aten::__getitem__.Dict_int", "d: Dict[int, int], k: int", [{1: 10, 2: 20}, 2], "d[k]")
case("aten::len.Dict_int", "d: Dict[int, int]", [{1: 1, 2: 2}], "len(d)")
case("aten::len.Dict_str", "d: Dict[str, int]", [D], "len(d)")
case("aten::keys.str", "d: Dict[str, int]", [D], "d.keys()")
case("aten::values.str", "d: Dict[str, int]", [D], "d.values()")
case("aten::items.str", "d: Dict[str, int]", [D], "d.items()")
case("aten::popitem.str", "d: Dict[str, int]", [D], "d.popitem()", mutates=True)
case("aten::popitem.str", "d: Dict[str, int]", [{}], "d.popitem()", mutates=True)
case("aten::clear.str", "d: Dict[str, int]", [D], "d.clear()", mutates=True)
case("aten::update.str", "d: Dict[str, int], e: Dict[str, int]", [D, {"b": 5, "c": 6}], "d.update(e)", mutates=True)
case("aten::copy.Dict_str", "d: Dict[str, int]", [D], "d.copy()")
for k in ("a", "x"):
    case("aten::Delete.Dict_str", "d: Dict[str, int], k: str", [D, k], "del d[k]", mutates=True)
case("aten::_set_item.str", "d: Dict[str, int], k: str, v: int", [D, "c", 3], "d[k] = v", mutates=True)
case("aten::_set_item.str", "d: Dict[str, int], k: str, v: int", [D, "a", 3], "d[k] = v", mutates=True)
case("aten::_set_item.int", "d: Dict[int, str], k: int, v: str", [{1: "x"}, 2, "y"], "d[k] = v", mutates=True)
case("aten::keys.int", "d: Dict[int, str]", [{3: "x", 1: "y"}], "d.keys()")
case("aten::values.int", "d: Dict[int, str]", [{3: "x", 1: "y"}], "d.values()")
case("aten::items.int", "d: Dict[int, float]", [{3: 1.5}], "d.items()")
case("aten::get.int", "d: Dict[int, int], k: int", [{1: 1}, 2], "d.get(k)")
case("aten::__contains__.int", "d: Dict[int, int], k: int", [{1: 1}, 1], "k in d")
case("aten::dict.Dict_str", "d: Dict[str, int]", [D], "dict(d)")

# aten::embedding (forward only: padding_idx changes gradients, not values).
W = torch.arange(6, dtype=torch.float32).reshape(3, 2)
EMB = "a: torch.Tensor, i: torch.Tensor, p: int, s: bool, sp: bool"
case("aten::embedding", EMB, [W, torch.tensor([[2, 0], [1, 2]]), -1, False, False], "torch.embedding(a, i, p, s, sp)")
case("aten::embedding", EMB, [W.double(), torch.tensor([1, 0]), 0, False, False], "torch.embedding(a, i, p, s, sp)")
case("aten::embedding", EMB, [W, torch.tensor(1), -1, False, False], "torch.embedding(a, i, p, s, sp)")
case("aten::embedding", EMB, [W, torch.tensor([3]), -1, False, False], "torch.embedding(a, i, p, s, sp)")
case("aten::embedding", EMB, [W, torch.tensor([-1]), -1, False, False], "torch.embedding(a, i, p, s, sp)")

json.dump({"torch": torch.__version__, "cases": CASES}, sys.stdout, indent=0)
sys.stdout.write("\n")
