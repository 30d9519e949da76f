#include "passes/registry.h"

#include <algorithm>
#include <array>

#include "passes/canonicalize_outputs.h"
#include "passes/constant_pooling.h"
#include "passes/constant_propagation.h"
#include "passes/dead_code_elimination.h"
#include "passes/lower_simple_tuples.h"
#include "passes/peephole.h"

namespace jitctl {
namespace {

// A pass that reports whether it changed anything still runs as a plain pass here.
void run_constant_propagation_immutable(Graph& g) { propagate_immutable_constants(g); }
void run_peephole(Graph& g) { peephole_optimize(g); }

constexpr std::array kPasses = {
    PassInfo{"dce", "delete nodes whose results are unused and that have no side effects", eliminate_dead_code},
    PassInfo{"constant-pooling", "hoist constants to the top of the graph and merge equal ones", pool_constants},
    PassInfo{"lower-simple-tuples", "read tuple elements from their TupleConstruct, then DCE", lower_simple_tuples},
    PassInfo{"canonicalize-outputs", "order If and Loop outputs by first use", canonicalize_outputs},
    PassInfo{"constant-propagation-immutable", "fold nodes on constant ints, floats, bools, strings and tuples",
             run_constant_propagation_immutable},
    PassInfo{"peephole", "small rewrites without shapes: list/dict idioms, None checks, x+0, dim(conv), cat(cat)",
             run_peephole},
};

}  // namespace

std::span<const PassInfo> all_passes() { return kPasses; }

const PassInfo* find_pass(std::string_view name) {
  auto it = std::find_if(kPasses.begin(), kPasses.end(), [&](const PassInfo& p) { return p.name == name; });
  return it == kPasses.end() ? nullptr : &*it;
}

}  // namespace jitctl
