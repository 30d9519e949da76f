// Tensor factories (zeros, ones, full, arange, empty, linspace, logspace, the *_like and new_* forms) and the
// conversions and copies: to, type_as, clone, contiguous copies, copy_, fill_, detach (dropout is in
// random.cpp).
#include <cmath>

#include <fmt/format.h>

#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/registry.h"

namespace jitctl {
namespace {

using namespace cpu;
using K = IValue::Kind;

const Tensor& targ(const Stack& s, size_t i) { return s[i].to_tensor(); }

// These kernels build CPU tensors; a CUDA target is refused by name rather than silently ignored.
void check_device(const IValue& device, const char* op) {
  if (device.is_none()) return;
  const Device d = device.is(K::String) ? Device::parse(device.to_string()).value_or(Device{}) : device.to_device();
  if (d.type != Device::Type::CPU)
    throw Unsupported(fmt::format("{}: tensors on device {} are not supported by the CPU kernels", op, d.str()));
}

Tensor filled(DType dt, const std::vector<int64_t>& shape, const IValue& value) {
  for (auto s : shape)
    if (s < 0) throw InvalidInput(fmt::format("Trying to create tensor with negative dimension {}: {}", s, shape_string(shape)));
  Tensor out = Tensor::empty(dt, shape);
  if (!value.is_none()) {
    const Tensor v = scalar_to_tensor(value, dt);
    copy_into(v, out);
  }
  return out;
}

// A fill value's dtype when none is given: torch.full infers it from the Scalar. TorchScript
// never passes a bool Scalar; the operator itself takes one as an int (int64), as here.
DType default_dtype_for(const IValue& v) {
  if (v.is(K::Bool) || v.is(K::Int)) return DType::Int64;
  return DType::Float32;
}

// args [dtype, layout, device, pin_memory] start at `i`.
DType factory_dtype(const Stack& s, size_t i, DType dflt, const char* op) {
  check_device(s[i + 2], op);
  return optional_scalar_type_arg(s[i]).value_or(dflt);
}

Tensor arange_impl(const IValue& start, const IValue& end, const IValue& step, const IValue& dtype) {
  const bool any_float = start.is(K::Double) || end.is(K::Double) || step.is(K::Double);
  const DType dt = optional_scalar_type_arg(dtype).value_or(any_float ? DType::Float32 : DType::Int64);
  const double b = scalar_double(start), e = scalar_double(end), st = scalar_double(step);
  if (st == 0) throw InvalidInput("step must be nonzero");
  if (!std::isfinite(b) || !std::isfinite(e)) throw InvalidInput(fmt::format("unsupported range: {} -> {}", b, e));
  if ((st > 0 && b > e) || (st < 0 && b < e)) throw InvalidInput("upper bound and larger bound inconsistent with step sign");
  int64_t n;
  if (!any_float && !is_floating(dt)) {
    const int64_t bi = start.to_int(), ei = end.to_int(), si = step.to_int();
    n = si > 0 ? (ei - bi + si - 1) / si : (bi - ei - si - 1) / -si;
  } else {
    n = static_cast<int64_t>(std::ceil((e - b) / st));
  }
  Tensor out = Tensor::empty(dt, {std::max<int64_t>(n, 0)});
  dispatch_dtype(dt, "arange", [&](auto tag) {
    using T = decltype(tag);
    T* p = mutable_data_of<T>(out);
    if (!any_float) {
      const int64_t bi = start.to_int(), si = step.to_int();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(bi + i * si);
    } else {
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(b + static_cast<double>(i) * st);
    }
  });
  return out;
}

// A start/end argument: a Scalar, or (2.x overloads) a 0-dim tensor.
double bound_arg(const IValue& v) { return v.is_tensor() ? element_as_double(v.to_tensor(), 0) : scalar_double(v); }

void check_bounds(const IValue& start, const IValue& end, const char* op) {
  const int64_t ds = start.is_tensor() ? start.to_tensor().dim() : 0, de = end.is_tensor() ? end.to_tensor().dim() : 0;
  if (ds != 0 || de != 0)
    throw InvalidInput(fmt::format("{} only supports 0-dimensional start and end tensors, but got start with {} dimension(s) and end with {} dimension(s).",
                                   op, ds, de));
}

Tensor linspace_impl(const IValue& start, const IValue& end, int64_t steps, const IValue& dtype) {
  if (steps < 0) throw InvalidInput("number of steps must be non-negative");
  const DType dt = optional_scalar_type_arg(dtype).value_or(DType::Float32);
  check_bounds(start, end, "linspace");
  const double b = bound_arg(start), e = bound_arg(end);
  Tensor out = Tensor::empty(dt, {steps});
  dispatch_dtype(dt, "linspace", [&](auto tag) {
    using T = decltype(tag);
    T* p = mutable_data_of<T>(out);
    const double step = steps > 1 ? (e - b) / static_cast<double>(steps - 1) : 0.0;
    // Symmetric from both ends, as ATen computes it.
    const int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i)
      p[i] = static_cast<T>(i < half ? b + step * static_cast<double>(i) : e - step * static_cast<double>(steps - 1 - i));
  });
  return out;
}

// base ** linspace(start, end, steps), symmetric from both ends as ATen computes it.
Tensor logspace_impl(const IValue& start, const IValue& end, int64_t steps, double base, const IValue& dtype) {
  if (steps < 0) throw InvalidInput("number of steps must be non-negative");
  const DType dt = optional_scalar_type_arg(dtype).value_or(DType::Float32);
  check_bounds(start, end, "logspace");
  const double b = bound_arg(start), e = bound_arg(end);
  Tensor out = Tensor::empty(dt, {steps});
  dispatch_dtype(dt, "logspace", [&](auto tag) {
    using T = decltype(tag);
    T* p = mutable_data_of<T>(out);
    // ATen: the exponent in the output's type (double for integer outputs), the power in double.
    using S = std::conditional_t<std::is_floating_point_v<T>, T, double>;
    const S bs = static_cast<S>(static_cast<T>(b)), es = static_cast<S>(static_cast<T>(e));
    const S step = steps > 1 ? (es - bs) / static_cast<S>(steps - 1) : S(0);
    const int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i) {
      const S x = i < half ? bs + step * static_cast<S>(i) : es - step * static_cast<S>(steps - 1 - i);
      p[i] = static_cast<T>(std::pow(base, static_cast<double>(x)));
    }
  });
  return out;
}

