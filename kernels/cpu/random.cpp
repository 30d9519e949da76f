// Random sampling ops. PyTorch's generator streams are not reproduced (no archive can rely on them
// matching across runtimes); what matters is that models whose eval path never samples -- dropout
// and stochastic depth guarded by `self.training` -- compile and run, and that a model that does
// sample gets values of the right distribution, dtype and shape.
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
}

}  // namespace jitctl
