#pragma once
// Thread settings as PyTorch has them (shared/reference/cpu_threading.txt): intra-op parallelism
// on one OpenMP team, an inter-op pool for fork (lib/runtime/interop_pool.h).
//
// The intra-op count is one process-wide setting. OpenMP keeps its thread count per thread, so
// every thread jitctl starts (inter-op pool, bench callers) calls apply_num_threads_here() before
// running model code; the main thread gets it from set_num_threads/init_threads.
#include <string>

namespace jitctl {

// The CPUs this process may run on: the online CPUs, fewer when its affinity mask or its cgroup's
// CPU quota (containers: docker --cpus, Kubernetes limits) allows fewer.
int usable_cpus();

// What PyTorch 1.13 (the reference build, without cpuinfo) uses when nothing is set, for both
// intra- and inter-op threads: std::thread::hardware_concurrency(), halved on x86-64 where it
// assumes two hardware threads per core; at least 1. Unlike PyTorch, never more than
// usable_cpus(): a team larger than the CPUs it may use only waits for its descheduled threads.
int default_num_threads();

// The intra-op default as at::intraop_default_num_threads: MKL_NUM_THREADS, else
// OMP_NUM_THREADS, else default_num_threads(). A variable that is not a positive integer is
// ignored with a warning on stderr, as PyTorch does.
int intraop_default_num_threads();

// Intra-op threads: set_num_threads (--threads) wins over the environment. n < 1 is ignored.
// Also applies it to the calling thread's OpenMP team.
void set_num_threads(int n);
// The process-wide setting (initialised from intraop_default_num_threads() on first use).
int get_num_threads();
// Makes the calling thread's OpenMP teams use get_num_threads() threads.
void apply_num_threads_here();

// What a command does with --threads N / --interop-threads N (0 = flag not given): sets both,
// and applies the intra-op count to the calling thread (defaults from the environment when 0).
void init_threads(int intra_op, int inter_op);

}  // namespace jitctl
