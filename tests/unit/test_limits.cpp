// Hardening in the lower layers: text from files escaped for messages (printable_text), memory
// sizes, the tensor memory limit (run_limits.h), and walks that a deep value or type cannot turn
// into a stack overflow.
#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/gemm.h"
#include "lib/core/error.h"
#include "lib/core/ivalue.h"
#include "lib/core/ivalue_equality.h"
#include "lib/core/run_limits.h"
#include "lib/core/storage.h"
#include "lib/core/string_literal.h"
#include "lib/core/tensor.h"
#include "lib/core/types.h"
#include "lib/ir/ir.h"
#include "lib/ir/type_text.h"
#include "tests/support/error_of.h"

using namespace jitctl;
using jitctl::test::error_of;

namespace {

// A list nested `depth` deep: [[[...[]...]]].
IValue nested_list(int depth) {
  IValue v(std::make_shared<ListData>());
  for (int i = 0; i < depth; ++i) {
    auto l = std::make_shared<ListData>();
    l->items.push_back(std::move(v));
    v = IValue(std::move(l));
  }
  return v;
}

bool valid_utf8_without_controls(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) return false;
      ++i;
      continue;
    }
    const size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    i += n;
  }
  return true;
}

}  // namespace

TEST_CASE("printable_text: terminal escapes, control bytes and invalid UTF-8 are escaped; UTF-8 text stays") {
  CHECK(printable_text("archive/data.pkl") == "archive/data.pkl");
  CHECK(printable_text("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m");
  CHECK(printable_text("a\nb\tc\rd\x7f") == "a\\x0ab\\x09c\\x0dd\\x7f");
  CHECK(printable_text(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(printable_text("caf\xc3\xa9 \xe2\x9c\x93") == "caf\xc3\xa9 \xe2\x9c\x93");  // café ✓
  CHECK(printable_text("bad\xff\xfe") == "bad\\xff\\xfe");
  CHECK(printable_text("\xc3") == "\\xc3");                  // truncated sequence
  CHECK(printable_text("\xc0\xaf") == "\\xc0\\xaf");         // overlong '/'
  CHECK(printable_text("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(printable_text("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  // Characters that reorder or hide text, and C1 controls (as UTF-8).
  CHECK(printable_text("x\xe2\x80\xaey") == "x\\u202ey");
  CHECK(printable_text("\xc2\x9b" "31m") == "\\u009b31m");
  CHECK(printable_text("a\xe2\x80\x8b" "b") == "a\\u200bb");
  for (int b = 0; b < 256; ++b) {
    CAPTURE(b);
    std::string s = "x";
    s += static_cast<char>(b);
    s += "y\xe2\x82";
    CHECK(valid_utf8_without_controls(printable_text(s)));
  }
}

TEST_CASE("parse_memory_size: K, M, G, T as powers of 1024, with or without B or iB") {
  CHECK(parse_memory_size("512M") == uint64_t{512} << 20);
  CHECK(parse_memory_size("2G") == uint64_t{2} << 30);
  CHECK(parse_memory_size("2g") == uint64_t{2} << 30);
  CHECK(parse_memory_size("1.5GiB") == (uint64_t{3} << 29));
  CHECK(parse_memory_size("64KB") == uint64_t{64} << 10);
  CHECK(parse_memory_size("1T") == uint64_t{1} << 40);
  CHECK(parse_memory_size("1000000") == uint64_t{1000000});
  CHECK(parse_memory_size("100B") == uint64_t{100});
  for (const char* bad : {"", "0", "0M", "-1G", "G", "2X", "2GG", "1.2.3M", "2 G", "1e9", "99999999999T"}) {
    CAPTURE(bad);
    CHECK(!parse_memory_size(bad));
  }
  CHECK(default_max_memory() == available_memory_bytes() / 2);
  CHECK(default_max_memory() > (uint64_t{64} << 20));
}

TEST_CASE("tensor memory is charged before allocation: over --max-memory is refused at once, naming the size") {
  const uint64_t before = memory_in_use();
  {
    // A size no earlier test left in the pool of free buffers (which hands those out uncharged).
    const size_t odd = (size_t{5} << 20) + (size_t{37} << 10);
    auto s = Storage::allocate(odd);
    CHECK(memory_in_use() >= before + odd);
  }
  {
    RunLimitsScope limits({.max_memory = uint64_t{64} << 20, .timeout_s = 0, .subject = "m.pt"});
    // 3.6 TiB: refused by the charge, never asked of the system.
    std::string err;
    try {
      (void)Storage::allocate(uint64_t{4} * 100000 * 100000 * 100);
    } catch (const LimitReached& e) {
      err = e.what();
    }
    CHECK(err.find("m.pt: a tensor of 3.6 TiB (with ") == 0);
    CHECK(err.find(" of tensors held) would go past --max-memory 64.0 MiB") != std::string::npos);
    CHECK_THROWS_AS((void)Storage::allocate(uint64_t{65} << 20), LimitReached);
    // Under the limit, and the refused charges were not kept.
    auto ok = Storage::allocate_uninitialized(uint64_t{32} << 20);
    CHECK(ok->nbytes() == uint64_t{32} << 20);
    // A thrown LimitReached is not an Error: model-error handlers do not swallow it.
    try {
      (void)Storage::allocate(uint64_t{1} << 40);
      FAIL("not refused");
    } catch (const Error&) {
      FAIL("a LimitReached caught as an Error");
    } catch (const LimitReached&) {
    }
  }
  // The limit ends with its scope.
  CHECK_NOTHROW((void)Storage::allocate_uninitialized(uint64_t{65} << 20));
}

TEST_CASE("the memory watchdog looks on its own signal stack, on the thread that armed it, during oneDNN's GEMM") {
  // oneDNN 2.x's JIT f32 GEMM points rsp into the heap while it runs: a signal handled on the
  // interrupted stack writes over the heap there. Sampled every 100 us instead of 50 ms, thousands
  // of looks land inside the GEMM; every one must have run on the alternate stack.
  const int64_t m = 96, n = 256, k = 384;  // under 2^24 multiply-adds: oneDNN's sgemm on every ISA
  std::vector<float> a(m * k), b(k * n), want(m * n), got(m * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) * 0.25f;
  cpu::gemm<float>(cpu::row_major(a.data(), m, k, k), cpu::row_major(b.data(), k, n, n), want.data(), n, 1.0f, 0.0f);
  const WatchdogLooks before = watchdog_looks();
  std::vector<char> touched(size_t{48} << 20, 1);
  {
    RunLimitsScope limits({.max_memory = uint64_t{1} << 40, .timeout_s = 0, .subject = "m.pt", .sample_rss = true,
                           .sample_interval_ns = 100'000});
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    int calls = 0;
    while (std::chrono::steady_clock::now() < end || calls < 10) {
      cpu::gemm<float>(cpu::row_major(a.data(), m, k, k), cpu::row_major(b.data(), k, n, n), got.data(), n, 1.0f, 0.0f);
      ++calls;
      if (got != want) break;
    }
    CHECK(got == want);
    CHECK_FALSE(stop_requested());
    // What it read is /proc/self/statm's resident minus shared pages: at least the touched buffer.
    CHECK(last_sampled_rss() >= touched.size());
    CHECK(last_sampled_rss() < (uint64_t{1} << 40));
  }
  const WatchdogLooks after = watchdog_looks();
  CHECK(after.looks - before.looks >= 50);
  CHECK(after.off_own_stack == before.off_own_stack);
  CHECK(after.off_armed_thread == before.off_armed_thread);
}

TEST_CASE("tensor sizes are checked before the product can wrap around") {
  CHECK(error_of([] { (void)Tensor::empty(DType::Float32, {int64_t{1} << 32, int64_t{1} << 32}); }) ==
        "Storage size calculation overflowed with sizes=[4294967296, 4294967296]");
  CHECK(error_of([] { (void)Tensor::empty(DType::Float32, {2, -3}); }) ==
        "Trying to create tensor with negative dimension -3: [2, -3]");
  CHECK(Tensor::empty(DType::Float32, {0, int64_t{1} << 40}).numel() == 0);
  CHECK(Tensor::empty(DType::Float64, {3, 5}).nbytes() == 120);
}

TEST_CASE("a value nested a million lists deep is freed, compared and printed without overflowing the stack") {
  {
    IValue deep = nested_list(1000000);  // its destruction at the end of this scope must not recurse
    CHECK(error_of([&] { (void)ivalues_equal(deep, deep); }).find("nests more than 1000 levels deep") != std::string::npos);
    CHECK(error_of([&] { (void)format_ivalue(deep); }).find("printing a value that nests more than") == 0);
  }
  // Within the bound, walks work as before.
  const IValue a = nested_list(500), b = nested_list(500);
  CHECK(ivalues_equal(a, b));
  CHECK(format_ivalue(nested_list(2)) == "[[[]]]");
}

TEST_CASE("type text from files nests at most 256 deep") {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "List[";
  deep += "int";
  for (int i = 0; i < 100000; ++i) deep += "]";
  CHECK(error_of([&] { (void)parse_type_text(deep); }).find("types nest deeper than 256") != std::string::npos);
  CHECK(parse_type_text("List[List[Dict[str, Tensor]]]")->annotation_str() == "List[List[Dict[str, Tensor]]]");
}

TEST_CASE("Graph::block_depth counts nested blocks without recursing") {
  Graph g;
  CHECK(g.block_depth() == 0);
  Block* b = g.block();
  for (int i = 0; i < 3; ++i) {
    Node* n = g.create(Symbol::from_qual_string("prim::If"), {}, 0);
    b->append_node(n);
    b = n->add_block();
    n->add_block();
  }
  CHECK(g.block_depth() == 3);
}
