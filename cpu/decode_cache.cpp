// Registration of the decode cache with the physical bus (cpu/decode_cache.h).
#include "cpu/decode_cache.h"

#include <bit>

namespace x86lab {

DecodeCache::DecodeCache(PhysicalBus& bus, Counters& counters)
    : bus_(bus), counters_(counters), entries_(std::make_unique<Entry[]>(kEntries)), generations_(std::make_unique<u32[]>(kGenerationSlots)),
      reached_into_(std::make_unique<u64[]>(kGenerationSlots / 64)) {
  bus_.add_code_write_listener(this);
}

DecodeCache::~DecodeCache() { bus_.remove_code_write_listener(this); }

void DecodeCache::code_blocks_written(u32 page, u64 blocks) {
  for (u64 rest = blocks; rest; rest &= rest - 1) {
    const u32 slot = block_slot(page * PhysicalBus::kPageBytes + static_cast<u32>(std::countr_zero(rest)) * kCodeBlockBytes);
    ++generations_[slot];
    if (take_reached_into(slot)) ++generations_[(slot - 1) & (kGenerationSlots - 1)];
  }
  next_link_stamp();
  watch_->raise(Attention::kCodePageWritten);
}

void DecodeCache::settle() {
  if (listed_.empty()) return;
  for (Entry* e : listed_) {
    fold(*e);
    e->listed = false;
  }
  listed_.clear();
  // Links let entries run without a look-up, which is what lists them: from here on
  // every entry is looked up (and listed) once before any link leads to it again.
  next_link_stamp();
}

}  // namespace x86lab
