// Instruction bytes as the tests print them: two upper-case hex digits per byte, no
// separators ("0F01D0"), for failure messages of the Zydis-checked tests.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "trace/types.h"

namespace x86lab::testing {

// The first `length` bytes of `bytes` (fewer when there are fewer).
inline std::string hex_bytes(const std::vector<u8>& bytes, unsigned length) {
  std::string text;
  char buffer[4];
  for (unsigned i = 0; i < length && i < bytes.size(); ++i) {
    std::snprintf(buffer, sizeof buffer, "%02X", bytes[i]);
    text += buffer;
  }
  return text;
}

}  // namespace x86lab::testing
