#include "lib/ir/ir.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>

namespace jitctl {
namespace {

// Topological positions make is_before() O(1): appends step by a large interval, inserts take the
// midpoint, and a block renumbers itself when it runs out of room (PyTorch's scheme).
constexpr int64_t kLowerBound = std::numeric_limits<int64_t>::min();
constexpr int64_t kUpperBound = std::numeric_limits<int64_t>::max();
constexpr int64_t kMidPoint = 0;
constexpr int64_t kAppendInterval = int64_t{1} << 40;

void check(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("IR: ") + what);
}

bool all_digits(std::string_view s) { return s.find_first_not_of("0123456789") == std::string_view::npos; }

}  // namespace

const char* attribute_kind_name(AttributeKind k) {
  static const char* const names[] = {"f", "fs", "c", "cs", "i", "is", "s", "ss",
                                      "t", "ts", "g", "gs", "ty", "tys", "ival"};
  return names[static_cast<size_t>(k)];
}

// ---------------------------------------------------------------------------------------------
// Value

Value::Value(Node* node, size_t offset)
    : node_(node), offset_(offset), unique_(node->graph_->next_unique_++), type_(TensorType::get()) {
  node->graph_->all_values_.insert(this);
}

Graph* Value::owning_graph() const { return node_->owning_graph(); }

Value* Value::set_type(TypePtr type) {
  check(type != nullptr, "set_type(nullptr)");
  // A user's matched schema stays valid when the type does not change (PyTorch would match the
  // same operator again); otherwise it must be matched anew.
  const bool same = type_ && type_->equals(*type);
  type_ = std::move(type);
  if (!same)
    for (const Use& u : uses_) u.user->schema_ = nullptr;
  return this;
}

Value* Value::infer_type_from(const Tensor& t) { return set_type(TensorType::from_tensor(t)); }

std::string Value::debug_name() const { return has_debug_name() ? name_ : std::to_string(unique_); }

std::string Value::debug_name_base() const {
  std::string name = debug_name();
  const auto dot = name.find_last_of('.');
  if (dot != std::string::npos && dot + 1 != name.size() && all_digits(std::string_view(name).substr(dot + 1)))
    name.resize(dot);
  return name;
}

bool Value::is_valid_name(std::string_view name) { return name.empty() || !all_digits(name); }

Value* Value::set_debug_name(const std::string& name) {
  if (!is_valid_name(name)) throw InvalidInput("Invalid name: '" + name + "'");
  Graph* g = owning_graph();
  auto& names = g->unique_names_;
  if (has_debug_name()) {
    names.erase(name_);
    name_.clear();
  }
  if (name.empty()) return this;

  auto taken = names.find(name);
  if (taken != names.end()) {
    // The previous owner moves to `base.N`. A trailing `.digits` is the suffix to start from.
    size_t suffix = 1;
    std::string base = name;
    const auto dot = name.find_last_of('.');
    if (dot != std::string::npos && dot + 1 != name.size() && all_digits(std::string_view(name).substr(dot + 1))) {
      const char* first = name.data() + dot + 1;
      const char* last = name.data() + name.size();
      if (std::from_chars(first, last, suffix).ec != std::errc())
        throw InvalidInput("Invalid name: '" + name + "' (suffix out of range)");
      base = name.substr(0, dot);
    }
    auto& suffixes = g->name_base_suffix_;
    if (auto it = suffixes.find(base); it != suffixes.end()) suffix = std::max(suffix, it->second + 1);
    std::string replacement;
    do {
      replacement = fmt::format("{}.{}", base, suffix++);
    } while (names.count(replacement) > 0);
    // PyTorch records one past the suffix it used, and the next collision adds one more: after
    // `x`, `x`, `x` the first owner is `x.1` and the second `x.3`.
    suffixes[base] = suffix;
    taken->second->set_debug_name(replacement);
  }
  names[name] = this;
  name_ = name;
  return this;
}

void Value::replace_first_use_with(Value* v) {
  check(!uses_.empty(), "replace_first_use_with on a value without uses");
  check(v->owning_graph() == owning_graph(), "replacing a use with a value of another graph");
  const Use u = uses_.front();
  u.user->inputs_[u.offset] = v;
  v->uses_.push_back(u);
  uses_.erase(uses_.begin());
}

