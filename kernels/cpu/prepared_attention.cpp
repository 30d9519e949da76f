// Prepared forms of _native_multi_head_attention (self-attention) and
// _transformer_encoder_layer_fwd for float32 with constant weights (attention.h). Every product
// runs on a PackedLinear: the qkv projection with its bias, the output projection with the
// residual add (encoder layer), the first feed-forward product with its bias and ReLU/GELU, the
// second with the residual add; the heads read q, k and v in place (attention_core.h). The
// layer's intermediate rows live in a per-thread buffer kept between calls.
#include <cmath>
#include <cstring>

#include "kernels/cpu/attention.h"
#include "kernels/cpu/attention_core.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/norm.h"
#include "kernels/cpu/output.h"
#include "kernels/cpu/packed_linear.h"
#include "kernels/cpu/scratch.h"

namespace jitctl::cpu {
namespace {

using Constants = std::vector<std::optional<IValue>>;

std::optional<int64_t> const_int(const Constants& c, size_t i) {
  if (i >= c.size() || !c[i] || !c[i]->is(IValue::Kind::Int)) return std::nullopt;
  return c[i]->to_int();
}

std::optional<bool> const_bool(const Constants& c, size_t i) {
  if (i >= c.size() || !c[i] || !c[i]->is(IValue::Kind::Bool)) return std::nullopt;
  return c[i]->to_bool();
}

// Input i as a float32 constant tensor of exactly `sizes`, contiguous.
std::optional<Tensor> const_f32(const Constants& c, size_t i, const std::vector<int64_t>& sizes) {
  if (i >= c.size() || !c[i] || !c[i]->is_tensor()) return std::nullopt;
  const Tensor& t = c[i]->to_tensor();
  if (t.dtype() != DType::Float32 || t.sizes() != sizes) return std::nullopt;
  return contiguous(t);
}

// The input the prepared forms take: float32 [B, T, E]; anything else runs the plain kernel.
bool takes(const IValue& v, int64_t e) {
  if (!v.is_tensor()) return false;
  const Tensor& t = v.to_tensor();
  return t.dtype() == DType::Float32 && t.dim() == 3 && t.sizes()[2] == e && t.numel() > 0;
}

float* layer_buffer(size_t floats) { return static_cast<float*>(scratch_buffer(ScratchSlot::Layer, floats * sizeof(float))); }

// Self-attention with packed projections: out rows = proj(attention(qkv(x))) (+ the residual
// already in `out` when `proj` ends in an Add).
struct PackedSelfAttention {
  int64_t e = 0, heads = 0;
  std::unique_ptr<PackedLinear> qkv, proj;

  // qkv_rows: [rows, 3E] scratch, ctx: [rows, E] scratch.
  void run(const float* x, int64_t batch, int64_t seq, const AttentionMask& mask, float* qkv_rows, float* ctx, float* out, float* weights) const {
    const int64_t rows = batch * seq;
    qkv->run_rows(x, rows, e, qkv_rows, 3 * e);
    const float scale = 1.0f / std::sqrt(static_cast<float>(e / heads));
    attention_heads<float>(qkv_rows, qkv_rows + e, qkv_rows + 2 * e, 3 * e, batch, seq, e, heads, scale, mask, ctx, e, weights);
    proj->run_rows(ctx, rows, e, out, e);
  }
};

// (query, key, value, embed_dim, num_head, qkv_weight, qkv_bias, proj_weight, proj_bias, mask?,
//  need_weights, average_attn_weights, mask_type?)
class PreparedMha final : public PreparedKernel {
 public:
  explicit PreparedMha(PackedSelfAttention a) : a_(std::move(a)) {}

