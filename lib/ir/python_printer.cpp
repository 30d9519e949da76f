// PyTorch 1.13's PythonPrint (torch/csrc/jit/serialization/python_print.cpp), rule for rule: the
// order in which names are handed out, which values are inlined and where long lines are split
// all show in the printed text, so each step follows theirs.
#include "lib/ir/python_printer.h"

#include <fmt/format.h>

#include <cctype>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "lib/core/string_literal.h"
#include "lib/core/enum_value.h"
#include "lib/ir/attribute_text.h"
#include "lib/ir/constants.h"
#include "lib/ir/ivalue_type.h"
#include "lib/ir/python_printer_text.h"

namespace jitctl {

namespace {

using Source = std::optional<SourceLocation>;

// Text with the source each part of it came from.
struct Tagged {
  std::string text;
  std::vector<PrintedRange> ranges;

  void put(std::string_view s, const Source& src) {
    if (s.empty()) return;
    if (ranges.empty() || ranges.back().source != src) ranges.push_back({text.size(), src});
    text += s;
  }
  void put(const Tagged& rhs) {
    for (const auto& r : rhs.ranges)
      if (ranges.empty() || ranges.back().source != r.source) ranges.push_back({text.size() + r.begin, r.source});
    text += rhs.text;
  }
};

// Valid identifiers that the printed code may not use as names: keywords, and names its reader
// gives a meaning.
const std::unordered_set<std::string>& reserved_names() {
  static const std::unordered_set<std::string> names = {
      "_", "as", "aten", "attribute", "CONSTANTS", "fork", "getattr", "inf", "nan", "infj", "nanj", "ops",
      "__torch__", "and", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
      "else", "except", "False", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "None", "nonlocal", "not", "or", "pass", "raise", "return", "True", "try", "with", "while", "yield",
      "uninitialized", "unchecked_cast",
  };
  return names;
}

// Only ASCII letters count: this is C's isupper/islower in the "C" locale.
bool is_ident_char(char c, size_t pos) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (pos > 0 && c >= '0' && c <= '9');
}

bool is_ident(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (!is_ident_char(s[i], i)) return false;
  return true;
}

std::string make_valid_identifier(const std::string& candidate) {
  std::string out;
  if (candidate.empty() || (candidate[0] >= '0' && candidate[0] <= '9')) out += '_';
  for (char c : candidate) out += is_ident_char(c, 1) ? c : '_';
  return out;
}

// The parts of a prim::Loop (PyTorch's LoopView).
struct LoopParts {
  enum Kind { For, While, Modified };
  explicit LoopParts(const Node* n) : node(n), body(n->blocks().at(0)) {}
  const Node* node;
  const Block* body;
  Value* max_trip_count() const { return node->input(0); }
  Value* input_cond() const { return node->input(1); }
  std::vector<Value*> carried_inputs() const { return {node->inputs().begin() + 2, node->inputs().end()}; }
  std::vector<Value*> carried_outputs() const { return node->outputs(); }
  Value* current_trip_count() const { return body->inputs().at(0); }
  Value* next_cond() const { return body->outputs().at(0); }
  std::vector<Value*> body_carried_inputs() const { return {body->inputs().begin() + 1, body->inputs().end()}; }

  Kind kind() const {
    auto trip = to_ivalue(max_trip_count());
    auto cond_in = to_ivalue(input_cond());
    auto cond_next = to_ivalue(next_cond());
    const bool always_true = cond_in && cond_in->is(IValue::Kind::Bool) && cond_in->to_bool() && cond_next &&
                             cond_next->is(IValue::Kind::Bool) && cond_next->to_bool();
    const bool trip_specified = !trip || !trip->is(IValue::Kind::Int) ||
                                trip->to_int() != std::numeric_limits<int64_t>::max() ||
                                current_trip_count()->has_uses();
    if (always_true) return trip_specified ? For : While;
    return trip_specified ? Modified : While;
  }
};

}  // namespace

struct PythonPrinter::Impl {
  using CallArguments = PythonPrinter::CallArguments;
  Impl(std::vector<IValue>& constants, Hooks hooks) : constant_table(constants), hooks(std::move(hooks)) {}

