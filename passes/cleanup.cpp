#include "passes/cleanup.h"

#include "passes/annotate_warns.h"
#include "passes/canonicalize_outputs.h"
#include "passes/constant_pooling.h"
#include "passes/constant_propagation.h"
#include "passes/inline_forked_closures.h"
#include "passes/lift_closures.h"
#include "passes/lower_simple_tuples.h"

namespace jitctl {

void run_cleanup_passes(Graph& g) {
  lift_closures(g);
  inline_forked_closures(g);
  lower_simple_tuples(g);  // ends with dead code elimination
  propagate_immutable_constants(g);
  pool_constants(g);  // after propagation, which makes new constants
  canonicalize_outputs(g);
  annotate_warns(g);
}

}  // namespace jitctl
