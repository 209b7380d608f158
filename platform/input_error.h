// Bad user input (a missing or malformed file, a bad option value): the CLI prints
// the message as one line and exits with status 2 (DESIGN.md section 7).
#pragma once
#include <stdexcept>
#include <string>

namespace x86lab {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace x86lab
