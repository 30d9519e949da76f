#include "passes/analysis/immutable_ops.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "lib/ir/ivalue_type.h"
#include "lib/ops/schema.h"

namespace jitctl {
namespace {

using K = IValue::Kind;
using Result = std::optional<std::vector<IValue>>;

Result one(IValue v) { return std::vector<IValue>{std::move(v)}; }

bool is_int(const IValue& v) { return v.kind() == K::Int; }
bool is_num(const IValue& v) { return v.kind() == K::Int || v.kind() == K::Double; }

// int64 arithmetic wraps on overflow in PyTorch's kernels (plain C++ on two's complement).
int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

// Python's floor division on ints; PyTorch raises on a zero divisor.
std::optional<int64_t> int_floordiv(int64_t a, int64_t b) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return std::nullopt;
  if ((a > 0) == (b > 0)) return a / b;
  const int64_t q = a / b;
  return a % b != 0 ? q - 1 : q;
}

// float -> int conversions refuse NaN, infinities and values outside int64 (checkDoubleInRange).
bool double_in_int_range(double d) {
  return !std::isnan(d) && !std::isinf(d) && d <= static_cast<double>(std::numeric_limits<int64_t>::max()) &&
         d >= static_cast<double>(std::numeric_limits<int64_t>::min());
}

// aten::Int(float) is a bare C++ conversion: on x86 anything out of range (NaN included) comes
// out as INT64_MIN, which is what PyTorch then folds to.
int64_t truncate_to_int(double d) {
  if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

std::optional<int64_t> int_pow(int64_t base, int64_t exp) {
  if (exp < 0) return std::nullopt;  // "Integers to negative integer powers are not allowed."
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exp >>= 1;
  }
  return result;
}

Result arithmetic(std::string_view op, const IValue& a, const IValue& b, const Node* n) {
  if (op == "add" && a.kind() == K::String && b.kind() == K::String) return one(IValue(a.to_string() + b.to_string()));
  if (!is_num(a) || !is_num(b)) return std::nullopt;
  const bool ints = is_int(a) && is_int(b);
  const double x = a.to_double(), y = b.to_double();
  if (op == "add") return ints ? one(IValue(wrap_add(a.to_int(), b.to_int()))) : one(IValue(x + y));
  if (op == "sub") return ints ? one(IValue(wrap_sub(a.to_int(), b.to_int()))) : one(IValue(x - y));
  if (op == "mul") return ints ? one(IValue(wrap_mul(a.to_int(), b.to_int()))) : one(IValue(x * y));
  if (op == "div") return one(IValue(x / y));
  if (op == "floordiv") {
    if (!ints) return one(IValue(std::floor(x / y)));
    if (auto q = int_floordiv(a.to_int(), b.to_int())) return one(IValue(*q));
    return std::nullopt;
  }
  if (op == "remainder") {
    if (!ints) return one(IValue(std::fmod(y + std::fmod(x, y), y)));
    const int64_t p = a.to_int(), q = b.to_int();
    if (q == 0 || q == -1) return q == -1 ? one(IValue(int64_t{0})) : std::nullopt;
    return one(IValue((q + p % q) % q));
  }
  if (op == "pow") {
    // pow.int_to_int is the overload whose result is an int; the others compute in double.
    if (ints && n->outputs().size() == 1 && n->output()->type()->kind() == TypeKind::Int) {
      if (auto r = int_pow(a.to_int(), b.to_int())) return one(IValue(*r));
      return std::nullopt;
    }
    if (x == 0.0 && y < 0.0) return std::nullopt;  // "0.0 cannot be raised to a negative power"
    return one(IValue(std::pow(x, y)));
  }
  if (op == "__round_to_zero_floordiv") {
    if (!ints || b.to_int() == 0 || (a.to_int() == std::numeric_limits<int64_t>::min() && b.to_int() == -1))
      return std::nullopt;
    return one(IValue(a.to_int() / b.to_int()));
  }
  return std::nullopt;
}

Result comparison(std::string_view op, const IValue& a, const IValue& b) {
  int c;  // -1, 0, 1 as a <=> b
  if (is_num(a) && is_num(b)) {
    if (is_int(a) && is_int(b)) {
      c = a.to_int() < b.to_int() ? -1 : a.to_int() > b.to_int() ? 1 : 0;
    } else {
      const double x = a.to_double(), y = b.to_double();
      if (op == "eq") return one(IValue(x == y));
      if (op == "ne") return one(IValue(x != y));
      if (op == "lt") return one(IValue(x < y));
      if (op == "le") return one(IValue(x <= y));
      if (op == "gt") return one(IValue(x > y));
      return one(IValue(x >= y));
    }
  } else if (a.kind() == K::String && b.kind() == K::String) {
    const int r = a.to_string().compare(b.to_string());
    c = r < 0 ? -1 : r > 0 ? 1 : 0;
  } else if ((a.kind() == K::Bool && b.kind() == K::Bool) || (a.kind() == K::Device && b.kind() == K::Device)) {
    if (op != "eq" && op != "ne") return std::nullopt;
    const bool same = a.kind() == K::Bool ? a.to_bool() == b.to_bool() : a.to_device() == b.to_device();
    return one(IValue(op == "eq" ? same : !same));
  } else {
    return std::nullopt;
  }
  if (op == "eq") return one(IValue(c == 0));
  if (op == "ne") return one(IValue(c != 0));
  if (op == "lt") return one(IValue(c < 0));
  if (op == "le") return one(IValue(c <= 0));
  if (op == "gt") return one(IValue(c > 0));
  return one(IValue(c >= 0));
}

// IValue::is on what constants produce: scalars by value (0.0 is -0.0), None is None, a tuple
// only itself; strings and complex numbers are fresh objects each time, never identical.
bool identical(const IValue& a, const IValue& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::None: return true;
    case K::Bool: return a.to_bool() == b.to_bool();
    case K::Int: return a.to_int() == b.to_int();
    case K::Double: return a.to_double() == b.to_double();
    case K::Device: return a.to_device() == b.to_device();
    case K::Tuple: return a.to_tuple() == b.to_tuple();
    default: return false;
  }
}

