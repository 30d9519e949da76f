#pragma once
// One registration function per CUDA kernel file (the CPU side's scheme, kernels/cpu/register_cpu.h);
// the plugin's entry point (plugin.cpp) calls them all once, when jitctl loads it. Each registers
// with register_kernel(name, fn, Backend::CUDA) under the CPU kernel's schema name.
namespace jitctl::cuda {

void register_elementwise_kernels();  // unary/binary math, comparisons, activations, clamp, where
void register_reduction_kernels();    // sum, mean, amax/amin, softmax, log_softmax
void register_norm_kernels();         // batch_norm (inference), layer_norm, group_norm
void register_shape_kernels();        // contiguous, clone, copy_, to, cat, stack, embedding
void register_factory_kernels();      // zeros/ones/full/empty with device=cuda, *_like, new_*
void register_linear_kernels();       // mm, bmm, addmm, matmul, linear (cuBLAS)
void register_conv_kernels();         // conv1d/2d, _convolution (cuDNN); a preparer per node
void register_pooling_kernels();      // max/avg/adaptive pooling (cuDNN and own kernels)
void register_attention_kernels();    // scaled_dot_product_attention, MHA and encoder-layer fast paths
void register_rnn_kernels();          // lstm, gru, rnn_tanh, rnn_relu

}  // namespace jitctl::cuda
