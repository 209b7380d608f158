// I/O port dispatch with open-bus reads (all ones) for unclaimed ports.
#include "mmu/port_bus.h"

namespace x86lab {

PortBus::PortBus(Counters& counters) : counters_(counters), devices_(65536, nullptr) {}

void PortBus::attach(u16 first, u16 last, PortDevice* device) {
  for (u32 port = first; port <= last; ++port) devices_[port] = device;
}

u32 PortBus::read(u16 port, unsigned size) {
  ++counters_.io_reads;
  if (PortDevice* device = devices_[port]) return device->io_read(port, size);
  return size == 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1;
}

void PortBus::write(u16 port, unsigned size, u32 value) {
  ++counters_.io_writes;
  if (PortDevice* device = devices_[port]) device->io_write(port, size, value);
}

}  // namespace x86lab