  std::vector<IValue>& constant_table;
  Hooks hooks;
  std::vector<Source> source_stack{Source{}};
  Tagged body;
  size_t level = 0;
  std::unordered_set<const Node*> output_inline;
  std::unordered_map<const Node*, int64_t> visited_split_inline_uses;
  std::unordered_set<std::string> used_names;
  std::unordered_map<std::string, size_t> next_id;
  std::unordered_set<const Node*> seen_constants;
  std::unordered_map<const Value*, std::shared_ptr<Tagged>> expr_table;
  std::unordered_map<const Value*, std::string> ident_refs;
  std::unordered_set<const Value*> annotated_unions;

  const Source& source() const { return source_stack.back(); }

  struct WithSource {
    WithSource(Impl& p, const Node* n) : p(p) { p.source_stack.push_back(n->source_location()); }
    ~WithSource() { p.source_stack.pop_back(); }
    Impl& p;
  };

  // Writing.
  void put(Tagged& t, std::string_view s) { t.put(s, source()); }
  void out(std::string_view s) { body.put(s, source()); }
  void indent() {
    for (size_t i = 0; i < level; ++i) out("  ");
  }
  std::string annotation(const TypePtr& t) const { return t->annotation_str(hooks.type_printer); }

  // Dependencies on named types.
  void add_dependency(const TypePtr& t) {
    if (hooks.on_dependency) hooks.on_dependency(t);
  }
  void register_class_dependencies(const TypePtr& t) {
    switch (t->kind()) {
      case TypeKind::Class:
      case TypeKind::Interface:
      case TypeKind::Enum: add_dependency(t); break;
      case TypeKind::Tuple:
        if (t->expect<TupleType>().is_named()) add_dependency(t);
        break;
      default: break;
    }
    for (const auto& c : t->contained()) register_class_dependencies(c);
  }
  void scan_type_dependencies(const Node* n) {
    for (const Value* v : n->inputs()) register_class_dependencies(v->type());
    for (const Value* v : n->outputs()) register_class_dependencies(v->type());
    for (const auto& a : n->attributes()) {
      if (a.value.index() == static_cast<size_t>(AttributeKind::ty)) {
        register_class_dependencies(std::get<static_cast<size_t>(AttributeKind::ty)>(a.value));
      } else if (a.value.index() == static_cast<size_t>(AttributeKind::tys)) {
        for (const auto& t : std::get<static_cast<size_t>(AttributeKind::tys)>(a.value)) register_class_dependencies(t);
      }
    }
  }

  // Inlining decisions: a right-to-left walk over a node's inputs that steps backwards over the
  // nodes before it, as long as each input is the output of the next node back.
  bool can_inline(const Value* v) const {
    const Node* n = v->node();
    if (n->outputs().size() != 1) return false;
    if (v->uses().size() != 1) return false;
    const Use& use = v->uses()[0];
    if (v->has_debug_name() && use.user->kind() != prim::Return) return false;
    if (!n->blocks().empty()) return false;
    if (use.user->kind() == prim::Loop && use.offset >= 2) return false;
    const Symbol uk = use.user->kind();
    if (uk == prim::fork || uk == prim::rpc_async || uk == prim::rpc_sync || uk == prim::rpc_remote) return false;
    if (n->kind() == prim::isinstance) return false;
    return true;
  }

  Node* scan_value(Node* block_point, const Value* v) {
    Node* n = v->node();
    if (n == block_point && n->kind() != prim::Param && can_inline(v)) {
      block_point = scan_node(block_point);
      output_inline.insert(n);
    } else if (n->kind() == prim::Constant) {
      output_inline.insert(n);
    }
    return block_point;
  }

  static Node* previous_non_constant(Node* n) {
    do {
      n = n->prev();
    } while (n->kind() == prim::Constant);
    return n;
  }

  Node* scan_node(Node* n) {
    if (output_inline.count(n)) return n;
    for (const Block* b : n->blocks()) scan_block(b);
    Node* block_point = previous_non_constant(n);
    for (auto it = n->inputs().rbegin(); it != n->inputs().rend(); ++it) block_point = scan_value(block_point, *it);
    return block_point;
  }

  void scan_block(const Block* b) {
    scan_node(b->return_node());
    for (Node* n : b->nodes().reverse()) scan_node(n);
  }

  // Constants are printed first, in order of first use.
  void build_constant_list(const Node* n, std::vector<Node*>& constants) {
    for (Value* in : n->inputs()) {
      if (in->node()->kind() == prim::Constant && seen_constants.insert(in->node()).second)
        constants.push_back(in->node());
    }
    for (const Block* b : n->blocks()) build_constant_list(b, constants);
  }
  void build_constant_list(const Block* b, std::vector<Node*>& constants) {
    for (const Node* n : b->nodes()) build_constant_list(n, constants);
    build_constant_list(b->return_node(), constants);
  }

