// lib/runtime/trace_source: the Python source a scripted archive keeps, read where TorchScript
// erased a conversion the tracer must see (int(x.size(0)) compiles to the size alone).
#include <doctest/doctest.h>

#include "lib/runtime/interpreter.h"
#include "lib/runtime/trace_source.h"
#include "lib/serialization/load_module.h"
#include "tests/support/testdata_path.h"

namespace jitctl {

TEST_CASE("trace source: the call around an expression, read from the archive's debug records") {
  // testdata/trace/int_of_size.pt: `n = int(x.size(0))` then `return x.reshape(n, -1).sum(1)`.
  LoadedModule m = load_module((test::testdata_dir() / "trace" / "int_of_size.pt").string());
  const TraceSource source(*m.cu);
  const std::string file = "testdata/gen/make_trace_corpus.py";
  uint32_t line = 0;
  for (uint32_t l = 1; l < 400 && line == 0; ++l)
    if (source.line(file, l).find("n = int(x.size(0))") != std::string_view::npos) line = l;
  REQUIRE(line > 0);
  const std::string_view text = source.line(file, line);
  const auto col = static_cast<uint32_t>(text.find("x.size(0)"));
  CHECK(source.wrapping_conversion({file, line, col}) == "int");
  CHECK(source.wrapping_conversion({file, line, col + 2}) == "");  // size(0): not the argument of int(
  CHECK(source.wrapping_conversion({file, line + 1, 15}) == "");
  CHECK(source.line("no_such_file.py", line).empty());
}

}  // namespace jitctl
