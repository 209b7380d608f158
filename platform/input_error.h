// Bad user input (a missing or malformed file, a bad option value): the CLI prints
// the message as one line and exits with status 2 (DESIGN.md section 7).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "trace/input_file.h"

namespace x86lab {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// Reads the whole input file at `path`, a regular file of at most `limit.max_bytes`
// (trace/input_file.h); throws InputError with the one-line problem naming
// "<what> '<path>'" otherwise.
inline std::vector<u8> read_input_bytes(const std::string& path, const std::string& what, const InputFileLimit& limit) {
  std::vector<u8> bytes;
  if (std::string problem = read_input_file(path, what, limit, bytes); !problem.empty()) throw InputError(problem);
  return bytes;
}

inline std::string read_input_text(const std::string& path, const std::string& what, const InputFileLimit& limit) {
  std::string text;
  if (std::string problem = read_input_file(path, what, limit, text); !problem.empty()) throw InputError(problem);
  return text;
}

}  // namespace x86lab
