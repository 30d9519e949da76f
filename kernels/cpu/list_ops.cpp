#include "kernels/cpu/register_cpu.h"
#include "kernels/registry.h"

namespace jitctl {

void register_list_kernels() {}

}  // namespace jitctl
