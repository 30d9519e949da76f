// Neural-network kernels against PyTorch: testdata/kernels_nn/FAMILY.pt holds, per case, the
// schema name, the stack inputs and the outputs PyTorch 1.13 computed
// (testdata/gen/make_nn_goldens.py); each case is replayed through the kernel registry.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "kernels/registry.h"
#include "lib/archive/torch_save.h"
#include "lib/core/error.h"
#include "tests/support/testdata_path.h"

namespace jitctl {
namespace {

double element(const Tensor& t, int64_t linear) {
  // Walks `linear` (row-major over sizes) through the strides.
  int64_t off = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t s = t.sizes()[d];
    off += (linear % s) * t.strides()[d];
    linear /= s;
  }
  switch (t.dtype()) {
    case DType::Float32: return static_cast<const float*>(t.data())[off];
    case DType::Float64: return static_cast<const double*>(t.data())[off];
    case DType::Int64: return static_cast<double>(static_cast<const int64_t*>(t.data())[off]);
    case DType::Bool: return static_cast<const bool*>(t.data())[off] ? 1.0 : 0.0;
    default: FAIL("unexpected dtype in a golden"); return 0;
  }
}

void check_close(const Tensor& got, const Tensor& want, const std::string& what) {
  INFO(what);
  REQUIRE(got.defined());
  CHECK(got.dtype() == want.dtype());
  REQUIRE(shape_string(got.sizes()) == shape_string(want.sizes()));
  const bool exact = want.dtype() == DType::Int64 || want.dtype() == DType::Bool;
  int bad = 0;
  for (int64_t i = 0; i < want.numel() && bad < 5; ++i) {
    const double g = element(got, i), w = element(want, i);
    const bool ok = exact ? g == w : (std::isnan(w) ? std::isnan(g) : std::fabs(g - w) <= 1e-5 + 1e-4 * std::fabs(w));
    if (!ok) {
      ++bad;
      FAIL_CHECK("element " << i << ": got " << g << ", want " << w);
    }
  }
}

void replay(const std::string& family) {
  const auto path = test::testdata_dir() / "kernels_nn" / (family + ".pt");
  const IValue cases = load_torch_save(path.string());
  for (const auto& [key, value] : cases.to_dict()->items) {
    const std::string name = key.to_string();
    CAPTURE(name);
    const auto& c = value.to_tuple()->items;
    const std::string op = c[0].to_string();
    const KernelFn fn = find_kernel(op);
    const bool registered = fn != nullptr;
    REQUIRE_MESSAGE(registered, op);
    Stack stack(c[1].to_tuple()->items.begin(), c[1].to_tuple()->items.end());
    fn(stack);
    const auto& want = c[2].to_tuple()->items;
    REQUIRE(stack.size() >= want.size());
    for (size_t i = 0; i < want.size(); ++i) check_close(stack[i].to_tensor(), want[i].to_tensor(), name + " output " + std::to_string(i));
  }
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

Tensor ones(std::vector<int64_t> sizes) {
  Tensor t = Tensor::empty(DType::Float32, std::move(sizes));
  auto* p = static_cast<float*>(t.mutable_data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = 1.0f;
  return t;
}

IValue ints(std::vector<int64_t> v) {
  auto l = std::make_shared<ListData>();
  for (auto x : v) l->items.emplace_back(x);
  return IValue(l);
}

}  // namespace

TEST_CASE("nn kernels: linear algebra matches PyTorch") { replay("linear"); }
TEST_CASE("nn kernels: convolutions match PyTorch") { replay("conv"); }
TEST_CASE("nn kernels: pooling and upsampling match PyTorch") { replay("pooling"); }
TEST_CASE("nn kernels: normalization matches PyTorch") { replay("norm"); }
TEST_CASE("nn kernels: LSTM and GRU match PyTorch") { replay("rnn"); }
TEST_CASE("nn kernels: transformer fast path matches PyTorch") { replay("attention"); }

TEST_CASE("nn kernels: shape errors carry PyTorch's messages") {
  Stack s{ones({2, 3}), ones({4, 5})};
  CHECK(error_of([&] { find_kernel("aten::mm")(s); }) == "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  s = {ones({1, 4, 8, 8}), ones({8, 3, 3, 3}), IValue(), ints({1, 1}), ints({0, 0}), ints({1, 1}), IValue(int64_t{1})};
  CHECK(error_of([&] { find_kernel("aten::conv2d")(s); }) ==
        "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 4, 8, 8] to have 3 channels, but got 4 channels instead");
  s = {ones({2, 3, 4}), ones({2, 5, 4})};
  CHECK(error_of([&] { find_kernel("aten::bmm")(s); }) ==
        "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].");
}

TEST_CASE("nn kernels: padding masks for the transformer's nested-tensor branch") {
  auto mask = [](std::vector<bool> v, int64_t rows) {
    Tensor t = Tensor::empty(DType::Bool, {rows, static_cast<int64_t>(v.size()) / rows});
    auto* p = static_cast<bool*>(t.mutable_data());
    for (size_t i = 0; i < v.size(); ++i) p[i] = v[i];
    return t;
  };
  // torch._nested_tensor_from_mask_left_aligned: every row keeps a prefix.
  Stack s{ones({2, 3, 4}), mask({true, true, false, true, false, false}, 2)};
  find_kernel("aten::_nested_tensor_from_mask_left_aligned")(s);
  CHECK(s.at(0).to_bool());
  s = {ones({2, 3, 4}), mask({true, false, true, true, true, true}, 2)};
  find_kernel("aten::_nested_tensor_from_mask_left_aligned")(s);
  CHECK_FALSE(s.at(0).to_bool());
  // Nested tensors themselves are unsupported, and say so.
  s = {ones({2, 3, 4}), mask({true, true, false, true, false, false}, 2), IValue(false)};
  CHECK_THROWS_AS(find_kernel("aten::_nested_tensor_from_mask")(s), Unsupported);
}

}  // namespace jitctl