void Value::replace_all_uses_with(Value* v) {
  while (!uses_.empty()) replace_first_use_with(v);
}

void Value::replace_all_uses_after_node_with(const Node* node, Value* v) {
  auto after = [&](const Use& u) { return u.user->is_after(node); };
  for (Use& u : uses_)
    if (after(u)) {
      u.user->inputs_[u.offset] = v;
      v->uses_.push_back(u);
    }
  uses_.erase(std::remove_if(uses_.begin(), uses_.end(), after), uses_.end());
}

void Value::replace_all_uses_dominated_by_node_with(const Node* node, Value* v) {
  auto dominated = [&](const Use& u) { return u.user->is_dominated_by(node); };
  for (Use& u : uses_)
    if (dominated(u)) {
      u.user->inputs_[u.offset] = v;
      v->uses_.push_back(u);
    }
  uses_.erase(std::remove_if(uses_.begin(), uses_.end(), dominated), uses_.end());
}

Value* Value::copy_metadata(const Value* from) {
  set_type(from->type());
  if (from->has_debug_name()) set_debug_name(from->debug_name());
  return this;
}

bool Value::must_be_none() const { return type_->kind() == TypeKind::None || node_->must_be_none(); }

bool Value::must_not_be_none() const {
  if (node_->kind() == prim::AutogradAdd) return false;
  switch (type_->kind()) {
    case TypeKind::None:
    case TypeKind::Optional: return false;
    case TypeKind::Union: return !type_->expect<UnionType>().can_hold(*NoneType::get());
    default: return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Node list iteration

NodeIterator& NodeIterator::operator++() {
  cur_ = reverse_ ? cur_->prev_ : cur_->next_;
  return *this;
}

NodeRange NodeRange::reverse() const {
  // [first, sentinel) walked the other way starts next to the sentinel and stops next to first.
  if (!reverse_) return NodeRange(sentinel_->prev(), first_->prev(), true);
  return NodeRange(sentinel_->next(), first_->next(), false);
}

// ---------------------------------------------------------------------------------------------
// Node

Node::Node(Graph* graph, Symbol kind) : kind_(kind), graph_(graph) { graph->all_nodes_.insert(this); }

Value* Node::input(size_t i) const {
  check(i < inputs_.size(), "input index out of range");
  return inputs_[i];
}

Value* Node::output(size_t i) const {
  check(i < outputs_.size(), "output index out of range");
  return outputs_[i];
}

Value* Node::input() const {
  check(inputs_.size() == 1, "input() on a node without exactly one input");
  return inputs_[0];
}

Value* Node::output() const {
  check(outputs_.size() == 1, "output() on a node without exactly one output");
  return outputs_[0];
}

bool Node::has_uses() const {
  return std::any_of(outputs_.begin(), outputs_.end(), [](const Value* v) { return v->has_uses(); });
}

bool Node::is_before_or_after(const Node* n, bool before) const {
  if (owning_block_ == n->owning_block_) {
    if (this == n) return false;
    return before ? topo_position_ < n->topo_position_ : topo_position_ > n->topo_position_;
  }
  // Climb from both sides to the first block they share.
  for (const Node* lhs = this; lhs; lhs = lhs->owning_block_->owning_node()) {
    check(lhs->owning_block_ != nullptr, "is_before on a node outside any block");
    for (const Node* rhs = n; rhs && rhs->owning_block_; rhs = rhs->owning_block_->owning_node())
      if (lhs->owning_block_ == rhs->owning_block_) return lhs->is_before_or_after(rhs, before);
  }
  throw std::logic_error("IR: is_before on nodes of different graphs");
}

bool Node::is_before(const Node* n) const { return is_before_or_after(n, true); }
bool Node::is_after(const Node* n) const { return is_before_or_after(n, false); }

bool Node::is_dominated_by(const Node* dominator) const {
  for (const Node* node = this; node; node = node->owning_block_->owning_node()) {
    if (node->owning_block_ == dominator->owning_block_) return dominator->is_before(node);
  }
  return false;
}

size_t Node::blocks_from_graph_block() const {
  size_t d = 0;
  for (const Node* n = this; n->owning_block_->owning_node(); n = n->owning_block_->owning_node()) ++d;
  return d;
}

size_t Graph::block_depth() const {
  size_t depth = 0;
  for (const Block* b : all_blocks_)
    if (const Node* n = b->owning_node()) depth = std::max(depth, n->blocks_from_graph_block() + 1);
  return depth;
}

Block* Node::find_common_ancestor_block_with(Node* n) {
  if (n->owning_block_ == owning_block_) return owning_block_;
  Node* a = this;
  Node* b = n;
  size_t da = a->blocks_from_graph_block();
  size_t db = b->blocks_from_graph_block();
  for (; da > db; --da) a = a->owning_block_->owning_node();
  for (; db > da; --db) b = b->owning_block_->owning_node();
  while (a->owning_block_ != b->owning_block_) {
    a = a->owning_block_->owning_node();
    b = b->owning_block_->owning_node();
    check(a && b, "find_common_ancestor_block_with: nodes of different graphs");
  }
  return a->owning_block_;
}

std::vector<Use>::iterator Node::find_use_for_input(size_t i) {
  auto& uses = inputs_[i]->uses_;
  // A node may read one value in several slots, so the use is found by (node, slot).
  auto it = std::find(uses.begin(), uses.end(), Use{this, i});
  check(it != uses.end(), "input without a matching use");
  return it;
}

Value* Node::drop_input(size_t i) {
  check(i < inputs_.size(), "input index out of range");
  Value* v = inputs_[i];
  v->uses_.erase(find_use_for_input(i));
  inputs_[i] = nullptr;
  return v;
}

Value* Node::add_input(Value* v) {
  check(v->owning_graph() == graph_, "add_input: value of another graph");
  schema_ = nullptr;
  v->uses_.push_back(Use{this, inputs_.size()});
  inputs_.push_back(v);
  return v;
}

Value* Node::insert_input(size_t i, Value* v) {
  check(v->owning_graph() == graph_, "insert_input: value of another graph");
  check(i <= inputs_.size(), "insert_input: index out of range");
  schema_ = nullptr;
  for (size_t j = i; j < inputs_.size(); ++j) find_use_for_input(j)->offset += 1;
  inputs_.insert(inputs_.begin() + static_cast<std::ptrdiff_t>(i), v);
  v->uses_.push_back(Use{this, i});
  return v;
}

Value* Node::replace_input(size_t i, Value* v) {
  check(v->owning_graph() == graph_, "replace_input: value of another graph");
  check(i < inputs_.size(), "replace_input: index out of range");
  // Same type in, same operator matched (PyTorch re-matches and finds it again).
  if (!inputs_[i]->type()->equals(*v->type())) schema_ = nullptr;
  Value* old = drop_input(i);
  inputs_[i] = v;
  v->uses_.push_back(Use{this, i});
  return old;
}

void Node::replace_input_with(Value* from, Value* to) {
  check(from->owning_graph() == graph_ && to->owning_graph() == graph_, "replace_input_with: foreign value");
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i] == from) replace_input(i, to);
}

