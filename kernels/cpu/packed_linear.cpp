#include "kernels/cpu/packed_linear.h"

#include <fmt/format.h>
#include <omp.h>


#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/gemv.h"
#include "kernels/cpu/linear.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/output.h"
#include "kernels/cpu/scratch.h"

namespace jitctl::cpu {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// One input geometry (rows, row stride) and thread count: the primitive oneDNN built for it and
// the weight packed for it.
struct PackedLinear::Primitive {
  int64_t rows, ld, ldo;
  int threads;
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
  dnnl::memory weights;  // packed
  dnnl::memory bias;     // empty when there is none
};

namespace {

constexpr size_t kMaxPlans = 8;

}  // namespace

PackedLinear::PackedLinear(Tensor weight, Tensor bias, Epilogue epilogue)
    : weight_(contiguous(weight)), bias_(bias.defined() ? contiguous(bias) : Tensor()), epilogue_(std::move(epilogue)) {
  n_ = weight_.sizes()[0];
  k_ = weight_.sizes()[1];
  if (Avx2PackedWeight::preferred())
    avx2_ = std::make_unique<const Avx2PackedWeight>(static_cast<const float*>(weight_.data()), n_, k_);
}

PackedLinear::~PackedLinear() = default;

bool PackedLinear::supports(const Tensor& weight, const Tensor& bias) {
  if (weight.dtype() != DType::Float32 || weight.dim() != 2 || weight.sizes()[0] == 0 || weight.sizes()[1] == 0) return false;
  return !bias.defined() || (bias.dtype() == DType::Float32 && bias.dim() == 1 && bias.sizes()[0] == weight.sizes()[0]);
}

std::shared_ptr<const PackedLinear::Primitive> PackedLinear::primitive_for(int64_t rows, int64_t ld, int64_t ldo) const {
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& pl : primitives_)
    if (pl->rows == rows && pl->ld == ld && pl->ldo == ldo && pl->threads == threads) return pl;
  const auto& eng = dnnl_engine();
  const dnnl::memory::desc src({rows, k_}, dt::f32, {ld, 1}), w_any({k_, n_}, dt::f32, tag::any), dst({rows, n_}, dt::f32, {ldo, 1});
  dnnl::primitive_attr attr;
  attr.set_post_ops(dnnl_post_ops(epilogue_));
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::memory::desc bias_d({1, n_}, dt::f32, tag::ab);
  auto desc = bias_.defined() ? dnnl::matmul::desc(src, w_any, bias_d, dst) : dnnl::matmul::desc(src, w_any, dst);
  auto plan = std::make_shared<Primitive>();
  plan->rows = rows;
  plan->ld = ld;
  plan->ldo = ldo;
  plan->threads = threads;
  plan->pd = dnnl::matmul::primitive_desc(desc, attr, eng);
  plan->prim = dnnl::matmul(plan->pd);
  for (const auto& pl : primitives_)
    if (pl->pd.weights_desc() == plan->pd.weights_desc()) plan->weights = pl->weights;
  if (!plan->weights) {
    // The weight [N, K] row-major is the [K, N] matrix the product wants, column-major.
    dnnl::memory user(dnnl::memory::desc({k_, n_}, dt::f32, tag::ba), eng, const_cast<void*>(weight_.data()));
    plan->weights = dnnl::memory(plan->pd.weights_desc(), eng);
    dnnl::reorder(user, plan->weights).execute(dnnl_stream(), user, plan->weights);
    dnnl_stream().wait();
  }
  if (bias_.defined()) plan->bias = dnnl::memory(bias_d, eng, const_cast<void*>(bias_.data()));
  if (primitives_.size() >= kMaxPlans) primitives_.erase(primitives_.begin());  // callers still running it hold their own reference
  primitives_.push_back(plan);
  return plan;
}

