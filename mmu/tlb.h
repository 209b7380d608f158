// The functional TLB: translations cached per 4 KiB linear page, with the rights
// and the Dirty flag they were filled with (Intel SDM Vol. 3, "Paging", "Translation
// Lookaside Buffers (TLBs)" and "Invalidation of TLBs and Paging-Structure Caches").
// Its size is not architectural: an entry may be replaced at any time (the SDM
// allows it), so results depend only on when software invalidates.
#pragma once
#include <array>
#include <bitset>
#include <vector>

#include "mmu/attention.h"
#include "trace/state_archive.h"
#include "trace/types.h"

namespace x86lab {

// TlbEntry::rights bits: what every paging-structure entry of the translation allowed.
namespace tlb_right {
inline constexpr u8 User = 1 << 0;      // U/S = 1 at both levels
inline constexpr u8 Writable = 1 << 1;  // R/W = 1 at both levels
inline constexpr u8 Dirty = 1 << 2;     // the entry mapping the page had D = 1 when cached
inline constexpr u8 Global = 1 << 3;    // G = 1 with CR4.PGE: kept across MOV CR3
inline constexpr u8 Large = 1 << 4;     // part of a 4 MiB page
}  // namespace tlb_right

struct TlbEntry {
  u32 tag = 0;    // linear page address | epoch (bits 11-0); never matches while 0
  u32 frame = 0;  // physical address of the 4 KiB frame
  u8 rights = 0;  // tlb_right bits
  // Where the frame's bytes are in host memory (A20 applied when filled), for the
  // Mmu's direct accesses, or null: reads of RAM and ROM frames; writes of RAM frames
  // that hold no fetched code (PhysicalBus::host_write_page). The bus revokes them
  // when a frame becomes a code page or its mapping or the A20 gate changes.
  const u8* host_read = nullptr;
  u8* host_write = nullptr;
};

class Tlb {
 public:
  static constexpr u32 kEntries = 1024;  // direct-mapped by linear address bits 21-12

  Tlb() { global_slots_.reserve(kEntries); }

  // The entry that may hold `linear`'s translation, and whether it does.
  TlbEntry& slot(u32 linear) { return entries_[(linear >> 12) & (kEntries - 1)]; }
  const TlbEntry& slot(u32 linear) const { return entries_[(linear >> 12) & (kEntries - 1)]; }
  bool holds(const TlbEntry& entry, u32 linear) const { return entry.tag == ((linear & ~0xFFFu) | epoch_); }

  // Caches a translation of `linear` to `frame` (4 KiB aligned) with the frame's host
  // pointers (see TlbEntry).
  void fill(u32 linear, u32 frame, u8 rights, const u8* host_read, u8* host_write) {
    const u32 index = (linear >> 12) & (kEntries - 1);
    // Filling a free or stale slot changes no translation; replacing one does.
    if (entries_[index].tag != 0 && (entries_[index].tag & kEpochMask) == epoch_) note_change();
    entries_[index] = {(linear & ~0xFFFu) | epoch_, frame, rights, host_read, host_write};
    if ((rights & tlb_right::Global) && !in_global_list_[index]) {
      in_global_list_[index] = true;
      global_slots_.push_back(index);
    }
    if (rights & tlb_right::Large) large_regions_.set(linear >> 22);
  }

  // INVLPG: drops the translation of the page holding `linear`; for a 4 MiB page,
  // every cached part of it.
  void invalidate_page(u32 linear);
  // MOV CR3: drops every translation except global ones.
  void flush_non_global();
  // Paging-bit changes in CR0/CR4: drops everything.
  void flush_all();
  // Changes with every fill, invalidation, flush, host-pointer revocation and
  // note_change(): while it stays the same, every translation found stays the same.
  u32 changes() const { return changes_; }
  void note_change() {
    ++changes_;
    for (Attention* attention : watches_) attention->raise(Attention::kTranslationChanged);
  }
  // Has every later change raise Attention::kTranslationChanged in `attention` (a
  // CPU's: its linked run then needs no look at changes() after each instruction),
  // until unwatch_changes. `attention` must outlive the watch.
  void watch_changes(Attention& attention) { watches_.push_back(&attention); }
  void unwatch_changes(const Attention& attention) { std::erase(watches_, &attention); }
  // Forgets the host write pointer `host_page` (a frame that now holds code), or with
  // null every host pointer (the physical map or the A20 gate changed). Translations stay.
  void revoke_host_pages(const u8* host_page);
  // Saves, checks or loads the entries (stale ones too) and the epoch (a snapshot,
  // trace/state_archive.h). Loaded entries have no host pointers (the slow path
  // finds them again) and count as a change.
  void transfer_state(StateArchive& archive);

 private:
  static constexpr u32 kEpochMask = 0xFFF;

  // A new epoch makes every entry stale at once; global entries are re-tagged.
  void next_epoch(bool keep_global);

  std::array<TlbEntry, kEntries> entries_{};
  u32 epoch_ = 1;
  u32 changes_ = 0;
  std::vector<Attention*> watches_;
  std::vector<u32> global_slots_;  // indexes that may hold global entries
  std::array<bool, kEntries> in_global_list_{};
  std::bitset<1024> large_regions_;  // 4 MiB regions with cached parts of large pages
};

}  // namespace x86lab
