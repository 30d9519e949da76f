#pragma once
// Errors carry the exit code the CLI returns for them (DESIGN.md: 2 invalid input, 3 unsupported).
#include <stdexcept>
#include <string>

namespace jitctl {

enum class ExitCode : int { Ok = 0, CheckFailed = 1, InvalidInput = 2, Unsupported = 3 };

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Input that is unreadable or malformed: names the record (and offset) at fault.
struct InvalidInput : Error {
  explicit InvalidInput(const std::string& what) : Error(ExitCode::InvalidInput, what) {}
};

// A check (check-trace, diff) found a problem (exit 1). Its report says what; main prints nothing.
struct CheckFailed : Error {
  CheckFailed() : Error(ExitCode::CheckFailed, "") {}
};

// Well-formed input using a feature jitctl does not implement yet.
struct Unsupported : Error {
  explicit Unsupported(const std::string& what) : Error(ExitCode::Unsupported, what) {}
};

}  // namespace jitctl
