// PCI bus 0 and configuration mechanism #1: the CONFIG_ADDRESS register at CF8h and the
// CONFIG_DATA window at CFCh-CFFh (PCI Local Bus Specification 2.2, 3.2.2.3.2
// "Software Generation of Configuration Transactions"; the i440FX PMC data sheet,
// "CONFADD" and "CONFDATA"). The host bridge owns these ports on a PC; x86lab puts the
// decoding here and lets the i440FX function be one function on the bus.
#pragma once
#include <array>
#include <functional>
#include <vector>

#include "platform/devices/pci/pci_function.h"

namespace x86lab {

class PciBus : public BusDevice {
 public:
  static constexpr u16 kConfigAddress = 0xCF8, kConfigData = 0xCFC;
  static constexpr unsigned kDevices = 32, kFunctions = 8;

  // `route_intx(address, pin, level)`: where a function's INTx# goes (pin 1 = INTA#
  // .. 4 = INTD#, as the function's Interrupt Pin register says); the chipset (PIIX3
  // PIRQ routing) provides it.
  using IntxRouter = std::function<void(pci::Address, u8 pin, bool level)>;
  PciBus(PortBus& ports, PhysicalBus& memory, IntxRouter route_intx);

  // Plugs `function` (owned by the caller, alive as long as the bus) in at `address`;
  // throws std::invalid_argument when the slot is taken or out of range.
  void plug(pci::Address address, PciFunction& function);
  // The function at `address`, or null.
  PciFunction* function(pci::Address address) const;
  // Every plugged function with its address, by address (`info pci`, tests).
  std::vector<std::pair<pci::Address, PciFunction*>> functions() const;

  // Ports CF8h-CFFh. CONFIG_ADDRESS is a dword register: only dword accesses at CF8h
  // reach it (bit 31 enable, 23:16 bus, 15:11 device, 10:8 function, 7:2 register;
  // bits 1:0 read 0); byte and word accesses at CF8h-CFBh are not claimed here (the
  // PIIX3's reset control register at CF9h is attached over this range by its owner).
  // CONFIG_DATA: with the enable bit set and bus 0, an access of any width at
  // CFCh + n reaches register + n of the addressed function; an absent function, or
  // another bus, reads all ones and drops writes.
  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "pci"; }

  u32 config_address() const { return config_address_; }
  // Saves, checks or loads CONFIG_ADDRESS and every function's state, by address.
  void transfer_state(StateArchive& archive);

 private:
  PciFunction* addressed(unsigned port, u8& offset) const;
  PortBus& ports_;
  PhysicalBus& memory_;
  IntxRouter route_intx_;
  std::array<PciFunction*, kDevices * kFunctions> functions_{};
  u32 config_address_ = 0;
};

}  // namespace x86lab
