// The ACPI tables that describe x86lab's PC to a kernel booted without a BIOS: RSDP
// (revision 0, ACPI 1.0) -> RSDT -> FADT (-> FACS, DSDT) and MADT (Advanced
// Configuration and Power Interface Specification: "Root System Description Pointer
// (RSDP)", "System Description Table Header", "Fixed ACPI Description Table (FADT)",
// "Firmware ACPI Control Structure (FACS)", "Multiple APIC Description Table (MADT)").
#pragma once
#include "platform/devices/piix4_pm.h"
#include "platform/loaders/boot_tables.h"
#include <vector>

#include "trace/types.h"

namespace x86lab {

struct AcpiMachine {
  u8 local_apic_id = 0;
  u32 local_apic_address = 0xFEE00000;
  u8 io_apic_id = boot_tables::kIoApicId;
  u32 io_apic_address = 0xFEC00000;
  u16 sci_irq = 9;                 // the ISA IRQ of the SCI (no device of x86lab raises it)
  // PM1a event and control blocks: the PIIX4 PM registers of PcDevices::pm
  // (platform/devices/piix4_pm.h). ACPICA needs both to be non-zero to start its
  // interpreter, and writes and reads back PM1_EN. No PM timer block (optional since
  // ACPI 5.0A).
  u16 pm1a_event_block = Piix4PowerManagement::kPm1aEventBlock;      // 4 bytes: PM1a_STS, PM1a_EN
  u16 pm1a_control_block = Piix4PowerManagement::kPm1aControlBlock;  // 2 bytes: PM1a_CNT
};

// ACPI field values used by the builders and by tests.
namespace acpi {
inline constexpr u32 kMadtPcatCompat = 1u << 0;  // MADT flags: an 8259A pair is present
inline constexpr u8 kLocalApic = 0, kIoApic = 1, kInterruptSourceOverride = 2, kLocalApicNmi = 4;  // MADT entries
inline constexpr u16 kActiveHigh = 1, kActiveLow = 3, kEdge = 1 << 2, kLevel = 3 << 2;  // MPS INTI flags
inline constexpr std::size_t kHeaderBytes = 36;
inline constexpr std::size_t kRsdpBytes = 20;   // revision 0
inline constexpr std::size_t kFadtBytes = 116;  // FADT revision 1 (ACPI 1.0)
inline constexpr std::size_t kFacsBytes = 64;
}  // namespace acpi

// RSDP revision 0: "RSD PTR ", checksum over its 20 bytes, OEM ID, RSDT address.
std::vector<u8> build_rsdp(u32 rsdt_address);
// RSDT revision 1 with the 32-bit addresses of `tables`.
std::vector<u8> build_rsdt(const std::vector<u32>& tables);
// MADT revision 1: local APIC address, PCAT_COMPAT; processor local APIC 0 (enabled),
// the I/O APIC (GSI base 0), interrupt source overrides ISA IRQ 0 -> GSI 2 (conforms
// to the bus) and the SCI's IRQ -> same GSI (active high, level: the line idles low),
// and local APIC NMI on LINT1 of every processor.
std::vector<u8> build_madt(const AcpiMachine& machine);
// FADT revision 1 (116 bytes): FACS and DSDT addresses, SCI_INT, SMI_CMD 0, the PM1a
// blocks, C2/C3 latencies that say "not supported", flags WBINVD | PROC_C1 |
// PWR_BUTTON | SLP_BUTTON | FIX_RTC (no fixed-feature buttons, no RTC wake status).
std::vector<u8> build_fadt(const AcpiMachine& machine, u32 facs_address, u32 dsdt_address);
// FACS (64 bytes, no checksum; must be placed 64-byte aligned): no waking vector, no
// global lock owner.
std::vector<u8> build_facs();
// DSDT: a definition block header (revision 1) with no AML in it.
std::vector<u8> build_dsdt();

}  // namespace x86lab
