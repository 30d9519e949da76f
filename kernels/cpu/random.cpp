// Random sampling ops, and dropout (the identity in eval mode, sampling in training mode). PyTorch's
// generator streams are not reproduced (no archive can rely on them matching across runtimes); what
// matters is that models whose eval path never samples -- dropout and stochastic depth guarded by
// `self.training` -- compile and run, and that a model that does sample (check-trace runs models in
// training mode) gets values of the right distribution, dtype and shape.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "kernels/cpu/register_cpu.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/registry.h"

namespace jitctl {
namespace {

using namespace cpu;

// One stream per thread, seeded with a constant so that runs repeat.
std::mt19937_64& generator() {
  thread_local std::mt19937_64 g(0x6a697463746cULL);
  return g;
}

void check_no_generator(const IValue& g, const char* op) {
  if (!g.is_none()) throw Unsupported(std::string(op) + ": an explicit Generator is not supported");
}

bool floating_dtype(DType dt) { return dt == DType::Float32 || dt == DType::Float64; }

// Fills a fresh contiguous tensor shaped like `like` with `draw()` values, converted to its dtype.
template <class Draw>
Tensor sample(DType dt, const std::vector<int64_t>& sizes, const char* op, Draw draw) {
  if (!floating_dtype(dt)) throw Unsupported(std::string(op) + ": dtype " + std::string(dtype_name(dt)) + " is not supported yet");
  Tensor out = Tensor::empty(dt, sizes);
  const int64_t n = out.numel();
  if (dt == DType::Float32) {
    float* p = mutable_data_of<float>(out);
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(draw(i));
  } else {
    double* p = mutable_data_of<double>(out);
    for (int64_t i = 0; i < n; ++i) p[i] = draw(i);
  }
  return out;
}

// In-place: sample into a temporary, then write through self's strides (self may be a view).
template <class Draw>
void sample_into(Tensor& self, const char* op, Draw draw) {
  Tensor tmp = sample(floating_dtype(self.dtype()) ? self.dtype() : DType::Float64, self.sizes(), op, draw);
  copy_into(tmp, self);
}

double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(generator()); }
double normal() { return std::normal_distribution<double>(0.0, 1.0)(generator()); }

DType dtype_or_float(const IValue& v) { return optional_scalar_type_arg(v).value_or(DType::Float32); }

Tensor zero_scalar(DType dt) {
  Tensor z = Tensor::empty(dt, {});
  copy_into(scalar_to_tensor(IValue(0.0), DType::Float64), z);
  return z;
}

Tensor run_kernel(const char* op, Stack s) {
  find_kernel(op)(s);
  return s.at(0).to_tensor();
}

// PyTorch's _dropout_impl: keep each element (each (sample, channel) for feature dropout) with
// probability 1-p and scale the kept ones by 1/(1-p); alpha dropout instead sets dropped elements
// to SELU's negative saturation and rescales to keep mean and variance. p = 0, train = False or an
// empty input: the input itself; p = 1: zeros (NaN stays NaN, as input * 0).
Tensor dropout(const Tensor& input, double p, bool train, bool feature, bool alpha) {
  if (p < 0 || p > 1) throw InvalidInput(fmt::format("dropout probability has to be between 0 and 1, but got {}", p));
  if (p == 0 || !train || input.numel() == 0) return input;
  if (feature && input.dim() < 2)
    throw InvalidInput("Feature dropout requires at least 2 dimensions in the input");
  if (!floating_dtype(input.dtype()))
    throw Unsupported(fmt::format("dropout in training mode: dtype {} is not supported yet", dtype_name(input.dtype())));
  if (p == 1) return run_kernel("aten::mul.Tensor", {IValue(input), IValue(zero_scalar(input.dtype()))});
  std::vector<int64_t> shape = input.sizes();
  if (feature)
    for (size_t d = 2; d < shape.size(); ++d) shape[d] = 1;
  Tensor keep = sample(input.dtype(), shape, "dropout", [p](int64_t) { return uniform() < 1 - p ? 1.0 : 0.0; });
  if (!alpha) {
    Tensor scale = sample(input.dtype(), shape, "dropout", [&](int64_t i) { return element_as_double(keep, i) / (1 - p); });
    return run_kernel("aten::mul.Tensor", {IValue(input), IValue(scale)});
  }
  constexpr double kAlpha = 1.7580993408473766;
  const double a = 1. / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  Tensor scale = sample(input.dtype(), shape, "alpha_dropout", [&](int64_t i) { return element_as_double(keep, i) * a; });
  Tensor shift = sample(input.dtype(), shape, "alpha_dropout",
                        [&](int64_t i) { return (element_as_double(keep, i) - 1) * kAlpha * a + kAlpha * a * p; });
  Tensor scaled = run_kernel("aten::mul.Tensor", {IValue(input), IValue(scale)});
  return run_kernel("aten::add.Tensor", {IValue(scaled), IValue(shift), IValue(int64_t{1})});
}

template <bool feature, bool alpha, bool inplace>
void dropout_kernel(Stack& s) {
  Tensor self = s[0].to_tensor();
  Tensor out = dropout(self, s[1].to_double(), s[2].to_bool(), feature, alpha);
  if (inplace && !out.same(self)) copy_into(out, self);
  set_output(s, inplace ? self : out);
}

// Integers drawn uniformly from [low, high) into a fresh tensor of `dt` (int64 by default).
Tensor sample_ints(DType dt, const std::vector<int64_t>& sizes, int64_t low, int64_t high, const char* op) {
  if (low >= high) throw InvalidInput(fmt::format("{}: random_ expects 'from' to be less than 'to', but got from={} >= to={}", op, low, high));
  Tensor out = Tensor::empty(dt, sizes);
  std::uniform_int_distribution<int64_t> d(low, high - 1);
  Tensor values = Tensor::empty(DType::Int64, sizes);
  int64_t* p = mutable_data_of<int64_t>(values);
  for (int64_t i = 0; i < values.numel(); ++i) p[i] = d(generator());
  copy_into(values, out);
  return out;
}

}  // namespace

