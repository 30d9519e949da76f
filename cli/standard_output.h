#pragma once
// What jitctl writes to standard output reaches it, or jitctl says it did not: a command whose
// output could not be written (`jitctl graph M > /dev/full`) exits 2 with one line, never 0. A pipe
// closed by its reader (`jitctl info M | head -c1`) is not worth a message: jitctl then ends
// quietly by SIGPIPE, as `cat` or `grep` do, after the same clean-up as any other exit.
#include <exception>

namespace jitctl::cli {

// At the start of main: SIGPIPE is ignored, so that a write to a closed pipe returns EPIPE and
// jitctl's own clean-up (temporary files) runs before it ends.
void prepare_standard_output();

// At the end of main, with the exit code the command earned: flushes and closes standard output
// and returns that code, or 2 (with a message) when the output did not reach it; on a closed pipe
// it ends the process by SIGPIPE.
int finish_standard_output(int code);

// For main's handlers: whether `e` says standard output could not be written (fmt's system_error
// from a failed write, or the one output_file.h throws); if so, says it on stderr. Ends the process
// by SIGPIPE for a closed pipe.
bool report_standard_output_error(const std::exception& e);

}  // namespace jitctl::cli
