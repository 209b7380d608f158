// Descriptor type names, summaries and table reading for the Descriptor tables and
// TSS windows. Names follow the SDM's tables "Code- and Data-Segment Types" and
// "System-Segment and Gate-Descriptor Types".
#include "ui/gui/descriptor_model.h"

#include <array>
#include <algorithm>
#include <cstdio>

namespace x86lab::gui {

namespace {
std::string hex(u32 value, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "%0*X", digits, value);
  return text;
}
}  // namespace

bool is_gate(const Descriptor& d) {
  if (d.s) return false;
  switch (static_cast<SystemType>(d.type)) {
    case SystemType::CallGate16: case SystemType::TaskGate: case SystemType::InterruptGate16:
    case SystemType::TrapGate16: case SystemType::CallGate32: case SystemType::InterruptGate32:
    case SystemType::TrapGate32:
      return true;
    default:
      return false;
  }
}

std::string descriptor_type_name(const Descriptor& d) {
  if (d.s) {
    // Type bits: 3 = code, 2 = expand-down (data) / conforming (code), 1 = write (data) / read (code).
    std::string name = d.is_code() ? (d.type & 2 ? "Code execute/read" : "Code execute-only")
                                   : (d.type & 2 ? "Data read/write" : "Data read-only");
    if (d.type & 4) name += d.is_code() ? " conforming" : " expand-down";
    return name;
  }
  static constexpr std::array<const char*, 16> kSystem = {
      nullptr,         "16-bit TSS",  "LDT",          "16-bit TSS",   "16-bit call gate",      "Task gate",
      "16-bit interrupt gate", "16-bit trap gate", nullptr, "32-bit TSS", nullptr, "32-bit TSS",
      "32-bit call gate", nullptr, "32-bit interrupt gate", "32-bit trap gate"};
  if (const char* name = kSystem[d.type & 15]) return name;
  return "Reserved (type " + std::to_string(d.type) + ")";
}

std::string descriptor_summary(const Descriptor& d) {
  const std::string dpl = "DPL " + std::to_string(d.dpl) + (d.present ? "" : " not present");
  if (is_gate(d)) {
    if (static_cast<SystemType>(d.type) == SystemType::TaskGate)
      return "-> TSS " + hex(d.gate_selector(), 4) + " " + dpl;
    std::string text = "-> " + hex(d.gate_selector(), 4) + ":" + hex(d.gate_offset(), 8) + " " + dpl;
    if (d.type == static_cast<u8>(SystemType::CallGate16) || d.type == static_cast<u8>(SystemType::CallGate32))
      text += " params " + std::to_string(d.gate_parameter_count());
    return text;
  }
  std::string text = "base " + hex(d.base, 8) + " limit " + hex(d.limit_raw, 5) + (d.g ? "*4K" : "") + " " + dpl;
  if (d.s) text += d.db ? " 32-bit" : " 16-bit";
  return text;
}

u32 table_entries(u32 limit, u32 max_entries) {
  return static_cast<u32>(std::min<u64>((u64{limit} + 1) / 8, max_entries));
}

namespace {
// The `sizeof(T)` bytes at `linear`, little-endian, read by peek; empty when one of
// them is not mapped.
template <class T>
std::optional<T> peek_little_endian(const Mmu& mmu, u32 linear) {
  u64 value = 0;
  for (unsigned i = 0; i < sizeof(T); ++i) {
    const auto byte = mmu.peek_linear(linear + i);
    if (!byte) return std::nullopt;
    value |= u64{*byte} << (8 * i);
  }
  return static_cast<T>(value);
}
}  // namespace

std::optional<u64> peek_u64(const Mmu& mmu, u32 linear) { return peek_little_endian<u64>(mmu, linear); }
std::optional<u32> peek_u32(const Mmu& mmu, u32 linear) { return peek_little_endian<u32>(mmu, linear); }
std::optional<u16> peek_u16(const Mmu& mmu, u32 linear) { return peek_little_endian<u16>(mmu, linear); }

DescriptorRow read_descriptor_row(const Mmu& mmu, u32 base, u32 index) {
  DescriptorRow row;
  row.index = index;
  row.linear = base + index * 8;
  const auto raw = peek_u64(mmu, row.linear);
  if (!raw) {
    row.type_name = "(not mapped)";
    return row;
  }
  row.mapped = true;
  row.raw = *raw;
  row.descriptor = Descriptor::parse(*raw);
  row.type_name = descriptor_type_name(row.descriptor);
  row.summary = descriptor_summary(row.descriptor);
  row.accessed = row.descriptor.accessed();
  row.busy = !row.descriptor.s && (row.descriptor.type == 3 || row.descriptor.type == 11);
  return row;
}

std::vector<DescriptorRow> read_descriptor_table(const Mmu& mmu, u32 base, u32 limit, u32 max_entries) {
  std::vector<DescriptorRow> rows;
  const u32 entries = table_entries(limit, max_entries);
  rows.reserve(entries);
  for (u32 i = 0; i < entries; ++i) rows.push_back(read_descriptor_row(mmu, base, i));
  return rows;
}

u32 ivt_entries(u32 limit) { return static_cast<u32>(std::min<u64>((u64{limit} + 1) / 4, 256)); }

IvtRow read_ivt_row(const Mmu& mmu, u32 base, u32 vector) {
  IvtRow row;
  row.vector = vector;
  row.linear = base + vector * 4;
  const auto raw = peek_u32(mmu, row.linear);
  if (!raw) return row;
  row.mapped = true;
  row.offset = static_cast<u16>(*raw);
  row.segment = static_cast<u16>(*raw >> 16);
  return row;
}

std::optional<TssFields> read_tss32(const Mmu& mmu, u32 base) {
  std::array<u32, 26> dwords{};
  for (unsigned i = 0; i < dwords.size(); ++i) {
    const auto value = peek_u32(mmu, base + i * 4);
    if (!value) return std::nullopt;
    dwords[i] = *value;
  }
  TssFields tss{};
  tss.previous_task_link = static_cast<u16>(dwords[0]);
  for (unsigned ring = 0; ring < 3; ++ring) {
    tss.esp[ring] = dwords[1 + ring * 2];
    tss.ss[ring] = static_cast<u16>(dwords[2 + ring * 2]);
  }
  tss.cr3 = dwords[7];
  tss.eip = dwords[8];
  tss.eflags = dwords[9];
  for (unsigned i = 0; i < 8; ++i) tss.gpr[i] = dwords[10 + i];
  for (unsigned i = 0; i < 6; ++i) tss.segments[i] = static_cast<u16>(dwords[18 + i]);
  tss.ldt = static_cast<u16>(dwords[24]);
  tss.t = dwords[25] & 1;
  tss.io_map_base = static_cast<u16>(dwords[25] >> 16);
  return tss;
}

}  // namespace x86lab::gui
