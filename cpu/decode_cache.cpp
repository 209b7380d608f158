// Registration of the decode cache with the physical bus (cpu/decode_cache.h).
#include "cpu/decode_cache.h"

namespace x86lab {

DecodeCache::DecodeCache(PhysicalBus& bus, Counters& counters)
    : bus_(bus), counters_(counters), entries_(std::make_unique<Entry[]>(kEntries)), generations_(std::make_unique<u32[]>(kGenerationSlots)) {
  bus_.add_code_write_listener(this);
}

DecodeCache::~DecodeCache() { bus_.remove_code_write_listener(this); }

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
