// Parsing of trace filters and triggers.
#include "trace/tracer.h"

#include <stdexcept>

namespace x86lab {
namespace {

u64 parse_unsigned(const std::string& text, int base, const std::string& what) {
  std::size_t used = 0;
  u64 value = 0;
  try {
    value = std::stoull(text, &used, base);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size()) throw std::invalid_argument(what + ": '" + text + "' is not a number");
  return value;
}

std::pair<u64, u64> parse_range(const std::string& text, int base, const std::string& what) {
  const auto dash = text.find('-');
  if (dash == std::string::npos) throw std::invalid_argument(what + ": '" + text + "' is not a range LO-HI");
  return {parse_unsigned(text.substr(0, dash), base, what), parse_unsigned(text.substr(dash + 1), base, what)};
}

}  // namespace

TraceFilter parse_trace_filter(const std::string& text) {
  TraceFilter filter;
  bool any_kind = false;
  std::bitset<kEventKindCount> kinds;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) continue;
    if (item.rfind("cpl=", 0) == 0) {
      const u64 cpl = parse_unsigned(item.substr(4), 10, "--trace-filter cpl");
      if (cpl > 3) throw std::invalid_argument("--trace-filter cpl must be 0 to 3, not " + item.substr(4));
      filter.cpl = static_cast<u8>(cpl);
    } else if (item.rfind("eip=", 0) == 0) {
      const auto [lo, hi] = parse_range(item.substr(4), 16, "--trace-filter eip");
      filter.eip_min = static_cast<u32>(lo);
      filter.eip_max = static_cast<u32>(hi);
    } else if (item.rfind("cs=", 0) == 0) {
      filter.cs = static_cast<u16>(parse_unsigned(item.substr(3), 16, "--trace-filter cs"));
    } else if (item.rfind("window=", 0) == 0) {
      const auto [lo, hi] = parse_range(item.substr(7), 10, "--trace-filter window");
      filter.from_instruction = lo;
      filter.to_instruction = hi;
    } else {
      bool found = false;
      for (std::size_t k = 0; k < kEventKindCount; ++k)
        if (kEventKindNames[k] == item) kinds.set(k), found = any_kind = true;
      if (!found) throw std::invalid_argument("--trace-filter: unknown item '" + item + "'");
    }
  }
  if (any_kind) filter.kinds = kinds;
  return filter;
}

void parse_trace_trigger(const std::string& text, bool start, TraceTriggers& triggers) {
  const std::string option = start ? "--trace-start" : "--trace-stop";
  if (text.rfind("eip=", 0) == 0) {
    const u32 eip = static_cast<u32>(parse_unsigned(text.substr(4), 16, option + " eip"));
    (start ? triggers.start_eip : triggers.stop_eip) = eip;
  } else if (start && text.rfind("vector=", 0) == 0) {
    const u64 vector = parse_unsigned(text.substr(7), 10, option + " vector");
    if (vector > 255) throw std::invalid_argument(option + " vector must be 0 to 255");
    triggers.start_vector = static_cast<u8>(vector);
  } else {
    throw std::invalid_argument(option + " must be eip=HEX" + (start ? " or vector=N" : "") + ", not '" + text + "'");
  }
}

}  // namespace x86lab
