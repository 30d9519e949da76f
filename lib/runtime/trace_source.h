#pragma once
// The original Python source of a scripted archive's nodes, for what the tracer must see that the
// TorchScript compiler erased. `int(x.size(0))` is an identity in TorchScript (an int of an int
// compiles to nothing), but in Python under torch.jit.trace it turns the traced size into a plain
// number, baked into the trace. The archive's debug records keep the source each function was
// compiled from, so the call around a node's expression can still be read there.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lib/ir/source_location.h"

namespace jitctl {

class CompilationUnit;

class TraceSource {
 public:
  TraceSource() = default;
  explicit TraceSource(const CompilationUnit& cu);

  // The text of `line` of `file` (without its newline); empty when no debug record holds it.
  std::string_view line(const std::string& file, uint32_t line) const;

  // The name of the call whose first argument starts at `loc`, when it is one of Python's number
  // conversions `int(` or `float(`: "int" or "float"; "" otherwise.
  std::string_view wrapping_conversion(const SourceLocation& loc) const;

  // Is `loc` in the `else:` of an `if ... torch._C._get_tracing_state():`? Library code keeps
  // sizes traced in the tracing branch (F.interpolate computes its output size with tensor ops
  // there); TorchScript compiled only the other one, whose int()/float() of sizes stand for it.
  bool in_untraced_branch(const SourceLocation& loc) const;

 private:
  struct Text {
    int64_t first_line = 0;
    std::shared_ptr<const std::string> text;
    std::vector<size_t> line_starts;
    std::string_view line(size_t index) const;
  };
  const Text* text_of(const std::string& file, uint32_t line) const;
  std::map<std::string, std::vector<Text>> files_;
  mutable std::map<std::pair<std::string, uint32_t>, bool> untraced_;
};

}  // namespace jitctl
