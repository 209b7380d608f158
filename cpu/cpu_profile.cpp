// Built-in CPU profiles. Feature bits name only what x86lab implements: no FPU bit
// until the x87 unit exists, no APIC, PAE, MMX or SSE (DESIGN.md section 1).
#include "cpu/cpu_profile.h"

namespace x86lab {
namespace {
constexpr u32 kImplementedEdx = cpuid_edx::DE | cpuid_edx::PSE | cpuid_edx::TSC | cpuid_edx::MSR | cpuid_edx::CX8 |
                                cpuid_edx::SEP | cpuid_edx::PGE | cpuid_edx::CMOV;

// Pentium III (Katmai), family 6 model 7 stepping 3. Leaf 2 descriptors: 16 KiB L1
// caches, 512 KiB L2, TLBs (SDM CPUID leaf 2 descriptor table: 01 02 03 04 08 0C 43).
constexpr CpuProfile kProfiles[] = {
    {"p3", "GenuineIntel", 0x00000673u, kImplementedEdx, 0, {0x03020101u, 0, 0, 0x0C040843u}, false},
    // Athlon (K7) family 6 model 2; AMD reports caches through extended leaves, leaf 2 is empty.
    {"k7", "AuthenticAMD", 0x00000621u, kImplementedEdx, 0, {0, 0, 0, 0}, false},
    // Pentium 4 (Prescott) family 15 model 3.
    {"p4", "GenuineIntel", 0x00000F34u, kImplementedEdx, 0, {0x605B5001u, 0, 0, 0x007D7040u}, false},
    // A modern Intel core as seen by 32-bit software.
    {"modern", "GenuineIntel", 0x000906EAu, kImplementedEdx, 0, {0x00FEFF01u, 0x000000F0u, 0, 0}, false},
    // The i386 behaviour for the Accessed bit, for the design comparisons.
    {"i386-locking", "GenuineIntel", 0x00000673u, kImplementedEdx, 0, {0x03020101u, 0, 0, 0x0C040843u}, true},
};
}  // namespace

const CpuProfile* find_profile(std::string_view name) {
  for (const auto& profile : kProfiles)
    if (profile.name == name) return &profile;
  return nullptr;
}

const CpuProfile& default_profile() { return kProfiles[0]; }

}  // namespace x86lab
