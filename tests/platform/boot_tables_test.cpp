// The MP and ACPI tables of a direct kernel boot, read back as a kernel finds them:
// the MultiProcessor Specification 1.4's search for "_MP_" (F0000h-FFFFFh, 16-byte
// boundaries) and ACPI's search for "RSD PTR " (E0000h-FFFFFh, 16-byte boundaries),
// then every table's signature, length, checksum (bytes summing to 0 mod 256) and
// entries, at the offsets the two specifications give.
#include <gtest/gtest.h>

#include <string>

#include "cpu/cpu.h"
#include "platform/loaders/boot_entry.h"
#include "platform/loaders/boot_tables.h"
#include "platform/machine.h"

namespace x86lab {
namespace {

struct BootTablesFixture : ::testing::Test {
  Counters counters;
  PhysicalBus bus{16u << 20, counters};
  BootTablesFixture() { write_boot_tables(bus, default_profile()); }

  u32 peek(u32 address, unsigned size) {
    u32 value = 0;
    for (unsigned i = 0; i < size; ++i) value |= u32{bus.peek(address + i)} << (8 * i);
    return value;
  }
  std::string text(u32 address, unsigned size) {
    std::string s;
    for (unsigned i = 0; i < size; ++i) s += static_cast<char>(bus.peek(address + i));
    return s;
  }
  u8 sum(u32 address, u32 size) {
    u8 total = 0;
    for (u32 i = 0; i < size; ++i) total = static_cast<u8>(total + bus.peek(address + i));
    return total;
  }
  // The first 16-byte boundary in [begin, end) holding `signature` whose first
  // `checked` bytes sum to 0; 0 when there is none.
  u32 search(u32 begin, u32 end, const std::string& signature, u32 checked) {
    for (u32 a = begin; a < end; a += 16)
      if (text(a, static_cast<unsigned>(signature.size())) == signature && sum(a, checked) == 0) return a;
    return 0;
  }
  // An ACPI table at `address` with `signature`: its length, after checking the sum.
  u32 acpi_table(u32 address, const std::string& signature) {
    EXPECT_EQ(text(address, 4), signature);
    const u32 length = peek(address + 4, 4);
    EXPECT_EQ(sum(address, length), 0) << signature;
    return length;
  }
  // The RSDT's entries, by signature.
  u32 rsdt_entry(const std::string& signature) {
    const u32 rsdp = search(0xE0000, 0x100000, "RSD PTR ", 20);
    const u32 rsdt = peek(rsdp + 16, 4);
    const u32 length = acpi_table(rsdt, "RSDT");
    for (u32 e = rsdt + 36; e < rsdt + length; e += 4)
      if (text(peek(e, 4), 4) == signature) return peek(e, 4);
    return 0;
  }
};

TEST_F(BootTablesFixture, MpFloatingPointerIsFoundInTheBiosAreaWithItsChecksum) {
  const u32 fp = search(0xF0000, 0x100000, "_MP_", 16);
  ASSERT_NE(fp, 0u);
  EXPECT_EQ(bus.peek(fp + 8), 1);     // length: one paragraph
  EXPECT_EQ(bus.peek(fp + 9), 4);     // specification revision 1.4
  EXPECT_EQ(bus.peek(fp + 11), 0);    // feature byte 1: a configuration table is present
  EXPECT_EQ(bus.peek(fp + 12), 0);    // IMCRP clear: virtual wire mode
}

TEST_F(BootTablesFixture, MpConfigurationTableDescribesOneProcessorIsaAndTheIoApic) {
  const u32 table = peek(search(0xF0000, 0x100000, "_MP_", 16) + 4, 4);
  ASSERT_EQ(text(table, 4), "PCMP");
  const u32 length = peek(table + 4, 2);
  EXPECT_EQ(sum(table, length), 0);
  EXPECT_EQ(bus.peek(table + 6), 4);
  EXPECT_EQ(peek(table + 36, 4), 0xFEE00000u);  // local APIC address
  const u32 count = peek(table + 34, 2);
  EXPECT_EQ(count, 1u + 1 + 1 + 16 + 2);

  u32 e = table + 44;
  // Processor: type 0, APIC ID 0, version 11h, enabled | BSP, CPUID signature/features.
  EXPECT_EQ(bus.peek(e), 0);
  EXPECT_EQ(bus.peek(e + 1), 0);
  EXPECT_EQ(bus.peek(e + 2), 0x11);
  EXPECT_EQ(bus.peek(e + 3), 0x03);
  EXPECT_EQ(peek(e + 4, 4), default_profile().signature);
  EXPECT_EQ(peek(e + 8, 4), default_profile().features_edx);
  e += 20;
  EXPECT_EQ(bus.peek(e), 1);
  EXPECT_EQ(text(e + 2, 6), "ISA   ");
  e += 8;
  // I/O APIC: type 2, ID 1, version 11h, enabled, FEC00000h.
  EXPECT_EQ(bus.peek(e), 2);
  const u8 io_apic_id = bus.peek(e + 1);
  EXPECT_EQ(io_apic_id, 1);
  EXPECT_EQ(bus.peek(e + 2), 0x11);
  EXPECT_EQ(bus.peek(e + 3), 1);
  EXPECT_EQ(peek(e + 4, 4), 0xFEC00000u);
  e += 8;
  // I/O interrupts: ExtINT on INTIN0, then ISA IRQ -> INTIN with IRQ 0 on pin 2, no IRQ 2.
  u32 pin_of_irq[16];
  for (u32& p : pin_of_irq) p = ~0u;
  bool extint_on_pin0 = false;
  for (unsigned i = 0; i < 16; ++i, e += 8) {
    ASSERT_EQ(bus.peek(e), 3);
    EXPECT_EQ(bus.peek(e + 4), 0);  // source bus: ISA
    EXPECT_EQ(bus.peek(e + 6), io_apic_id);
    if (bus.peek(e + 1) == 3) extint_on_pin0 = bus.peek(e + 7) == 0;
    else pin_of_irq[bus.peek(e + 5)] = bus.peek(e + 7);
  }
  EXPECT_TRUE(extint_on_pin0);
  EXPECT_EQ(pin_of_irq[0], 2u);
  EXPECT_EQ(pin_of_irq[2], ~0u);
  for (unsigned irq : {1u, 3u, 4u, 8u, 9u, 12u, 13u, 14u, 15u}) EXPECT_EQ(pin_of_irq[irq], irq);
  // Local interrupts: LINT0 ExtINT and LINT1 NMI on every local APIC.
  EXPECT_EQ(bus.peek(e), 4);
  EXPECT_EQ(bus.peek(e + 1), 3);
  EXPECT_EQ(bus.peek(e + 6), 0xFF);
  EXPECT_EQ(bus.peek(e + 7), 0);
  EXPECT_EQ(bus.peek(e + 8), 4);
  EXPECT_EQ(bus.peek(e + 9), 1);
  EXPECT_EQ(bus.peek(e + 15), 1);
  EXPECT_EQ(e + 16, table + length);
}

TEST_F(BootTablesFixture, RsdpIsOnA16ByteBoundaryBelow1MiBWithRevision0AndItsChecksum) {
  const u32 rsdp = search(0xE0000, 0x100000, "RSD PTR ", 20);
  ASSERT_NE(rsdp, 0u);
  EXPECT_EQ(rsdp % 16, 0u);
  EXPECT_EQ(bus.peek(rsdp + 15), 0);  // revision 0: ACPI 1.0, the RSDT
  const u32 rsdt = peek(rsdp + 16, 4);
  EXPECT_EQ(acpi_table(rsdt, "RSDT"), 36u + 2 * 4);
}

TEST_F(BootTablesFixture, MadtHasTheLocalApicTheIoApicAndTheIrq0Override) {
  const u32 madt = rsdt_entry("APIC");
  ASSERT_NE(madt, 0u);
  const u32 length = acpi_table(madt, "APIC");
  EXPECT_EQ(peek(madt + 36, 4), 0xFEE00000u);
  EXPECT_EQ(peek(madt + 40, 4) & 1, 1u);  // PCAT_COMPAT
  bool local_apic = false, io_apic = false, irq0 = false, sci = false, nmi = false;
  for (u32 e = madt + 44; e < madt + length; e += bus.peek(e + 1)) {
    ASSERT_GT(bus.peek(e + 1), 0);
    switch (bus.peek(e)) {
      case 0: local_apic = bus.peek(e + 3) == 0 && (peek(e + 4, 4) & 1); break;
      case 1: io_apic = bus.peek(e + 2) == 1 && peek(e + 4, 4) == 0xFEC00000u && peek(e + 8, 4) == 0; break;
      case 2:
        if (bus.peek(e + 3) == 0) irq0 = bus.peek(e + 2) == 0 && peek(e + 4, 4) == 2;
        if (bus.peek(e + 3) == 9) sci = peek(e + 4, 4) == 9 && peek(e + 8, 2) == 0x000D;  // active high, level
        break;
      case 4: nmi = bus.peek(e + 2) == 0xFF && bus.peek(e + 5) == 1; break;
    }
  }
  EXPECT_TRUE(local_apic);
  EXPECT_TRUE(io_apic);
  EXPECT_TRUE(irq0);
  EXPECT_TRUE(sci);
  EXPECT_TRUE(nmi);
}

TEST_F(BootTablesFixture, FadtPointsAtAValidFacsAndDsdtAndNamesTheSci) {
  const u32 fadt = rsdt_entry("FACP");
  ASSERT_NE(fadt, 0u);
  EXPECT_EQ(acpi_table(fadt, "FACP"), 116u);
  EXPECT_EQ(bus.peek(fadt + 8), 1);
  const u32 facs = peek(fadt + 36, 4), dsdt = peek(fadt + 40, 4);
  EXPECT_EQ(text(facs, 4), "FACS");
  EXPECT_EQ(peek(facs + 4, 4), 64u);
  EXPECT_EQ(facs % 64, 0u);
  EXPECT_EQ(acpi_table(dsdt, "DSDT"), 36u);
  EXPECT_EQ(peek(fadt + 46, 2), 9u);         // SCI_INT
  EXPECT_EQ(peek(fadt + 48, 4), 0u);         // SMI_CMD: always in ACPI mode
  EXPECT_NE(peek(fadt + 56, 4), 0u);         // PM1a_EVT_BLK
  EXPECT_NE(peek(fadt + 64, 4), 0u);         // PM1a_CNT_BLK
  EXPECT_EQ(peek(fadt + 76, 4), 0u);         // no PM timer
  EXPECT_EQ(bus.peek(fadt + 88), 4);         // PM1_EVT_LEN
  EXPECT_EQ(bus.peek(fadt + 89), 2);         // PM1_CNT_LEN
  EXPECT_GT(peek(fadt + 96, 2), 100u);       // no C2
  EXPECT_GT(peek(fadt + 98, 2), 1000u);      // no C3
  EXPECT_EQ(peek(fadt + 112, 4) & 0x30, 0x30u);  // power and sleep buttons are not fixed features
}

TEST_F(BootTablesFixture, TablesLieInTheRangeTheE820MapReserves) {
  bool reserved = false;
  for (const MemoryRange& r : pc_memory_map(16u << 20))
    if (r.type == MemoryRange::Reserved && r.base <= boot_tables::kBase && boot_tables::kEnd <= r.base + r.length) reserved = true;
  EXPECT_TRUE(reserved);
}

}  // namespace
}  // namespace x86lab

namespace x86lab {
namespace {

// A BIOS writes the I/O APIC's ID into its ID register before the OS reads the tables;
// the register resets to 0 (82093AA data sheet, "IOAPICID"), so without that write the
// tables' ID 1 and the register would disagree (xv6's ioapicinit, for one, compares them).
TEST(BootTablesMachine, ADirectBootLeavesTheIoApicIdRegisterAtTheTablesId) {
  MachineConfig config;
  config.kernel.kernel_path = std::string(X86LAB_ROM_DIR) + "/multiboot/timer_kernel.elf";
  Machine machine(config);
  EXPECT_EQ(machine.devices->io_apic.read_register(IoApic::kIoApicId), u32{boot_tables::kIoApicId} << 24);
  MachineConfig rom;  // without a direct boot nothing writes it
  rom.bios.assign(64 * 1024, 0xF4);
  Machine plain(rom);
  EXPECT_EQ(plain.devices->io_apic.read_register(IoApic::kIoApicId), 0u);
}

}  // namespace
}  // namespace x86lab
