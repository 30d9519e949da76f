// Elementwise ops on the device: arithmetic, comparisons, logical ops, where/masked_fill/clamp,
// the activations, fill and eval-mode dropout. The host logic (promotion, broadcasting, in-place
// checks, PyTorch's error messages) follows kernels/cpu/elementwise.cpp with the CPU side's
// helpers; the device kernels (elementwise.cu) read every operand in place, converting from its
// dtype, so broadcast and strided inputs and Scalars need no copies.
//
// Compute dtypes: float32 and float64 run as themselves; integer and bool compute dtypes run in
// int64, whose results stored back into the narrower output are the same (two's complement
// wrap-around for +, -, *, and 0/1 for bool). Transcendental functions run for float32 only;
// anything else throws NotOnDevice (the CPU kernel then runs it).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/device_dtype.h"
#include "kernels/cuda/copy_launch.h"
#include "kernels/cuda/elementwise_launch.h"
#include "kernels/cuda/register_cuda.h"
#include "kernels/cuda_backend.h"
#include "kernels/registry.h"

namespace jitctl::cuda {

static_assert(static_cast<int>(DType::UInt8) == kDevUInt8 && static_cast<int>(DType::Int8) == kDevInt8 &&
                  static_cast<int>(DType::Int16) == kDevInt16 && static_cast<int>(DType::Int32) == kDevInt32 &&
                  static_cast<int>(DType::Int64) == kDevInt64 && static_cast<int>(DType::Float32) == kDevFloat32 &&
                  static_cast<int>(DType::Float64) == kDevFloat64 && static_cast<int>(DType::Bool) == kDevBool,
              "DeviceDType codes must be jitctl::DType's values");

namespace {

using K = IValue::Kind;
using cpu::check_out;
using cpu::is_dense;

bool in_device_memory(const Tensor& t) { return t.storage() && t.storage()->in_device_memory(); }
const Tensor& targ(const Stack& s, size_t i) { return s[i].to_tensor(); }
DType rtype(const IValue& a, const IValue& b) { return cpu::result_type({&a, &b}); }
DType float_rtype(DType d) { return is_floating(d) ? d : DType::Float32; }

// An in-place target: written where it is, so it must already be in device memory.
void require_device_self(const Tensor& self, const char* op) {
  if (!in_device_memory(self)) throw NotOnDevice(fmt::format("{}: in-place on a host tensor", op));
  require_dtype(self.dtype(), op);
}

// The result's layout as the CPU kernels give it: a dense non-contiguous input of the full shape
// (channels-last) passes its strides on, so a channels-last network stays channels-last.
Tensor new_output(DType dt, const std::vector<int64_t>& shape, const std::vector<const IValue*>& inputs) {
  for (const IValue* v : inputs) {
    if (!v->is_tensor()) continue;
    const Tensor& t = v->to_tensor();
    if (t.sizes() != shape) continue;
    if (!t.is_contiguous() && is_dense(t)) return empty_strided(dt, shape, t.strides());
    break;
  }
  return empty(dt, shape);
}

std::vector<int64_t> sizes_of(const IValue& v) { return v.is_tensor() ? v.to_tensor().sizes() : std::vector<int64_t>{}; }

// A contiguous device copy of the device tensor `t`.
Tensor device_clone(const Tensor& t) {
  Tensor out = empty(t.dtype(), t.sizes());
  launch_strided_copy(address(t), address(out), t.numel(), element_size(t.dtype()), t.sizes(), t.strides(), stream());
  check_launch("clone");
  return out;
}

// The operands of one launch: device copies of host inputs are held until the launch is queued.
struct Launch {
  DeviceShape shape;
  DeviceOut out;
  DeviceOperand in[3];
  std::vector<Tensor> keep;
};

// `out` is the result (any strides); `inputs` are tensors (broadcast to out's shape) or Scalars.
// `compute` decides how a Scalar is held (a bool compute dtype takes any nonzero Scalar as true).
Launch plan(const Tensor& out, const std::vector<const IValue*>& inputs, DType compute, const char* op) {
  Launch L;
  require_dtype(out.dtype(), op);
  std::vector<int64_t> sizes = out.sizes();
  std::vector<std::vector<int64_t>> strides{out.strides()};
  std::vector<Tensor> dev(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    const IValue& v = *inputs[k];
    if (!v.is_tensor()) {
      strides.emplace_back(sizes.size(), 0);
      continue;
    }
    const Tensor& t = v.to_tensor();
    require_dtype(t.dtype(), op);
    Tensor d = on_device(t);
    // An input overlapping the output in another layout would be overwritten while it is read.
    if (d.storage() == out.storage() && (d.storage_offset() != out.storage_offset() || d.sizes() != out.sizes() || d.strides() != out.strides()))
      d = device_clone(d);
    strides.push_back(cpu::expand_to(d, sizes).strides());
    dev[k] = d;
  }
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  // Iterate in the output's memory order (outermost first): a channels-last output and operands
  // of its layout then coalesce into one run, as the CPU kernels' memory_order() arranges.
  if (!out.is_contiguous()) {
    std::vector<size_t> perm(sizes.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
    std::stable_sort(perm.begin(), perm.end(), [&](size_t x, size_t y) { return strides[0][x] > strides[0][y]; });
    std::vector<int64_t> ps;
    for (size_t i : perm) ps.push_back(sizes[i]);
    sizes = ps;
    for (auto& st : strides) {
      std::vector<int64_t> pst;
      for (size_t i : perm) pst.push_back(st[i]);
      st = pst;
    }
  }
  coalesce_dims(sizes, strides);
  if (sizes.size() > static_cast<size_t>(kMaxDims)) throw NotOnDevice(fmt::format("{}: more than {} dims", op, kMaxDims));
  L.shape.ndim = static_cast<int>(sizes.size());
  L.shape.numel = numel;
  for (size_t d = 0; d < sizes.size(); ++d) L.shape.sizes[d] = sizes[d];
  L.out.ptr = numel ? address(out) : nullptr;
  L.out.dtype = code(out.dtype());
  for (size_t d = 0; d < sizes.size(); ++d) L.out.strides[d] = strides[0][d];
  for (size_t k = 0; k < inputs.size(); ++k) {
    DeviceOperand& o = L.in[k];
    for (size_t d = 0; d < sizes.size(); ++d) o.strides[d] = strides[k + 1][d];
    const IValue& v = *inputs[k];
    if (v.is_tensor()) {
      o.ptr = numel ? address(dev[k]) : nullptr;
      o.dtype = code(dev[k].dtype());
      L.keep.push_back(dev[k]);
    } else if (v.is(K::Bool)) {
      o.ival = v.to_bool() ? 1 : 0;
      o.dval = static_cast<double>(o.ival);
    } else if (v.is(K::Int)) {
      o.ival = v.to_int();
      o.dval = static_cast<double>(o.ival);
    } else if (v.is(K::Double)) {
      o.dval = v.to_double();
      o.ival = compute == DType::Bool ? (o.dval != 0 ? 1 : 0) : static_cast<int64_t>(o.dval);
    } else {
      throw NotOnDevice(fmt::format("{}: a {} operand is not supported on the device", op, v.is(K::Complex) ? "complex" : "non-numeric"));
    }
  }
  // A missing operand reads as a zero Scalar (never loaded: the kernels take what they use).
  return L;
}

// ---- the three shapes of launch --------------------------------------------------------------

Tensor run_binary(BinaryOp bop, const IValue& a, const IValue& b, DType compute, DType result, const char* op, Tensor* into,
                  double alpha = 1.0, int64_t ialpha = 1) {
  const int kt = kernel_type(compute, op);
  const auto shape = cpu::broadcast_shapes(sizes_of(a), sizes_of(b));
  Tensor out;
  if (into) {
    check_out(*into, result, shape);
    require_device_self(*into, op);
    out = *into;
  } else {
    require_dtype(result, op);
    out = new_output(result, shape, {&a, &b});
  }
  Launch L = plan(out, {&a, &b}, compute, op);
  if (!launch_binary(bop, kt, L.shape, L.out, L.in[0], L.in[1], alpha, ialpha, stream()))
    throw NotOnDevice(fmt::format("{}: no device kernel for dtype {}", op, dtype_name(compute)));
  check_launch(op);
  return out;
}

Tensor run_unary(UnaryOp uop, const Tensor& x, DType compute, DType result, const UnaryParams& p, const char* op, Tensor* into) {
  const int kt = kernel_type(compute, op);
  const IValue xv(x);
  Tensor out;
  if (into) {
    check_out(*into, result, x.sizes());
    require_device_self(*into, op);
    out = *into;
  } else {
    require_dtype(result, op);
    out = new_output(result, x.sizes(), {&xv});
  }
  Launch L = plan(out, {&xv}, compute, op);
  if (!launch_unary(uop, kt, L.shape, L.out, L.in[0], p, stream()))
    throw NotOnDevice(fmt::format("{}: no device kernel for dtype {}", op, dtype_name(compute)));
  check_launch(op);
  return out;
}

// An op computed in floating point (integer inputs compute and return float32); float32 only.
Tensor float_unary(UnaryOp uop, const Tensor& x, const char* op, Tensor* into, UnaryParams p = {}) {
  const DType dt = float_rtype(x.dtype());
  if (dt != DType::Float32) throw NotOnDevice(fmt::format("{}: dtype {} is not supported on the device", op, dtype_name(dt)));
  return run_unary(uop, x, dt, dt, p, op, into);
}

Tensor same_unary(UnaryOp uop, const Tensor& x, const char* op, Tensor* into, UnaryParams p = {}) {
  return run_unary(uop, x, x.dtype(), x.dtype(), p, op, into);
}

void require_float(const Tensor& x, const char* kernel) {
  if (!is_floating(x.dtype()))
    throw InvalidInput(fmt::format("\"{}\" not implemented for '{}'", kernel, scalar_type_name(x.dtype())));
}

// ---- arithmetic ------------------------------------------------------------------------------

Tensor add_impl(const IValue& a, const IValue& b, const IValue& alpha, bool negate, const char* op, Tensor* into) {
  const DType dt = rtype(a, b);
  cpu::check_add_args(alpha, dt, negate);
  const double al = cpu::scalar_double(alpha) * (negate ? -1.0 : 1.0);
  const int64_t ial = alpha.is(K::Int) ? alpha.to_int() * (negate ? -1 : 1) : static_cast<int64_t>(al);
  return run_binary(BinaryOp::Add, a, b, dt, dt, op, into, al, ial);
}

Tensor mul_impl(const IValue& a, const IValue& b, Tensor* into) {
  const DType dt = rtype(a, b);
  return run_binary(BinaryOp::Mul, a, b, dt, dt, "mul", into);
}

Tensor div_impl(const IValue& a, const IValue& b, const IValue& mode, Tensor* into) {
  const DType dt = rtype(a, b);
  if (mode.is_none()) {
    const DType ft = is_complex(dt) ? dt : float_rtype(dt);
    return run_binary(BinaryOp::Div, a, b, ft, ft, "div", into);
  }
  const std::string& m = mode.to_string();
  if (m != "trunc" && m != "floor")
    throw InvalidInput(fmt::format("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'", m));
  // Integer division by zero is an error the device cannot report: integers stay on the CPU.
  if (!is_floating(dt)) throw NotOnDevice(fmt::format("div: rounding_mode '{}' on dtype {}", m, dtype_name(dt)));
  return run_binary(m == "trunc" ? BinaryOp::DivTrunc : BinaryOp::DivFloor, a, b, dt, dt, "div", into);
}

Tensor remainder_impl(const IValue& a, const IValue& b, Tensor* into) {
  const DType dt = rtype(a, b);
  if (!is_floating(dt)) throw NotOnDevice(fmt::format("remainder: dtype {}", dtype_name(dt)));
  return run_binary(BinaryOp::Remainder, a, b, dt, dt, "remainder", into);
}

Tensor pow_impl(const IValue& a, const IValue& b, Tensor* into) {
  const DType dt = rtype(a, b);
  // x ** 2 is x * x for every dtype (the CPU's integer power multiplies the same way).
  if (!b.is_tensor() && cpu::scalar_double(b) == 2.0) return run_unary(UnaryOp::Square, a.to_tensor(), dt, dt, {}, "pow", into);
  if (!is_floating(dt)) throw NotOnDevice(fmt::format("pow: dtype {}", dtype_name(dt)));
  if (!b.is_tensor()) {
    // The CPU kernel's exact special cases.
    const double e = cpu::scalar_double(b);
    if (e == 1.0) return run_unary(UnaryOp::Identity, a.to_tensor(), dt, dt, {}, "pow", into);
    if (e == 0.5 && dt == DType::Float32) return run_unary(UnaryOp::Sqrt, a.to_tensor(), dt, dt, {}, "pow", into);
  }
  return run_binary(BinaryOp::Pow, a, b, dt, dt, "pow", into);
}

Tensor maximum_impl(const IValue& a, const IValue& b) {
  const DType dt = rtype(a, b);
  return run_binary(BinaryOp::Maximum, a, b, dt, dt, "maximum", nullptr);
}
Tensor minimum_impl(const IValue& a, const IValue& b) {
  const DType dt = rtype(a, b);
  return run_binary(BinaryOp::Minimum, a, b, dt, dt, "minimum", nullptr);
}

Tensor compare(BinaryOp bop, const IValue& a, const IValue& b, Tensor* into) {
  return run_binary(bop, a, b, rtype(a, b), DType::Bool, "compare", into);
}

// dst (device, any strides) = src broadcast and converted.
void copy_into_device(const Tensor& src_in, Tensor& dst, const char* op) {
  require_dtype(src_in.dtype(), op);
  require_dtype(dst.dtype(), op);
  Tensor src = on_device(src_in);
  if (src.storage() == dst.storage()) src = device_clone(src);
  const Tensor e = cpu::expand_to(src, dst.sizes());
  if (dst.numel() == 0) return;
  try {
    launch_convert_copy(address(e), code(e.dtype()), e.strides(), address(dst), code(dst.dtype()), dst.strides(), dst.sizes(), stream());
  } catch (const std::invalid_argument& ex) {
    throw NotOnDevice(fmt::format("{}: {}", op, ex.what()));
  }
  check_launch(op);
}

Tensor clamp_impl(const Tensor& x, const IValue& lo, const IValue& hi, Tensor* into) {
  if (lo.is_none() && hi.is_none()) throw InvalidInput("torch.clamp: At least one of 'min' or 'max' must not be None");
  if (lo.is_tensor() || hi.is_tensor()) {
    if (into) require_device_self(*into, "clamp");
    Tensor r = x;
    if (!lo.is_none()) r = maximum_impl(IValue(r), lo);
    if (!hi.is_none()) r = minimum_impl(IValue(r), hi);
    if (into) {
      check_out(*into, r.dtype(), r.sizes());
      copy_into_device(r, *into, "clamp");
      return *into;
    }
    return r;
  }
  const DType dt = cpu::clamp_result_type(x, lo, hi);
  UnaryParams p;
  if (!lo.is_none()) p.a = cpu::scalar_double(lo), p.flags |= 1;
  if (!hi.is_none()) p.b = cpu::scalar_double(hi), p.flags |= 2;
  return run_unary(UnaryOp::Clamp, x, dt, dt, p, "clamp", into);
}

// ---- selection -------------------------------------------------------------------------------

Tensor where_impl(const Tensor& cond, const IValue& a, const IValue& b) {
  if (cond.dtype() != DType::Bool && cond.dtype() != DType::UInt8)
    throw InvalidInput(fmt::format("where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                                   scalar_type_name(cond.dtype())));
  const DType dt = rtype(a, b);
  const int kt = kernel_type(dt, "where");
  const auto shape = cpu::broadcast_shapes(cpu::broadcast_shapes(cond.sizes(), sizes_of(a)), sizes_of(b));
  require_dtype(dt, "where");
  Tensor out = empty(dt, shape);
  const IValue cv(cond);
  Launch L = plan(out, {&cv, &a, &b}, dt, "where");
  if (!launch_where(kt, L.shape, L.out, L.in[0], L.in[1], L.in[2], stream())) throw NotOnDevice("where: no device kernel");
  check_launch("where");
  return out;
}

Tensor masked_fill_impl(const Tensor& self, const Tensor& mask, const IValue& value, bool inplace) {
  if (value.is_tensor() && value.to_tensor().dim() != 0)
    throw InvalidInput(fmt::format("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                                   value.to_tensor().dim()));
  const auto shape = cpu::broadcast_shapes(self.sizes(), mask.sizes());
  const int kt = kernel_type(self.dtype(), "masked_fill");
  Tensor out;
  if (inplace) {
    if (shape != self.sizes())
      throw InvalidInput(fmt::format("output with shape {} doesn't match the broadcast shape {}", shape_string(self.sizes()),
                                     shape_string(shape)));
    require_device_self(self, "masked_fill_");
    out = self;
  } else {
    require_dtype(self.dtype(), "masked_fill");
    out = empty(self.dtype(), shape);
  }
  const IValue mv(mask), sv(self);
  Launch L = plan(out, {&mv, &value, &sv}, self.dtype(), "masked_fill");
  if (!launch_where(kt, L.shape, L.out, L.in[0], L.in[1], L.in[2], stream())) throw NotOnDevice("masked_fill: no device kernel");
  check_launch("masked_fill");
  return out;
}

// fill_ with a Scalar or a 0-dim tensor: floating and bool targets compute in double (a fill of
// 0.5 makes a bool true, as static_cast<bool> does), integer targets in int64.
Tensor fill_impl(const Tensor& self_in, const IValue& value) {
  Tensor self = self_in;
  if (value.is_tensor() && value.to_tensor().dim() != 0)
    throw InvalidInput(fmt::format("fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.", value.to_tensor().dim()));
  require_device_self(self, "fill_");
  const DType compute = is_floating(self.dtype()) || self.dtype() == DType::Bool ? DType::Float64 : DType::Int64;
  Launch L = plan(self, {&value}, self.dtype(), "fill_");
  if (!launch_unary(UnaryOp::Identity, code(compute), L.shape, L.out, L.in[0], {}, stream())) throw NotOnDevice("fill_: no device kernel");
  check_launch("fill_");
  return self;
}

// ---- activations -----------------------------------------------------------------------------

Tensor relu_fn(const Tensor& x, Tensor* into) {
  if (x.dtype() == DType::Bool) throw InvalidInput("\"clamp_min_cpu\" not implemented for 'Bool'");
  return same_unary(UnaryOp::Relu, x, "relu", into);
}

Tensor hardtanh_fn(const Tensor& x, double lo, double hi, Tensor* into) {
  if (x.dtype() == DType::Bool) throw InvalidInput("\"hardtanh\" not implemented for 'Bool'");
  UnaryParams p;
  p.a = lo;
  p.b = hi;
  return same_unary(UnaryOp::Hardtanh, x, "hardtanh", into, p);
}

Tensor abs_fn(const Tensor& x, Tensor* into) { return same_unary(UnaryOp::Abs, x, "abs", into); }

Tensor neg_fn(const Tensor& x, Tensor* into) {
  if (x.dtype() == DType::Bool)
    throw InvalidInput("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
                       "the `~` or `logical_not()` operator instead.");
  return same_unary(UnaryOp::Neg, x, "neg", into);
}

Tensor leaky_relu_fn(const Tensor& x, double slope, Tensor* into) {
  require_float(x, "leaky_relu_cpu");
  UnaryParams p;
  p.a = slope;
  return float_unary(UnaryOp::LeakyRelu, x, "leaky_relu", into, p);
}

Tensor elu_fn(const Tensor& x, double alpha, double scale, double input_scale, Tensor* into) {
  require_float(x, "elu_cpu");
  UnaryParams p;
  p.a = alpha;
  p.b = scale;
  p.c = input_scale;
  return float_unary(UnaryOp::Elu, x, "elu", into, p);
}

Tensor gelu_fn(const Tensor& x, const std::string& approximate, Tensor* into) {
  require_float(x, "GeluKernelImpl");
  if (approximate == "tanh") return float_unary(UnaryOp::GeluTanh, x, "gelu", into);
  if (approximate != "none") throw InvalidInput("approximate argument must be either none or tanh.");
  return float_unary(UnaryOp::GeluErf, x, "gelu", into);
}

Tensor softplus_fn(const Tensor& x, double beta, double threshold) {
  require_float(x, "softplus_cpu");
  UnaryParams p;
  p.a = beta;
  p.b = threshold;
  return float_unary(UnaryOp::Softplus, x, "softplus", nullptr, p);
}

// floor/ceil/round/trunc keep integer tensors as they are.
Tensor rounding_fn(const Tensor& x, UnaryOp op) {
  if (!is_floating(x.dtype())) return same_unary(UnaryOp::Identity, x, "round", nullptr);
  if (x.dtype() != DType::Float32) throw NotOnDevice("round: float64 is not supported on the device");
  return same_unary(op, x, "round", nullptr);
}

// Eval-mode dropout is the identity (the CPU kernel's rule); training-mode masks stay on the CPU.
template <bool inplace>
void dropout_kernel(Stack& s) {
  const Tensor& self = targ(s, 0);
  const double p = s[1].to_double();
  const bool train = s[2].to_bool();
  if (p < 0 || p > 1) throw InvalidInput(fmt::format("dropout probability has to be between 0 and 1, but got {}", p));
  if (p != 0 && train && self.numel() != 0) throw NotOnDevice("dropout in training mode is not run on the device");
  if (inplace && !in_device_memory(self)) throw NotOnDevice("dropout_: in-place on a host tensor");
  Tensor out = in_device_memory(self) ? self : on_device(self);
  cpu::set_output(s, IValue(std::move(out)));
}

// ---- registration ----------------------------------------------------------------------------

#define REG_FLOAT_UNARY(NAME, OP)                                                                         \
  register_kernel("aten::" NAME, [](Stack& s) { cpu::set_output(s, float_unary(OP, targ(s, 0), NAME, nullptr)); }, Backend::CUDA); \
  register_kernel("aten::" NAME "_", [](Stack& s) {                                                       \
    Tensor self = targ(s, 0);                                                                             \
    cpu::set_output(s, float_unary(OP, self, NAME "_", &self));                                           \
  }, Backend::CUDA)

#define REG_UNARY(NAME, FN)                                                                           \
  register_kernel("aten::" NAME, [](Stack& s) { cpu::set_output(s, FN(targ(s, 0), nullptr)); }, Backend::CUDA); \
  register_kernel("aten::" NAME "_", [](Stack& s) {                                                   \
    Tensor self = targ(s, 0);                                                                         \
    cpu::set_output(s, FN(self, &self));                                                              \
  }, Backend::CUDA)

void register_unary() {
  REG_UNARY("abs", abs_fn);
  REG_UNARY("neg", neg_fn);
  REG_UNARY("relu", relu_fn);
  REG_FLOAT_UNARY("sqrt", UnaryOp::Sqrt);
  REG_FLOAT_UNARY("rsqrt", UnaryOp::Rsqrt);
  REG_FLOAT_UNARY("exp", UnaryOp::Exp);
  REG_FLOAT_UNARY("expm1", UnaryOp::Expm1);
  REG_FLOAT_UNARY("log", UnaryOp::Log);
  REG_FLOAT_UNARY("log2", UnaryOp::Log2);
  REG_FLOAT_UNARY("log10", UnaryOp::Log10);
  REG_FLOAT_UNARY("log1p", UnaryOp::Log1p);
  REG_FLOAT_UNARY("sin", UnaryOp::Sin);
  REG_FLOAT_UNARY("cos", UnaryOp::Cos);
  REG_FLOAT_UNARY("tan", UnaryOp::Tan);
  REG_FLOAT_UNARY("erf", UnaryOp::Erf);
  REG_FLOAT_UNARY("reciprocal", UnaryOp::Reciprocal);
  REG_FLOAT_UNARY("tanh", UnaryOp::Tanh);
  REG_FLOAT_UNARY("sigmoid", UnaryOp::Sigmoid);
  REG_FLOAT_UNARY("silu", UnaryOp::Silu);
  REG_FLOAT_UNARY("mish", UnaryOp::Mish);
  REG_FLOAT_UNARY("hardswish", UnaryOp::Hardswish);
  REG_FLOAT_UNARY("hardsigmoid", UnaryOp::Hardsigmoid);
  const Backend cu = Backend::CUDA;
  register_kernel("aten::floor", [](Stack& s) { cpu::set_output(s, rounding_fn(targ(s, 0), UnaryOp::Floor)); }, cu);
  register_kernel("aten::ceil", [](Stack& s) { cpu::set_output(s, rounding_fn(targ(s, 0), UnaryOp::Ceil)); }, cu);
  register_kernel("aten::round", [](Stack& s) { cpu::set_output(s, rounding_fn(targ(s, 0), UnaryOp::Round)); }, cu);
  register_kernel("aten::trunc", [](Stack& s) { cpu::set_output(s, rounding_fn(targ(s, 0), UnaryOp::Trunc)); }, cu);
  register_kernel("aten::sign", [](Stack& s) { cpu::set_output(s, same_unary(UnaryOp::Sign, targ(s, 0), "sign", nullptr)); }, cu);
  register_kernel("aten::logical_not", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    cpu::set_output(s, run_unary(UnaryOp::LogicalNot, x, x.dtype(), DType::Bool, {}, "logical_not", nullptr));
  }, cu);
  register_kernel("aten::relu6", [](Stack& s) { cpu::set_output(s, hardtanh_fn(targ(s, 0), 0, 6, nullptr)); }, cu);
  register_kernel("aten::relu6_", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, hardtanh_fn(self, 0, 6, &self));
  }, cu);
  register_kernel("aten::hardtanh", [](Stack& s) {
    cpu::set_output(s, hardtanh_fn(targ(s, 0), cpu::scalar_double(s[1]), cpu::scalar_double(s[2]), nullptr));
  }, cu);
  register_kernel("aten::hardtanh_", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, hardtanh_fn(self, cpu::scalar_double(s[1]), cpu::scalar_double(s[2]), &self));
  }, cu);
  register_kernel("aten::leaky_relu", [](Stack& s) { cpu::set_output(s, leaky_relu_fn(targ(s, 0), cpu::scalar_double(s[1]), nullptr)); }, cu);
  register_kernel("aten::leaky_relu_", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, leaky_relu_fn(self, cpu::scalar_double(s[1]), &self));
  }, cu);
  register_kernel("aten::elu", [](Stack& s) {
    cpu::set_output(s, elu_fn(targ(s, 0), cpu::scalar_double(s[1]), cpu::scalar_double(s[2]), cpu::scalar_double(s[3]), nullptr));
  }, cu);
  register_kernel("aten::elu_", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, elu_fn(self, cpu::scalar_double(s[1]), cpu::scalar_double(s[2]), cpu::scalar_double(s[3]), &self));
  }, cu);
  register_kernel("aten::gelu", [](Stack& s) { cpu::set_output(s, gelu_fn(targ(s, 0), s[1].to_string(), nullptr)); }, cu);
  register_kernel("aten::gelu_", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, gelu_fn(self, s[1].to_string(), &self));
  }, cu);
  register_kernel("aten::softplus", [](Stack& s) {
    cpu::set_output(s, softplus_fn(targ(s, 0), cpu::scalar_double(s[1]), cpu::scalar_double(s[2])));
  }, cu);
  register_kernel("aten::square", [](Stack& s) { cpu::set_output(s, pow_impl(s[0], IValue(int64_t{2}), nullptr)); }, cu);
}
#undef REG_UNARY
#undef REG_FLOAT_UNARY

