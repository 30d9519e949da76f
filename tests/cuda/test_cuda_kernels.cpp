// Every CUDA kernel against the CPU kernel of the same name, on random inputs: odd shapes,
// broadcasting, non-contiguous views, in-place forms. Runs only where a GPU is (test_main_cuda.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda_backend.h"
#include "kernels/registry.h"
#include "lib/runtime/device_dispatch.h"
#include "tests/support/output_compare.h"

using namespace jitctl;

namespace {

std::mt19937& rng() {
  static std::mt19937 g(1234);
  return g;
}

Tensor randn(std::vector<int64_t> sizes, float lo = -2.f, float hi = 2.f) {
  Tensor t = Tensor::empty(DType::Float32, sizes);
  std::uniform_real_distribution<float> d(lo, hi);
  auto* p = static_cast<float*>(t.mutable_data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = d(rng());
  return t;
}

Tensor randint(std::vector<int64_t> sizes, int64_t lo, int64_t hi) {
  Tensor t = Tensor::empty(DType::Int64, sizes);
  std::uniform_int_distribution<int64_t> d(lo, hi - 1);
  auto* p = static_cast<int64_t*>(t.mutable_data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = d(rng());
  return t;
}

// A transposed view of the last two dims (non-contiguous).
Tensor transposed(const Tensor& t) {
  auto sizes = t.sizes();
  auto strides = t.strides();
  std::swap(sizes[sizes.size() - 1], sizes[sizes.size() - 2]);
  std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
  return cpu::make_view(t, sizes, strides, t.storage_offset());
}

IValue ints(std::vector<int64_t> v) {
  auto l = std::make_shared<ListData>();
  for (int64_t x : v) l->items.push_back(IValue(x));
  return IValue(std::move(l));
}

IValue tensors(std::vector<Tensor> v) {
  auto l = std::make_shared<ListData>();
  for (auto& x : v) l->items.push_back(IValue(x));
  return IValue(std::move(l));
}

// A deep copy (the CPU run of an in-place op must not change the device run's inputs).
IValue clone(const IValue& v) {
  if (v.is_tensor()) {
    const Tensor& t = v.to_tensor();
    if (!t.defined()) return v;
    Tensor c = cpu::contiguous(t);
    Tensor out = Tensor::empty(c.dtype(), c.sizes());
    if (out.nbytes()) std::memcpy(out.mutable_data(), c.data(), out.nbytes());
    return IValue(out);  // contiguous: the CPU kernels' results do not depend on the layout
  }
  if (v.is(IValue::Kind::List)) {
    auto l = std::make_shared<ListData>();
    for (const IValue& x : v.to_list()->items) l->items.push_back(clone(x));
    return IValue(std::move(l));
  }
  return v;
}

int g_on_device = 0, g_fell_back = 0;

// Runs `op` on the CPU and on the GPU and compares every output. `must_run_on_device`: the CUDA
// kernel must take the case (not throw NotOnDevice).
void compare(const std::string& op, const std::vector<IValue>& inputs, bool must_run_on_device = true) {
  CAPTURE(op);
  KernelFn cpu = find_kernel(op);
  KernelFn cuda = find_kernel(op, Backend::CUDA);
  REQUIRE_MESSAGE(bool(cpu), "no CPU kernel " << op);
  REQUIRE_MESSAGE(bool(cuda), "no CUDA kernel " << op);
  Stack host;
  // The CPU kernel makes on the host what a device=cuda argument asks the GPU for.
  for (const IValue& v : inputs) host.push_back(v.is(IValue::Kind::Device) ? IValue(Device{}) : clone(v));
  cpu(host);
  Stack dev;
  for (const IValue& v : inputs) dev.push_back(values_to_device(v.is_tensor() && v.to_tensor().defined() && !v.to_tensor().is_contiguous() ? v : clone(v)));
  // Non-contiguous inputs are uploaded as views of an uploaded base, so the kernel sees the strides.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].is_tensor() || !inputs[i].to_tensor().defined() || inputs[i].to_tensor().is_contiguous()) continue;
    const Tensor& t = inputs[i].to_tensor();
    Tensor base = Tensor(std::make_shared<TensorImpl>(TensorImpl{t.storage(), 0, {static_cast<int64_t>(t.storage()->nbytes() / element_size(t.dtype()))}, {1}, t.dtype()}));
    Tensor dbase = run_device()->to_device(clone(IValue(base)).to_tensor());
    dev[i] = IValue(cpu::make_view(dbase, t.sizes(), t.strides(), t.storage_offset()));
    CHECK(dev[i].to_tensor().storage()->in_device_memory());
  }
  try {
    cuda(dev);
    ++g_on_device;
  } catch (const NotOnDevice& e) {
    ++g_fell_back;
    if (must_run_on_device) FAIL_CHECK("the CUDA kernel did not take the case: " << e.what());
    return;
  }
  REQUIRE(dev.size() == host.size());
  for (size_t i = 0; i < host.size(); ++i) {
    if (dev[i].is_tensor()) CHECK_MESSAGE(dev[i].to_tensor().storage()->in_device_memory(), "output " << i << " is not in device memory");
    const std::string d = test::differs(values_to_host(dev[i]), host[i], op + " output " + std::to_string(i), 1e-4, 1e-5);
    CHECK_MESSAGE(d.empty(), d);
  }
}

const IValue none{};

}  // namespace

TEST_CASE("cuda elementwise kernels equal the CPU's") {
  const Tensor a = randn({3, 5, 7}), b = randn({3, 5, 7}), row = randn({5, 1}), t = transposed(randn({3, 7, 5}));
  for (const char* op : {"aten::add.Tensor", "aten::sub.Tensor"}) {
    compare(op, {a, b, IValue(int64_t{1})});
    compare(op, {a, row, IValue(2.5)});  // broadcast, alpha
    compare(op, {t, a, IValue(int64_t{1})});  // non-contiguous
  }
  for (const char* op : {"aten::mul.Tensor", "aten::div.Tensor", "aten::maximum", "aten::minimum"}) {
    compare(op, {a, b});
    compare(op, {t, row});
  }
  compare("aten::add.Scalar", {a, IValue(1.5), IValue(int64_t{1})});
  compare("aten::mul.Scalar", {t, IValue(-3.0)});
  compare("aten::add_.Tensor", {randn({4, 6}), randn({6}), IValue(int64_t{1})});
  compare("aten::mul_.Tensor", {randn({4, 6}), randn({4, 1})});
  compare("aten::add.Tensor", {randint({9, 4}, -50, 50), randint({4}, -5, 5), IValue(int64_t{3})});
  for (const char* op : {"aten::eq.Tensor", "aten::lt.Tensor", "aten::ge.Tensor"}) compare(op, {a, b});
  compare("aten::gt.Scalar", {t, IValue(0.25)});
  Stack cond{IValue(randn({5, 7})), IValue(0.0)};
  find_kernel("aten::gt.Scalar")(cond);
  compare("aten::where.self", {cond[0], a, row});
  for (const char* op : {"aten::relu", "aten::sigmoid", "aten::tanh", "aten::silu", "aten::hardswish", "aten::hardsigmoid", "aten::exp",
                         "aten::neg", "aten::abs", "aten::erf", "aten::relu6", "aten::mish"}) {
    compare(op, {a});
    compare(op, {t});
  }
  compare("aten::gelu", {a, IValue(std::string("none"))});
  compare("aten::gelu", {t, IValue(std::string("tanh"))});
  compare("aten::sqrt", {randn({17, 3}, 0.01f, 4.f)});
  compare("aten::log", {randn({17, 3}, 0.01f, 4.f)});
  compare("aten::relu_", {randn({2, 33})});
  compare("aten::hardtanh", {a, IValue(-0.5), IValue(0.75)});
  compare("aten::leaky_relu", {t, IValue(0.1)});
  compare("aten::elu", {a, IValue(1.0), IValue(int64_t{1}), IValue(int64_t{1})});
  compare("aten::softplus", {a, IValue(int64_t{1}), IValue(int64_t{20})});
  compare("aten::clamp", {a, IValue(-1.0), IValue(0.5)});
  compare("aten::clamp", {t, none, IValue(0.5)});
}

TEST_CASE("cuda reductions, softmax and norms equal the CPU's") {
  const Tensor a = randn({4, 9, 13}), t = transposed(randn({4, 13, 9}));
  compare("aten::sum", {a, none});
  compare("aten::sum.dim_IntList", {a, ints({1}), IValue(true), none});
  compare("aten::sum.dim_IntList", {t, ints({0, 2}), IValue(false), none});
  compare("aten::mean.dim", {a, ints({-1}), IValue(false), none});
  compare("aten::mean.dim", {t, ints({2, 3 - 3}), IValue(true), none});
  compare("aten::amax", {a, ints({1}), IValue(false)});
  compare("aten::argmax", {a, IValue(int64_t{2}), IValue(false)});
  for (const char* op : {"aten::softmax.int", "aten::log_softmax.int"}) {
    compare(op, {a, IValue(int64_t{-1}), none});
    compare(op, {a, IValue(int64_t{1}), none});
    compare(op, {t, IValue(int64_t{2}), none});
    compare(op, {randn({3, 1000}, -20.f, 20.f), IValue(int64_t{1}), none});
  }
  const Tensor x = randn({3, 6, 5, 7});
  compare("aten::batch_norm", {x, randn({6}), randn({6}), randn({6}), randn({6}, 0.5f, 2.f), IValue(false), IValue(0.1), IValue(1e-5), IValue(true)});
  compare("aten::layer_norm", {randn({5, 11, 37}), ints({37}), randn({37}), randn({37}), IValue(1e-5), IValue(true)});
  compare("aten::layer_norm", {randn({5, 11, 37}), ints({11, 37}), none, none, IValue(1e-5), IValue(true)});
  compare("aten::group_norm", {x, IValue(int64_t{3}), randn({6}), randn({6}), IValue(1e-5), IValue(true)});
}

TEST_CASE("cuda shape kernels equal the CPU's") {
  const Tensor a = randn({4, 5, 6}), t = transposed(randn({4, 6, 5}));
  compare("aten::contiguous", {t, IValue(int64_t{0})});
  compare("aten::clone", {t, none});
  compare("aten::cat", {tensors({a, randn({4, 3, 6}), t}), IValue(int64_t{1})});
  compare("aten::cat", {tensors({a, randn({4, 5, 2})}), IValue(int64_t{-1})});
  compare("aten::stack", {tensors({a, randn({4, 5, 6})}), IValue(int64_t{0})});
  compare("aten::embedding", {randn({20, 8}), randint({3, 7}, 0, 20), IValue(int64_t{-1}), IValue(false), IValue(false)});
  compare("aten::index_select", {a, IValue(int64_t{1}), randint({9}, 0, 5)});
  compare("aten::reshape", {t, ints({4, -1})});
  compare("aten::to.dtype", {a, IValue(int64_t{4}), IValue(false), IValue(false), none});  // int64
}

TEST_CASE("cuda matrix products equal the CPU's") {
  compare("aten::mm", {randn({33, 17}), randn({17, 29})});
  compare("aten::mm", {transposed(randn({33, 17})), randn({33, 5})});
  compare("aten::addmm", {randn({29}), randn({33, 17}), randn({17, 29}), IValue(int64_t{1}), IValue(int64_t{1})});
  compare("aten::bmm", {randn({3, 7, 9}), transposed(randn({3, 11, 9}))});
  compare("aten::matmul", {randn({2, 3, 7, 9}), randn({9, 4})});
  compare("aten::matmul", {randn({2, 1, 7, 9}), randn({3, 9, 4})});
  compare("aten::matmul", {randn({9}), randn({9, 4})});
  compare("aten::linear", {randn({2, 5, 19}), randn({23, 19}), randn({23})});
  compare("aten::linear", {randn({1, 64}), randn({10, 64}), none});
}

TEST_CASE("cuda convolutions and pooling equal the CPU's") {
  const Tensor x = randn({2, 4, 17, 19});
  compare("aten::conv2d", {x, randn({8, 4, 3, 3}), randn({8}), ints({2, 2}), ints({1, 1}), ints({1, 1}), IValue(int64_t{1})});
  compare("aten::conv2d", {x, randn({6, 2, 3, 3}), none, ints({1, 1}), ints({1, 1}), ints({1, 1}), IValue(int64_t{2})});  // groups
  compare("aten::conv2d", {x, randn({4, 1, 5, 5}), randn({4}), ints({1, 1}), ints({2, 2}), ints({1, 1}), IValue(int64_t{4})});  // depthwise
  compare("aten::conv2d", {x, randn({5, 4, 3, 3}), randn({5}), ints({1, 1}), ints({2, 2}), ints({2, 2}), IValue(int64_t{1})});  // dilation
  compare("aten::conv2d", {x, randn({16, 4, 1, 1}), randn({16}), ints({1, 1}), ints({0, 0}), ints({1, 1}), IValue(int64_t{1})});  // 1x1
  compare("aten::conv1d", {randn({2, 3, 31}), randn({5, 3, 4}), randn({5}), ints({2}), ints({1}), ints({1}), IValue(int64_t{1})});
  compare("aten::max_pool2d", {x, ints({3, 3}), ints({2, 2}), ints({1, 1}), ints({1, 1}), IValue(true)});
  compare("aten::max_pool2d", {x, ints({2, 2}), ints({2, 2}), ints({0, 0}), ints({1, 1}), IValue(false)});
  compare("aten::avg_pool2d", {x, ints({3, 3}), ints({2, 2}), ints({1, 1}), IValue(true), IValue(false), none});
  compare("aten::adaptive_avg_pool2d", {x, ints({1, 1})});
  compare("aten::adaptive_avg_pool2d", {x, ints({3, 5})});
  compare("aten::upsample_nearest2d.vec", {x, ints({34, 38}), none});
  MESSAGE("cases run on the device: " << g_on_device << ", fell back to the CPU: " << g_fell_back);
}

TEST_CASE("the fused convolution (conv + bias + residual, relu) equals the CPU's three ops") {
  const Tensor x = randn({2, 8, 15, 13}), w = randn({8, 8, 3, 3}, -0.3f, 0.3f), b = randn({8}), r = randn({2, 8, 15, 13});
  const std::vector<IValue> conv_args{x, w, b, ints({1, 1}), ints({1, 1}), ints({1, 1}), IValue(int64_t{1})};
  Stack ref(conv_args.begin(), conv_args.end());
  find_kernel("aten::conv2d")(ref);
  Stack add{ref[0], IValue(r), IValue(int64_t{1})};
  find_kernel("aten::add.Tensor")(add);
  Stack relu{add[0]};
  find_kernel("aten::relu")(relu);
  KernelFn fused = find_kernel("jitctl::conv2d_fused", Backend::CUDA);
  REQUIRE(bool(fused));
  for (bool residual : {true, false}) {
    CAPTURE(residual);
    Stack f;
    for (const IValue& a : conv_args) f.push_back(values_to_device(a));
    f.push_back(residual ? values_to_device(IValue(r)) : IValue());
    f.push_back(IValue(true));
    fused(f);
    REQUIRE(f.size() == 1);
    Stack want_relu_only{ref[0]};
    find_kernel("aten::relu")(want_relu_only);
    const IValue& want = residual ? relu[0] : want_relu_only[0];
    const std::string d = test::differs(values_to_host(f[0]), want, "conv2d_fused", 1e-4, 1e-4);
    CHECK_MESSAGE(d.empty(), d);
  }
}

// JITCTL_CUDA_CONV=splitk makes every new convolution configuration (groups 1) run on jitctl's
// split-reduction kernel (kernels/cuda/conv_splitk.cu) instead of cuDNN: shapes not used above,
// so that no plan from the cuDNN-or-faster choice is cached for them.
TEST_CASE("the split-K convolution equals the CPU's") {
  setenv("JITCTL_CUDA_CONV", "splitk", 1);
  // 3x3 with many slices (K = 2304), odd channel counts (tiles cut at 64), a batch of 3 whose
  // images share a 64-pixel tile.
  compare("aten::conv2d", {randn({1, 256, 7, 7}, -1.f, 1.f), randn({80, 256, 3, 3}, -0.1f, 0.1f), randn({80}), ints({1, 1}), ints({1, 1}), ints({1, 1}), IValue(int64_t{1})});
  compare("aten::conv2d", {randn({3, 5, 9, 11}), randn({70, 5, 3, 3}), randn({70}), ints({1, 1}), ints({1, 1}), ints({1, 1}), IValue(int64_t{1})});
  compare("aten::conv2d", {randn({2, 33, 23, 21}), randn({17, 33, 3, 3}, -0.3f, 0.3f), none, ints({2, 2}), ints({1, 1}), ints({1, 1}), IValue(int64_t{1})});
  compare("aten::conv2d", {randn({1, 12, 19, 18}), randn({9, 12, 3, 3}), randn({9}), ints({1, 2}), ints({2, 3}), ints({2, 1}), IValue(int64_t{1})});  // dilation, uneven stride
  compare("aten::conv2d", {randn({2, 130, 6, 5}), randn({129, 130, 1, 1}, -0.2f, 0.2f), randn({129}), ints({1, 1}), ints({0, 0}), ints({1, 1}), IValue(int64_t{1})});  // 1x1
  compare("aten::conv2d", {randn({1, 64, 14, 14}), randn({128, 64, 1, 1}, -0.2f, 0.2f), none, ints({2, 2}), ints({0, 0}), ints({1, 1}), IValue(int64_t{1})});  // 1x1 /2 (ResNet's downsample)
  compare("aten::conv2d", {randn({1, 3, 37, 41}), randn({64, 3, 7, 7}, -0.3f, 0.3f), randn({64}), ints({2, 2}), ints({3, 3}), ints({1, 1}), IValue(int64_t{1})});  // 7x7 stem
  compare("aten::conv2d", {randn({2, 6, 13, 12}), randn({11, 6, 5, 4}), randn({11}), ints({1, 1}), ints({0, 0}), ints({1, 1}), IValue(int64_t{1})});  // 5x4, no padding
  compare("aten::conv1d", {randn({2, 7, 45}), randn({13, 7, 5}), randn({13}), ints({1}), ints({2}), ints({1}), IValue(int64_t{1})});
  compare("aten::_convolution", {randn({1, 24, 10, 10}), randn({40, 24, 3, 3}, -0.3f, 0.3f), randn({40}), ints({1, 1}), ints({1, 1}), ints({1, 1}), IValue(false),
                                 ints({0, 0}), IValue(int64_t{1}), IValue(false), IValue(false), IValue(true), IValue(true)});
  // The fused form: relu(conv + bias + residual) in the kernel's epilogue, with one slice and with several.
  KernelFn fused = find_kernel("jitctl::conv2d_fused", Backend::CUDA);
  REQUIRE(bool(fused));
  for (int64_t c : {4, 96}) {
    CAPTURE(c);
    const Tensor x = randn({1, c, 11, 9}), w = randn({24, c, 3, 3}, -0.2f, 0.2f), b = randn({24}), r = randn({1, 24, 11, 9});
    Stack ref{x, w, b, ints({1, 1}), ints({1, 1}), ints({1, 1}), IValue(int64_t{1})};
    find_kernel("aten::conv2d")(ref);
    Stack add{ref[0], IValue(r), IValue(int64_t{1})};
    find_kernel("aten::add.Tensor")(add);
    Stack relu{add[0]};
    find_kernel("aten::relu")(relu);
    Stack f;
    for (const IValue& a : std::vector<IValue>{x, w, b, ints({1, 1}), ints({1, 1}), ints({1, 1}), IValue(int64_t{1}), r}) f.push_back(values_to_device(a));
    f.push_back(IValue(true));
    fused(f);
    const std::string d = test::differs(values_to_host(f[0]), relu[0], "conv2d_fused (split-K)", 1e-4, 1e-4);
    CHECK_MESSAGE(d.empty(), d);
  }
  unsetenv("JITCTL_CUDA_CONV");
}

// The RNNs on the GPU (kernels/cuda/rnn.cpp) against the CPU kernel: each cell, two layers,
// both directions, batch-first and unbatched inputs, with and without biases.
TEST_CASE("cuda rnns equal the CPU's") {
  const int64_t in = 5, hidden = 7, batch = 3, steps = 6;
  // Parameters of `layers` x `dirs` (w_ih, w_hh[, b_ih, b_hh]) for `gates` gates.
  auto params = [&](int64_t gates, int64_t layers, int64_t dirs, bool biases) {
    std::vector<Tensor> p;
    for (int64_t l = 0; l < layers; ++l)
      for (int64_t d = 0; d < dirs; ++d) {
        p.push_back(randn({gates * hidden, l == 0 ? in : dirs * hidden}, -0.4f, 0.4f));
        p.push_back(randn({gates * hidden, hidden}, -0.4f, 0.4f));
        if (biases) {
          p.push_back(randn({gates * hidden}, -0.4f, 0.4f));
          p.push_back(randn({gates * hidden}, -0.4f, 0.4f));
        }
      }
    return tensors(p);
  };
  struct Cell {
    const char* op;
    int64_t gates;
    bool lstm;
  };
  for (const Cell& c : {Cell{"aten::lstm.input", 4, true}, Cell{"aten::gru.input", 3, false}, Cell{"aten::rnn_tanh.input", 1, false},
                        Cell{"aten::rnn_relu.input", 1, false}}) {
    CAPTURE(c.op);
    for (bool bidirectional : {false, true}) {
      CAPTURE(bidirectional);
      const int64_t dirs = bidirectional ? 2 : 1, layers = 2;
      auto hx = [&](std::vector<int64_t> sizes) { return c.lstm ? tensors({randn(sizes), randn(sizes)}) : IValue(randn(sizes)); };
      // seq-first, batch-first, unbatched
      compare(c.op, {randn({steps, batch, in}), hx({layers * dirs, batch, hidden}), params(c.gates, layers, dirs, true), IValue(true), IValue(layers),
                     IValue(0.0), IValue(false), IValue(bidirectional), IValue(false)});
      compare(c.op, {randn({batch, steps, in}), hx({layers * dirs, batch, hidden}), params(c.gates, layers, dirs, false), IValue(false), IValue(layers),
                     IValue(0.0), IValue(false), IValue(bidirectional), IValue(true)});
      compare(c.op, {randn({steps, in}), hx({layers * dirs, hidden}), params(c.gates, layers, dirs, true), IValue(true), IValue(layers), IValue(0.0),
                     IValue(false), IValue(bidirectional), IValue(false)});
    }
  }
}

// scaled_dot_product_attention, _native_multi_head_attention and _transformer_encoder_layer_fwd
// on the GPU (kernels/cuda/attention.cpp) against the CPU kernels: masks of every kind, causal,
// grouped heads, broadcast batches, fully masked rows, attention weights.
TEST_CASE("cuda attention equals the CPU's") {
  const char* sdpa = "aten::scaled_dot_product_attention";
  const IValue no_scale{};
  // (q, k, v, mask, dropout, causal, scale, enable_gqa)
  compare(sdpa, {randn({2, 3, 5, 8}), randn({2, 3, 7, 8}), randn({2, 3, 7, 6}), none, IValue(0.0), IValue(false), no_scale, IValue(false)});
  compare(sdpa, {randn({2, 3, 6, 8}), randn({2, 3, 6, 8}), randn({2, 3, 6, 8}), none, IValue(0.0), IValue(true), IValue(0.3), IValue(false)});
  Tensor keep = Tensor::empty(DType::Bool, {1, 5, 7});
  auto* kp = static_cast<bool*>(keep.mutable_data());
  for (int64_t i = 0; i < keep.numel(); ++i) kp[i] = (i * 7 + 3) % 5 != 0;
  for (int64_t j = 0; j < 7; ++j) kp[2 * 7 + j] = false;  // a fully masked row gives zeros
  compare(sdpa, {randn({2, 3, 5, 8}), randn({2, 3, 7, 8}), randn({2, 3, 7, 6}), keep, IValue(0.0), IValue(false), no_scale, IValue(false)});
  compare(sdpa, {randn({2, 1, 5, 8}), randn({3, 7, 8}), randn({2, 3, 7, 6}), randn({5, 7}), IValue(0.0), IValue(false), no_scale, IValue(false)});
  compare(sdpa, {randn({2, 4, 5, 8}), randn({2, 2, 7, 8}), randn({2, 2, 7, 8}), none, IValue(0.0), IValue(false), no_scale, IValue(true)});  // gqa
  compare(sdpa, {transposed(randn({2, 8, 5})), randn({2, 7, 8}), randn({2, 7, 4}), none, IValue(0.0), IValue(false), no_scale, IValue(false)});

  const int64_t b = 2, t = 5, e = 12, heads = 3;
  const Tensor qkv_w = randn({3 * e, e}, -0.3f, 0.3f), qkv_b = randn({3 * e}), proj_w = randn({e, e}, -0.3f, 0.3f), proj_b = randn({e});
  const Tensor x = randn({b, t, e});
  Tensor pad = Tensor::empty(DType::Bool, {b, t});  // key padding: true = masked
  auto* pp = static_cast<bool*>(pad.mutable_data());
  for (int64_t i = 0; i < pad.numel(); ++i) pp[i] = i % t >= t - 2;
  Tensor causal_f = Tensor::empty(DType::Float32, {t, t});  // float: nonzero = masked
  auto* cf = static_cast<float*>(causal_f.mutable_data());
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < t; ++j) cf[i * t + j] = j > i ? -INFINITY : 0.0f;
  const char* mha = "aten::_native_multi_head_attention";
  // (q, k, v, embed_dim, num_head, qkv_weight, qkv_bias, proj_weight, proj_bias, mask, need_weights, average, mask_type)
  compare(mha, {x, x, x, IValue(e), IValue(heads), qkv_w, qkv_b, proj_w, proj_b, none, IValue(true), IValue(true), none});
  compare(mha, {x, x, x, IValue(e), IValue(heads), qkv_w, qkv_b, proj_w, proj_b, pad, IValue(true), IValue(false), IValue(int64_t{1})});
  compare(mha, {x, randn({b, t, e}), randn({b, t, e}), IValue(e), IValue(heads), qkv_w, qkv_b, proj_w, proj_b, causal_f, IValue(false), IValue(false),
                IValue(int64_t{0})});

