// Members of TorchScript Enum classes (lib/core/enum_value.h): comparison, .name and .value.
#include "kernels/cpu/value_util.h"
#include "lib/core/enum_value.h"

namespace jitctl::cpu {
namespace {

const IValue& member(const IValue& v) {
  if (!is_enum_value(v)) throw InvalidInput("expected a member of an Enum class");
  return v;
}

}  // namespace

void register_enum_kernels() {
  register_kernel("aten::eq.enum", [](Stack& s) { set_result(s, enum_values_equal(member(s[0]), member(s[1]))); });
  register_kernel("aten::ne.enum", [](Stack& s) { set_result(s, !enum_values_equal(member(s[0]), member(s[1]))); });
  for (const char* k : {"prim::EnumValue.int", "prim::EnumValue.float", "prim::EnumValue.str"})
    register_kernel(k, [](Stack& s) { set_result(s, enum_member_value(member(s[0]))); });
  register_kernel("prim::EnumName", [](Stack& s) {
    std::string name = enum_member_name(member(s[0]));
    if (name.empty()) throw InvalidInput("an Enum member whose name the archive's code does not give");
    set_result(s, IValue(std::move(name)));
  });
}

}  // namespace jitctl::cpu

namespace jitctl {
void register_enum_kernels() { cpu::register_enum_kernels(); }
}  // namespace jitctl
