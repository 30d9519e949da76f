#pragma once
#include <functional>
#include <string>

#include "lib/core/error.h"

namespace jitctl::test {

// The message of the jitctl::Error that f throws, or "" when it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace jitctl::test
