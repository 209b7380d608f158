// A statistics-only model of a processor's first-level TLBs (Intel SDM Vol. 3,
// "Translation Lookaside Buffers (TLBs)"): set-associative arrays of the profile's
// sizes with LRU replacement, invalidated by the same events as the functional TLB.
// It only counts hits and misses; translation never consults it.
#pragma once
#include <vector>

#include "mmu/tlb.h"
#include "trace/counters.h"
#include "trace/types.h"

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
  bool exists() const { return !keys_.empty(); }
  // Looks `key` up and makes it most recently used; on a miss it replaces the least
  // recently used way of its set. Returns whether it hit.
  bool access(u32 key, bool global) {
    // The most recently used way of its set: a hit that changes no set's LRU order.
    if (mru_[set_of(key)] == key + 1) return true;
    return access_set(key, global);
  }
  void invalidate(u32 key);
  void flush(bool keep_global);

 private:
  bool access_set(u32 key, bool global);
  u32 set_of(u32 key) const { return power_of_two_sets_ ? key & set_mask_ : key % sets_; }
  void clear(std::size_t way) {
    keys_[way] = 0;
    stamps_[way] = 0;
  }

  u32 sets_ = 0, ways_ = 0;
  std::vector<u32> keys_;    // key + 1; 0 = empty
  std::vector<u64> stamps_;  // last use, for LRU
  std::vector<bool> global_;
  u64 clock_ = 0;
  u32 set_mask_ = 0;                // sets_ - 1 when power_of_two_sets_
  bool power_of_two_sets_ = true;   // (every built-in geometry; an empty array has "1 set")
  std::vector<u32> mru_ = {0};      // per set: key + 1 of its most recently used way (0 = none known)
};

class TlbModel {
 public:
  TlbModel(const TlbGeometry& geometry, Counters& counters);

  // One translated access of the page holding `linear`, with the functional TLB's
  // `rights` for it (tlb_right::Large for a 4 MiB page, tlb_right::Global).
  // The page of the last data access is the most recently used way of its set (no
  // access since has touched the model), so another access to it is a hit that
  // changes nothing: counted without a look-up.
  void access_data(u32 linear, u8 rights) {
    static_assert(u32{tlb_right::Large} << 27 == kLargeBit);
    const u32 page = (linear >> 12) | (static_cast<u32>(rights & tlb_right::Large) << 27);
    if (page == last_data_page_) {
      ++counters_->tlb_data_hits;
      return;
    }
    // The memo holds only a page the model now holds (an array of 0 entries holds none).
    const bool held = (rights & tlb_right::Large) && data_large_.exists() ? true : data_small_.exists();
    last_data_page_ = held ? page : kNoPage;
    if (access(data_small_, data_large_, linear, rights))
      ++counters_->tlb_data_hits;
    else
      miss(linear, false);
  }
  // Instruction fetch: looked up once per run of fetches from one page (a fetch unit
  // keeps the current page's translation), so per page change, not per byte.
  void access_code(u32 linear, u8 rights) {
    if ((linear >> 12) == last_code_page_) return;
    last_code_page_ = linear >> 12;
    if (access(code_small_, code_large_, linear, rights))
      ++counters_->tlb_code_hits;
    else
      miss(linear, true);
  }
  void invalidate_page(u32 linear);
  void flush(bool keep_global);

 private:
  static constexpr u32 kNoPage = 0xFFFFFFFFu;
  static constexpr u32 kLargeBit = 1u << 31;  // in last_data_page_: the access was to a 4 MiB page
  // Counts a miss and emits a TlbMiss trace event (detail 1 for code, 0 for data).
  void miss(u32 linear, bool code);
  static u32 large_key(u32 linear) { return (1u << 30) | (linear >> 22); }
  static bool access(TlbModelArray& small, TlbModelArray& large_array, u32 linear, u8 rights) {
    const bool global = rights & tlb_right::Global;
    if (!(rights & tlb_right::Large)) return small.access(linear >> 12, global);
    return (large_array.exists() ? large_array : small).access(large_key(linear), global);
  }

  Counters* counters_;
  TlbModelArray code_small_, code_large_, data_small_, data_large_;
  u32 last_code_page_ = kNoPage;
  u32 last_data_page_ = kNoPage;  // linear page of the last data access | kLargeBit
};

}  // namespace x86lab
