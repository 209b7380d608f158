// The PIIX3 PCI-to-ISA bridge: reset values, PIRQ routing and the reset control
// register (82371SB data sheet, "PIRQRC[A:D]—PIRQx Route Control Registers", "RC—Reset
// Control Register").
#include "platform/devices/pci/piix3_isa.h"

namespace x86lab {

Piix3Isa::Piix3Isa(std::function<void(unsigned, unsigned, bool)> drive_irq, std::function<void(bool)> reset)
    : PciFunction(0x8086, 0x7000, 0x00, 0x060100, 0x80, 0), drive_irq_(std::move(drive_irq)), reset_(std::move(reset)) {
  set_reset_values();
}

void Piix3Isa::set_reset_values() {
  // PCICMD: I/O, memory and bus master always enabled (read-only 1s); only bit 3
  // (special cycle enable) is writable.
  set_config_word(pci::kCommand, 0x0007);
  set_writable(pci::kCommand, 0x08);
  set_writable(pci::kCommand + 1, 0x00);
  set_writable(pci::kInterruptLine, 0x00);  // no interrupt of its own (header 3Ch reserved)
  set_config_word(pci::kStatus, 0x0200);  // DEVSEL# medium
  const struct {
    u8 offset, reset, writable;
  } registers[] = {
      {0x4C, 0x4D, 0x7F},                                           // IORT
      {0x4E, 0x03, 0xFF}, {0x4F, 0x00, 0x03},                       // XBCS
      {0x60, 0x80, 0x8F}, {0x61, 0x80, 0x8F}, {0x62, 0x80, 0x8F}, {0x63, 0x80, 0x8F},  // PIRQRC[A:D]
      {0x69, 0x02, 0xFE},                                           // TOM
      {0x6A, 0x00, 0xFF}, {0x6B, 0x00, 0xFF},                       // MSTAT
      {0x70, 0x80, 0xEF},                                           // MBIRQ0
      {0x76, 0x04, 0x87}, {0x77, 0x04, 0x87},                       // MBDMA0-1
      {0x78, 0x02, 0xFF}, {0x79, 0x00, 0xFF},                       // PCSC
      {0xA0, 0x08, 0xFF},                                           // SMICNTL
      {0xA2, 0x00, 0xFF}, {0xA3, 0x00, 0xFF},                       // SMIEN
      {0xA4, 0x00, 0xFF}, {0xA5, 0x00, 0xFF}, {0xA6, 0x00, 0xFF}, {0xA7, 0x00, 0xFF},  // SEE
      {0xA8, 0x0F, 0xFF},                                           // FTMR
      {0xAA, 0x00, 0xFF}, {0xAB, 0x00, 0xFF},                       // SMIREQ
      {0xAC, 0x00, 0xFF}, {0xAE, 0x00, 0xFF},                       // CTLTMR, CTHTMR
  };
  for (const auto& r : registers) {
    set_config_byte(r.offset, r.reset);
    set_writable(r.offset, r.writable);
  }
}

unsigned Piix3Isa::routed_irq(unsigned pirq) const {
  if (pirq >= kPirqs) return 0;
  const u8 value = config_byte(static_cast<u8>(kPirqrc + pirq));
  if (value & kPirqDisable) return 0;
  const unsigned irq = value & 0x0F;
  // IRQ0-2, 8 and 13 are reserved routing values (the data sheet's table of PIRQRC
  // bits 3:0): they route nowhere.
  return irq < 3 || irq == 8 || irq == 13 ? 0 : irq;
}

void Piix3Isa::drive(unsigned pirq) {
  const unsigned irq = routed_irq(pirq);
  if (driven_irq_[pirq] && driven_irq_[pirq] != irq && drive_irq_) drive_irq_(driven_irq_[pirq], pirq, false);
  driven_irq_[pirq] = irq;
  if (irq && drive_irq_) drive_irq_(irq, pirq, pirq_level(pirq));
}

void Piix3Isa::route_intx(pci::Address address, u8 pin, bool level) {
  if (pin < 1 || pin > 4 || address.device >= 32 || address.function >= 8) return;
  const unsigned pirq = pirq_of(address.device, pin);
  pirq_sources_[pirq].set(address.device * 8u + address.function, level);
  drive(pirq);
}

void Piix3Isa::config_written(u8 offset, unsigned size) {
  if (loading_) return;
  for (unsigned pirq = 0; pirq < kPirqs; ++pirq)
    if (offset <= kPirqrc + pirq && offset + size > kPirqrc + pirq) drive(pirq);
}

void Piix3Isa::reset() {
  set_reset_values();
  for (unsigned pirq = 0; pirq < kPirqs; ++pirq) drive(pirq);
  reset_control_ = 0;
}

u32 Piix3Isa::read(u32 port, unsigned size) {
  if (port == kResetControl && size == 1) return reset_control_;
  return size == 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1;
}

void Piix3Isa::write(u32 port, unsigned size, u32 value) {
  if (port != kResetControl || size != 1) return;
  const bool rising = !(reset_control_ & 0x04) && (value & 0x04);
  reset_control_ = static_cast<u8>(value & 0x06);
  if (!rising) return;
  const bool hard = reset_control_ & 0x02;
  reset_control_ = 0;  // the reset clears the register
  if (reset_) reset_(hard);
}

void Piix3Isa::transfer_state(StateArchive& a) {
  for (auto& sources : pirq_sources_) {
    std::array<u64, 4> words{};
    for (unsigned i = 0; i < 256; ++i)
      if (sources[i]) words[i / 64] |= u64{1} << (i % 64);
    a.array(words, "PIRQ sources");
    for (unsigned i = 0; i < 256; ++i) sources[i] = (words[i / 64] >> (i % 64)) & 1;
  }
  a.array(driven_irq_, "PIRQ driven IRQ", 15);
  a.field(reset_control_, "PIIX3 reset control", 0x06);
  loading_ = a.loading();
  PciFunction::transfer_state(a);
  loading_ = false;
}

}  // namespace x86lab
