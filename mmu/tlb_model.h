// A statistics-only model of a processor's first-level TLBs (Intel SDM Vol. 3,
// "Translation Lookaside Buffers (TLBs)"): set-associative arrays of the profile's
// sizes with LRU replacement, invalidated by the same events as the functional TLB.
// It only counts hits and misses; translation never consults it.
#pragma once
#include <vector>

#include "mmu/tlb.h"
#include "trace/state_archive.h"
#include "trace/counters.h"
#include "trace/types.h"

namespace x86lab {
class Tracer;
}

namespace x86lab {

// One TLB array: `entries` translations in sets of `ways` (ways == entries: fully
// associative). An array with 0 entries does not exist.
struct TlbArrayGeometry {
  u16 entries = 0;
  u16 ways = 0;
};

// The first-level TLBs of a processor. When a *_large array has no entries, 4 MiB
// pages share the *_small array (a TLB for mixed page sizes).
struct TlbGeometry {
  TlbArrayGeometry code_small, code_large, data_small, data_large;
};

// The first-level TLBs of the P6 family (CPUID leaf 2 descriptors 01h-04h).
inline constexpr TlbGeometry kP6TlbGeometry = {{32, 4}, {2, 2}, {64, 4}, {8, 4}};

class TlbModelArray {
 public:
  explicit TlbModelArray(TlbArrayGeometry geometry);
  bool exists() const { return sets_ != 0; }
  static constexpr u32 kNoKey = 0xFFFFFFFFu;
  // Looks `key` up and makes it most recently used; on a miss it replaces the least
  // recently used way of its set. Returns whether it hit. `displaced` receives the key
  // that was the set's most recently used way before when that changed (kNoKey when
  // it did not or was not known).
  bool access(u32 key, bool global, u32& displaced) {
    // The most recently used way of its set: a hit that changes no set's LRU order.
    if (mru_[set_of(key)] == key + 1) return true;
    return search_set(key, global, displaced);
  }
  // access() that also tells where `key` is now (`way`, an index below entries) and
  // which key a miss replaced (`evicted`, kNoKey for an empty way).
  bool access(u32 key, bool global, u32& displaced, u32& way, u32& evicted) {
    return search_set(key, global, displaced, way, evicted);
  }
  // A hit on `key`, held in `way`, that is not its set's most recently used way:
  // makes it that. Returns the key that was (kNoKey when none was known).
  u32 touch(u32 way, u32 key) {
    const u32 set = set_of(key);
    const u32 before = mru_[set];
    stamps_[way] = ++clock_;
    mru_[set] = key + 1;
    return before - 1;  // (0 - 1 = kNoKey)
  }
  void invalidate(u32 key);
  void flush(bool keep_global);
  // Saves, checks or loads the array's contents; the geometry must be the same.
  void transfer_state(StateArchive& archive);

 private:
  // Per way: 0 when empty, else its place in its set's LRU order (1 = least recently used).
  std::vector<u64> stamp_ranks() const;
  // The set search behind access() when `key` is not the most recently used way
  // (inline: every caller is itself out of line, on the model's slow paths).
  bool search_set(u32 key, bool global, u32& displaced) {
    u32 way, evicted;
    return search_set(key, global, displaced, way, evicted);
  }
  bool search_set(u32 key, bool global, u32& displaced, u32& way, u32& evicted) {
    if (!exists()) return false;
    const u32 set = set_of(key);
    displaced = mru_[set] ? mru_[set] - 1 : kNoKey;
    const std::size_t first = std::size_t{set} * ways_;
    std::size_t victim = first;  // the least recently used way; empty ways have stamp 0
    ++clock_;
    for (std::size_t i = first; i < first + ways_; ++i) {
      if (keys_[i] == key + 1) {
        stamps_[i] = clock_;
        mru_[set] = key + 1;
        way = static_cast<u32>(i);
        evicted = kNoKey;
        return true;
      }
      if (stamps_[i] < stamps_[victim]) victim = i;
    }
    evicted = keys_[victim] - 1;  // (0 - 1 = kNoKey)
    keys_[victim] = key + 1;
    stamps_[victim] = clock_;
    global_[victim] = global;
    mru_[set] = key + 1;
    way = static_cast<u32>(victim);
    return false;
  }
  u32 set_of(u32 key) const { return power_of_two_sets_ ? key & set_mask_ : key % sets_; }
  void clear(std::size_t way) {
    keys_[way] = 0;
    stamps_[way] = 0;
  }

