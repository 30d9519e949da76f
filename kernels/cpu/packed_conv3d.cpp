#include "kernels/cpu/packed_conv3d.h"

#include <omp.h>

#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/output.h"
#include "kernels/cpu/scratch.h"

namespace jitctl::cpu {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// One input geometry and thread count: oneDNN's primitive for it and the weight packed for it.
struct PackedConv3d::Primitive {
  int64_t n, d, h, w;
  int threads;
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  dnnl::memory weights;  // packed
  dnnl::memory bias;     // empty when there is none
  dnnl::memory::desc ndhwc_src, ndhwc_dst, ncdhw_dst;
  dnnl::reorder to_ncdhw;
  // As PackedConv's: oneDNN had only its reference kernel with the post-ops, so it runs without
  // them into scratch and the epilogue is applied after.
  bool epilogue_after = false;
};

namespace {

constexpr size_t kMaxPlans = 8;

bool same_layout(const dnnl::memory::desc& d, tag t) { return d == dnnl::memory::desc(d.dims(), dt::f32, t); }

}  // namespace

std::vector<int64_t> channels_last_3d_strides(const std::vector<int64_t>& s) {
  return {s[1] * s[2] * s[3] * s[4], 1, s[3] * s[4] * s[1], s[4] * s[1], s[1]};
}

PackedConv3d::PackedConv3d(Tensor weight, Tensor bias, Epilogue epilogue)
    : weight_(std::move(weight)), bias_(std::move(bias)), epilogue_(std::move(epilogue)) {}

PackedConv3d::~PackedConv3d() = default;

std::shared_ptr<const PackedConv3d::Primitive> PackedConv3d::plan_for(const ConvParams& p) const {
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& pl : plans_)
    if (pl->n == p.n && pl->d == p.d && pl->h == p.h && pl->w == p.w && pl->threads == threads) return pl;
  const auto& eng = dnnl_engine();
  const int64_t g = p.groups;
  const dnnl::memory::dims src{p.n, p.c, p.d, p.h, p.w}, dst{p.n, p.oc, p.od, p.oh, p.ow};
  const dnnl::memory::dims wdims = g == 1 ? dnnl::memory::dims{p.oc, p.c, p.kd, p.kh, p.kw}
                                          : dnnl::memory::dims{g, p.oc / g, p.c / g, p.kd, p.kh, p.kw};
  auto plan = std::make_shared<Primitive>();
  plan->n = p.n;
  plan->d = p.d;
  plan->h = p.h;
  plan->w = p.w;
  plan->threads = threads;
  plan->ndhwc_src = dnnl::memory::desc(src, dt::f32, tag::ndhwc);
  plan->ndhwc_dst = dnnl::memory::desc(dst, dt::f32, tag::ndhwc);
  plan->ncdhw_dst = dnnl::memory::desc(dst, dt::f32, tag::ncdhw);
  const dnnl::memory::desc w_any(wdims, dt::f32, tag::any);
  const dnnl::memory::dims strides{p.sd, p.sh, p.sw}, dil{p.dd - 1, p.dh - 1, p.dw - 1}, pad_l{p.pd, p.ph, p.pw},
      pad_r{p.pd_after, p.ph_after, p.pw_after};
  const auto kind = dnnl::prop_kind::forward_inference;
  const auto alg = dnnl::algorithm::convolution_direct;
  const auto desc = bias_.defined() ? dnnl::convolution_forward::desc(kind, alg, plan->ndhwc_src, w_any, dnnl::memory::desc({p.oc}, dt::f32, tag::x),
                                                                      plan->ndhwc_dst, strides, dil, pad_l, pad_r)
                                    : dnnl::convolution_forward::desc(kind, alg, plan->ndhwc_src, w_any, plan->ndhwc_dst, strides, dil, pad_l, pad_r);
  dnnl::primitive_attr attr;
  attr.set_post_ops(dnnl_post_ops(epilogue_));
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  plan->pd = conv_primitive_desc(desc, attr, plan->epilogue_after);
  plan->prim = dnnl::convolution_forward(plan->pd);
  for (const auto& pl : plans_)
    if (pl->pd.weights_desc() == plan->pd.weights_desc()) plan->weights = pl->weights;
  if (!plan->weights)
    plan->weights = pack_weights(dnnl::memory::desc(wdims, dt::f32, g == 1 ? tag::oidhw : tag::goidhw), weight_.data(), plan->pd.weights_desc());
  if (bias_.defined()) plan->bias = dnnl::memory(dnnl::memory::desc({p.oc}, dt::f32, tag::x), eng, const_cast<void*>(bias_.data()));
  plan->to_ncdhw = dnnl::reorder(dnnl::reorder::primitive_desc(eng, plan->ndhwc_dst, eng, plan->ncdhw_dst));
  if (plans_.size() >= kMaxPlans) plans_.erase(plans_.begin());  // callers still running it hold their own reference
  plans_.push_back(plan);
  return plan;
}

Tensor PackedConv3d::run(const Tensor& input, const Tensor& residual, const ConvParams& p, bool channels_last_out) const {
  const auto plan_ref = plan_for(p);
  const Primitive& plan = *plan_ref;
  const auto& eng = dnnl_engine();
  auto& stream = dnnl_stream();

  const dnnl::memory::desc in_d = dnnl_desc_of(input);
  dnnl::memory src;
  if (same_layout(in_d, tag::ndhwc)) {
    src = dnnl::memory(plan.ndhwc_src, eng, const_cast<void*>(input.data()));
  } else {
    src = dnnl::memory(plan.ndhwc_src, eng, scratch_buffer(ScratchSlot::ConvSrc, plan.ndhwc_src.get_size()));
    dnnl::memory user(in_d, eng, const_cast<void*>(input.data()));
    dnnl::reorder(user, src).execute(stream, user, src);
  }

  // The sum post-op (or finish_row_f32) adds to what dst holds: the residual, in dst's layout. A
  // channels-last residual nobody else can see (moved here at its last use) is the output itself.
  const bool add = has_residual(epilogue_);
  const dnnl::memory::desc res_d = add ? dnnl_desc_of(residual) : dnnl::memory::desc();
  const bool res_ndhwc = add && same_layout(res_d, tag::ndhwc);
  const bool in_place = res_ndhwc && channels_last_out && residual.sole_owner() && residual.storage_offset() == 0 && residual.data() != input.data();
  Tensor out = in_place            ? residual
               : channels_last_out ? new_output_strided(DType::Float32, p.out_sizes, channels_last_3d_strides(p.out_sizes))
                                   : new_output(DType::Float32, p.out_sizes);
  dnnl::memory dst = channels_last_out ? dnnl::memory(plan.ndhwc_dst, eng, out.mutable_data())
                                       : dnnl::memory(plan.ndhwc_dst, eng, scratch_buffer(ScratchSlot::ConvDst, plan.ndhwc_dst.get_size()));
  if (add && !in_place) {
    if (res_ndhwc) {
      copy_bytes_parallel(dst.get_data_handle(), residual.data(), plan.ndhwc_dst.get_size());
    } else {
      dnnl::memory r(res_d, eng, const_cast<void*>(residual.data()));
      dnnl::reorder(r, dst).execute(stream, r, dst);
    }
  }
  execute_conv(plan.prim, plan.pd, src, plan.weights, plan.bias, dst, plan.epilogue_after, epilogue_);
  stream.wait();
  if (!channels_last_out) {
    dnnl::memory o(plan.ncdhw_dst, eng, out.mutable_data());
    plan.to_ncdhw.execute(stream, dst, o);
    stream.wait();
  }
  return out;
}

}  // namespace jitctl::cpu
