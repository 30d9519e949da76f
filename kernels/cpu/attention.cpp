// Attention: scaled_dot_product_attention (PyTorch 2.x), and the transformer fast path of torch
// 1.13 and 2.x (nn.TransformerEncoderLayer / nn.MultiheadAttention in evaluation): _native_multi_head_attention and _transformer_encoder_layer_fwd, with ATen's
// order of operations: q = (x Wqᵀ + bq) / sqrt(head_dim), softmax(q kᵀ) v per head, output
// projection; the encoder layer adds residuals, layer norms (before or after) and the
// feed-forward block (relu or exact gelu). Nested tensors (padding masks turned into ragged
// batches) are not supported (Unsupported when reached); a key-padding or attention mask is.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/attention.h"

#include "kernels/cpu/activations.h"
#include "kernels/cpu/attention_core.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/norm.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/parallel.h"
#include "kernels/prepared.h"
#include "kernels/registry.h"

namespace jitctl::cpu {
namespace {

// out[rows, n] = x[rows, k] wᵀ (+ bias); w is [n, k] row-major.
template <class T>
void linear_rows(const T* x, int64_t rows, int64_t k, const T* w, int64_t n, const T* bias, T* out, int64_t ldo) {
  if (bias)
    for (int64_t r = 0; r < rows; ++r) std::copy(bias, bias + n, out + r * ldo);
  gemm<T>(row_major(x, rows, k, k), transposed(row_major(w, n, k, k)), out, ldo, T(1), bias ? T(1) : T(0));
}

const Tensor& checked(const Tensor& t, std::vector<int64_t> sizes, const char* what) {
  if (t.sizes() != sizes)
    throw InvalidInput(fmt::format("_native_multi_head_attention: expected `{}` of size {}, got {}", what, shape_string(sizes), shape_string(t.sizes())));
  return t;
}

struct MhaWeights {
  Tensor qkv_w, qkv_b, proj_w, proj_b;  // contiguous
};

MhaWeights mha_weights(const IValue& qw, const IValue& qb, const IValue& pw, const IValue& pb, int64_t e) {
  check_mha_weights(qw, qb, pw, pb, e);
  return {contiguous(qw.to_tensor()), contiguous(qb.to_tensor()), contiguous(pw.to_tensor()), contiguous(pb.to_tensor())};
}

// Multi-head attention of contiguous [B, T, E] inputs into out [B, T, E]; the attention weights
// [B, H, T, T] go to `weights` when it is not null.
template <class T>
void mha(const T* q_in, const T* k_in, const T* v_in, int64_t batch, int64_t seq, int64_t e, int64_t heads, const MhaWeights& w, const AttentionMask& mask,
         T* out, T* weights) {
  const int64_t dh = e / heads, rows = batch * seq;
  const T* wq = data_of<T>(w.qkv_w);
  const T* bq = data_of<T>(w.qkv_b);
  // qkv[r, 0:E | E:2E | 2E:3E] = projections of q, k, v with their biases.
  std::vector<T> qkv(static_cast<size_t>(rows * 3 * e));
  if (q_in == k_in && k_in == v_in) {
    linear_rows<T>(q_in, rows, e, wq, 3 * e, bq, qkv.data(), 3 * e);
  } else {
    linear_rows<T>(q_in, rows, e, wq, e, bq, qkv.data(), 3 * e);
    linear_rows<T>(k_in, rows, e, wq + e * e, e, bq + e, qkv.data() + e, 3 * e);
    linear_rows<T>(v_in, rows, e, wq + 2 * e * e, e, bq + 2 * e, qkv.data() + 2 * e, 3 * e);
  }
  const T scale = T(1) / std::sqrt(static_cast<T>(dh));
  std::vector<T> ctx(static_cast<size_t>(rows * e));  // [B, T, H * dh]
  attention_heads<T>(qkv.data(), qkv.data() + e, qkv.data() + 2 * e, 3 * e, batch, seq, e, heads, scale, mask, ctx.data(), e, weights);
  linear_rows<T>(ctx.data(), rows, e, data_of<T>(w.proj_w), e, data_of<T>(w.proj_b), out, e);
}

}  // namespace

void check_mha_inputs(const Tensor& q, const Tensor& k, const Tensor& v, int64_t e, int64_t heads) {
  if (q.dim() != 3) throw InvalidInput(fmt::format("expected 3-D `query`, got {}-D tensor", q.dim()));
  if (q.sizes()[2] != e) throw InvalidInput(fmt::format("passed-in embed_dim {} didn't match last dim of query {}", e, q.sizes()[2]));
  if (k.dim() != 3) throw InvalidInput(fmt::format("expected 3-D `key`, got {}-D tensor", k.dim()));
  if (v.dim() != 3) throw InvalidInput(fmt::format("expected 3-D `value`, got {}-D tensor", v.dim()));
  if (q.sizes() != k.sizes() || k.sizes() != v.sizes()) throw InvalidInput("expected `query`/`key`/`value` shapes to match");
  if (heads <= 0 || e % heads != 0) throw InvalidInput("`embed_dim` must divide evenly by `num_heads`");
  check_same_dtype(q, k);
  check_same_dtype(q, v);
}

void check_mha_weights(const IValue& qw, const IValue& qb, const IValue& pw, const IValue& pb, int64_t e) {
  checked(qw.to_tensor(), {3 * e, e}, "qkv_weight");
  checked(qb.to_tensor(), {3 * e}, "qkv_bias");
  checked(pw.to_tensor(), {e, e}, "proj_weight");
  checked(pb.to_tensor(), {e}, "proj_bias");
}

int64_t check_encoder_layer(const Stack& s) {
  const int64_t e = s[1].to_int(), heads = s[2].to_int();
  check_mha_inputs(s[0].to_tensor(), s[0].to_tensor(), s[0].to_tensor(), e, heads);
  check_mha_weights(s[3], s[4], s[5], s[6], e);
  checked(s[10].to_tensor(), {e}, "norm_weight_1");
  checked(s[11].to_tensor(), {e}, "norm_bias_1");
  checked(s[12].to_tensor(), {e}, "norm_weight_2");
  checked(s[13].to_tensor(), {e}, "norm_bias_2");
  const Tensor& f1 = s[14].to_tensor();
  if (f1.dim() != 2 || f1.sizes()[1] != e) throw InvalidInput("_transformer_encoder_layer_fwd: ffn_weight_1 must be [dim_feedforward, embed_dim]");
  const int64_t ff = f1.sizes()[0];
  checked(s[15].to_tensor(), {ff}, "ffn_bias_1");
  checked(s[16].to_tensor(), {e, ff}, "ffn_weight_2");
  checked(s[17].to_tensor(), {e}, "ffn_bias_2");
  return ff;
}

void native_mha_kernel(Stack& s) {
  const Tensor &q_arg = s[0].to_tensor(), &k_arg = s[1].to_tensor(), &v_arg = s[2].to_tensor();
  const int64_t e = s[3].to_int(), heads = s[4].to_int();
  check_mha_inputs(q_arg, k_arg, v_arg, e, heads);
  const MhaWeights w = mha_weights(s[5], s[6], s[7], s[8], e);
  const Tensor mask = optional_tensor(s[9]);
  const bool need_weights = s[10].to_bool(), average = s[11].to_bool();
  const int64_t batch = q_arg.sizes()[0], seq = q_arg.sizes()[1];
  const Tensor q = contiguous(q_arg);
  const Tensor k = k_arg.same(q_arg) ? q : contiguous(k_arg);
  const Tensor v = v_arg.same(k_arg) ? k : contiguous(v_arg);
  Tensor out = Tensor::empty(q.dtype(), q.sizes());
  Tensor weights = need_weights ? Tensor::empty(q.dtype(), {batch, heads, seq, seq}) : Tensor();
  Tensor averaged;
  dispatch_floating(q.dtype(), "_native_multi_head_attention", [&](auto tag) {
    using T = decltype(tag);
    const AttentionMask mk = make_attention_mask(mask, batch, heads, seq, seq, s[12]);
    if (out.numel() == 0) return;
    mha<T>(data_of<T>(q), data_of<T>(k), data_of<T>(v), batch, seq, e, heads, w, mk, mutable_data_of<T>(out),
           need_weights ? mutable_data_of<T>(weights) : nullptr);
    if (need_weights && average) {
      averaged = Tensor::empty(q.dtype(), {batch, seq, seq});
      average_heads(data_of<T>(weights), batch, heads, seq * seq, mutable_data_of<T>(averaged));
    }
  });
  IValue second = need_weights ? IValue(average ? averaged : weights) : IValue();
  s.assign({IValue(std::move(out)), std::move(second)});
}

namespace {

template <class T>
T gelu(T x) {
  return T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(M_SQRT1_2)));
}

}  // namespace