void Node::remove_input(size_t i) {
  schema_ = nullptr;
  drop_input(i);
  for (size_t j = i + 1; j < inputs_.size(); ++j) find_use_for_input(j)->offset -= 1;
  inputs_.erase(inputs_.begin() + static_cast<std::ptrdiff_t>(i));
}

void Node::remove_all_inputs() {
  schema_ = nullptr;
  for (size_t i = 0; i < inputs_.size(); ++i) drop_input(i);
  inputs_.clear();
}

void Node::permute_inputs(const std::vector<size_t>& new_order) {
  check(new_order.size() == inputs_.size(), "permute_inputs: wrong size");
  schema_ = nullptr;
  std::vector<Value*> permuted;
  permuted.reserve(new_order.size());
  for (size_t i = 0; i < new_order.size(); ++i) {
    check(new_order[i] < inputs_.size() && inputs_[new_order[i]] != nullptr, "permute_inputs: repeated index");
    find_use_for_input(new_order[i])->offset = i;
    permuted.push_back(inputs_[new_order[i]]);
    inputs_[new_order[i]] = nullptr;
  }
  inputs_ = std::move(permuted);
}

Value* Node::add_output() {
  outputs_.push_back(new Value(this, outputs_.size()));
  schema_ = nullptr;
  return outputs_.back();
}

Value* Node::insert_output(size_t i) {
  check(i <= outputs_.size(), "insert_output: index out of range");
  schema_ = nullptr;
  outputs_.insert(outputs_.begin() + static_cast<std::ptrdiff_t>(i), new Value(this, i));
  for (size_t j = i + 1; j < outputs_.size(); ++j) outputs_[j]->offset_ += 1;
  return outputs_[i];
}

