// The 32-bit paging walk and TLB upkeep (Intel SDM Vol. 3, "Paging", "32-Bit
// Paging", "Accessed and Dirty Flags", "Page-Fault Exceptions", "Invalidation of
// TLBs and Paging-Structure Caches").
//
// Page-directory entry (4 KiB table)    Page-directory entry (PS=1, 4 MiB page)
//  31            12 11  8 7 6 5 4 3 2 1 0      31     22 21  13 12 11 9 8 7 6 5 4 3 2 1 0
// | table address  | avl |0|i|A|C|W|U|R|P|    | page    | rsvd |PAT|avl|G|1|D|A|C|W|U|R|P|
// Page-table entry
//  31            12 11 9 8 7 6 5 4 3 2 1 0
// | page address   | avl |G|T|D|A|C|W|U|R|P|
#include "mmu/paging.h"

#include "trace/tracer.h"

namespace x86lab {
namespace {
constexpr u32 kPresent = 1u << 0, kWritable = 1u << 1, kUser = 1u << 2, kAccessed = 1u << 5, kDirty = 1u << 6,
              kPageSize = 1u << 7, kGlobal = 1u << 8;

// #PF error code: P (a protection violation rather than a not-present entry), W/R
// (a write), U/S (CPL 3). RSVD and I/D do not exist without PSE-36, PAE and NX.
u32 page_fault_code(bool present, AccessIntent intent, bool user) {
  return (present ? 1u : 0u) | (intent == AccessIntent::Write ? 2u : 0u) | (user ? 4u : 0u);
}

u32 pde_address(u32 cr3, u32 linear) { return (cr3 & 0xFFFFF000u) | ((linear >> 22) << 2); }
u32 pte_address(u32 pde, u32 linear) { return (pde & 0xFFFFF000u) | (((linear >> 12) & 0x3FF) << 2); }
u32 large_frame(u32 pde, u32 linear) { return (pde & 0xFFC00000u) | (linear & 0x003FF000u); }
}  // namespace

void Mmu::set_control(const PagingControl& control) {
  tlb_.note_change();
  if (control.pg != control_.pg || control.pse != control_.pse || control.pge != control_.pge)
    flush_all();
  else if (control.cr3 != control_.cr3)
    flush_non_global();
  control_ = control;
  update_direct();
  write_rights_[0] = tlb_right::Dirty | (control.wp ? tlb_right::Writable : 0);
}

void Mmu::invalidate_page(u32 linear) {
  ++counters_.tlb_page_invalidations;
  tlb_.invalidate_page(linear);
  model_.invalidate_page(linear);
  model_marks_.clear_all();  // the model forgot every set's most recently used way
}

void Mmu::flush_non_global() {
  ++counters_.tlb_flushes;
  tlb_.flush_non_global();
  model_.flush(true);
  model_marks_.clear_all();
}

void Mmu::flush_all() {
  ++counters_.tlb_flushes;
  tlb_.flush_all();
  model_.flush(false);
  model_marks_.clear_all();
}

void Mmu::note_data_model(const TlbEntry& entry, TlbModelMarks::Mark& mark, u32 linear) {
  const TlbModel::DataAccess result = model_.access_data(linear, entry.rights);
  if (result.displaced_page != TlbModel::kNoPage) model_marks_.clear_mru(result.displaced_page);
  if (result.evicted_page != TlbModel::kNoPage) model_marks_.clear(result.evicted_page);
  if (result.mru) mark = {TlbModelMarks::kMru | TlbModelMarks::kResident, result.way};
}

bool Mmu::translate_miss(u32 linear, AccessIntent intent, bool user, u32& physical) {
  // An entry without the needed rights (or, for a write, without D) is dropped and
  // the tables are walked again: a stricter entry faults, a looser one is refilled,
  // so a change that only grants rights needs no INVLPG.
  TlbEntry& entry = tlb_.slot(linear);
  if (tlb_.holds(entry, linear)) {
    entry.tag = 0;
    tlb_.note_change();
  }
  const std::optional<Translation> t = walk(linear, intent, user);
  if (!t) [[unlikely]] return false;
  tlb_.fill(linear, t->frame, t->rights, bus_.host_read_page(t->frame), bus_.host_write_page(t->frame));
  model_marks_.clear(linear >> 12);  // a new entry starts without the model's marks
  note_model(tlb_.slot(linear), linear, intent);
  physical = t->frame | (linear & 0xFFF);
  return true;
}

void Mmu::throw_fault() const { throw fault_; }

u32 Mmu::translate_miss_or_throw(u32 linear, AccessIntent intent, bool user) {
  u32 physical;
  if (!translate_miss(linear, intent, user, physical)) throw_fault();
  return physical;
}

std::optional<Mmu::Translation> Mmu::walk(u32 linear, AccessIntent intent, bool user) {
  ++counters_.page_walks;
  bus_.clock().charge(CostPart::PageWalk);
  const bool write = intent == AccessIntent::Write;
  const u32 pde_at = pde_address(control_.cr3, linear);
  const u32 pde = bus_.read<u32>(pde_at, AccessKind::PageDirectoryRead);
  if (!(pde & kPresent)) return page_fault(page_fault_code(false, intent, user), linear, "page directory entry not present");

  // CR4.PSE off: PS is ignored and the entry points at a page table.
  const bool large = control_.pse && (pde & kPageSize);
  u32 pte = pde, pte_at = pde_at;
  if (!large) {
    pte_at = pte_address(pde, linear);
    pte = bus_.read<u32>(pte_at, AccessKind::PageTableRead);
    if (!(pte & kPresent)) return page_fault(page_fault_code(false, intent, user), linear, "page table entry not present");
  }

  // Combined rights: both levels must allow user access and writes.
  const bool user_ok = (pde & kUser) && (pte & kUser);
  const bool write_ok = (pde & kWritable) && (pte & kWritable);
  if (user && !user_ok) return page_fault(page_fault_code(true, intent, user), linear, "supervisor page");
  if (write && !write_ok && (user || control_.wp))
    return page_fault(page_fault_code(true, intent, user), linear, "read-only page");

  // Implied locked updates of the Accessed and Dirty bits, only when a bit changes.
  if (!(pde & kAccessed) || (large && write && !(pde & kDirty))) {
    const u32 set = kAccessed | (large && write ? kDirty : 0);
    const u32 old = bus_.locked_rmw<u32>(pde_at, AccessKind::PageDirectoryAD, [set](u32 value) { return value | set; });
    // Paging-structure entries have no linear address: the event's linear is the physical one.
    emit(tracer_, events::MemoryAccess{.linear = pde_at, .physical = pde_at, .size = 4,
                                       .access = AccessKind::PageDirectoryAD, .write = true, .locked = true,
                                       .value = old | set, .old_value = old});
  }
  if (!large && (!(pte & kAccessed) || (write && !(pte & kDirty)))) {
    const u32 set = kAccessed | (write ? kDirty : 0);
    const u32 old = bus_.locked_rmw<u32>(pte_at, AccessKind::PageTableAD, [set](u32 value) { return value | set; });
    emit(tracer_, events::MemoryAccess{.linear = pte_at, .physical = pte_at, .size = 4,
                                       .access = AccessKind::PageTableAD, .write = true, .locked = true,
                                       .value = old | set, .old_value = old});
  }

  u8 rights = (user_ok ? tlb_right::User : 0) | (write_ok ? tlb_right::Writable : 0);
  if (write || (pte & kDirty)) rights |= tlb_right::Dirty;
  if (control_.pge && (pte & kGlobal)) rights |= tlb_right::Global;
  if (large) rights |= tlb_right::Large;
  const u32 frame = large ? large_frame(pde, linear) : pte & 0xFFFFF000u;
  // The entries as read, before this walk's A/D updates.
  emit(tracer_, events::PageWalk{.linear = linear, .physical = frame | (linear & 0xFFF), .write = write,
                                 .entries = u64{pde} << 32 | (large ? 0 : pte)});
  return Translation{frame, rights};
}

std::optional<u32> Mmu::debug_translate(u32 linear) const {
  if (!control_.pg) return linear;
  if (const TlbEntry& entry = tlb_.slot(linear); tlb_.holds(entry, linear)) return entry.frame | (linear & 0xFFF);
  auto peek32 = [this](u32 address) {
    u32 value = 0;
    for (unsigned i = 0; i < 4; ++i) value |= u32{bus_.peek(address + i)} << (8 * i);
    return value;
  };
  const u32 pde = peek32(pde_address(control_.cr3, linear));
  if (!(pde & kPresent)) return std::nullopt;
  if (control_.pse && (pde & kPageSize)) return large_frame(pde, linear) | (linear & 0xFFF);
  const u32 pte = peek32(pte_address(pde, linear));
  if (!(pte & kPresent)) return std::nullopt;
  return (pte & 0xFFFFF000u) | (linear & 0xFFF);
}

std::optional<u8> Mmu::peek_linear(u32 linear) const {
  const auto physical = debug_translate(linear);
  if (!physical) return std::nullopt;
  return bus_.peek(*physical);
}

bool Mmu::poke_linear(u32 linear, u8 value) {
  const auto physical = debug_translate(linear);
  if (!physical) return false;
  bus_.poke(*physical, value);
  return true;
}

}  // namespace x86lab
