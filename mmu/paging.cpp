// The 32-bit paging walk (Intel SDM Vol. 3, "Paging", "32-Bit Paging").
//
// Page-directory entry (4 KiB table)    Page-directory entry (PS=1, 4 MiB page)
//  31            12 11  8 7 6 5 4 3 2 1 0      31     22 21  13 12 11 8 7 6 5 4 3 2 1 0
// | table address  | avl |0|i|A|C|W|U|R|P|    | page    | rsvd |PAT|avl|1|D|A|C|W|U|R|P|
// Page-table entry
//  31            12 11 9 8 7 6 5 4 3 2 1 0
// | page address   | avl |G|T|D|A|C|W|U|R|P|
#include "mmu/paging.h"

namespace x86lab {
namespace {
constexpr u32 kPresent = 1u << 0, kWritable = 1u << 1, kUser = 1u << 2, kAccessed = 1u << 5, kDirty = 1u << 6,
              kPageSize = 1u << 7;

// Error code bits of #PF: P (protection violation, not a not-present page), W/R, U/S.
u32 page_fault_code(bool present, AccessIntent intent, bool user) {
  return (present ? 1u : 0u) | (intent == AccessIntent::Write ? 2u : 0u) | (user ? 4u : 0u);
}
}  // namespace

u32 Mmu::walk(u32 linear, AccessIntent intent, bool user) {
  const bool write = intent == AccessIntent::Write;
  const u32 pde_address = (control_.cr3 & 0xFFFFF000u) | ((linear >> 22) << 2);
  const u32 pde = bus_.read<u32>(pde_address, AccessKind::PageDirectoryAD);
  if (!(pde & kPresent)) throw pf(page_fault_code(false, intent, user), linear, "page directory entry not present");

  const bool large = control_.pse && (pde & kPageSize);
  u32 pte = pde, pte_address = pde_address;
  if (!large) {
    pte_address = (pde & 0xFFFFF000u) | (((linear >> 12) & 0x3FF) << 2);
    pte = bus_.read<u32>(pte_address, AccessKind::PageTableAD);
    if (!(pte & kPresent)) throw pf(page_fault_code(false, intent, user), linear, "page table entry not present");
  }

  // Combined rights: both levels must allow user access and writes.
  const bool user_ok = (pde & kUser) && (pte & kUser);
  const bool write_ok = (pde & kWritable) && (pte & kWritable);
  if (user && !user_ok) throw pf(page_fault_code(true, intent, user), linear, "supervisor page");
  if (write && !write_ok && (user || control_.wp)) throw pf(page_fault_code(true, intent, user), linear, "read-only page");

  // Implied locked updates of the Accessed and Dirty bits.
  if (!(pde & kAccessed) || (large && write && !(pde & kDirty))) {
    const u32 set = kAccessed | (large && write ? kDirty : 0);
    bus_.locked_rmw<u32>(pde_address, AccessKind::PageDirectoryAD, [set](u32 old) { return old | set; });
  }
  if (large) return (pde & 0xFFC00000u) | (linear & 0x3FFFFFu);
  if (!(pte & kAccessed) || (write && !(pte & kDirty))) {
    const u32 set = kAccessed | (write ? kDirty : 0);
    bus_.locked_rmw<u32>(pte_address, AccessKind::PageTableAD, [set](u32 old) { return old | set; });
  }
  return (pte & 0xFFFFF000u) | (linear & 0xFFF);
}

}  // namespace x86lab