void Node::erase_output(size_t i) {
  check(i < outputs_.size(), "erase_output: index out of range");
  check(outputs_[i]->uses_.empty(), "erase_output: the output still has uses");
  schema_ = nullptr;
  Value* v = outputs_[i];
  outputs_.erase(outputs_.begin() + static_cast<std::ptrdiff_t>(i));
  graph_->free_value(v);
  for (size_t j = i; j < outputs_.size(); ++j) outputs_[j]->offset_ -= 1;
}

void Node::remove_all_outputs() {
  schema_ = nullptr;
  while (!outputs_.empty()) erase_output(outputs_.size() - 1);
}

void Node::permute_outputs(const std::vector<size_t>& new_order) {
  check(new_order.size() == outputs_.size(), "permute_outputs: wrong size");
  schema_ = nullptr;
  std::vector<Value*> permuted;
  permuted.reserve(new_order.size());
  for (size_t i = 0; i < new_order.size(); ++i) {
    check(new_order[i] < outputs_.size() && outputs_[new_order[i]] != nullptr, "permute_outputs: repeated index");
    permuted.push_back(outputs_[new_order[i]]);
    permuted.back()->offset_ = i;
    outputs_[new_order[i]] = nullptr;
  }
  outputs_ = std::move(permuted);
}

Block* Node::add_block() {
  schema_ = nullptr;
  blocks_.push_back(new Block(graph_, this));
  return blocks_.back();
}

void Node::erase_block(size_t i) {
  check(i < blocks_.size(), "erase_block: index out of range");
  schema_ = nullptr;
  Block* b = blocks_[i];
  blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
  b->destroy();
}

Node* Node::insert_before(Node* n) {
  check(n->in_block_list(), "insert_before: target is not in a block");
  return insert_after(n->prev_);
}

Node* Node::insert_after(Node* n) {
  check(!in_block_list(), "insert_after: node is already in a block");
  check(n->in_block_list() && n->owning_block_ != nullptr, "insert_after: target is not in a block");
  check(n->kind_ != prim::Return, "cannot insert a node after a return node or before a param node");
  owning_block_ = n->owning_block_;
  Node* next = n->next_;
  n->next_ = this;
  prev_ = n;
  next_ = next;
  next->prev_ = this;
  assign_topo_position();
  return this;
}

void Node::move_before(Node* n) {
  remove_from_list();
  insert_before(n);
}

void Node::move_after(Node* n) {
  remove_from_list();
  insert_after(n);
}

void Node::remove_from_list() {
  check(in_block_list(), "remove_from_list: node is not in a block");
  owning_block_ = nullptr;
  prev_->next_ = next_;
  next_->prev_ = prev_;
  next_ = nullptr;
  prev_ = nullptr;
}

void Node::destroy() {
  while (!outputs_.empty()) erase_output(outputs_.size() - 1);
  while (!blocks_.empty()) erase_block(blocks_.size() - 1);
  remove_all_inputs();
  if (in_block_list()) remove_from_list();
  graph_->free_node(this);
}

void Node::replace_all_uses_with(Node* n) {
  check(outputs_.size() == n->outputs_.size(), "replace_all_uses_with: output counts differ");
  for (size_t i = 0; i < outputs_.size(); ++i) outputs_[i]->replace_all_uses_with(n->outputs_[i]);
}

void Node::assign_topo_position() {
  const bool is_first = prev_ == owning_block_->param_node();
  const bool is_last = next_ == owning_block_->return_node();
  const int64_t prev_pos = prev_->topo_position_;
  const int64_t next_pos = next_->topo_position_;
  if (is_last) {
    if (is_first) {
      topo_position_ = kMidPoint;
      return;
    }
    if (prev_pos >= kUpperBound - kAppendInterval) {
      owning_block_->reindex_topology();
      return;
    }
    topo_position_ = prev_pos + kAppendInterval;
  } else if (is_first) {
    if (next_pos <= kLowerBound + kAppendInterval) {
      owning_block_->reindex_topology();
      return;
    }
    topo_position_ = next_pos - kAppendInterval;
  } else {
    const auto between = static_cast<int64_t>(prev_pos + (static_cast<__int128>(next_pos) - prev_pos) / 2);
    if (between == prev_pos) {
      owning_block_->reindex_topology();
      return;
    }
    topo_position_ = between;
  }
}

