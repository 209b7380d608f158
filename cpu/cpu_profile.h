// CPU profiles: the CPUID answers and model-specific behaviour of a processor family
// (Intel SDM Vol. 2, "CPUID"). The cost model's numbers live in the profile data files
// of the tracing layer; this is what the CPU itself reports and does.
#pragma once
#include <array>
#include <string_view>

#include "mmu/tlb_model.h"
#include "trace/types.h"

namespace x86lab {

namespace cpuid_edx {
inline constexpr u32 FPU = 1u << 0, VME = 1u << 1, DE = 1u << 2, PSE = 1u << 3, TSC = 1u << 4, MSR = 1u << 5,
                     PAE = 1u << 6, MCE = 1u << 7, CX8 = 1u << 8, APIC = 1u << 9, SEP = 1u << 11,
                     MTRR = 1u << 12, PGE = 1u << 13, MCA = 1u << 14, CMOV = 1u << 15, FXSR = 1u << 24;
}

struct CpuProfile {
  std::string_view name;                 // "p3", "k7", "p4", "modern"
  std::string_view vendor;               // 12 characters: "GenuineIntel"
  u32 signature;                         // CPUID.1:EAX (stepping, model, family), also EDX after reset
  u32 features_edx;                      // CPUID.1:EDX: only what x86lab implements
  u32 features_ecx;                      // CPUID.1:ECX
  std::array<u32, 4> cache_descriptors;  // CPUID.2: EAX EBX ECX EDX
  bool accessed_bit_always_written;      // i386 behaviour: write the Accessed bit on every load
  TlbGeometry tlb;                       // first-level TLB sizes, for the TLB statistics model only
  u64 bus_hz;                            // the processor's bus clock in Hz: the local APIC timer's input
};

// The built-in profiles; `p3` is the default. Returns nullptr for an unknown name.
const CpuProfile* find_profile(std::string_view name);
const CpuProfile& default_profile();

}  // namespace x86lab
