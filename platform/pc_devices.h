// The PC/AT devices of a Machine and their wiring (DESIGN.md section 1, "Target
// machine"): 8259A pair, 8254 with port 61h, MC146818 RTC/CMOS, COM1 and COM2
// 16550As, the 8042 keyboard controller, the VGA (its legacy ports, the DISPI ports
// and the A0000h window; its PCI function, platform/devices/vga/vga_pci.h, is plugged
// where the PCI bus is built), the 82093AA I/O APIC
// and the PIIX4's ACPI PM1 registers, on the PC's I/O ports, memory and IRQ lines. Port 92h and the debug ports are
// attached by the Machine.
#pragma once
#include <functional>

#include "cpu/cpu.h"
#include "platform/clock.h"
#include "platform/devices/apic/apic_bus.h"
#include "platform/devices/apic/io_apic.h"
#include "platform/devices/fpu_error.h"
#include "platform/devices/i8042.h"
#include "platform/devices/pic.h"
#include "platform/devices/piix4_pm.h"
#include "platform/devices/pit.h"
#include "platform/devices/port61.h"
#include "platform/devices/rtc.h"
#include "platform/devices/uart.h"
#include "platform/devices/vga/vga.h"

namespace x86lab {

struct PcDevicesConfig {
  i64 rtc_start = Mc146818::kDefaultStart;  // calendar seconds at cycle 0
  SerialHost* com1_host = nullptr;          // host side of COM1 (null: output dropped)
  std::function<void()> reset_cpu;          // the 8042's CPU reset line
};

class PcDevices {
 public:
  PcDevices(VirtualClock& clock, Cpu& cpu, PhysicalBus& bus, PortBus& ports, const PcDevicesConfig& config);
  // Saves, checks or loads every device's state: the members from pic on in their
  // order, then io_apic, then pm.
  void transfer_state(StateArchive& archive);

  // The level of ISA IRQ line `irq` (0-15) as a device drives it: the one place that
  // fans an IRQ out to both interrupt controllers. The 8259A pair sees IRQ n on its
  // input n; the I/O APIC sees IRQ n on pin n, except IRQ 0 (the PIT), which a PC
  // wires to pin 2 (pin 0 carries the 8259A master's INT output, ExtINT). IRQ 2 is
  // the cascade and reaches no I/O APIC pin. This is the wiring that the MP table's
  // I/O interrupt entries and the MADT's interrupt source override describe
  // (platform/loaders/mp_table.h, acpi_tables.h).
  void set_irq(unsigned irq, bool level);
  // The I/O APIC pin that ISA IRQ `irq` drives (IRQ 2: none, returns kNoPin).
  static constexpr unsigned kNoPin = ~0u;
  static constexpr unsigned io_apic_pin(unsigned irq) { return irq == 0 ? 2 : irq == 2 || irq > 15 ? kNoPin : irq; }

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
};

}  // namespace x86lab
