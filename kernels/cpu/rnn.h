#pragma once
// What aten::lstm/gru/rnn_tanh/rnn_relu (.input overloads) mean, for both backends: the call's
// arguments read and checked with PyTorch's messages, from sizes alone (no element is read, so
// the CUDA kernel checks device tensors with it). The CPU kernel is rnn.cpp, the GPU's
// kernels/cuda/rnn.cpp.
#include <cstdint>
#include <vector>

#include "lib/core/ivalue.h"
#include "kernels/registry.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

enum class RnnCell { Lstm, Gru, Tanh, Relu };

const char* rnn_name(RnnCell c);           // "lstm", "gru", "rnn_tanh", "rnn_relu"
int64_t rnn_gates(RnnCell c);               // 4, 3, 1, 1: rows of weight_ih per hidden unit

struct RnnCall {
  RnnCell cell;
  bool has_biases, bidirectional, batch_first;
  bool unbatched;  // a 2-D input [T, I] (and hidden states [L*D, H])
  int64_t layers, dirs, steps, batch, input_size, hidden;
  std::vector<Tensor> hx;  // h0 (and c0 for LSTM) as given
  const std::vector<IValue>* params;  // layers * dirs * (has_biases ? 4 : 2) tensors
  size_t params_per_layer() const { return has_biases ? 4 : 2; }
};

// Reads s = (input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
// batch_first) and checks it: InvalidInput or Unsupported with PyTorch's message.
RnnCall rnn_call(const Stack& s, RnnCell cell);

// weight_ih/weight_hh ([rows, cols]) or a bias (cols == 0: [rows]) of the call: InvalidInput
// naming `what` unless t has that shape.
void check_rnn_param(const Tensor& t, int64_t rows, int64_t cols, const char* op, const char* what);

}  // namespace jitctl::cpu
