#pragma once
// torch.jit.freeze for a loaded module, as PyTorch 1.13 does it (torch/csrc/jit/passes/
// freeze_module.cpp, then torch/jit/_freeze.py's run_frozen_optimizations), in place:
//
//  1. Each kept method (`forward`, and the methods named by `preserve`) gets a copy of its graph
//     with every call inlined (fork subgraphs too), and calls through interface-typed attributes
//     inlined with the method of the module the attribute holds.
//  2. Attributes the code changes stay attributes: those a prim::SetAttr writes, and those whose
//     value alias analysis (its frozen mode) sees written in place; so do the ones `preserve` names.
//  3. Every other attribute read (prim::GetAttr along a chain of submodules from `self`) becomes a
//     constant named `self.path.name` -- parameters detached from autograd, tensors included --
//     and the graphs go through PyTorch's clean-up of a frozen graph (pipeline `frozen-cleanup`,
//     tensor constant propagation included).
//  4. Attributes, submodules and methods nothing reads any more are removed from the objects and
//     their classes; a submodule a method returns keeps everything.
//  5. Dropout goes and (optimize_numerics) batch_norm, add/sub and mul/div after convs fold into
//     them (pipeline `frozen-optimizations`, on the kept methods' graphs).
//
// What PyTorch refuses is refused with its message (InvalidInput, exit 2): a module whose forward
// returns itself, an unknown `preserve` name, prim::ModuleContainerIndex, an interface attribute
// whose module cannot be known, SetAttr on an interface attribute. What jitctl does not do yet is
// Unsupported (exit 3), naming it: preserving a submodule's method, state set by __setstate__.
//
// Passes that compute tensors need ctx.evaluate / ctx.run_operator (lib/runtime/node_evaluator.h);
// ctx.callees is filled here for inlining.
#include <string>
#include <vector>

#include "lib/serialization/export.h"
#include "lib/serialization/load_module.h"
#include "passes/pass_context.h"

namespace jitctl {

struct FreezeOptions {
  // Dotted names ("version", "sub.scale", "helper") of attributes and methods to keep.
  std::vector<std::string> preserve;
  // torch.jit.freeze's optimize_numerics: fold batch_norm/add/sub/mul/div into convs.
  bool optimize_numerics = true;
};

struct FreezeResult {
  // The frozen graph of every kept method of the root class, for export_module().
  GraphOverrides graphs;
  // Attribute reads that became constants, and attributes (of any object) removed.
  size_t attributes_folded = 0;
  size_t attributes_removed = 0;
};

// Freezes `m` in place (its objects, its classes). The module should be in eval mode (see
// set_eval_mode): attributes are folded for inference.
FreezeResult freeze_module(LoadedModule& m, const FreezeOptions& options, const PassContext& ctx);

// Objects pickled with __getstate__ hold their state, not their attributes, until __setstate__
// runs (torch.jit.load runs it). Freezing needs the attributes: for every object whose class's
// __setstate__ only copies fields of its state into attributes (`self.a = (state)[0]`, the form
// PyTorch's own pairs take), this fills them in, in slot order; the state stays, for the pickle,
// as long as the class keeps its __setstate__. Any other __setstate__ is Unsupported (exit 3).
// Call it before set_eval_mode, so that restored `training` flags are switched too.
void restore_setstate_attributes(LoadedModule& m);

}  // namespace jitctl
