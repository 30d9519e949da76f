#pragma once
// One registration function per kernel file; register_cpu.cpp calls them all once.
namespace jitctl {

void register_cpu_kernels();

// Tensor kernels.
void register_elementwise_kernels();  // unary/binary math, comparisons, where, clamp, activations
void register_reduction_kernels();    // sum, mean, max, min, amax, norm, softmax, log_softmax, topk
void register_shape_kernels();        // view, reshape, permute, cat, stack, slice, select, index ...
void register_factory_kernels();      // zeros, ones, tensor, to, contiguous, clone, copy_ ...
void register_random_kernels();       // bernoulli, rand, randn (seeded; not PyTorch's streams)
// Non-tensor ops: int/float/bool arithmetic, lists, dicts, strings.
void register_scalar_kernels();
void register_list_kernels();
void register_string_kernels();
// Neural-network kernels.
void register_linear_kernels();      // mm, bmm, addmm, matmul, linear, baddbmm
void register_conv_kernels();        // conv1d/2d, _convolution, conv_transpose
void register_pooling_kernels();     // max/avg/adaptive pooling, upsampling
void register_pooling3d_kernels();   // adaptive_avg_pool3d, max_pool3d, avg_pool3d
void register_norm_kernels();        // batch/layer/group norm
void register_rnn_kernels();         // lstm, gru
void register_attention_kernels();   // _native_multi_head_attention, _transformer_encoder_layer_fwd
void register_embedding_kernels();   // embedding
void register_statistics_kernels();  // std/var (+ _mean), median, mode, quantile
void register_math_kernels();        // acos.., exp2, erfc, isnan.., atan2, hypot, fmod, lerp, addcmul, aliases
void register_indexing_kernels();       // index/index_put, scatter, masked_select, take, nonzero ...
void register_tensor_algebra_kernels();  // einsum, outer, cross, trace, diag, vector norms, cosine_similarity
void register_enum_kernels();            // Enum members: ==, !=, .name, .value
void register_activation_variant_kernels();  // selu, celu, threshold, glu, prelu
void register_rms_norm_kernels();            // rms_norm, _fused_rms_norm
void register_grid_sampler_kernels();        // grid_sampler(_2d): bilinear/nearest, zeros/border/reflection

}  // namespace jitctl
