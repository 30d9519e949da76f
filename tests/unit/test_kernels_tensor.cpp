// Tensor kernels (elementwise, reductions, shape/view ops, factories) against PyTorch 1.13:
// testdata/kernels/tensor_ops.pt, written by testdata/gen/make_kernel_goldens.py, holds each op's
// arguments in schema order (non-contiguous views included) and what PyTorch returned or raised,
// whether output 0 aliases the input, and for in-place ops on views the base tensor afterwards.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "kernels/cpu/tensor_util.h"
#include "kernels/registry.h"
#include "lib/archive/torch_save.h"
#include "lib/core/error.h"
#include "lib/core/ivalue.h"
#include "tests/support/testdata_path.h"

namespace jitctl {
namespace {

using K = IValue::Kind;

// "" when equal: same dtype and shape, values equal (floats within float32/float64 tolerance,
// NaN equal to NaN).
std::string tensor_diff(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype())
    return fmt::format("dtype {} != {}", dtype_name(got.dtype()), dtype_name(want.dtype()));
  if (got.sizes() != want.sizes()) return fmt::format("shape {} != {}", shape_string(got.sizes()), shape_string(want.sizes()));
  if (is_complex(want.dtype())) {  // compare (real, imag) pairs
    auto as_real = [](const Tensor& t) {
      Stack s{IValue(t)};
      find_kernel("aten::view_as_real")(s);
      return s[0].to_tensor();
    };
    return tensor_diff(as_real(got), as_real(want));
  }
  if (want.dtype() == DType::Float16 || want.dtype() == DType::BFloat16)  // exact: same rounding
    return tensor_diff(cpu::to_dtype(got, DType::Float64), cpu::to_dtype(want, DType::Float64));
  const bool fp = is_floating(want.dtype());
  const double rtol = want.dtype() == DType::Float64 ? 1e-10 : 1e-5, atol = want.dtype() == DType::Float64 ? 1e-12 : 1e-6;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = cpu::element_as_double(got, i), w = cpu::element_as_double(want, i);
    if (fp && std::isnan(w) && std::isnan(g)) continue;
    const bool ok = fp ? (g == w || std::abs(g - w) <= atol + rtol * std::abs(w)) : g == w;
    if (!ok) return fmt::format("element {}: {} != {}", i, g, w);
  }
  return "";
}

std::string value_diff(const IValue& got, const IValue& want) {
  if (want.is_tensor()) return got.is_tensor() ? tensor_diff(got.to_tensor(), want.to_tensor()) : "expected a tensor";
  if (want.is(K::List)) {
    if (!got.is(K::List)) return "expected a list";
    const auto& g = got.to_list()->items;
    const auto& w = want.to_list()->items;
    if (g.size() != w.size()) return fmt::format("list of {} != {}", g.size(), w.size());
    for (size_t i = 0; i < w.size(); ++i)
      if (auto d = value_diff(g[i], w[i]); !d.empty()) return fmt::format("item {}: {}", i, d);
    return "";
  }
  if (want.is(K::Bool))  // allclose, equal
    return got.is(K::Bool) ? (got.to_bool() == want.to_bool() ? "" : fmt::format("{} != {}", got.to_bool(), want.to_bool()))
                           : "expected a bool";
  return "unexpected output kind";
}

const IValue* field(const IValue& c, const char* key) { return c.to_dict()->find(IValue(key)); }

IValue load_cases(const char* file = "tensor_ops.pt") {
  const auto dir = test::testdata_dir();
  REQUIRE_MESSAGE(!dir.empty(), "testdata not found");
  return load_torch_save((dir / "kernels" / file).string());
}

// Runs one case; returns "" when the kernel agrees with PyTorch.
std::string run_case(const IValue& c) {
  const std::string op = field(c, "op")->to_string();
  const KernelFn fn = find_kernel(op);
  if (!fn) return "no kernel";
  Stack stack = field(c, "args")->to_list()->items;
  const IValue arg0 = stack.empty() ? IValue() : stack[0];
  if (const IValue* err = field(c, "error")) {
    try {
      fn(stack);
    } catch (const InvalidInput& e) {
      const std::string msg = e.what();
      if (msg.find(err->to_string()) == std::string::npos)
        return fmt::format("message '{}' lacks PyTorch's '{}'", msg, err->to_string());
      return "";
    } catch (const Error& e) {
      return fmt::format("threw '{}' instead of InvalidInput", e.what());
    }
    return "did not throw; PyTorch: " + err->to_string();
  }
  try {
    fn(stack);
  } catch (const Error& e) {
    return fmt::format("threw '{}'", e.what());
  }
  const auto& outs = field(c, "outs")->to_list()->items;
  if (stack.size() != outs.size()) return fmt::format("{} outputs, PyTorch {}", stack.size(), outs.size());
  for (size_t i = 0; i < outs.size(); ++i)
    if (auto d = value_diff(stack[i], outs[i]); !d.empty()) return fmt::format("output {}: {}", i, d);
  if (arg0.is_tensor() && stack[0].is_tensor()) {
    const bool alias = stack[0].to_tensor().storage() == arg0.to_tensor().storage();
    if (alias != field(c, "alias")->to_bool())
      return alias ? "output aliases the input; PyTorch's does not" : "output does not alias the input; PyTorch's does";
  }
  if (const IValue* base = field(c, "base")) {
    if (auto d = tensor_diff(base->to_tensor(), field(c, "base_after")->to_tensor()); !d.empty())
      return "base of the in-place view: " + d;
  }
  return "";
}

