// The L1 cache model of a CPU profile (docs/cost-model.md, "Cache model"): an
// instruction cache and a data cache, each set-associative with LRU replacement,
// indexed and tagged by physical address, that observe the CPU's instruction fetches
// and the memory's data accesses, count their misses (Counters::l1i_misses,
// l1d_misses) and charge each miss the profile's miss cost (an L2 hit) to the
// modeled clock. A statistics model: it holds no machine state and changes no access;
// only the clock sees its costs.
#pragma once
#include <vector>

#include "trace/counters.h"
#include "trace/modeled_clock.h"
#include "trace/types.h"

namespace x86lab {

class StateArchive;

// Size and shape of one cache, from the profile (CostModel::l1i, l1d). All three are
// powers of two with line <= size / ways; size 0: no cache is modeled.
struct CacheGeometry {
  u32 size = 0;  // bytes
  u32 ways = 0;  // lines per set (associativity)
  u32 line = 0;  // bytes per line
  bool operator==(const CacheGeometry&) const = default;
};

// One set-associative cache with true LRU replacement, by line number (address /
// line). Each set keeps its lines most recently used first.
class SetAssociativeCache {
 public:
  SetAssociativeCache() = default;
  explicit SetAssociativeCache(const CacheGeometry& geometry);
  bool enabled() const { return sets_ != 0; }
  unsigned line_shift() const { return shift_; }
  // Looks up the line holding byte `address` and makes it the most recently used of
  // its set: true on a hit; on a miss the line is filled into the set, replacing its
  // least recently used line (or an empty way).
  bool access(u32 address) { return access_line(address >> shift_); }
  bool access_line(u32 line);
  // Whether the line holding `address` is in the cache (no change).
  bool holds(u32 address) const;
  // Whether the bytes at `a` and `b` map to the same set.
  bool same_set(u32 a, u32 b) const { return (((a ^ b) >> shift_) & (sets_ - 1)) == 0; }
  // The lines held, for a machine snapshot (the geometry is the profile's).
  std::vector<u32>& lines() { return lines_; }

 private:
  static constexpr u32 kEmpty = 0xFFFFFFFFu;  // no line number (addresses >> 5 are below 2^27)
  unsigned shift_ = 0;
  u32 sets_ = 0, ways_ = 0;
  std::vector<u32> lines_;  // sets_ * ways_ line numbers, each set MRU first
};

// The L1I and L1D of the running profile, observing fetches and data accesses. The
// CPU owns it and attaches it to the physical bus (PhysicalBus::attach_caches) while
// its cache model is on (Cpu::set_cache_model). Both observation functions filter an
// access to the line of the access before it, or of the one before that while the two
// are in different sets (either line is then the most recently used of its set: a hit
// that changes nothing), before the set look-up.
class CacheObserver {
 public:
  CacheObserver(Counters& counters, ModeledClock& clock) : counters_(counters), clock_(clock) {}
  // New caches (empty) of the profile's geometry. A miss charges the clock's
  // CostPart::L1iMiss or L1dMiss, whose costs are the clock's (ModeledClock::costs,
  // which Cpu::set_cost_model fills from the cost model).
  void configure(const CacheGeometry& l1i, const CacheGeometry& l1d);
  // Empties both caches (the geometry and costs stay).
  void invalidate();

  // An instruction whose first byte is at physical `physical` (A20 applied) is
  // fetched: the L1I is accessed for that byte's line (docs/cost-model.md says why
  // not for a straddling tail).
  void fetch(u32 physical) {
    const u32 line = physical & fetch_mask_;
    if (line == fetch_recent_[0] || line == fetch_recent_[1]) return;
    fetch_line(line);
  }
  // The L1I line size in bytes, or 4096 with no L1I (the linked run's line check;
  // LinkedRunner::run_linked_loop).
  u32 fetch_run_bytes() const { return run_bytes_; }
  // `size` bytes (1-16, the bus's accesses: never more than a line) at physical
  // `physical` (A20 applied) are read or written as data (any access kind but code
  // fetch): the L1D is accessed for their line, and for the next one when they reach
  // into it.
  void data(u32 physical, unsigned size) {
    const u64 room = data_room_ - size;
    if (u64{physical} - data_recent_[0] <= room || u64{physical} - data_recent_[1] <= room) return;
    data_lines(physical, size);
  }

  const SetAssociativeCache& l1i() const { return l1i_; }
  const SetAssociativeCache& l1d() const { return l1d_; }
  // The caches' lines and the filters' recent lines, for a machine snapshot
  // (trace/state_archive.h): the misses of a continued run depend on them.
  void transfer_state(StateArchive& archive);

 private:
  [[gnu::noinline]] void fetch_line(u32 physical);
  [[gnu::noinline]] void data_lines(u32 physical, unsigned size);

  Counters& counters_;
  ModeledClock& clock_;
  CacheGeometry l1i_geometry_, l1d_geometry_;
  SetAssociativeCache l1i_, l1d_;
  // The last two lines fetched (addresses under fetch_mask_, the line's address mask),
  // the older one only while it is in another set (else 1, which matches no line);
  // with no L1I the mask and both are 0: every fetch is filtered.
  u32 fetch_mask_ = 0, run_bytes_ = 0x1000;
  u32 fetch_recent_[2] = {0, 0};
  // The same for data: the lines' addresses (2^40: none) and the line size (0 with no
  // L1D, which filters every access: any difference <= ~0 - size).
  u64 data_recent_[2] = {u64{1} << 40, u64{1} << 40};
  u64 data_room_ = 0;
};

}  // namespace x86lab
