// I/O port dispatch with open-bus reads (all ones) for unclaimed ports.
#include "mmu/port_bus.h"

#include "trace/tracer.h"

namespace x86lab {

PortBus::PortBus(Counters& counters) : counters_(counters), devices_(65536, nullptr) {}

void PortBus::attach(u16 first, u16 last, BusDevice* device) {
  for (u32 port = first; port <= last; ++port) devices_[port] = device;
}

namespace {
void trace_io(Tracer& tracer, u16 port, unsigned size, u32 value, bool write, const BusDevice* device) {
  Event event;
  event.kind = EventKind::Io;
  event.a = port;
  event.size = static_cast<u8>(size);
  event.value = value;
  event.flags = write ? kEventWrite : 0;
  if (device) event.text = device->device_name();
  tracer.emit(event);
}
}  // namespace

u32 PortBus::read(u16 port, unsigned size) {
  ++counters_.io_reads;
  if constexpr (kStatistics) ++counters_.io_by_port[port];
  BusDevice* device = devices_[port];
  const u32 value = device ? device->read(port, size) : size == 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1;
  if (tracer_) trace_io(*tracer_, port, size, value, false, device);
  return value;
}

void PortBus::write(u16 port, unsigned size, u32 value) {
  ++counters_.io_writes;
  if constexpr (kStatistics) ++counters_.io_by_port[port];
  BusDevice* device = devices_[port];
  if (tracer_) trace_io(*tracer_, port, size, value, true, device);
  if (device) device->write(port, size, value);
}

}  // namespace x86lab
