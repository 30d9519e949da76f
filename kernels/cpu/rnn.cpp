// lstm.input, gru.input, rnn_tanh.input, rnn_relu.input (inference: no dropout between layers).
// Per layer and direction, the input projection of the whole sequence is one GEMM; each time step
// adds one [B, H] x [H, G*H] GEMM for the hidden projection and a fused pointwise cell update.
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/register_cpu.h"
#include "kernels/registry.h"

namespace jitctl::cpu {
namespace {

enum class Cell { Lstm, Gru, Tanh, Relu };

int64_t gate_count(Cell c) { return c == Cell::Lstm ? 4 : c == Cell::Gru ? 3 : 1; }
const char* cell_name(Cell c) { return c == Cell::Lstm ? "lstm" : c == Cell::Gru ? "gru" : c == Cell::Tanh ? "rnn_tanh" : "rnn_relu"; }

template <class T>
T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

// A [rows, cols] view of a contiguous copy of t (checked shape).
Tensor param(const IValue& v, int64_t rows, int64_t cols, const char* op, const char* what) {
  const Tensor& t = v.to_tensor();
  const bool ok = cols == 0 ? (t.dim() == 1 && t.sizes()[0] == rows) : (t.dim() == 2 && t.sizes()[0] == rows && t.sizes()[1] == cols);
  if (!ok) throw InvalidInput(fmt::format("{}: {} has shape {}, expected [{}{}]", op, what, shape_string(t.sizes()), rows, cols ? fmt::format(", {}", cols) : ""));
  return contiguous(t);
}

struct RnnArgs {
  Cell cell;
  bool has_biases, bidirectional, batch_first;
  int64_t layers;
};

// Runs every layer; x is [T, B, I] contiguous; h0/c0 are [L*D, B, H] contiguous (c0 for LSTM).
// Returns the last layer's output [T, B, D*H] and writes hn/cn.
template <class T>
Tensor run_layers(const RnnArgs& a, Tensor x, const Tensor& h0, const Tensor& c0, const std::vector<IValue>& params, int64_t hidden, Tensor& hn,
                  Tensor& cn) {
  const char* op = cell_name(a.cell);
  const int64_t steps = x.sizes()[0], batch = x.sizes()[1], dirs = a.bidirectional ? 2 : 1, g = gate_count(a.cell);
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
      if (a.cell == Cell::Lstm) std::memcpy(c.data(), data_of<T>(c0) + slot * batch * hidden, c.size() * sizeof(T));
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
              case Cell::Lstm: {
                const T ig = sigmoid(xi[j] + hh[j]);
                const T fg = sigmoid(xi[hidden + j] + hh[hidden + j]);
                const T cg = std::tanh(xi[2 * hidden + j] + hh[2 * hidden + j]);
                const T og = sigmoid(xi[3 * hidden + j] + hh[3 * hidden + j]);
                cb[j] = fg * cb[j] + ig * cg;
                hb[j] = og * std::tanh(cb[j]);
                break;
              }
              case Cell::Gru: {
                const T r = sigmoid(xi[j] + hh[j]);
                const T z = sigmoid(xi[hidden + j] + hh[hidden + j]);
                const T n = std::tanh(xi[2 * hidden + j] + r * hh[2 * hidden + j]);
                hb[j] = (T(1) - z) * n + z * hb[j];
                break;
              }
              case Cell::Tanh: hb[j] = std::tanh(xi[j] + hh[j]); break;
              case Cell::Relu: hb[j] = std::max(xi[j] + hh[j], T(0)); break;
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
void rnn_input(Stack& s, Cell cell) {
  const char* op = cell_name(cell);
  const Tensor& input = s[0].to_tensor();
  std::vector<Tensor> hx;
  if (cell == Cell::Lstm) {
    for (auto& v : s[1].to_list()->items) hx.push_back(v.to_tensor());
    if (hx.size() != 2) throw InvalidInput(fmt::format("{}: expected hx to hold (h0, c0), got {} tensors", op, hx.size()));
  } else {
    hx.push_back(s[1].to_tensor());
  }
  const auto& params = s[2].to_list()->items;
  RnnArgs a{cell, s[3].to_bool(), s[7].to_bool(), s[8].to_bool(), s[4].to_int()};
  const double dropout = s[5].to_double();
  const bool train = s[6].to_bool();
  if (train && dropout > 0 && a.layers > 1) throw Unsupported(fmt::format("{}: dropout between layers in training mode", op));
  const int64_t dirs = a.bidirectional ? 2 : 1;
  const size_t per = a.has_biases ? 4 : 2;
  if (params.size() != static_cast<size_t>(a.layers * dirs) * per) {
    if (cell == Cell::Lstm && params.size() == static_cast<size_t>(a.layers * dirs) * (per + 1))
      throw Unsupported("lstm: projections (proj_size > 0)");
    throw InvalidInput(fmt::format("{}: expected {} parameter tensors, got {}", op, a.layers * dirs * per, params.size()));
  }
  if (input.dim() != 2 && input.dim() != 3)
    throw InvalidInput(fmt::format("{}: Expected input to be 2D or 3D, got {}D instead", op, input.dim()));
  const bool unbatched = input.dim() == 2;
  for (auto& t : hx) check_same_dtype(input, t);
  // Seq-first, batched, contiguous.
  Tensor x = unbatched ? unsqueeze1(input, op) : (a.batch_first ? swap01(input) : contiguous(input));
  std::vector<Tensor> h0;
  for (auto& t : hx) h0.push_back(contiguous(unbatched ? unsqueeze1(t, op) : t));
  const int64_t batch = x.sizes()[1];
  const int64_t hidden = h0[0].dim() == 3 ? h0[0].sizes()[2] : 0;
  for (auto& t : h0)
    if (t.dim() != 3 || t.sizes()[0] != a.layers * dirs || t.sizes()[1] != batch || t.sizes()[2] != hidden)
      throw InvalidInput(fmt::format("Expected hidden size ({}, {}, {}), got {}", a.layers * dirs, batch, hidden, shape_string(t.sizes())));
  Tensor hn = Tensor::empty(x.dtype(), h0[0].sizes());
  Tensor cn = cell == Cell::Lstm ? Tensor::empty(x.dtype(), h0[0].sizes()) : Tensor();
  Tensor out;
  dispatch_floating(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    out = run_layers<T>(a, x, h0[0], cell == Cell::Lstm ? h0[1] : Tensor(), params, hidden, hn, cn);
  });
  if (unbatched) {
    out = squeeze(out, 1, op);
    hn = squeeze(hn, 1, op);
    if (cn.defined()) cn = squeeze(cn, 1, op);
  } else if (a.batch_first) {
    out = swap01(out);
  }
  if (cell == Cell::Lstm)
    s.assign({IValue(out), IValue(hn), IValue(cn)});
  else
    s.assign({IValue(out), IValue(hn)});
}

}  // namespace
}  // namespace jitctl::cpu

namespace jitctl {

void register_rnn_kernels() {
  using cpu::Cell;
  register_kernel("aten::lstm.input", [](Stack& s) { cpu::rnn_input(s, Cell::Lstm); });
  register_kernel("aten::gru.input", [](Stack& s) { cpu::rnn_input(s, Cell::Gru); });
  register_kernel("aten::rnn_tanh.input", [](Stack& s) { cpu::rnn_input(s, Cell::Tanh); });
  register_kernel("aten::rnn_relu.input", [](Stack& s) { cpu::rnn_input(s, Cell::Relu); });
}

}  // namespace jitctl
