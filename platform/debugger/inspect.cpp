// Text views of segment registers, descriptor tables, the TSS and memory (inspect.h).
#include "platform/debugger/inspect.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "platform/debugger/text_format.h"
#include "segmentation/descriptor.h"

namespace x86lab {

namespace {

std::string cache_line(const char* name, const SegmentRegister& reg) {
  const DescriptorCache& c = reg.cache;
  return format("%-4s %04X base=%08X limit=%08X type=%X s=%d dpl=%u p=%d db=%d g=%d%s\n", name, reg.selector, c.base,
                c.limit, c.type, c.s, c.dpl, c.present, c.db, c.g, c.usable ? "" : " unusable");
}

const char* system_type_name(u8 type) {
  static constexpr const char* kNames[16] = {"reserved",     "tss16-available", "ldt",        "tss16-busy",
                                             "call-gate16",  "task-gate",       "int-gate16", "trap-gate16",
                                             "reserved",     "tss32-available", "reserved",   "tss32-busy",
                                             "call-gate32",  "reserved",        "int-gate32", "trap-gate32"};
  return kNames[type & 15];
}

std::optional<u64> read_u64(const Debugger& debugger, u32 linear) {
  std::array<u8, 8> bytes{};
  if (debugger.read_linear(linear, bytes) != bytes.size()) return std::nullopt;
  u64 value = 0;
  for (unsigned i = 0; i < 8; ++i) value |= u64{bytes[i]} << (8 * i);
  return value;
}

std::string descriptor_line(u32 index, u64 raw) {
  const Descriptor d = Descriptor::parse(raw);
  std::string line = format("%4u %04X %016llX ", index, index * 8, static_cast<unsigned long long>(raw));
  if (!d.present && raw == 0) return line + "null\n";
  if (d.s) {
    line += format("%s base=%08X limit=%08X type=%X dpl=%u p=%d db=%d g=%d%s", d.is_code() ? "code" : "data", d.base,
                   d.limit(), d.type, d.dpl, d.present, d.db, d.g, d.accessed() ? " accessed" : "");
  } else if (d.type == 4 || d.type == 5 || d.type == 6 || d.type == 7 || d.type == 12 || d.type == 14 || d.type == 15) {
    line += format("%s selector=%04X offset=%08X dpl=%u p=%d", system_type_name(d.type), d.gate_selector(),
                   d.type == 5 ? 0u : d.gate_offset(), d.dpl, d.present);
  } else {
    line += format("%s base=%08X limit=%08X dpl=%u p=%d", system_type_name(d.type), d.base, d.limit(), d.dpl, d.present);
  }
  return line + "\n";
}

}  // namespace

std::string describe_segments(const CpuState& state) {
  std::string text;
  for (u8 r = 0; r < 6; ++r) text += cache_line(kSegmentNames[r], state.segments[r]);
  text += cache_line("ldtr", state.ldtr);
  text += cache_line("tr", state.tr);
  text += format("gdtr base=%08X limit=%04X\nidtr base=%08X limit=%04X\ncpl  %u\n", state.gdtr.base, state.gdtr.limit,
                 state.idtr.base, state.idtr.limit, state.cpl);
  return text;
}

std::string describe_table(const Debugger& debugger, DescriptorTable table, u32 first, u32 max_entries) {
  const CpuState& state = debugger.machine().cpu.state;
  u32 base = state.gdtr.base, limit = state.gdtr.limit;
  const char* name = "gdt";
  if (table == DescriptorTable::Idt) base = state.idtr.base, limit = state.idtr.limit, name = "idt";
  if (table == DescriptorTable::Ldt) base = state.ldtr.cache.base, limit = state.ldtr.cache.limit, name = "ldt";
  std::string text = format("%s base=%08X limit=%04X\n", name, base, limit);
  if (table == DescriptorTable::Ldt && (state.ldtr.selector & 0xFFFC) == 0) return text + "no LDT (LDTR is null)\n";
  if (table == DescriptorTable::Idt && !(state.cr0 & cr0::PE)) {
    // Real mode: the IDTR points at the interrupt vector table of 4-byte segment:offset entries.
    const u64 end = std::min<u64>(u64{first} + max_entries, 256);  // 256 vectors
    for (u64 v = first; v < end && v * 4 + 3 <= limit; ++v) {
      std::array<u8, 4> bytes{};
      if (debugger.read_linear(base + static_cast<u32>(v) * 4, bytes) != 4) break;
      text += format("%4u %04X:%04X\n", static_cast<u32>(v), bytes[2] | bytes[3] << 8, bytes[0] | bytes[1] << 8);
    }
    return text;
  }
  // The IDT has at most 256 gates, whatever its limit; a count may run past 2^32.
  const u64 end = std::min<u64>(u64{first} + max_entries, table == DescriptorTable::Idt ? 256 : UINT64_MAX);
  if (first >= end || u64{first} * 8 + 7 > limit)
    return text + format("entry %u is beyond the table (limit %04X%s)\n", first, limit,
                         table == DescriptorTable::Idt ? ", 256 vectors" : "");
  for (u64 i = first; i < end && i * 8 + 7 <= limit; ++i) {
    const u32 entry = static_cast<u32>(i);
    const auto raw = read_u64(debugger, base + entry * 8);
    text += raw ? descriptor_line(entry, *raw) : format("%4u %04X not mapped\n", entry, entry * 8);
  }
  return text;
}

std::string describe_tss(const Debugger& debugger) {
  const SegmentRegister& tr = debugger.machine().cpu.state.tr;
  std::string text = format("tr %04X base=%08X limit=%08X type=%X (%s)\n", tr.selector, tr.cache.base, tr.cache.limit,
                            tr.cache.type, system_type_name(tr.cache.type));
  const bool tss32 = tr.cache.type & 8;
  std::array<u8, 104> bytes{};
  const std::size_t size = tss32 ? 104 : 44;
  if (debugger.read_linear(tr.cache.base, std::span(bytes.data(), size)) != size) return text + "TSS not mapped\n";
  auto u16_at = [&](unsigned at) { return static_cast<u32>(bytes[at] | bytes[at + 1] << 8); };
  auto u32_at = [&](unsigned at) { return u16_at(at) | u16_at(at + 2) << 16; };
  if (!tss32) {
    text += format("link=%04X sp0=%04X:%04X sp1=%04X:%04X sp2=%04X:%04X ip=%04X flags=%04X\n", u16_at(0), u16_at(4),
                   u16_at(2), u16_at(8), u16_at(6), u16_at(12), u16_at(10), u16_at(14), u16_at(16));
    text += format("ax=%04X cx=%04X dx=%04X bx=%04X sp=%04X bp=%04X si=%04X di=%04X\n", u16_at(18), u16_at(20),
                   u16_at(22), u16_at(24), u16_at(26), u16_at(28), u16_at(30), u16_at(32));
    return text + format("es=%04X cs=%04X ss=%04X ds=%04X ldt=%04X\n", u16_at(34), u16_at(36), u16_at(38), u16_at(40),
                         u16_at(42));
  }
  text += format("link=%04X esp0=%04X:%08X esp1=%04X:%08X esp2=%04X:%08X\n", u16_at(0), u16_at(8), u32_at(4),
                 u16_at(16), u32_at(12), u16_at(24), u32_at(20));
  text += format("cr3=%08X eip=%08X eflags=%08X\n", u32_at(28), u32_at(32), u32_at(36));
  text += format("eax=%08X ecx=%08X edx=%08X ebx=%08X esp=%08X ebp=%08X esi=%08X edi=%08X\n", u32_at(40),
                 u32_at(44), u32_at(48), u32_at(52), u32_at(56), u32_at(60), u32_at(64), u32_at(68));
  text += format("es=%04X cs=%04X ss=%04X ds=%04X fs=%04X gs=%04X ldt=%04X t=%u iomap=%04X\n", u16_at(72), u16_at(76),
                 u16_at(80), u16_at(84), u16_at(88), u16_at(92), u16_at(96), u16_at(100) & 1, u16_at(102));
  return text;
}

std::string describe_physical(const Debugger& debugger, u32 address, u32 requested) {
  // At most 4096 bytes, and none past FFFFFFFFh (no wrap to address 0).
  const u32 length = static_cast<u32>(std::min<u64>({requested, 4096, (u64{1} << 32) - address}));
  std::string text;
  std::array<u8, 16> line{};
  for (u32 offset = 0; offset < length; offset += 16) {
    const u32 count = std::min<u32>(16, length - offset);
    debugger.read_physical(address + offset, std::span(line.data(), count));
    text += format("%08X:", address + offset);
    for (u32 i = 0; i < count; ++i) text += format(" %02X", line[i]);
    text += "\n";
  }
  if (length < requested)
    text += format("(%u of the %u bytes asked for: at most 4096, none past FFFFFFFFh)\n", length, requested);
  return text;
}

}  // namespace x86lab
