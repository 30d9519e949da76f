// Memory patterns (lib/core/memory_pattern.h): a recorded call's large tensors replayed at fixed
// places in one arena, first fit over their lifetimes, and never over a tensor still alive.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "lib/core/memory_pattern.h"
#include "lib/core/storage.h"
#include "lib/ir/graph_parser.h"
#include "lib/runtime/interpreter.h"

using namespace jitctl;

namespace {

constexpr size_t kKiB = 1024;

// One "call": a (64 KiB) and b (128 KiB) alive together, a freed, then c (64 KiB) allocated
// while b lives. Returns the storages' addresses; `keep` holds b past the call when given.
struct CallAddresses {
  const uint8_t *a, *b, *c;
};
CallAddresses one_call(MemoryPatterns& patterns, std::shared_ptr<Storage>* keep = nullptr) {
  MemoryPatternScope scope(patterns);
  auto a = Storage::allocate_uninitialized(64 * kKiB);
  auto b = Storage::allocate_uninitialized(128 * kKiB);
  CallAddresses r{a->data(), b->data(), nullptr};
  a.reset();
  auto c = Storage::allocate_uninitialized(64 * kKiB);
  r.c = c->data();
  if (keep) *keep = b;
  return r;
}

}  // namespace

TEST_CASE("memory pattern: a replayed call puts a tensor where one freed before it was") {
  MemoryPatterns patterns;
  const auto before = memory_pattern_stats();
  one_call(patterns);  // records
  const CallAddresses r = one_call(patterns);
  CHECK(r.c == r.a);  // first fit: c takes a's bytes, freed just before
  CHECK(r.b != r.a);
  const auto after = memory_pattern_stats();
  CHECK(after.recorded == before.recorded + 1);
  CHECK(after.replayed == before.replayed + 1);
}

TEST_CASE("memory pattern: a tensor kept past its call is never handed out again while alive") {
  MemoryPatterns patterns;
  one_call(patterns);
  std::shared_ptr<Storage> kept;
  const CallAddresses second = one_call(patterns, &kept);
  std::memset(kept->mutable_data(), 0x5a, kept->nbytes());
  const auto before = memory_pattern_stats();
  std::shared_ptr<Storage> kept3;
  const CallAddresses third = one_call(patterns, &kept3);
  CHECK(third.b != second.b);  // the arena block is taken: the pool serves instead
  std::memset(kept3->mutable_data(), 0x11, kept3->nbytes());
  CHECK(memory_pattern_stats().fallbacks == before.fallbacks + 1);
  const auto* p = kept->data();
  bool intact = true;
  for (size_t i = 0; i < kept->nbytes(); ++i) intact = intact && p[i] == 0x5a;
  CHECK(intact);
  kept.reset();
  kept3.reset();
  const CallAddresses fourth = one_call(patterns);
  CHECK(fourth.b == second.b);  // released: the block is the arena's again
}

TEST_CASE("memory pattern: calls whose sizes change record again, then give the pattern up") {
  MemoryPatterns patterns;
  const auto before = memory_pattern_stats();
  for (size_t n = 1; n <= 8; ++n) {
    MemoryPatternScope scope(patterns);
    auto a = Storage::allocate_uninitialized(n * 64 * kKiB);
    auto b = Storage::allocate_uninitialized(64 * kKiB);
    std::memset(a->mutable_data(), 1, a->nbytes());
    std::memset(b->mutable_data(), 2, b->nbytes());
    CHECK(a->data()[a->nbytes() - 1] == 1);
  }
  const auto after = memory_pattern_stats();
  CHECK(after.replayed == before.replayed);
  // Record, deviate, record, ...: the fourth deviation ends it; later calls do not record.
  CHECK(after.recorded - before.recorded == 4);
}

TEST_CASE("memory pattern: outputs of earlier calls keep their values while a method runs again") {
  // Large intermediates (65536 floats) freed at their last use, the output kept by the caller.
  Method m = plan_graph(parse_graph(R"(graph(%x : Tensor):
  %a : int = prim::Constant[value=1]()
  %y : Tensor = aten::mul(%x, %x)
  %z : Tensor = aten::relu(%y)
  %w : Tensor = aten::add(%z, %x, %a)
  return (%w))"));
  std::vector<Tensor> outs;
  for (int call = 0; call < 5; ++call) {
    Tensor x = Tensor::empty(DType::Float32, {256, 256});
    std::fill_n(static_cast<float*>(x.mutable_data()), x.numel(), static_cast<float>(call + 1));
    outs.push_back(m({IValue(x)}).to_tensor());
  }
  for (int call = 0; call < 5; ++call) {
    const double v = call + 1;
    const auto* p = static_cast<const float*>(outs[call].data());
    bool ok = true;
    for (int64_t i = 0; i < outs[call].numel(); ++i) ok = ok && p[i] == static_cast<float>(v * v + v);
    CHECK_MESSAGE(ok, "call ", call);
  }
}

TEST_CASE("memory pattern: a method without large tensors looks again only after a while") {
  MemoryPatterns patterns;
  auto small_call = [&] {
    MemoryPatternScope scope(patterns);
    auto a = Storage::allocate_uninitialized(1024);  // below the pool's size: not part of a pattern
  };
  const auto before = memory_pattern_stats();
  small_call();  // records nothing worth placing
  CHECK(memory_pattern_stats().recorded == before.recorded + 1);
  for (int i = 0; i < 64; ++i) small_call();
  CHECK(memory_pattern_stats().recorded == before.recorded + 1);
  small_call();  // then records again: shapes may have grown
  CHECK(memory_pattern_stats().recorded == before.recorded + 2);
  // Once a call has large tensors, the next one replays them.
  for (int i = 0; i < 64; ++i) small_call();
  one_call(patterns);
  one_call(patterns);
  CHECK(memory_pattern_stats().replayed >= before.replayed + 1);
}
