#include "kernels/cpu/cpu_features.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define JITCTL_X86 1
#endif

namespace jitctl::cpu {
namespace {

#ifdef JITCTL_X86
struct Regs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};

Regs cpuid(unsigned leaf, unsigned sub = 0) {
  Regs r;
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}

// The register state the OS saves on a context switch (XCR0): a feature is usable only when its
// registers are saved, whatever cpuid says.
uint64_t xcr0() {
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t{hi} << 32) | lo;
}

void detect_x86(CpuFeatures& f) {
  const unsigned max_leaf = cpuid(0).a;
  const Regs v = cpuid(0);
  char vendor[13] = {};
  std::memcpy(vendor, &v.b, 4);
  std::memcpy(vendor + 4, &v.d, 4);
  std::memcpy(vendor + 8, &v.c, 4);
  f.vendor = vendor;
  const Regs l1 = cpuid(1);
  const unsigned base_family = (l1.a >> 8) & 0xf, base_model = (l1.a >> 4) & 0xf;
  f.family = static_cast<int>(base_family == 0xf ? base_family + ((l1.a >> 20) & 0xff) : base_family);
  f.model = static_cast<int>(base_family == 0xf || base_family == 0x6 ? (((l1.a >> 16) & 0xf) << 4) | base_model : base_model);
  if (cpuid(0x80000000).a >= 0x80000004) {
    char brand[49] = {};
    for (unsigned i = 0; i < 3; ++i) {
      const Regs r = cpuid(0x80000002 + i);
      std::memcpy(brand + 16 * i, &r, 16);
    }
    std::string_view s(brand);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.remove_suffix(1);
    f.model_name = s;
  }
  const bool osxsave = (l1.c >> 27) & 1;
  const uint64_t xcr = osxsave ? xcr0() : 0;
  const bool ymm_saved = (xcr & 0x6) == 0x6, zmm_saved = (xcr & 0xe6) == 0xe6;
  f.fma = ymm_saved && ((l1.c >> 12) & 1);
  if (max_leaf >= 7) {
    const Regs l7 = cpuid(7, 0);
    f.avx2 = ymm_saved && ((l7.b >> 5) & 1);
    f.avx512f = zmm_saved && ((l7.b >> 16) & 1);
    f.avx512dq = zmm_saved && ((l7.b >> 17) & 1);
    f.avx512bw = zmm_saved && ((l7.b >> 30) & 1);
    f.avx512vl = zmm_saved && ((l7.b >> 31) & 1);
  }
  if (f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq && f.fma)
    f.detected = Isa::Avx512;
  else if (f.avx2 && f.fma)
    f.detected = Isa::Avx2;
}

// Vector FMA instructions of the ISA's width a core issues per cycle. Not in cpuid; what the
// vendors document for their cores: two 256-bit FMA pipes on every AVX2 core since Haswell and
// Zen 2 (Zen 1: one), two 512-bit pipes on Xeon and Zen 5 server cores, and 512-bit instructions
// on two 256-bit pipes (one per cycle) on Zen 4.
int fma_units_of(const CpuFeatures& f, Isa isa) {
  const bool amd = f.vendor == "AuthenticAMD" || f.vendor == "HygonGenuine";
  if (isa == Isa::Avx512) {
    if (amd) return f.family >= 0x1a ? 2 : 1;
    return 2;
  }
  if (isa == Isa::Avx2 && amd && f.family == 0x17 && f.model < 0x30) return 1;
  return 2;
}
#endif

Isa parse_isa(const char* s, bool& ok) {
  ok = true;
  const std::string_view v(s);
  if (v == "generic" || v == "portable") return Isa::Generic;
  if (v == "avx2") return Isa::Avx2;
  if (v == "avx512") return Isa::Avx512;
  ok = false;
  return Isa::Generic;
}

CpuFeatures detect() {
  CpuFeatures f;
#ifdef JITCTL_X86
  detect_x86(f);
#endif
  f.isa = f.detected;
  if (const char* env = std::getenv("JITCTL_ISA"); env && *env) {
    bool ok = false;
    const Isa want = parse_isa(env, ok);
    if (!ok)
      std::fprintf(stderr, "jitctl: warning: JITCTL_ISA=%s is not one of generic, avx2, avx512; using %s\n", env, isa_name(f.detected));
    else if (want > f.detected)
      std::fprintf(stderr, "jitctl: warning: JITCTL_ISA=%s is more than this CPU supports; using %s\n", env, isa_name(f.detected));
    else
      f.isa = want;
  }
  f.fp32_lanes = f.isa == Isa::Avx512 ? 16 : f.isa == Isa::Avx2 ? 8 : 4;
#ifdef JITCTL_X86
  f.fma_units = fma_units_of(f, f.isa);
  // The portable path is SSE without FMA: one multiply and one add per cycle.
  f.flops_per_cycle = f.isa == Isa::Generic ? 2 * f.fp32_lanes : 2 * f.fma_units * f.fp32_lanes;
#else
  f.fma_units = 1;
  f.flops_per_cycle = 2 * f.fp32_lanes;
#endif
  cpu_set_t set;
  CPU_ZERO(&set);
  f.cores = sched_getaffinity(0, sizeof(set), &set) == 0 ? std::max(1, CPU_COUNT(&set)) : 1;
#ifdef _SC_LEVEL2_CACHE_SIZE
  if (const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE); l2 >= (64 << 10)) f.l2_bytes = l2;
#endif
  return f;
}

// Adds 16 times per iteration, each add waiting for the one before: 16 cycles an iteration. The
// loop counter is a separate chain the core runs alongside.
double time_add_chain(long iterations) {
  const auto t0 = std::chrono::steady_clock::now();
#ifdef JITCTL_X86
  long acc = 0, n = iterations;
  __asm__ volatile(
      "1:\n\t"
      "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
      "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
      "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
      "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
      "dec %1\n\tjnz 1b\n\t"
      : "+r"(acc), "+r"(n)
      :
      : "cc");
#else
  volatile long acc = 0;
  for (long i = 0; i < iterations * 16; ++i) acc = acc + 1;
#endif
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = detect();
  return f;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    case Isa::Generic: break;
  }
  return "generic";
}

double measured_ghz() {
  static std::once_flag once;
  static double ghz = 0;
  std::call_once(once, [] {
    constexpr long kIters = 250000;  // 4M cycles, about 1.5 ms
    time_add_chain(kIters);          // wake the core up to its working clock
    double best = 1e30;
    for (int i = 0; i < 8; ++i) best = std::min(best, time_add_chain(kIters));  // a preempted round is slower, never faster
    ghz = 16.0 * kIters / best / 1e9;
  });
  return ghz;
}

double peak_gflops(int threads) {
  const auto& f = cpu_features();
  return std::clamp(threads, 1, f.cores) * f.flops_per_cycle * measured_ghz();
}

bool switched_off(const char* name) {
  const char* e = std::getenv(name);
  return e && std::string_view(e) == "0";
}

}  // namespace jitctl::cpu
