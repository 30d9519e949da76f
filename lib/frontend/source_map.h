#pragma once
// Where printed code came from. Each code/**.py record of an archive has a .debug_pkl beside it:
// for byte offsets of the printed code, the range of the original source (Python file, or the
// traceback text of a trace) it was generated from. PyTorch's graph printer ends each node's line
// with that original location as "# file:line:col"; this is how jitctl finds it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/ir/source_location.h"

namespace jitctl {

class SourceMap {
 public:
  // Reads a .debug_pkl record (PyTorch 1.10+ "FORMAT_WITH_STRING_TABLE", and the older form
  // without a string table). `where` names it in messages.
  static SourceMap read(std::string_view debug_pkl, const std::string& where);

  // The original source position (printed as "file:line:col") that generated the printed code at
  // `code_offset`; nullopt when no record covers it.
  std::optional<SourceLocation> location_for(uint32_t code_offset) const;
  size_t size() const { return records_.size(); }

 private:
  struct Original {
    std::string text;      // the original source (a slice of a file, or trace frames)
    std::string filename;  // may be empty: PyTorch then prints ":0:0"
    int64_t first_line = 0;
  };
  struct Record {
    uint32_t code_offset;
    std::shared_ptr<const Original> source;
    uint32_t start;  // offset into source->text
  };
  std::vector<Record> records_;  // sorted by code_offset
};

}  // namespace jitctl
