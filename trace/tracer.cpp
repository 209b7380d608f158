// Parsing of trace filters and triggers.
#include "trace/tracer.h"

#include <cstdio>
#include <stdexcept>

namespace x86lab {
namespace {

// A number in `base` (a 0x prefix is allowed in base 16) of at most `max`.
u64 parse_unsigned(const std::string& text, int base, const std::string& what, u64 max) {
  const std::string digits = base == 16 ? "0123456789abcdefABCDEF" : "0123456789";
  if (text.empty() || digits.find(text[0]) == std::string::npos)  // no sign or blank, which stoull takes
    throw std::invalid_argument(what + ": '" + text + "' is not a number");
  std::size_t used = 0;
  u64 value = 0;
  bool too_large = false;
  try {
    value = std::stoull(text, &used, base);
  } catch (const std::out_of_range&) {
    too_large = true;
    used = text.size();
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size()) throw std::invalid_argument(what + ": '" + text + "' is not a number");
  if (too_large || value > max) {
    char limit[24];
    std::snprintf(limit, sizeof limit, base == 16 ? "%llx" : "%llu", static_cast<unsigned long long>(max));
    throw std::invalid_argument(what + ": '" + text + "' is too large (at most " + limit + ")");
  }
  return value;
}

// "LO-HI" with LO <= HI, or LO < HI when `half_open` (the range [LO, HI)).
std::pair<u64, u64> parse_range(const std::string& text, int base, const std::string& what, u64 max, bool half_open) {
  const auto dash = text.find('-');
  if (dash == std::string::npos) throw std::invalid_argument(what + ": '" + text + "' is not a range LO-HI");
  const u64 lo = parse_unsigned(text.substr(0, dash), base, what, max);
  const u64 hi = parse_unsigned(text.substr(dash + 1), base, what, max);
  if (half_open ? lo >= hi : lo > hi)
    throw std::invalid_argument(what + ": '" + text + "' is not a range LO-HI with LO " + (half_open ? "<" : "<=") +
                                " HI");
  return {lo, hi};
}

}  // namespace

TraceFilter parse_trace_filter(const std::string& text) {
  if (text.find_first_not_of(',') == std::string::npos)
    throw std::invalid_argument("--trace-filter needs at least one item (event kinds, cpl=, eip=, cs=, window=)");
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
      const u64 cpl = parse_unsigned(item.substr(4), 10, "--trace-filter cpl", ~u64{0});
      if (cpl > 3) throw std::invalid_argument("--trace-filter cpl must be 0 to 3, not " + item.substr(4));
      filter.cpl = static_cast<u8>(cpl);
    } else if (item.rfind("eip=", 0) == 0) {
      const auto [lo, hi] = parse_range(item.substr(4), 16, "--trace-filter eip", 0xFFFFFFFFu, false);
      filter.eip_min = static_cast<u32>(lo);
      filter.eip_max = static_cast<u32>(hi);
    } else if (item.rfind("cs=", 0) == 0) {
      filter.cs = static_cast<u16>(parse_unsigned(item.substr(3), 16, "--trace-filter cs", 0xFFFF));
    } else if (item.rfind("window=", 0) == 0) {
      const auto [lo, hi] = parse_range(item.substr(7), 10, "--trace-filter window", ~u64{0}, true);
      filter.from_instruction = lo;
      filter.to_instruction = hi;
    } else if (item == "apic") {  // every APIC kind: lapic-* and ioapic-delivery
      for (std::size_t k = static_cast<std::size_t>(kFirstApicEventKind); k < kEventKindCount; ++k) kinds.set(k);
      any_kind = true;
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
  if (!start && text == "window") {
    triggers.end_run = true;
  } else if (text.rfind("eip=", 0) == 0) {
    const u32 eip = static_cast<u32>(parse_unsigned(text.substr(4), 16, option + " eip", 0xFFFFFFFFu));
    (start ? triggers.start_eip : triggers.stop_eip) = eip;
  } else if (start && text.rfind("vector=", 0) == 0) {
    const u64 vector = parse_unsigned(text.substr(7), 10, option + " vector", ~u64{0});
    if (vector > 255) throw std::invalid_argument(option + " vector must be 0 to 255");
    triggers.start_vector = static_cast<u8>(vector);
  } else {
    throw std::invalid_argument(option + " must be eip=HEX" + (start ? " or vector=N" : " or window") + ", not '" + text + "'");
  }
}

}  // namespace x86lab
