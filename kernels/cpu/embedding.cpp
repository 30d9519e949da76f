#include "kernels/cpu/register_cpu.h"
#include "kernels/registry.h"

namespace jitctl {

void register_embedding_kernels() {}

}  // namespace jitctl
