// Built-in CPU profiles. Feature bits name only what x86lab implements: the x87 FPU
// and the local APIC (platform/devices/apic/local_apic.h) but not FXSR (FXSAVE/FXRSTOR
// raise #UD), PAE, MMX or SSE (DESIGN.md section 1).
#include "cpu/cpu_profile.h"

namespace x86lab {
namespace {
constexpr u32 kImplementedEdx = cpuid_edx::FPU | cpuid_edx::DE | cpuid_edx::PSE | cpuid_edx::TSC | cpuid_edx::MSR |
                                cpuid_edx::CX8 | cpuid_edx::APIC | cpuid_edx::SEP | cpuid_edx::PGE | cpuid_edx::CMOV;

// First-level TLB sizes {entries, ways} as code 4K, code 4M, data 4K, data 4M, for the
// statistics model (mmu/tlb_model.h). Sources:
// - P6: CPUID leaf 2 descriptors 01h-04h (SDM "CPUID", TLB descriptor table).
// - K7: CPUID 8000_0005h of the Athlon: 16/8-entry instruction and 24/8-entry data
//   L1 TLBs, fully associative (the 24-entry data TLB: AnandTech, "Athlon 4", 2001).
// - Pentium 4: leaf 2 descriptors 50h and 5Bh: 64-entry instruction and data TLBs for
//   4K and 4M pages together, fully associative.
// - modern (Skylake core): Intel Optimization Reference Manual, Skylake TLB table:
//   ITLB 128 8-way + 8 fully associative, DTLB 64 4-way + 32 4-way.
// Second-level TLBs are not modeled.
constexpr TlbGeometry kK7Tlb = {{16, 16}, {8, 8}, {24, 24}, {8, 8}};
constexpr TlbGeometry kP4Tlb = {{64, 64}, {0, 0}, {64, 64}, {0, 0}};
constexpr TlbGeometry kSkylakeTlb = {{128, 8}, {8, 8}, {64, 4}, {32, 4}};

// Bus clocks, the local APIC timer's input (the timer counts the processor's bus clock,
// SDM "APIC Timer"):
// - p3: 100 MHz, the Katmai Pentium III's system bus (Intel Pentium III Processor
//   datasheet: 100 MHz system bus; 133 MHz parts came later, assumption range 100-133).
// - k7: 100 MHz, the Athlon's EV6 bus clock (200 MT/s, both edges); assumption that
//   its APIC timer counts it (range 100-133 MHz).
// - p4: 200 MHz, Prescott's 800 MT/s quad-pumped bus clock; assumption (range 133-200).
// - modern: 100 MHz, assumption (range 24-100 MHz: newer cores' APIC timers count a
//   crystal clock, 24 MHz on Skylake clients, rather than a bus clock).
constexpr u64 kP3BusHz = 100'000'000, kK7BusHz = 100'000'000, kP4BusHz = 200'000'000, kModernBusHz = 100'000'000;

// Pentium III (Katmai), family 6 model 7 stepping 3. Leaf 2 descriptors: 16 KiB L1
// caches, 512 KiB L2, TLBs (SDM CPUID leaf 2 descriptor table: 01 02 03 04 08 0C 43).
constexpr CpuProfile kProfiles[] = {
    {"p3", "GenuineIntel", 0x00000673u, kImplementedEdx, 0, {0x03020101u, 0, 0, 0x0C040843u}, false, kP6TlbGeometry, kP3BusHz},
    // Athlon (K7) family 6 model 2; AMD reports caches through extended leaves, leaf 2 is empty.
    {"k7", "AuthenticAMD", 0x00000621u, kImplementedEdx, 0, {0, 0, 0, 0}, false, kK7Tlb, kK7BusHz},
    // Pentium 4 (Prescott) family 15 model 3.
    {"p4", "GenuineIntel", 0x00000F34u, kImplementedEdx, 0, {0x605B5001u, 0, 0, 0x007D7040u}, false, kP4Tlb, kP4BusHz},
    // A modern Intel core as seen by 32-bit software.
    {"modern", "GenuineIntel", 0x000906EAu, kImplementedEdx, 0, {0x00FEFF01u, 0x000000F0u, 0, 0}, false, kSkylakeTlb, kModernBusHz},
    // The i386 behaviour for the Accessed bit, for the design comparisons.
    {"i386-locking", "GenuineIntel", 0x00000673u, kImplementedEdx, 0, {0x03020101u, 0, 0, 0x0C040843u}, true, kP6TlbGeometry, kP3BusHz},
};
}  // namespace

const CpuProfile* find_profile(std::string_view name) {
  for (const auto& profile : kProfiles)
    if (profile.name == name) return &profile;
  return nullptr;
}

const CpuProfile& default_profile() { return kProfiles[0]; }

}  // namespace x86lab