bool Node::must_be_none() const {
  if (kind_ == prim::AutogradZero) return true;
  if (outputs_.size() == 1 && outputs_[0]->type()->kind() == TypeKind::None) return true;
  return kind_ == prim::Constant && attrs_.empty() && outputs_.size() == 1 &&
         outputs_[0]->type()->kind() == TypeKind::Optional;
}

// Attributes

Node::Attrs::const_iterator Node::find_attr(Symbol name, bool required) const {
  check(name.is_attr(), "attribute names must be attr:: symbols");
  auto it = std::find_if(attrs_.begin(), attrs_.end(), [&](const Attribute& a) { return a.name == name; });
  if (required && it == attrs_.end())
    throw InvalidInput(fmt::format("required keyword attribute '{}' is undefined", name.unqual_string()));
  return it;
}

bool Node::has_attribute(Symbol name) const { return find_attr(name, false) != attrs_.end(); }

AttributeKind Node::kind_of(Symbol name) const { return jitctl::kind_of(find_attr(name, true)->value); }

std::vector<Symbol> Node::attribute_names() const {
  std::vector<Symbol> names;
  names.reserve(attrs_.size());
  for (const auto& a : attrs_) names.push_back(a.name);
  return names;
}

const AttributeValue& Node::attr(Symbol name) const { return find_attr(name, true)->value; }

Node* Node::set_attr(Symbol name, AttributeValue v) {
  auto it = find_attr(name, false);
  if (it == attrs_.end()) attrs_.push_back(Attribute{name, std::move(v)});
  else attrs_[static_cast<size_t>(it - attrs_.begin())].value = std::move(v);
  return this;
}

Node* Node::remove_attribute(Symbol name) {
  attrs_.erase(find_attr(name, true));
  return this;
}

Node* Node::copy_attributes(const Node& rhs) {
  Attrs copied;
  copied.reserve(rhs.attrs_.size());
  for (const auto& a : rhs.attrs_) {
    // Graph attributes are owned by their node: a copy gets its own graphs.
    if (auto* g = std::get_if<std::shared_ptr<Graph>>(&a.value)) {
      copied.push_back(Attribute{a.name, AttributeValue(std::in_place_index<10>, (*g)->copy())});
    } else if (auto* gs = std::get_if<std::vector<std::shared_ptr<Graph>>>(&a.value)) {
      std::vector<std::shared_ptr<Graph>> graphs;
      for (const auto& sub : *gs) graphs.push_back(sub->copy());
      copied.push_back(Attribute{a.name, AttributeValue(std::in_place_index<11>, std::move(graphs))});
    } else {
      copied.push_back(a);
    }
  }
  attrs_ = std::move(copied);
  return this;
}

// ---------------------------------------------------------------------------------------------
// Block

Block::Block(Graph* graph, Node* owning_node)
    : graph_(graph),
      return_(graph->create(prim::Return, 0)),
      param_(graph->create(prim::Param, 0)),
      owning_node_(owning_node) {
  // The param and return nodes close the block's circular list: nodes lie between them.
  param_->next_ = return_;
  param_->prev_ = return_;
  return_->next_ = param_;
  return_->prev_ = param_;
  graph->all_blocks_.insert(this);
  return_->owning_block_ = this;
  return_->topo_position_ = kUpperBound;
  param_->owning_block_ = this;
  param_->topo_position_ = kLowerBound;
}

NodeRange Block::nodes() const { return NodeRange(param_->next_, return_, false); }

Value* Block::add_input(const std::string& name) {
  Value* v = param_->add_output();
  v->set_debug_name(name);
  return v;
}

Value* Block::insert_input(size_t i, const std::string& name) {
  Value* v = param_->insert_output(i);
  v->set_debug_name(name);
  return v;
}

void Block::erase_input(size_t i) { param_->erase_output(i); }
void Block::remove_all_inputs() { param_->remove_all_outputs(); }

size_t Block::register_output(Value* v) {
  return_->add_input(v);
  return return_->inputs_.size() - 1;
}

size_t Block::insert_output(size_t i, Value* v) {
  return_->insert_input(i, v);
  return i;
}

