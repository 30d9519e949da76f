#pragma once
// The kernel thread sweep behind `jitctl bench-threads --op mm|conv --size N`: one operator timed
// at each thread count, reported as GFLOP/s against the machine's fp32 peak (cpu_features.h).
//   mm    aten::mm of two N x N float32 matrices (2 N^3 FLOP), as torch.mm in the reference
//         script (reference/cpu_threading.txt);
//   conv  a 3x3 convolution, stride 1, padding 1, N -> N channels on a 1 x N x 56 x 56 input
//         (ResNet's layer shapes: N = 64 is layer1), weights packed once as the runtime packs a
//         model's, the output written channels-last as between the convolutions of a model.
#include <cstdint>
#include <string>
#include <vector>

namespace jitctl::cpu {

struct OpBenchRow {
  int threads = 1;
  double ms_p50 = 0, ms_min = 0;
  double gflops_p50 = 0, gflops_best = 0;  // from ms_p50 and ms_min
  double peak_gflops = 0;                  // threads x cores' fp32 peak at the measured clock
  double fraction_of_peak = 0;             // gflops_p50 / peak_gflops
};

struct OpBenchResult {
  std::string op;
  int64_t size = 0;
  double flops = 0;  // per call
  std::string isa;   // what the kernels ran with: "avx512", "avx2", "generic"
  std::vector<OpBenchRow> rows;
};

// Times `op` ("mm" or "conv"; InvalidInput otherwise, and for a size outside 1..16384) at each
// thread count: `warmup` untimed calls, then `iters` timed ones. Restores the thread count.
OpBenchResult bench_op(const std::string& op, int64_t size, const std::vector<int>& threads, int warmup = 3, int iters = 10);

}  // namespace jitctl::cpu
