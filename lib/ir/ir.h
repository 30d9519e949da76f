#pragma once
// TorchScript IR: Graph, Block, Node, Value and Use, with PyTorch 1.13's semantics.
//
// Everything that shows in a printed graph follows from the order of operations, so the rules
// here are PyTorch's, not merely similar:
//  - every Value ever created takes the next id from its graph's counter, whether or not it
//    survives (Graph::create(kind, n) makes n outputs at once; destroyed values keep their ids
//    used up), and a value without a name prints as its id;
//  - set_debug_name() renames the previous owner of a name to `base.N` (see below);
//  - attributes keep their insertion order, and setting an existing one replaces it in place.
//
// A graph owns its nodes, values and blocks; pointers stay valid until the node (value, block) is
// destroyed or the graph dies. Misuse that PyTorch asserts on (inserting after a return node,
// destroying a node whose outputs are still used, ...) throws std::logic_error.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/ivalue.h"
#include "lib/core/types.h"
#include "lib/ir/attributes.h"
#include "lib/ir/source_location.h"
#include "lib/ir/symbol.h"
#include "lib/ops/schema.h"

namespace jitctl {

class Graph;
class Block;
class Node;
class Value;
namespace detail {
class GraphTextParser;  // the graph-text parser restores printed value ids
}

// One input slot of a node that reads a value.
struct Use {
  Node* user = nullptr;
  size_t offset = 0;  // index into user->inputs()
  bool operator==(const Use&) const = default;
};

class Value {
 public:
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

  Node* node() const { return node_; }
  size_t offset() const { return offset_; }  // index into node()->outputs()
  size_t unique() const { return unique_; }
  Graph* owning_graph() const;

  const TypePtr& type() const { return type_; }
  Value* set_type(TypePtr type);
  Value* infer_type_from(const Tensor& t);  // the complete type of `t`

  // Names: "" means none, and the value then prints as its unique id. A name that is all digits
  // is invalid (it could be mistaken for an id). Taking a name another value holds renames that
  // value to `base.N`: `x` -> `x.1`, and `x.5` -> `x.6` when `x.5` is taken again. N starts at
  // the old name's own suffix (1 if none), is at least one more than the last suffix handed out for
  // that base, and skips names in use.
  bool has_debug_name() const { return !name_.empty(); }
  std::string debug_name() const;
  // The name without a trailing `.digits`: "x.3" -> "x", "x.y" -> "x.y".
  std::string debug_name_base() const;
  static bool is_valid_name(std::string_view name);
  Value* set_debug_name(const std::string& name);  // throws InvalidInput on an invalid name

  const std::vector<Use>& uses() const { return uses_; }
  bool has_uses() const { return !uses_.empty(); }
  void replace_first_use_with(Value* v);
  void replace_all_uses_with(Value* v);
  // Only the uses in nodes after `node` (no scoping check), or dominated by it.
  void replace_all_uses_after_node_with(const Node* node, Value* v);
  void replace_all_uses_dominated_by_node_with(const Node* node, Value* v);
  // Type and (if any) name of `from`.
  Value* copy_metadata(const Value* from);

  bool must_be_none() const;
  bool must_not_be_none() const;

 private:
  friend class Node;
  friend class Graph;
  friend class detail::GraphTextParser;
  Value(Node* node, size_t offset);

  Node* node_;
  size_t offset_;
  size_t unique_;
  std::vector<Use> uses_;
  std::string name_;
  TypePtr type_;
};

// Iterates the nodes of a block (param and return nodes excluded), forward or backward. To
// destroy nodes while walking, advance before destroying: `Node* n = *it++; n->destroy();`.
class NodeIterator {
 public:
  using value_type = Node*;
  using difference_type = std::ptrdiff_t;
  NodeIterator() = default;
  NodeIterator(Node* cur, bool reverse) : cur_(cur), reverse_(reverse) {}
  Node* operator*() const { return cur_; }
  NodeIterator& operator++();
  NodeIterator operator++(int) {
    auto old = *this;
    ++*this;
    return old;
  }
  bool operator==(const NodeIterator& o) const { return cur_ == o.cur_; }