void Block::erase_output(size_t i) { return_->remove_input(i); }
void Block::remove_all_outputs() { return_->remove_all_inputs(); }
void Block::replace_output(size_t i, Value* v) { return_->replace_input(i, v); }
void Block::permute_outputs(const std::vector<size_t>& new_order) { return_->permute_inputs(new_order); }
void Block::permute_inputs(const std::vector<size_t>& new_order) { param_->permute_outputs(new_order); }

Node* Block::append_node(Node* n) {
  check(n->graph_ == graph_ && !n->in_block_list(), "append_node: node of another graph or already placed");
  return n->insert_before(return_);
}

Node* Block::prepend_node(Node* n) {
  check(n->graph_ == graph_ && !n->in_block_list(), "prepend_node: node of another graph or already placed");
  return n->insert_after(param_);
}

void Block::clone_from(const Block* src, const std::function<Value*(Value*)>& value_map) {
  std::unordered_map<const Value*, Value*> local;
  auto env = [&](Value* v) -> Value* {
    auto it = local.find(v);
    return it != local.end() ? it->second : value_map(v);
  };
  for (Value* in : src->inputs()) local[in] = add_input()->copy_metadata(in);
  for (Node* n : src->nodes()) {
    Node* copy = append_node(graph_->create_clone(n, env));
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      local[n->outputs()[i]] = copy->outputs()[i];
      copy->outputs()[i]->copy_metadata(n->outputs()[i]);
    }
  }
  for (Value* out : src->outputs()) register_output(env(out));
}

void Block::remap_types(const std::function<TypePtr(TypePtr)>& type_map) {
  for (Value* in : inputs()) in->set_type(type_map(in->type()));
  for (Node* n : nodes()) {
    for (Value* out : n->outputs()) out->set_type(type_map(out->type()));
    for (Block* b : n->blocks()) b->remap_types(type_map);
    for (const auto& a : n->attributes()) {
      if (auto* g = std::get_if<std::shared_ptr<Graph>>(&a.value)) (*g)->remap_types(type_map);
      else if (auto* gs = std::get_if<std::vector<std::shared_ptr<Graph>>>(&a.value))
        for (const auto& sub : *gs) sub->remap_types(type_map);
    }
  }
}

void Block::destroy() {
  // The return node is the list's sentinel, so it goes last; nodes go in reverse so that users
  // die before the values they use.
  return_->remove_all_inputs();
  for (auto it = nodes().reverse().begin(), end = nodes().reverse().end(); it != end;) {
    Node* n = *it++;
    n->destroy();
  }
  return_->destroy();
  param_->destroy();
  graph_->free_block(this);
}

void Block::reindex_topology() {
  int64_t pos = kLowerBound;
  for (Node* n : nodes()) {
    check(pos <= kUpperBound - kAppendInterval, "too many nodes in one block");
    pos += kAppendInterval;
    n->topo_position_ = pos;
  }
}

// ---------------------------------------------------------------------------------------------
// Graph

Graph::Graph() : block_(new Block(this, nullptr)), insert_before_(block_->return_node()) {}

Graph::~Graph() {
  for (Node* n : all_nodes_) delete n;
  for (Value* v : all_values_) delete v;
  for (Block* b : all_blocks_) delete b;
}

void Graph::free_node(Node* n) {
  check(all_nodes_.erase(n) == 1, "free_node: unknown node");
  delete n;
}

void Graph::free_value(Value* v) {
  v->set_debug_name("");
  check(all_values_.erase(v) == 1, "free_value: unknown value");
  delete v;
}

void Graph::free_block(Block* b) {
  check(all_blocks_.erase(b) == 1, "free_block: unknown block");
  delete b;
}

Node* Graph::create(Symbol kind, size_t num_outputs) {
  Node* n = new Node(this, kind);
  for (size_t i = 0; i < num_outputs; ++i) n->add_output();
  return n;
}

Node* Graph::create(Symbol kind, const std::vector<Value*>& inputs, size_t num_outputs) {
  Node* n = create(kind, num_outputs);
  for (Value* v : inputs) n->add_input(v);
  return n;
}

Node* Graph::create_none() {
  Node* n = create(prim::Constant);
  n->output()->set_type(NoneType::get());
  return n;
}

Node* Graph::create_uninitialized(TypePtr type) {
  Node* n = create(prim::Uninitialized);
  n->output()->set_type(std::move(type));
  return n;
}

