// Registration of the decode cache with the physical bus (cpu/decode_cache.h).
#include "cpu/decode_cache.h"

namespace x86lab {

DecodeCache::DecodeCache(PhysicalBus& bus)
    : bus_(bus), entries_(std::make_unique<Entry[]>(kEntries)), generations_(std::make_unique<u32[]>(kGenerationSlots)) {
  bus_.add_code_write_listener(this);
}

DecodeCache::~DecodeCache() { bus_.remove_code_write_listener(this); }

}  // namespace x86lab