  void run(Stack& s) const override {
    if (!takes(s[0], a_.e) || !s[1].is_tensor() || !s[2].is_tensor() || !s[1].to_tensor().same(s[0].to_tensor()) ||
        !s[2].to_tensor().same(s[0].to_tensor()) || !s[10].is(IValue::Kind::Bool) || !s[11].is(IValue::Kind::Bool))
      return native_mha_kernel(s);
    const Tensor x = contiguous(s[0].to_tensor());
    const int64_t batch = x.sizes()[0], seq = x.sizes()[1], e = a_.e, heads = a_.heads, rows = batch * seq;
    const bool need_weights = s[10].to_bool(), average = s[11].to_bool();
    const AttentionMask mask = make_attention_mask(optional_tensor(s[9]), batch, heads, seq, seq, s[12]);
    Tensor out = new_output(DType::Float32, x.sizes());
    Tensor weights = need_weights ? new_output(DType::Float32, {batch, heads, seq, seq}) : Tensor();
    float* buf = layer_buffer(static_cast<size_t>(rows * 4 * e));
    a_.run(static_cast<const float*>(x.data()), batch, seq, mask, buf, buf + rows * 3 * e, static_cast<float*>(out.mutable_data()),
           need_weights ? static_cast<float*>(weights.mutable_data()) : nullptr);
    IValue second;
    if (need_weights && average) {
      Tensor averaged = new_output(DType::Float32, {batch, seq, seq});
      average_heads(static_cast<const float*>(weights.data()), batch, heads, seq * seq,
                    static_cast<float*>(averaged.mutable_data()));
      second = IValue(std::move(averaged));
    } else if (need_weights) {
      second = IValue(std::move(weights));
    }
    s.assign({IValue(std::move(out)), std::move(second)});
  }

 private:
  PackedSelfAttention a_;
};

// (src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias, use_gelu, norm_first,
//  eps, norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2, ffn_weight_1, ffn_bias_1,
//  ffn_weight_2, ffn_bias_2, mask?, mask_type?)
class PreparedEncoderLayer final : public PreparedKernel {
 public:
  PackedSelfAttention attn;
  bool norm_first = false;
  double eps = 1e-5;
  Tensor ln1w, ln1b, ln2w, ln2b;
  std::unique_ptr<PackedLinear> ffn1, ffn2;  // bias and activation; bias and residual add

