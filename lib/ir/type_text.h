#pragma once
// Reads types back from text: the graph_str() spelling graphs print (`int[]`, `Tensor?`,
// `Dict(str, Tensor)`, `(Tensor, int)`, `Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)`,
// `NamedTuple(x : Tensor)`, `Future[int]`), the str() spelling of types nested in Dict and Union
// (`Future(int)`), and the annotation spelling of typed containers' element types (`List[int]`,
// `Optional[str]`, `Tuple[int, str]`).
//
// What a graph prints does not always name a type completely: classes print their qualified name,
// interfaces `InterfaceType<Base>`, enums `Enum<name>`, NamedTuples only their fields. Those come
// from TypeTextContext::resolve when it knows them, and otherwise become placeholders (an empty
// class, interface or enum of that name; a NamedTuple with an empty qualified name), one per name
// per context so that equal names give the same type.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "lib/core/error.h"
#include "lib/core/types.h"

namespace jitctl {

// An error at a byte offset of the text being parsed; callers turn the offset into line:col.
class TextParseError : public InvalidInput {
 public:
  TextParseError(size_t offset, const std::string& message) : InvalidInput(message), offset_(offset) {}
  size_t offset() const { return offset_; }

 private:
  size_t offset_;
};

struct TypeTextContext {
  enum class NameKind { Class, Interface, Enum };
  // The type a printed name stands for ("__torch__.foo.Bar", the "OpInterface" of
  // `InterfaceType<OpInterface>`), or nullptr for a placeholder. May be empty.
  std::function<TypePtr(NameKind, const std::string&)> resolve;
  std::unordered_map<std::string, TypePtr> placeholders;  // filled as names are met
};

// Parses one type starting at text[pos] (after spaces) and leaves pos just past it. Throws
// TextParseError.
TypePtr parse_type_at(std::string_view text, size_t& pos, TypeTextContext& ctx);

// A whole string as one type; throws InvalidInput naming the text and the column.
TypePtr parse_type_text(std::string_view text, TypeTextContext& ctx);
TypePtr parse_type_text(std::string_view text);

}  // namespace jitctl
