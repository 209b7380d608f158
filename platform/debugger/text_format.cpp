// printf-style formatting into a std::string (text_format.h).
#include "platform/debugger/text_format.h"

#include <cstdarg>
#include <cstdio>

namespace x86lab {

std::string format(const char* pattern, ...) {
  char buffer[256];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(buffer, sizeof buffer, pattern, args);
  va_end(args);
  return buffer;
}

}  // namespace x86lab