Node* Graph::create_with_subgraph(Symbol kind) {
  Node* n = create(kind, 0);
  n->g_(attr::Subgraph, std::make_shared<Graph>());
  return n;
}

Node* Graph::create_tuple(const std::vector<Value*>& values, TypePtr named_tuple_type) {
  if (!named_tuple_type) {
    std::vector<TypePtr> types;
    types.reserve(values.size());
    for (Value* v : values) types.push_back(v->type());
    named_tuple_type = TupleType::create(std::move(types));
  }
  Node* n = create(prim::TupleConstruct, values);
  n->output()->set_type(std::move(named_tuple_type));
  return n;
}

Node* Graph::create_tuple_unpack(Value* tuple) {
  const auto& tt = tuple->type()->expect<TupleType>();
  Node* n = create(prim::TupleUnpack, {tuple}, 0);
  for (const auto& e : tt.elements()) n->add_output()->set_type(e);
  return n;
}

Node* Graph::create_tuple_index(Value* tuple, Value* index, TypePtr output_type) {
  Node* n = create(prim::TupleIndex, {tuple, index});
  n->output()->set_type(std::move(output_type));
  return n;
}

Node* Graph::create_list(const TypePtr& element_type, const std::vector<Value*>& values) {
  Node* n = create(prim::ListConstruct, values);
  for (Value* v : values)
    if (!v->type()->is_subtype_of(element_type))
      throw InvalidInput(fmt::format("Expected a list element that subtypes '{}' but got an element of type '{}'",
                                     element_type->annotation_str(), v->type()->annotation_str()));
  n->output()->set_type(ListType::create(element_type));
  return n;
}

Node* Graph::create_list_unpack(Value* list, size_t size) {
  const TypePtr elem = list->type()->expect<ListType>().elem();
  Node* n = create(prim::ListUnpack, {list}, 0);
  for (size_t i = 0; i < size; ++i) n->add_output()->set_type(elem);
  return n;
}

Node* Graph::create_dict(const TypePtr& key_type, const TypePtr& value_type, const std::vector<Value*>& keys,
                         const std::vector<Value*>& values) {
  check(keys.size() == values.size(), "create_dict: as many keys as values");
  Node* n = create(prim::DictConstruct, 1);
  for (size_t i = 0; i < keys.size(); ++i) {
    check(keys[i]->type()->is_subtype_of(key_type), "create_dict: key of the wrong type");
    check(values[i]->type()->is_subtype_of(value_type), "create_dict: value of the wrong type");
    n->add_input(keys[i]);
    n->add_input(values[i]);
  }
  n->output()->set_type(DictType::create(key_type, value_type));
  return n;
}

Node* Graph::create_get_attr(Value* obj, const std::string& field) {
  const auto& cls = obj->type()->expect<ClassType>();
  Node* n = create(prim::GetAttr, {obj}, 1);
  n->s_(attr::name, field);
  TypePtr type = cls.find_attribute(field);
  if (!type)
    throw InvalidInput(fmt::format("{} does not have an attribute with name '{}'", cls.qualified_name(), field));
  n->output()->set_type(std::move(type));
  // A digits-only field (a ModuleList index) would be an invalid name.
  n->output()->set_debug_name(all_digits(field) ? "_" + field : field);
  return n;
}

Node* Graph::create_set_attr(Value* obj, const std::string& field, Value* new_value) {
  Node* n = create(prim::SetAttr, {obj, new_value}, 0);
  n->s_(attr::name, field);
  return n;
}

Node* Graph::create_store(const std::string& name, Value* v) {
  Node* n = create(prim::Store, {v}, 0);
  n->s_(attr::name, name);
  return n;
}

Node* Graph::create_load(const std::string& name, const TypePtr& type) {
  Node* n = create(prim::Load, {}, 1);
  n->s_(attr::name, name);
  n->output()->set_type(type);
  return n;
}

Node* Graph::create_is_instance(Value* v, std::vector<TypePtr> types) {
  Node* n = create(prim::isinstance, {v}, 1);
  n->tys_(attr::types, std::move(types));
  n->output()->set_type(BoolType::get());
  return n;
}

