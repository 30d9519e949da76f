// Copies and conversions on the device: contiguous, clone, copy_, to (dtype conversions on the
// device), cat, stack, embedding, index_select, and the reshape/flatten that need a copy when the
// input's strides allow no view. Views are built by the CPU kernels themselves (they only make
// metadata); the argument checks and messages follow kernels/cpu/shape_ops.cpp, factory.cpp and
// embedding.cpp.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/shape_ops.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/copy_launch.h"
#include "kernels/cuda/device_dtype.h"
#include "kernels/cuda/register_cuda.h"
#include "kernels/cuda_backend.h"
#include "kernels/registry.h"

namespace jitctl::cuda {
namespace {

using K = IValue::Kind;

bool in_device_memory(const Tensor& t) { return t.storage() && t.storage()->in_device_memory(); }
const Tensor& targ(const Stack& s, size_t i) { return s[i].to_tensor(); }

std::vector<Tensor> tensors_of(const IValue& v) {
  std::vector<Tensor> out;
  for (const auto& x : v.to_list()->items) out.push_back(x.to_tensor());
  return out;
}

// Whether a copy between these dtypes runs on the device: any dtype as bytes, conversions among
// the DeviceDType ones.
void require_copyable(DType from, DType to, const char* op) {
  if (from == to) return;
  if (!device_dtype_supported(code(from)) || !device_dtype_supported(code(to)))
    throw NotOnDevice(fmt::format("{}: converting {} to {} is not supported on the device", op, dtype_name(from), dtype_name(to)));
}

// dst (in device memory, any strides) = src broadcast to dst's shape, converted to dst's dtype.
// Callers check require_copyable first; a source sharing dst's storage is copied out first.
void copy_to(const Tensor& src_in, const Tensor& dst, const char* op) {
  if (dst.numel() == 0) return;
  Tensor src = on_device(src_in);
  if (src.storage() == dst.storage()) {  // x.copy_(x.t()): read everything before writing
    Tensor c = empty(src.dtype(), src.sizes());
    launch_strided_copy(address(src), address(c), src.numel(), element_size(src.dtype()), src.sizes(), src.strides(), stream());
    src = c;
  }
  const Tensor e = cpu::expand_to(src, dst.sizes());
  try {
    if (e.dtype() == dst.dtype())
      launch_strided_copy_general(address(e), e.strides(), address(dst), dst.strides(), dst.sizes(), element_size(dst.dtype()), stream());
    else
      launch_convert_copy(address(e), code(e.dtype()), e.strides(), address(dst), code(dst.dtype()), dst.strides(), dst.sizes(), stream());
  } catch (const std::invalid_argument& ex) {
    throw NotOnDevice(fmt::format("{}: {}", op, ex.what()));
  }
  check_launch(op);
}

// More than kMaxDims dims that do not coalesce: refused before anything is written.
void require_dims(const Tensor& t, const char* op) {
  if (t.dim() > kMaxDims) throw NotOnDevice(fmt::format("{}: more than {} dims", op, kMaxDims));
}

// ---- contiguous, clone, copy_, to ------------------------------------------------------------

Tensor clone_impl(const Tensor& self) {
  require_dims(self, "clone");
  const Tensor d = on_device(self);
  Tensor out = empty(d.dtype(), d.sizes());
  if (out.numel() == 0) return out;
  launch_strided_copy(address(d), address(out), d.numel(), element_size(d.dtype()), d.sizes(), d.strides(), stream());
  check_launch("clone");
  return out;
}

Tensor copy_inplace(const Tensor& self, const Tensor& src) {
  const auto shape = cpu::broadcast_shapes(self.sizes(), src.sizes());
  if (shape != self.sizes())
    throw InvalidInput(fmt::format("output with shape {} doesn't match the broadcast shape {}", shape_string(self.sizes()),
                                   shape_string(shape)));
  if (!in_device_memory(self)) throw NotOnDevice("copy_: the destination is a host tensor");
  require_copyable(src.dtype(), self.dtype(), "copy_");
  require_dims(self, "copy_");
  copy_to(src, self, "copy_");
  return self;
}

// A Device argument: None, a Device or its string; only a CUDA target stays on the device.
void check_device(const IValue& device, const char* op) {
  if (device.is_none()) return;
  const Device d = device.is(K::String) ? Device::parse(device.to_string()).value_or(Device{}) : device.to_device();
  if (d.type != Device::Type::CUDA) throw NotOnDevice(fmt::format("{}: a {} target is not on the device", op, d.str()));
}

// aten::to: the (device) tensor itself when nothing changes and no copy is asked for.
Tensor to_impl(const Tensor& self, std::optional<DType> dtype, const IValue& device, bool copy) {
  check_device(device, "to");
  const DType dt = dtype.value_or(self.dtype());
  if (dt == self.dtype() && !copy) return on_device(self);
  require_copyable(self.dtype(), dt, "to");
  require_dims(self, "to");
  Tensor out = empty(dt, self.sizes());
  copy_to(self, out, "to");
  return out;
}

// ---- cat, stack ------------------------------------------------------------------------------

Tensor cat_impl(const std::vector<Tensor>& ts, int64_t dim) {
  const cpu::CatPlan p = cpu::plan_cat(ts, dim);
  if (p.parts.empty()) return empty(p.dtype, p.shape);
  for (const Tensor* t : p.parts) require_copyable(t->dtype(), p.dtype, "cat");
  require_dims(*p.parts[0], "cat");
  Tensor out = empty(p.dtype, p.shape);
  int64_t at = 0;
  for (const Tensor* t : p.parts) {
    const Tensor region = cpu::make_view(out, t->sizes(), out.strides(), at * out.strides()[p.dim]);
    copy_to(*t, region, "cat");
    at += t->sizes()[p.dim];
  }
  return out;
}

Tensor stack_impl(const std::vector<Tensor>& ts, int64_t dim) {
  const cpu::StackPlan p = cpu::plan_stack(ts, dim);
  return cat_impl(p.parts, p.dim);
}

// ---- gathers ---------------------------------------------------------------------------------

// Rows of a 2-D weight. An index outside the table gives a zero row: the CPU kernel's "index out
// of range in self" would need the indices on the host.
Tensor embedding_impl(const Tensor& weight_arg, const Tensor& indices_arg) {
  if (weight_arg.dim() != 2) throw InvalidInput("'weight' must be 2-D");
  if (indices_arg.dtype() != DType::Int64 && indices_arg.dtype() != DType::Int32)
    throw InvalidInput(std::string("Expected tensor for argument #1 'indices' to have one of the following scalar "
                                   "types: Long, Int; but got ") +
                       std::string(scalar_type_name(indices_arg.dtype())) + " instead (while checking arguments for embedding)");
  const size_t elsize = element_size(weight_arg.dtype());
  if (elsize != 1 && elsize != 2 && elsize != 4 && elsize != 8 && elsize != 16)
    throw NotOnDevice(fmt::format("embedding: dtype {}", dtype_name(weight_arg.dtype())));
  std::vector<int64_t> shape = indices_arg.sizes();
  shape.push_back(weight_arg.sizes()[1]);
  Tensor out = empty(weight_arg.dtype(), shape);
  if (out.numel() == 0) return out;
  const Tensor weight = contiguous(weight_arg);
  const Tensor indices = contiguous(indices_arg);
  launch_index_select(address(weight), address(out), address(indices), indices.dtype() == DType::Int64, 1, weight.sizes()[0],
                      indices.numel(), weight.sizes()[1], elsize, stream());
  check_launch("embedding");
  return out;
}

// Slices of `self` along `dim` (negative indices count from the end). An index out of range
// gives zeros where the CPU kernel raises "index out of range in self".
Tensor index_select_impl(const Tensor& self, int64_t dim, const Tensor& index) {
  if (index.dim() > 1) throw InvalidInput("index_select(): Index is supposed to be a vector");
  if (index.dtype() != DType::Int64 && index.dtype() != DType::Int32) throw InvalidInput("index out of range in self");
  if (self.dim() == 0) throw NotOnDevice("index_select: a 0-dim input");
  const size_t elsize = element_size(self.dtype());
  if (elsize != 1 && elsize != 2 && elsize != 4 && elsize != 8 && elsize != 16)
    throw NotOnDevice(fmt::format("index_select: dtype {}", dtype_name(self.dtype())));
  const int64_t d = cpu::wrap_dim(dim, self.dim());
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= self.sizes()[i];
  for (int64_t i = d + 1; i < self.dim(); ++i) inner *= self.sizes()[i];
  std::vector<int64_t> shape = self.sizes();
  shape[d] = index.numel();
  Tensor out = empty(self.dtype(), shape);
  if (out.numel() == 0) return out;
  const Tensor x = contiguous(self);
  const Tensor idx = contiguous(index);
  launch_index_select(address(x), address(out), address(idx), idx.dtype() == DType::Int64, outer, self.sizes()[d], idx.numel(), inner,
                      elsize, stream());
  check_launch("index_select");
  return out;
}

// ---- reshape, flatten ------------------------------------------------------------------------

Tensor run_cpu(const char* name, Stack s) {
  const KernelFn fn = find_kernel(name, Backend::CPU);
  if (!fn) throw NotOnDevice(fmt::format("{}: no CPU kernel to build the view", name));
  fn(s);
  return s.at(0).to_tensor();
}

// The CPU kernel decides view or copy (ATen's computeStride); its copy would read device memory on
// the host, so a tensor no view fits is made contiguous here first, and then always views.
Tensor reshape_impl(const Tensor& self, const IValue& shape) {
  const Tensor x = on_device(self);
  if (x.is_contiguous()) return run_cpu("aten::reshape", {IValue(x), shape});
  try {
    return run_cpu("aten::view", {IValue(x), shape});
  } catch (const InvalidInput&) {
    // No view fits (or the shape is invalid, which the reshape below reports as the CPU does).
  }
  return run_cpu("aten::reshape", {IValue(contiguous(x)), shape});
}

IValue int_list_value(const std::vector<int64_t>& v) {
  auto l = std::make_shared<ListData>();
  l->elem_type = "int";
  for (int64_t x : v) l->items.emplace_back(x);
  return IValue(std::move(l));
}

Tensor flatten_impl(const Tensor& self, int64_t start, int64_t end) {
  if (self.dim() == 0) return reshape_impl(self, int_list_value({1}));
  start = cpu::wrap_dim(start, self.dim());
  end = cpu::wrap_dim(end, self.dim());
  if (start > end) throw InvalidInput("flatten() has invalid args: start_dim cannot come after end_dim");
  if (start == end) return on_device(self);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + start);
  int64_t n = 1;
  for (int64_t d = start; d <= end; ++d) n *= self.sizes()[d];
  shape.push_back(n);
  shape.insert(shape.end(), self.sizes().begin() + end + 1, self.sizes().end());
  return reshape_impl(self, int_list_value(shape));
}

}  // namespace

