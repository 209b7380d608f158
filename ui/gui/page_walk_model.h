// What the Page walk window shows: a linear address translated level by level through
// the page directory and page table as the CPU would walk them now, read by peek (no
// Accessed/Dirty bits set, no TLB fill), beside the TLB's current translation (Intel
// SDM Vol. 3, "32-Bit Paging": "Linear-Address Translation to a 4-KByte Page",
// "... to a 4-MByte Page", "Format of a 32-Bit Page-Directory Entry").
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "mmu/paging.h"

namespace x86lab::gui {

struct PageWalkLevel {
  std::string_view level;  // "PDE" or "PTE"
  u32 index = 0;           // 0-1023: linear bits 31:22 (PDE) or 21:12 (PTE)
  u32 entry_physical = 0;  // physical address of the entry
  u32 entry = 0;           // the entry's value
  std::string flags;       // set flags by name, highest first: "G PS D A U W P"
};

struct PageWalkView {
  u32 linear = 0;
  bool paging = false;                  // CR0.PG: without paging linear = physical
  std::vector<PageWalkLevel> levels;
  std::optional<u32> physical;          // the walk's result; empty when not present
  std::string outcome;                  // "4 KiB page", "4 MiB page", "not present at PDE", ...
  bool user = false, writable = false;  // rights of the whole walk (U/S and R/W of every level)
  std::optional<u32> tlb_physical;      // what the CPU uses now (TLB entry if cached, else the walk)
};

// Names of the set bits of a PDE/PTE: P W U PWT PCD A D PS G (D and PS as they apply).
std::string page_entry_flags(u32 entry, bool directory);

// Walks the tables at CR3 = `control.cr3` for `linear` by peek.
PageWalkView walk_page_tables(const Mmu& mmu, const PhysicalBus& bus, u32 linear);

}  // namespace x86lab::gui
