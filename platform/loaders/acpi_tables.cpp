// ACPI table bytes (ACPI Specification: "Root System Description Pointer (RSDP)
// Structure", "System Description Table Header", "Fixed ACPI Description Table
// (FADT)", "Firmware ACPI Control Structure (FACS)", "Multiple APIC Description Table
// (MADT)", "Differentiated System Description Table (DSDT)").
#include "platform/loaders/acpi_tables.h"

#include <string_view>

#include "platform/loaders/table_bytes.h"

namespace x86lab {

namespace {
constexpr std::string_view kOemId = "X86LAB";
constexpr u8 kIsaBus = 0;
constexpr u32 kMadtEnabled = 1;
// FADT flags.
constexpr u32 kWbinvd = 1u << 0, kProcC1 = 1u << 2, kPowerButton = 1u << 4, kSleepButton = 1u << 5,
              kFixRtc = 1u << 6;
constexpr u16 kNoC2 = 101, kNoC3 = 1001;  // P_LVL2_LAT > 100, P_LVL3_LAT > 1000: not supported

// The 36-byte header; length and checksum are filled in by finish().
void header(TableBytes& t, std::string_view signature, u8 revision, std::string_view table_id) {
  t.text(signature, 4);
  t.put32(0);  // length
  t.put8(revision);
  t.put8(0);   // checksum
  t.text(kOemId, 6);
  t.text(table_id, 8);
  t.put32(1);  // OEM revision
  t.text("XLAB", 4);  // creator ID
  t.put32(1);  // creator revision
}
std::vector<u8> finish(TableBytes& t) {
  t.patch(4, static_cast<u32>(t.size()), 4);
  t.set_checksum(9, 0, t.size());
  return t.take();
}

void source_override(TableBytes& t, u8 irq, u32 gsi, u16 flags) {
  t.put8(acpi::kInterruptSourceOverride);
  t.put8(10);
  t.put8(kIsaBus);
  t.put8(irq);
  t.put32(gsi);
  t.put16(flags);
}
}  // namespace

std::vector<u8> build_rsdp(u32 rsdt_address) {
  TableBytes t;
  t.text("RSD PTR ", 8);
  t.put8(0);  // checksum
  t.text(kOemId, 6);
  t.put8(0);  // revision 0: ACPI 1.0, RSDT only
  t.put32(rsdt_address);
  t.set_checksum(8, 0, t.size());
  return t.take();
}

std::vector<u8> build_rsdt(const std::vector<u32>& tables) {
  TableBytes t;
  header(t, "RSDT", 1, "X86LRSDT");
  for (u32 address : tables) t.put32(address);
  return finish(t);
}

std::vector<u8> build_madt(const AcpiMachine& m) {
  TableBytes t;
  header(t, "APIC", 1, "X86LAPIC");
  t.put32(m.local_apic_address);
  t.put32(acpi::kMadtPcatCompat);
  // Processor local APIC: ACPI processor ID, APIC ID, flags.
  t.put8(acpi::kLocalApic);
  t.put8(8);
  t.put8(0);
  t.put8(m.local_apic_id);
  t.put32(kMadtEnabled);
  // I/O APIC: ID, reserved, address, global system interrupt base.
  t.put8(acpi::kIoApic);
  t.put8(12);
  t.put8(m.io_apic_id);
  t.put8(0);
  t.put32(m.io_apic_address);
  t.put32(0);
  // PcDevices::set_irq's wiring: IRQ 0 on INTIN2; the rest identity-mapped.
  source_override(t, 0, 2, 0);
  source_override(t, static_cast<u8>(m.sci_irq), m.sci_irq, acpi::kActiveHigh | acpi::kLevel);
  // Local APIC NMI: every processor (FFh), flags conform, LINT1.
  t.put8(acpi::kLocalApicNmi);
  t.put8(6);
  t.put8(0xFF);
  t.put16(0);
  t.put8(1);
  return finish(t);
}

std::vector<u8> build_fadt(const AcpiMachine& m, u32 facs_address, u32 dsdt_address) {
  TableBytes t;
  header(t, "FACP", 1, "X86LFACP");
  t.put32(facs_address);          // 36 FIRMWARE_CTRL
  t.put32(dsdt_address);          // 40 DSDT
  t.put8(1);                      // 44 INT_MODEL (ACPI 1.0): multiple APIC
  t.put8(0);                      // 45 reserved
  t.put16(m.sci_irq);             // 46 SCI_INT
  t.put32(0);                     // 48 SMI_CMD: none, the machine is always in ACPI mode
  t.put8(0);                      // 52 ACPI_ENABLE
  t.put8(0);                      // 53 ACPI_DISABLE
  t.put8(0);                      // 54 S4BIOS_REQ
  t.put8(0);                      // 55 reserved
  t.put32(m.pm1a_event_block);    // 56 PM1a_EVT_BLK
  t.put32(0);                     // 60 PM1b_EVT_BLK
  t.put32(m.pm1a_control_block);  // 64 PM1a_CNT_BLK
  t.put32(0);                     // 68 PM1b_CNT_BLK
  t.put32(0);                     // 72 PM2_CNT_BLK
  t.put32(0);                     // 76 PM_TMR_BLK
  t.put32(0);                     // 80 GPE0_BLK
  t.put32(0);                     // 84 GPE1_BLK
  t.put8(4);                      // 88 PM1_EVT_LEN
  t.put8(2);                      // 89 PM1_CNT_LEN
  t.put8(0);                      // 90 PM2_CNT_LEN
  t.put8(0);                      // 91 PM_TM_LEN
  t.put8(0);                      // 92 GPE0_BLK_LEN
  t.put8(0);                      // 93 GPE1_BLK_LEN
  t.put8(0);                      // 94 GPE1_BASE
  t.put8(0);                      // 95 reserved
  t.put16(kNoC2);                 // 96 P_LVL2_LAT
  t.put16(kNoC3);                 // 98 P_LVL3_LAT
  t.put16(0);                     // 100 FLUSH_SIZE
  t.put16(0);                     // 102 FLUSH_STRIDE
  t.put8(0);                      // 104 DUTY_OFFSET
  t.put8(0);                      // 105 DUTY_WIDTH
  t.put8(0);                      // 106 DAY_ALRM
  t.put8(0);                      // 107 MON_ALRM
  t.put8(0);                      // 108 CENTURY
  t.zeros(3);                     // 109 reserved
  t.put32(kWbinvd | kProcC1 | kPowerButton | kSleepButton | kFixRtc);  // 112 Flags
  return finish(t);
}

std::vector<u8> build_facs() {
  TableBytes t;
  t.text("FACS", 4);
  t.put32(static_cast<u32>(acpi::kFacsBytes));
  t.put32(0);  // hardware signature
  t.put32(0);  // firmware waking vector
  t.put32(0);  // global lock
  t.put32(0);  // flags
  t.zeros(acpi::kFacsBytes - t.size());
  return t.take();
}

std::vector<u8> build_dsdt() {
  TableBytes t;
  header(t, "DSDT", 1, "X86LDSDT");
  return finish(t);
}

}  // namespace x86lab
