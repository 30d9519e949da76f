// lstm, gru, rnn_tanh and rnn_relu (.input overloads) on the GPU, as kernels/cpu/rnn.cpp computes
// them: per layer and direction the whole sequence's input projection is one cuBLAS GEMM (the
// linear kernel), each time step one [B, H] x [H, G*H] cuBLAS GEMM and one cell-update kernel. The call
// is read and checked by the CPU side's rnn_call (kernels/cpu/rnn.h). float32.
#include <climits>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "kernels/cpu/rnn.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cuda/compose.h"
#include "kernels/cuda/context.h"
#include "kernels/cuda/register_cuda.h"
#include "kernels/cuda/rnn_launch.h"

namespace jitctl::cuda {
namespace {

using cpu::RnnCell;

Tensor viewed(const Tensor& t, std::vector<int64_t> sizes) {
  std::vector<int64_t> strides = contiguous_strides(sizes);
  return cpu::make_view(t, std::move(sizes), std::move(strides), t.storage_offset());
}

void copy_floats(float* dst, const float* src, int64_t n) {
  if (n > 0) check(cudaMemcpyAsync(dst, src, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, stream()), "cudaMemcpyAsync (rnn)");
}

// hproj[B, G*H] = h[B, H] · w_hhᵀ: one cuBLAS call per time step (column-major, so w_hh, read
// transposed, is the first operand); the cell kernel adds b_hh.
void hidden_projection(const Tensor& h, const Tensor& w_hh, Tensor& hproj) {
  const int64_t batch = h.sizes()[0], hidden = h.sizes()[1], gh = w_hh.sizes()[0];
  const float one = 1.0f, zero = 0.0f;
  check(cublasSgemm(cublas(), CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(gh), static_cast<int>(batch), static_cast<int>(hidden), &one, ptr<float>(w_hh),
                    static_cast<int>(hidden), ptr<float>(h), static_cast<int>(hidden), &zero, ptr<float>(hproj), static_cast<int>(gh)),
        "cublasSgemm (rnn)");
}

void rnn_input(Stack& s, RnnCell cell) {
  const cpu::RnnCall call = cpu::rnn_call(s, cell);
  const char* op = cpu::rnn_name(cell);
  const Tensor& input = s[0].to_tensor();
  if (input.dtype() != DType::Float32) throw NotOnDevice(fmt::format("{}: dtype {} (float32 only)", op, dtype_name(input.dtype())));
  const int64_t steps = call.steps, batch = call.batch, hidden = call.hidden, dirs = call.dirs;
  const int64_t gh = cpu::rnn_gates(cell) * hidden, slots = call.layers * dirs;
  if (steps == 0 || batch == 0 || hidden == 0 || call.input_size == 0) throw NotOnDevice(fmt::format("{}: an empty sequence, batch or state", op));
  if (gh > INT_MAX || batch > INT_MAX) throw NotOnDevice(fmt::format("{}: sizes beyond cuBLAS's 32-bit limits", op));
  // The sequence seq-first [T, B, I], contiguous.
  Tensor x;
  if (call.unbatched) {
    x = viewed(contiguous(input), {steps, 1, call.input_size});
  } else if (call.batch_first) {
    const Tensor d = on_device(input);
    x = contiguous(cpu::make_view(d, {steps, batch, call.input_size}, {d.strides()[1], d.strides()[0], d.strides()[2]}, d.storage_offset()));
  } else {
    x = contiguous(input);
  }
  const Tensor h0 = contiguous(call.hx[0]);
  const Tensor c0 = cell == RnnCell::Lstm ? contiguous(call.hx[1]) : Tensor();
  Tensor hn = empty(DType::Float32, {slots, batch, hidden});
  Tensor cn = cell == RnnCell::Lstm ? empty(DType::Float32, {slots, batch, hidden}) : Tensor();
  const std::vector<IValue>& params = *call.params;
  const size_t per = call.params_per_layer();
  for (int64_t layer = 0; layer < call.layers; ++layer) {
    const int64_t in = x.sizes()[2];
    Tensor y = empty(DType::Float32, {steps, batch, dirs * hidden});
    const Tensor x2 = viewed(x, {steps * batch, in});
    for (int64_t d = 0; d < dirs; ++d) {
      const size_t base = static_cast<size_t>(layer * dirs + d) * per;
      const Tensor &w_ih = params[base].to_tensor(), &w_hh = params[base + 1].to_tensor();
      cpu::check_rnn_param(w_ih, gh, in, op, "weight_ih");
      cpu::check_rnn_param(w_hh, gh, hidden, op, "weight_hh");
      IValue b_ih;
      Tensor b_hh;
      if (call.has_biases) {
        cpu::check_rnn_param(params[base + 2].to_tensor(), gh, 0, op, "bias_ih");
        cpu::check_rnn_param(params[base + 3].to_tensor(), gh, 0, op, "bias_hh");
        b_ih = params[base + 2];
        b_hh = contiguous(params[base + 3].to_tensor());
      }
      const Tensor whh = contiguous(w_hh);
      const Tensor proj = contiguous(call_tensor_op("aten::linear", {x2, w_ih, b_ih}));  // [T * B, G * H]
      const int64_t slot = layer * dirs + d;
      Tensor h = empty(DType::Float32, {batch, hidden});
      Tensor c = cell == RnnCell::Lstm ? empty(DType::Float32, {batch, hidden}) : Tensor();
      copy_floats(ptr<float>(h), ptr<float>(h0) + slot * batch * hidden, batch * hidden);
      if (c.defined()) copy_floats(ptr<float>(c), ptr<float>(c0) + slot * batch * hidden, batch * hidden);
      Tensor hproj = empty(DType::Float32, {batch, gh});
      for (int64_t st = 0; st < steps; ++st) {
        const int64_t t = d == 0 ? st : steps - 1 - st;
        hidden_projection(h, whh, hproj);
        launch_rnn_cell(static_cast<int>(cell), ptr<float>(proj) + t * batch * gh, ptr<float>(hproj), b_hh.defined() ? ptr<float>(b_hh) : nullptr, ptr<float>(h),
                        c.defined() ? ptr<float>(c) : nullptr, ptr<float>(y) + t * batch * dirs * hidden + d * hidden, dirs * hidden, batch, hidden,
                        stream());
        check_launch(op);
      }
      copy_floats(ptr<float>(hn) + slot * batch * hidden, ptr<float>(h), batch * hidden);
      if (c.defined()) copy_floats(ptr<float>(cn) + slot * batch * hidden, ptr<float>(c), batch * hidden);
    }
    x = y;
  }
  Tensor out = x;
  if (call.unbatched) {
    out = viewed(out, {steps, dirs * hidden});
    hn = viewed(hn, {slots, hidden});
    if (cn.defined()) cn = viewed(cn, {slots, hidden});
  } else if (call.batch_first) {
    out = contiguous(cpu::make_view(out, {batch, steps, dirs * hidden}, {dirs * hidden, batch * dirs * hidden, 1}, out.storage_offset()));
  }
  if (cell == RnnCell::Lstm)
    s.assign({IValue(out), IValue(hn), IValue(cn)});
  else
    s.assign({IValue(out), IValue(hn)});
}

}  // namespace

void register_rnn_kernels() {
  register_kernel("aten::lstm.input", [](Stack& s) { rnn_input(s, RnnCell::Lstm); }, Backend::CUDA);
  register_kernel("aten::gru.input", [](Stack& s) { rnn_input(s, RnnCell::Gru); }, Backend::CUDA);
  register_kernel("aten::rnn_tanh.input", [](Stack& s) { rnn_input(s, RnnCell::Tanh); }, Backend::CUDA);
  register_kernel("aten::rnn_relu.input", [](Stack& s) { rnn_input(s, RnnCell::Relu); }, Backend::CUDA);
}

}  // namespace jitctl::cuda
