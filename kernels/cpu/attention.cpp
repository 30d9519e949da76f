#include "kernels/cpu/register_cpu.h"
#include "kernels/registry.h"

namespace jitctl {

void register_attention_kernels() {}

}  // namespace jitctl
