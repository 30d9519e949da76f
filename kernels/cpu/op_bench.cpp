#include "kernels/cpu/op_bench.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/packed_conv.h"
#include "kernels/registry.h"
#include "lib/core/error.h"

namespace jitctl::cpu {
namespace {

Tensor random_tensor(std::vector<int64_t> sizes, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  Tensor t = Tensor::empty(DType::Float32, std::move(sizes));
  auto* p = static_cast<float*>(t.mutable_data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = d(gen);
  return t;
}

}  // namespace

OpBenchResult bench_op(const std::string& op, int64_t size, const std::vector<int>& threads, int warmup, int iters) {
  if (size < 1 || size > 16384) throw InvalidInput(fmt::format("--size {}: expected 1 to 16384", size));
  OpBenchResult r;
  r.op = op;
  r.size = size;
  r.isa = isa_name(cpu_features().isa);
  std::function<void()> call;
  if (op == "mm") {
    const KernelFn mm = find_kernel("aten::mm");
    const Tensor a = random_tensor({size, size}, 1), b = random_tensor({size, size}, 2);
    r.flops = 2.0 * static_cast<double>(size) * size * size;
    call = [mm, a, b] {
      Stack s{IValue(a), IValue(b)};
      mm(s);
    };
  } else if (op == "conv") {
    constexpr int64_t kHw = 56;
    const Tensor x = random_tensor({1, size, kHw, kHw}, 1), w = random_tensor({size, size, 3, 3}, 2), bias = random_tensor({size}, 3);
    ConvArgs args;
    args.stride = {1, 1};
    args.padding = {1, 1};
    args.dilation = {1, 1};
    auto conv = std::make_shared<PackedConv>(w, bias, args, Epilogue{});
    r.flops = 2.0 * static_cast<double>(size) * size * 9 * kHw * kHw;
    call = [conv, x] { conv->run(x, Tensor(), true); };
  } else {
    throw InvalidInput(fmt::format("--op {}: expected mm or conv", op));
  }
  const int saved = omp_get_max_threads();
  for (int t : threads) {
    if (t < 1) throw InvalidInput(fmt::format("thread count {}: expected at least 1", t));
    omp_set_num_threads(t);
    for (int i = 0; i < warmup; ++i) call();
    std::vector<double> ms;
    for (int i = 0; i < std::max(iters, 1); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      call();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    OpBenchRow row;
    row.threads = t;
    row.ms_p50 = ms[ms.size() / 2];
    row.ms_min = ms.front();
    row.gflops_p50 = r.flops / row.ms_p50 / 1e6;
    row.gflops_best = r.flops / row.ms_min / 1e6;
    row.peak_gflops = peak_gflops(t);
    row.fraction_of_peak = row.gflops_p50 / row.peak_gflops;
    r.rows.push_back(row);
  }
  omp_set_num_threads(saved);
  return r;
}

}  // namespace jitctl::cpu