// "X.Tensor"/"X.Scalar" and the in-place "X_.Tensor"/"X_.Scalar" share one body.
#define REG_BINARY(NAME, BODY)                                                                                   \
  register_kernel("aten::" NAME ".Tensor", [](Stack& s) { Tensor* into = nullptr; cpu::set_output(s, BODY); }, Backend::CUDA); \
  register_kernel("aten::" NAME ".Scalar", [](Stack& s) { Tensor* into = nullptr; cpu::set_output(s, BODY); }, Backend::CUDA); \
  register_kernel("aten::" NAME "_.Tensor", [](Stack& s) {                                                       \
    Tensor self = targ(s, 0);                                                                                    \
    Tensor* into = &self;                                                                                        \
    cpu::set_output(s, BODY);                                                                                    \
  }, Backend::CUDA);                                                                                             \
  register_kernel("aten::" NAME "_.Scalar", [](Stack& s) {                                                       \
    Tensor self = targ(s, 0);                                                                                    \
    Tensor* into = &self;                                                                                        \
    cpu::set_output(s, BODY);                                                                                    \
  }, Backend::CUDA)

template <BinaryOp Op>
void register_compare(const char* name) {
  const std::string n = std::string("aten::") + name;
  register_kernel(n + ".Tensor", [](Stack& s) { cpu::set_output(s, compare(Op, s[0], s[1], nullptr)); }, Backend::CUDA);
  register_kernel(n + ".Scalar", [](Stack& s) { cpu::set_output(s, compare(Op, s[0], s[1], nullptr)); }, Backend::CUDA);
  register_kernel(n + "_.Tensor", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, compare(Op, s[0], s[1], &self));
  }, Backend::CUDA);
  register_kernel(n + "_.Scalar", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, compare(Op, s[0], s[1], &self));
  }, Backend::CUDA);
}

