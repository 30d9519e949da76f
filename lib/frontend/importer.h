#pragma once
// The code of a module, as PyTorch's SourceImporter holds it: every class, interface, enum and
// NamedTuple its code files define, as types, and its free functions -- each with the parsed
// source and source map the compiler needs to build its graph on first use. Reading the files out
// of an archive is lib/serialization/import_code.h's job.
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/core/types.h"
#include "lib/frontend/ast.h"
#include "lib/frontend/source_map.h"

namespace jitctl {

// The value of a literal expression as printed code writes them (ints, floats, strings, None,
// bools, inf/nan, negative numbers, tuples and lists of those); nullopt for anything else.
std::optional<IValue> literal_value(const Expr& e);

class GraphFunction;  // lib/frontend/graph_function.h

class CompilationUnit {
 public:
  struct CodeFile {
    std::string record;  // "code/__torch__/torch/nn/modules/conv.py"
    std::string where;   // "model.pt: archive/code/__torch__/torch/nn/modules/conv.py", for messages
    std::string qualifier;  // "__torch__.torch.nn.modules.conv"
    std::string text;
    SourceMap map;  // empty when the archive has no .debug_pkl for it
    ParsedFile ast;
  };
  // A method of a class, or a free function (owner null).
  struct Function {
    std::string qualified_name;  // "__torch__.Net.forward", "__torch__.helper"
    const FunctionDef* def = nullptr;
    const CodeFile* file = nullptr;
    std::shared_ptr<ClassType> owner;
    TypePtr self_type;  // the class or interface of a method (owner, or the interface); null for functions
  };

  // No code yet. `origin` (the archive) names the unit in messages.
  explicit CompilationUnit(std::string origin);
  ~CompilationUnit();  // breaks the reference cycles between class types
  CompilationUnit(const CompilationUnit&) = delete;
  CompilationUnit& operator=(const CompilationUnit&) = delete;

  // Adds a parsed code file: its classes, defined lazily (on the first find_type() that names
  // them, as PyTorch does), and its functions. Throws InvalidInput for a class or function that
  // an earlier file defines already.
  void add_file(std::unique_ptr<CodeFile> file);
  // constants.pkl: what code refers to as CONSTANTS.c0, CONSTANTS.c1, ...
  void set_constants(std::vector<IValue> constants) { constants_ = std::move(constants); }

  // A class, interface, enum or NamedTuple by qualified name; nullptr when no code file defines it.
  // Throws InvalidInput ("file:line:col: ...") when its definition is malformed.
  TypePtr find_type(std::string_view qualified_name);
  std::shared_ptr<ClassType> find_class(std::string_view qualified_name);
  // A method of a class or interface.
  const Function* find_method(std::string_view class_name, std::string_view method);
  const Function* find_function(std::string_view qualified_name);
  // The graphs of the method `method` of class `owner`, or (method "") of the free function
  // `owner`, made on first use and shared by every user (lib/frontend/graph_function.h); nullptr
  // for a class the code does not define (a C++ class: its calls stay calls). Throws InvalidInput
  // naming the archive when the code defines the class but not the method, or no such function.
  GraphFunction* graph_function(const std::string& owner, const std::string& method);
  const std::vector<std::unique_ptr<CodeFile>>& files() const { return files_; }
  const std::vector<IValue>& constants() const { return constants_; }
  // The PyTorch version whose operator schemas compile this code ("1.13", "2.15"; see
  // lib/ops/schema_registry.h), as the importer set it (lib/serialization/import_code.h); with
  // `scan_code`, 2.0 instead of the version set when the code calls `torch.X` for an operator 2.0
  // added and 1.13 lacks -- decided on first use, since the scan costs the schema index, which
  // `info` never needs.
  std::string_view schema_version() const;
  void set_schema_version(std::string_view version, bool scan_code) {
    schema_version_ = version;
    scan_for_2_0_ = scan_code;
  }
  // The archive's file-format version: the operator version its code was written against
  // (passes/replace_old_operators.h); -1 for code that is not from an archive.
  int64_t format_version() const { return format_version_; }
  void set_format_version(int64_t v) { format_version_ = v; }

 private:
  struct Definition {
    const ClassDef* cls;
    const CodeFile* file;
  };
  TypePtr define(const std::string& name, const Definition& d);
  void fill_class(ClassType& cls, const Definition& d);
  TypePtr type_of(const Expr& e, const CodeFile& file);
  MethodSignature signature_of(const FunctionDef& def, const CodeFile& file);

  std::vector<std::unique_ptr<CodeFile>> files_;
  std::vector<IValue> constants_;
  mutable std::string_view schema_version_ = "1.13";
  bool scan_for_2_0_ = false;
  mutable std::once_flag scanned_;
  int64_t format_version_ = -1;
  std::map<std::string, Definition, std::less<>> definitions_;
  std::map<std::string, TypePtr, std::less<>> types_;
  std::map<std::string, Function, std::less<>> functions_;  // free functions and methods
  std::set<std::string, std::less<>> defining_;  // being defined now: a cycle through them is an error
  std::vector<std::shared_ptr<ClassType>> classes_;
  std::vector<std::shared_ptr<InterfaceType>> interfaces_;
  std::string origin_;  // the archive, for messages
  std::map<std::pair<std::string, std::string>, std::unique_ptr<GraphFunction>> graph_functions_;
};

}  // namespace jitctl
