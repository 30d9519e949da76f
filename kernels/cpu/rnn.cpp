// lstm.input, gru.input, rnn_tanh.input, rnn_relu.input (inference: no dropout between layers).
// Per layer and direction, the input projection of the whole sequence is one GEMM; each time step
// adds one [B, H] x [H, G*H] GEMM for the hidden projection and a fused pointwise cell update.
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/rnn.h"

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/registry.h"

namespace jitctl::cpu {

const char* rnn_name(RnnCell c) { return c == RnnCell::Lstm ? "lstm" : c == RnnCell::Gru ? "gru" : c == RnnCell::Tanh ? "rnn_tanh" : "rnn_relu"; }
int64_t rnn_gates(RnnCell c) { return c == RnnCell::Lstm ? 4 : c == RnnCell::Gru ? 3 : 1; }

void check_rnn_param(const Tensor& t, int64_t rows, int64_t cols, const char* op, const char* what) {
  const bool ok = cols == 0 ? (t.dim() == 1 && t.sizes()[0] == rows) : (t.dim() == 2 && t.sizes()[0] == rows && t.sizes()[1] == cols);
  if (!ok) throw InvalidInput(fmt::format("{}: {} has shape {}, expected [{}{}]", op, what, shape_string(t.sizes()), rows, cols ? fmt::format(", {}", cols) : ""));
}

RnnCall rnn_call(const Stack& s, RnnCell cell) {
  const char* op = rnn_name(cell);
  const Tensor& input = s[0].to_tensor();
  RnnCall c{cell, s[3].to_bool(), s[7].to_bool(), s[8].to_bool(), false, s[4].to_int(), 1, 0, 0, 0, 0, {}, &s[2].to_list()->items};
  c.dirs = c.bidirectional ? 2 : 1;
  if (cell == RnnCell::Lstm) {
    for (auto& v : s[1].to_list()->items) c.hx.push_back(v.to_tensor());
    if (c.hx.size() != 2) throw InvalidInput(fmt::format("{}: expected hx to hold (h0, c0), got {} tensors", op, c.hx.size()));
  } else {
    c.hx.push_back(s[1].to_tensor());
  }
  const double dropout = s[5].to_double();
  const bool train = s[6].to_bool();
  if (train && dropout > 0 && c.layers > 1) throw Unsupported(fmt::format("{}: dropout between layers in training mode", op));
  const size_t n_params = c.params->size(), per = c.params_per_layer();
  if (n_params != static_cast<size_t>(c.layers * c.dirs) * per) {
    if (cell == RnnCell::Lstm && n_params == static_cast<size_t>(c.layers * c.dirs) * (per + 1)) throw Unsupported("lstm: projections (proj_size > 0)");
    throw InvalidInput(fmt::format("{}: expected {} parameter tensors, got {}", op, c.layers * c.dirs * per, n_params));
  }
  if (input.dim() != 2 && input.dim() != 3) throw InvalidInput(fmt::format("{}: Expected input to be 2D or 3D, got {}D instead", op, input.dim()));
  c.unbatched = input.dim() == 2;
  for (auto& t : c.hx) check_same_dtype(input, t);
  // Sizes as if seq-first and batched.
  c.steps = c.unbatched || !c.batch_first ? input.sizes()[0] : input.sizes()[1];
  c.batch = c.unbatched ? 1 : c.batch_first ? input.sizes()[0] : input.sizes()[1];
  c.input_size = input.sizes().back();
  for (const Tensor& t : c.hx) {
    std::vector<int64_t> sizes = t.sizes();
    if (c.unbatched && t.dim() >= 1) sizes.insert(sizes.begin() + 1, 1);
    if (&t == &c.hx[0]) c.hidden = sizes.size() == 3 ? sizes[2] : 0;
    if (sizes.size() != 3 || sizes[0] != c.layers * c.dirs || sizes[1] != c.batch || sizes[2] != c.hidden)
      throw InvalidInput(fmt::format("Expected hidden size ({}, {}, {}), got {}", c.layers * c.dirs, c.batch, c.hidden, shape_string(sizes)));
  }
  return c;
}

namespace {


template <class T>
T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

// A [rows, cols] view of a contiguous copy of t (checked shape).
Tensor param(const IValue& v, int64_t rows, int64_t cols, const char* op, const char* what) {
  check_rnn_param(v.to_tensor(), rows, cols, op, what);
  return contiguous(v.to_tensor());
}

struct RnnArgs {
  RnnCell cell;
  bool has_biases, bidirectional, batch_first;
  int64_t layers;
};

// Runs every layer; x is [T, B, I] contiguous; h0/c0 are [L*D, B, H] contiguous (c0 for LSTM).
// Returns the last layer's output [T, B, D*H] and writes hn/cn.
template <class T>
Tensor run_layers(const RnnArgs& a, Tensor x, const Tensor& h0, const Tensor& c0, const std::vector<IValue>& params, int64_t hidden, Tensor& hn,
                  Tensor& cn) {
  const char* op = rnn_name(a.cell);
  const int64_t steps = x.sizes()[0], batch = x.sizes()[1], dirs = a.bidirectional ? 2 : 1, g = rnn_gates(a.cell);
  const int64_t gh = g * hidden;
  const size_t per = a.has_biases ? 4 : 2;
  T* hn_p = mutable_data_of<T>(hn);
  T* cn_p = cn.defined() ? mutable_data_of<T>(cn) : nullptr;
  std::vector<T> proj(static_cast<size_t>(steps * batch * gh)), hproj(static_cast<size_t>(batch * gh));
  std::vector<T> h(static_cast<size_t>(batch * hidden)), c(static_cast<size_t>(batch * hidden));
  for (int64_t layer = 0; layer < a.layers; ++layer) {
    const int64_t in = x.sizes()[2];
    Tensor y = Tensor::empty(x.dtype(), {steps, batch, dirs * hidden});
    T* yp = mutable_data_of<T>(y);
    for (int64_t d = 0; d < dirs; ++d) {
      const size_t base = static_cast<size_t>(layer * dirs + d) * per;
      const Tensor w_ih = param(params[base], gh, in, op, "weight_ih"), w_hh = param(params[base + 1], gh, hidden, op, "weight_hh");
      const Tensor b_ih = a.has_biases ? param(params[base + 2], gh, 0, op, "bias_ih") : Tensor();
      const Tensor b_hh = a.has_biases ? param(params[base + 3], gh, 0, op, "bias_hh") : Tensor();
      const T* bih = b_ih.defined() ? data_of<T>(b_ih) : nullptr;
      const T* bhh = b_hh.defined() ? data_of<T>(b_hh) : nullptr;
      // proj[t * B + b, :] = x[t, b, :] W_ihᵀ + b_ih
      const int64_t rows = steps * batch;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < gh; ++j) proj[r * gh + j] = bih ? bih[j] : T(0);
      gemm<T>(row_major(data_of<T>(x), rows, in, in), transposed(row_major(data_of<T>(w_ih), gh, in, in)), proj.data(), gh, T(1), T(1));
      const int64_t slot = layer * dirs + d;
      std::memcpy(h.data(), data_of<T>(h0) + slot * batch * hidden, h.size() * sizeof(T));
      if (a.cell == RnnCell::Lstm) std::memcpy(c.data(), data_of<T>(c0) + slot * batch * hidden, c.size() * sizeof(T));
      const MatRef<T> whh_t = transposed(row_major(data_of<T>(w_hh), gh, hidden, hidden));
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t t = d == 0 ? s : steps - 1 - s;
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t j = 0; j < gh; ++j) hproj[b * gh + j] = bhh ? bhh[j] : T(0);
        gemm<T>(row_major(h.data(), batch, hidden, hidden), whh_t, hproj.data(), gh, T(1), T(1));
        for (int64_t b = 0; b < batch; ++b) {
          const T* xi = proj.data() + (t * batch + b) * gh;
          const T* hh = hproj.data() + b * gh;
          T* hb = h.data() + b * hidden;
          T* cb = c.data() + b * hidden;
          for (int64_t j = 0; j < hidden; ++j) {
            switch (a.cell) {
              case RnnCell::Lstm: {
                const T ig = sigmoid(xi[j] + hh[j]);
                const T fg = sigmoid(xi[hidden + j] + hh[hidden + j]);
                const T cg = std::tanh(xi[2 * hidden + j] + hh[2 * hidden + j]);
                const T og = sigmoid(xi[3 * hidden + j] + hh[3 * hidden + j]);
                cb[j] = fg * cb[j] + ig * cg;
                hb[j] = og * std::tanh(cb[j]);
                break;
              }
              case RnnCell::Gru: {
                const T r = sigmoid(xi[j] + hh[j]);
                const T z = sigmoid(xi[hidden + j] + hh[hidden + j]);
                const T n = std::tanh(xi[2 * hidden + j] + r * hh[2 * hidden + j]);
                hb[j] = (T(1) - z) * n + z * hb[j];
                break;
              }
              case RnnCell::Tanh: hb[j] = std::tanh(xi[j] + hh[j]); break;
              case RnnCell::Relu: hb[j] = std::max(xi[j] + hh[j], T(0)); break;
            }
          }
          std::memcpy(yp + (t * batch + b) * dirs * hidden + d * hidden, hb, static_cast<size_t>(hidden) * sizeof(T));
        }
      }
      std::memcpy(hn_p + slot * batch * hidden, h.data(), h.size() * sizeof(T));
      if (cn_p) std::memcpy(cn_p + slot * batch * hidden, c.data(), c.size() * sizeof(T));
    }
    x = y;
  }
  return x;
}

