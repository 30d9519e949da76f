#include "passes/inline_forked_closures.h"

#include <stdexcept>

#include "passes/registry.h"

namespace jitctl {
namespace {

void inline_fork(Graph& g, Node* f) {
  Node* fork = g.create(prim::fork, 1)->insert_after(f);
  fork->copy_metadata(f);
  Node* closure_tuple = f->input(0)->node();
  if (closure_tuple->kind() != prim::TupleConstruct) throw std::logic_error("forkClosure of something not lifted");
  Node* closure = closure_tuple->input(0)->node();
  Node* pack = closure_tuple->input(1)->node();
  auto sub = closure->g(attr::Subgraph)->copy();  // numbered anew from 0
  Value* context = sub->inputs().at(0);
  Node* unpack = nullptr;
  for (const Use& u : context->uses())
    if (u.user->kind() == prim::TupleUnpack) unpack = u.user;
  if (!unpack) throw std::logic_error("lifted closure without its TupleUnpack");
  for (size_t i = 0; i < pack->inputs().size(); ++i) {
    fork->add_input(pack->input(i));
    Value* in = sub->insert_input(i);
    in->copy_metadata(pack->input(i));
    unpack->output(i)->replace_all_uses_with(in);
  }
  unpack->destroy();
  sub->erase_input(sub->inputs().size() - 1);  // the context tuple, now unused
  fork->output()->copy_metadata(f->output());
  f->output()->replace_all_uses_with(fork->output());
  f->destroy();
  fork->g_(attr::Subgraph, sub);
  run_pipeline("cleanup", *sub);
}

void inline_in_block(Graph& g, Block* b) {
  for (auto it = b->nodes().begin(); it != b->nodes().end();) {
    Node* n = *it++;
    if (n->kind() == Symbol::prim("forkClosure")) inline_fork(g, n);
    else
      for (Block* inner : n->blocks()) inline_in_block(g, inner);
  }
}

}  // namespace

void inline_forked_closures(Graph& g) { inline_in_block(g, g.block()); }

}  // namespace jitctl