  // Names.
  std::string gen_name(const std::string& candidate) {
    std::string name = candidate;
    while (used_names.count(name) || reserved_names().count(name)) name = candidate + std::to_string(next_id[name]++);
    used_names.insert(name);
    return name;
  }
  std::string gen_unique_name_for(const Value* v) {
    return gen_name(v->has_debug_name() ? make_valid_identifier(v->debug_name_base()) : "_");
  }

  std::shared_ptr<Tagged> use_of(const Value* v) {
    if (auto it = ident_refs.find(v); it != ident_refs.end()) {
      auto t = std::make_shared<Tagged>();
      put(*t, it->second);
      return t;
    }
    if (auto it = expr_table.find(v); it != expr_table.end()) return it->second;
    throw std::logic_error("python printer: value %" + v->debug_name() + " used before it was printed");
  }
  void assign_value(const Value* v, const std::string& s) { ident_refs[v] = s; }
  void assign_value(const Value* v, std::shared_ptr<Tagged> s) { expr_table[v] = std::move(s); }
  void assign_value(const Value* v, const Value* w) { assign_value(v, use_of(w)); }
  void assign_unique_names(const std::vector<Value*>& values) {
    for (const Value* v : values) assign_value(v, gen_unique_name_for(v));
  }

  void print_value_list(Tagged& stmt, const std::vector<Value*>& list, std::string_view begin = "",
                        std::string_view end = "") {
    put(stmt, begin);
    const char* delimiter = "";
    for (const Value* v : list) {
      put(stmt, delimiter);
      stmt.put(*use_of(v));
      delimiter = ", ";
    }
    put(stmt, end);
  }

  // Union and Optional values keep their type: the first assignment that defines one (alone on
  // its left-hand side, which Python allows to annotate) says it.
  static bool is_union_like(const TypePtr& t) {
    return t->kind() == TypeKind::Union || t->kind() == TypeKind::Optional;
  }

  void print_assignment(const std::vector<Value*>& lhs, const std::vector<Value*>& rhs) {
    if (lhs.empty()) return;
    indent();
    print_value_list(body, lhs);
    if (lhs.size() == 1) {
      const Value* v = lhs[0];
      if (!annotated_unions.count(v) && !expr_table.count(v) && is_union_like(v->type())) {
        out(" : " + v->type()->annotation_str());
        annotated_unions.insert(v);
      }
    }
    out(" = ");
    print_value_list(body, rhs);
    out("\n");
  }

  bool requires_annotation(const Value* lhs, const Value* rhs) {
    if (is_union_like(lhs->type())) return annotated_unions.insert(lhs).second;
    return !lhs->type()->equals(*rhs->type());
  }

  void print_annotated_assignment(const std::vector<Value*>& lhs, const std::vector<Value*>& rhs) {
    for (size_t i = 0; i < lhs.size(); ++i) {
      indent();
      body.put(*use_of(lhs[i]));
      if (requires_annotation(lhs[i], rhs[i])) out(": " + annotation(lhs[i]->type()));
      out(" = ");
      body.put(*use_of(rhs[i]));
      out("\n");
    }
  }

  void print_if(const Node* n) {
    assign_unique_names(n->outputs());
    indent();
    out("if ");
    body.put(*use_of(n->input(0)));
    out(":\n");
    for (size_t i = 0; i < 2; ++i) {
      if (i == 1) {
        indent();
        out("else:\n");
      }
      ++level;
      const Block* b = n->blocks().at(i);
      print_block(b, !n->outputs().empty());
      print_assignment(n->outputs(), b->outputs());
      --level;
    }
  }

