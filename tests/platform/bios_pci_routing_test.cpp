// The i440FX board's PCI interrupt wiring checked against the BIOSes that build the
// interrupt tables for it: Debian's SeaBIOS and Bochs BIOS, run to their boot device
// search with PCI functions that have an INTA# at devices 3 and 4 (2 is the VGA), must program PIRQ
// routing and Interrupt Line registers that send each function's INTA# to the ISA IRQ
// the BIOS wrote (and so to the I/O APIC pin of that number, as their MP tables say).
// Skipped when the package's file is absent.
#include <gtest/gtest.h>

#include <filesystem>

#include "platform/machine.h"
#include "platform/rom_image.h"

namespace x86lab {
namespace {

struct PinFunction : PciFunction {
  PinFunction() : PciFunction(0x1234, 0x0001, 0, 0xFF0000, 0, 1) {}  // INTA#
  std::string_view function_name() const override { return "pin-a"; }
  using PciFunction::set_intx;
};

void check_bios(const char* path) {
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent (packages seabios, bochsbios)";
  MachineConfig config;
  config.bios = read_rom_image(path);
  config.max_instructions = 8'000'000;  // past the PCI setup of both (docs/booting.md)
  PinFunction device3, device4;  // outlive the machine that holds them
  Machine machine(config);
  machine.devices->pci.plug({3, 0}, device3);  // 00:02.0 is the VGA
  machine.devices->pci.plug({4, 0}, device4);
  machine.run();
  for (PinFunction* f : {&device3, &device4}) {
    const u8 line = f->config_byte(pci::kInterruptLine);
    SCOPED_TRACE(testing::Message() << path << " device " << (f == &device3 ? 3 : 4) << " line " << int{line});
    ASSERT_TRUE(line >= 3 && line <= 15);
    f->set_intx(true);
    EXPECT_TRUE(machine.devices->irq_sources(line) & ~1u);  // a PIRQ drives the line the BIOS wrote
    EXPECT_TRUE(machine.devices->io_apic.input(line));
    f->set_intx(false);
    EXPECT_FALSE(machine.devices->io_apic.input(line));
  }
}

TEST(BiosPciRouting, SeaBiosProgramsTheBoardsSwizzle) { check_bios("/usr/share/seabios/bios-256k.bin"); }
TEST(BiosPciRouting, BochsBiosProgramsTheBoardsSwizzle) { check_bios("/usr/share/bochs/BIOS-bochs-latest"); }

}  // namespace
}  // namespace x86lab