// aten::to: self itself when nothing changes and no copy is asked for.
Tensor to_impl(const Tensor& self, std::optional<DType> dtype, const IValue& device, bool copy) {
  check_device(device, "to");
  const DType dt = dtype.value_or(self.dtype());
  if (dt == self.dtype() && !copy) return self;
  Tensor out = Tensor::empty(dt, self.sizes());
  copy_into(self, out);
  return out;
}

Tensor clone_impl(const Tensor& self) {
  Tensor out = Tensor::empty(self.dtype(), self.sizes());
  copy_strided(self, out);
  return out;
}

Tensor copy_inplace(const Tensor& self_in, const Tensor& src) {
  Tensor self = self_in;
  const auto shape = broadcast_shapes(self.sizes(), src.sizes());
  if (shape != self.sizes())
    throw InvalidInput(fmt::format("output with shape {} doesn't match the broadcast shape {}", shape_string(self.sizes()),
                                   shape_string(shape)));
  // A source overlapping the destination (x.copy_(x.t())) is read completely before writing.
  const Tensor from = src.storage() == self.storage() ? clone_impl(src) : src;
  copy_into(from, self);
  return self;
}

Tensor fill_inplace(const Tensor& self_in, const IValue& value) {
  Tensor self = self_in;
  IValue v = value;
  if (value.is_tensor()) {
    const Tensor& t = value.to_tensor();
    if (t.dim() != 0)
      throw InvalidInput(fmt::format("fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.", t.dim()));
    Tensor tmp = Tensor::empty(self.dtype(), {});
    copy_into(t, tmp);
    copy_into(tmp, self);
    return self;
  }
  const Tensor sv = scalar_to_tensor(v, self.dtype());
  copy_into(sv, self);
  return self;
}

Tensor detach_impl(const Tensor& self) { return make_view(self, self.sizes(), self.strides(), self.storage_offset()); }

}  // namespace