  void print_loop(const Node* n) {
    LoopParts loop(n);
    const auto kind = loop.kind();
    if (kind == LoopParts::Modified)
      throw Unsupported("a loop that combines a trip count and a condition (after loop optimizations) cannot be "
                        "printed as code");
    const bool as_for = kind == LoopParts::For;
    assign_unique_names(loop.carried_outputs());
    const auto body_carried = loop.body_carried_inputs();
    for (size_t i = 0; i < body_carried.size(); ++i) assign_value(body_carried[i], loop.carried_outputs().at(i));
    print_annotated_assignment(loop.carried_outputs(), loop.carried_inputs());
    assign_unique_names({loop.current_trip_count()});
    if (as_for) {
      indent();
      out("for ");
      body.put(*use_of(loop.current_trip_count()));
      out(" in range(");
      body.put(*use_of(loop.max_trip_count()));
      out("):\n");
    } else {
      print_assignment({loop.current_trip_count()}, {loop.input_cond()});
      indent();
      out("while ");
      body.put(*use_of(loop.current_trip_count()));
      out(":\n");
    }
    ++level;
    const size_t offset = as_for ? 1 : 0;
    const Block* b = loop.body;
    std::vector<Value*> carried_in(b->inputs().begin() + offset, b->inputs().end());
    std::vector<Value*> carried_out(b->outputs().begin() + offset, b->outputs().end());
    print_block(b, !carried_in.empty());
    print_assignment(carried_in, carried_out);
    --level;
  }

  bool is_long_line(const std::string& s) const { return s.size() + level * 2 >= 40; }
  bool is_non_constant_inline(const Value* v) const {
    return v->node()->kind() != prim::Constant && output_inline.count(v->node());
  }

  // An inline expression got too long: give it (and every inline argument evaluated before it,
  // up the chain of inline users) its own statement, in evaluation order.
  void split_long_inlines(const Value* v) {
    std::vector<const Value*> to_split_reversed;
    const Use& u = v->uses().at(0);
    scan_long_inlines(u.user, static_cast<int64_t>(u.offset), to_split_reversed);
    for (auto it = to_split_reversed.rbegin(); it != to_split_reversed.rend(); ++it)
      print_output_definition((*it)->node(), *use_of(*it));
  }

  void scan_long_inlines(const Node* user, int64_t offset, std::vector<const Value*>& to_split_reversed) {
    auto it = visited_split_inline_uses.find(user);
    const bool present = it != visited_split_inline_uses.end();
    const int64_t stop = present ? it->second + 1 : 0;
    for (int64_t i = offset; i >= stop; --i) {
      const Value* prev_arg = user->input(static_cast<size_t>(i));
      if (is_non_constant_inline(prev_arg)) to_split_reversed.push_back(prev_arg);
    }
    visited_split_inline_uses[user] = offset;
    if (!present && output_inline.count(user)) {
      const Use& u = user->output()->uses().at(0);
      // The use itself is still being printed and cannot be split: start one before it.
      scan_long_inlines(u.user, static_cast<int64_t>(u.offset) - 1, to_split_reversed);
    }
  }

  void print_output_definition(const Node* n, const Tagged& expr) {
    assign_unique_names(n->outputs());
    indent();
    if (!n->outputs().empty()) {
      print_value_list(body, n->outputs());
      out(" = ");
    }
    body.put(expr);
    out("\n");
  }

  void print_node(Node* n, bool print_const) {
    WithSource guard(*this, n);
    scan_type_dependencies(n);
    if (!print_const && n->kind() == prim::Constant) return;
    const Symbol k = n->kind();
    if (k == prim::Return) {
      if (!n->inputs().empty()) {
        indent();
        out("return ");
        print_value_list(body, n->inputs());
        out("\n");
      }
    } else if (k == prim::Loop) {
      print_loop(n);
    } else if (k == prim::If) {
      print_if(n);
    } else if (k == prim::TupleUnpack || k == prim::ListUnpack) {
      assign_unique_names(n->outputs());
      indent();
      if (!n->outputs().empty()) print_value_list(body, n->outputs(), "", ", = ");
      body.put(*use_of(n->input()));
      out("\n");
    } else if (k == prim::SetAttr) {
      indent();
      body.put(*use_of(n->input(0)));
      out("." + n->s(attr::name) + " = ");
      body.put(*use_of(n->input(1)));
      out("\n");
    } else if (k == prim::fork) {
      const std::string name = gen_name("__forked_function");
      const auto& graph = n->g(attr::Subgraph);
      indent();
      out("def " + name + "():\n");
      for (size_t i = 0; i < n->inputs().size(); ++i) assign_value(graph->inputs().at(i), n->input(i));
      print_body(graph->block());
      Tagged expr;
      put(expr, "fork(" + name + ")");
      print_output_definition(n, expr);
    } else if (k == prim::Enter) {
      const Value* out_v = n->output(0);
      indent();
      out("with ");
      body.put(*use_of(n->input(0)));
      if (out_v->has_uses()) {
        assign_value(out_v, gen_unique_name_for(out_v));
        out(" as ");
        body.put(*use_of(out_v));
      }
      out(":\n");
      ++level;
    } else if (k == prim::Exit) {
      if (n->prev()->kind() == prim::Enter) {
        indent();
        out("pass\n");
      }
      --level;
    } else if (k == prim::Closure) {
      assign_unique_names(n->outputs());
      const std::string name = use_of(n->output())->text;
      const auto& graph = n->g(attr::Subgraph);
      indent();
      out("def " + name + "(");
      assign_unique_names(graph->inputs());
      for (size_t i = 0; i < graph->inputs().size(); ++i) {
        const Value* v = graph->inputs()[i];
        if (i > 0) out(", ");
        body.put(*use_of(v));
        out(": " + annotation(v->type()));
      }
      out("):\n");
      print_body(graph->block());
    } else {
      auto ss = std::make_shared<Tagged>();
      print_rhs(*ss, n);
      // Long constants are not inlined; other long inline expressions are split by their users.
      if (!output_inline.count(n) || (k == prim::Constant && is_long_line(ss->text))) {
        print_output_definition(n, *ss);
      } else {
        assign_value(n->output(), ss);
        if (is_long_line(ss->text)) split_long_inlines(n->output());
      }
    }
  }

