#pragma once
// The RNN cell update on the GPU (rnn.cu), called from rnn.cpp once per time step after the hidden
// projection: kernels/cpu/rnn.cpp's formulas, one thread per (batch entry, hidden unit).
#include <cuda_runtime.h>

#include <cstdint>

namespace jitctl::cuda {

// cell: 0 LSTM, 1 GRU, 2 tanh, 3 relu (kernels/cpu/rnn.h's RnnCell order). xproj and hproj are
// [batch, gates * hidden] (the input projection with b_ih, the hidden one without its bias b_hh,
// which is added here; null: none); h (and c for LSTM) [batch, hidden] are updated in place; the
// new h is also written to y, rows ld_y apart.
void launch_rnn_cell(int cell, const float* xproj, const float* hproj, const float* b_hh, float* h, float* c, float* y, int64_t ld_y, int64_t batch,
                     int64_t hidden, cudaStream_t stream);

}  // namespace jitctl::cuda
