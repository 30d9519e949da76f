#include "lib/runtime/threads.h"

#include <omp.h>

namespace jitctl {

void set_num_threads(int n) {
  if (n > 0) omp_set_num_threads(n);
}

int get_num_threads() { return omp_get_max_threads(); }

}  // namespace jitctl