  // Constants: tensors (and strings with bytes outside ASCII) go to the constant table.
  size_t get_or_add_constant(const IValue& v) {
    if (v.is_tensor()) {
      const Tensor& t = v.to_tensor();
      for (size_t i = 0; i < constant_table.size(); ++i) {
        if (constant_table[i].is_tensor() && tensors_equal_for_constants(constant_table[i].to_tensor(), t)) return i;
      }
    }
    constant_table.push_back(v);
    return constant_table.size() - 1;
  }

  void print_constant(Tagged& stmt, const IValue& v) {
    put(stmt, code_repr(v, [&](const IValue& x) -> std::optional<std::string> {
          if (is_enum_value(x)) return enum_class_name(x) + "." + enum_member_name(x);
          if (x.is_tensor() || x.is_object() || contains_non_ascii_string(x))
            return "CONSTANTS.c" + std::to_string(get_or_add_constant(x));
          return std::nullopt;
        }, hooks.type_printer));
  }

  void print_op_name(Tagged& stmt, Symbol kind) {
    const auto name = kind.unqual_string();
    if (kind.is_aten() && (name == "backward" || name == "grad")) {
      put(stmt, fmt::format("torch.autograd.{}", name));
    } else if (kind.is_aten()) {
      put(stmt, fmt::format("torch.{}", name));
    } else {
      put(stmt, fmt::format("ops.{}.{}", kind.ns_string(), name));
    }
  }

  void print_call_args(Tagged& stmt, const Node* n, size_t first) {
    put(stmt, "(");
    for (size_t i = first; i < n->inputs().size(); ++i) {
      stmt.put(*use_of(n->input(i)));
      put(stmt, ", ");
    }
    put(stmt, ")");
  }

