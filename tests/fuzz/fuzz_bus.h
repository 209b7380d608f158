// Sized physical accesses for the fuzz targets (apic_fuzzer, device_fuzzer): reads and
// writes of 1, 2 or 4 bytes (any other size is taken as 4) through the machine's bus,
// as data accesses.
#pragma once
#include "platform/machine.h"

namespace x86lab::fuzz {

inline u32 bus_read(Machine& m, u32 address, unsigned bytes) {
  switch (bytes) {
    case 1: return m.bus.read<u8>(address, AccessKind::Data);
    case 2: return m.bus.read<u16>(address, AccessKind::Data);
    default: return m.bus.read<u32>(address, AccessKind::Data);
  }
}

inline void bus_write(Machine& m, u32 address, unsigned bytes, u32 value) {
  switch (bytes) {
    case 1: m.bus.write<u8>(address, static_cast<u8>(value), AccessKind::Data); break;
    case 2: m.bus.write<u16>(address, static_cast<u16>(value), AccessKind::Data); break;
    default: m.bus.write<u32>(address, value, AccessKind::Data); break;
  }
}

}  // namespace x86lab::fuzz