Result tuple_op(const Node* n, const std::vector<IValue>& args) {
  const Symbol k = n->kind();
  if (k == prim::TupleConstruct) {
    auto t = std::make_shared<TupleData>();
    t->items = args;
    return one(IValue(std::move(t)));
  }
  if (args.empty() || args[0].kind() != K::Tuple) return std::nullopt;
  const auto& items = args[0].to_tuple()->items;
  const auto size = static_cast<int64_t>(items.size());
  if (k == prim::TupleIndex) {
    if (args.size() != 2 || !is_int(args[1])) return std::nullopt;
    int64_t i = args[1].to_int();
    if (i < 0) i += size;
    if (i < 0 || i >= size) return std::nullopt;
    return one(items[static_cast<size_t>(i)]);
  }
  if (k == prim::TupleUnpack) {
    if (items.size() != n->outputs().size()) return std::nullopt;
    return items;
  }
  if (k == prim::TupleSlice) {
    const int64_t beg = n->i(Symbol::attr("beg")), end = n->i(Symbol::attr("end"));
    if (beg < 0 || end > size || beg > end) return std::nullopt;
    auto t = std::make_shared<TupleData>();
    t->items.assign(items.begin() + beg, items.begin() + end);
    return one(IValue(std::move(t)));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<IValue>> run_immutable_op(const Node* n, const std::vector<IValue>& args) {
  if (const FunctionSchema* s = n->schema(); s && s->is_vararg) return std::nullopt;
  const Symbol k = n->kind();
  if (k == prim::TupleConstruct || k == prim::TupleIndex || k == prim::TupleUnpack || k == prim::TupleSlice)
    return tuple_op(n, args);
  if (k == prim::unchecked_cast && args.size() == 1) return one(args[0]);
  // isinstance of a constant: its type against the listed ones (upgrader bodies test `other`).
  if (k == Symbol::prim("isinstance") && args.size() == 1) {
    const TypePtr t = ivalue_type(args[0]);
    for (const TypePtr& want : n->tys(Symbol::attr("types")))
      if (t->is_subtype_of(*want)) return one(IValue(true));
    return one(IValue(false));
  }

  const std::string_view ns = k.ns_string();
  const std::string_view op = k.unqual_string();
  if (ns == "aten" && args.size() == 2) {
    const IValue& a = args[0];
    const IValue& b = args[1];
    if (op == "add" || op == "sub" || op == "mul" || op == "div" || op == "floordiv" || op == "remainder" ||
        op == "pow" || op == "__round_to_zero_floordiv")
      return arithmetic(op, a, b, n);
    if (op == "eq" || op == "ne" || op == "lt" || op == "le" || op == "gt" || op == "ge") return comparison(op, a, b);
    if (op == "__is__") return one(IValue(identical(a, b)));
    if (op == "__isnot__") return one(IValue(!identical(a, b)));
    if (op == "__and__" || op == "__or__" || op == "__xor__") {
      if (a.kind() == K::Bool && b.kind() == K::Bool) {
        const bool x = a.to_bool(), y = b.to_bool();
        return one(IValue(op == "__and__" ? (x && y) : op == "__or__" ? (x || y) : (x != y)));
      }
      if (is_int(a) && is_int(b)) {
        const int64_t x = a.to_int(), y = b.to_int();
        return one(IValue(op == "__and__" ? (x & y) : op == "__or__" ? (x | y) : (x ^ y)));
      }
      return std::nullopt;
    }
    if (op == "__getitem__" && a.kind() == K::String && is_int(b)) {
      const auto len = static_cast<int64_t>(a.to_string().size());
      int64_t i = b.to_int();
      if (i < 0) i += len;
      if (i < 0 || i >= len) return std::nullopt;
      return one(IValue(std::string(1, a.to_string()[static_cast<size_t>(i)])));
    }
    return std::nullopt;
  }
  if (ns == "prim" && args.size() == 2 && (op == "min" || op == "max")) {
    const IValue& a = args[0];
    const IValue& b = args[1];
    if (!is_num(a) || !is_num(b)) return std::nullopt;
    if (is_int(a) && is_int(b)) {
      const int64_t x = a.to_int(), y = b.to_int();
      return one(IValue(op == "min" ? (x < y ? x : y) : (x > y ? x : y)));
    }
    const double x = a.to_double(), y = b.to_double();
    return one(IValue(op == "min" ? (x < y ? x : y) : (x > y ? x : y)));
  }
  if (args.size() != 1) return std::nullopt;
  const IValue& a = args[0];
  if (ns == "prim" && op == "abs") {
    if (is_int(a)) return one(IValue(a.to_int() < 0 ? wrap_sub(0, a.to_int()) : a.to_int()));
    if (a.kind() == K::Double) return one(IValue(std::fabs(a.to_double())));
    return std::nullopt;
  }
  if (ns != "aten") return std::nullopt;
  if (op == "neg") {
    if (is_int(a)) return one(IValue(wrap_sub(0, a.to_int())));
    if (a.kind() == K::Double) return one(IValue(-a.to_double()));
    return std::nullopt;
  }
  if (op == "__not__" && a.kind() == K::Bool) return one(IValue(!a.to_bool()));
  if (op == "Bool") {
    if (is_int(a)) return one(IValue(a.to_int() != 0));
    if (a.kind() == K::Double) return one(IValue(a.to_double() != 0.0));
    return std::nullopt;
  }
  if (op == "Int") {
    if (is_int(a)) return one(a);
    if (a.kind() == K::Bool) return one(IValue(int64_t{a.to_bool() ? 1 : 0}));
    if (a.kind() == K::Double) return one(IValue(truncate_to_int(a.to_double())));
    return std::nullopt;
  }
  if (op == "Float") {
    if (is_num(a)) return one(IValue(a.to_double()));
    if (a.kind() == K::Bool) return one(IValue(a.to_bool() ? 1.0 : 0.0));
    return std::nullopt;
  }
  if (op == "floor" || op == "ceil") {
    if (is_int(a)) return one(a);
    if (a.kind() != K::Double) return std::nullopt;
    const double r = op == "floor" ? std::floor(a.to_double()) : std::ceil(a.to_double());
    if (!double_in_int_range(r)) return std::nullopt;
    return one(IValue(static_cast<int64_t>(r)));
  }
  if (op == "len" && a.kind() == K::String) return one(IValue(static_cast<int64_t>(a.to_string().size())));
  if (op == "device" && a.kind() == K::String) {
    if (auto d = Device::parse(a.to_string())) return one(IValue(*d));
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace jitctl
