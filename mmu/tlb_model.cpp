// The statistics model of first-level TLBs: LRU set-associative arrays.
#include "mmu/tlb_model.h"

#include <algorithm>

#include "trace/tracer.h"

namespace x86lab {

TlbModelArray::TlbModelArray(TlbArrayGeometry geometry) {
  if (geometry.entries == 0) return;
  ways_ = geometry.ways == 0 || geometry.ways > geometry.entries ? geometry.entries : geometry.ways;
  sets_ = geometry.entries / ways_;
  keys_.assign(std::size_t{sets_} * ways_, 0);
  stamps_.assign(keys_.size(), 0);
  global_.assign(keys_.size(), false);
  mru_.assign(sets_, 0);
  power_of_two_sets_ = (sets_ & (sets_ - 1)) == 0;
  set_mask_ = sets_ - 1;
}

void TlbModelArray::invalidate(u32 key) {
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key + 1) clear(i);
  std::fill(mru_.begin(), mru_.end(), 0);  // the slow path finds the MRU ways again
}

void TlbModelArray::flush(bool keep_global) {
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (!(keep_global && global_[i])) clear(i);
  std::fill(mru_.begin(), mru_.end(), 0);
}

TlbModel::TlbModel(const TlbGeometry& geometry, Counters& counters, Tracer* const& tracer)
    : counters_(&counters),
      tracer_(&tracer),
      code_small_(geometry.code_small),
      code_large_(geometry.code_large),
      data_small_(geometry.data_small),
      data_large_(geometry.data_large) {}

TlbModel::DataAccess TlbModel::access_data_other(u32 linear, u8 rights) {
  static_assert(u32{tlb_right::Large} << 27 == kLargeBit);
  const bool small = !(rights & tlb_right::Large);
  const u32 page = (linear >> 12) | (static_cast<u32>(rights & tlb_right::Large) << 27);
  if (page == last_data_page_) {
    ++counters_->tlb_data_hits;
    return {};
  }
  TlbModelArray& array = small || !data_large_.exists() ? data_small_ : data_large_;
  // The memo holds only a page the model now holds (an array of 0 entries holds none).
  last_data_page_ = array.exists() ? page : kNoPage;
  u32 displaced = TlbModelArray::kNoKey, way = 0, evicted = TlbModelArray::kNoKey;
  if (array.access(small ? linear >> 12 : large_key(linear), rights & tlb_right::Global, displaced, way, evicted))
    ++counters_->tlb_data_hits;
  else
    miss(linear, false);
  // Only 4 KiB pages of the 4 KiB array are marked (access_data); here there is no such
  // array, or the page is a 4 MiB one (which may share it).
  return {small_page(displaced), small_page(evicted), false, 0};
}

void TlbModel::access_code_page(u32 linear, u8 rights) {
  last_code_page_ = linear >> 12;
  u32 displaced = TlbModelArray::kNoKey;
  if (access(code_small_, code_large_, linear, rights, displaced))
    ++counters_->tlb_code_hits;
  else
    miss(linear, true);
}

void TlbModel::miss(u32 linear, bool code) {
  ++(code ? counters_->tlb_code_misses : counters_->tlb_data_misses);
  emit(*tracer_, events::TlbMiss{.linear = linear, .code = code});
}

void TlbModel::invalidate_page(u32 linear) {
  for (TlbModelArray* array : {&code_small_, &code_large_, &data_small_, &data_large_}) {
    if (!array->exists()) continue;
    array->invalidate(linear >> 12);
    array->invalidate(large_key(linear));
  }
  last_code_page_ = last_data_page_ = kNoPage;
}

void TlbModel::flush(bool keep_global) {
  for (TlbModelArray* array : {&code_small_, &code_large_, &data_small_, &data_large_})
    if (array->exists()) array->flush(keep_global);
  last_code_page_ = last_data_page_ = kNoPage;
}

void TlbModelArray::transfer_state(StateArchive& a) {
  u32 sets = sets_, ways = ways_;
  a.local(sets, "TLB model sets");
  a.local(ways, "TLB model ways");
  if (sets != sets_ || ways != ways_) throw StateArchiveError("TLB model: another geometry than this profile's");
  a.same_size_sequence(keys_, "TLB model keys");
  // Only the order of the stamps within each set decides a replacement, so they are
  // saved as ranks (0 for an empty way, 1 for the least recently used held way, up
  // to `ways`) and the clock as `ways`: two models that hold the same pages in the
  // same order save the same bytes, however many hits each counted without stamping
  // (the Mmu counts a hit on its set's most recently used way without the model, and
  // a restored machine, which has no such marks yet, stamps it again).
  if (a.saving()) {
    std::vector<u64> ranks = stamp_ranks();
    u64 clock = ways_;
    a.same_size_sequence(ranks, "TLB model stamps");
    a.same_size_sequence(global_, "TLB model global ways");
    a.same_size_sequence(mru_, "TLB model most recently used ways");
    a.field(clock, "TLB model clock");
    return;
  }
  a.same_size_sequence(stamps_, "TLB model stamps");
  a.same_size_sequence(global_, "TLB model global ways");
  a.same_size_sequence(mru_, "TLB model most recently used ways");
  a.field(clock_, "TLB model clock");
}

std::vector<u64> TlbModelArray::stamp_ranks() const {
  std::vector<u64> ranks(stamps_.size(), 0);
  std::vector<std::size_t> order(ways_);
  for (std::size_t first = 0; first < keys_.size(); first += ways_) {
    for (std::size_t i = 0; i < ways_; ++i) order[i] = first + i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return stamps_[x] < stamps_[y]; });
    u64 rank = 0;
    for (std::size_t i : order)
      if (keys_[i] != 0) ranks[i] = ++rank;
  }
  return ranks;
}

void TlbModel::transfer_state(StateArchive& a) {
  code_small_.transfer_state(a);
  code_large_.transfer_state(a);
  data_small_.transfer_state(a);
  data_large_.transfer_state(a);
  a.field(last_code_page_, "TLB model last code page");
  // The last data page only spares a look-up that would hit on its set's most
  // recently used way and change nothing (access_data_other), so it is saved as
  // kNoPage: the restored model looks up once more and counts the same hit.
  u32 last_data_page = kNoPage;
  a.field(a.saving() ? last_data_page : last_data_page_, "TLB model last data page");
}

}  // namespace x86lab