  void print_rhs(Tagged& stmt, const Node* n) {
    const Symbol k = n->kind();
    const std::string kname(k.qual_string());
    if (k == prim::PythonOp) {
      throw Unsupported("printing a call to a Python function (prim::PythonOp) as code");
    } else if (k == prim::Uninitialized) {
      put(stmt, "uninitialized(" + annotation(n->output()->type()) + ")");
    } else if (k == prim::Constant) {
      if (n->outputs().size() == 1 && n->output()->type()->kind() == TypeKind::Function) {
        add_dependency(n->output()->type());
        put(stmt, annotation(n->output()->type()));
      } else if (!n->must_be_none()) {
        auto v = to_ivalue(n->output());
        if (!v) throw InvalidInput("python printer: a constant without a value");
        print_constant(stmt, *v);
      } else {
        put(stmt, "None");
      }
    } else if (kname == "aten::ScalarImplicit" || kname == "aten::FloatImplicit" || kname == "aten::IntImplicit") {
      put(stmt, "annotate(" + annotation(n->output()->type()) + ", ");
      stmt.put(*use_of(n->input()));
      put(stmt, ")");
    } else if (k == aten::Int) {
      print_value_list(stmt, n->inputs(), "int(", ")");
    } else if (k == aten::Float) {
      print_value_list(stmt, n->inputs(), "float(", ")");
    } else if (k == aten::Bool) {
      print_value_list(stmt, n->inputs(), "bool(", ")");
    } else if (k == aten::str) {
      print_value_list(stmt, n->inputs(), "str(", ")");
    } else if (k == aten::__getitem__) {
      const std::string val = use_of(n->input(0))->text;
      put(stmt, is_ident(val) ? val : "(" + val + ")");
      put(stmt, "[");
      stmt.put(*use_of(n->input(1)));
      put(stmt, "]");
    } else if (k == prim::Print) {
      print_value_list(stmt, n->inputs(), "print(", ")");
    } else if (kname == "aten::sorted") {
      print_value_list(stmt, n->inputs(), "sorted(", ")");
    } else if (k == prim::TupleConstruct) {
      const auto& tt = n->output()->type()->expect<TupleType>();
      if (tt.is_named()) put(stmt, annotation(n->output()->type()));
      print_value_list(stmt, n->inputs(), "(", n->inputs().size() == 1 ? ",)" : ")");
    } else if (k == prim::TupleIndex) {
      put(stmt, "(");
      stmt.put(*use_of(n->input(0)));
      put(stmt, ")[");
      stmt.put(*use_of(n->input(1)));
      put(stmt, "]");
    } else if (k == prim::TupleSlice) {
      put(stmt, "(");
      stmt.put(*use_of(n->input()));
      put(stmt, fmt::format(")[{}:{}]", n->i(Symbol::attr("beg")), n->i(Symbol::attr("end"))));
    } else if (k == prim::ListConstruct) {
      const auto& elem = n->output()->type()->expect<ListType>().elem();
      if (n->inputs().empty()) {
        put(stmt, "annotate(" + annotation(n->output()->type()) + ", [])");
      } else if (!element_type_shows_in_members(elem)) {
        put(stmt, "annotate(" + annotation(n->output()->type()) + ", ");
        print_value_list(stmt, n->inputs(), "[", "]");
        put(stmt, ")");
      } else {
        print_value_list(stmt, n->inputs(), "[", "]");
      }
    } else if (k == prim::DictConstruct) {
      const auto& dt = n->output()->type()->expect<DictType>();
      const bool annotate =
          n->inputs().empty() || !element_type_shows_in_members(dt.key()) || !element_type_shows_in_members(dt.value());
      if (annotate) put(stmt, "annotate(" + annotation(n->output()->type()) + ", ");
      put(stmt, "{");
      for (size_t i = 0; i + 1 < n->inputs().size(); i += 2) {
        if (i > 0) put(stmt, ", ");
        stmt.put(*use_of(n->input(i)));
        put(stmt, ": ");
        stmt.put(*use_of(n->input(i + 1)));
      }
      put(stmt, "}");
      if (annotate) put(stmt, ")");
    } else if (k == prim::CreateObject) {
      const std::string cls = annotation(n->output()->type());
      put(stmt, cls + ".__new__(" + cls + ")");
    } else if (k == prim::GetAttr) {
      const std::string& field = n->s(attr::name);
      if (is_ident(field)) {
        stmt.put(*use_of(n->input(0)));
        put(stmt, "." + field);
      } else {
        put(stmt, "getattr(");
        stmt.put(*use_of(n->input(0)));
        put(stmt, ", " + quote_string(field) + ")");
      }
    } else if (k == prim::CallFunction) {
      stmt.put(*use_of(n->input(0)));
      print_call_args(stmt, n, 1);
    } else if (k == prim::CallMethod) {
      const Value* self = n->input(0);
      put(stmt, "(");
      stmt.put(*use_of(self));
      put(stmt, ")." + n->s(attr::name));
      print_call_args(stmt, n, 1);
      if (self->type()->kind() == TypeKind::Class || self->type()->kind() == TypeKind::Interface)
        add_dependency(self->type());
    } else if (kname == "aten::_unwrap_optional") {
      print_op_name(stmt, k);
      put(stmt, "(");
      const Value* in = n->input();
      if (in->type()->kind() == TypeKind::None || in->must_be_none()) {
        put(stmt, "annotate(" + annotation(OptionalType::create(n->output()->type())) + ", ");
        stmt.put(*use_of(in));
        put(stmt, ")");
      } else {
        stmt.put(*use_of(in));
      }
      put(stmt, ")");
    } else if (k == prim::unchecked_unwrap_optional || k == prim::unchecked_cast) {
      put(stmt, "unchecked_cast(" + annotation(n->output()->type()) + ", ");
      stmt.put(*use_of(n->input()));
      put(stmt, ")");
    } else if (k == prim::isinstance) {
      put(stmt, "isinstance(");
      stmt.put(*use_of(n->input()));
      put(stmt, ", ");
      const auto& types = n->tys(attr::types);
      if (types.size() == 1) {
        put(stmt, annotation(types[0]));
      } else {
        std::string s = "(";
        for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + annotation(types[i]);
        put(stmt, s + ")");
      }
      put(stmt, ")");
    } else if (k == prim::tolist) {
      put(stmt, "annotate(" + annotation(n->output()->type()) + ", ");
      stmt.put(*use_of(n->input(0)));
      put(stmt, ".tolist())");
    } else if (k == prim::EnumValue || k == prim::EnumName) {
      put(stmt, "(");
      stmt.put(*use_of(n->input()));
      put(stmt, k == prim::EnumValue ? ").value" : ").name");
    } else {
      print_op_name(stmt, k);
      put(stmt, "(");
      CallArguments args;
      if (hooks.call_arguments) {
        args = hooks.call_arguments(*n);
      } else {
        for (size_t i = 0; i < n->inputs().size(); ++i) args.push_back({i, ""});
      }
      for (size_t j = 0; j < args.size(); ++j) {
        if (j > 0) put(stmt, ", ");
        auto v = use_of(n->input(args[j].input));
        if (!args[j].keyword.empty()) put(stmt, args[j].keyword + "=");
        stmt.put(*v);
      }
      put(stmt, ")");
    }
  }

