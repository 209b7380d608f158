// What a scenario's guest program reports on the debug console (port E9h), in the
// line protocol of docs/compare.md: `METRIC <name> <integer>` and `SAMPLES <name>
// <v1> <v2> ...`; every other line is free text.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "trace/types.h"

namespace x86lab {

struct ConsoleReport {
  std::map<std::string, i64> metrics;               // METRIC lines; a repeated name keeps the last value
  std::map<std::string, std::vector<i64>> samples;  // SAMPLES lines; lines with the same name append, in order
  std::vector<std::string> malformed;               // METRIC/SAMPLES lines that break the protocol, with why
};

// Parses the whole console text. Names must be [a-z0-9_]+ and values signed 64-bit
// decimal integers; a line that starts with "METRIC " or "SAMPLES " and breaks these
// rules lands in `malformed` ("line 7: METRIC value 'x' is not an integer").
ConsoleReport parse_console(std::string_view text);

}  // namespace x86lab