  u32 sets_ = 0, ways_ = 0;
  std::vector<u32> keys_;    // key + 1; 0 = empty
  std::vector<u64> stamps_;  // last use, for LRU
  std::vector<u8> global_;  // 1: a global page's way (kept by flush(true))
  u64 clock_ = 0;
  u32 set_mask_ = 0;                // sets_ - 1 when power_of_two_sets_
  bool power_of_two_sets_ = true;   // (every built-in geometry; an empty array has "1 set")
  std::vector<u32> mru_ = {0};      // per set: key + 1 of its most recently used way (0 = none known)
};

// Where the statistics model stands on the page of each functional TLB slot, kept
// beside the functional TLB (never in its entries, which hold translations only), so
// that the Mmu counts a data access to a page the model holds without its look-up:
// kResident, the model's 4 KiB data array holds the page (in `way`); kMru, as its
// set's most recently used way, so the access changes no LRU order. Filled by the
// Mmu from the model's look-ups (Mmu::note_data_model); a slot's marks go when its
// TLB entry is refilled, when the model drops or displaces the page, and all of
// them on INVLPG, flushes and geometry changes. A mark kept for a slot that now holds
// another page only costs a model look-up, so clearing by slot is enough.
class TlbModelMarks {
 public:
  static constexpr u8 kResident = 1 << 0, kMru = 1 << 1;
  struct Mark {
    u8 bits = 0;
    u16 way = 0;  // with kResident: the way in the model's 4 KiB data array
  };
  // The marks of the slot of `linear` (Tlb::slot's index).
  Mark& slot(u32 linear) { return marks_[(linear >> 12) & (Tlb::kEntries - 1)]; }
  // Drops kMru from the slot of 4 KiB page `page` (linear address >> 12), or both marks.
  void clear_mru(u32 page) { marks_[page & (Tlb::kEntries - 1)].bits &= ~kMru; }
  void clear(u32 page) { marks_[page & (Tlb::kEntries - 1)].bits = 0; }
  void clear_all() {
    for (Mark& mark : marks_) mark.bits = 0;
  }

 private:
  std::array<Mark, Tlb::kEntries> marks_{};
};

class TlbModel {
 public:
  static constexpr u32 kNoPage = 0xFFFFFFFFu;
  // `tracer`: the Mmu's tracer pointer (TlbMiss events while it is set).
  TlbModel(const TlbGeometry& geometry, Counters& counters, Tracer* const& tracer);

  // One translated data access of the page holding `linear`, with the functional
  // TLB's `rights` for it (tlb_right::Large for a 4 MiB page, tlb_right::Global).
  // The page of the last data access is the most recently used way of its set (no
  // access since has touched the model), so another access to it is a hit that
  // changes nothing: counted without a look-up. The result tells the Mmu which
  // slots may carry TlbModelMarks::kMru (its own check for the same case on any
  // page, paging.h).
  struct DataAccess {
    u32 displaced_page = kNoPage;  // a 4 KiB page (linear >> 12) no longer its set's most recently used way
    u32 evicted_page = kNoPage;    // a 4 KiB page the model no longer holds
    bool mru = false;              // the accessed page is a 4 KiB page now most recently used in its set
    u16 way = 0;                   // with mru: its way in the 4 KiB data array
  };
  DataAccess access_data(u32 linear, u8 rights) {
    if ((rights & tlb_right::Large) || !data_small_.exists()) [[unlikely]] return access_data_other(linear, rights);
    const u32 page = linear >> 12;
    last_data_page_ = page;
    u32 displaced = TlbModelArray::kNoKey, way = 0, evicted = TlbModelArray::kNoKey;
    if (data_small_.access(page, rights & tlb_right::Global, displaced, way, evicted))
      ++counters_->tlb_data_hits;
    else
      miss(linear, false);
    return {small_page(displaced), small_page(evicted), true, static_cast<u16>(way)};
  }
  // A data access to 4 KiB page `page`, which the data array holds in `way` but not as
  // its set's most recently used way (TlbModelMarks::kResident without kMru): a
  // hit that makes it that. Returns the 4 KiB page that stopped being so, or kNoPage.
  u32 touch_data(u16 way, u32 page) {
    ++counters_->tlb_data_hits;
    last_data_page_ = page;
    return small_page(data_small_.touch(way, page));
  }
  // Instruction fetch: looked up once per run of fetches from one page (a fetch unit
  // keeps the current page's translation), so per page change, not per byte.
  void access_code(u32 linear, u8 rights) {
    if ((linear >> 12) != last_code_page_) [[unlikely]] access_code_page(linear, rights);
  }
  void invalidate_page(u32 linear);
  void flush(bool keep_global);
  // Saves, checks or loads the model's state (a snapshot: its hit and miss counts
  // go on from it). The geometry must be the same (the profile's).
  void transfer_state(StateArchive& archive);

 private:
  static constexpr u32 kLargeBit = 1u << 31;  // in last_data_page_: the access was to a 4 MiB page
  // Counts a miss and emits a TlbMiss trace event (detail 1 for code, 0 for data).
  void miss(u32 linear, bool code);
  DataAccess access_data_other(u32 linear, u8 rights);  // 4 MiB pages, or no 4 KiB data array
  void access_code_page(u32 linear, u8 rights);          // access_code for another page
  static u32 large_key(u32 linear) { return (1u << 30) | (linear >> 22); }
  // `key` as a 4 KiB page, or kNoPage (kNoKey, or a 4 MiB page's key, which has bit 30 set).
  static u32 small_page(u32 key) { return key < (1u << 20) ? key : kNoPage; }
  static bool access(TlbModelArray& small, TlbModelArray& large_array, u32 linear, u8 rights, u32& displaced) {
    const bool global = rights & tlb_right::Global;
    if (!(rights & tlb_right::Large)) return small.access(linear >> 12, global, displaced);
    return (large_array.exists() ? large_array : small).access(large_key(linear), global, displaced);
  }

  Counters* counters_;
  Tracer* const* tracer_;
  TlbModelArray code_small_, code_large_, data_small_, data_large_;
  u32 last_code_page_ = kNoPage;
  u32 last_data_page_ = kNoPage;  // linear page of the last data access | kLargeBit
};

}  // namespace x86lab