 private:
  Node* cur_ = nullptr;
  bool reverse_ = false;
};

class NodeRange {
 public:
  NodeRange(Node* first, Node* sentinel, bool reverse) : first_(first), sentinel_(sentinel), reverse_(reverse) {}
  NodeIterator begin() const { return {first_, reverse_}; }
  NodeIterator end() const { return {sentinel_, reverse_}; }
  NodeRange reverse() const;
  bool empty() const { return first_ == sentinel_; }

 private:
  Node* first_;
  Node* sentinel_;
  bool reverse_;
};

class Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  Symbol kind() const { return kind_; }
  Graph* owning_graph() const { return graph_; }
  Block* owning_block() const { return owning_block_; }

  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* input(size_t i) const;
  Value* output(size_t i) const;
  Value* input() const;   // the only input
  Value* output() const;  // the only output
  bool has_uses() const;  // does any output have uses?
  const std::vector<Block*>& blocks() const { return blocks_; }

  // Position in the owning block's list (nullptr links when not in one).
  Node* next() const { return next_; }
  Node* prev() const { return prev_; }
  bool in_block_list() const { return next_ != nullptr; }
  bool is_before(const Node* n) const;
  bool is_after(const Node* n) const;
  bool is_dominated_by(const Node* dominator) const;
  Block* find_common_ancestor_block_with(Node* n);
  size_t blocks_from_graph_block() const;

  // Inputs. Every change keeps the uses of the values involved in step and clears the schema.
  Value* add_input(Value* v);
  Value* insert_input(size_t i, Value* v);
  Value* replace_input(size_t i, Value* v);  // returns the old input
  void replace_input_with(Value* from, Value* to);
  void remove_input(size_t i);
  void remove_all_inputs();
  void permute_inputs(const std::vector<size_t>& new_order);

  // Outputs: new ones take the graph's next ids; an erased one must have no uses.
  Value* add_output();
  Value* insert_output(size_t i);
  void erase_output(size_t i);
  void remove_all_outputs();
  void permute_outputs(const std::vector<size_t>& new_order);

  Block* add_block();
  void erase_block(size_t i);

  // List surgery. insert_* need this node out of any list and `n` in one; never after a return
  // node (nor, therefore, before a param node).
  Node* insert_before(Node* n);
  Node* insert_after(Node* n);
  void move_before(Node* n);
  void move_after(Node* n);
  void remove_from_list();
  // Erases outputs (which must be unused) and blocks, drops inputs, unlinks and frees the node.
  void destroy();
  void replace_all_uses_with(Node* n);

  // Attributes, in insertion order. Names must be attr:: symbols. Getters throw InvalidInput for a
  // missing attribute or one of another kind; setting an existing name replaces it in place.
  bool has_attribute(Symbol name) const;
  bool has_attributes() const { return !attrs_.empty(); }
  size_t num_attributes() const { return attrs_.size(); }
  AttributeKind kind_of(Symbol name) const;
  std::vector<Symbol> attribute_names() const;
  const std::vector<Attribute>& attributes() const { return attrs_; }
  // (Inside Node's own members this name hides the attr:: namespace: write jitctl::attr::value.)
  const AttributeValue& attr(Symbol name) const;
  Node* set_attr(Symbol name, AttributeValue v);
  Node* remove_attribute(Symbol name);
  // Replaces all attributes with copies of rhs's (graph attributes are deep-copied).
  Node* copy_attributes(const Node& rhs);

  template <AttributeKind K>
  const AttributeType<K>& get(Symbol name) const;

