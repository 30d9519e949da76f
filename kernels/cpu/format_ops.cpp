// str(x), "{}".format(...) and warnings.warn: TorchScript's printing of values.
#include <iostream>
#include <string>

#include "kernels/cpu/value_util.h"

namespace jitctl::cpu {
namespace {

// TorchScript's format replaces each "{}" in order and leaves every other brace as it is
// ("{0}" and "{x}" are not placeholders); surplus arguments are ignored.
void format(Stack& s) {
  const std::string& fmt = s[0].to_string();
  std::string out;
  size_t next = 1, prev = 0;
  for (size_t pos = fmt.find("{}"); pos != std::string::npos; pos = fmt.find("{}", prev)) {
    if (next >= s.size()) throw InvalidInput("Too few arguments for format string: " + fmt);
    out.append(fmt, prev, pos - prev);
    out += script_str(s[next++]);
    prev = pos + 2;
  }
  out.append(fmt, prev);
  set_result(s, std::move(out));
}

// The interpreter decides how often a warning is shown (PyTorch warns once per warn_id); the
// kernel prints what Python's default warning display shows for a UserWarning.
void warn(Stack& s) {
  std::cerr << "UserWarning: " << s[0].to_string() << '\n';
  s.clear();
}

}  // namespace

void register_format_kernels() {
  register_kernel("aten::format", &format);
  register_kernel("aten::str", [](Stack& s) { set_result(s, script_str(s[0])); });
  register_kernel("aten::warn", &warn);
}

}  // namespace jitctl::cpu
