// Selector decoding and descriptor-cache staleness for the Segments window.
#include "ui/gui/segment_model.h"

#include <array>
#include <utility>

#include "ui/gui/descriptor_model.h"

namespace x86lab::gui {

std::vector<std::string_view> differing_fields(const DescriptorCache& cache, const Descriptor& entry) {
  std::vector<std::string_view> fields;
  if (cache.base != entry.base) fields.push_back("base");
  if (cache.limit != entry.limit()) fields.push_back("limit");
  // The Accessed bit is type bit 0 of code and data descriptors; system types use all four bits.
  const u8 type_mask = entry.s ? 0xE : 0xF;
  if ((cache.type & type_mask) != (entry.type & type_mask)) fields.push_back("type");
  if (cache.s != entry.s) fields.push_back("S");
  if (cache.dpl != entry.dpl) fields.push_back("DPL");
  if (cache.db != entry.db) fields.push_back("D/B");
  if (cache.g != entry.g) fields.push_back("G");
  if (cache.present != entry.present) fields.push_back("P");
  if (entry.s && (cache.type & 1) != (entry.type & 1)) fields.push_back("A");
  return fields;
}

SegmentInspection inspect_segment(const Mmu& mmu, std::string_view name, const SegmentRegister& reg,
                                  const DescriptorTableRegister& gdtr, const SegmentRegister& ldtr,
                                  bool protected_mode, bool system) {
  SegmentInspection row;
  const Selector selector{reg.selector};
  row.name = name;
  row.selector = reg.selector;
  row.index = selector.index();
  row.ti = selector.ti();
  row.rpl = selector.rpl();
  row.cache = reg.cache;
  if (!protected_mode && !system) {
    // Real-address and virtual-8086 mode: a reload sets base = selector * 16; the
    // limit and attributes are kept on P6 (QUIRK: "unreal mode"), so only the base
    // can be stale.
    row.source = SegmentSource::RealMode;
    Descriptor form = reg.cache.to_descriptor();
    form.base = u32{reg.selector} << 4;
    row.entry = form;
    if (reg.cache.base != form.base) row.differing.push_back("base");
    return row;
  }
  if (selector.null()) {
    row.source = SegmentSource::NullSelector;
    return row;
  }
  const bool in_ldt = selector.ti() && !system;
  const u32 table_base = in_ldt ? ldtr.cache.base : gdtr.base;
  const u32 table_limit = in_ldt ? ldtr.cache.limit : gdtr.limit;
  const u32 offset = u32{selector.index()} * 8;
  if ((in_ldt && !ldtr.cache.usable) || u64{offset} + 7 > table_limit) {
    row.source = SegmentSource::OutsideTable;
    return row;
  }
  row.entry_linear = table_base + offset;
  const auto raw = peek_u64(mmu, row.entry_linear);
  if (!raw) {
    row.source = SegmentSource::NotMapped;
    return row;
  }
  row.entry = Descriptor::parse(*raw);
  row.differing = differing_fields(reg.cache, *row.entry);
  return row;
}

std::string selector_meaning(const SegmentInspection& row) {
  if (row.source == SegmentSource::RealMode) return row.virtual_8086 ? "V86 mode" : "real mode";
  return std::to_string(row.index) + (row.ti ? "/LDT/" : "/GDT/") + std::to_string(row.rpl);
}

std::vector<SegmentInspection> inspect_segments(const Mmu& mmu, const CpuState& state) {
  const bool protected_mode = (state.cr0 & cr0::PE) && !(state.eflags & (1u << 17));
  static constexpr std::array<std::pair<std::string_view, u8>, 6> kOrder = {
      {{"CS", CS}, {"DS", DS}, {"ES", ES}, {"FS", FS}, {"GS", GS}, {"SS", SS}}};
  std::vector<SegmentInspection> rows;
  for (const auto& [name, index] : kOrder) {
    rows.push_back(inspect_segment(mmu, name, state.segments[index], state.gdtr, state.ldtr, protected_mode, false));
    rows.back().virtual_8086 = !protected_mode && (state.cr0 & cr0::PE);
  }
  const bool pe = state.cr0 & cr0::PE;
  rows.push_back(inspect_segment(mmu, "LDTR", state.ldtr, state.gdtr, state.ldtr, pe, true));
  rows.push_back(inspect_segment(mmu, "TR", state.tr, state.gdtr, state.ldtr, pe, true));
  return rows;
}

}  // namespace x86lab::gui
