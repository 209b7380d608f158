// Device construction and I/O port / IRQ wiring of the PC/AT platform.
#include "platform/pc_devices.h"

namespace x86lab {

PcDevices::PcDevices(VirtualClock& clock, Cpu& cpu, PhysicalBus& bus, PortBus& ports, const PcDevicesConfig& config)
    : io_apic(apic_bus, &cpu.counters(), [&cpu] { return cpu.tracer(); }),
      pic(&cpu),
      pit(clock, [this](bool level) { set_irq(0, level); }),
      port61(clock, pit),
      rtc(clock, config.rtc_start, [this](bool level) { set_irq(8, level); }),
      com1(clock, 0x3F8, [this](bool level) { set_irq(4, level); }),
      com2(clock, 0x2F8, [this](bool level) { set_irq(3, level); }),
      keyboard_controller({[this](unsigned irq, bool level) { set_irq(irq, level); },
                           [&bus](bool enabled) { bus.set_a20(A20Source::KeyboardController, enabled); }, config.reset_cpu}),
      vga(clock),
      fpu_error([this](bool level) { set_irq(13, level); }),
      host_bridge(bus),
      isa_bridge([this](unsigned irq, unsigned pirq, bool level) {
                   set_irq_source(irq, static_cast<IrqSource>(static_cast<unsigned>(IrqSource::PirqA) + pirq), level);
                 },
                 [this, reset_cpu = config.reset_cpu](bool hard) {
                   if (hard) {
                     host_bridge.reset();
                     isa_bridge.reset();
                   }
                   if (reset_cpu) reset_cpu();
                 }),
      pci(ports, bus, [this](pci::Address address, u8 pin, bool level) { isa_bridge.route_intx(address, pin, level); }),
      ata(bus, [this](unsigned irq, bool level) { set_irq(irq, level); }, config.drives),
      dma(bus),
      fdc(clock, [this](bool level) { set_irq(Fdc82077::kIrq, level); }, &dma),
      vga_pci(vga, config.vga_bios) {
  ports.attach(0x20, 0x21, &pic);
  ports.attach(0xF0, 0xF0, &fpu_error);
  cpu.set_x87_error_pins(fpu_error.pins());
  ports.attach(0xA0, 0xA1, &pic);
  ports.attach(0x4D0, 0x4D1, &pic);
  ports.attach(0x40, 0x43, &pit);
  ports.attach(0x61, 0x61, &port61);
  ports.attach(0x70, 0x71, &rtc);
  ports.attach(0x3F8, 0x3FF, &com1);
  ports.attach(0x2F8, 0x2FF, &com2);
  ports.attach(0x60, 0x60, &keyboard_controller);
  ports.attach(0x64, 0x64, &keyboard_controller);
  vga.attach_legacy(ports, bus);
  ports.attach(0x00, 0x0F, &dma);
  ports.attach(0x81, 0x8F, &dma);  // 80h stays the POST port (platform/debug_ports.h)
  ports.attach(0xC0, 0xDF, &dma);
  ports.attach(0x3F0, 0x3F5, &fdc);
  ports.attach(0x3F7, 0x3F7, &fdc);
  for (unsigned drive = 0; drive < Fdc82077::kDrives; ++drive) fdc.insert(drive, config.floppies[drive]);
  ports.attach(Piix4PowerManagement::kPm1aEventBlock, Piix4PowerManagement::kLastPort, &pm);
  ata.attach_ports(ports);
  rtc.set_configuration(bus.ram_bytes(), cpu.profile().features_edx & cpuid_edx::FPU);
  com1.attach_host(config.com1_host);
  com1.set_irq_gate(config.serial_irq_gate);
  com2.set_irq_gate(config.serial_irq_gate);
  cpu.set_interrupt_controller(&pic);
  pic.set_int_output_listener([this](bool level) { io_apic.set_input(0, level); });
  bus.map_mmio(IoApic::kDefaultBase, IoApic::kMmioSize, &io_apic);
  ports.attach(PciBus::kConfigAddress, PciBus::kConfigData + 3, &pci);
  ports.attach(Piix3Isa::kResetControl, Piix3Isa::kResetControl, &isa_bridge);
  pci.plug({0, 0}, host_bridge);
  pci.plug({1, 0}, isa_bridge);
  pci.plug({1, 1}, ata.pci_function());
  pci.plug(VgaPciFunction::kAddress, vga_pci);
}

void PcDevices::set_irq_source(unsigned irq, IrqSource source, bool level) {
  if (irq > 15) return;
  const u8 bit = static_cast<u8>(1u << static_cast<unsigned>(source));
  irq_sources_[irq] = static_cast<u8>(level ? irq_sources_[irq] | bit : irq_sources_[irq] & ~bit);
  level = irq_sources_[irq] != 0;
  pic.set_irq(irq, level);
  if (const unsigned pin = io_apic_pin(irq); pin != kNoPin) io_apic.set_input(pin, level);
}

void PcDevices::transfer_state(StateArchive& a) {
  pic.transfer_state(a);
  pit.transfer_state(a);
  port61.transfer_state(a);
  rtc.transfer_state(a);
  com1.transfer_state(a);
  com2.transfer_state(a);
  keyboard_controller.transfer_state(a);
  vga.transfer_state(a);
  fpu_error.transfer_state(a);
  io_apic.transfer_state(a);
  pm.transfer_state(a);
  a.array(irq_sources_, "IRQ line sources", 0x1F);
  pci.transfer_state(a);
  ata.transfer_state(a);
  dma.transfer_state(a);
  fdc.transfer_state(a);
}

}  // namespace x86lab
