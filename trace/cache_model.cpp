// The L1 cache model (trace/cache_model.h).
#include "trace/cache_model.h"

#include <algorithm>
#include <bit>

#include "trace/state_archive.h"

namespace x86lab {

SetAssociativeCache::SetAssociativeCache(const CacheGeometry& geometry) {
  if (geometry.size == 0) return;
  shift_ = static_cast<unsigned>(std::countr_zero(geometry.line));
  ways_ = geometry.ways;
  sets_ = geometry.size / (geometry.ways * geometry.line);
  lines_.assign(std::size_t{sets_} * ways_, kEmpty);
}

bool SetAssociativeCache::access_line(u32 line) {
  u32* const set = &lines_[std::size_t{line & (sets_ - 1)} * ways_];
  if (set[0] == line) return true;
  // Found at way w, or not found: the last way (the LRU line, or an empty way) is
  // replaced. Ways 0..w-1 age by one and the line becomes the most recently used.
  u32 w = 1;
  while (w < ways_ && set[w] != line) ++w;
  const bool hit = w < ways_;
  if (!hit) w = ways_ - 1;
  std::copy_backward(set, set + w, set + w + 1);
  set[0] = line;
  return hit;
}

bool SetAssociativeCache::holds(u32 address) const {
  if (!enabled()) return false;
  const u32 line = address >> shift_;
  const u32* const set = &lines_[std::size_t{line & (sets_ - 1)} * ways_];
  return std::find(set, set + ways_, line) != set + ways_;
}

void CacheObserver::configure(const CacheGeometry& l1i, const CacheGeometry& l1d) {
  l1i_geometry_ = l1i;
  l1d_geometry_ = l1d;
  fetch_mask_ = l1i.size ? ~(l1i.line - 1) : 0;
  run_bytes_ = l1i.size ? l1i.line : 0x1000;
  data_room_ = l1d.size ? l1d.line : 0;
  invalidate();
}

void CacheObserver::invalidate() {
  l1i_ = SetAssociativeCache(l1i_geometry_);
  l1d_ = SetAssociativeCache(l1d_geometry_);
  fetch_recent_[0] = fetch_recent_[1] = l1i_.enabled() ? 1 : 0;
  data_recent_[0] = data_recent_[1] = u64{1} << 40;
}

void CacheObserver::fetch_line(u32 line) {
  if (!l1i_.access(line)) {
    ++counters_.l1i_misses;
    clock_.charge(CostPart::L1iMiss);
  }
  // The line before stays the most recently used of its set unless it shares this one's.
  fetch_recent_[1] = l1i_.same_set(line, fetch_recent_[0]) ? 1 : fetch_recent_[0];
  fetch_recent_[0] = line;
}

void CacheObserver::data_lines(u32 physical, unsigned size) {
  const unsigned shift = l1d_.line_shift();
  const u32 first = physical >> shift, last = (physical + size - 1) >> shift;
  for (u32 line = first;; ++line) {
    if (!l1d_.access_line(line)) {
      ++counters_.l1d_misses;
      clock_.charge(CostPart::L1dMiss);
    }
    const u64 address = u64{line} << shift;
    data_recent_[1] = data_recent_[0] < (u64{1} << 32) && l1d_.same_set(u32(address), u32(data_recent_[0]))
                          ? u64{1} << 40
                          : data_recent_[0];
    data_recent_[0] = address;
    if (line == last) break;
  }
}

void CacheObserver::transfer_state(StateArchive& a) {
  a.same_size_sequence(l1i_.lines(), "L1I lines");
  a.same_size_sequence(l1d_.lines(), "L1D lines");
  a.array(fetch_recent_, "L1I recent lines");
  a.array(data_recent_, "L1D recent lines");
}

}  // namespace x86lab
