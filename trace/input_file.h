// Input files the user names (ROM, kernel, initrd, cost model, trace, GUI script, symbol
// file, scenario manifest): read only when they are regular files within the caller's size
// limit, both checked before any byte is read, so a directory gets one clear line, a FIFO
// or device never blocks, and an oversized file is refused without being read.
#pragma once
#include <string>
#include <vector>

#include "trace/types.h"

namespace x86lab {

// The largest file a reader accepts, and what to say when a file is larger: the problem
// reads "<what> '<path>' is N bytes; <note>".
struct InputFileLimit {
  u64 max_bytes;
  std::string note;
};

// Any size: the file is read whole anyway (binary traces).
inline const InputFileLimit kAnyInputSize{~u64{0}, ""};
// Text inputs (cost models, GUI scripts, manifests) are small; this stops a stray
// multi-gigabyte file from being read into memory.
inline const InputFileLimit kTextInputLimit{16 * 1024 * 1024, "at most 16 MiB is supported"};

// Reads the whole file at `path` into `bytes`. Returns "" when it was read, else the
// problem as one line naming it as "<what> '<path>'":
//   cannot open <what> '<path>': <reason>                (missing, no permission, ...)
//   <what> '<path>' is a directory
//   <what> '<path>' is not a regular file (a FIFO, socket or device)
//   <what> '<path>' is N bytes; <limit.note>
//   cannot read <what> '<path>': <reason>
std::string read_input_file(const std::string& path, const std::string& what, const InputFileLimit& limit,
                            std::vector<u8>& bytes);
// The same checks without reading: "" when `path` is a readable regular file, else the
// problem as above (for readers that stream a file, binary traces).
std::string check_input_file(const std::string& path, const std::string& what);
std::string read_input_file(const std::string& path, const std::string& what, const InputFileLimit& limit,
                            std::string& text);

}  // namespace x86lab
