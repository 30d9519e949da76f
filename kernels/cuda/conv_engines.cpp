#include "kernels/cuda/conv_engines.h"

#include <cudnn.h>
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "kernels/cuda/context.h"

namespace jitctl::cuda {
namespace {

constexpr size_t kMaxWorkspace = size_t{256} << 20;
constexpr int kMaxConfigs = 10;  // of each heuristics list, best first
constexpr int64_t kX = 1, kW = 2, kY = 3;  // the tensors' unique ids in the graph

// A backend descriptor, destroyed with its owner. Any failure while building one makes the
// caller give up on the engine path (the legacy algorithms remain), so errors are bools here.
struct Desc {
  cudnnBackendDescriptor_t d = nullptr;
  explicit Desc(cudnnBackendDescriptorType_t type) {
    if (cudnnBackendCreateDescriptor(type, &d) != CUDNN_STATUS_SUCCESS) d = nullptr;
  }
  ~Desc() {
    if (d) cudnnBackendDestroyDescriptor(d);
  }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  Desc(Desc&& o) noexcept : d(o.d) { o.d = nullptr; }
  template <class T>
  bool set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count, const T* values) {
    return d && cudnnBackendSetAttribute(d, name, type, count, values) == CUDNN_STATUS_SUCCESS;
  }
  bool finalize() { return d && cudnnBackendFinalize(d) == CUDNN_STATUS_SUCCESS; }
};

bool tensor(Desc& t, int64_t uid, const std::vector<int64_t>& dims, int64_t alignment) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  return t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32) &&
         t.set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, static_cast<int64_t>(dims.size()), dims.data()) &&
         t.set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, static_cast<int64_t>(strides.size()), strides.data()) &&
         t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid) &&
         t.set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment) && t.finalize();
}

// Whether the engine of `cfg` may be tried: not one compiled at run time (NVRTC: seconds per
// shape on the first call), and with `tf32` false not one computing through tensor cores (TF32
// for fp32 data).
bool usable(cudnnBackendDescriptor_t cfg, bool tf32) {
  Desc engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  int64_t n = 0;
  if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &engine.d) != CUDNN_STATUS_SUCCESS)
    return false;
  cudnnBackendBehaviorNote_t behavior[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
  int64_t nb = 0;
  if (cudnnBackendGetAttribute(engine.d, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &nb, behavior) !=
      CUDNN_STATUS_SUCCESS)
    return false;
  for (int64_t i = 0; i < nb; ++i)
    if (behavior[i] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) return false;
  if (tf32) return true;
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  int64_t count = 0;
  if (cudnnBackendGetAttribute(engine.d, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &count, notes) !=
      CUDNN_STATUS_SUCCESS)
    return false;
  for (int64_t i = 0; i < count; ++i)
    if (notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE || notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) return false;
  return true;
}

}  // namespace

class EnginePlan {
 public:
  Desc plan{CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR};
  int64_t workspace_bytes = 0;
};

namespace {

bool execute(const EnginePlan& p, const void* x, const void* w, void* y, void* ws) {
  Desc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  void* ptrs[3] = {const_cast<void*>(x), const_cast<void*>(w), y};
  const int64_t uids[3] = {kX, kW, kY};
  if (!pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs) ||
      !pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids) ||
      !pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws) || !pack.finalize())
    return false;
  return cudnnBackendExecute(cudnn(), p.plan.d, pack.d) == CUDNN_STATUS_SUCCESS;
}

}  // namespace

