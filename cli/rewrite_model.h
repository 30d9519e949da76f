#pragma once
// What `jitctl freeze` and `jitctl optimize` share: load a model, freeze it and/or run graph
// passes, write it, and say what changed -- nodes per operator kind before (each method with its
// calls inlined, as it computes) and after (the graphs written), attribute reads folded into
// constants, attributes removed, archive bytes before and after. Text on stderr, or one JSON
// object on stdout with --format json.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/ir/ir.h"
#include "passes/registry.h"

namespace jitctl::cli {

struct RewriteJob {
  std::string command;  // "freeze", "optimize": for messages
  std::string input, output;
  bool force = false;         // -o may name the input
  std::string format = "text";
  bool freeze = false;        // torch.jit.freeze first (in eval mode)
  std::vector<std::string> preserve;
  bool optimize_numerics = true;
  bool eval_mode = true;      // set training=False everywhere (freezing needs it)
  // Graph passes run afterwards on every graph written: a pipeline, or passes in order.
  std::string pipeline;
  std::vector<const PassInfo*> passes;
  bool print_after_each = false;
};

void rewrite_model(const RewriteJob& job);

}  // namespace jitctl::cli