Node* Graph::create_clone(const Node* n, const std::function<Value*(Value*)>& value_map, bool copy_blocks) {
  Node* r = new Node(this, n->kind());
  for (const Value* o : n->outputs()) r->add_output()->copy_metadata(o);
  r->loc_ = n->loc_;
  r->copy_attributes(*n);
  for (Value* i : n->inputs()) r->add_input(value_map(i));
  if (copy_blocks)
    for (const Block* b : n->blocks()) r->add_block()->clone_from(b, value_map);
  return r;
}

Node* Graph::insert_node(Node* n) {
  check(insert_before_->in_block_list(), "the insertion point is no longer in a block");
  return n->insert_before(insert_before_);
}

void Graph::set_insert_point(Block* b) {
  check(b->owning_graph() == this, "set_insert_point: block of another graph");
  insert_before_ = b->return_node();
}

void Graph::set_insert_point(Node* n) {
  check(n->owning_graph() == this && n->in_block_list(), "set_insert_point: node not in this graph's blocks");
  insert_before_ = n;
}

Value* Graph::insert_unchecked_cast(Value* v, TypePtr type) {
  Node* n = insert_node(create(prim::unchecked_cast, {v}));
  n->output()->set_type(std::move(type));
  return n->output();
}

std::shared_ptr<Graph> Graph::copy() const {
  auto g = std::make_shared<Graph>();
  g->block_->clone_from(block_, [](Value* v) -> Value* {
    throw std::logic_error("IR: Graph::copy() met a use of value " + v->debug_name() + " that is not in scope");
  });
  return g;
}

void Graph::lint() const {
  // Scopes nest with blocks: a value is visible in the block that defines it and in blocks nested
  // below, and only after its definition.
  std::vector<std::unordered_set<const Value*>> scopes;
  std::unordered_set<size_t> seen_ids;
  auto visible = [&](const Value* v) {
    return std::any_of(scopes.begin(), scopes.end(), [&](const auto& s) { return s.count(v) > 0; });
  };
  auto define = [&](const Value* v, const Node* n, size_t i) {
    check(v->node() == n && v->offset() == i, "lint: output with a wrong node or offset");
    check(all_values_.count(const_cast<Value*>(v)) == 1, "lint: value not owned by the graph");
    check(v->unique() < next_unique_, "lint: id beyond the graph's counter");
    check(seen_ids.insert(v->unique()).second, "lint: two values share an id");
    check(!visible(v), "lint: value defined twice");
    scopes.back().insert(v);
    for (const Use& u : v->uses()) {
      check(u.offset < u.user->inputs().size() && u.user->inputs()[u.offset] == v, "lint: use without its input");
      check(all_nodes_.count(u.user) == 1, "lint: use by a dead node");
    }
  };
  auto check_inputs = [&](const Node* n) {
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      const Value* in = n->inputs()[i];
      check(visible(in), "lint: input not in scope");
      const auto& uses = in->uses();
      check(std::find(uses.begin(), uses.end(), Use{const_cast<Node*>(n), i}) != uses.end(),
            "lint: input without its use");
    }
  };
  std::function<void(const Block*)> walk = [&](const Block* b) {
    check(b->param_node()->kind() == prim::Param && b->return_node()->kind() == prim::Return,
          "lint: block without param or return node");
    for (size_t i = 0; i < b->inputs().size(); ++i) define(b->inputs()[i], b->param_node(), i);
    const Node* prev = b->param_node();
    for (const Node* n : b->nodes()) {
      check(n->kind() != prim::Param && n->kind() != prim::Return, "lint: param or return node inside a block");
      check(n->owning_block() == b && n->prev() == prev, "lint: broken node list");
      check(prev == b->param_node() || prev->is_before(n), "lint: topological positions out of order");
      check_inputs(n);
      for (const Block* sub : n->blocks()) {
        check(sub->owning_node() == n, "lint: block with a wrong owner");
        scopes.emplace_back();
        walk(sub);
        scopes.pop_back();
      }
      for (size_t i = 0; i < n->outputs().size(); ++i) define(n->outputs()[i], n, i);
      prev = n;
    }
    check_inputs(b->return_node());
  };
  scopes.emplace_back();
  walk(block_);
}

WithInsertPoint::WithInsertPoint(Node* n) : prev_(n->owning_graph()->insert_point()) {
  n->owning_graph()->set_insert_point(n);
}

WithInsertPoint::~WithInsertPoint() { prev_->owning_graph()->set_insert_point(prev_); }

}  // namespace jitctl
