// Sampling kernels (kernels/cpu/random.cpp): the samples are not PyTorch's (its generator streams are
// not reproduced), so what is checked is what PyTorch documents about their distribution, shape and
// dtype -- and dropout's rules: the identity in eval mode, p of the elements (of the channels, for
// feature dropout) zeroed in training mode and the rest scaled by 1/(1-p); alpha dropout keeping a
// standard normal input at mean 0 and standard deviation 1.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "kernels/cpu/tensor_util.h"
#include "kernels/registry.h"
#include "lib/core/error.h"

namespace jitctl {
namespace {

Tensor filled(std::vector<int64_t> sizes, double value) {
  Tensor t = Tensor::empty(DType::Float32, std::move(sizes));
  float* p = static_cast<float*>(t.mutable_data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(value);
  return t;
}

Tensor run(const char* op, Stack s) {
  const KernelFn k = find_kernel(op);
  REQUIRE(static_cast<bool>(k));
  k(s);
  return s.at(0).to_tensor();
}

struct Moments {
  double mean = 0, sd = 0;
};

Moments moments(const Tensor& t) {
  Moments m;
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) m.mean += cpu::element_as_double(t, i);
  m.mean /= static_cast<double>(n);
  for (int64_t i = 0; i < n; ++i) m.sd += std::pow(cpu::element_as_double(t, i) - m.mean, 2);
  m.sd = std::sqrt(m.sd / static_cast<double>(n - 1));
  return m;
}

}  // namespace

TEST_CASE("random kernels: dropout in eval mode and with p = 0 is the input itself") {
  const Tensor x = filled({4, 5}, 1.5);
  for (const char* op : {"aten::dropout", "aten::feature_dropout", "aten::alpha_dropout", "aten::feature_alpha_dropout"}) {
    CAPTURE(op);
    CHECK(run(op, {IValue(x), IValue(0.5), IValue(false)}).same(x));
    CHECK(run(op, {IValue(x), IValue(0.0), IValue(true)}).same(x));
    CHECK_THROWS_AS(run(op, {IValue(x), IValue(1.5), IValue(true)}), InvalidInput);
  }
}

TEST_CASE("random kernels: dropout in training mode zeroes p of the elements and scales the rest by 1/(1-p)") {
  const Tensor x = filled({100, 200}, 2.0);
  const Tensor y = run("aten::dropout", {IValue(x), IValue(0.3), IValue(true)});
  REQUIRE(y.sizes() == x.sizes());
  CHECK(y.dtype() == DType::Float32);
  int64_t zeros = 0, scaled = 0;
  for (int64_t i = 0; i < y.numel(); ++i) {
    const double v = cpu::element_as_double(y, i);
    zeros += v == 0;
    scaled += std::fabs(v - 2.0 / 0.7) < 1e-5;
  }
  CHECK(zeros + scaled == y.numel());
  CHECK(static_cast<double>(zeros) / static_cast<double>(y.numel()) == doctest::Approx(0.3).epsilon(0.1));
  // p = 1 drops everything.
  const Tensor z = run("aten::dropout", {IValue(x), IValue(1.0), IValue(true)});
  CHECK(moments(z).mean == 0);
  // In place: the input is written and returned.
  Tensor w = filled({10, 10}, 1.0);
  CHECK(run("aten::dropout_", {IValue(w), IValue(0.5), IValue(true)}).same(w));
}

TEST_CASE("random kernels: feature dropout drops whole channels") {
  const Tensor x = filled({8, 64, 3, 3}, 1.0);
  const Tensor y = run("aten::feature_dropout", {IValue(x), IValue(0.5), IValue(true)});
  int64_t dropped = 0;
  for (int64_t c = 0; c < 8 * 64; ++c) {
    const double first = cpu::element_as_double(y, c * 9);
    CHECK((first == 0 || first == doctest::Approx(2.0)));
    for (int64_t k = 1; k < 9; ++k) CHECK(cpu::element_as_double(y, c * 9 + k) == first);
    dropped += first == 0;
  }
  CHECK(dropped > 100);
  CHECK(dropped < 412);
  CHECK_THROWS_AS(run("aten::feature_dropout", {IValue(filled({5}, 1.0)), IValue(0.5), IValue(true)}), InvalidInput);
}

TEST_CASE("random kernels: alpha dropout keeps a standard normal input's mean and standard deviation") {
  const Tensor x = run("aten::randn", {IValue(std::make_shared<ListData>(ListData{{IValue(int64_t{200000})}, "int"})),
                                       IValue(), IValue(), IValue(), IValue()});
  const Tensor y = run("aten::alpha_dropout", {IValue(x), IValue(0.2), IValue(true)});
  const Moments m = moments(y);
  CHECK(std::fabs(m.mean) < 0.02);
  CHECK(m.sd == doctest::Approx(1.0).epsilon(0.03));
  // The dropped elements all take one value: SELU's negative saturation, transformed.
  const double alpha = 1.7580993408473766, p = 0.2, a = 1 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  int64_t dropped = 0;
  for (int64_t i = 0; i < y.numel(); ++i)
    if (std::fabs(cpu::element_as_double(y, i) - alpha * a * (p - 1)) < 1e-5) ++dropped;
  CHECK(static_cast<double>(dropped) / static_cast<double>(y.numel()) == doctest::Approx(0.2).epsilon(0.1));
}

TEST_CASE("random kernels: randperm, randint, normal_ and uniform_") {
  const Tensor perm = run("aten::randperm", {IValue(int64_t{1000}), IValue(), IValue(), IValue(), IValue()});
  CHECK(perm.dtype() == DType::Int64);
  std::vector<int64_t> values;
  bool identity = true;
  for (int64_t i = 0; i < 1000; ++i) {
    values.push_back(static_cast<int64_t>(cpu::element_as_double(perm, i)));
    identity = identity && values.back() == i;
  }
  CHECK_FALSE(identity);
  std::sort(values.begin(), values.end());
  bool permutation = true;
  for (int64_t i = 0; i < 1000; ++i) permutation = permutation && values[static_cast<size_t>(i)] == i;
  CHECK(permutation);

  auto size = [](int64_t n) { return IValue(std::make_shared<ListData>(ListData{{IValue(n)}, "int"})); };
  const Tensor ints = run("aten::randint.low", {IValue(int64_t{5}), IValue(int64_t{10}), size(10000), IValue(), IValue(), IValue(), IValue()});
  CHECK(ints.dtype() == DType::Int64);
  std::set<int64_t> seen;
  for (int64_t i = 0; i < ints.numel(); ++i) seen.insert(static_cast<int64_t>(cpu::element_as_double(ints, i)));
  CHECK(seen == std::set<int64_t>{5, 6, 7, 8, 9});
  CHECK_THROWS_AS(run("aten::randint", {IValue(int64_t{0}), size(3), IValue(), IValue(), IValue(), IValue()}), InvalidInput);

  Tensor n = filled({100000}, 0.0);
  CHECK(run("aten::normal_", {IValue(n), IValue(2.0), IValue(3.0), IValue()}).same(n));
  const Moments mn = moments(n);
  CHECK(mn.mean == doctest::Approx(2.0).epsilon(0.03));
  CHECK(mn.sd == doctest::Approx(3.0).epsilon(0.03));

  Tensor u = filled({100000}, 0.0);
  run("aten::uniform_", {IValue(u), IValue(-1.0), IValue(3.0), IValue()});
  const Moments mu = moments(u);
  CHECK(mu.mean == doctest::Approx(1.0).epsilon(0.03));
  int64_t outside = 0;
  for (int64_t i = 0; i < u.numel(); ++i) {
    const double v = cpu::element_as_double(u, i);
    outside += v < -1 || v >= 3;
  }
  CHECK(outside == 0);
}

}  // namespace jitctl