  // PyTorch's short accessors: n->i_(attr::value, 3), n->i(attr::value).
  Node* f_(Symbol n, double v) { return set_attr(n, AttributeValue(std::in_place_index<0>, v)); }
  Node* fs_(Symbol n, std::vector<double> v) {
    return set_attr(n, AttributeValue(std::in_place_index<1>, std::move(v)));
  }
  Node* c_(Symbol n, std::complex<double> v) { return set_attr(n, AttributeValue(std::in_place_index<2>, v)); }
  Node* cs_(Symbol n, std::vector<std::complex<double>> v) {
    return set_attr(n, AttributeValue(std::in_place_index<3>, std::move(v)));
  }
  Node* i_(Symbol n, int64_t v) { return set_attr(n, AttributeValue(std::in_place_index<4>, v)); }
  Node* is_(Symbol n, std::vector<int64_t> v) {
    return set_attr(n, AttributeValue(std::in_place_index<5>, std::move(v)));
  }
  Node* s_(Symbol n, std::string v) { return set_attr(n, AttributeValue(std::in_place_index<6>, std::move(v))); }
  Node* ss_(Symbol n, std::vector<std::string> v) {
    return set_attr(n, AttributeValue(std::in_place_index<7>, std::move(v)));
  }
  Node* t_(Symbol n, Tensor v) { return set_attr(n, AttributeValue(std::in_place_index<8>, std::move(v))); }
  Node* ts_(Symbol n, std::vector<Tensor> v) {
    return set_attr(n, AttributeValue(std::in_place_index<9>, std::move(v)));
  }
  Node* g_(Symbol n, std::shared_ptr<Graph> v) {
    return set_attr(n, AttributeValue(std::in_place_index<10>, std::move(v)));
  }
  Node* gs_(Symbol n, std::vector<std::shared_ptr<Graph>> v) {
    return set_attr(n, AttributeValue(std::in_place_index<11>, std::move(v)));
  }
  Node* ty_(Symbol n, TypePtr v) { return set_attr(n, AttributeValue(std::in_place_index<12>, std::move(v))); }
  Node* tys_(Symbol n, std::vector<TypePtr> v) {
    return set_attr(n, AttributeValue(std::in_place_index<13>, std::move(v)));
  }
  Node* ival_(Symbol n, IValue v) { return set_attr(n, AttributeValue(std::in_place_index<14>, std::move(v))); }

  double f(Symbol n) const { return get<AttributeKind::f>(n); }
  const std::vector<double>& fs(Symbol n) const { return get<AttributeKind::fs>(n); }
  std::complex<double> c(Symbol n) const { return get<AttributeKind::c>(n); }
  const std::vector<std::complex<double>>& cs(Symbol n) const { return get<AttributeKind::cs>(n); }
  int64_t i(Symbol n) const { return get<AttributeKind::i>(n); }
  const std::vector<int64_t>& is(Symbol n) const { return get<AttributeKind::is>(n); }
  const std::string& s(Symbol n) const { return get<AttributeKind::s>(n); }
  const std::vector<std::string>& ss(Symbol n) const { return get<AttributeKind::ss>(n); }
  const Tensor& t(Symbol n) const { return get<AttributeKind::t>(n); }
  const std::vector<Tensor>& ts(Symbol n) const { return get<AttributeKind::ts>(n); }
  const std::shared_ptr<Graph>& g(Symbol n) const { return get<AttributeKind::g>(n); }
  const std::vector<std::shared_ptr<Graph>>& gs(Symbol n) const { return get<AttributeKind::gs>(n); }
  const TypePtr& ty(Symbol n) const { return get<AttributeKind::ty>(n); }
  const std::vector<TypePtr>& tys(Symbol n) const { return get<AttributeKind::tys>(n); }
  const IValue& ival(Symbol n) const { return get<AttributeKind::ival>(n); }

  // The ` # file:line:col` comment; none prints nothing.
  const std::optional<SourceLocation>& source_location() const { return loc_; }
  Node* set_source_location(std::optional<SourceLocation> loc) {
    loc_ = std::move(loc);
    return this;
  }
  // The operator this node was matched to, kept by whoever matched it; cleared (as PyTorch clears
  // its cache) whenever inputs, outputs, blocks or an input's type change. Never read here.
  const FunctionSchema* schema() const { return schema_; }
  Node* set_schema(const FunctionSchema* s) {
    schema_ = s;
    return this;
  }
  // Source location (PyTorch's copyMetadata also copies scope and call stack, which we lack).
  Node* copy_metadata(const Node* from) {
    loc_ = from->loc_;
    return this;
  }

