#include "lib/frontend/type_parser.h"

#include <fmt/format.h>

#include <optional>
#include <unordered_map>

#include "lib/core/error.h"
#include "lib/frontend/parser.h"
#include "lib/ops/schema.h"

namespace jitctl {
namespace {

// ScriptTypeParser's string_to_type_lut: the names that need no resolver.
const TypePtr* builtin_type(const std::string& name) {
  static const std::unordered_map<std::string, TypePtr> kTypes = {
      {"Tensor", TensorType::get()},
      // Tensor subclasses all mean Tensor: TorchScript does not check dtypes at compile time.
      {"LongTensor", TensorType::get()},
      {"DoubleTensor", TensorType::get()},
      {"FloatTensor", TensorType::get()},
      {"int", IntType::get()},
      {"float", FloatType::get()},
      {"complex", ComplexType::get()},
      {"bool", BoolType::get()},
      {"str", StringType::get()},
      {"Device", DeviceObjType::get()},
      {"Stream", StreamObjType::get()},
      {"number", NumberType::get()},  // how code files spell Scalar
      {"None", NoneType::get()},
      {"NoneType", NoneType::get()},
      {"Any", AnyType::get()},
      {"Capsule", CapsuleType::get()},
      {"list", AnyListType::get()},
      {"tuple", AnyTupleType::get()},
  };
  auto it = kTypes.find(name);
  return it == kTypes.end() ? nullptr : &it->second;
}

const char* expr_kind_name(ExprKind k) {
  switch (k) {
    case ExprKind::Int:
    case ExprKind::Float: return "number";
    case ExprKind::String: return "string literal";
    case ExprKind::True:
    case ExprKind::False: return "bool literal";
    case ExprKind::Ellipsis: return "ellipsis";
    case ExprKind::Call: return "call";
    case ExprKind::Tuple: return "tuple literal";
    case ExprKind::List: return "list literal";
    case ExprKind::Dict: return "dict literal";
    case ExprKind::Slice: return "slice";
    default: return "expression";
  }
}

class TypeExprReader {
 public:
  explicit TypeExprReader(const TypeParseContext& ctx) : ctx_(ctx) {}

  TypePtr read(const Expr& e) const {
    if (e.kind == ExprKind::Subscript) {
      auto name = base_name(*e.children[0]);
      if (!name) fail(*e.children[0], "Subscripted type must be a type identifier");
      return subscript(*name, e);
    }
    if (e.kind == ExprKind::String) {
      if (e.text.starts_with("torch.classes.")) return custom_class_type("__torch__." + e.text);
      if (TypePtr t = resolve(e.text)) return t;
      fail(e, fmt::format("Unknown type name '{}'", e.text));
    }
    if (auto name = base_name(e)) {
      if (const TypePtr* t = builtin_type(*name)) return *t;
      if (TypePtr t = resolve(*name)) return t;
      if (name->starts_with("__torch__.torch.classes.")) return custom_class_type(*name);
      fail(e, fmt::format("Unknown type name '{}'", *name));
    }
    fail(e, fmt::format("Expression of type {} cannot be used in a type expression", expr_kind_name(e.kind)));
  }

  // `Final[T]` -> T, or nullopt when `e` is not a Final annotation.
  std::optional<TypePtr> read_final(const Expr& e) const {
    if (e.kind != ExprKind::Subscript || e.children[0]->kind != ExprKind::Name || e.children[0]->text != "Final")
      return std::nullopt;
    expect_args(e, 1, "exactly one element type");
    return read(*e.children[1]);
  }

  [[noreturn]] void fail(const Expr& at, const std::string& what) const {
    throw InvalidInput(fmt::format("{}:{}:{}: {}", ctx_.file, at.range.line, at.range.col, what));
  }

 private:
  TypePtr resolve(const std::string& name) const { return ctx_.resolve ? ctx_.resolve(name) : nullptr; }

