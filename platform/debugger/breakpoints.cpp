// Breakpoint table and matching (see breakpoints.h).
#include "platform/debugger/breakpoints.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "mmu/paging.h"

namespace x86lab {

namespace {

u32 register_value(const CpuState& state, ConditionRegister reg) {
  const auto n = static_cast<unsigned>(reg);
  if (n < 8) return state.gpr[n];
  switch (reg) {
    case ConditionRegister::Eip: return state.eip;
    case ConditionRegister::Eflags: return state.eflags;
    case ConditionRegister::Cpl: return state.cpl;
    case ConditionRegister::Cr0: return state.cr0;
    case ConditionRegister::Cr2: return state.cr2;
    case ConditionRegister::Cr3: return state.cr3;
    case ConditionRegister::Cr4: return state.cr4;
    default: return state.segments[n - static_cast<unsigned>(ConditionRegister::Es)].selector;
  }
}

// Whether [a, a + a_size) and [b, b + b_size) share a byte (sizes at least 1; 64-bit
// arithmetic so ranges ending at 4 GiB do not wrap).
bool overlaps(u32 a, u32 a_size, u32 b, u32 b_size) {
  return u64{a} < u64{b} + b_size && u64{b} < u64{a} + a_size;
}

// Whether a write event touches the bytes of the linear range [first, first + size):
// at those linear addresses, or (with `mmu`) at the physical bytes each 4 KiB page of
// the range maps to now (Mmu::debug_translate: no Accessed bits, no TLB fill; pages
// not present hold no table bytes). The event's physical address is its first byte's.
bool writes_range(const Event& event, u32 first, u32 size, const Mmu* mmu) {
  if (overlaps(event.a, event.size, first, size)) return true;
  if (!mmu) return false;
  const u64 end = u64{first} + size;
  for (u64 at = first; at < end;) {
    const u64 page_end = std::min<u64>(end, (at | 0xFFF) + 1);
    const std::optional<u32> physical = mmu->debug_translate(static_cast<u32>(at));
    if (physical && overlaps(event.b, event.size, *physical, static_cast<u32>(page_end - at))) return true;
    at = page_end;
  }
  return false;
}

std::string hex(u32 value, int digits) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%0*X", digits, value);
  return buffer;
}

u32 parse_number(const std::string& text, const std::string& term) {
  try {
    std::size_t used = 0;
    const unsigned long value = std::stoul(text, &used, 0);
    if (used != text.size() || value > 0xFFFFFFFFul) throw std::invalid_argument("");
    return static_cast<u32>(value);
  } catch (const std::exception&) {
    throw std::invalid_argument("bad number '" + text + "' in condition '" + term + "'");
  }
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

bool RegisterCondition::holds(const CpuState& state) const {
  const u32 left = register_value(state, reg) & mask;
  switch (op) {
    case CompareOp::Equal: return left == value;
    case CompareOp::NotEqual: return left != value;
    case CompareOp::Below: return left < value;
    case CompareOp::BelowOrEqual: return left <= value;
    case CompareOp::Above: return left > value;
    case CompareOp::AboveOrEqual: return left >= value;
  }
  return false;
}

std::vector<RegisterCondition> parse_condition(const std::string& text) {
  std::vector<RegisterCondition> terms;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find("&&", start);
    const std::string term = trim(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    static constexpr std::pair<std::string_view, CompareOp> kOps[] = {
        {"==", CompareOp::Equal}, {"!=", CompareOp::NotEqual}, {"<=", CompareOp::BelowOrEqual},
        {">=", CompareOp::AboveOrEqual}, {"<", CompareOp::Below}, {">", CompareOp::Above}};
    RegisterCondition condition;
    std::size_t at = std::string::npos, op_size = 0;
    for (const auto& [spelling, op] : kOps) {
      at = term.find(spelling);
      if (at != std::string::npos) {
        condition.op = op;
        op_size = spelling.size();
        break;
      }
    }
    if (at == std::string::npos) throw std::invalid_argument("condition term '" + term + "' has no comparison");
    std::string left = trim(term.substr(0, at));
    if (const auto amp = left.find('&'); amp != std::string::npos) {
      condition.mask = parse_number(trim(left.substr(amp + 1)), term);
      left = trim(left.substr(0, amp));
    }
    const auto* name = std::find(std::begin(kConditionRegisterNames), std::end(kConditionRegisterNames), left);
    if (name == std::end(kConditionRegisterNames)) throw std::invalid_argument("unknown register '" + left + "' in condition");
    condition.reg = static_cast<ConditionRegister>(name - std::begin(kConditionRegisterNames));
    condition.value = parse_number(trim(term.substr(at + op_size)), term);
    terms.push_back(condition);
    if (end == std::string::npos) break;
    start = end + 2;
  }
  return terms;
}

// Designated initializers name the fields each kind uses (in declaration order).
Breakpoint Breakpoint::at_linear(u32 linear) { return {.kind = BreakpointKind::Linear, .address = linear}; }

Breakpoint Breakpoint::at_cs_eip(u16 cs, u32 eip) {
  return {.kind = BreakpointKind::CsEip, .address = eip, .selector = cs};
}

Breakpoint Breakpoint::on_vector(u8 first, u8 last, u8 sources) {
  return {.kind = BreakpointKind::Vector, .address = first, .length = last >= first ? last - first + 1u : 1u,
          .sources = sources};
}

Breakpoint Breakpoint::on_segment_load(u8 reg) { return {.kind = BreakpointKind::SegmentLoad, .reg = reg}; }

Breakpoint Breakpoint::on_selector(u16 selector, u16 mask) {
  return {.kind = BreakpointKind::Selector, .selector = selector, .selector_mask = mask};
}

Breakpoint Breakpoint::on_locked(AccessKind kind) { return {.kind = BreakpointKind::LockedAccess, .access = kind}; }

Breakpoint Breakpoint::on_descriptor_write(DescriptorTable table, std::optional<u16> entry) {
  return {.kind = BreakpointKind::DescriptorWrite, .table = table, .entry = entry};
}

Breakpoint Breakpoint::on_port(u16 first, u16 last, WatchAccess access) {
  return {.kind = BreakpointKind::IoPort, .address = first, .length = last >= first ? last - first + 1u : 1u,
          .watch = access};
}

Breakpoint Breakpoint::watch_range(u32 address, u32 length, WatchAccess access, bool physical) {
  return {.kind = BreakpointKind::Watch, .address = address, .length = std::max<u32>(length, 1), .watch = access,
          .physical = physical};
}

std::string Breakpoint::describe() const {
  static constexpr const char* kAccess[] = {"", "read", "write", "access"};
  static constexpr const char* kTables[] = {"gdt", "ldt", "idt"};
  static constexpr const char* kRegisters[] = {"es", "cs", "ss", "ds", "fs", "gs", "ldtr", "tr"};
  std::string text = std::to_string(id) + ": ";
  switch (kind) {
    case BreakpointKind::Linear: text += "break at linear " + hex(address, 8); break;
    case BreakpointKind::CsEip: text += "break at " + hex(selector, 4) + ":" + hex(address, 8); break;
    case BreakpointKind::Vector:
      text += "break on vector " + std::to_string(address);
      if (length > 1) text += "-" + std::to_string(address + length - 1);
      break;
    case BreakpointKind::SegmentLoad: text += std::string("break on load of ") + kRegisters[reg & 7]; break;
    case BreakpointKind::Selector: text += "break on load of selector " + hex(selector, 4) + "&" + hex(selector_mask, 4); break;
    case BreakpointKind::LockedAccess: text += "break on lock " + std::string(name_of(access)); break;
    case BreakpointKind::DescriptorWrite:
      text += std::string("break on write to ") + kTables[static_cast<u8>(table)];
      if (entry) text += " entry " + std::to_string(*entry);
      text += " (its physical bytes, through any linear alias)";
      break;
    case BreakpointKind::IoPort:
      text += std::string("break on io ") + kAccess[static_cast<u8>(watch)] + " port " + hex(address, 4);
      if (length > 1) text += "-" + hex(address + length - 1, 4);
      break;
    case BreakpointKind::Watch:
      text += std::string("watch ") + kAccess[static_cast<u8>(watch)] + (physical ? " physical " : " linear ") +
              hex(address, 8) + "+" + std::to_string(length);
      break;
  }
  for (std::size_t i = 0; i < condition.size(); ++i) {
    const RegisterCondition& c = condition[i];
    static constexpr const char* kOps[] = {"==", "!=", "<", "<=", ">", ">="};
    text += i == 0 ? " if " : " && ";
    text += kConditionRegisterNames[static_cast<u8>(c.reg)];
    if (c.mask != 0xFFFFFFFFu) text += "&0x" + hex(c.mask, 1);
    text += std::string(kOps[static_cast<u8>(c.op)]) + "0x" + hex(c.value, 1);
  }
  if (!enabled) text += " (disabled)";
  if (temporary) text += " (temporary)";
  text += " (hits " + std::to_string(hits) + ")";
  return text;
}

u32 Breakpoints::add(Breakpoint breakpoint) {
  breakpoint.id = next_id_++;
  breakpoint.hits = 0;
  list_.push_back(std::move(breakpoint));
  return list_.back().id;
}

bool Breakpoints::remove(u32 id) {
  const auto it = std::find_if(list_.begin(), list_.end(), [id](const Breakpoint& b) { return b.id == id; });
  if (it == list_.end()) return false;
  list_.erase(it);
  return true;
}

bool Breakpoints::remove_code(u32 linear) {
  const auto it = std::find_if(list_.begin(), list_.end(), [linear](const Breakpoint& b) {
    return b.kind == BreakpointKind::Linear && b.address == linear && !b.temporary;
  });
  if (it == list_.end()) return false;
  list_.erase(it);
  return true;
}

bool Breakpoints::remove_watch(u32 address, u32 length, WatchAccess access, bool physical) {
  const auto it = std::find_if(list_.begin(), list_.end(), [&](const Breakpoint& b) {
    return b.kind == BreakpointKind::Watch && b.address == address && b.length == std::max<u32>(length, 1) &&
           b.watch == access && b.physical == physical;
  });
  if (it == list_.end()) return false;
  list_.erase(it);
  return true;
}

const Breakpoint* Breakpoints::find(u32 id) const {
  const auto it = std::find_if(list_.begin(), list_.end(), [id](const Breakpoint& b) { return b.id == id; });
  return it == list_.end() ? nullptr : &*it;
}

bool Breakpoints::set_enabled(u32 id, bool enabled) {
  const Breakpoint* b = find(id);
  if (!b) return false;
  const_cast<Breakpoint*>(b)->enabled = enabled;
  return true;
}

bool Breakpoints::set_condition(u32 id, std::vector<RegisterCondition> condition) {
  const Breakpoint* b = find(id);
  if (!b) return false;
  const_cast<Breakpoint*>(b)->condition = std::move(condition);
  return true;
}

bool Breakpoints::has_code() const {
  return std::any_of(list_.begin(), list_.end(), [](const Breakpoint& b) { return b.enabled && b.is_code(); });
}

bool Breakpoints::has_events() const {
  return std::any_of(list_.begin(), list_.end(), [](const Breakpoint& b) { return b.enabled && !b.is_code(); });
}

bool Breakpoints::has_counted() const {
  return std::any_of(list_.begin(), list_.end(), [](const Breakpoint& b) {
    return b.enabled && (b.kind == BreakpointKind::SegmentLoad || b.kind == BreakpointKind::Selector ||
                         b.kind == BreakpointKind::LockedAccess);
  });
}

std::optional<BreakpointHit> Breakpoints::take(Breakpoint& breakpoint, const CpuState& state, BreakpointHit hit) {
  for (const RegisterCondition& term : breakpoint.condition)
    if (!term.holds(state)) return std::nullopt;
  ++breakpoint.hits;
  hit.id = breakpoint.id;
  hit.kind = breakpoint.kind;
  if (breakpoint.temporary) remove(breakpoint.id);
  return hit;
}

std::optional<BreakpointHit> Breakpoints::match_code(const CpuState& state) {
  const u16 cs = state.segments[CS].selector;
  const u32 linear = state.segments[CS].cache.base + state.eip;
  for (Breakpoint& b : list_) {
    if (!b.enabled) continue;
    const bool at = (b.kind == BreakpointKind::Linear && b.address == linear) ||
                    (b.kind == BreakpointKind::CsEip && b.selector == cs && b.address == state.eip);
    if (!at) continue;
    BreakpointHit hit;
    hit.cs = cs;
    hit.eip = state.eip;
    hit.address = linear;
    if (auto taken = take(b, state, hit)) return taken;
  }
  return std::nullopt;
}

std::optional<BreakpointHit> Breakpoints::match_event(const Event& event, const CpuState& state, const Mmu* mmu) {
  BreakpointHit hit;
  hit.cs = state.segments[CS].selector;
  hit.eip = state.eip;
  const bool write = event.flags & kEventWrite;
  // A locked read-modify-write both reads and writes.
  const u8 access = event.kind == EventKind::MemoryAccess && (event.flags & kEventLocked) ? 3 : (write ? 2 : 1);
  for (Breakpoint& b : list_) {
    if (!b.enabled) continue;
    bool matches = false;
    switch (b.kind) {
      case BreakpointKind::Vector:
        matches = event.kind == EventKind::Exception && !(event.flags & kEventShutdown) &&
                  event.detail >= b.address && event.detail < b.address + b.length &&
                  (b.sources & (1u << event.size));
        if (matches) {
          hit.address = event.detail;
          hit.value = event.a;
          hit.has_error_code = event.flags & kEventHasErrorCode;
          hit.cs = static_cast<u16>(event.b);
          hit.eip = event.c;
        }
        break;
      case BreakpointKind::SegmentLoad:
      case BreakpointKind::Selector:
        // ES-GS are matched by match_counts in every mode; the event adds LDTR and TR.
        matches = event.kind == EventKind::SegmentLoad && event.detail >= 6 &&
                  (b.kind == BreakpointKind::SegmentLoad ? b.reg == event.detail
                                                         : (event.a & b.selector_mask) == (b.selector & b.selector_mask));
        hit.address = event.a;
        hit.reg = event.detail;
        break;
      case BreakpointKind::DescriptorWrite: {
        if (event.kind != EventKind::MemoryAccess || !write) break;
        u32 base = state.gdtr.base, limit = state.gdtr.limit;
        if (b.table == DescriptorTable::Idt) base = state.idtr.base, limit = state.idtr.limit;
        if (b.table == DescriptorTable::Ldt) base = state.ldtr.cache.base, limit = state.ldtr.cache.limit;
        if (b.table == DescriptorTable::Ldt && (state.ldtr.selector & 0xFFFC) == 0) break;
        const u32 first = b.entry ? base + 8u * *b.entry : base;
        const u32 size = b.entry ? 8u : limit + 1u;
        matches = writes_range(event, first, size, mmu);
        break;
      }
      case BreakpointKind::IoPort:
        matches = event.kind == EventKind::Io && (static_cast<u8>(b.watch) & (write ? 2 : 1)) &&
                  overlaps(event.a, event.size, b.address, b.length);
        hit.address = event.a;
        break;
      case BreakpointKind::Watch:
        matches = event.kind == EventKind::MemoryAccess && (static_cast<u8>(b.watch) & access) &&
                  overlaps(b.physical ? event.b : event.a, event.size, b.address, b.length);
        break;
      default: break;
    }
    if (!matches) continue;
    if (event.kind == EventKind::MemoryAccess || event.kind == EventKind::Io) {
      if (event.kind == EventKind::MemoryAccess) {
        hit.address = event.a;
        hit.physical = event.b;
        hit.access = static_cast<AccessKind>(event.detail);
      }
      hit.size = event.size;
      hit.write = write;
      hit.value = event.value;
    }
    if (auto taken = take(b, state, hit)) return taken;
  }
  return std::nullopt;
}

std::optional<BreakpointHit> Breakpoints::match_counts(const CountSnapshot& before, const CountSnapshot& now,
                                                       const CpuState& state) {
  for (Breakpoint& b : list_) {
    if (!b.enabled) continue;
    BreakpointHit hit;
    hit.cs = state.segments[CS].selector;
    hit.eip = state.eip;
    bool matches = false;
    if (b.kind == BreakpointKind::LockedAccess) {
      const auto k = static_cast<std::size_t>(b.access);
      matches = now.locked[k] != before.locked[k];
      hit.access = b.access;
      hit.value = now.locked[k] - before.locked[k];
    } else if (b.kind == BreakpointKind::SegmentLoad || b.kind == BreakpointKind::Selector) {
      for (u8 r = 0; r < 6 && !matches; ++r) {
        if (now.segment_loads[r] == before.segment_loads[r]) continue;
        const u16 selector = state.segments[r].selector;
        matches = b.kind == BreakpointKind::SegmentLoad ? b.reg == r
                                                        : (selector & b.selector_mask) == (b.selector & b.selector_mask);
        hit.reg = r;
        hit.address = selector;
      }
    }
    if (!matches) continue;
    if (auto taken = take(b, state, hit)) return taken;
  }
  return std::nullopt;
}

}  // namespace x86lab