void encoder_layer_kernel(Stack& s) {
  const int64_t ff = check_encoder_layer(s);
  const int64_t e = s[1].to_int(), heads = s[2].to_int();
  const MhaWeights w = mha_weights(s[3], s[4], s[5], s[6], e);
  const bool use_gelu = s[7].to_bool(), norm_first = s[8].to_bool();
  const double eps = s[9].to_double();
  const Tensor ln1w = contiguous(s[10].to_tensor()), ln1b = contiguous(s[11].to_tensor());
  const Tensor ln2w = contiguous(s[12].to_tensor()), ln2b = contiguous(s[13].to_tensor());
  const Tensor w1 = contiguous(s[14].to_tensor()), b1 = contiguous(s[15].to_tensor());
  const Tensor w2 = contiguous(s[16].to_tensor()), b2 = contiguous(s[17].to_tensor());
  const Tensor mask = optional_tensor(s[18]);
  const Tensor src = contiguous(s[0].to_tensor());
  const int64_t batch = src.sizes()[0], seq = src.sizes()[1], rows = batch * seq;
  Tensor out = Tensor::empty(src.dtype(), src.sizes());
  dispatch_floating(src.dtype(), "_transformer_encoder_layer_fwd", [&](auto tag) {
    using T = decltype(tag);
    if (rows == 0) return;
    const AttentionMask mk = make_attention_mask(mask, batch, heads, seq, seq, s[19]);
    const T* x = data_of<T>(src);
    T* o = mutable_data_of<T>(out);
    const size_t n = static_cast<size_t>(rows * e);
    std::vector<T> normed(norm_first ? n : 0), attn(n), hidden(static_cast<size_t>(rows * ff));
    const T* attn_in = x;
    if (norm_first) {
      layer_norm_rows<T>(x, normed.data(), rows, e, data_of<T>(ln1w), data_of<T>(ln1b), eps);
      attn_in = normed.data();
    }
    mha<T>(attn_in, attn_in, attn_in, batch, seq, e, heads, w, mk, attn.data(), nullptr);
    for (size_t i = 0; i < n; ++i) attn[i] += x[i];
    if (!norm_first) layer_norm_rows<T>(attn.data(), attn.data(), rows, e, data_of<T>(ln1w), data_of<T>(ln1b), eps);
    // attn is now the residual input of the feed-forward block.
    const T* ffn_in = attn.data();
    if (norm_first) {
      layer_norm_rows<T>(attn.data(), normed.data(), rows, e, data_of<T>(ln2w), data_of<T>(ln2b), eps);
      ffn_in = normed.data();
    }
    linear_rows<T>(ffn_in, rows, e, data_of<T>(w1), ff, data_of<T>(b1), hidden.data(), ff);
    if (use_gelu && std::is_same_v<T, float>)
      activation_f32(Activation::GeluErf, reinterpret_cast<const float*>(hidden.data()), reinterpret_cast<float*>(hidden.data()),
                     static_cast<int64_t>(hidden.size()));
    else if (use_gelu)
      for (auto& h : hidden) h = gelu(h);
    else
      for (auto& h : hidden) h = std::max(h, T(0));
    linear_rows<T>(hidden.data(), rows, ff, data_of<T>(w2), e, data_of<T>(b2), o, e);
    for (size_t i = 0; i < n; ++i) o[i] += attn[i];
    if (!norm_first) layer_norm_rows<T>(o, o, rows, e, data_of<T>(ln2w), data_of<T>(ln2b), eps);
  });
  s.assign(1, IValue(std::move(out)));
}