  // A Constant without attributes whose output is optional, AutogradZero, or a single NoneType
  // output.
  bool must_be_none() const;

 private:
  friend class Graph;
  friend class Block;
  friend class Value;
  friend class NodeIterator;
  friend class detail::GraphTextParser;  // turns a printed `kind_N` back into `kind`
  Node(Graph* graph, Symbol kind);

  using Attrs = std::vector<Attribute>;
  Attrs::const_iterator find_attr(Symbol name, bool required) const;
  Value* drop_input(size_t i);
  std::vector<Use>::iterator find_use_for_input(size_t i);
  void assign_topo_position();
  bool is_before_or_after(const Node* n, bool before) const;

  Symbol kind_;
  Graph* graph_;
  Block* owning_block_ = nullptr;
  Node* next_ = nullptr;
  Node* prev_ = nullptr;
  int64_t topo_position_ = 0;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<Block*> blocks_;
  Attrs attrs_;
  std::optional<SourceLocation> loc_;
  const FunctionSchema* schema_ = nullptr;
};

class Block {
 public:
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  // The block's inputs are its param node's outputs; its outputs, its return node's inputs.
  const std::vector<Value*>& inputs() const { return param_->outputs(); }
  const std::vector<Value*>& outputs() const { return return_->inputs(); }
  NodeRange nodes() const;
  Node* param_node() const { return param_; }
  Node* return_node() const { return return_; }
  Graph* owning_graph() const { return graph_; }
  Node* owning_node() const { return owning_node_; }  // nullptr for a graph's top block

  Value* add_input(const std::string& name = "");
  Value* insert_input(size_t i, const std::string& name = "");
  void erase_input(size_t i);
  void remove_all_inputs();
  size_t register_output(Value* v);
  size_t insert_output(size_t i, Value* v);
  void erase_output(size_t i);
  void remove_all_outputs();
  void replace_output(size_t i, Value* v);
  void permute_outputs(const std::vector<size_t>& new_order);
  void permute_inputs(const std::vector<size_t>& new_order);

  Node* append_node(Node* n);
  Node* prepend_node(Node* n);

  // Appends copies of src's inputs, nodes and outputs; values src uses but does not define are
  // looked up through value_map.
  void clone_from(const Block* src, const std::function<Value*(Value*)>& value_map);
  void remap_types(const std::function<TypePtr(TypePtr)>& type_map);

 private:
  friend class Graph;
  friend class Node;
  Block(Graph* graph, Node* owning_node);
  void destroy();
  void reindex_topology();

  Graph* graph_;
  Node* return_;
  Node* param_;
  Node* owning_node_;
};

class Graph {
 public:
  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Block* block() const { return block_; }
  const std::vector<Value*>& inputs() const { return block_->inputs(); }
  const std::vector<Value*>& outputs() const { return block_->outputs(); }
  NodeRange nodes() const { return block_->nodes(); }
  Node* param_node() const { return block_->param_node(); }
  Node* return_node() const { return block_->return_node(); }

  Value* add_input(const std::string& name = "") { return block_->add_input(name); }
  Value* insert_input(size_t i, const std::string& name = "") { return block_->insert_input(i, name); }
  void erase_input(size_t i) { block_->erase_input(i); }
  size_t register_output(Value* v) { return block_->register_output(v); }
  void erase_output(size_t i) { block_->erase_output(i); }

