// `jitctl bench-threads --op mm|conv --size N` without the CLI (kernels/cpu/op_bench.h), for
// mm_side_by_side.py until the command is wired:  op_bench mm|conv N THREADS[,THREADS...] [ITERS]
// prints one JSON object.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/cpu/op_bench.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: op_bench mm|conv N THREADS[,THREADS...] [ITERS]\n");
    return 2;
  }
  std::vector<int> threads;
  for (std::string s = argv[3]; !s.empty();) {
    const size_t comma = s.find(',');
    threads.push_back(std::atoi(s.substr(0, comma).c_str()));
    s = comma == std::string::npos ? "" : s.substr(comma + 1);
  }
  const int iters = argc > 4 ? std::atoi(argv[4]) : 10;
  const auto r = jitctl::cpu::bench_op(argv[1], std::atoll(argv[2]), threads, 3, iters);
  std::printf("{\"op\": \"%s\", \"size\": %lld, \"isa\": \"%s\", \"rows\": [", r.op.c_str(), static_cast<long long>(r.size), r.isa.c_str());
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const auto& w = r.rows[i];
    std::printf("%s{\"threads\": %d, \"ms_p50\": %.4f, \"ms_min\": %.4f, \"gflops_p50\": %.2f, \"gflops_best\": %.2f, \"peak_gflops\": %.1f, \"fraction_of_peak\": %.3f}",
                i ? ", " : "", w.threads, w.ms_p50, w.ms_min, w.gflops_p50, w.gflops_best, w.peak_gflops, w.fraction_of_peak);
  }
  std::printf("]}\n");
}