namespace {

// Whether every row of `mask` ([B, T], true = keep) is a run of trues followed by falses: the
// condition for turning a padded batch into a nested one.
void k_nested_left_aligned(Stack& s) {
  const Tensor mask = contiguous(s[1].to_tensor());
  if (mask.dtype() != DType::Bool || mask.dim() != 2)
    throw InvalidInput(fmt::format("_nested_tensor_from_mask_left_aligned: expected a 2-D bool mask, got {}", shape_string(mask.sizes())));
  const bool* m = data_of<bool>(mask);
  bool aligned = true;
  for (int64_t b = 0; b < mask.sizes()[0] && aligned; ++b) {
    bool seen_false = false;
    for (int64_t t = 0; t < mask.sizes()[1]; ++t) {
      const bool v = m[b * mask.sizes()[1] + t];
      if (v && seen_false) aligned = false;
      if (!v) seen_false = true;
    }
  }
  s.assign(1, IValue(aligned));
}

// Nested (ragged) tensors have no representation in jitctl. nn.TransformerEncoder's graph
// holds these calls on its src_key_padding_mask branch: they are registered so such models load
// and run without a mask, and name the feature if the branch is taken.
void k_nested_unsupported(Stack&) {
  throw Unsupported("nested tensors (nn.TransformerEncoder fast path with src_key_padding_mask: aten::_nested_tensor_from_mask, aten::to_padded_tensor)");
}

// The dtype as c10's operator<< names it in SDPA's checks ("float", "double", "long int").
const char* c_type_name(DType d) {
  switch (d) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Float16: return "c10::Half";
    case DType::BFloat16: return "c10::BFloat16";
    case DType::Int64: return "long int";
    case DType::Int32: return "int";
    case DType::Int16: return "short int";
    case DType::Int8: return "signed char";
    case DType::UInt8: return "unsigned char";
    case DType::Bool: return "bool";
    default: return "unknown";
  }
}

}  // namespace

