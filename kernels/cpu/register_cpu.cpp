#include "kernels/cpu/register_cpu.h"

namespace jitctl {

void register_cpu_kernels() {
  register_elementwise_kernels();
  register_reduction_kernels();
  register_shape_kernels();
  register_factory_kernels();
  register_random_kernels();
  register_scalar_kernels();
  register_list_kernels();
  register_string_kernels();
  register_linear_kernels();
  register_conv_kernels();
  register_pooling_kernels();
  register_pooling3d_kernels();
  register_norm_kernels();
  register_rnn_kernels();
  register_attention_kernels();
  register_embedding_kernels();
  register_statistics_kernels();
  register_indexing_kernels();
  register_math_kernels();
  register_tensor_algebra_kernels();
  register_enum_kernels();
  register_activation_variant_kernels();
  register_rms_norm_kernels();
  register_grid_sampler_kernels();
}

}  // namespace jitctl