void register_shape_kernels() {
  const Backend cu = Backend::CUDA;
  register_kernel("aten::contiguous", [](Stack& s) {
    require_dims(targ(s, 0), "contiguous");
    cpu::set_output(s, contiguous(targ(s, 0)));
  }, cu);
  register_kernel("aten::clone", [](Stack& s) { cpu::set_output(s, clone_impl(targ(s, 0))); }, cu);
  register_kernel("aten::copy_", [](Stack& s) { cpu::set_output(s, copy_inplace(targ(s, 0), targ(s, 1))); }, cu);
  register_kernel("aten::copy_.Tensor", [](Stack& s) { cpu::set_output(s, copy_inplace(targ(s, 0), targ(s, 1))); }, cu);

  // to(dtype/device/other): (self, ..., non_blocking, copy, memory_format)
  register_kernel("aten::to.dtype", [](Stack& s) {
    cpu::set_output(s, to_impl(targ(s, 0), cpu::scalar_type_arg(s[1]), IValue(), s[3].to_bool()));
  }, cu);
  register_kernel("aten::to.device", [](Stack& s) {
    cpu::set_output(s, to_impl(targ(s, 0), cpu::scalar_type_arg(s[2]), s[1], s[4].to_bool()));
  }, cu);
  register_kernel("aten::to.other", [](Stack& s) {
    cpu::set_output(s, to_impl(targ(s, 0), targ(s, 1).dtype(), IValue(), s[3].to_bool()));
  }, cu);
  register_kernel("aten::to.dtype_layout", [](Stack& s) {
    cpu::set_output(s, to_impl(targ(s, 0), cpu::optional_scalar_type_arg(s[1]), s[3], s[6].to_bool()));
  }, cu);
  register_kernel("aten::to.prim_Device", [](Stack& s) {
    cpu::set_output(s, to_impl(targ(s, 0), cpu::optional_scalar_type_arg(s[2]), s[1], s[4].to_bool()));
  }, cu);
  register_kernel("aten::to.prim_dtype", [](Stack& s) {
    cpu::set_output(s, to_impl(targ(s, 0), cpu::optional_scalar_type_arg(s[1]), IValue(), s[3].to_bool()));
  }, cu);
  register_kernel("aten::to.prim_other", [](Stack& s) { cpu::set_output(s, to_impl(targ(s, 0), std::nullopt, IValue(), s[2].to_bool())); }, cu);
  register_kernel("aten::type_as", [](Stack& s) { cpu::set_output(s, to_impl(targ(s, 0), targ(s, 1).dtype(), IValue(), false)); }, cu);

  register_kernel("aten::cat", [](Stack& s) { cpu::set_output(s, cat_impl(tensors_of(s[0]), s[1].to_int())); }, cu);
  register_kernel("aten::stack", [](Stack& s) { cpu::set_output(s, stack_impl(tensors_of(s[0]), s[1].to_int())); }, cu);
  register_kernel("aten::embedding", [](Stack& s) { cpu::set_output(s, embedding_impl(targ(s, 0), targ(s, 1))); }, cu);
  register_kernel("aten::index_select", [](Stack& s) { cpu::set_output(s, index_select_impl(targ(s, 0), s[1].to_int(), targ(s, 2))); }, cu);

  register_kernel("aten::reshape", [](Stack& s) { cpu::set_output(s, reshape_impl(targ(s, 0), s[1])); }, cu);
  register_kernel("aten::reshape_as", [](Stack& s) { cpu::set_output(s, reshape_impl(targ(s, 0), int_list_value(targ(s, 1).sizes()))); }, cu);
  register_kernel("aten::flatten.using_ints", [](Stack& s) { cpu::set_output(s, flatten_impl(targ(s, 0), s[1].to_int(), s[2].to_int())); }, cu);
}

}  // namespace jitctl::cuda
