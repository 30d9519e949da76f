#pragma once
// The AST of TorchScript source as PyTorch's Python printer writes it into code/**.py (any Python
// that is syntactically ordinary parses: `annotate(List[int], [])`, `ops.prim.NumToTensor(x)` and
// `__torch__.a.B.__new__(__torch__.a.B)` are just calls, attributes and names here).
//
// Design: two tagged "fat" node types, Expr and Stmt, each a kind plus a few generic fields whose
// meaning per kind is listed next to the enumerator; function and class definitions get their own
// structs because they have named parts. Children are owned through unique_ptr. The parser bounds
// every Expr's height (ParseOptions::max_depth) and the nesting of blocks, so recursive walkers
// over this tree -- the emitter, dump(), and the destructors themselves -- cannot run out of stack.
//
// Source ranges are byte offsets into the parsed text plus the 1-based line/column of `start`,
// enough for "file:line:col" messages and PyTorch's `# file:line:col` comments.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jitctl {

struct SourceRange {
  uint32_t start = 0;  // byte offset of the first character
  uint32_t end = 0;    // byte offset one past the last character
  uint32_t line = 0;   // 1-based, of `start`
  uint32_t col = 0;    // 1-based, of `start`
};

// Operators, for Unary, Binary and Compare expressions and augmented assignment.
enum class Op : uint8_t {
  None,
  // Binary arithmetic and bitwise (also the ops of augmented assignment).
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, BitAnd, BitOr, BitXor, LShift, RShift,
  // Boolean (Binary nodes; the emitter must short-circuit them).
  And, Or,
  // Unary.
  Not, Neg, Pos, Invert,
  // Comparisons (Compare nodes).
  Eq, Ne, Lt, Le, Gt, Ge, Is, IsNot, In, NotIn,
};

// Python spelling: "+", "//", "and", "not in", ...
const char* op_spelling(Op op);

enum class ExprKind : uint8_t {
  Name,       // text: the identifier (`inf`, `nan`, `self`, `torch` are all plain names)
  Int,        // int_value; text: the source spelling. Magnitude only: -5 is Unary(Neg, Int 5)
  Float,      // float_value; text: the source spelling
  String,     // text: the decoded bytes (adjacent literals already concatenated)
  None,       // None
  True,       // True
  False,      // False
  Ellipsis,   // ...
  Attribute,  // children[0].text
  Call,       // children[0](children[1..]); arguments are plain exprs, Keyword or Starred
  Keyword,    // `text = children[0]`, only as a Call argument
  Starred,    // *children[0], only as a Call argument
  Subscript,  // children[0][children[1], children[2], ...]: one child per comma-separated index
              // (`a[:, 0]` has two); `a[x,]` has one child, the Tuple (x,)
  Slice,      // exactly 3 children: lower, upper, step; each null when omitted (`a[::2]`)
  Tuple,      // (children...)
  List,       // [children...]
  Dict,       // {children[0]: children[1], children[2]: children[3], ...}
  ListComp,   // [children[0] for ...]: children[1..] are Comprehension clauses
  DictComp,   // {children[0]: children[1] for ...}: children[2..] are Comprehension clauses
  Comprehension,  // `for children[0] in children[1] if children[2] if children[3] ...`
  IfExp,      // children[1] if children[0] else children[2]  (test first)
  Unary,      // op children[0]; op is Not, Neg, Pos or Invert
  Binary,     // children[0] op children[1]; op is arithmetic, bitwise, And or Or
  Compare,    // children[0] cmp_ops[0] children[1] cmp_ops[1] children[2] ... (a chain, as Python)
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind = ExprKind::Name;
  Op op = Op::None;
  uint32_t height = 1;  // 1 + the tallest child's height; never above ParseOptions::max_depth
  SourceRange range;
  std::string text;
  uint64_t int_value = 0;
  double float_value = 0;
  std::vector<ExprPtr> children;
  std::vector<Op> cmp_ops;  // Compare only: children.size() - 1 comparison operators
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Param {
  std::string name;
  ExprPtr annotation;     // null when absent (`self` of an interface method)
  ExprPtr default_value;  // null when absent
  int stars = 0;          // 1 for *args, 2 for **kwargs
  bool keyword_only = false;  // after a bare `*` or `*args`
  SourceRange range;
};

struct FunctionDef {
  std::string name;
  std::vector<ExprPtr> decorators;  // `@staticmethod` -> Name staticmethod
  std::vector<Param> params;
  ExprPtr returns;  // null when there is no `-> T`
  std::vector<StmtPtr> body;
  SourceRange range;  // `def` to the end of the body
};

// A class body stays a list of statements; the importer reads its parts by shape:
// `name : Type` (Assign, annotation, no value), `__annotations__["0"] = Type`,
// `__parameters__ = [...]`, `name : Final[T] = value`, enum members `A = 1`, Def statements.
struct ClassDef {
  std::string name;
  std::vector<ExprPtr> decorators;
  std::vector<ExprPtr> bases;  // `class A(Module):` -> [Name Module]; empty without parentheses
  std::vector<StmtPtr> body;
  SourceRange range;
};

enum class StmtKind : uint8_t {
  Expr,       // value
  Assign,     // targets[0] = targets[1] = ... = value; with `x : T = v` / `x : T` one target, an
              // annotation, and value null for the bare declaration
  AugAssign,  // targets[0] op= value
  If,         // if value: body else: orelse (`elif` is an orelse holding one If)
  For,        // for targets[0] in value: body else: orelse (targets[0] is a Tuple for `for a, b in`)
  While,      // while value: body else: orelse
  With,       // with items[0] as targets[0], ...: body (targets[i] null without `as`)
  Break,
  Continue,
  Pass,
  Return,     // value, null for a bare `return`
  Raise,      // value, null for a bare `raise`
  Assert,     // assert value, message (message null when absent)
  Del,        // del targets...
  Global,     // names
  Nonlocal,   // names
  Import,     // names: the dotted modules of `import a.b, c`
  Def,        // def
  Class,      // cls
};

struct Stmt {
  StmtKind kind = StmtKind::Pass;
  Op op = Op::None;  // AugAssign
  SourceRange range;
  ExprPtr value;
  ExprPtr annotation;
  ExprPtr message;
  std::vector<ExprPtr> targets;
  std::vector<ExprPtr> items;
  std::vector<std::string> names;
  std::vector<StmtPtr> body;
  std::vector<StmtPtr> orelse;
  std::unique_ptr<FunctionDef> def;
  std::unique_ptr<ClassDef> cls;
};

// One parsed code/**.py file.
struct ParsedFile {
  std::string file;  // as given in ParseOptions::file
  std::vector<StmtPtr> body;
};

// Compact S-expression text of a tree, for tests and debugging, e.g.
// `(= x (+ 1 (* 2 3)))`, `(call (. torch add) x y (kw alpha 1))`, `(index a (slice _ 1 _) 0)`.
std::string dump(const Expr& e);
std::string dump(const Stmt& s);
std::string dump(const ParsedFile& f);  // one top-level statement per line

}  // namespace jitctl
