// conv1d, conv2d, _convolution and convolution on cuDNN's convolution API (NCHW, float32; 1-D as
// 2-D with height 1). The arguments are checked and resolved by the CPU side's conv_params, so
// both backends accept and reject the same calls with the same messages.
//
// Algorithm choice: the first call of a configuration (shapes, stride, padding, dilation, groups,
// TF32 or not, device, pointer alignment) measures every algorithm with
// cudnnFindConvolutionForwardAlgorithmEx and keeps the fastest that fits the workspace cap and
// keeps fp32 arithmetic when TF32 is off, then cuDNN's engine configurations and jitctl's split-K
// kernel (conv_splitk_launch.h) are timed on the same buffers, and the fastest of the three kept;
// the plan (descriptors and choice) is cached for the process, so later calls, graph captures
// included, only look it up. The Ex form measures with our
// buffers and our workspace, so cuDNN allocates no memory of its own behind the caching allocator.
#include "kernels/cuda/conv.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/conv_engines.h"
#include "kernels/cuda/conv_splitk_launch.h"
#include "kernels/cuda/register_cuda.h"
#include "kernels/cuda_backend.h"
#include "kernels/registry.h"

namespace jitctl::cuda {
namespace {

// Algorithms needing more workspace than this are skipped (PyTorch's cuDNN path caps similarly).
constexpr size_t kMaxWorkspace = size_t{256} << 20;

// Formats the call's name only when it failed.
void ok(cudnnStatus_t s, const char* op, const char* call) {
  if (s != CUDNN_STATUS_SUCCESS) check(s, fmt::format("{}: {}", op, call).c_str());
}

// A descriptor setting cuDNN refuses (BAD_PARAM, NOT_SUPPORTED) is a configuration the CPU
// kernel runs; other failures are errors.
void settable(cudnnStatus_t s, const char* op, const char* call) {
  if (s == CUDNN_STATUS_BAD_PARAM || s == CUDNN_STATUS_NOT_SUPPORTED)
    throw NotOnDevice(fmt::format("{}: {}: {}", op, call, cudnnGetErrorString(s)));
  ok(s, op, call);
}

// One configuration's descriptors and algorithm; immutable once cached. `supported` false: cuDNN
// has no usable algorithm for it, and every call goes to the CPU kernel without searching again.
struct ConvPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t relu = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspace_bytes = 0;
  // When cuDNN's engines (conv_engines.h) measured faster than the legacy algorithm: the
  // convolution runs there, and bias, residual and relu in launch_conv_epilogue.
  std::shared_ptr<EnginePlan> engine;
  // When jitctl's split-reduction kernel (conv_splitk_launch.h) measured fastest: its slice
  // length (0: not used); bias, residual and relu are in its epilogue.
  int splitk_k = 0;
  SplitKShape splitk_shape{};
  int64_t n = 0, oc = 0, hw = 0;
  bool supported = false;
  std::string why;  // when not supported

  ConvPlan() = default;
  ConvPlan(const ConvPlan&) = delete;
  ConvPlan& operator=(const ConvPlan&) = delete;
  ~ConvPlan() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (bias) cudnnDestroyTensorDescriptor(bias);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (relu) cudnnDestroyActivationDescriptor(relu);
  }
};

// device, alignment, tf32, n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw, groups
using PlanKey = std::array<int64_t, 17>;

struct PlanCache {
  std::mutex mu;
  std::map<PlanKey, std::shared_ptr<const ConvPlan>> plans;
};

// Never destroyed: the plans' descriptors would be destroyed at exit, possibly after cuDNN itself.
PlanCache& plan_cache() {
  static PlanCache* cache = new PlanCache;
  return *cache;
}

