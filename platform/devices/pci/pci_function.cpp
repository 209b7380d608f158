// Configuration space, write masks and BAR decoding of one PCI function (PCI Local Bus
// Specification 2.2, 6.2.5 "Base Addresses", 6.2.2 "Device Control").
#include "platform/devices/pci/pci_function.h"

#include <stdexcept>

namespace x86lab {

PciFunction::PciFunction(u16 vendor_id, u16 device_id, u8 revision, u32 class_code, u8 header_type,
                         u8 interrupt_pin) {
  set_config_word(pci::kVendorId, vendor_id);
  set_config_word(pci::kDeviceId, device_id);
  config_[pci::kRevisionId] = revision;
  config_[pci::kClassCode] = static_cast<u8>(class_code);
  config_[pci::kClassCode + 1] = static_cast<u8>(class_code >> 8);
  config_[pci::kClassCode + 2] = static_cast<u8>(class_code >> 16);
  config_[pci::kHeaderType] = header_type;
  config_[pci::kInterruptPin] = interrupt_pin;
  writable_[pci::kCommand] = pci::kCommandIo | pci::kCommandMemory | pci::kCommandBusMaster;
  writable_[pci::kCommand + 1] = pci::kCommandInterruptDisable >> 8;
  writable_[pci::kInterruptLine] = 0xFF;
}

u32 PciFunction::config_read(u8 offset, unsigned size) {
  u32 value = 0;
  for (unsigned i = 0; i < size; ++i) value |= u32{config_[(offset + i) & 0xFF]} << (8 * i);
  return value;
}

void PciFunction::config_write(u8 offset, unsigned size, u32 value) {
  bool decode = false;
  for (unsigned i = 0; i < size; ++i) {
    const unsigned at = (offset + i) & 0xFF;
    const u8 mask = writable_[at];
    config_[at] = static_cast<u8>((config_[at] & ~mask) | ((value >> (8 * i)) & mask));
    if (at == pci::kCommand || at == pci::kCommand + 1u ||
        (at >= pci::kBar0 && at < pci::kBar0 + 4 * pci::kBarCount) || (at >= pci::kExpansionRom && at < pci::kExpansionRom + 4u))
      decode = true;
  }
  if (offset <= pci::kCommand + 1 && offset + size > pci::kCommand + 1u && !(command() & pci::kCommandInterruptDisable) &&
      intx_level_ && intx_)
    intx_(true);  // interrupt disable cleared with INTx# pending
  if (offset <= pci::kCommand + 1 && offset + size > pci::kCommand + 1u && (command() & pci::kCommandInterruptDisable) && intx_)
    intx_(false);
  config_written(offset, size);
  if (decode) decode_bars();
}

u32 PciFunction::bar_base(unsigned index) const {
  const u32 raw = config_dword(static_cast<u8>(pci::kBar0 + 4 * index));
  return bars_[index].kind == BarKind::Io ? raw & ~3u : raw & ~15u;
}

void PciFunction::declare_bar(unsigned index, BarKind kind, u32 size, BusDevice* device) {
  if (index >= pci::kBarCount || size == 0 || (size & (size - 1)) != 0 || (kind == BarKind::Io && size < 4) ||
      (kind != BarKind::Io && size < 16))
    throw std::invalid_argument("PCI BAR: bad index or size");
  bars_[index] = {kind, size, device};
  const u8 at = static_cast<u8>(pci::kBar0 + 4 * index);
  const u32 flags = kind == BarKind::Io ? 1u : kind == BarKind::Memory32Prefetchable ? 8u : 0u;
  const u32 writable = ~(size - 1) & (kind == BarKind::Io ? ~3u : ~15u);
  for (unsigned i = 0; i < 4; ++i) {
    writable_[at + i] = static_cast<u8>(writable >> (8 * i));
    config_[at + i] = static_cast<u8>(flags >> (8 * i));
  }
}

void PciFunction::declare_expansion_rom(u32 size, BusDevice* device) {
  if (size < PhysicalBus::kPageBytes || (size & (size - 1)) != 0)
    throw std::invalid_argument("PCI expansion ROM: bad size");
  rom_ = {BarKind::Memory32, size, device};
  const u32 writable = (~(size - 1) & 0xFFFFF800u) | 1u;  // base bits and the enable bit
  for (unsigned i = 0; i < 4; ++i) {
    writable_[pci::kExpansionRom + i] = static_cast<u8>(writable >> (8 * i));
    config_[pci::kExpansionRom + i] = 0;
  }
}

void PciFunction::set_bar_base(unsigned index, u32 base) {
  const u8 at = static_cast<u8>(pci::kBar0 + 4 * index);
  const u32 keep = config_dword(at) & ~(u32{writable_[at]} | u32{writable_[at + 1]} << 8 | u32{writable_[at + 2]} << 16 |
                                        u32{writable_[at + 3]} << 24);
  const u32 value = keep | (base & ~(bars_[index].size - 1));
  for (unsigned i = 0; i < 4; ++i) config_[at + i] = static_cast<u8>(value >> (8 * i));
  decode_bars();
}

void PciFunction::plug(PortBus& ports, PhysicalBus& memory, std::function<void(bool)> intx) {
  ports_ = &ports;
  memory_ = &memory;
  intx_ = std::move(intx);
  decode_bars();
}

void PciFunction::decode_bars() {
  if (!ports_ || !memory_) return;
  for (unsigned index = 0; index < pci::kBarCount; ++index) {
    const Bar& bar = bars_[index];
    if (bar.kind == BarKind::None || !bar.device) continue;
    const bool io = bar.kind == BarKind::Io;
    const bool enabled = command() & (io ? pci::kCommandIo : pci::kCommandMemory);
    const u32 base = bar_base(index);
    // A base that would wrap past the top of its space, or I/O beyond 64 KiB, is not decoded.
    const bool fits = io ? u64{base} + bar.size <= 0x10000 : u64{base} + bar.size <= 0x100000000ull;
    const u32 wanted = enabled && base != 0 && fits ? base : 0;
    if (wanted == bar_decoded_[index]) continue;
    if (const u32 old = bar_decoded_[index]) {
      if (io)
        ports_->attach(static_cast<u16>(old), static_cast<u16>(old + bar.size - 1), nullptr);
      else
        memory_->unmap_mmio(bar.device);
    }
    bar_decoded_[index] = wanted;
    if (!wanted) continue;
    if (io)
      ports_->attach(static_cast<u16>(wanted), static_cast<u16>(wanted + bar.size - 1), bar.device);
    else
      memory_->map_mmio(wanted, bar.size < PhysicalBus::kPageBytes ? PhysicalBus::kPageBytes : bar.size, bar.device);
  }
  // The expansion ROM: decoded while memory space and its enable bit are both on.
  if (rom_.device) {
    const u32 raw = config_dword(pci::kExpansionRom);
    const u32 base = raw & 0xFFFFF800u;
    const bool enabled = (command() & pci::kCommandMemory) && (raw & 1) && base != 0 &&
                         u64{base} + rom_.size <= 0x100000000ull;
    const u32 wanted = enabled ? base : 0;
    if (wanted != rom_decoded_) {
      if (rom_decoded_) memory_->unmap_mmio(rom_.device);
      rom_decoded_ = wanted;
      if (wanted) memory_->map_mmio(wanted, rom_.size, rom_.device);
    }
  }
}

void PciFunction::set_intx(bool level) {
  intx_level_ = level;
  const u16 status = config_word(pci::kStatus);
  set_config_word(pci::kStatus, level ? status | pci::kStatusInterrupt : status & ~pci::kStatusInterrupt);
  if (intx_ && !(command() & pci::kCommandInterruptDisable)) intx_(level);
}

void PciFunction::transfer_state(StateArchive& a) {
  a.raw(config_.data(), config_.size(), "PCI configuration space");
  a.field(intx_level_, "PCI INTx#");
  if (a.loading()) {
    for (unsigned offset = 0; offset < 256; offset += 4) config_written(static_cast<u8>(offset), 4);
    decode_bars();
  }
}

}  // namespace x86lab
