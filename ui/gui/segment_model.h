// What the Segments window shows for CS DS ES FS GS SS LDTR TR: the selector decoded
// as index/TI/RPL, the hidden descriptor cache beside the descriptor table entry the
// selector names now, and which cached fields no longer match that entry ("stale").
// Editing a descriptor changes nothing until the register is reloaded (Intel SDM
// Vol. 3, "Segment Registers": "the processor does not ... reload the hidden part");
// this is what the window makes visible.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpu/cpu_state.h"
#include "mmu/paging.h"

namespace x86lab::gui {

// Where the comparison value of a register's cache comes from.
enum class SegmentSource : u8 {
  Table,          // the GDT/LDT entry the selector names (protected mode)
  RealMode,       // real-address or virtual-8086 mode: base = selector * 16, limit FFFFh
  NullSelector,   // a null selector: there is no entry; the cache is unusable
  OutsideTable,   // the selector's index is beyond the table's limit (or the LDT is unusable)
  NotMapped,      // the entry's linear address is not mapped by the page tables
};

struct SegmentInspection {
  std::string_view name;  // "CS", "DS", ..., "LDTR", "TR"
  u16 selector = 0;
  u16 index = 0;
  bool ti = false;        // 1 = LDT
  u8 rpl = 0;
  DescriptorCache cache;
  SegmentSource source = SegmentSource::Table;
  std::optional<Descriptor> entry;  // the table entry now (Table), or the real-mode form (RealMode)
  u32 entry_linear = 0;             // linear address of the entry (Table)
  std::vector<std::string_view> differing;  // cache fields that differ: base limit type S DPL D/B G P A
  bool virtual_8086 = false;        // RealMode because EFLAGS.VM = 1 (not CR0.PE = 0)
  // True when the cache no longer matches what a reload would give.
  bool stale() const { return !differing.empty() || source == SegmentSource::OutsideTable; }
};

// The fields of `cache` that differ from `entry`, named as in the window: "base",
// "limit" (byte-granular), "type" (without A), "S", "DPL", "D/B", "G", "P", "A".
std::vector<std::string_view> differing_fields(const DescriptorCache& cache, const Descriptor& entry);

// One register: `ldt` is LDTR's cache (the LDT the CPU uses for TI = 1), `gdtr` the
// GDT; `protected_mode` means CR0.PE = 1 and EFLAGS.VM = 0; `system` is true for LDTR
// and TR (their selectors always index the GDT).
SegmentInspection inspect_segment(const Mmu& mmu, std::string_view name, const SegmentRegister& reg,
                                  const DescriptorTableRegister& gdtr, const SegmentRegister& ldtr,
                                  bool protected_mode, bool system);

// What the selector refers to, for the window: "7/GDT/3" (index/TI/RPL, SDM Vol. 3
// "Segment Selectors") where it indexes a table; "real mode" or "V86 mode" where it is a
// paragraph number (base = selector x 16, no table).
std::string selector_meaning(const SegmentInspection& row);

// CS DS ES FS GS SS LDTR TR, in that order.
std::vector<SegmentInspection> inspect_segments(const Mmu& mmu, const CpuState& state);

}  // namespace x86lab::gui