template <BinaryOp Op>
void logical_kernel(Stack& s) {
  cpu::set_output(s, run_binary(Op, s[0], s[1], rtype(s[0], s[1]), DType::Bool, "logical", nullptr));
}

void register_binary() {
  const Backend cu = Backend::CUDA;
  REG_BINARY("add", add_impl(s[0], s[1], s[2], false, "add", into));
  REG_BINARY("sub", add_impl(s[0], s[1], s[2], true, "sub", into));
  REG_BINARY("mul", mul_impl(s[0], s[1], into));
  REG_BINARY("div", div_impl(s[0], s[1], IValue(), into));
  REG_BINARY("remainder", remainder_impl(s[0], s[1], into));
  register_kernel("aten::rsub.Tensor", [](Stack& s) { cpu::set_output(s, add_impl(s[1], s[0], s[2], true, "rsub", nullptr)); }, cu);
  register_kernel("aten::rsub.Scalar", [](Stack& s) { cpu::set_output(s, add_impl(s[1], s[0], s[2], true, "rsub", nullptr)); }, cu);
  register_kernel("aten::div.Tensor_mode", [](Stack& s) { cpu::set_output(s, div_impl(s[0], s[1], s[2], nullptr)); }, cu);
  register_kernel("aten::div.Scalar_mode", [](Stack& s) { cpu::set_output(s, div_impl(s[0], s[1], s[2], nullptr)); }, cu);
  register_kernel("aten::div_.Tensor_mode", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, div_impl(s[0], s[1], s[2], &self));
  }, cu);
  register_kernel("aten::floor_divide", [](Stack& s) { cpu::set_output(s, div_impl(s[0], s[1], IValue("floor"), nullptr)); }, cu);
  register_kernel("aten::floor_divide.Scalar", [](Stack& s) { cpu::set_output(s, div_impl(s[0], s[1], IValue("floor"), nullptr)); }, cu);
  register_kernel("aten::remainder.Scalar_Tensor", [](Stack& s) { cpu::set_output(s, remainder_impl(s[0], s[1], nullptr)); }, cu);
  register_kernel("aten::pow.Tensor_Tensor", [](Stack& s) { cpu::set_output(s, pow_impl(s[0], s[1], nullptr)); }, cu);
  register_kernel("aten::pow.Tensor_Scalar", [](Stack& s) { cpu::set_output(s, pow_impl(s[0], s[1], nullptr)); }, cu);
  register_kernel("aten::pow.Scalar", [](Stack& s) { cpu::set_output(s, pow_impl(s[0], s[1], nullptr)); }, cu);
  register_kernel("aten::pow_.Scalar", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, pow_impl(s[0], s[1], &self));
  }, cu);
  register_kernel("aten::pow_.Tensor", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, pow_impl(s[0], s[1], &self));
  }, cu);
  register_kernel("aten::maximum", [](Stack& s) { cpu::set_output(s, maximum_impl(s[0], s[1])); }, cu);
  register_kernel("aten::minimum", [](Stack& s) { cpu::set_output(s, minimum_impl(s[0], s[1])); }, cu);
  register_kernel("aten::max.other", [](Stack& s) { cpu::set_output(s, maximum_impl(s[0], s[1])); }, cu);
  register_kernel("aten::min.other", [](Stack& s) { cpu::set_output(s, minimum_impl(s[0], s[1])); }, cu);

  register_compare<BinaryOp::Eq>("eq");
  register_compare<BinaryOp::Ne>("ne");
  register_compare<BinaryOp::Lt>("lt");
  register_compare<BinaryOp::Le>("le");
  register_compare<BinaryOp::Gt>("gt");
  register_compare<BinaryOp::Ge>("ge");

  register_kernel("aten::logical_and", logical_kernel<BinaryOp::LogicalAnd>, cu);
  register_kernel("aten::logical_or", logical_kernel<BinaryOp::LogicalOr>, cu);
  register_kernel("aten::logical_xor", logical_kernel<BinaryOp::LogicalXor>, cu);
}
#undef REG_BINARY