// The largest power of two (up to 16) that divides every address: some algorithms need aligned
// operands, so a plan found with aligned buffers must not be used with unaligned ones.
int64_t alignment(std::initializer_list<const void*> ptrs) {
  int64_t a = 16;
  for (const void* p : ptrs) {
    if (!p) continue;
    const auto v = reinterpret_cast<uintptr_t>(p);
    while (a > 1 && v % static_cast<uintptr_t>(a) != 0) a /= 2;
  }
  return a;
}

int as_int(int64_t v) { return static_cast<int>(v); }

// Descriptors for `p`; the math type is set, the algorithm not yet.
std::unique_ptr<ConvPlan> make_descriptors(const cpu::ConvParams& p, bool tf32_math, const char* op) {
  auto plan = std::make_unique<ConvPlan>();
  ok(cudnnCreateTensorDescriptor(&plan->x), op, "cudnnCreateTensorDescriptor");
  ok(cudnnCreateTensorDescriptor(&plan->y), op, "cudnnCreateTensorDescriptor");
  ok(cudnnCreateTensorDescriptor(&plan->bias), op, "cudnnCreateTensorDescriptor");
  ok(cudnnCreateFilterDescriptor(&plan->w), op, "cudnnCreateFilterDescriptor");
  ok(cudnnCreateConvolutionDescriptor(&plan->conv), op, "cudnnCreateConvolutionDescriptor");
  ok(cudnnCreateActivationDescriptor(&plan->relu), op, "cudnnCreateActivationDescriptor");
  settable(cudnnSetTensor4dDescriptor(plan->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, as_int(p.n), as_int(p.c), as_int(p.h), as_int(p.w)), op,
     "cudnnSetTensor4dDescriptor (input)");
  settable(cudnnSetTensor4dDescriptor(plan->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, as_int(p.n), as_int(p.oc), as_int(p.oh), as_int(p.ow)), op,
     "cudnnSetTensor4dDescriptor (output)");
  settable(cudnnSetTensor4dDescriptor(plan->bias, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, as_int(p.oc), 1, 1), op,
     "cudnnSetTensor4dDescriptor (bias)");
  settable(cudnnSetFilter4dDescriptor(plan->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, as_int(p.oc), as_int(p.c / p.groups), as_int(p.kh), as_int(p.kw)),
     op, "cudnnSetFilter4dDescriptor");
  settable(cudnnSetConvolution2dDescriptor(plan->conv, as_int(p.ph), as_int(p.pw), as_int(p.sh), as_int(p.sw), as_int(p.dh), as_int(p.dw),
                                     CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
     op, "cudnnSetConvolution2dDescriptor");
  settable(cudnnSetConvolutionGroupCount(plan->conv, as_int(p.groups)), op, "cudnnSetConvolutionGroupCount");
  // FMA math keeps fp32 outputs fp32-exact in the way PyTorch's (allow_tf32=False) are.
  settable(cudnnSetConvolutionMathType(plan->conv, tf32_math ? CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION : CUDNN_FMA_MATH), op,
     "cudnnSetConvolutionMathType");
  // relu(NaN) is NaN in PyTorch.
  settable(cudnnSetActivationDescriptor(plan->relu, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0), op, "cudnnSetActivationDescriptor");
  int on = 0, oc = 0, oh = 0, ow = 0;
  settable(cudnnGetConvolution2dForwardOutputDim(plan->conv, plan->x, plan->w, &on, &oc, &oh, &ow), op, "cudnnGetConvolution2dForwardOutputDim");
  if (on != p.n || oc != p.oc || oh != p.oh || ow != p.ow)
    throw NotOnDevice(fmt::format("{}: cuDNN computes output {}x{}x{}x{}, not {}", op, on, oc, oh, ow, shape_string(p.out_sizes)));
  return plan;
}

SplitKShape splitk_shape_of(const cpu::ConvParams& p) {
  return SplitKShape{as_int(p.n), as_int(p.c), as_int(p.h), as_int(p.w), as_int(p.oc), as_int(p.kh), as_int(p.kw), as_int(p.sh), as_int(p.sw),
                     as_int(p.ph), as_int(p.pw), as_int(p.dh), as_int(p.dw), as_int(p.oh), as_int(p.ow)};
}

// The fastest slice length of the split-K kernel for `s` on these buffers (y is overwritten), its
// time per call in `us`; 0 when its scratch would exceed the workspace cap.
int tune_splitk(const SplitKShape& s, const void* x, const void* w, void* y, float* us) {
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  int candidates[4];
  const int count = splitk_candidates(s, sms, candidates);
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  int best = 0;
  float best_us = 0;
  for (int i = 0; i < count; ++i) {
    const int k = candidates[i];
    const size_t scratch_bytes = static_cast<size_t>(splitk_workspace_floats(s, k)) * sizeof(float);
    if (scratch_bytes > kMaxWorkspace) continue;
    float* scratch = scratch_bytes ? static_cast<float*>(workspace(scratch_bytes)) : nullptr;
    auto launch = [&] {
      launch_conv_splitk(s, k, static_cast<const float*>(x), static_cast<const float*>(w), nullptr, nullptr, false, static_cast<float*>(y), scratch,
                         stream());
    };
    launch();  // untimed: the first launch of a kernel loads its module
    check_launch("split-K convolution");
    // Best of three rounds of four calls: single calls are a few microseconds.
    float fastest = -1;
    for (int rep = 0; rep < 3; ++rep) {
      check(cudaEventRecord(start, stream()), "cudaEventRecord");
      for (int c = 0; c < 4; ++c) launch();
      check(cudaEventRecord(stop, stream()), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      if (fastest < 0 || ms < fastest) fastest = ms;
    }
    const float t = fastest * 1000 / 4;
    if (!best || t < best_us) {
      best = k;
      best_us = t;
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  *us = best_us;
  return best;
}

// Measures the algorithms on these buffers (y is overwritten) and picks one; the plan is marked
// unsupported when none qualifies.
void choose_algorithm(ConvPlan& plan, const cpu::ConvParams& p, bool tf32_math, int64_t alignment, const void* x, const void* w, void* y,
                      const char* op) {
  cudnnHandle_t h = cudnn();
  // The workspace the measurement gets: the most any algorithm within the cap asks for.
  size_t ws_bytes = 0;
  for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
    size_t bytes = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(h, plan.x, plan.w, plan.conv, plan.y, static_cast<cudnnConvolutionFwdAlgo_t>(a), &bytes) ==
            CUDNN_STATUS_SUCCESS &&
        bytes <= kMaxWorkspace)
      ws_bytes = std::max(ws_bytes, bytes);
  }
  void* ws = ws_bytes ? workspace(ws_bytes) : nullptr;
  int max_count = 0;
  ok(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max_count), op, "cudnnGetConvolutionForwardAlgorithmMaxCount");
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
  // Measured three times, each algorithm's best time kept: the first measurements of a process
  // meet a GPU still raising its clocks, and one noisy pick would be replayed on every call.
  std::vector<cudnnConvolutionFwdAlgoPerf_t> best;
  int returned = 0;
  for (int round = 0; round < 3; ++round) {
    int got = 0;
    const cudnnStatus_t found = cudnnFindConvolutionForwardAlgorithmEx(h, plan.x, x, plan.w, w, plan.conv, plan.y, y, static_cast<int>(perf.size()),
                                                                       &got, perf.data(), ws, ws_bytes);
    if (found == CUDNN_STATUS_BAD_PARAM || found == CUDNN_STATUS_NOT_SUPPORTED) {
      plan.why = fmt::format("cudnnFindConvolutionForwardAlgorithmEx: {}", cudnnGetErrorString(found));
      return;
    }
    ok(found, op, "cudnnFindConvolutionForwardAlgorithmEx");
    for (int i = 0; i < got; ++i) {
      const cudnnConvolutionFwdAlgoPerf_t& r = perf[static_cast<size_t>(i)];
      if (r.status != CUDNN_STATUS_SUCCESS) continue;
      auto same = std::find_if(best.begin(), best.end(), [&](const auto& q) { return q.algo == r.algo && q.mathType == r.mathType; });
      if (same == best.end()) best.push_back(r);
      else if (r.time < same->time) *same = r;
    }
  }
  std::sort(best.begin(), best.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
  returned = static_cast<int>(best.size());
  perf = best;
  // JITCTL_CUDA_VERBOSE=1: what cuDNN measured for each configuration, for tuning.
  static const bool verbose = [] {
    const char* e = std::getenv("JITCTL_CUDA_VERBOSE");
    return e && *e && std::string_view(e) != "0";
  }();
  if (verbose) {
    std::string line;
    for (int i = 0; i < returned; ++i) {
      const cudnnConvolutionFwdAlgoPerf_t& r = perf[static_cast<size_t>(i)];
      if (r.status == CUDNN_STATUS_SUCCESS)
        line += fmt::format(" algo{}/{}:{:.1f}us", static_cast<int>(r.algo), r.mathType == CUDNN_FMA_MATH ? "fma" : r.mathType == CUDNN_DEFAULT_MATH ? "default" : "tensor",
                            r.time * 1000);
    }
    std::fputs(fmt::format("jitctl: cuDNN conv n{} c{} {}x{} -> oc{} k{}x{} s{} g{}:{}\n", p.n, p.c, p.h, p.w, p.oc, p.kh, p.kw, p.sh, p.groups, line).c_str(), stderr);
  }
  // Sorted fastest first. cudnn_us: the time of what cuDNN would run (legacy or engine).
  float cudnn_us = 0;
  for (int i = 0; i < returned; ++i) {
    const cudnnConvolutionFwdAlgoPerf_t& r = perf[static_cast<size_t>(i)];
    if (r.status != CUDNN_STATUS_SUCCESS || r.memory > ws_bytes) continue;
    // Without TF32 only FMA results: another math type may round through TF32.
    if (!tf32_math && r.mathType != CUDNN_FMA_MATH) continue;
    // The algorithm runs with the math type it was measured with.
    ok(cudnnSetConvolutionMathType(plan.conv, r.mathType), op, "cudnnSetConvolutionMathType");
    plan.algo = r.algo;
    plan.workspace_bytes = r.memory;
    plan.supported = true;
    cudnn_us = r.time * 1000;
    break;
  }
  plan.n = p.n;
  plan.oc = p.oc;
  plan.hw = p.oh * p.ow;
  static const bool engines = [] {
    const char* e = std::getenv("JITCTL_CUDNN_ENGINES");
    return !(e && std::string_view(e) == "0");
  }();
  if (engines) {
    float engine_us = 0;
    std::shared_ptr<EnginePlan> engine = tune_engine_plan(p, tf32_math, alignment, x, w, y, &engine_us);
    // What the engine path adds: one pass of bias, residual and relu over the output (read twice,
    // written once) at about 2.5 TB/s, and a launch.
    const double out_bytes = static_cast<double>(p.n * p.oc * p.oh * p.ow) * 4;
    const double epilogue_us = 2.0 + 3 * out_bytes / 2.5e6;
    if (verbose)
      std::fputs(fmt::format("jitctl:   engines: {}; legacy {:.1f}us\n", engine ? fmt::format("best {:.1f}us + epilogue ~{:.1f}us", engine_us, epilogue_us) : std::string("none"),
                             cudnn_us).c_str(),
                 stderr);
    if (engine && (!plan.supported || engine_us + epilogue_us < cudnn_us)) {
      plan.engine = std::move(engine);
      plan.supported = true;
      cudnn_us = engine_us + static_cast<float>(epilogue_us);
    }
  }
  // jitctl's own kernel, unless cuDNN is faster. JITCTL_CUDA_CONV=splitk takes it whenever it
  // applies (tests), =cudnn never.
  const char* choice = std::getenv("JITCTL_CUDA_CONV");
  const std::string_view forced = choice ? choice : "";
  if (p.groups == 1 && forced != "cudnn") {
    float splitk_us = 0;
    const SplitKShape s = splitk_shape_of(p);
    const int k = tune_splitk(s, x, w, y, &splitk_us);
    if (verbose)
      std::fputs(fmt::format("jitctl:   split-K: {}\n", k ? fmt::format("{} slices of {}, {:.1f}us", splitk_slices(s, k), k, splitk_us) : std::string("none")).c_str(),
                 stderr);
    if (k && (forced == "splitk" || !plan.supported || splitk_us < cudnn_us)) {
      plan.engine.reset();
      plan.splitk_k = k;
      plan.splitk_shape = s;
      plan.supported = true;
    }
  }
  if (!plan.supported) plan.why = "cuDNN found no algorithm for this configuration";
}

// The cached plan for `p` and these buffers, found on first use.
std::shared_ptr<const ConvPlan> plan_for(const cpu::ConvParams& p, const void* x, const void* w, void* y, const void* bias, const char* op) {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  const bool tf32_math = tf32();
  const PlanKey key{device, alignment({x, w, y, bias}), tf32_math ? 1 : 0, p.n, p.c, p.h, p.w, p.oc, p.kh, p.kw, p.sh, p.sw, p.ph, p.pw,
                    p.dh, p.dw, p.groups};
  PlanCache& cache = plan_cache();
  // Held through the search: searches of one configuration are not repeated, and measurements
  // do not run side by side and disturb each other.
  std::lock_guard lock(cache.mu);
  auto it = cache.plans.find(key);
  if (it != cache.plans.end()) return it->second;
  if (capturing()) throw CaptureBroken(fmt::format("{}: the first call of a convolution configuration cannot be captured (it measures cuDNN's algorithms)", op));
  std::shared_ptr<ConvPlan> plan = make_descriptors(p, tf32_math, op);
  choose_algorithm(*plan, p, tf32_math, key[1], x, w, y, op);
  cache.plans.emplace(key, plan);
  return plan;
}

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

// `residual` (may be null): relu(conv + bias + residual), the residual block's tail in one call.
void run_plan(const ConvPlan& plan, const void* x, const void* w, const void* bias, void* y, bool relu, const void* residual, const char* op) {
  if (plan.splitk_k) {
    const size_t scratch_bytes = static_cast<size_t>(splitk_workspace_floats(plan.splitk_shape, plan.splitk_k)) * sizeof(float);
    launch_conv_splitk(plan.splitk_shape, plan.splitk_k, static_cast<const float*>(x), static_cast<const float*>(w), static_cast<const float*>(bias),
                       static_cast<const float*>(residual), relu, static_cast<float*>(y),
                       scratch_bytes ? static_cast<float*>(workspace(scratch_bytes)) : nullptr, stream());
    check_launch(op);
    return;
  }
  if (plan.engine) {
    run_engine_plan(*plan.engine, x, w, y);
    launch_conv_epilogue(static_cast<float*>(y), static_cast<const float*>(bias), static_cast<const float*>(residual), relu, plan.n, plan.oc, plan.hw,
                         stream());
    check_launch(op);
    return;
  }
  cudnnHandle_t h = cudnn();
  const float one = 1.0f, zero = 0.0f;
  void* ws = plan.workspace_bytes ? workspace(plan.workspace_bytes) : nullptr;
  if (relu && bias) {
    // alpha2 = 0 without a residual: z (the output itself) is not read.
    ok(cudnnConvolutionBiasActivationForward(h, &one, plan.x, x, plan.w, w, plan.conv, plan.algo, ws, plan.workspace_bytes,
                                             residual ? &one : &zero, plan.y, residual ? residual : y, plan.bias, bias, plan.relu, plan.y, y),
       op, "cudnnConvolutionBiasActivationForward");
    return;
  }
  if (residual) throw std::logic_error("a residual is fused only with a bias and relu");
  ok(cudnnConvolutionForward(h, &one, plan.x, x, plan.w, w, plan.conv, plan.algo, ws, plan.workspace_bytes, &zero, plan.y, y), op,
     "cudnnConvolutionForward");
  if (bias) ok(cudnnAddTensor(h, &one, plan.bias, bias, &one, plan.y, y), op, "cudnnAddTensor");
  if (relu) ok(cudnnActivationForward(h, plan.relu, &one, plan.y, y, &zero, plan.y, y), op, "cudnnActivationForward");
}

// A view of `t` with a leading dim of 1 (an unbatched input, as conv1d/conv2d accept).
Tensor with_batch_dim(const Tensor& t) {
  std::vector<int64_t> sizes{1}, strides{std::max<int64_t>(t.numel(), 1)};
  sizes.insert(sizes.end(), t.sizes().begin(), t.sizes().end());
  strides.insert(strides.end(), t.strides().begin(), t.strides().end());
  return cpu::make_view(t, sizes, strides, t.storage_offset());
}

Tensor without_batch_dim(const Tensor& t) {
  std::vector<int64_t> sizes(t.sizes().begin() + 1, t.sizes().end());
  std::vector<int64_t> strides = contiguous_strides(sizes);
  return cpu::make_view(t, std::move(sizes), std::move(strides), t.storage_offset());
}

// conv1d/conv2d(.padding): (input, weight, bias?, stride, padding, dilation, groups).
Tensor conv_from_stack(const Stack& s, size_t nsp, const char* op) {
  const Tensor &input = s[0].to_tensor(), &weight = s[1].to_tensor();
  const Tensor bias = cpu::optional_tensor(s[2]);
  const cpu::ConvArgs a = cpu::conv_args_from_stack(s);
  if (weight.dim() != static_cast<int64_t>(nsp) + 2)
    throw InvalidInput(fmt::format("{}: expected a {}-D weight, got {}", op, nsp + 2, shape_string(weight.sizes())));
  if (input.dim() == weight.dim() - 1) return without_batch_dim(convolution(with_batch_dim(input), weight, bias, a, false, op));
  return convolution(input, weight, bias, a, false, op);
}

void k_conv1d(Stack& s) { cpu::set_output(s, IValue(conv_from_stack(s, 1, "conv1d"))); }
void k_conv2d(Stack& s) { cpu::set_output(s, IValue(conv_from_stack(s, 2, "conv2d"))); }

// _convolution, _convolution.deprecated, convolution: (input, weight, bias, stride, padding,
// dilation, transposed, output_padding, groups, ...flags). The flags (benchmark, deterministic,
// cudnn_enabled, allow_tf32) are PyTorch's backend choices; --tf32 decides here.
void k_convolution(Stack& s) {
  cpu::ConvArgs a;
  a.stride = cpu::int_list(s[3]);
  a.padding = cpu::int_list(s[4]);
  a.dilation = cpu::int_list(s[5]);
  a.transposed = s[6].to_bool();
  a.output_padding = cpu::int_list(s[7]);
  a.groups = s[8].to_int();
  Tensor r = convolution(s[0].to_tensor(), s[1].to_tensor(), cpu::optional_tensor(s[2]), a, false, "aten::_convolution");
  cpu::set_output(s, IValue(std::move(r)));
}

}  // namespace

Tensor convolution(const Tensor& input_arg, const Tensor& weight_arg, const Tensor& bias_arg, const cpu::ConvArgs& args, bool relu, const char* op,
                   const Tensor& residual_arg) {
  const cpu::ConvParams p = cpu::conv_params(input_arg, weight_arg, bias_arg, args, op);
  if (p.spatial_dims == 3) throw NotOnDevice(fmt::format("{}: 3-D convolution", op));
  if (residual_arg.defined()) {
    if (!relu || !bias_arg.defined()) throw NotOnDevice(fmt::format("{}: a fused residual needs a bias and relu", op));
    if (residual_arg.sizes() != p.out_sizes || residual_arg.dtype() != DType::Float32)
      throw NotOnDevice(fmt::format("{}: a residual of another shape or dtype (broadcast)", op));
  }
  if (input_arg.dtype() != DType::Float32) throw NotOnDevice(fmt::format("{}: dtype {} (float32 only)", op, dtype_name(input_arg.dtype())));
  if (p.transposed) throw NotOnDevice(fmt::format("{}: transposed convolution", op));
  if (p.ph_after != p.ph || p.pw_after != p.pw) throw NotOnDevice(fmt::format("{}: asymmetric padding", op));
  int64_t out_numel = 1;
  for (int64_t s : p.out_sizes) out_numel *= s;
  if (out_numel > 0 && input_arg.numel() == 0) throw NotOnDevice(fmt::format("{}: an empty input with a non-empty output", op));
  for (int64_t v : {p.n, p.c, p.h, p.w, p.oc, p.kh, p.kw, p.oh, p.ow, input_arg.numel(), weight_arg.numel(), out_numel})
    if (!fits_int(v)) throw NotOnDevice(fmt::format("{}: sizes beyond cuDNN's 32-bit limits", op));
  const Tensor x = contiguous(input_arg), w = contiguous(weight_arg);
  const Tensor b = bias_arg.defined() ? contiguous(bias_arg) : Tensor();
  Tensor out = empty(DType::Float32, p.out_sizes);
  if (out_numel == 0) return out;
  const void* bp = b.defined() ? address(b) : nullptr;
  const Tensor r = residual_arg.defined() ? contiguous(residual_arg) : Tensor();
  const std::shared_ptr<const ConvPlan> plan = plan_for(p, address(x), address(w), address(out), bp, op);
  if (!plan->supported) throw NotOnDevice(fmt::format("{}: {}", op, plan->why));
  run_plan(*plan, address(x), address(w), bp, address(out), relu, r.defined() ? address(r) : nullptr, op);
  return out;
}

// jitctl::conv2d_fused: (input, weight, bias?, stride, padding, dilation, groups, residual?, relu)
// -> relu?(conv2d(...) + residual?): the runtime's fusion of a convolution with the add and relu
// that consume it (lib/runtime/device_fusion.h). Batched 4-D input only.
void conv2d_fused_kernel(Stack& s) {
  const Tensor &input = s[0].to_tensor(), &weight = s[1].to_tensor();
  if (input.dim() != 4 || weight.dim() != 4) throw NotOnDevice("conv2d_fused: a batched 4-D input and weight only");
  const cpu::ConvArgs a = cpu::conv_args_from_stack(s);
  const Tensor residual = cpu::optional_tensor(s[7]);
  Tensor out = convolution(input, weight, cpu::optional_tensor(s[2]), a, s[8].to_bool(), "conv2d", residual);
  cpu::set_output(s, IValue(std::move(out)));
}


void register_conv_kernels() {
  register_kernel("aten::conv1d", k_conv1d, Backend::CUDA);
  register_kernel("aten::conv1d.padding", k_conv1d, Backend::CUDA);
  register_kernel("aten::conv2d", k_conv2d, Backend::CUDA);
  register_kernel("aten::conv2d.padding", k_conv2d, Backend::CUDA);
  register_kernel("aten::_convolution", k_convolution, Backend::CUDA);
  register_kernel("aten::_convolution.deprecated", k_convolution, Backend::CUDA);
  register_kernel("aten::convolution", k_convolution, Backend::CUDA);
  register_kernel("jitctl::conv2d_fused", conv2d_fused_kernel, Backend::CUDA);
}

}  // namespace jitctl::cuda
