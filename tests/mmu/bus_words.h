// Little-endian dwords on a PhysicalBus for test fixtures, through peek and poke (no
// counters, no locked accesses, ROM bytes writable).
#pragma once
#include "mmu/physical_bus.h"

namespace x86lab::testing {

inline void poke32(PhysicalBus& bus, u32 address, u32 value) {
  for (int i = 0; i < 4; ++i) bus.poke(address + i, static_cast<u8>(value >> (8 * i)));
}

inline u32 peek32(const PhysicalBus& bus, u32 address) {
  u32 value = 0;
  for (int i = 0; i < 4; ++i) value |= u32{bus.peek(address + i)} << (8 * i);
  return value;
}

}  // namespace x86lab::testing