  // ScriptTypeParser::parseBaseTypeName: a name, None, or a dotted path, where torch.Tensor and
  // its dtype subclasses mean Tensor.
  static std::optional<std::string> base_name(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Name: return e.text;
      case ExprKind::None: return "None";
      case ExprKind::Attribute: {
        const Expr& value = *e.children[0];
        if (value.kind == ExprKind::Name && value.text == "torch" &&
            (e.text == "Tensor" || e.text == "LongTensor" || e.text == "FloatTensor" || e.text == "DoubleTensor"))
          return e.text;
        auto base = dotted(value);
        if (!base) return std::nullopt;
        return *base + "." + e.text;
      }
      default: return std::nullopt;
    }
  }

  static std::optional<std::string> dotted(const Expr& e) {
    if (e.kind == ExprKind::Name) return e.text;
    if (e.kind != ExprKind::Attribute) return std::nullopt;
    auto base = dotted(*e.children[0]);
    if (!base) return std::nullopt;
    return *base + "." + e.text;
  }

  void expect_args(const Expr& e, size_t n, const char* what) const {
    const size_t got = e.children.size() - 1;
    if (got != n) fail(e, fmt::format("expected {} but found {}", what, got));
  }

  TypePtr arg(const Expr& e, size_t i) const { return read(*e.children[i + 1]); }

  TypePtr subscript(const std::string& name, const Expr& e) const {
    const size_t n = e.children.size() - 1;
    if (name == "Tuple" || name == "tuple") {
      // typing spells the empty tuple `Tuple[()]`.
      if (n == 1 && e.children[1]->kind == ExprKind::Tuple) {
        if (!e.children[1]->children.empty())
          fail(*e.children[1], "Tuple literal in Tuple type annotation must not have any elements!");
        return TupleType::create({});
      }
      std::vector<TypePtr> elems;
      for (size_t i = 0; i < n; ++i) elems.push_back(arg(e, i));
      return TupleType::create(std::move(elems));
    }
    if (name == "List" || name == "list") {
      expect_args(e, 1, "exactly one element type");
      return ListType::create(arg(e, 0));
    }
    if (name == "Optional") {
      expect_args(e, 1, "exactly one element type");
      return OptionalType::create(arg(e, 0));
    }
    if (name == "Union") {
      std::vector<TypePtr> members;
      for (size_t i = 0; i < n; ++i) members.push_back(arg(e, i));
      return UnionType::create(std::move(members));
    }
    if (name == "Future" || name == "torch.jit.Future") {
      expect_args(e, 1, "exactly one element type");
      return FutureType::create(arg(e, 0));
    }
    if (name == "RRef") {
      expect_args(e, 1, "exactly one element type");
      return RRefType::create(arg(e, 0));
    }
    if (name == "Dict" || name == "dict") {
      expect_args(e, 2, "exactly 2 element types");
      TypePtr key = arg(e, 0);
      TypePtr value = arg(e, 1);
      try {
        return DictType::create(std::move(key), std::move(value));
      } catch (const InvalidInput& err) {
        fail(e, err.what());
      }
    }
    fail(e, fmt::format("Unknown type constructor {}", name));
  }

  const TypeParseContext& ctx_;
};

ExprPtr parse_text(std::string_view text, const TypeParseContext& ctx) {
  ParseOptions options;
  options.file = ctx.file;
  return parse_expression(text, options);
}

}  // namespace

TypePtr type_from_expr(const Expr& e, const TypeParseContext& ctx) { return TypeExprReader(ctx).read(e); }

Annotation annotation_from_expr(const Expr& e, const TypeParseContext& ctx) {
  TypeExprReader reader(ctx);
  if (auto t = reader.read_final(e)) return {*t, true};
  return {reader.read(e), false};
}

TypePtr parse_type(std::string_view text, const TypeParseContext& ctx) {
  return type_from_expr(*parse_text(text, ctx), ctx);
}

Annotation parse_annotation(std::string_view text, const TypeParseContext& ctx) {
  return annotation_from_expr(*parse_text(text, ctx), ctx);
}

}  // namespace jitctl