  void run(Stack& s) const override {
    if (!takes(s[0], attn.e)) return encoder_layer_kernel(s);
    const Tensor x_t = contiguous(s[0].to_tensor());
    const int64_t batch = x_t.sizes()[0], seq = x_t.sizes()[1], e = attn.e, rows = batch * seq, ff = ffn1->out_features();
    const AttentionMask mask = make_attention_mask(optional_tensor(s[18]), batch, attn.heads, seq, seq, s[19]);
    const size_t n = static_cast<size_t>(rows * e);
    // [qkv: 3n | ctx: n | residual: n | normed: n | hidden: rows * ff]
    float* qkv = layer_buffer(6 * n + static_cast<size_t>(rows * ff));
    float* ctx = qkv + 3 * n;
    float* res = ctx + n;
    float* normed = res + n;
    float* hidden = normed + n;
    const float* x = static_cast<const float*>(x_t.data());
    Tensor out_t = new_output(DType::Float32, x_t.sizes());
    float* out = static_cast<float*>(out_t.mutable_data());
    auto norm = [&](const float* in, float* o, const Tensor& w, const Tensor& b) {
      layer_norm_rows<float>(in, o, rows, e, static_cast<const float*>(w.data()), static_cast<const float*>(b.data()), eps);
    };
    // res = x + attention(norm_first ? LN1(x) : x); LN1 after when not norm_first.
    std::memcpy(res, x, n * sizeof(float));
    if (norm_first) norm(x, normed, ln1w, ln1b);
    attn.run(norm_first ? normed : x, batch, seq, mask, qkv, ctx, res, nullptr);
    if (!norm_first) norm(res, res, ln1w, ln1b);
    // out = res + ffn(norm_first ? LN2(res) : res); LN2 after when not norm_first.
    if (norm_first) norm(res, normed, ln2w, ln2b);
    ffn1->run_rows(norm_first ? normed : res, rows, e, hidden, ff);
    std::memcpy(out, res, n * sizeof(float));
    ffn2->run_rows(hidden, rows, ff, out, e);
    if (!norm_first) norm(out, out, ln2w, ln2b);
    s.assign(1, IValue(std::move(out_t)));
  }
};

// The packed self-attention from inputs (embed_dim, num_heads, qkv_weight, qkv_bias,
// proj_weight, proj_bias) at `at`, or nullopt.
std::optional<PackedSelfAttention> self_attention(const Constants& c, size_t at, bool residual) {
  auto e = const_int(c, at), heads = const_int(c, at + 1);
  if (!e || !heads || *e <= 0 || *heads <= 0 || *e % *heads != 0) return std::nullopt;
  auto qw = const_f32(c, at + 2, {3 * *e, *e}), qb = const_f32(c, at + 3, {3 * *e});
  auto pw = const_f32(c, at + 4, {*e, *e}), pb = const_f32(c, at + 5, {*e});
  if (!qw || !qb || !pw || !pb) return std::nullopt;
  PackedSelfAttention a;
  a.e = *e;
  a.heads = *heads;
  a.qkv = std::make_unique<PackedLinear>(*qw, *qb, Epilogue{});
  a.proj = std::make_unique<PackedLinear>(*pw, *pb, residual ? Epilogue{PostOp{PostOp::Kind::Add}} : Epilogue{});
  return a;
}

}  // namespace

std::unique_ptr<PreparedKernel> prepare_native_mha(const Constants& c) {
  if (c.size() != 13) return nullptr;
  auto a = self_attention(c, 3, false);
  if (!a) return nullptr;
  return std::make_unique<PreparedMha>(std::move(*a));
}

std::unique_ptr<PreparedKernel> prepare_encoder_layer(const Constants& c) {
  if (c.size() != 20) return nullptr;
  auto a = self_attention(c, 1, true);
  auto gelu = const_bool(c, 7), norm_first = const_bool(c, 8);
  if (!a || !gelu || !norm_first || !c[9] || !c[9]->is(IValue::Kind::Double)) return nullptr;
  const int64_t e = a->e;
  auto f1 = c[14] && c[14]->is_tensor() ? std::optional<Tensor>(c[14]->to_tensor()) : std::nullopt;
  if (!f1 || f1->dim() != 2 || f1->sizes()[1] != e || f1->sizes()[0] <= 0) return nullptr;
  const int64_t ff = f1->sizes()[0];
  auto ln1w = const_f32(c, 10, {e}), ln1b = const_f32(c, 11, {e}), ln2w = const_f32(c, 12, {e}), ln2b = const_f32(c, 13, {e});
  auto w1 = const_f32(c, 14, {ff, e}), b1 = const_f32(c, 15, {ff}), w2 = const_f32(c, 16, {e, ff}), b2 = const_f32(c, 17, {e});
  if (!ln1w || !ln1b || !ln2w || !ln2b || !w1 || !b1 || !w2 || !b2) return nullptr;
  auto layer = std::make_unique<PreparedEncoderLayer>();
  layer->attn = std::move(*a);
  layer->norm_first = *norm_first;
  layer->eps = c[9]->to_double();
  layer->ln1w = *ln1w;
  layer->ln1b = *ln1b;
  layer->ln2w = *ln2w;
  layer->ln2b = *ln2b;
  layer->ffn1 = std::make_unique<PackedLinear>(*w1, *b1, Epilogue{PostOp{*gelu ? PostOp::Kind::GeluErf : PostOp::Kind::Relu}});
  layer->ffn2 = std::make_unique<PackedLinear>(*w2, *b2, Epilogue{PostOp{PostOp::Kind::Add}});
  return layer;
}

}  // namespace jitctl::cpu
