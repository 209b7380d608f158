// The PIIX4's ACPI PM1 registers at the ports the FADT names (82371AB PIIX4 data sheet,
// "Power Management Registers"; ACPI Specification, "PM1 Event Grouping" and "PM1
// Control Grouping" for what the FADT's blocks hold).
#include "platform/devices/piix4_pm.h"

#include <gtest/gtest.h>

#include "platform/loaders/acpi_tables.h"
#include "platform/machine.h"
#include "trace/state_archive.h"

namespace x86lab {
namespace {

using Pm = Piix4PowerManagement;

u32 le32(const std::vector<u8>& t, std::size_t at) {
  return t[at] | t[at + 1] << 8 | t[at + 2] << 16 | static_cast<u32>(t[at + 3]) << 24;
}

TEST(Piix4Pm, TheFadtNamesTheDevicesPorts) {
  const std::vector<u8> fadt = build_fadt(AcpiMachine{}, 0, 0);
  EXPECT_EQ(le32(fadt, 56), 0x600u) << "PM1a_EVT_BLK";
  EXPECT_EQ(le32(fadt, 64), 0x604u) << "PM1a_CNT_BLK";
  EXPECT_EQ(fadt[88], 4) << "PM1_EVT_LEN: PMSTS and PMEN";
  EXPECT_EQ(fadt[89], 2) << "PM1_CNT_LEN: PMCNTRL";
  EXPECT_EQ(le32(fadt, 48), 0u) << "SMI_CMD 0: always in ACPI mode, so SCI_EN reads 1";
}

TEST(Piix4Pm, PowerUpStateHasOnlySciEnSet) {
  MachineConfig config;
  Machine machine(config);
  EXPECT_EQ(machine.ports.read(0x600, 2), 0x0000u) << "PMSTS";
  EXPECT_EQ(machine.ports.read(0x602, 2), 0x0000u) << "PMEN";
  EXPECT_EQ(machine.ports.read(0x604, 2), 0x0001u) << "PMCNTRL: SCI_EN";
  EXPECT_EQ(machine.ports.read(0x600, 4), 0x00000000u) << "PMSTS and PMEN in one dword";
}

// What ACPICA does for "Could not disable RealTimeClock events": clear RTC_EN in PM1_EN
// and read it back.
TEST(Piix4Pm, EnableBitsReadBackAsWritten) {
  MachineConfig config;
  Machine machine(config);
  machine.ports.write(0x602, 2, 0xFFFF);
  EXPECT_EQ(machine.ports.read(0x602, 2), 0x0521u) << "RTC_EN, PWRBTN_EN, GBL_EN, TMROF_EN; reserved bits 0";
  machine.ports.write(0x603, 1, 0x00);
  EXPECT_EQ(machine.ports.read(0x602, 2), 0x0021u) << "a byte write touches one byte";
  machine.ports.write(0x602, 2, 0x0000);
  EXPECT_EQ(machine.ports.read(0x602, 2), 0x0000u);
}

TEST(Piix4Pm, SciEnReadsOneAndIgnoresWrites) {
  Pm pm;
  pm.write(0x604, 2, 0x0000);
  EXPECT_EQ(pm.read(0x604, 2), 0x0001u);
  pm.write(0x604, 2, 0x0006);  // BRLD_EN_BM and GBL_RLS (write-only)
  EXPECT_EQ(pm.read(0x604, 2), 0x0003u);
  pm.write(0x604, 2, 0x1C00);  // SUS_TYP 7
  EXPECT_EQ(pm.read(0x604, 2), 0x1C01u);
}

TEST(Piix4Pm, SleepRequestWakesAtOnceWithWakSts) {
  Pm pm;
  pm.write(0x604, 2, 0x2000 | (5u << 10));  // SUS_EN with SUS_TYP 5
  EXPECT_EQ(pm.sleep_requests(), 1u);
  EXPECT_EQ(pm.read(0x604, 2), 0x1401u) << "SUS_EN reads 0, SUS_TYP as written";
  EXPECT_EQ(pm.read(0x600, 2), 0x8000u) << "WAK_STS";
  pm.write(0x600, 2, 0x7FFF);
  EXPECT_EQ(pm.read(0x600, 2), 0x8000u) << "writing 0 leaves a status bit";
  pm.write(0x601, 1, 0x80);
  EXPECT_EQ(pm.read(0x600, 2), 0x0000u) << "writing 1 clears it";
  pm.write(0x605, 1, 0x20);  // SUS_EN in a byte write
  EXPECT_EQ(pm.sleep_requests(), 2u);
}

TEST(Piix4Pm, BytesPastTheBlockReadAsOpenBus) {
  Pm pm;
  EXPECT_EQ(pm.read(0x604, 4), 0xFFFF0001u);
  EXPECT_EQ(pm.read(0x605, 1), 0x00u);
  pm.write(0x604, 4, 0xFFFF0000u);  // bytes 606h-607h belong to no register
  EXPECT_EQ(pm.read(0x604, 2), 0x0001u);
  EXPECT_EQ(pm.sleep_requests(), 0u);
}

TEST(Piix4Pm, StateSurvivesASnapshot) {
  Pm pm;
  pm.write(0x602, 2, 0x0400);
  pm.write(0x604, 2, 0x2402);  // BRLD_EN_BM, SUS_TYP 1, SUS_EN
  StateArchive save;
  pm.transfer_state(save);
  Pm loaded;
  StateArchive load(StateArchive::Mode::Load, save.bytes());
  loaded.transfer_state(load);
  load.expect_end("PM1 registers");
  EXPECT_EQ(loaded.pmsts(), 0x8000u);
  EXPECT_EQ(loaded.pmen(), 0x0400u);
  EXPECT_EQ(loaded.pmcntrl(), 0x0403u);
  EXPECT_EQ(loaded.sleep_requests(), 1u);
}

}  // namespace
}  // namespace x86lab