Tensor PackedLinear::run(const Tensor& input_arg, const Tensor& residual) const {
  if (input_arg.dim() == 0) throw InvalidInput("both arguments to linear need to be at least 1D, but they are 0D and 2D");
  check_same_dtype(input_arg, weight_);
  const int64_t ik = input_arg.sizes()[input_arg.dim() - 1];
  const int64_t rows = ik == 0 ? 0 : input_arg.numel() / ik;
  if (ik != k_)
    throw InvalidInput(fmt::format("mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", input_arg.dim() == 1 ? 1 : rows, ik, k_, n_));
  std::vector<int64_t> out_sizes(input_arg.sizes().begin(), input_arg.sizes().end() - 1);
  out_sizes.push_back(n_);
  const bool add = has_residual(epilogue_);
  if (add && (!residual.defined() || !broadcasts_to(residual.sizes(), out_sizes) || residual.dtype() != DType::Float32))
    throw InvalidInput(fmt::format("linear: the residual added to the output must broadcast to size {}, got {}", shape_string(out_sizes),
                                   residual.defined() ? shape_string(residual.sizes()) : "None"));
  // A residual nobody else can see (moved here at its last use: a transformer block's x in
  // x + fc2(...)) becomes the output, and the product adds into its bytes. Copying it first was a
  // pass over the activations on one thread, whose lines the other thread then had to take over.
  const bool in_place = add && residual.sole_owner() && residual.sizes() == out_sizes && residual.is_contiguous() &&
                        residual.storage_offset() == 0 && residual.data() != input_arg.data();
  Tensor out = in_place ? residual : new_output(DType::Float32, out_sizes);
  if (add && !in_place) {
    // A residual that broadcasts to the output (a bias-like [N] term, say) is expanded in the copy.
    if (residual.sizes() == out_sizes && residual.is_contiguous())
      copy_bytes_parallel(out.mutable_data(), residual.data(), out.nbytes());
    else
      copy_strided(expand_to(residual, out_sizes), out);
  }
  if (rows == 0) return out;
  Tensor input = input_arg;
  const auto folded = folded_row_stride(input);
  int64_t ld = folded.value_or(0);
  if (rows == 1) ld = k_;
  if (!folded || ld < k_ || (k_ > 1 && input.strides()[input.dim() - 1] != 1)) {
    input = contiguous(input);
    ld = k_;
  }
  run_rows(static_cast<const float*>(input.data()), rows, ld, static_cast<float*>(out.mutable_data()), n_);
  return out;
}

void PackedLinear::run_rows(const float* x, int64_t rows, int64_t ld, float* out, int64_t ldo) const {
  if (rows == 0) return;
  if (ld < k_ || ldo < n_) throw InvalidInput(fmt::format("linear: row strides {} and {} are shorter than the rows ({} and {})", ld, ldo, k_, n_));
  if (rows == 1) {
    // One row: a pass over the weights as stored; oneDNN's packed product costs more here.
    std::vector<float> acc(static_cast<size_t>(n_));
    gemv_f32(static_cast<const float*>(weight_.data()), x, n_, k_, acc.data());
    finish_row_f32(acc.data(), bias_.defined() ? static_cast<const float*>(bias_.data()) : nullptr, epilogue_, n_, out);
    return;
  }
  const SmallWorkOnOneThread small(2.0 * static_cast<double>(rows) * static_cast<double>(k_) * static_cast<double>(n_));
  if (avx2_) return avx2_->multiply(x, rows, ld, bias_.defined() ? static_cast<const float*>(bias_.data()) : nullptr, epilogue_, out, ldo);
  const auto prim_ref = primitive_for(rows, ld, ldo);
  const Primitive& plan = *prim_ref;
  const auto& eng = dnnl_engine();
  auto& stream = dnnl_stream();
  dnnl::memory src(plan.pd.src_desc(), eng, const_cast<float*>(x));
  dnnl::memory dst(plan.pd.dst_desc(), eng, out);
  dnnl::memory pad(plan.pd.scratchpad_desc(), eng, scratch_buffer(ScratchSlot::Linear, plan.pd.scratchpad_desc().get_size()));
  std::unordered_map<int, dnnl::memory> io{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, plan.weights}, {DNNL_ARG_DST, dst}, {DNNL_ARG_SCRATCHPAD, pad}};
  if (plan.bias) io.emplace(DNNL_ARG_BIAS, plan.bias);
  plan.prim.execute(stream, io);
  stream.wait();
}

}  // namespace jitctl::cpu
