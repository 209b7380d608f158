// Registers, memory dumps and page mappings as text (see inspect_memory.h).
#include "platform/debugger/inspect_memory.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

#include "platform/debugger/text_format.h"

namespace x86lab {

namespace {

constexpr const char* kSegmentLabels[] = {"ES", "CS", "SS", "DS", "FS", "GS"};

// EFLAGS bits by name (SDM Vol. 1 "EFLAGS Register"), in bit order.
constexpr std::pair<u32, const char*> kFlags[] = {
    {1u << 0, "CF"},  {1u << 2, "PF"},  {1u << 4, "AF"},  {1u << 6, "ZF"},  {1u << 7, "SF"},
    {1u << 8, "TF"},  {1u << 9, "IF"},  {1u << 10, "DF"}, {1u << 11, "OF"}, {1u << 14, "NT"},
    {1u << 16, "RF"}, {1u << 17, "VM"}, {1u << 18, "AC"}, {1u << 19, "VIF"}, {1u << 20, "VIP"},
    {1u << 21, "ID"}};

// 32-bit paging entry bits (SDM Vol. 3 "Paging", "32-Bit Paging": Tables
// "Format of a 32-Bit Page-Directory Entry" and "... Page-Table Entry").
constexpr u32 kPresent = 1u << 0, kWritable = 1u << 1, kUser = 1u << 2, kWriteThrough = 1u << 3,
              kCacheDisable = 1u << 4, kAccessed = 1u << 5, kDirty = 1u << 6, kPageSize = 1u << 7,
              kGlobal = 1u << 8;

u32 peek32(const Debugger& debugger, u32 physical) {
  std::array<u8, 4> bytes{};
  debugger.read_physical(physical, bytes);
  return u32{bytes[0]} | u32{bytes[1]} << 8 | u32{bytes[2]} << 16 | u32{bytes[3]} << 24;
}

// One present mapping: linear page, physical frame, bytes, and the rights and flags
// combined over the directory and table entries (U and W need both; SDM "Access Rights").
struct Mapping {
  u32 linear = 0, physical = 0;
  u64 bytes = 0;  // 4096 or 4 MiB (info mem: the range's length, up to 4 GiB)
  u32 flags = 0;  // the leaf entry's flags, with U and W as the combination
};

// Calls `each(mapping)` for every present mapping at or above linear `first`, in linear
// order, until it returns false.
template <class Each>
void for_each_mapping(const Debugger& debugger, u32 first, Each each) {
  const CpuState& state = debugger.machine().cpu.state;
  const u32 directory = state.cr3 & 0xFFFFF000u;
  const bool pse = state.cr4 & cr4::PSE;
  for (u32 i = first >> 22; i < 1024; ++i) {
    const u32 pde = peek32(debugger, directory + i * 4);
    if (!(pde & kPresent)) continue;
    const u32 linear = i << 22;
    if (pse && (pde & kPageSize)) {
      if (!each(Mapping{linear, pde & 0xFFC00000u, 4u << 20, pde})) return;
      continue;
    }
    const u32 table = pde & 0xFFFFF000u;
    for (u32 j = i == first >> 22 ? (first >> 12) & 0x3FF : 0; j < 1024; ++j) {
      const u32 pte = peek32(debugger, table + j * 4);
      if (!(pte & kPresent)) continue;
      const u32 rights = pde & pte & (kUser | kWritable);
      if (!each(Mapping{linear | j << 12, pte & 0xFFFFF000u, 4096, (pte & ~(kUser | kWritable)) | rights})) return;
    }
  }
}

std::string flag_letters(u32 flags, bool large) {
  std::string text;
  text += flags & kGlobal ? 'G' : '-';
  text += large ? 'S' : '-';
  text += flags & kDirty ? 'D' : '-';
  text += flags & kAccessed ? 'A' : '-';
  text += flags & kCacheDisable ? 'C' : '-';
  text += flags & kWriteThrough ? 'T' : '-';
  text += flags & kUser ? 'U' : '-';
  text += flags & kWritable ? 'W' : '-';
  return text;
}

std::string unit_text(u64 value, const MemoryFormat& f) {
  switch (f.format) {
    case 'd': {
      const unsigned shift = 64 - 8 * f.size;
      return format("%lld", static_cast<long long>(static_cast<i64>(value << shift) >> shift));
    }
    case 'u': return format("%llu", static_cast<unsigned long long>(value));
    case 'o': return format("0%llo", static_cast<unsigned long long>(value));
    case 'c': return value >= 0x20 && value < 0x7F ? format("'%c'", static_cast<char>(value)) : format("'\\x%02X'", static_cast<unsigned>(value));
    default: return format("0x%0*llX", 2 * f.size, static_cast<unsigned long long>(value));
  }
}

}  // namespace

std::string describe_registers(const CpuState& s) {
  std::string text = format("EAX=%08X EBX=%08X ECX=%08X EDX=%08X\nESI=%08X EDI=%08X EBP=%08X ESP=%08X\n", s.gpr[EAX],
                            s.gpr[EBX], s.gpr[ECX], s.gpr[EDX], s.gpr[ESI], s.gpr[EDI], s.gpr[EBP], s.gpr[ESP]);
  text += format("EIP=%08X EFL=%08X [", s.eip, s.eflags);
  bool any = false;
  for (const auto& [bit, name] : kFlags)
    if (s.eflags & bit) {
      if (any) text += ' ';
      text += name;
      any = true;
    }
  text += format("] IOPL=%u CPL=%u\n", (s.eflags >> 12) & 3, s.cpl);
  for (u8 r = 0; r < 6; ++r)
    text += format("%s =%04X %08X %08X\n", kSegmentLabels[r], s.segments[r].selector, s.segments[r].cache.base,
                   s.segments[r].cache.limit);
  text += format("LDT=%04X %08X %08X\nTR =%04X %08X %08X\n", s.ldtr.selector, s.ldtr.cache.base, s.ldtr.cache.limit,
                 s.tr.selector, s.tr.cache.base, s.tr.cache.limit);
  text += format("GDT=     %08X %08X\nIDT=     %08X %08X\n", s.gdtr.base, s.gdtr.limit, s.idtr.base, s.idtr.limit);
  text += format("CR0=%08X CR2=%08X CR3=%08X CR4=%08X\n", s.cr0, s.cr2, s.cr3, s.cr4);
  return text;
}

MemoryFormat parse_memory_format(const std::string& text) {
  MemoryFormat f;
  if (text.empty()) return f;
  if (text[0] != '/') throw std::invalid_argument("the format starts with '/' (x/10xw ADDR), not '" + text + "'");
  std::size_t at = 1;
  if (at < text.size() && text[at] >= '0' && text[at] <= '9') {
    u64 count = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') count = std::min<u64>(count * 10 + (text[at++] - '0'), 1u << 20);
    if (count == 0) throw std::invalid_argument("the count in '" + text + "' must be 1 or more");
    f.count = static_cast<u32>(count);
  }
  for (; at < text.size(); ++at) {
    switch (const char c = text[at]) {
      case 'x': case 'd': case 'u': case 'o': f.format = c; break;
      case 'c': f.format = 'c'; break;
      case 'b': f.size = 1; break;
      case 'h': f.size = 2; break;
      case 'w': f.size = 4; break;
      case 'g': f.size = 8; break;
      default: throw std::invalid_argument(std::string("unknown format letter '") + c + "' (x d u o c, sizes b h w g)");
    }
  }
  if (f.format == 'c') f.size = 1;
  return f;
}

std::string describe_memory(const Debugger& debugger, u32 address, const MemoryFormat& f, bool physical) {
  const u64 wanted = u64{f.count} * f.size;
  const u32 length = static_cast<u32>(std::min<u64>({wanted, 4096, (u64{1} << 32) - address}));
  std::vector<u8> bytes(length);
  std::size_t got = length;
  if (physical) debugger.read_physical(address, bytes);
  else got = debugger.read_linear(address, bytes);
  const u32 per_line = f.format == 'c' ? 8 : 16;
  std::string text;
  u32 shown = 0;
  for (u32 offset = 0; offset + f.size <= got; offset += f.size, ++shown) {
    if (offset % per_line == 0) text += format("%s%08X:", offset ? "\n" : "", address + offset);
    u64 value = 0;
    for (u32 i = 0; i < f.size; ++i) value |= u64{bytes[offset + i]} << (8 * i);
    text += ' ';
    text += unit_text(value, f);
  }
  if (shown) text += "\n";
  if (got < length)
    text += format("%08X: (linear page not present: nothing mapped there)\n", address + static_cast<u32>(got));
  else if (shown < f.count)
    text += format("(%u of the %u units asked for: at most 4096 bytes, none past FFFFFFFFh)\n", shown, f.count);
  return text;
}

std::string describe_page_mappings(const Debugger& debugger, bool ranges, u32 first, u32 max_lines) {
  const CpuState& state = debugger.machine().cpu.state;
  if (!(state.cr0 & cr0::PG)) return "paging is off (CR0.PG=0): linear addresses are physical\n";
  std::string text;
  u32 lines = 0;
  bool cut = false;
  if (!ranges) {
    for_each_mapping(debugger, first, [&](const Mapping& m) {
      if (lines == max_lines) return !(cut = true);
      text += format("%08X: %08X %s\n", m.linear, m.physical, flag_letters(m.flags, m.bytes > 4096).c_str());
      ++lines;
      return true;
    });
    if (cut) text += format("(the first %u mappings: info tlb ADDR [COUNT] shows more)\n", max_lines);
    return text.empty() ? std::string("no page is present\n") : text;
  }
  // Ranges: adjacent linear pages with the same U and W rights.
  std::optional<Mapping> open;  // bytes = the range's length so far
  auto close = [&] {
    if (!open) return;
    text += format("%08X-%08llX %08llX %c%c%c\n", open->linear, static_cast<unsigned long long>(u64{open->linear} + open->bytes),
                   static_cast<unsigned long long>(open->bytes), open->flags & kUser ? 'u' : '-', 'r', open->flags & kWritable ? 'w' : '-');
    open.reset();
  };
  for_each_mapping(debugger, first, [&](const Mapping& m) {
    const u32 rights = m.flags & (kUser | kWritable);
    if (open && u64{open->linear} + open->bytes == m.linear && (open->flags & (kUser | kWritable)) == rights) {
      open->bytes += m.bytes;
      return true;
    }
    close();
    if (lines == max_lines) return !(cut = true);
    ++lines;
    open = Mapping{m.linear, m.physical, m.bytes, rights};
    return true;
  });
  close();
  if (cut) text += format("(the first %u ranges: info mem ADDR [COUNT] shows more)\n", max_lines);
  return text.empty() ? std::string("no page is present\n") : text;
}

}  // namespace x86lab
