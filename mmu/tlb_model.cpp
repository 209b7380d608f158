// The statistics model of first-level TLBs: LRU set-associative arrays.
#include "mmu/tlb_model.h"

#include "trace/tracer.h"

namespace x86lab {

TlbModelArray::TlbModelArray(TlbArrayGeometry geometry) {
  if (geometry.entries == 0) return;
  ways_ = geometry.ways == 0 || geometry.ways > geometry.entries ? geometry.entries : geometry.ways;
  sets_ = geometry.entries / ways_;
  keys_.assign(std::size_t{sets_} * ways_, 0);
  stamps_.assign(keys_.size(), 0);
  global_.assign(keys_.size(), false);
}

bool TlbModelArray::access(u32 key, bool global) {
  if (key + 1 == last_key_) return true;  // the most recently used way: nothing changes
  if (!exists()) return false;
  const std::size_t first = std::size_t{key % sets_} * ways_;
  std::size_t victim = first;  // the least recently used way; empty ways have stamp 0
  ++clock_;
  for (std::size_t i = first; i < first + ways_; ++i) {
    if (keys_[i] == key + 1) {
      stamps_[i] = clock_;
      last_key_ = key + 1;
      return true;
    }
    if (stamps_[i] < stamps_[victim]) victim = i;
  }
  keys_[victim] = key + 1;
  stamps_[victim] = clock_;
  global_[victim] = global;
  last_key_ = key + 1;
  return false;
}

void TlbModelArray::invalidate(u32 key) {
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key + 1) clear(i);
  last_key_ = 0;
}

void TlbModelArray::flush(bool keep_global) {
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (!(keep_global && global_[i])) clear(i);
  last_key_ = 0;
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
  last_code_page_ = kNoPage;
}

void TlbModel::flush(bool keep_global) {
  for (TlbModelArray* array : {&code_small_, &code_large_, &data_small_, &data_large_})
    if (array->exists()) array->flush(keep_global);
  last_code_page_ = kNoPage;
}

}  // namespace x86lab
