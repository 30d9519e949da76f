#include "kernels/cpu/register_cpu.h"
#include "kernels/registry.h"

namespace jitctl {

void register_reduction_kernels() {}

}  // namespace jitctl