// scaled_dot_product_attention(q [..., L, E], k [..., S, E], v [..., S, Ev], attn_mask, dropout_p,
// is_causal, *, scale, enable_gqa): softmax(q kᵀ · scale + mask) v per batch entry, the batch dims
// of q, k, v and the mask broadcast together. A bool mask keeps the true entries, a float mask is
// added; is_causal keeps the lower triangle. enable_gqa (2.5+) lets q have a multiple of k's heads
// (dim -3): q head h reads k/v head h / (Hq / Hk). A row with every entry masked gives zeros, as
// PyTorch 2.5+ (2.4 gave NaN there).
std::vector<int64_t> SdpaShape::out_sizes() const {
  std::vector<int64_t> sizes = batch;
  sizes.push_back(L);
  sizes.push_back(Ev);
  return sizes;
}

SdpaShape sdpa_shape(const Stack& s) {
  const Tensor &q = s[0].to_tensor(), &k = s[1].to_tensor(), &v = s[2].to_tensor();
  const Tensor mask = optional_tensor(s[3]);
  const double dropout_p = s[4].to_double();
  const bool causal = s[5].to_bool();
  const bool gqa = s.size() > 7 && s[7].to_bool();
  if (q.dim() < 2 || k.dim() < 2 || v.dim() < 2)
    throw InvalidInput(fmt::format("scaled_dot_product_attention: expected query, key and value of at least 2 dims, got {}, {} and {}",
                                   q.dim(), k.dim(), v.dim()));
  if (dropout_p != 0.0) throw Unsupported("scaled_dot_product_attention with dropout_p > 0 (random dropout)");
  if (causal && mask.defined()) throw InvalidInput("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
  if (q.dtype() != k.dtype() || q.dtype() != v.dtype())
    throw InvalidInput(fmt::format("Expected query, key, and value to have the same dtype, but got query.dtype: {} key.dtype: {} and value.dtype: {} instead.",
                                   c_type_name(q.dtype()), c_type_name(k.dtype()), c_type_name(v.dtype())));
  const int64_t E = q.sizes().back();
  const int64_t Lq = q.sizes()[q.dim() - 2], S = k.sizes()[k.dim() - 2], Ev = v.sizes().back();
  if (k.sizes().back() != E)
    throw InvalidInput(fmt::format("scaled_dot_product_attention: query and key must have the same last dim, got {} and {}", E, k.sizes().back()));
  if (v.sizes()[v.dim() - 2] != S)
    throw InvalidInput(fmt::format("scaled_dot_product_attention: key and value must have the same sequence length, got {} and {}", S,
                                   v.sizes()[v.dim() - 2]));
  auto batch_of = [](const Tensor& t) { return std::vector<int64_t>(t.sizes().begin(), t.sizes().end() - 2); };
  std::vector<int64_t> qb = batch_of(q), kb = batch_of(k), vb = batch_of(v);
  int64_t group = 1;  // q heads per k/v head
  if (gqa && !qb.empty() && !kb.empty() && qb.back() != kb.back()) {
    if (kb.back() == 0 || qb.back() % kb.back() != 0 || vb.empty() || vb.back() != kb.back())
      throw InvalidInput("scaled_dot_product_attention: number of heads in key and value must divide the number of heads in query");
    group = qb.back() / kb.back();
    kb.back() = vb.back() = qb.back();  // broadcast as if repeated; indexed through `group` below
  }
  SdpaShape r;
  std::vector<int64_t> batch = broadcast_shapes(broadcast_shapes(qb, kb), vb);
  if (mask.defined()) {
    if (mask.dim() < 2)  // PyTorch reads the mask's dim -2
      throw InvalidInput(fmt::format("Dimension out of range (expected to be in range of [{}, {}], but got -2)", -std::max<int64_t>(mask.dim(), 1),
                                     std::max<int64_t>(mask.dim(), 1) - 1));
    const int64_t mt = mask.dim() >= 2 ? mask.sizes()[mask.dim() - 2] : -1, ms = mask.dim() >= 1 ? mask.sizes().back() : -1;
    if (mask.dim() < 2 || (mt != Lq && mt != 1) || (ms != S && ms != 1))
      throw InvalidInput(fmt::format("scaled_dot_product_attention: attn_mask of size {} does not broadcast to [..., {}, {}]",
                                     shape_string(mask.sizes()), Lq, S));
    if (mask.dtype() != DType::Bool && mask.dtype() != q.dtype())
      throw InvalidInput(fmt::format("Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: {} and  query.dtype: {} instead.",
                                     c_type_name(mask.dtype()), c_type_name(q.dtype())));
    batch = broadcast_shapes(batch, batch_of(mask));
  }
  r.batch = std::move(batch);
  r.L = Lq;
  r.S = S;
  r.E = E;
  r.Ev = Ev;
  r.group = group;
  r.scale = s.size() > 6 && !s[6].is_none() ? s[6].to_double() : 1.0 / std::sqrt(static_cast<double>(E));
  r.causal = causal;
  r.mask = mask;
  return r;
}

namespace {

void k_sdpa(Stack& s) {
  const SdpaShape shape = sdpa_shape(s);
  const Tensor &q = s[0].to_tensor(), &k = s[1].to_tensor(), &v = s[2].to_tensor();
  const Tensor& mask = shape.mask;
  const bool causal = shape.causal;
  const std::vector<int64_t>& batch = shape.batch;
  const int64_t E = shape.E, Lq = shape.L, S = shape.S, Ev = shape.Ev, group = shape.group;
  int64_t nbatch = 1;
  for (auto d : batch) nbatch *= d;
  // Per-operand element offsets of each flattened batch entry, from broadcast strides.
  auto offsets = [&](const Tensor& t, bool grouped) {
    std::vector<int64_t> off(static_cast<size_t>(nbatch), 0);
    const int64_t tb = t.dim() - 2, nb = static_cast<int64_t>(batch.size());
    for (int64_t i = 0; i < nbatch; ++i) {
      int64_t r = i, o = 0;
      for (int64_t d = nb - 1; d >= 0; --d) {
        int64_t idx = r % batch[d];
        r /= batch[d];
        const int64_t td = d - (nb - tb);
        if (td < 0) continue;
        if (grouped && d == nb - 1) idx /= group;
        if (t.sizes()[td] != 1) o += idx * t.strides()[td];
      }
      off[i] = o;
    }
    return off;
  };
  const std::vector<int64_t> qo = offsets(q, false), ko = offsets(k, true), vo = offsets(v, true);
  const std::vector<int64_t> mo = mask.defined() ? offsets(mask, false) : std::vector<int64_t>();
  std::vector<int64_t> out_sizes = batch;
  out_sizes.push_back(Lq);
  out_sizes.push_back(Ev);
  Tensor out = Tensor::empty(q.dtype(), out_sizes);
  if (out.numel() == 0) {
    s.assign(1, IValue(std::move(out)));
    return;
  }
  dispatch_floating(q.dtype(), "scaled_dot_product_attention", [&](auto tag) {
    using T = decltype(tag);
    const double scale = shape.scale;
    const T* qd = data_of<T>(q);
    const T* kd = data_of<T>(k);
    const T* vd = data_of<T>(v);
    T* od = mutable_data_of<T>(out);
    const int64_t qs0 = q.strides()[q.dim() - 2], qs1 = q.strides()[q.dim() - 1];
    const int64_t ks0 = k.strides()[k.dim() - 2], ks1 = k.strides()[k.dim() - 1];
    const int64_t vs0 = v.strides()[v.dim() - 2], vs1 = v.strides()[v.dim() - 1];
    const int64_t ms0 = mask.defined() && mask.sizes()[mask.dim() - 2] != 1 ? mask.strides()[mask.dim() - 2] : 0;
    const int64_t ms1 = mask.defined() && mask.sizes().back() != 1 ? mask.strides().back() : 0;
    const double batch_flops = 2.0 * static_cast<double>(Lq * S) * static_cast<double>(E + Ev);
    parallel_for(0, nbatch, grain_for_flops(batch_flops), [&](int64_t b0, int64_t b1) {
      std::vector<T> sc(static_cast<size_t>(Lq * S));
      std::vector<bool> keep(static_cast<size_t>(Lq * S));
      for (int64_t b = b0; b < b1; ++b) {
        const MatRef<T> qm{qd + qo[b], Lq, E, qs0, qs1}, km{kd + ko[b], S, E, ks0, ks1}, vm{vd + vo[b], S, Ev, vs0, vs1};
        if (gemm_readable(qm) && gemm_readable(km)) {
          gemm<T>(qm, transposed(km), sc.data(), S, static_cast<T>(scale), T(0));
        } else {
          for (int64_t i = 0; i < Lq; ++i)
            for (int64_t j = 0; j < S; ++j) {
              T acc = 0;
              for (int64_t e = 0; e < E; ++e) acc += qm.data[i * qs0 + e * qs1] * km.data[j * ks0 + e * ks1];
              sc[i * S + j] = acc * static_cast<T>(scale);
            }
        }
        for (int64_t i = 0; i < Lq; ++i)
          for (int64_t j = 0; j < S; ++j) {
            bool kp = !causal || j <= i;
            if (mask.defined()) {
              const int64_t at = mo[b] + i * ms0 + j * ms1;
              if (mask.dtype() == DType::Bool) kp = kp && data_of<bool>(mask)[at];
              else sc[i * S + j] += data_of<T>(mask)[at];
            }
            keep[i * S + j] = kp && sc[i * S + j] != -std::numeric_limits<T>::infinity();
          }
        for (int64_t i = 0; i < Lq; ++i) {
          T* row = sc.data() + i * S;
          T mx = -std::numeric_limits<T>::infinity();
          for (int64_t j = 0; j < S; ++j)
            if (keep[i * S + j]) mx = std::max(mx, row[j]);
          T sum = 0;
          for (int64_t j = 0; j < S; ++j) {
            row[j] = keep[i * S + j] ? std::exp(row[j] - mx) : T(0);
            sum += row[j];
          }
          const T inv = sum > 0 ? T(1) / sum : T(0);
          for (int64_t j = 0; j < S; ++j) row[j] *= inv;
        }
        T* o = od + b * Lq * Ev;
        if (gemm_readable(vm)) {
          gemm<T>(row_major(static_cast<const T*>(sc.data()), Lq, S, S), vm, o, Ev, T(1), T(0));
        } else {
          for (int64_t i = 0; i < Lq; ++i)
            for (int64_t e = 0; e < Ev; ++e) {
              T acc = 0;
              for (int64_t j = 0; j < S; ++j) acc += sc[i * S + j] * vm.data[j * vs0 + e * vs1];
              o[i * Ev + e] = acc;
            }
        }
      }
    });
  });
  s.assign(1, IValue(std::move(out)));
}

}  // namespace
}  // namespace jitctl::cpu

namespace jitctl {

void register_attention_kernels() {
  register_kernel("aten::_native_multi_head_attention", cpu::native_mha_kernel);
  register_preparer("aten::_native_multi_head_attention", cpu::prepare_native_mha);
  register_kernel("aten::scaled_dot_product_attention", cpu::k_sdpa);
  register_kernel("aten::_transformer_encoder_layer_fwd", cpu::encoder_layer_kernel);
  register_preparer("aten::_transformer_encoder_layer_fwd", cpu::prepare_encoder_layer);
  register_kernel("aten::_nested_tensor_from_mask_left_aligned", cpu::k_nested_left_aligned);
  register_kernel("aten::_nested_tensor_from_mask", cpu::k_nested_unsupported);
  register_kernel("aten::to_padded_tensor", cpu::k_nested_unsupported);
}

}  // namespace jitctl
