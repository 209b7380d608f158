// Where the direct kernel loaders put the MP and ACPI tables (mp_table.h,
// acpi_tables.h): in the BIOS area that kernels search when there is no BIOS, inside
// the range pc_memory_map already reports reserved (MultiProcessor Specification 1.4,
// "MP Floating Pointer Structure": F0000h-FFFFFh; ACPI "Finding the RSDP on IA-PC
// Systems": 16-byte boundaries in E0000h-FFFFFh).
#pragma once
#include "cpu/cpu_profile.h"
#include "mmu/physical_bus.h"

namespace x86lab {

// The 4 KiB the tables occupy, and each table's physical address.
namespace boot_tables {
inline constexpr u32 kBase = 0xF0000, kEnd = 0xF1000;
inline constexpr u32 kMpFloatingPointer = 0xF0000;  // 16 bytes
inline constexpr u32 kRsdp = 0xF0010;               // 20 bytes
inline constexpr u32 kFacs = 0xF0040;               // 64 bytes, 64-byte aligned
inline constexpr u32 kRsdt = 0xF0080;
inline constexpr u32 kFadt = 0xF00C0;
inline constexpr u32 kDsdt = 0xF0140;
inline constexpr u32 kMadt = 0xF0180;
inline constexpr u32 kMpConfigurationTable = 0xF0200;
// The I/O APIC's ID in both tables: distinct from the local APIC's (0) on the one APIC
// bus. Its ID register resets to 0 (82093AA data sheet); a BIOS writes the ID it puts
// in the tables, and so does the Machine after a direct boot (Machine::Machine).
inline constexpr u8 kIoApicId = 1;
}  // namespace boot_tables

// Writes the tables for one P6 processor (APIC ID 0, `profile`'s CPUID signature and
// features) with the 8259A pair and the 82093AA of PcDevices, into RAM at
// boot_tables::kBase (poke semantics: no bus cycles, no counters). Needs RAM up to
// kEnd (every machine has at least 1 MiB).
void write_boot_tables(PhysicalBus& bus, const CpuProfile& profile);

}  // namespace x86lab