void register_factory_kernels() {
  // range(start, end[, step]): like arange but the end included; float32 unless told.
  for (const char* name : {"aten::range", "aten::range.step"})
    register_kernel(name, [](Stack& s) {
      const bool has_step = s.size() == 7;
      const double b = scalar_double(s[0]), e = scalar_double(s[1]), st = has_step ? scalar_double(s[2]) : 1.0;
      const size_t d = has_step ? 3 : 2;
      check_device(s[d + 2], "range");
      if (st == 0) throw InvalidInput("step must be nonzero");
      if ((st > 0 && e < b) || (st < 0 && e > b)) throw InvalidInput("upper bound and larger bound inconsistent with step sign");
      const int64_t n = static_cast<int64_t>(std::floor((e - b) / st)) + 1;
      const DType dt = optional_scalar_type_arg(s[d]).value_or(DType::Float32);
      Tensor out = Tensor::empty(dt, {n});
      dispatch_dtype(dt, "range", [&](auto tag) {
        using T = decltype(tag);
        for (int64_t i = 0; i < n; ++i) mutable_data_of<T>(out)[i] = static_cast<T>(b + st * static_cast<double>(i));
      });
      set_output(s, std::move(out));
    });
  // tril_indices/triu_indices(row, col, offset): the 2 x N coordinates of the triangle, row-major.
  for (bool upper : {false, true})
    register_kernel(upper ? "aten::triu_indices" : "aten::tril_indices", upper ? KernelFn([](Stack& s) {
      const int64_t r = s[0].to_int(), c = s[1].to_int(), k = s[2].to_int();
      if (r < 0) throw InvalidInput(fmt::format("row must be non-negative, got{}", r));
      if (c < 0) throw InvalidInput(fmt::format("col must be non-negative, got{}", c));
      std::vector<int64_t> rows, cols;
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < c; ++j)
          if (j - i >= k) rows.push_back(i), cols.push_back(j);
      const DType dt = optional_scalar_type_arg(s[3]).value_or(DType::Int64);
      Tensor out = Tensor::empty(DType::Int64, {2, static_cast<int64_t>(rows.size())});
      std::copy(rows.begin(), rows.end(), mutable_data_of<int64_t>(out));
      std::copy(cols.begin(), cols.end(), mutable_data_of<int64_t>(out) + rows.size());
      set_output(s, to_dtype(out, dt));
    }) : KernelFn([](Stack& s) {
      const int64_t r = s[0].to_int(), c = s[1].to_int(), k = s[2].to_int();
      if (r < 0) throw InvalidInput(fmt::format("row must be non-negative, got{}", r));
      if (c < 0) throw InvalidInput(fmt::format("col must be non-negative, got{}", c));
      std::vector<int64_t> rows, cols;
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < c; ++j)
          if (j - i <= k) rows.push_back(i), cols.push_back(j);
      const DType dt = optional_scalar_type_arg(s[3]).value_or(DType::Int64);
      Tensor out = Tensor::empty(DType::Int64, {2, static_cast<int64_t>(rows.size())});
      std::copy(rows.begin(), rows.end(), mutable_data_of<int64_t>(out));
      std::copy(cols.begin(), cols.end(), mutable_data_of<int64_t>(out) + rows.size());
      set_output(s, to_dtype(out, dt));
    }));
  // as_tensor of a number or list: aten::tensor's kernel (requires_grad False); of a tensor: the
  // tensor itself, converted only when a dtype is asked for.
  for (const char* name : {"aten::as_tensor.float", "aten::as_tensor.int", "aten::as_tensor.bool", "aten::as_tensor.list"})
    register_kernel(name, [](Stack& s) {
      static const KernelFn by_kind[] = {find_kernel("aten::tensor.float"), find_kernel("aten::tensor.int"),
                                         find_kernel("aten::tensor.bool"), find_kernel("aten::tensor")};
      const IValue& d = s[0];
      const KernelFn fn = d.is(K::Double) ? by_kind[0] : d.is(K::Int) ? by_kind[1] : d.is(K::Bool) ? by_kind[2] : by_kind[3];
      if (!fn) throw Unsupported("as_tensor: no aten::tensor kernel");
      s.emplace_back(false);
      fn(s);
    });
  register_kernel("aten::as_tensor", [](Stack& s) {
    check_device(s[2], "as_tensor");
    const Tensor& t = targ(s, 0);
    const auto dt = optional_scalar_type_arg(s[1]);
    set_output(s, dt && *dt != t.dtype() ? to_impl(t, dt, IValue(), false) : t);
  });
  // eye(n[, m]): ones on the diagonal.
  register_kernel("aten::eye", [](Stack& s) {
    const int64_t n = s[0].to_int();
    if (n < 0) throw InvalidInput(fmt::format("n must be greater or equal to 0, got {}", n));
    Tensor out = filled(factory_dtype(s, 1, DType::Float32, "eye"), {n, n}, IValue(int64_t{0}));
    const Tensor one = scalar_to_tensor(IValue(int64_t{1}), out.dtype());
    for (int64_t i = 0; i < n; ++i) {
      Tensor e = make_view(out, {}, {}, out.storage_offset() + i * (n + 1));
      copy_into(one, e);
    }
    set_output(s, std::move(out));
  });
  register_kernel("aten::eye.m", [](Stack& s) {
    const int64_t n = s[0].to_int(), m = s[1].to_int();
    if (n < 0) throw InvalidInput(fmt::format("n must be greater or equal to 0, got {}", n));
    if (m < 0) throw InvalidInput(fmt::format("m must be greater or equal to 0, got {}", m));
    Tensor out = filled(factory_dtype(s, 2, DType::Float32, "eye"), {n, m}, IValue(int64_t{0}));
    const Tensor one = scalar_to_tensor(IValue(int64_t{1}), out.dtype());
    for (int64_t i = 0; i < std::min(n, m); ++i) {
      Tensor e = make_view(out, {}, {}, out.storage_offset() + i * (m + 1));
      copy_into(one, e);
    }
    set_output(s, std::move(out));
  });
  register_kernel("aten::zeros", [](Stack& s) {
    set_output(s, filled(factory_dtype(s, 1, DType::Float32, "zeros"), int_list(s[0]), IValue()));
  });
  register_kernel("aten::ones", [](Stack& s) {
    set_output(s, filled(factory_dtype(s, 1, DType::Float32, "ones"), int_list(s[0]), IValue(int64_t{1})));
  });
  register_kernel("aten::full", [](Stack& s) {
    set_output(s, filled(factory_dtype(s, 2, default_dtype_for(s[1]), "full"), int_list(s[0]), s[1]));
  });
  register_kernel("aten::empty.memory_format", [](Stack& s) {
    set_output(s, filled(factory_dtype(s, 1, DType::Float32, "empty"), int_list(s[0]), IValue()));
  });
  register_kernel("aten::scalar_tensor", [](Stack& s) {
    set_output(s, filled(factory_dtype(s, 1, DType::Float32, "scalar_tensor"), {}, s[0]));
  });
  register_kernel("aten::zeros_like", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, filled(factory_dtype(s, 1, x.dtype(), "zeros_like"), x.sizes(), IValue()));
  });
  register_kernel("aten::empty_like", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, filled(factory_dtype(s, 1, x.dtype(), "empty_like"), x.sizes(), IValue()));
  });
  register_kernel("aten::ones_like", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, filled(factory_dtype(s, 1, x.dtype(), "ones_like"), x.sizes(), IValue(int64_t{1})));
  });
  register_kernel("aten::full_like", [](Stack& s) {
    const Tensor& x = targ(s, 0);
    set_output(s, filled(factory_dtype(s, 2, x.dtype(), "full_like"), x.sizes(), s[1]));
  });
  register_kernel("aten::new_zeros", [](Stack& s) {
    set_output(s, filled(factory_dtype(s, 2, targ(s, 0).dtype(), "new_zeros"), int_list(s[1]), IValue()));
  });
  register_kernel("aten::new_empty", [](Stack& s) {
    set_output(s, filled(factory_dtype(s, 2, targ(s, 0).dtype(), "new_empty"), int_list(s[1]), IValue()));
  });
  register_kernel("aten::new_ones", [](Stack& s) {
    set_output(s, filled(factory_dtype(s, 2, targ(s, 0).dtype(), "new_ones"), int_list(s[1]), IValue(int64_t{1})));
  });
  register_kernel("aten::new_full", [](Stack& s) {
    set_output(s, filled(factory_dtype(s, 3, targ(s, 0).dtype(), "new_full"), int_list(s[1]), s[2]));
  });
  register_kernel("aten::arange", [](Stack& s) {
    check_device(s[3], "arange");
    set_output(s, arange_impl(IValue(int64_t{0}), s[0], IValue(int64_t{1}), s[1]));
  });
  register_kernel("aten::arange.start", [](Stack& s) {
    check_device(s[4], "arange");
    set_output(s, arange_impl(s[0], s[1], IValue(int64_t{1}), s[2]));
  });
  register_kernel("aten::arange.start_step", [](Stack& s) {
    check_device(s[5], "arange");
    set_output(s, arange_impl(s[0], s[1], s[2], s[3]));
  });
  for (const char* name : {"aten::linspace", "aten::linspace.Tensor_Tensor", "aten::linspace.Tensor_Scalar", "aten::linspace.Scalar_Tensor"})
    register_kernel(name, [](Stack& s) {
      check_device(s[5], "linspace");
      set_output(s, linspace_impl(s[0], s[1], s[2].to_int(), s[3]));
    });
  for (const char* name : {"aten::logspace", "aten::logspace.Tensor_Tensor", "aten::logspace.Tensor_Scalar", "aten::logspace.Scalar_Tensor"})
    register_kernel(name, [](Stack& s) {
      check_device(s[6], "logspace");
      set_output(s, logspace_impl(s[0], s[1], s[2].to_int(), s[3].to_double(), s[4]));
    });

  // to(dtype/device/other): (self, ..., non_blocking, copy, memory_format)
  register_kernel("aten::to.dtype", [](Stack& s) {
    set_output(s, to_impl(targ(s, 0), scalar_type_arg(s[1]), IValue(), s[3].to_bool()));
  });
  register_kernel("aten::to.device", [](Stack& s) {
    set_output(s, to_impl(targ(s, 0), scalar_type_arg(s[2]), s[1], s[4].to_bool()));
  });
  register_kernel("aten::to.other", [](Stack& s) {
    set_output(s, to_impl(targ(s, 0), targ(s, 1).dtype(), IValue(), s[3].to_bool()));
  });
  register_kernel("aten::to.dtype_layout", [](Stack& s) {
    set_output(s, to_impl(targ(s, 0), optional_scalar_type_arg(s[1]), s[3], s[6].to_bool()));
  });
  register_kernel("aten::to.prim_Device", [](Stack& s) {
    set_output(s, to_impl(targ(s, 0), optional_scalar_type_arg(s[2]), s[1], s[4].to_bool()));
  });
  register_kernel("aten::to.prim_dtype", [](Stack& s) {
    set_output(s, to_impl(targ(s, 0), optional_scalar_type_arg(s[1]), IValue(), s[3].to_bool()));
  });
  register_kernel("aten::to.prim_other", [](Stack& s) { set_output(s, to_impl(targ(s, 0), std::nullopt, IValue(), s[2].to_bool())); });
  register_kernel("aten::type_as", [](Stack& s) { set_output(s, to_impl(targ(s, 0), targ(s, 1).dtype(), IValue(), false)); });

  register_kernel("aten::clone", [](Stack& s) { set_output(s, clone_impl(targ(s, 0))); });
  for (const char* name : {"aten::detach", "aten::alias", "aten::lift"})
    register_kernel(name, [](Stack& s) { set_output(s, detach_impl(targ(s, 0))); });
  register_kernel("aten::copy_", [](Stack& s) { set_output(s, copy_inplace(targ(s, 0), targ(s, 1))); });
  register_kernel("aten::copy_.Tensor", [](Stack& s) { set_output(s, copy_inplace(targ(s, 0), targ(s, 1))); });
  for (const char* name : {"aten::copy_.int", "aten::copy_.float", "aten::fill_.Scalar", "aten::fill_.Tensor"})
    register_kernel(name, [](Stack& s) { set_output(s, fill_inplace(targ(s, 0), s[1])); });
  register_kernel("aten::zero_", [](Stack& s) { set_output(s, fill_inplace(targ(s, 0), IValue(int64_t{0}))); });
}

}  // namespace jitctl
