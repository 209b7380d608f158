// A device on one of the processor's two address spaces, the physical memory space
// and the 64-KiB I/O space (Intel SDM Vol. 1, "Input/Output": I/O ports and
// memory-mapped I/O). PortBus (mmu/port_bus.h) and PhysicalBus (mmu/physical_bus.h)
// hand a device every access that falls in the range it is attached to.
#pragma once
#include <string_view>

#include "trace/types.h"

namespace x86lab {

class BusDevice {
 public:
  virtual ~BusDevice() = default;
  // One access of `size` bytes (1, 2 or 4). `address` is, on the PortBus, the port
  // the CPU addressed (0-FFFFh) and, on the PhysicalBus, the offset from the base of
  // the device's region.
  virtual u32 read(u32 address, unsigned size) = 0;
  virtual void write(u32 address, unsigned size, u32 value) = 0;
  // Debugger access to one byte of a memory-mapped device (PhysicalBus::peek/poke):
  // true with the byte when the device has memory that reads without side effects
  // (video memory), false (the default: registers) when it has none.
  virtual bool debug_read(u32 address, u8& value) const {
    (void)address;
    (void)value;
    return false;
  }
  virtual bool debug_write(u32 address, u8 value) {
    (void)address;
    (void)value;
    return false;
  }
  // A short name for traces ("pic", "uart").
  virtual std::string_view device_name() const = 0;
};

}  // namespace x86lab
