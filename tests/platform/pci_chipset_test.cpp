// PCI bus 0 with the 440FX chipset, as the data sheets describe them: configuration
// mechanism #1 (PCI Local Bus Specification 2.2, 3.2.2.3.2), the 82441FX PMC's
// identity and PAM shadow-RAM routing, the PIIX3 ISA bridge's identity, PIRQ routing and
// reset control register. Peer values: QEMU's i440FX and PIIX3 report the same IDs and
// class codes (`lspci -n` in a QEMU guest: 00:00.0 0600: 8086:1237, 00:01.0 0601: 8086:7000).
#include <gtest/gtest.h>

#include <vector>

#include "platform/devices/pci/i440fx.h"
#include "platform/devices/pci/pci_bus.h"
#include "platform/devices/pci/piix3_isa.h"
#include "platform/machine.h"

namespace x86lab {
namespace {

u32 config_address(u8 device, u8 function, u8 offset) {
  return 0x80000000u | u32{device} << 11 | u32{function} << 8 | offset;
}

// A machine with no BIOS; the chipset is there whatever the firmware.
struct ChipsetTest : ::testing::Test {
  Machine machine{MachineConfig{}};
  u32 read_config(u8 device, u8 function, u8 offset, unsigned size = 4) {
    machine.ports.write(0xCF8, 4, config_address(device, function, offset & 0xFC));
    return machine.ports.read(static_cast<u16>(0xCFC + (offset & 3)), size);
  }
  void write_config(u8 device, u8 function, u8 offset, unsigned size, u32 value) {
    machine.ports.write(0xCF8, 4, config_address(device, function, offset & 0xFC));
    machine.ports.write(static_cast<u16>(0xCFC + (offset & 3)), size, value);
  }
};

TEST_F(ChipsetTest, HostBridgeIs8086_1237WithHostBridgeClass) {
  EXPECT_EQ(read_config(0, 0, 0x00), 0x12378086u);
  EXPECT_EQ(read_config(0, 0, 0x08) >> 8, 0x060000u);
  EXPECT_EQ(read_config(0, 0, 0x0E, 1), 0x00u);
}

TEST_F(ChipsetTest, IsaBridgeIs8086_7000MultiFunctionWithIsaBridgeClass) {
  EXPECT_EQ(read_config(1, 0, 0x00), 0x70008086u);
  EXPECT_EQ(read_config(1, 0, 0x08) >> 8, 0x060100u);
  EXPECT_EQ(read_config(1, 0, 0x0E, 1), 0x80u);
}

TEST_F(ChipsetTest, AbsentFunctionAndOtherBusReadAllOnes) {
  EXPECT_EQ(read_config(5, 0, 0x00), 0xFFFFFFFFu);
  machine.ports.write(0xCF8, 4, 0x80010000u);  // bus 1, device 0
  EXPECT_EQ(machine.ports.read(0xCFC, 4), 0xFFFFFFFFu);
  machine.ports.write(0xCF8, 4, 0x00000000u);  // enable bit clear
  EXPECT_EQ(machine.ports.read(0xCFC, 4), 0xFFFFFFFFu);
}

TEST_F(ChipsetTest, ConfigAddressKeepsEnableBusDeviceFunctionRegisterOnly) {
  machine.ports.write(0xCF8, 4, 0xFFFFFFFFu);
  EXPECT_EQ(machine.ports.read(0xCF8, 4), 0x80FFFFFCu);  // 30:24 reserved, 1:0 read 0
  machine.ports.write(0xCF8, 1, 0x00);  // a byte access is no CONFIG_ADDRESS access
  EXPECT_EQ(machine.ports.read(0xCF8, 4), 0x80FFFFFCu);
}

TEST_F(ChipsetTest, ConfigDataByteAndWordAccessesReachTheirRegisterBytes) {
  EXPECT_EQ(read_config(0, 0, 0x02, 2), 0x1237u);
  EXPECT_EQ(read_config(1, 0, 0x03, 1), 0x70u);
}

TEST_F(ChipsetTest, ChipsetRegistersResetAsTheDataSheetsSay) {
  EXPECT_EQ(read_config(0, 0, 0x72, 1), 0x02u);  // SMRAM: C_BASE_SEG 010b, closed
  EXPECT_EQ(read_config(0, 0, 0x60, 1), 0x01u);  // DRB0
  EXPECT_EQ(read_config(0, 0, 0x57, 1), 0x01u);  // DRAMC
  for (u8 pirq = 0; pirq < 4; ++pirq) EXPECT_EQ(read_config(1, 0, 0x60 + pirq, 1), 0x80u);  // routing disabled
  EXPECT_EQ(read_config(1, 0, 0x4C, 1), 0x4Du);  // IORT
  EXPECT_EQ(read_config(1, 0, 0x69, 1), 0x02u);  // TOM
}

TEST_F(ChipsetTest, PamReservedBitsReadZero) {
  write_config(0, 0, 0x59, 1, 0xFF);
  EXPECT_EQ(read_config(0, 0, 0x59, 1), 0x30u);  // PAM0's low nibble is reserved
  write_config(0, 0, 0x5A, 1, 0xFF);
  EXPECT_EQ(read_config(0, 0, 0x5A, 1), 0x33u);
}

// PAM: the segments of a ROM-backed PC (the ROM at E0000h-FFFFFh beneath the RAM).
struct PamTest : ::testing::Test {
  Counters counters;
  PhysicalBus bus{2 * 1024 * 1024, counters};
  I440fx host{bus};
  PamTest() {
    std::vector<u8> rom(0x20000);
    for (std::size_t i = 0; i < rom.size(); ++i) rom[i] = static_cast<u8>(0xA0 + i % 7);
    bus.map_rom(0xE0000, rom);
  }
  void set_pam(u8 offset, u8 value) { host.config_write(offset, 1, value); }
};

TEST_F(PamTest, AtResetReadsAndWritesGoToTheRom) {
  EXPECT_EQ(bus.read<u8>(0xF0000, AccessKind::Data), 0xA0 + 0x10000 % 7);
  bus.write<u8>(0xF0000, 0x11, AccessKind::Data);
  EXPECT_EQ(bus.read<u8>(0xF0000, AccessKind::Data), 0xA0 + 0x10000 % 7);
  EXPECT_EQ(bus.read<u8>(0xC0000, AccessKind::Data), 0xFF);  // no ROM at C0000h: open bus
}

TEST_F(PamTest, WriteOnlyShadowsTheRomIntoRamThenReadOnlyShowsIt) {
  set_pam(0x59, 0x20);  // F0000h-FFFFFh: WE
  for (u32 a = 0xF0000; a < 0xF0010; ++a) bus.write<u8>(a, bus.read<u8>(a, AccessKind::Data) ^ 0x5A, AccessKind::Data);
  EXPECT_EQ(bus.read<u8>(0xF0000, AccessKind::Data), 0xA0 + 0x10000 % 7);  // reads still from ROM
  set_pam(0x59, 0x10);  // RE
  EXPECT_EQ(bus.read<u8>(0xF0000, AccessKind::Data), (0xA0 + 0x10000 % 7) ^ 0x5A);
  bus.write<u8>(0xF0000, 0x00, AccessKind::Data);  // write protected: goes to the ROM, dropped
  EXPECT_EQ(bus.read<u8>(0xF0000, AccessKind::Data), (0xA0 + 0x10000 % 7) ^ 0x5A);
  set_pam(0x59, 0x30);  // RE | WE
  bus.write<u8>(0xF0000, 0x77, AccessKind::Data);
  EXPECT_EQ(bus.read<u8>(0xF0000, AccessKind::Data), 0x77);
  set_pam(0x59, 0x00);
  EXPECT_EQ(bus.read<u8>(0xF0000, AccessKind::Data), 0xA0 + 0x10000 % 7);
}

TEST_F(PamTest, EachNibbleRoutesItsOwnSixteenKiBSegment) {
  set_pam(0x5E, 0x30);  // PAM5: E4000h-E7FFFh read/write RAM, E0000h-E3FFFh ROM
  bus.write<u8>(0xE4000, 0x42, AccessKind::Data);
  bus.write<u8>(0xE0000, 0x42, AccessKind::Data);
  EXPECT_EQ(bus.read<u8>(0xE4000, AccessKind::Data), 0x42);
  EXPECT_EQ(bus.read<u8>(0xE0000, AccessKind::Data), 0xA0);
  EXPECT_TRUE(bus.reads_ram(0xE4) && bus.writes_ram(0xE7));
  EXPECT_FALSE(bus.reads_ram(0xE3) || bus.writes_ram(0xE8));
}

TEST_F(PamTest, WritesUnderFetchedRomCodeRetireNothingUntilTheReadsMove) {
  (void)bus.fetch<u8>(0xF0000);
  set_pam(0x59, 0x20);  // WE: the copy under the ROM code
  const u64 before = counters.code_block_invalidations;
  bus.write<u8>(0xF0000, 0x90, AccessKind::Data);
  EXPECT_EQ(counters.code_block_invalidations, before);
  EXPECT_TRUE(bus.is_code_byte(0xF0000));
  set_pam(0x59, 0x10);  // RE: the bytes fetched from now on are the RAM's
  EXPECT_EQ(counters.code_block_invalidations, before + 1);
  EXPECT_FALSE(bus.is_code_byte(0xF0000));
}

TEST_F(PamTest, OpenShadowBelowTheRomMakesTheRestRam) {
  host.open_shadow_below(0xE0000);
  EXPECT_EQ(host.config_byte(0x5A), 0x33);
  EXPECT_EQ(host.config_byte(0x5D), 0x33);
  EXPECT_EQ(host.config_byte(0x5E), 0x00);
  EXPECT_EQ(host.config_byte(0x59), 0x00);
  bus.write<u8>(0xDFFFF, 0x12, AccessKind::Data);
  EXPECT_EQ(bus.read<u8>(0xDFFFF, AccessKind::Data), 0x12);
}

// A PCI function with an interrupt pin and two BARs, for routing and sizing.
struct TestFunction : PciFunction {
  struct Sink : BusDevice {
    u32 read(u32, unsigned) override { return 0; }
    void write(u32, unsigned, u32) override {}
    std::string_view device_name() const override { return "sink"; }
  } sink;
  explicit TestFunction(u8 pin) : PciFunction(0x1234, 0x5678, 1, 0xFF0000, 0, pin) {
    declare_bar(0, BarKind::Io, 16, &sink);
    declare_bar(1, BarKind::Memory32, 4096, &sink);
  }
  std::string_view function_name() const override { return "test"; }
  using PciFunction::set_intx;
};

TEST_F(ChipsetTest, BarSizingReadsBackTheSizeMaskAndTypeBits) {
  TestFunction f(1);
  machine.devices->pci.plug({3, 0}, f);
  write_config(3, 0, 0x10, 4, 0xFFFFFFFFu);
  EXPECT_EQ(read_config(3, 0, 0x10), 0xFFFFFFF1u);  // 16 ports, I/O space indicator
  write_config(3, 0, 0x14, 4, 0xFFFFFFFFu);
  EXPECT_EQ(read_config(3, 0, 0x14), 0xFFFFF000u);  // 4 KiB, 32-bit non-prefetchable memory
}

TEST(Piix3Isa, BoardSwizzleRotatesPinsByDevice) {
  EXPECT_EQ(Piix3Isa::pirq_of(1, 1), 0u);  // device 1 INTA#: PIRQA#
  EXPECT_EQ(Piix3Isa::pirq_of(2, 1), 1u);
  EXPECT_EQ(Piix3Isa::pirq_of(3, 1), 2u);
  EXPECT_EQ(Piix3Isa::pirq_of(3, 2), 3u);
  EXPECT_EQ(Piix3Isa::pirq_of(4, 2), 0u);
}

TEST_F(ChipsetTest, PirqRoutingDrivesTheRoutedIsaIrqOnlyWhenEnabled) {
  TestFunction f(1);  // device 3 INTA#: PIRQC#
  machine.devices->pci.plug({3, 0}, f);
  machine.devices->pic.master().set_elcr(0x00);
  f.set_intx(true);
  EXPECT_EQ(machine.devices->irq_sources(11), 0);  // routing disabled at reset
  write_config(1, 0, 0x62, 1, 0x0B);
  EXPECT_EQ(machine.devices->irq_sources(11), 1u << static_cast<unsigned>(IrqSource::PirqC));
  EXPECT_TRUE(machine.devices->io_apic.input(11));
  write_config(1, 0, 0x62, 1, 0x0A);  // moved: IRQ 11 released, IRQ 10 driven
  EXPECT_EQ(machine.devices->irq_sources(11), 0);
  EXPECT_NE(machine.devices->irq_sources(10), 0);
  f.set_intx(false);
  EXPECT_EQ(machine.devices->irq_sources(10), 0);
  EXPECT_FALSE(machine.devices->io_apic.input(10));
}

TEST_F(ChipsetTest, SharedIrqLineIsTheOrOfItsSources) {
  TestFunction a(1), b(1);  // devices 3 and 7 INTA#: PIRQC# both
  machine.devices->pci.plug({3, 0}, a);
  machine.devices->pci.plug({7, 0}, b);
  write_config(1, 0, 0x62, 1, 0x0B);
  a.set_intx(true);
  b.set_intx(true);
  a.set_intx(false);
  EXPECT_TRUE(machine.devices->io_apic.input(11));  // b still holds it
  machine.devices->set_irq(11, true);               // an ISA device on the same line
  b.set_intx(false);
  EXPECT_TRUE(machine.devices->io_apic.input(11));
  machine.devices->set_irq(11, false);
  EXPECT_FALSE(machine.devices->io_apic.input(11));
}

TEST_F(ChipsetTest, ReservedPirqRoutingValuesRouteNowhere) {
  for (const u8 irq : {0, 1, 2, 8, 13}) {
    write_config(1, 0, 0x60, 1, irq);
    EXPECT_EQ(machine.devices->isa_bridge.routed_irq(0), 0u) << int{irq};
  }
  write_config(1, 0, 0x60, 1, 0x8F);
  EXPECT_EQ(read_config(1, 0, 0x60, 1), 0x8Fu);
  EXPECT_EQ(machine.devices->isa_bridge.routed_irq(0), 0u);
}

TEST(Piix3Isa, ResetControlResetsOnRcpuRisingEdgeHardWithSrst) {
  std::vector<bool> resets;
  Piix3Isa isa({}, [&](bool hard) { resets.push_back(hard); });
  isa.write(0xCF9, 1, 0x02);
  EXPECT_EQ(isa.read(0xCF9, 1), 0x02u);
  EXPECT_TRUE(resets.empty());
  isa.write(0xCF9, 1, 0x06);
  isa.write(0xCF9, 1, 0x04);
  ASSERT_EQ(resets.size(), 2u);
  EXPECT_TRUE(resets[0]);
  EXPECT_FALSE(resets[1]);
}

TEST_F(ChipsetTest, MachineWithoutPcBiosKeepsRamBelowOneMiB) {
  machine.bus.write<u8>(0xC0000, 0x5A, AccessKind::Data);
  EXPECT_EQ(machine.bus.read<u8>(0xC0000, AccessKind::Data), 0x5A);
  machine.bus.write<u8>(0xFFFF0, 0x5B, AccessKind::Data);
  EXPECT_EQ(machine.bus.read<u8>(0xFFFF0, AccessKind::Data), 0x5B);
}

}  // namespace
}  // namespace x86lab
