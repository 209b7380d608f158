// The MP floating pointer structure and MP configuration table that describe x86lab's
// PC to a kernel booted without a BIOS (Intel MultiProcessor Specification 1.4,
// "MP Configuration Data Structures", "Default Configurations" wiring of the ISA IRQs).
#pragma once
#include "platform/loaders/boot_tables.h"
#include <vector>

#include "trace/types.h"

namespace x86lab {

// What the tables state about the machine.
struct MpMachine {
  u32 cpu_signature = 0;       // CPUID.1:EAX (stepping 3:0, model 7:4, family 11:8)
  u32 cpu_features = 0;        // CPUID.1:EDX
  u8 local_apic_id = 0;        // the BSP's local APIC ID
  u8 local_apic_version = 0x11;  // the P6 family's integrated local APIC (SDM "Local APIC Version Register")
  u32 local_apic_address = 0xFEE00000;
  u8 io_apic_id = boot_tables::kIoApicId;           // distinct from the local APIC's: one APIC bus
  u8 io_apic_version = 0x11;   // 82093AA
  u32 io_apic_address = 0xFEC00000;
};

// MP specification field values used by the builder and by tests.
namespace mp {
inline constexpr u8 kProcessor = 0, kBus = 1, kIoApic = 2, kIoInterrupt = 3, kLocalInterrupt = 4;  // entry types
inline constexpr u8 kInt = 0, kNmi = 1, kSmi = 2, kExtInt = 3;  // interrupt types
inline constexpr u8 kSpecificationRevision = 4;                 // 1.4
inline constexpr u8 kAllLocalApics = 0xFF;
}  // namespace mp

// The 16-byte floating pointer: "_MP_", the configuration table's physical address,
// length 1 (paragraphs), revision 4, checksum, feature bytes 0 (a configuration table
// is present; IMCRP clear: virtual wire mode, x86lab has no IMCR).
std::vector<u8> build_mp_floating_pointer(u32 configuration_table_address);

// The configuration table ("PCMP" header and base entries, sorted by type): one
// processor (enabled, BSP), bus 0 "ISA", one I/O APIC (enabled), I/O interrupt
// entries ExtINT on INTIN0 (the 8259A) and INT for ISA IRQ 0 on INTIN2 and IRQ n on
// INTINn for n = 1, 3-15 (polarity and trigger conform to the ISA bus), and the local
// interrupts LINT0 ExtINT and LINT1 NMI to every local APIC. Checksum correct.
std::vector<u8> build_mp_configuration_table(const MpMachine& machine);

}  // namespace x86lab
