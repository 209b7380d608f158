// The I/O address space: 65,536 byte ports (Intel SDM Vol. 1, "Input/Output").
// Devices attach to port ranges; ports with no device read all ones and drop writes.
#pragma once
#include <vector>

#include "mmu/bus_device.h"
#include "trace/counters.h"

namespace x86lab {

class PortBus {
 public:
  explicit PortBus(Counters& counters);
  // Attaches `device` to ports first..last inclusive, replacing what was there.
  void attach(u16 first, u16 last, BusDevice* device);
  BusDevice* device_at(u16 port) const { return devices_[port]; }

  // One access of `size` bytes; a word or dword access goes to the device owning
  // the first port (as ISA devices decode it). Unclaimed ports read all ones.
  u32 read(u16 port, unsigned size);
  void write(u16 port, unsigned size, u32 value);
  // Io trace events go to `tracer` while it is set (Cpu::set_tracer sets it with the Mmu's).
  void set_tracer(Tracer* tracer) { tracer_ = tracer; }

 private:
  Counters& counters_;
  Tracer* tracer_ = nullptr;
  std::vector<BusDevice*> devices_;
};

}  // namespace x86lab