std::shared_ptr<EnginePlan> tune_engine_plan(const cpu::ConvParams& p, bool tf32, int64_t alignment, const void* x, const void* w, void* y,
                                             float* us) {
  Desc xd(CUDNN_BACKEND_TENSOR_DESCRIPTOR), wd(CUDNN_BACKEND_TENSOR_DESCRIPTOR), yd(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  if (!tensor(xd, kX, {p.n, p.c, p.h, p.w}, alignment) || !tensor(wd, kW, {p.oc, p.c / p.groups, p.kh, p.kw}, alignment) ||
      !tensor(yd, kY, {p.n, p.oc, p.oh, p.ow}, alignment))
    return nullptr;
  Desc conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const int64_t dims = 2, dil[2] = {p.dh, p.dw}, str[2] = {p.sh, p.sw}, pre[2] = {p.ph, p.pw}, post[2] = {p.ph_after, p.pw_after};
  if (!conv.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32) ||
      !conv.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode) ||
      !conv.set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims) ||
      !conv.set(CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil) ||
      !conv.set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, str) ||
      !conv.set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pre) ||
      !conv.set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, post) || !conv.finalize())
    return nullptr;
  Desc op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  const float alpha = 1.0f, beta = 0.0f;
  if (!op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &xd.d) ||
      !op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &wd.d) ||
      !op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &yd.d) ||
      !op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv.d) ||
      !op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha) ||
      !op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta) || !op.finalize())
    return nullptr;
  Desc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  cudnnHandle_t h = cudnn();
  if (!graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op.d) ||
      !graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h) || !graph.finalize())
    return nullptr;
  // The heuristics' ranked list (mode A), then the fallback list, which holds the engines that
  // compute without tensor cores for shapes where mode A lists only tensor-core ones.
  std::vector<Desc> cfgs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (cudnnBackendHeurMode_t heur_mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    Desc heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    if (!heur.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph.d) ||
        !heur.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &heur_mode) || !heur.finalize())
      continue;
    int64_t available = 0;
    if (cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &available, nullptr) != CUDNN_STATUS_SUCCESS)
      continue;
    const int64_t wanted = std::min<int64_t>(available, kMaxConfigs);
    if (wanted <= 0) continue;
    std::vector<Desc> these;
    std::vector<cudnnBackendDescriptor_t> these_raw;
    for (int64_t i = 0; i < wanted; ++i) {
      these.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
      these_raw.push_back(these.back().d);
    }
    int64_t got = 0;
    if (cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, wanted, &got, these_raw.data()) !=
        CUDNN_STATUS_SUCCESS)
      continue;
    for (int64_t i = 0; i < got; ++i) {
      raw.push_back(these_raw[static_cast<size_t>(i)]);
      cfgs.push_back(std::move(these[static_cast<size_t>(i)]));
    }
  }
  const int64_t got = static_cast<int64_t>(raw.size());
  if (got == 0) return nullptr;

  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::shared_ptr<EnginePlan> best;
  float best_us = 0;
  for (int64_t i = 0; i < got; ++i) {
    if (!usable(raw[static_cast<size_t>(i)], tf32)) continue;
    auto plan = std::make_shared<EnginePlan>();
    if (!plan->plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h) ||
        !plan->plan.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw[static_cast<size_t>(i)]) ||
        !plan->plan.finalize())
      continue;
    int64_t n = 0;
    if (cudnnBackendGetAttribute(plan->plan.d, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &plan->workspace_bytes) !=
            CUDNN_STATUS_SUCCESS ||
        plan->workspace_bytes < 0 || static_cast<size_t>(plan->workspace_bytes) > kMaxWorkspace)
      continue;
    void* ws = plan->workspace_bytes ? workspace(static_cast<size_t>(plan->workspace_bytes)) : nullptr;
    // One untimed call (and a check that it runs at all), then the best of three.
    if (!execute(*plan, x, w, y, ws)) {
      (void)cudaGetLastError();
      continue;
    }
    float fastest = -1;
    for (int rep = 0; rep < 3; ++rep) {
      check(cudaEventRecord(start, stream()), "cudaEventRecord");
      const bool ran = execute(*plan, x, w, y, ws);
      check(cudaEventRecord(stop, stream()), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      if (!ran || cudaEventElapsedTime(&ms, start, stop) != cudaSuccess) {
        fastest = -1;
        break;
      }
      if (fastest < 0 || ms < fastest) fastest = ms;
    }
    if (fastest < 0) continue;
    if (!best || fastest * 1000 < best_us) {
      best = plan;
      best_us = fastest * 1000;
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  (void)cudaGetLastError();
  if (us) *us = best_us;
  return best;
}

void run_engine_plan(const EnginePlan& plan, const void* x, const void* w, void* y) {
  void* ws = plan.workspace_bytes ? workspace(static_cast<size_t>(plan.workspace_bytes)) : nullptr;
  if (!execute(plan, x, w, y, ws)) check(CUDNN_STATUS_EXECUTION_FAILED, "cudnnBackendExecute (convolution)");
}

}  // namespace jitctl::cuda
