// Configuration mechanism #1 on bus 0 (PCI Local Bus Specification 2.2, 3.2.2.3.2).
#include "platform/devices/pci/pci_bus.h"

#include <stdexcept>

namespace x86lab {

PciBus::PciBus(PortBus& ports, PhysicalBus& memory, IntxRouter route_intx)
    : ports_(ports), memory_(memory), route_intx_(std::move(route_intx)) {}

void PciBus::plug(pci::Address address, PciFunction& function) {
  if (address.device >= kDevices || address.function >= kFunctions)
    throw std::invalid_argument("PCI address out of range");
  PciFunction*& slot = functions_[address.device * kFunctions + address.function];
  if (slot) throw std::invalid_argument("PCI slot already taken");
  slot = &function;
  const u8 pin = function.config_byte(pci::kInterruptPin);
  function.plug(ports_, memory_, [this, address, pin](bool level) {
    if (pin && route_intx_) route_intx_(address, pin, level);
  });
}

PciFunction* PciBus::function(pci::Address address) const {
  if (address.device >= kDevices || address.function >= kFunctions) return nullptr;
  return functions_[address.device * kFunctions + address.function];
}

std::vector<std::pair<pci::Address, PciFunction*>> PciBus::functions() const {
  std::vector<std::pair<pci::Address, PciFunction*>> out;
  for (unsigned i = 0; i < functions_.size(); ++i)
    if (functions_[i]) out.push_back({{static_cast<u8>(i / kFunctions), static_cast<u8>(i % kFunctions)}, functions_[i]});
  return out;
}

PciFunction* PciBus::addressed(unsigned port, u8& offset) const {
  if (!(config_address_ & 0x80000000u) || ((config_address_ >> 16) & 0xFF) != 0) return nullptr;
  offset = static_cast<u8>((config_address_ & 0xFC) + (port - kConfigData));
  return functions_[(config_address_ >> 8) & 0xFF];
}

u32 PciBus::read(u32 port, unsigned size) {
  if (port == kConfigAddress && size == 4) return config_address_;
  if (port >= kConfigData && port <= kConfigData + 3) {
    u8 offset = 0;
    if (PciFunction* f = addressed(port, offset)) return f->config_read(offset, size);
  }
  return size == 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1;
}

void PciBus::write(u32 port, unsigned size, u32 value) {
  if (port == kConfigAddress && size == 4) {
    config_address_ = value & 0x80FFFFFCu;
    return;
  }
  if (port >= kConfigData && port <= kConfigData + 3) {
    u8 offset = 0;
    if (PciFunction* f = addressed(port, offset)) f->config_write(offset, size, value);
  }
}

void PciBus::transfer_state(StateArchive& a) {
  a.field(config_address_, "PCI CONFIG_ADDRESS");
  for (PciFunction* f : functions_)
    if (f) f->transfer_state(a);
}

}  // namespace x86lab