  // A node not yet in any block, with `num_outputs` fresh outputs of type Tensor.
  Node* create(Symbol kind, size_t num_outputs = 1);
  Node* create(Symbol kind, const std::vector<Value*>& inputs, size_t num_outputs = 1);
  // PyTorch's node builders, with the output types (and names) they set.
  Node* create_none();
  Node* create_uninitialized(TypePtr type);
  Node* create_with_subgraph(Symbol kind);
  Node* create_tuple(const std::vector<Value*>& values, TypePtr named_tuple_type = nullptr);
  Node* create_tuple_unpack(Value* tuple);
  Node* create_tuple_index(Value* tuple, Value* index, TypePtr output_type);
  Node* create_list(const TypePtr& element_type, const std::vector<Value*>& values);
  Node* create_list_unpack(Value* list, size_t size);
  Node* create_dict(const TypePtr& key_type, const TypePtr& value_type, const std::vector<Value*>& keys,
                    const std::vector<Value*>& values);
  Node* create_get_attr(Value* obj, const std::string& field);  // output named after the field
  Node* create_set_attr(Value* obj, const std::string& field, Value* new_value);
  Node* create_store(const std::string& name, Value* v);
  Node* create_load(const std::string& name, const TypePtr& type);
  Node* create_is_instance(Value* v, std::vector<TypePtr> types);
  // A copy of `n` (possibly from another graph) in this graph, not inserted; inputs through
  // value_map.
  Node* create_clone(const Node* n, const std::function<Value*(Value*)>& value_map, bool copy_blocks = true);

  // Insertion point: new nodes go before it. Initially (and after set_insert_point(block)) it is
  // a block's return node, i.e. the end of that block.
  Node* insert_node(Node* n);
  void set_insert_point(Block* b);
  void set_insert_point(Node* n);
  Node* insert_point() const { return insert_before_; }
  Value* insert_unchecked_cast(Value* v, TypePtr type);

  // PyTorch's insertConstant: a prim::Constant at the insertion point holding `value` (defined in
  // constants.cpp, which lists the forms). Throws Unsupported for values a constant cannot hold;
  // try_insert_constant returns nullptr instead (having used up an id, as PyTorch does).
  Value* insert_constant(const IValue& value, std::optional<SourceLocation> loc = std::nullopt);
  Value* try_insert_constant(const IValue& value, std::optional<SourceLocation> loc = std::nullopt);

  std::shared_ptr<Graph> copy() const;
  void remap_types(const std::function<TypePtr(TypePtr)>& type_map) { block_->remap_types(type_map); }

  const std::unordered_map<std::string, Value*>& debug_names() const { return unique_names_; }
  size_t next_unique() const { return next_unique_; }

  // How deep blocks nest: 0 for a graph without control flow, 1 with an if or a loop, ... Counted
  // without recursion, for code that must bound its walks before it recurses.
  size_t block_depth() const;

  // Throws std::logic_error on a broken invariant: uses out of step with inputs, a value used
  // out of scope or before its definition, stray param/return nodes.
  void lint() const;

  // str(graph), from graph_printer.cpp.
  std::string str(bool print_source_locations = true) const;

 private:
  friend class Value;
  friend class Node;
  friend class Block;
  friend class detail::GraphTextParser;
  void free_node(Node* n);
  void free_value(Value* v);
  void free_block(Block* b);

  size_t next_unique_ = 0;
  std::unordered_set<Node*> all_nodes_;
  std::unordered_set<Value*> all_values_;
  std::unordered_set<Block*> all_blocks_;
  std::unordered_map<std::string, Value*> unique_names_;
  // For each name base, one past the largest suffix set_debug_name has handed out.
  std::unordered_map<std::string, size_t> name_base_suffix_;
  Block* block_;
  Node* insert_before_;
};

// Sets a graph's insertion point for a scope and restores the previous one after.
class WithInsertPoint {
 public:
  explicit WithInsertPoint(Node* n);
  explicit WithInsertPoint(Block* b) : WithInsertPoint(b->return_node()) {}
  ~WithInsertPoint();
  WithInsertPoint(const WithInsertPoint&) = delete;
  WithInsertPoint& operator=(const WithInsertPoint&) = delete;

 private:
  Node* prev_;
};

template <AttributeKind K>
const AttributeType<K>& Node::get(Symbol name) const {
  const auto& v = find_attr(name, true)->value;
  if (v.index() != static_cast<size_t>(K))
    throw InvalidInput(std::string("required keyword attribute '") + std::string(name.unqual_string()) +
                       "' has the wrong type");
  return std::get<static_cast<size_t>(K)>(v);
}

}  // namespace jitctl
