// I/O port dispatch with open-bus reads (all ones) for unclaimed ports.
#include "mmu/port_bus.h"

#include "trace/tracer.h"

namespace x86lab {

PortBus::PortBus(Counters& counters) : counters_(counters), devices_(65536, nullptr) {}

void PortBus::attach(u16 first, u16 last, BusDevice* device) {
  for (u32 port = first; port <= last; ++port) devices_[port] = device;
}

namespace {
events::Io io_event(u16 port, unsigned size, u32 value, bool write, const BusDevice* device) {
  return {.port = port, .size = static_cast<u8>(size), .write = write, .value = value,
          .device = device ? device->device_name() : std::string_view{}};
}
}  // namespace

u32 PortBus::read(u16 port, unsigned size) {
  ++counters_.io_reads;
  if constexpr (kStatistics) ++counters_.io_by_port[port];
  BusDevice* device = devices_[port];
  const u32 value = device ? device->read(port, size) : size == 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1;
  emit(tracer_, io_event(port, size, value, false, device));
  return value;
}

void PortBus::write(u16 port, unsigned size, u32 value) {
  ++counters_.io_writes;
  if constexpr (kStatistics) ++counters_.io_by_port[port];
  BusDevice* device = devices_[port];
  emit(tracer_, io_event(port, size, value, true, device));
  if (device) device->write(port, size, value);
}

}  // namespace x86lab