  void print_block(const Block* b, bool has_other_statements) {
    if (!has_other_statements && b->nodes().empty()) {
      indent();
      out("pass\n");
    }
    for (Node* n : b->nodes()) print_node(n, false);
  }

  void print_default_value(const PrintedArgument& arg, Tagged& stmt, const IValue& value) {
    put(stmt, "=");
    if (arg.type->kind() == TypeKind::List && (value.is(IValue::Kind::Int) || value.is(IValue::Kind::Double) || value.is(IValue::Kind::Bool)) && arg.N) {
      auto list = std::make_shared<ListData>();
      list->items.assign(static_cast<size_t>(*arg.N), value);
      list->elem_type = value.is(IValue::Kind::Int) ? "int" : value.is(IValue::Kind::Double) ? "float" : "bool";
      print_constant(stmt, IValue(list));
    } else {
      print_constant(stmt, value);
    }
  }

  void print_body(const Block* b) {
    std::vector<Node*> constants;
    build_constant_list(b, constants);
    scan_block(b);
    ++level;
    for (Node* n : constants) print_node(n, true);
    print_block(b, !b->return_node()->inputs().empty());
    print_node(b->return_node(), false);
    --level;
  }

  void print_function(const PrintedSignature& sig, const Graph& graph, bool is_method) {
    used_names.clear();
    // PyTorch keeps these for the printer's lifetime, keyed by node and value addresses, which is
    // harmless while every graph it printed stays alive; ours may have been freed and their
    // addresses reused, so each function starts afresh (no entry could match another graph).
    output_inline.clear();
    visited_split_inline_uses.clear();
    seen_constants.clear();
    expr_table.clear();
    ident_refs.clear();
    annotated_unions.clear();
    WithSource guard(*this, graph.param_node());
    indent();
    out("def " + sig.name + "(");
    if (sig.arguments.size() != graph.inputs().size())
      throw InvalidInput(fmt::format("python printer: {} has {} arguments but its graph {} inputs", sig.name,
                                     sig.arguments.size(), graph.inputs().size()));
    for (size_t i = 0; i < sig.arguments.size(); ++i) {
      const auto& arg = sig.arguments[i];
      register_class_dependencies(arg.type);
      const std::string name = gen_name(arg.name);
      if (i == 0) {
        out(name);
        if (!is_method) {
          out(": " + annotation(arg.type));
          annotated_unions.insert(graph.inputs()[i]);
        }
      } else {
        out(",\n    " + name + ": " + annotation(arg.type));
        annotated_unions.insert(graph.inputs()[i]);
      }
      if (arg.default_value) print_default_value(arg, body, *arg.default_value);
      assign_value(graph.inputs()[i], name);
    }
    out(") -> " + annotation(sig.return_type) + ":\n");
    register_class_dependencies(sig.return_type);
    print_body(graph.block());
  }

