// The PC/AT devices of a Machine and their wiring (DESIGN.md section 1, "Target
// machine"): 8259A pair, 8254 with port 61h, MC146818 RTC/CMOS, COM1 and COM2
// 16550As, the 8042 keyboard controller, the VGA (its legacy ports, the DISPI ports,
// the A0000h window and its PCI function 1234:1111 at 00:02.0), the 82093AA I/O APIC,
// the PIIX4's ACPI PM1 registers, the 8237A DMA pair and the 82077AA floppy controller,
// on the PC's I/O ports, memory and IRQ lines; PCI bus 0 with the i440FX host bridge
// (00:00.0), the PIIX3 ISA bridge (00:01.0) and its IDE function (00:01.1). Port 92h
// and the debug ports are attached by the Machine.
#pragma once
#include <functional>

#include "cpu/cpu.h"
#include "platform/clock.h"
#include "platform/devices/apic/apic_bus.h"
#include "platform/devices/apic/io_apic.h"
#include "platform/devices/dma8237.h"
#include "platform/devices/fdc82077.h"
#include "platform/devices/fpu_error.h"
#include "platform/devices/i8042.h"
#include "platform/devices/pci/i440fx.h"
#include "platform/devices/pci/pci_bus.h"
#include "platform/devices/pci/piix3_isa.h"
#include "platform/devices/pic.h"
#include "platform/devices/piix4_pm.h"
#include "platform/devices/pit.h"
#include "platform/devices/port61.h"
#include "platform/devices/rtc.h"
#include "platform/devices/storage/ata_controller.h"
#include "platform/devices/uart.h"
#include "platform/devices/vga/vga.h"
#include "platform/devices/vga/vga_pci.h"

namespace x86lab {

struct PcDevicesConfig {
  i64 rtc_start = Mc146818::kDefaultStart;  // calendar seconds at cycle 0
  SerialHost* com1_host = nullptr;          // host side of COM1 (null: output dropped)
  Uart16550::IrqGate serial_irq_gate = Uart16550::IrqGate::Out2;  // COM1's and COM2's INTR to IRQ wiring
  std::function<void()> reset_cpu;          // the 8042's CPU reset line
  AtaController::Drives drives{};           // hda, hdb, hdc, hdd (null: none); the Machine owns them
  DiskImage* floppies[2] = {};              // drives A: and B: of the 82077AA (null: no drive)
  std::vector<u8> vga_bios;                 // the VGA BIOS behind the adapter's expansion ROM BAR (empty: none)
};

// The sources that can drive one ISA IRQ line (PcDevices::set_irq_source): the ISA
// device wired to it, and the PIIX3's PIRQA#-PIRQD# routed onto it.
enum class IrqSource : u8 { IsaDevice = 0, PirqA = 1, PirqB = 2, PirqC = 3, PirqD = 4 };

class PcDevices {
 public:
  PcDevices(VirtualClock& clock, Cpu& cpu, PhysicalBus& bus, PortBus& ports, const PcDevicesConfig& config);
  // Saves, checks or loads every device's state: the members from pic on in their
  // order, then io_apic, then pm, the IRQ lines' sources, the PCI bus, ata (with the
  // disks' changed sectors), then dma and fdc.
  void transfer_state(StateArchive& archive);

  // The level of ISA IRQ line `irq` (0-15) as a device drives it: the one place that
  // fans an IRQ out to both interrupt controllers. The 8259A pair sees IRQ n on its
  // input n; the I/O APIC sees IRQ n on pin n, except IRQ 0 (the PIT), which a PC
  // wires to pin 2 (pin 0 carries the 8259A master's INT output, ExtINT). IRQ 2 is
  // the cascade and reaches no I/O APIC pin. This is the wiring that the MP table's
  // I/O interrupt entries and the MADT's interrupt source override describe
  // (platform/loaders/mp_table.h, acpi_tables.h).
  // The line is the OR of its sources (IrqSource): the ISA device's level given here,
  // and the PCI interrupts the PIIX3 routes onto it (level-triggered sharing, with the
  // ELCR selecting level mode at the 8259A; PCI interrupts reach the I/O APIC as an
  // active-high level, the polarity the ACPI tables SeaBIOS builds declare).
  void set_irq(unsigned irq, bool level) { set_irq_source(irq, IrqSource::IsaDevice, level); }
  void set_irq_source(unsigned irq, IrqSource source, bool level);
  // The sources driving IRQ `irq` now, bit n = IrqSource n.
  u8 irq_sources(unsigned irq) const { return irq < 16 ? irq_sources_[irq] : 0; }
  // The I/O APIC pin that ISA IRQ `irq` drives (IRQ 2: none, returns kNoPin).
  static constexpr unsigned kNoPin = ~0u;
  static constexpr unsigned io_apic_pin(unsigned irq) { return irq == 0 ? 2 : irq == 2 || irq > 15 ? kNoPin : irq; }


 private:
  // Per ISA IRQ, bit n = IrqSource n asserted. Declared before the devices, so it is
  // initialised when their constructors drive a line (the 82077AA's reset raises IRQ 6).
  std::array<u8, 16> irq_sources_{};

 public:
  // The APIC bus: the machine attaches each CPU's local APIC, the I/O APIC attaches itself.
  ApicBus apic_bus;
  // The 82093AA at FEC00000h (IoApic::kDefaultBase, a 4 KiB page); reset masked, so
  // the 8259A path alone delivers interrupts until a guest programs it.
  IoApic io_apic;
  PicPair pic;
  Pit8254 pit;
  SystemControlPortB port61;
  Mc146818 rtc;
  Uart16550 com1, com2;
  I8042 keyboard_controller;
  Vga vga;
  FpuErrorLatch fpu_error;  // FERR# -> IRQ 13, port F0h -> IGNNE#
  // The ACPI PM1a event and control blocks the FADT declares (ports 600h-605h).
  Piix4PowerManagement pm;
  // PCI bus 0 (CF8h/CFCh) and the chipset's functions on it. The PIIX3's reset control
  // register (CF9h) resets the CPU; a hard reset also puts the chipset's registers back
  // to their reset values (the shadow RAM closes).
  I440fx host_bridge;
  Piix3Isa isa_bridge;
  PciBus pci;

  // The IDE controller: ATA channels at 1F0h/3F6h (IRQ 14) and 170h/376h (IRQ 15),
  // plugged into `pci` at 00:01.1 (PIIX3 IDE). Its IDETIM decode enables are set from
  // power-up, as a BIOS leaves them.
  // DEVIATION: the data sheet resets IDETIM to 0000h (AtaController::Decode::PowerOn).
  AtaController ata;

  // The 8237A pair (ports 00h-0Fh, C0h-DFh, page registers 81h-8Fh) and the 82077AA
  // floppy controller (3F0h-3F5h, 3F7h; IRQ 6, DMA channel 2).
  Dma8237Pair dma;
  Fdc82077 fdc;
  // The VGA's PCI function (1234:1111, BAR0 the linear frame buffer, the expansion ROM
  // the VGA BIOS), plugged at 00:02.0.
  VgaPciFunction vga_pci;
};

}  // namespace x86lab