  const int64_t ff = 20;
  for (bool norm_first : {false, true})
    for (bool gelu : {false, true}) {
      CAPTURE(norm_first);
      CAPTURE(gelu);
      // (src, e, heads, qkv_w, qkv_b, proj_w, proj_b, use_gelu, norm_first, eps, ln1 w/b, ln2 w/b, ffn w1/b1/w2/b2, mask, mask_type)
      compare("aten::_transformer_encoder_layer_fwd",
              {x, IValue(e), IValue(heads), qkv_w, qkv_b, proj_w, proj_b, IValue(gelu), IValue(norm_first), IValue(1e-5), randn({e}), randn({e}),
               randn({e}), randn({e}), randn({ff, e}, -0.3f, 0.3f), randn({ff}), randn({e, ff}, -0.3f, 0.3f), randn({e}), norm_first ? pad : none,
               norm_first ? IValue(int64_t{1}) : none});
    }
}

TEST_CASE("factories given device=cuda make their tensors on the GPU") {
  const IValue cuda{Device{Device::Type::CUDA, 0}};
  compare("aten::zeros", {ints({3, 4}), none, none, cuda, none});
  compare("aten::full", {ints({2, 5}), IValue(2.5), none, none, cuda, none});
  compare("aten::ones_like", {randn({3, 7}), none, none, none, none, none});
}
