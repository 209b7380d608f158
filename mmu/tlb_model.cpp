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

// The set search behind access() when `key` is not the most recently used way.
bool TlbModelArray::access_set(u32 key, bool global) {
  if (!exists()) return false;
  const u32 set = set_of(key);
  const std::size_t first = std::size_t{set} * ways_;
  std::size_t victim = first;  // the least recently used way; empty ways have stamp 0
  ++clock_;
  for (std::size_t i = first; i < first + ways_; ++i) {
    if (keys_[i] == key + 1) {
      stamps_[i] = clock_;
      mru_[set] = key + 1;
      return true;
    }
    if (stamps_[i] < stamps_[victim]) victim = i;
  }
  keys_[victim] = key + 1;
  stamps_[victim] = clock_;
  global_[victim] = global;
  mru_[set] = key + 1;
  return false;
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

TlbModel::TlbModel(const TlbGeometry& geometry, Counters& counters)
    : counters_(&counters),
      code_small_(geometry.code_small),
      code_large_(geometry.code_large),
      data_small_(geometry.data_small),
      data_large_(geometry.data_large) {}

void TlbModel::miss(u32 linear, bool code) {
  ++(code ? counters_->tlb_code_misses : counters_->tlb_data_misses);
  if (!counters_->tracer) return;
  Event event;
  event.kind = EventKind::TlbMiss;
  event.a = linear;
  event.detail = code ? 1 : 0;
  counters_->tracer->emit(event);
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

}  // namespace x86lab
