// TLB invalidation (Intel SDM Vol. 3, "Invalidation of TLBs and Paging-Structure
// Caches"): INVLPG, MOV CR3 (global entries kept) and paging-bit changes.
#include "mmu/tlb.h"

namespace x86lab {

void Tlb::invalidate_page(u32 linear) {
  note_change();
  TlbEntry& entry = slot(linear);
  if (holds(entry, linear)) entry.tag = 0;
  // A 4 MiB page is one translation on hardware: INVLPG of any address in it drops
  // all of it, so every 4 KiB part cached here goes too.
  const u32 region = linear >> 22;
  if (!large_regions_.test(region)) return;
  for (TlbEntry& e : entries_)
    if ((e.tag & kEpochMask) == epoch_ && (e.rights & tlb_right::Large) && (e.tag >> 22) == region) e.tag = 0;
  large_regions_.reset(region);
}

void Tlb::flush_non_global() { next_epoch(true); }

void Tlb::revoke_host_pages(const u8* host_page) {
  note_change();
  for (TlbEntry& e : entries_) {
    if (!host_page) e.host_read = e.host_write = nullptr;
    else if (e.host_write == host_page) e.host_write = nullptr;
  }
}

void Tlb::flush_all() {
  next_epoch(false);
  large_regions_.reset();
}

void Tlb::next_epoch(bool keep_global) {
  note_change();
  const u32 old = epoch_;
  auto kept = [&](const TlbEntry& e) {
    return keep_global && (e.rights & tlb_right::Global) && (e.tag & kEpochMask) == old;
  };
  if (++epoch_ > kEpochMask) {
    // The epoch wrapped: tags of long-gone epochs would match again, so clear them.
    epoch_ = 1;
    for (TlbEntry& e : entries_) e.tag = kept(e) ? (e.tag & ~kEpochMask) | epoch_ : 0;
  }
  for (std::size_t k = 0; k < global_slots_.size();) {
    const u32 index = global_slots_[k];
    TlbEntry& e = entries_[index];
    if (kept(e)) {
      e.tag = (e.tag & ~kEpochMask) | epoch_;
      ++k;
    } else if (keep_global && (e.rights & tlb_right::Global) && (e.tag & kEpochMask) == epoch_) {
      ++k;  // already re-tagged by the wrap above
    } else {
      in_global_list_[index] = false;
      global_slots_[k] = global_slots_.back();
      global_slots_.pop_back();
    }
  }
}

void Tlb::transfer_state(StateArchive& a) {
  for (TlbEntry& entry : entries_) {
    a.field(entry.tag, "TLB tag");
    a.field(entry.frame, "TLB frame");
    a.field(entry.rights, "TLB rights", 0x1F);
    if (a.loading()) entry.host_read = entry.host_write = nullptr;
  }
  a.field(epoch_, "TLB epoch", kEpochMask);
  std::vector<u32> global_slots = global_slots_;
  a.local_sequence(global_slots, "TLB global slots", kEntries);
  for (u32 index : global_slots)
    if (index >= kEntries) throw StateArchiveError("TLB global slots: index out of range");
  a.bits(large_regions_, "TLB large regions");
  if (!a.loading()) return;
  global_slots_ = global_slots;
  in_global_list_.fill(false);
  for (u32 index : global_slots_) in_global_list_[index] = true;
  note_change();
}

}  // namespace x86lab
