// Ops that read a tensor's metadata or convert between tensors and Python numbers: size, dim,
// numel, item, int(t), torch.tensor(list) ...; and the global-state queries (grad mode, autocast).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <type_traits>

#include "kernels/cpu/tensor_util.h"
#include "kernels/cpu/value_util.h"

namespace jitctl::cpu {
namespace {

// Grad mode is the only global state a TorchScript program can change (torch.set_grad_enabled);
// jitctl never records gradients, so it is tracked for is_grad_enabled() alone. It starts off:
// jitctl runs a model as m(*inputs) under torch.no_grad(), which is how the corpus goldens were
// made, and what selects PyTorch's inference fast paths (e.g. TransformerEncoderLayer's).
thread_local bool grad_enabled = false;

IValue int_list_value(const std::vector<int64_t>& v) {
  auto l = std::make_shared<ListData>();
  l->elem_type = "int";
  for (int64_t x : v) l->items.emplace_back(x);
  return IValue(std::move(l));
}

// The single element of `t` as a Python number: bool for bool tensors, float for floating ones,
// int otherwise. PyTorch's message when `t` has another element count.
IValue only_element(const Tensor& t) {
  if (t.numel() != 1)
    throw InvalidInput("a Tensor with " + std::to_string(t.numel()) + " elements cannot be converted to Scalar");
  IValue out;
  dispatch_dtype(t.dtype(), "item", [&](auto tag) {
    using T = decltype(tag);
    const T v = *data_of<T>(t);
    if constexpr (std::is_same_v<T, bool>)
      out = IValue(v);
    else if constexpr (std::is_floating_point_v<T>)
      out = IValue(static_cast<double>(v));
    else
      out = IValue(static_cast<int64_t>(v));
  });
  return out;
}

void item(Stack& s) { set_result(s, only_element(s[0].to_tensor())); }

void int_of_tensor(Stack& s) {
  const IValue v = only_element(s[0].to_tensor());
  if (v.is(IValue::Kind::Double)) {
    const double d = v.to_double();
    set_result(s, (std::isnan(d) || std::fabs(d) >= 9223372036854775808.0) ? INT64_MIN : static_cast<int64_t>(d));
  } else {
    set_result(s, static_cast<int64_t>(number_of(v)));
  }
}

void float_of_tensor(Stack& s) { set_result(s, number_of(only_element(s[0].to_tensor()))); }
void bool_of_tensor(Stack& s) {
  const Tensor& t = s[0].to_tensor();
  if (t.numel() > 1) throw InvalidInput("Boolean value of Tensor with more than one value is ambiguous");
  set_result(s, number_of(only_element(t)) != 0.0);
}

void scalar_implicit(Stack& s) {
  const Tensor& t = s[0].to_tensor();
  if (t.dim() != 0)
    throw InvalidInput("ScalarImplicit only supports 0-dim tensors; got a tensor of size " + shape_string(t.sizes()));
  item(s);
}

void size_int(Stack& s) {
  const Tensor& t = s[0].to_tensor();
  if (t.dim() == 0) throw InvalidInput("dimension specified as " + std::to_string(s[1].to_int()) + " but tensor has no dimensions");
  set_result(s, t.sizes()[static_cast<size_t>(wrap_dim(s[1].to_int(), t.dim()))]);
}

void len_tensor(Stack& s) {
  const Tensor& t = s[0].to_tensor();
  if (t.dim() == 0) throw InvalidInput("len() of a 0-d tensor");
  set_result(s, t.sizes()[0]);
}

// ---- torch.tensor(...) from Python values -----------------------------------------------------

// The shape of a nested list of numbers, and its leaves in row-major order.
void flatten_nested(const IValue& v, size_t depth, std::vector<int64_t>& shape, std::vector<IValue>& leaves) {
  const ValueDepthGuard level("torch.tensor() reading");
  if (!v.is(IValue::Kind::List)) {
    if (depth != shape.size()) throw InvalidInput("torch.tensor: ragged nested list");
    if (v.is_tensor()) throw Unsupported("torch.tensor of a list of tensors is not supported");
    leaves.push_back(v);
    return;
  }
  const auto& items = v.to_list()->items;
  if (depth == shape.size()) {
    if (!leaves.empty()) throw InvalidInput("torch.tensor: ragged nested list");
    shape.push_back(static_cast<int64_t>(items.size()));
  } else if (depth > shape.size() || shape[depth] != static_cast<int64_t>(items.size())) {
    throw InvalidInput("Expected sequence of length " + std::to_string(depth < shape.size() ? shape[depth] : 0) +
                       " at dim " + std::to_string(depth) + " (got " + std::to_string(items.size()) + ")");
  }
  for (const auto& x : items) flatten_nested(x, depth + 1, shape, leaves);
}

DType inferred_dtype(const std::vector<IValue>& leaves, const std::string& elem_type) {
  using K = IValue::Kind;
  bool any_float = false, all_bool = !leaves.empty();
  for (const auto& x : leaves) {
    any_float |= x.is(K::Double);
    all_bool &= x.is(K::Bool);
  }
  if (leaves.empty()) {
    if (elem_type.find("int") != std::string::npos) return DType::Int64;
    if (elem_type.find("bool") != std::string::npos) return DType::Bool;
    return DType::Float32;
  }
  if (any_float) return DType::Float32;
  return all_bool ? DType::Bool : DType::Int64;
}

Tensor tensor_from(const std::vector<IValue>& leaves, std::vector<int64_t> shape, DType dtype, const IValue& device) {
  if (!device.is_none() && device.to_device().type != Device::Type::CPU)
    throw Unsupported("torch.tensor on device " + device.to_device().str() + " is not supported by the CPU kernels");
  Tensor out = Tensor::empty(dtype, std::move(shape));
  dispatch_dtype(dtype, "tensor", [&](auto tag) {
    using T = decltype(tag);
    T* p = mutable_data_of<T>(out);
    for (size_t i = 0; i < leaves.size(); ++i) {
      const IValue& x = leaves[i];
      if (x.is(IValue::Kind::Double))
        p[i] = static_cast<T>(x.to_double());
      else if (x.is(IValue::Kind::Bool))
        p[i] = static_cast<T>(x.to_bool());
      else
        p[i] = static_cast<T>(x.to_int());
    }
  });
  return out;
}

void tensor_of_list(Stack& s) {
  std::vector<int64_t> shape;
  std::vector<IValue> leaves;
  flatten_nested(s[0], 0, shape, leaves);
  const DType dt = s[1].is_none() ? inferred_dtype(leaves, s[0].to_list()->elem_type) : scalar_type_arg(s[1]);
  set_result(s, tensor_from(leaves, std::move(shape), dt, s[2]));
}

template <DType Default>
void tensor_of_scalar(Stack& s) {
  const DType dt = s[1].is_none() ? Default : scalar_type_arg(s[1]);
  set_result(s, tensor_from({s[0]}, {}, dt, s[2]));
}

// torch.device("cuda:0") with PyTorch 1.13's messages for unknown types and malformed strings.
void device_of_str(Stack& s) {
  static const char* const kTypes[] = {"cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                                       "fpga", "ort", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "privateuseone"};
  const std::string& str = s[0].to_string();
  const std::string type = str.substr(0, str.find(':'));
  if (std::find(std::begin(kTypes), std::end(kTypes), type) == std::end(kTypes)) {
    std::string known;
    for (const char* t : kTypes) known += std::string(known.empty() ? "" : ", ") + t;
    throw InvalidInput("Expected one of " + known + " device type at start of device string: " + str);
  }
  auto d = Device::parse(str);
  if (!d) {
    if (type == "cpu" || type == "cuda" || type == "meta") throw InvalidInput("Invalid device string: '" + str + "'");
    throw Unsupported("device type " + type + " is not supported");
  }
  set_result(s, IValue(*d));
}

}  // namespace

void register_tensor_meta_kernels() {
  register_kernel("aten::size", [](Stack& s) { set_result(s, int_list_value(s[0].to_tensor().sizes())); });
  register_kernel("aten::sym_size", [](Stack& s) { set_result(s, int_list_value(s[0].to_tensor().sizes())); });
  register_kernel("aten::size.int", &size_int);
  register_kernel("aten::sym_size.int", &size_int);
  register_kernel("aten::dim", [](Stack& s) { set_result(s, s[0].to_tensor().dim()); });
  register_kernel("aten::numel", [](Stack& s) { set_result(s, s[0].to_tensor().numel()); });
  register_kernel("aten::len.Tensor", &len_tensor);
  register_kernel("aten::is_floating_point", [](Stack& s) { set_result(s, is_floating(s[0].to_tensor().dtype())); });
  register_kernel("aten::is_complex", [](Stack& s) { set_result(s, is_complex(s[0].to_tensor().dtype())); });
  register_kernel("aten::element_size", [](Stack& s) {
    set_result(s, static_cast<int64_t>(element_size(s[0].to_tensor().dtype())));
  });
  register_kernel("aten::get_device", [](Stack& s) {
    const Device& d = s[0].to_tensor().device();
    set_result(s, static_cast<int64_t>(d.type == Device::Type::CPU ? -1 : (d.index < 0 ? 0 : d.index)));
  });

  register_kernel("aten::item", &item);
  register_kernel("aten::ScalarImplicit", &scalar_implicit);
  register_kernel("aten::Int.Tensor", &int_of_tensor);
  register_kernel("aten::Float.Tensor", &float_of_tensor);
  register_kernel("aten::Bool.Tensor", &bool_of_tensor);
  register_kernel("aten::is_nonzero", &bool_of_tensor);

  register_kernel("aten::tensor", &tensor_of_list);
  register_kernel("aten::tensor.float", &tensor_of_scalar<DType::Float32>);
  register_kernel("aten::tensor.int", &tensor_of_scalar<DType::Int64>);
  register_kernel("aten::tensor.bool", &tensor_of_scalar<DType::Bool>);
  register_kernel("aten::device", &device_of_str);

  register_kernel("aten::is_grad_enabled", [](Stack& s) { set_result(s, grad_enabled); });
  register_kernel("aten::set_grad_enabled", [](Stack& s) {
    grad_enabled = s[0].to_bool();
    s.clear();
  });
  register_kernel("aten::is_autocast_enabled", [](Stack& s) { set_result(s, false); });
  register_kernel("aten::is_autocast_cpu_enabled", [](Stack& s) { set_result(s, false); });
  register_kernel("aten::is_scripting", [](Stack& s) { set_result(s, true); });
  register_kernel("aten::_get_tracing_state", [](Stack& s) { set_result(s, false); });
  register_kernel("aten::_unwrap_optional", [](Stack& s) {
    if (s[0].is_none()) throw InvalidInput("Unwrapping null optional");
  });
}

}  // namespace jitctl::cpu
