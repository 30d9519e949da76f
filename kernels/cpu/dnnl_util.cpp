#include "kernels/cpu/dnnl_util.h"

#include <fmt/format.h>
#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemv.h"
#include "kernels/cpu/scratch.h"
#include "kernels/parallel.h"
#include "lib/core/error.h"

namespace jitctl::cpu {
namespace {

// Caps oneDNN at the ISA our own kernels use (JITCTL_ISA), before it creates any primitive.
void cap_dnnl_isa() {
  const auto& f = cpu_features();
  if (f.isa == f.detected) return;
  const dnnl::cpu_isa cap = f.isa == Isa::Avx2 ? dnnl::cpu_isa::avx2 : dnnl::cpu_isa::sse41;
  dnnl::set_max_cpu_isa(cap);
}

}  // namespace

const dnnl::engine& dnnl_engine() {
  static const dnnl::engine e = [] {
    cap_dnnl_isa();
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return e;
}

dnnl::stream& dnnl_stream() {
  thread_local dnnl::stream s(dnnl_engine());
  return s;
}

bool is_reference_impl(const char* impl_info) {
  // "ref:any", "ref_fused:...", "gemm:ref" and the like; no JIT kernel's name contains "ref".
  return std::string_view(impl_info).find("ref") != std::string_view::npos;
}

dnnl::convolution_forward::primitive_desc conv_primitive_desc(const dnnl::convolution_forward::desc& desc, const dnnl::primitive_attr& attr,
                                                              bool& without_post_ops) {
  without_post_ops = false;
  dnnl::convolution_forward::primitive_desc pd(desc, attr, dnnl_engine());
  if (attr.get_post_ops().len() == 0 || !is_reference_impl(pd.impl_info_str())) return pd;
  dnnl::primitive_attr plain;
  plain.set_scratchpad_mode(attr.get_scratchpad_mode());
  dnnl::convolution_forward::primitive_desc bare(desc, plain, dnnl_engine());
  if (is_reference_impl(bare.impl_info_str())) return pd;
  without_post_ops = true;
  return bare;
}

void execute_conv(const dnnl::convolution_forward& prim, const dnnl::convolution_forward::primitive_desc& pd, const dnnl::memory& src,
                  const dnnl::memory& weights, const dnnl::memory& bias, const dnnl::memory& dst, bool epilogue_after, const Epilogue& e) {
  const auto& eng = dnnl_engine();
  const size_t bytes = dst.get_desc().get_size();
  const dnnl::memory out = epilogue_after ? dnnl::memory(dst.get_desc(), eng, scratch_buffer(ScratchSlot::ConvAcc, bytes)) : dst;
  const dnnl::memory::desc pad_d = pd.scratchpad_desc();
  const dnnl::memory pad(pad_d, eng, scratch_buffer(ScratchSlot::Primitive, pad_d.get_size()));
  // The C call, its arguments on the stack: the C++ execute() takes them as an unordered_map, five
  // heap nodes and a bucket array a call.
  dnnl_exec_arg_t io[5] = {{DNNL_ARG_SRC, src.get()}, {DNNL_ARG_WEIGHTS, weights.get()}, {DNNL_ARG_DST, out.get()},
                           {DNNL_ARG_SCRATCHPAD, pad.get()}, {DNNL_ARG_BIAS, bias ? bias.get() : nullptr}};
  dnnl::error::wrap_c_api(dnnl_primitive_execute(prim.get(), dnnl_stream().get(), bias ? 5 : 4, io),
                          "could not execute a convolution");
  if (!epilogue_after) return;
  dnnl_stream().wait();
  finish_all_f32(static_cast<const float*>(out.get_data_handle()), e, static_cast<int64_t>(bytes / sizeof(float)),
                 static_cast<float*>(dst.get_data_handle()));
}

void copy_bytes_parallel(void* dst, const void* src, size_t bytes) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  parallel_for(0, static_cast<int64_t>(bytes), 16 * kGrainSize, [&](int64_t b, int64_t end) { std::memcpy(d + b, s + b, static_cast<size_t>(end - b)); });
}

dnnl::memory pack_weights(const dnnl::memory::desc& plain, const void* data, const dnnl::memory::desc& packed) {
  dnnl::memory user(plain, dnnl_engine(), const_cast<void*>(data));
  dnnl::memory out(packed, dnnl_engine());
  dnnl::reorder(user, out).execute(dnnl_stream(), user, out);
  dnnl_stream().wait();
  return out;
}

dnnl::post_ops dnnl_post_ops(const Epilogue& e) {
  using A = dnnl::algorithm;
  using K = PostOp::Kind;
  dnnl::post_ops po;
  for (const PostOp& p : e) {
    switch (p.kind) {
      case K::Relu: po.append_eltwise(1.f, A::eltwise_relu, 0.f, 0.f); break;
      case K::LeakyRelu: po.append_eltwise(1.f, A::eltwise_relu, p.a, 0.f); break;
      case K::Clamp: po.append_eltwise(1.f, A::eltwise_clip, p.a, p.b); break;
      case K::Silu: po.append_eltwise(1.f, A::eltwise_swish, 1.f, 0.f); break;
      case K::Hardswish: po.append_eltwise(1.f, A::eltwise_hardswish, 0.f, 0.f); break;
      case K::Hardsigmoid:
        po.append_eltwise(1.f, A::eltwise_linear, 1.f / 6.f, 0.5f);
        po.append_eltwise(1.f, A::eltwise_clip, 0.f, 1.f);
        break;
      case K::Sigmoid: po.append_eltwise(1.f, A::eltwise_logistic, 0.f, 0.f); break;
      case K::Tanh: po.append_eltwise(1.f, A::eltwise_tanh, 0.f, 0.f); break;
      case K::GeluErf: po.append_eltwise(1.f, A::eltwise_gelu_erf, 0.f, 0.f); break;
      case K::GeluTanh: po.append_eltwise(1.f, A::eltwise_gelu_tanh, 0.f, 0.f); break;
      case K::Add: po.append_sum(1.f); break;
    }
  }
  return po;
}

std::vector<int64_t> channels_last_strides(const std::vector<int64_t>& s) {
  const int64_t c = std::max<int64_t>(s[1], 1), w = std::max<int64_t>(s[3], 1), h = std::max<int64_t>(s[2], 1);
  return {h * w * c, 1, w * c, c};
}

bool is_channels_last(const Tensor& t) {
  if (t.dim() != 4) return false;
  const auto& s = t.sizes();
  const auto want = channels_last_strides(s);
  for (int i = 0; i < 4; ++i)
    if (s[i] != 1 && t.strides()[i] != want[i]) return false;
  return true;
}

int64_t channels_last_pixel_stride(const Tensor& t) {
  if (t.dim() != 4) return 0;
  if (is_channels_last(t)) return std::max<int64_t>(t.sizes()[1], 1);
  const auto& s = t.sizes();
  const auto& st = t.strides();
  // The pixel stride shows in the innermost dim of more than one element.
  const int64_t ld = s[3] > 1 ? st[3] : s[2] > 1 ? st[2] : s[0] > 1 ? st[0] : 0;
  if (ld < s[1] || (s[1] > 1 && st[1] != 1)) return 0;
  if ((s[3] > 1 && st[3] != ld) || (s[2] > 1 && st[2] != s[3] * ld) || (s[0] > 1 && st[0] != s[2] * s[3] * ld)) return 0;
  return ld;
}

dnnl::memory::desc dnnl_desc_of(const Tensor& t) {
  using dt = dnnl::memory::data_type;
  if (t.dtype() != DType::Float32) throw Unsupported(fmt::format("oneDNN kernels: dtype {} (float32 only)", dtype_name(t.dtype())));
  dnnl::memory::dims dims(t.sizes().begin(), t.sizes().end()), strides(t.strides().begin(), t.strides().end());
  return dnnl::memory::desc(dims, dt::f32, strides);
}

dnnl::memory dnnl_memory_of(const Tensor& t, const dnnl::memory::desc& d) {
  return dnnl::memory(d, dnnl_engine(), const_cast<void*>(t.data()));
}

namespace {

// About 2-5 us of work on one core here; measured with JITCTL_SMALL_WORK_FLOPS (tests/bench),
// which moves jitctl's own kernels' grain with it (kernels/parallel.h).
double small_work_flops() { return min_flops_per_thread(); }

}  // namespace

SmallWorkOnOneThread::SmallWorkOnOneThread(double flops) {
  if (flops >= small_work_flops() || omp_in_parallel()) return;
  const int n = omp_get_max_threads();
  if (n <= 1) return;
  restore_ = n;
  omp_set_num_threads(1);
}

SmallWorkOnOneThread::~SmallWorkOnOneThread() {
  if (restore_ > 0) omp_set_num_threads(restore_);
}

}  // namespace jitctl::cpu
