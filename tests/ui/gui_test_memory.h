// A physical bus and MMU for the GUI model tests, filled by poke (no counters touched),
// so that tests can also check that display reads leave the bus untouched.
#pragma once
#include "mmu/paging.h"

namespace x86lab::gui {

struct GuiTestMemory {
  Counters counters;
  PhysicalBus bus;
  Mmu mmu{bus};
  explicit GuiTestMemory(u32 ram_bytes = 1 << 20) : bus(ram_bytes, counters) {}
  void put32(u32 address, u32 value) {
    for (unsigned i = 0; i < 4; ++i) bus.poke(address + i, static_cast<u8>(value >> (8 * i)));
  }
  void put64(u32 address, u64 value) {
    put32(address, static_cast<u32>(value));
    put32(address + 4, static_cast<u32>(value >> 32));
  }
};

}  // namespace x86lab::gui
