#pragma once
// The declarations of the classes in an archive's code files, without compiling any method:
// enough to tell parameters from buffers, list methods and name classes, in microseconds.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace jitctl {

struct ClassOutline {
  std::string qualified_name;  // "__torch__.torch.nn.modules.conv.Conv2d"
  std::string base;            // "Module", "NamedTuple", "Enum", "Interface", "ModuleInterface", "object", ...
  std::string file;            // record it came from
  uint32_t line = 0;
  std::vector<std::pair<std::string, std::string>> attributes;  // name, type as written
  std::vector<std::pair<std::string, std::string>> constants;   // Final constants: name, type
  std::vector<std::string> parameters, buffers;  // __parameters__ / __buffers__
  std::vector<std::string> methods;              // in order of definition

  // When __setstate__ only copies fields of its argument into attributes (`self.a = (state)[0]`,
  // the shape PyTorch's own __getstate__/__setstate__ pairs take), the copies it makes: attribute
  // name and index into the state tuple. Empty when there is no __setstate__ or it does more.
  std::vector<std::pair<std::string, size_t>> setstate_copies;
  bool setstate_is_simple = false;

  bool is_module() const { return base == "Module"; }
  bool has_method(std::string_view name) const;
};

struct CodeOutline {
  std::map<std::string, ClassOutline, std::less<>> classes;
  std::vector<std::string> functions;  // free functions, qualified

  const ClassOutline* find(std::string_view qualified_name) const;
};

// Adds the classes and functions declared in one code file, after checking that the whole file
// parses. `record` is its path relative to the
// archive root ("code/__torch__/torch/nn/modules/conv.py"), which gives the qualifier; `where` names
// it in messages.
void outline_code_file(std::string_view source, std::string_view record, const std::string& where, CodeOutline& out);

// Checks that every __torch__ class named in an attribute type is defined by some code file
// (custom C++ classes, __torch__.torch.classes.*, are not). Throws InvalidInput naming the class.
void check_type_references(const CodeOutline& code);

// "code/__torch__/torch/nn/modules/conv.py" -> "__torch__.torch.nn.modules.conv"
std::string qualifier_of_record(std::string_view record);

}  // namespace jitctl
