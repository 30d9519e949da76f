#pragma once
// Where printed code came from: for byte offsets of the printed code, the range of the original
// source (Python file, or the traceback text of a trace) it was generated from -- what each
// code/**.py record's .debug_pkl holds. PyTorch's graph printer ends each node's line with that
// original location as "# file:line:col"; the emitter finds it here.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/ir/source_location.h"

namespace jitctl {

class SourceMap {
 public:
  struct Original {
    std::string text;      // the original source (a slice of a file, or trace frames)
    std::string filename;  // may be empty: PyTorch then prints ":0:0"
    int64_t first_line = 0;
  };
  // Printed code from `code_offset` on was generated from `source` at byte `start`.
  struct Record {
    uint32_t code_offset;
    std::shared_ptr<const Original> source;
    uint32_t start;  // offset into source->text
  };

  SourceMap() = default;
  // Records in any order (a .debug_pkl record's: lib/serialization/read_source_map.h).
  explicit SourceMap(std::vector<Record> records);

  // The original source position (printed as "file:line:col") that generated the printed code at
  // `code_offset`; nullopt when no record covers it.
  std::optional<SourceLocation> location_for(uint32_t code_offset) const;
  size_t size() const { return records_.size(); }
  const std::vector<Record>& records() const { return records_; }

 private:
  std::vector<Record> records_;  // sorted by code_offset
};

}  // namespace jitctl