void register_random_kernels() {
  // bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None)
  register_kernel("aten::bernoulli_.float", [](Stack& s) {
    check_no_generator(s[2], "bernoulli_");
    const double p = s[1].to_double();
    if (p < 0 || p > 1) throw InvalidInput("bernoulli_ expects p to be in [0, 1], but got p=" + std::to_string(p));
    Tensor self = s[0].to_tensor();
    sample_into(self, "bernoulli_", [p](int64_t) { return uniform() < p ? 1.0 : 0.0; });
    set_output(s, self);
  });
  // bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None)
  register_kernel("aten::bernoulli_.Tensor", [](Stack& s) {
    check_no_generator(s[2], "bernoulli_");
    Tensor self = s[0].to_tensor();
    Tensor p = to_dtype(expand_to(s[1].to_tensor(), self.sizes()), DType::Float64);
    sample_into(self, "bernoulli_", [&p](int64_t i) { return uniform() < element_as_double(p, i) ? 1.0 : 0.0; });
    set_output(s, self);
  });
  // bernoulli(Tensor self, *, Generator? generator=None): self holds the probabilities.
  register_kernel("aten::bernoulli", [](Stack& s) {
    check_no_generator(s[1], "bernoulli");
    const Tensor& self = s[0].to_tensor();
    Tensor p = to_dtype(self, DType::Float64);
    set_output(s, sample(self.dtype(), self.sizes(), "bernoulli",
                         [&p](int64_t i) { return uniform() < element_as_double(p, i) ? 1.0 : 0.0; }));
  });
  // bernoulli.p(Tensor self, float p, *, Generator? generator=None)
  register_kernel("aten::bernoulli.p", [](Stack& s) {
    check_no_generator(s[2], "bernoulli");
    const double p = s[1].to_double();
    const Tensor& self = s[0].to_tensor();
    set_output(s, sample(self.dtype(), self.sizes(), "bernoulli", [p](int64_t) { return uniform() < p ? 1.0 : 0.0; }));
  });
  // rand/randn(int[] size, *, ScalarType? dtype, Layout? layout, Device? device, bool? pin_memory)
  register_kernel("aten::rand", [](Stack& s) {
    set_output(s, sample(dtype_or_float(s[1]), int_list(s[0]), "rand", [](int64_t) { return uniform(); }));
  });
  register_kernel("aten::randn", [](Stack& s) {
    set_output(s, sample(dtype_or_float(s[1]), int_list(s[0]), "randn", [](int64_t) { return normal(); }));
  });
  // rand_like/randn_like(Tensor self, *, ScalarType? dtype, Layout?, Device?, bool?, MemoryFormat?)
  register_kernel("aten::rand_like", [](Stack& s) {
    const Tensor& self = s[0].to_tensor();
    set_output(s, sample(optional_scalar_type_arg(s[1]).value_or(self.dtype()), self.sizes(), "rand_like",
                         [](int64_t) { return uniform(); }));
  });
  register_kernel("aten::randn_like", [](Stack& s) {
    const Tensor& self = s[0].to_tensor();
    set_output(s, sample(optional_scalar_type_arg(s[1]).value_or(self.dtype()), self.sizes(), "randn_like",
                         [](int64_t) { return normal(); }));
  });
  // normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None)
  register_kernel("aten::normal_", [](Stack& s) {
    check_no_generator(s[3], "normal_");
    const double mean = s[1].to_double(), stddev = s[2].to_double();
    if (stddev < 0) throw InvalidInput(fmt::format("normal expects std >= 0.0, but found std {}", stddev));
    Tensor self = s[0].to_tensor();
    sample_into(self, "normal_", [&](int64_t) { return mean + stddev * normal(); });
    set_output(s, self);
  });
  // uniform_(Tensor(a!) self, float from=0., float to=1., *, Generator? generator=None)
  register_kernel("aten::uniform_", [](Stack& s) {
    check_no_generator(s[3], "uniform_");
    const double from = s[1].to_double(), to = s[2].to_double();
    if (from > to) throw InvalidInput(fmt::format("uniform_ expects to return a [from, to) range, but found from={} > to={}", from, to));
    Tensor self = s[0].to_tensor();
    sample_into(self, "uniform_", [&](int64_t) { return from + (to - from) * uniform(); });
    set_output(s, self);
  });
  // randperm(int n, *, ScalarType? dtype=4, Layout?, Device?, bool? pin_memory): a shuffle of 0..n-1.
  register_kernel("aten::randperm", [](Stack& s) {
    const int64_t n = s[0].to_int();
    if (n < 0) throw InvalidInput(fmt::format("n must be non-negative, got{}", n));
    std::vector<int64_t> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), int64_t{0});
    std::shuffle(perm.begin(), perm.end(), generator());
    Tensor values = Tensor::empty(DType::Int64, {n});
    std::copy(perm.begin(), perm.end(), mutable_data_of<int64_t>(values));
    Tensor out = Tensor::empty(optional_scalar_type_arg(s[1]).value_or(DType::Int64), {n});
    copy_into(values, out);
    set_output(s, out);
  });
  // randint(int high, int[] size, *, ScalarType? dtype=4, ...), randint.low(int low, int high, int[] size, ...)
  register_kernel("aten::randint", [](Stack& s) {
    set_output(s, sample_ints(optional_scalar_type_arg(s[2]).value_or(DType::Int64), int_list(s[1]), 0, s[0].to_int(), "randint"));
  });
  register_kernel("aten::randint.low", [](Stack& s) {
    set_output(s, sample_ints(optional_scalar_type_arg(s[3]).value_or(DType::Int64), int_list(s[2]), s[0].to_int(),
                              s[1].to_int(), "randint"));
  });
  register_kernel("aten::dropout", dropout_kernel<false, false, false>);
  register_kernel("aten::dropout_", dropout_kernel<false, false, true>);
  register_kernel("aten::feature_dropout", dropout_kernel<true, false, false>);
  register_kernel("aten::feature_dropout_", dropout_kernel<true, false, true>);
  register_kernel("aten::alpha_dropout", dropout_kernel<false, true, false>);
  register_kernel("aten::alpha_dropout_", dropout_kernel<false, true, true>);
  register_kernel("aten::feature_alpha_dropout", dropout_kernel<true, true, false>);
  register_kernel("aten::feature_alpha_dropout_", dropout_kernel<true, true, true>);
}

}  // namespace jitctl
