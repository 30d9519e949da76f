#pragma once
// Thread settings as PyTorch has them (shared/reference/cpu_threading.txt): intra-op parallelism
// on one OpenMP team, an inter-op pool for fork.
namespace jitctl {

// Intra-op threads: --threads wins over OMP_NUM_THREADS/MKL_NUM_THREADS, which win over the
// number of cores.
void set_num_threads(int n);
int get_num_threads();

}  // namespace jitctl