void register_selection() {
  const Backend cu = Backend::CUDA;
  for (const char* name : {"aten::where.self", "aten::where.ScalarOther", "aten::where.ScalarSelf", "aten::where.Scalar"})
    register_kernel(name, [](Stack& s) { cpu::set_output(s, where_impl(targ(s, 0), s[1], s[2])); }, cu);
  for (const char* name : {"aten::masked_fill.Scalar", "aten::masked_fill.Tensor"})
    register_kernel(name, [](Stack& s) { cpu::set_output(s, masked_fill_impl(targ(s, 0), targ(s, 1), s[2], false)); }, cu);
  for (const char* name : {"aten::masked_fill_.Scalar", "aten::masked_fill_.Tensor"})
    register_kernel(name, [](Stack& s) { cpu::set_output(s, masked_fill_impl(targ(s, 0), targ(s, 1), s[2], true)); }, cu);
  for (const char* name : {"aten::clamp", "aten::clamp.Tensor"})
    register_kernel(name, [](Stack& s) { cpu::set_output(s, clamp_impl(targ(s, 0), s[1], s[2], nullptr)); }, cu);
  for (const char* name : {"aten::clamp_", "aten::clamp_.Tensor"})
    register_kernel(name, [](Stack& s) {
      Tensor self = targ(s, 0);
      cpu::set_output(s, clamp_impl(self, s[1], s[2], &self));
    }, cu);
  for (const char* name : {"aten::clamp_min", "aten::clamp_min.Tensor"})
    register_kernel(name, [](Stack& s) { cpu::set_output(s, clamp_impl(targ(s, 0), s[1], IValue(), nullptr)); }, cu);
  for (const char* name : {"aten::clamp_max", "aten::clamp_max.Tensor"})
    register_kernel(name, [](Stack& s) { cpu::set_output(s, clamp_impl(targ(s, 0), IValue(), s[1], nullptr)); }, cu);
  register_kernel("aten::clamp_min_", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, clamp_impl(self, s[1], IValue(), &self));
  }, cu);
  register_kernel("aten::clamp_max_", [](Stack& s) {
    Tensor self = targ(s, 0);
    cpu::set_output(s, clamp_impl(self, IValue(), s[1], &self));
  }, cu);

  for (const char* name : {"aten::fill_.Scalar", "aten::fill_.Tensor", "aten::copy_.int", "aten::copy_.float"})
    register_kernel(name, [](Stack& s) { cpu::set_output(s, fill_impl(targ(s, 0), s[1])); }, cu);
  register_kernel("aten::zero_", [](Stack& s) { cpu::set_output(s, fill_impl(targ(s, 0), IValue(int64_t{0}))); }, cu);

  for (const char* name : {"aten::dropout", "aten::feature_dropout", "aten::alpha_dropout", "aten::feature_alpha_dropout"})
    register_kernel(name, dropout_kernel<false>, cu);
  for (const char* name : {"aten::dropout_", "aten::feature_dropout_", "aten::alpha_dropout_", "aten::feature_alpha_dropout_"})
    register_kernel(name, dropout_kernel<true>, cu);
}

}  // namespace

void register_elementwise_kernels() {
  register_unary();
  register_binary();
  register_selection();
}

}  // namespace jitctl::cuda
