// Breakpoints written as text (see breakpoint_spec.h).
#include "platform/debugger/breakpoint_spec.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace x86lab {

namespace {
[[noreturn]] void refuse(const std::string& problem) { throw std::invalid_argument(problem); }

WatchAccess access_named(const std::string& mode) {
  if (mode == "r") return WatchAccess::Read;
  if (mode == "w") return WatchAccess::Write;
  if (mode == "a") return WatchAccess::Access;
  refuse("the access is r, w or a, not '" + mode + "'");
}

constexpr const char* kUsage = "usage: code|vector|fault|lock|load|selector|write|io|phys|watch ...";
}  // namespace

u32 parse_number(const std::string& word) {
  try {
    std::size_t used = 0;
    const unsigned long value = std::stoul(word, &used, 0);
    if (used == word.size() && value <= 0xFFFFFFFFul) return static_cast<u32>(value);
  } catch (const std::exception&) {
  }
  refuse("bad number '" + word + "'");
}

Breakpoint parse_breakpoint(const std::vector<std::string>& w) {
  const std::string what = w.empty() ? "" : w[0];
  const std::size_t n = w.size();
  if (what == "code" && n == 2) return Breakpoint::at_linear(parse_number(w[1]));
  if (what == "fault" && n == 1) return Breakpoint::on_vector(0, 31, kSourceException);
  if (what == "vector" && (n == 2 || n == 3)) {
    const u32 first = parse_number(w[1]), last = n == 3 ? parse_number(w[2]) : first;
    if (first > 255 || last > 255 || last < first) refuse("vectors are 0-255");
    return Breakpoint::on_vector(static_cast<u8>(first), static_cast<u8>(last));
  }
  if (what == "lock" && n == 2) {
    const auto* name = std::find(kAccessKindNames.begin(), kAccessKindNames.end(), w[1]);
    if (name == kAccessKindNames.end() || !is_locked_kind(static_cast<AccessKind>(name - kAccessKindNames.begin())))
      refuse("unknown locked access kind '" + w[1] + "' (monitor help lists them)");
    return Breakpoint::on_locked(static_cast<AccessKind>(name - kAccessKindNames.begin()));
  }
  if (what == "load" && n == 2) {
    static constexpr const char* kNames[] = {"es", "cs", "ss", "ds", "fs", "gs", "ldtr", "tr"};
    const auto* name = std::find(std::begin(kNames), std::end(kNames), w[1]);
    if (name == std::end(kNames)) refuse("unknown segment register '" + w[1] + "'");
    return Breakpoint::on_segment_load(static_cast<u8>(name - std::begin(kNames)));
  }
  if (what == "selector" && n == 2) {
    const u32 selector = parse_number(w[1]);
    if (selector > 0xFFFF) refuse("selectors are 0-0xffff");
    return Breakpoint::on_selector(static_cast<u16>(selector), 0xFFFC);
  }
  if (what == "write" && (n == 2 || n == 3)) {
    static constexpr const char* kTables[] = {"gdt", "ldt", "idt"};
    const auto* table = std::find(std::begin(kTables), std::end(kTables), w[1]);
    if (table == std::end(kTables)) refuse("the table is gdt, ldt or idt, not '" + w[1] + "'");
    const u32 entry = n == 3 ? parse_number(w[2]) : 0;
    if (entry > 0xFFFF) refuse("descriptor entries are 0-0xffff");
    return Breakpoint::on_descriptor_write(static_cast<DescriptorTable>(table - std::begin(kTables)),
                                           n == 3 ? std::optional<u16>(static_cast<u16>(entry)) : std::nullopt);
  }
  if (what == "io" && (n == 2 || n == 3)) {
    const u32 first = parse_number(w[1]), last = n == 3 ? parse_number(w[2]) : first;
    if (first > 0xFFFF || last > 0xFFFF) refuse("ports are 0-0xffff");
    if (last < first) refuse("LAST port is below PORT");
    return Breakpoint::on_port(static_cast<u16>(first), static_cast<u16>(last));
  }
  if ((what == "phys" || what == "watch") && (n == 3 || n == 4)) {
    const u32 length = parse_number(w[2]);
    if (length == 0) refuse("a watchpoint watches 1 byte or more");
    return Breakpoint::watch_range(parse_number(w[1]), length, access_named(n == 4 ? w[3] : "w"), what == "phys");
  }
  refuse(kUsage);
}

Breakpoint parse_breakpoint(const std::string& text) {
  std::string spec = text, condition;
  if (const auto at = text.find(" if "); at != std::string::npos) {
    spec = text.substr(0, at);
    condition = text.substr(at + 4);
  }
  std::istringstream in(spec);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  Breakpoint breakpoint = parse_breakpoint(words);
  if (!condition.empty()) breakpoint.condition = parse_condition(condition);
  return breakpoint;
}

}  // namespace x86lab