  void print_class(const ClassType& cls,
                   const std::vector<std::pair<PrintedSignature, std::shared_ptr<Graph>>>& methods) {
    out("class " + cls.base_name());
    if (cls.is_module_class()) out("(Module)");
    out(":\n");
    ++level;
    const auto& attrs = cls.attributes();
    if (cls.is_module_class()) {
      std::string params, buffers;
      for (const auto& a : attrs) {
        if (a.kind == ClassType::AttributeKind::Parameter) params += "\"" + a.name + "\", ";
        if (a.kind == ClassType::AttributeKind::Buffer) buffers += "\"" + a.name + "\", ";
      }
      indent();
      out("__parameters__ = [" + params + "]\n");
      indent();
      out("__buffers__ = [" + buffers + "]\n");
    }
    for (size_t i = 0; i < attrs.size(); ++i) {
      register_class_dependencies(attrs[i].type);
      indent();
      if (!is_ident(attrs[i].name)) {
        if (i == 0) {
          out("__annotations__ = []\n");
          indent();
        }
        out("__annotations__[\"" + attrs[i].name + "\"] = " + annotation(attrs[i].type) + "\n");
      } else {
        out(attrs[i].name + " : " + annotation(attrs[i].type) + "\n");
      }
    }
    for (const auto& [name, value] : cls.constants()) {
      indent();
      TypePtr t = ivalue_type(value);
      out(name + " : Final[" + (t ? annotation(t) : std::string("Any")) + "] = ");
      Tagged ss;
      print_constant(ss, value);
      out(ss.text + "\n");
    }
    // Unlike `.code`, a saved class writes the type of `self` too.
    for (const auto& [sig, graph] : methods) print_function(sig, *graph, /*is_method=*/false);
    --level;
  }
};

PythonPrinter::PythonPrinter(std::vector<IValue>& constants, Hooks hooks)
    : impl_(std::make_unique<Impl>(constants, std::move(hooks))) {}
PythonPrinter::~PythonPrinter() = default;

void PythonPrinter::print_function(const PrintedSignature& sig, const Graph& graph, bool is_method) {
  impl_->print_function(sig, graph, is_method);
}

void PythonPrinter::print_class(const ClassType& cls,
                                const std::vector<std::pair<PrintedSignature, std::shared_ptr<Graph>>>& methods) {
  impl_->print_class(cls, methods);
}

void PythonPrinter::print_named_tuple(const TupleType& t) {
  auto& p = *impl_;
  const auto& qn = t.qualified_name();
  p.out("class " + qn.substr(qn.rfind('.') + 1) + "(NamedTuple):\n");
  ++p.level;
  for (size_t i = 0; i < t.field_names().size(); ++i) {
    p.indent();
    p.out(t.field_names()[i] + " : " + p.annotation(t.elements()[i]) + "\n");
  }
  --p.level;
}

void PythonPrinter::print_interface(const InterfaceType& t) {
  auto& p = *impl_;
  p.out("class " + t.base_name() + (t.is_module_interface() ? "(ModuleInterface):\n" : "(Interface):\n"));
  ++p.level;
  for (const auto& m : t.methods()) {
    p.indent();
    p.out("def " + m.name + "(self");
    for (size_t i = 1; i < m.arguments.size(); ++i) {
      p.register_class_dependencies(m.arguments[i].type);
      p.out(", " + m.arguments[i].name + ": " + p.annotation(m.arguments[i].type));
    }
    const TypePtr& ret = m.returns.at(0).type;
    p.register_class_dependencies(ret);
    p.out(") -> " + p.annotation(ret) + ":\n");
    p.indent();
    p.out("  pass\n");
  }
  --p.level;
}

void PythonPrinter::print_enum(const EnumType& t) {
  auto& p = *impl_;
  const auto& qn = t.qualified_name();
  p.out("class " + qn.substr(qn.rfind('.') + 1) + "(Enum):\n");
  const std::string wrap = t.value_type()->kind() == TypeKind::String ? "\"" : "";
  ++p.level;
  for (const auto& [name, value] : t.names_values()) {
    p.indent();
    // IValue's operator<<: strings bare (the quotes come from `wrap`), floats as `2.`/`1.5`.
    const std::string v = value.is(IValue::Kind::String)   ? value.to_string()
                          : value.is(IValue::Kind::Double) ? repr_double(value.to_double())
                                                           : fmt::format("{}", value.to_int());
    p.out(name + " = " + wrap + v + wrap + "\n");
  }
  --p.level;
}

const std::string& PythonPrinter::str() const { return impl_->body.text; }
const std::vector<PrintedRange>& PythonPrinter::ranges() const { return impl_->body.ranges; }

}  // namespace jitctl
