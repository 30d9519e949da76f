#include "kernels/cpu/register_cpu.h"
#include "kernels/registry.h"

namespace jitctl {

void register_linear_kernels() {}

}  // namespace jitctl