// Swaps dims 0 and 1 into a contiguous tensor.
Tensor swap01(const Tensor& t) {
  std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
  std::swap(sizes[0], sizes[1]);
  std::swap(strides[0], strides[1]);
  return contiguous(Tensor::view_of(t.storage(), t.dtype(), t.storage_offset(), sizes, strides, "rnn"));
}

Tensor unsqueeze1(const Tensor& t, const char* where) {
  const Tensor c = contiguous(t);
  std::vector<int64_t> sizes = c.sizes();
  sizes.insert(sizes.begin() + 1, 1);
  return Tensor::view_of(c.storage(), c.dtype(), c.storage_offset(), sizes, contiguous_strides(sizes), where);
}
Tensor squeeze(const Tensor& t, size_t dim, const char* where) {
  std::vector<int64_t> sizes = t.sizes();
  sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(dim));
  return Tensor::view_of(t.storage(), t.dtype(), t.storage_offset(), sizes, contiguous_strides(sizes), where);
}

// The shared body of the .input overloads: returns (output, h_n[, c_n]).
void rnn_input(Stack& s, RnnCell cell) {
  const char* op = rnn_name(cell);
  const RnnCall call = rnn_call(s, cell);
  const Tensor& input = s[0].to_tensor();
  const RnnArgs a{cell, call.has_biases, call.bidirectional, call.batch_first, call.layers};
  const auto& params = *call.params;
  const int64_t hidden = call.hidden;
  const bool unbatched = call.unbatched;
  // Seq-first, batched, contiguous.
  Tensor x = unbatched ? unsqueeze1(input, op) : (a.batch_first ? swap01(input) : contiguous(input));
  std::vector<Tensor> h0;
  for (auto& t : call.hx) h0.push_back(contiguous(unbatched ? unsqueeze1(t, op) : t));
  Tensor hn = Tensor::empty(x.dtype(), h0[0].sizes());
  Tensor cn = cell == RnnCell::Lstm ? Tensor::empty(x.dtype(), h0[0].sizes()) : Tensor();
  Tensor out;
  dispatch_floating(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    out = run_layers<T>(a, x, h0[0], cell == RnnCell::Lstm ? h0[1] : Tensor(), params, hidden, hn, cn);
  });
  if (unbatched) {
    out = squeeze(out, 1, op);
    hn = squeeze(hn, 1, op);
    if (cn.defined()) cn = squeeze(cn, 1, op);
  } else if (a.batch_first) {
    out = swap01(out);
  }
  if (cell == RnnCell::Lstm)
    s.assign({IValue(out), IValue(hn), IValue(cn)});
  else
    s.assign({IValue(out), IValue(hn)});
}

}  // namespace
}  // namespace jitctl::cpu

namespace jitctl {

void register_rnn_kernels() {
  using cpu::RnnCell;
  register_kernel("aten::lstm.input", [](Stack& s) { cpu::rnn_input(s, RnnCell::Lstm); });
  register_kernel("aten::gru.input", [](Stack& s) { cpu::rnn_input(s, RnnCell::Gru); });
  register_kernel("aten::rnn_tanh.input", [](Stack& s) { cpu::rnn_input(s, RnnCell::Tanh); });
  register_kernel("aten::rnn_relu.input", [](Stack& s) { cpu::rnn_input(s, RnnCell::Relu); });
}

}  // namespace jitctl
