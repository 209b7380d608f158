// printf-style formatting into a std::string, for the debugger's text views.
#pragma once
#include <string>

namespace x86lab {

// The text `pattern` formats to (printf conventions), cut at 255 characters.
std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));

}  // namespace x86lab
