// Fuzz target: the source-range records of a code file (a code/**.py.debug_pkl record), read by
// lib/serialization/read_source_map.h, then asked for the original position of printed offsets
// (what the graph printer shows as "# file:line:col").
#include <cstdint>
#include <string>

#include "lib/serialization/read_source_map.h"
#include "tests/fuzz/fuzz_support.h"

using namespace jitctl;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::expect_clean("debug_pkl", [&] {
    const SourceMap map = read_source_map(fuzz::as_text(data, size), "fuzz.pt: archive/code/__torch__.py.debug_pkl");
    uint64_t sum = 0;
    for (uint32_t offset : {0u, 1u, 2u, 7u, 100u, 1000u, 65535u, 0x7fffffffu, 0xffffffffu})
      if (auto loc = map.location_for(offset)) sum += loc->line + loc->col + loc->str().size();
    for (uint32_t offset = 0; offset < 4096; offset += 13)
      if (auto loc = map.location_for(offset)) sum += loc->line + loc->col + loc->str().size();
    (void)sum;
  });
  return 0;
}
