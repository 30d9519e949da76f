#pragma once
// JITCTL_PROFILE=1: time spent in each kernel, by operator name (prepared groups under the name
// of their first node with " (prepared)"), printed to stderr when the process exits, largest
// first; JITCTL_PROFILE=shapes: by operator name and the shapes of its tensor inputs and outputs
// (and what a prepared kernel describes of itself: a convolution's weight shape). For finding
// what a model spends its time on; off (one predictable branch per kernel call) otherwise. The
// calling thread's CPU time, not wall time, so that other processes on a busy machine do not
// count: profile with one thread (--threads 1), as other threads' work is not seen.
#include <cstdint>
#include <string>

#include "kernels/registry.h"

namespace jitctl {

bool op_profile_enabled();
// The key an operator's time is added under: `name`, with the inputs' shapes when asked for;
// op_profile_outputs adds the outputs' shapes to it.
std::string op_profile_key(const std::string& name, const Stack& inputs);
void op_profile_outputs(std::string& key, const Stack& outputs);
// Adds a prepared kernel's own description (PreparedKernel::describe) to the key, when shapes are asked for.
void op_profile_describe(std::string& key, const std::string& what);
// The calling thread's CPU time in nanoseconds.
int64_t op_profile_clock();
void op_profile_add(const std::string& key, int64_t ns);
// Forgets what was timed so far (bench --device cuda: after the warm-up calls, which choose cuDNN's
// algorithms).
void op_profile_reset();

}  // namespace jitctl
