#pragma once
// Every file a command writes goes through here: atomically (a temporary file beside the output,
// filled, flushed to disk, renamed over it -- readers see the old file or the whole new one, and
// a failure leaves nothing behind), with the mode open(2) would give a new file (0666 & ~umask),
// and never over one of the command's own inputs.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace jitctl {

// Throws InvalidInput "OUT: is the input IN itself; refusing to overwrite it<hint>" when `output`
// names the same file as one of `inputs` (also through a symbolic or a hard link). Empty names in
// `inputs` are skipped; an output that does not exist yet is never an input.
void refuse_overwriting_inputs(const std::string& output, const std::vector<std::string>& inputs,
                               std::string_view hint = "");

// Checks, before any long work starts, that `path` can take a command's output (`flag` names the
// option in messages: "-o", "--plot", "--save-trace"): standard output ("-") always can; any
// other path must be in an existing folder this process may write, not in /dev, /proc or /sys
// (`-o /dev/stdout.npy` would make a file there), and, if it exists, be a regular file (not a
// folder, device, FIFO or socket) that is none of `inputs` unless `force` (refuse_overwriting_inputs,
// so identity by device and inode, through symbolic and hard links). Throws InvalidInput, whose
// message suggests --force unless `forcible` is false (the command has no such flag).
void check_output_path(const std::string& path, const std::vector<std::string>& inputs, bool force,
                       std::string_view flag = "-o", bool forcible = true);

// Creates an empty temporary file in `path`'s folder, lets `fill` write it (by its path, so that
// libraries that open files themselves can), flushes it to disk and renames it to `path`. Throws
// InvalidInput naming `path` when the temporary cannot be made, flushed or moved into place, and
// rethrows what `fill` throws; either way the temporary is gone.
void write_file_atomically(const std::string& path, const std::function<void(const std::string& temporary)>& fill);

// The same for bytes already in memory.
void write_file_atomically(const std::string& path, std::string_view bytes);

// For `-o -`: lets `fill` write a temporary file (named `name` in a private temporary folder, so
// that writers that pick a format by extension can), then copies it to standard output. Throws
// InvalidInput when the temporary cannot be made, and std::system_error (generic category, the
// errno) when standard output cannot be written.
void write_to_stdout_through_file(const std::string& name, const std::function<void(const std::string& temporary)>& fill);

// Removes the temporary files (and folders) that atomic writes have made and not yet moved into
// place or removed: for the watchdog that ends the process on a limit (run_limits.h), from a
// signal handler, so it is async-signal-safe.
void remove_pending_temporaries();

// The output path that means standard output.
inline bool is_stdout(const std::string& path) { return path == "-"; }

}  // namespace jitctl