TEST_CASE("tensor kernels agree with PyTorch 1.13") {
  const IValue cases = load_cases();
  const auto& items = cases.to_list()->items;
  REQUIRE(items.size() > 300);
  int failures = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string why = run_case(items[i]);
    if (!why.empty()) {
      ++failures;
      MESSAGE(fmt::format("case {} {}: {}", i, field(items[i], "op")->to_string(), why));
    }
  }
  CHECK(failures == 0);
}

// testdata/gen/make_kernel_goldens_torch2.py: scaled_dot_product_attention, statistics, indexing
// writes and the 2.x factory overloads, as PyTorch 2.15 computes them.
TEST_CASE("tensor kernels agree with PyTorch 2.x") {
  const IValue cases = load_cases("tensor_ops_torch2.pt");
  const auto& items = cases.to_list()->items;
  REQUIRE(items.size() > 100);
  int failures = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string why = run_case(items[i]);
    if (!why.empty()) {
      ++failures;
      MESSAGE(fmt::format("case {} {}: {}", i, field(items[i], "op")->to_string(), why));
    }
  }
  CHECK(failures == 0);
}

// testdata/gen/make_nn_variant_goldens.py: selu, celu, threshold, glu, prelu, avg_pool1d and the
// plain upsample overloads under PyTorch 1.13; rms_norm, _prelu_kernel and the upsample overloads
// again under 2.15.
TEST_CASE("activation variants, avg_pool1d, upsampling and rms_norm agree with PyTorch 1.13 and 2.15") {
  for (const char* file : {"nn_variants.pt", "nn_variants_torch2.pt"}) {
    CAPTURE(file);
    const IValue cases = load_cases(file);
    const auto& items = cases.to_list()->items;
    REQUIRE(items.size() > 40);
    int failures = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string why = run_case(items[i]);
      if (!why.empty()) {
        ++failures;
        MESSAGE(fmt::format("case {} {}: {}", i, field(items[i], "op")->to_string(), why));
      }
    }
    CHECK(failures == 0);
  }
}

TEST_CASE("in-place ops on a view write through to the base storage") {
  Tensor base = Tensor::empty(DType::Float32, {2, 3});
  Stack s{IValue(base), IValue(int64_t{0}), IValue(int64_t{1})};  // base[1]
  find_kernel("aten::select.int")(s);
  Tensor row = s[0].to_tensor();
  Stack add{IValue(row), IValue(2.5), IValue(int64_t{1})};
  find_kernel("aten::add_.Scalar")(add);
  CHECK(add[0].to_tensor().same(row));
  CHECK(cpu::element_as_double(base, 3) == 2.5);
  CHECK(cpu::element_as_double(base, 0) == 0.0);
}

TEST_CASE("large elementwise and reduction inputs take the parallel paths") {
  const int64_t n = 1 << 18;
  Tensor x = Tensor::empty(DType::Float32, {n});
  float* p = cpu::mutable_data_of<float>(x);
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i % 7) - 3.0f;
  Stack relu{IValue(x)};
  find_kernel("aten::relu")(relu);
  Stack sum{relu[0], IValue()};
  find_kernel("aten::sum")(sum);
  // Per 7 consecutive values (-3..3) relu sums to 6; n = 37449 * 7 + 1 and the tail value is -3 -> 0.
  CHECK(cpu::element_as_double(sum[0].to_tensor(), 0) == doctest::Approx(6.0 * (n / 7)));
}

}  // namespace
}  // namespace jitctl

namespace jitctl {

// Sampling ops cannot be compared with PyTorch's values (its generator streams are its own), so
// these check the distribution facts PyTorch documents: bernoulli(p) is 0/1 with mean p, written
// through the strides of an in-place view; randn has mean 0 and variance 1.
TEST_CASE("random kernels: bernoulli_ and randn follow their distributions") {
  Tensor base = Tensor::empty(DType::Float32, {200, 100});
  Tensor view = cpu::make_view(base, {100, 200}, {1, 100}, 0);  // a transposed view of all of base
  Stack s{IValue(view), IValue(1.0), IValue()};
  find_kernel("aten::bernoulli_.float")(s);
  REQUIRE(s.size() == 1);
  CHECK(s[0].to_tensor().same(view));
  const float* p = cpu::data_of<float>(base);
  bool all_one = true;
  for (int64_t i = 0; i < base.numel(); ++i) all_one = all_one && p[i] == 1.0f;
  CHECK(all_one);

  s = {IValue(view), IValue(0.3), IValue()};
  find_kernel("aten::bernoulli_.float")(s);
  double sum = 0;
  bool binary = true;
  for (int64_t i = 0; i < base.numel(); ++i) {
    binary = binary && (p[i] == 0.0f || p[i] == 1.0f);
    sum += p[i];
  }
  CHECK(binary);
  CHECK(std::abs(sum / base.numel() - 0.3) < 0.02);

  s = {IValue(view), IValue(1.5), IValue()};
  CHECK_THROWS_AS(find_kernel("aten::bernoulli_.float")(s), InvalidInput);

  auto sizes = std::make_shared<ListData>();
  sizes->items = {IValue(int64_t{50000})};
  s = {IValue(sizes), IValue(int64_t{7}), IValue(), IValue(), IValue()};
  find_kernel("aten::randn")(s);
  const Tensor& r = s[0].to_tensor();
  CHECK(r.dtype() == DType::Float64);
  double m = 0, v = 0;
  for (int64_t i = 0; i < r.numel(); ++i) m += cpu::data_of<double>(r)[i];
  m /= r.numel();
  for (int64_t i = 0; i < r.numel(); ++i) v += std::pow(cpu::data_of<double>(r)[i] - m, 2);
  v /= r.numel();
  CHECK(std::abs(m) < 0.03);
  CHECK(std::abs(v - 1.0) < 0.05);
}

}  // namespace jitctl
