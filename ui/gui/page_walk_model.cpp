// Side-effect-free page walk for the Page walk window (32-bit paging with PSE).
#include "ui/gui/page_walk_model.h"

#include <array>
#include <optional>
#include <string>
#include <utility>

namespace x86lab::gui {

namespace {
u32 peek32(const PhysicalBus& bus, u32 address) {
  u32 value = 0;
  for (unsigned i = 0; i < 4; ++i) value |= u32{bus.peek(address + i)} << (8 * i);
  return value;
}
}  // namespace

std::string page_entry_flags(u32 entry, bool directory) {
  // Bit layout (PDE and PTE): 0 P, 1 R/W, 2 U/S, 3 PWT, 4 PCD, 5 A, 6 D, 7 PS (PDE) / PAT, 8 G.
  const bool large = directory && (entry & 0x80);
  std::string text;
  auto add = [&](u32 bit, std::string_view name) {
    if (!(entry & (1u << bit))) return;
    if (!text.empty()) text += ' ';
    text += name;
  };
  add(8, "G");
  if (directory) add(7, "PS");
  if (!directory || large) add(6, "D");
  add(5, "A");
  add(4, "PCD");
  add(3, "PWT");
  add(2, "U");
  add(1, "W");
  add(0, "P");
  return text;
}

PageWalkView walk_page_tables(const Mmu& mmu, const PhysicalBus& bus, u32 linear) {
  PageWalkView view;
  view.linear = linear;
  const PagingControl& control = mmu.control();
  view.paging = control.pg;
  view.tlb_physical = mmu.debug_translate(linear);
  if (!control.pg) {
    view.physical = linear;
    view.outcome = "paging off: physical = linear";
    view.user = view.writable = true;
    return view;
  }
  // Reads entry `index` of the table whose entries are at physical `table` (4 bytes
  // each) into view.levels; empty, with the outcome set, when its P bit is clear.
  const auto read_level = [&](std::string_view level, u32 index, u32 table, bool directory) -> std::optional<u32> {
    const u32 entry = peek32(bus, table + index * 4);
    view.levels.push_back({level, index, table + index * 4, entry, page_entry_flags(entry, directory)});
    if (entry & 1) return entry;
    view.outcome = "not present at " + std::string(level);
    return std::nullopt;
  };
  const std::optional<u32> pde = read_level("PDE", linear >> 22, control.cr3 & 0xFFFFF000u, true);
  if (!pde) return view;
  view.user = *pde & 4;
  view.writable = *pde & 2;
  if (control.pse && (*pde & 0x80)) {
    view.physical = (*pde & 0xFFC00000u) | (linear & 0x3FFFFF);
    view.outcome = "4 MiB page";
    return view;
  }
  const std::optional<u32> pte = read_level("PTE", (linear >> 12) & 0x3FF, *pde & 0xFFFFF000u, false);
  if (!pte) return view;
  view.user = view.user && (*pte & 4);
  view.writable = view.writable && (*pte & 2);
  view.physical = (*pte & 0xFFFFF000u) | (linear & 0xFFF);
  view.outcome = "4 KiB page";
  return view;
}

}  // namespace x86lab::gui
