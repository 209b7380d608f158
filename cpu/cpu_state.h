// The architectural state of one IA-32 processor (Intel SDM Vol. 1, "Basic Execution
// Environment"; Vol. 3, "System Architecture Overview"). Plain data: the CPU and
// the debugger read and write it; only segment_loading.cpp writes descriptor caches.
#pragma once
#include <array>

#include "cpu/x87/fpu_state.h"
#include "segmentation/descriptor.h"

namespace x86lab {

enum GeneralRegister : u8 { EAX = 0, ECX = 1, EDX = 2, EBX = 3, ESP = 4, EBP = 5, ESI = 6, EDI = 7 };

struct CpuState {
  std::array<u32, 8> gpr{};  // EAX ECX EDX EBX ESP EBP ESI EDI
  u32 eip = 0;
  u32 eflags = 2;
  std::array<SegmentRegister, 6> segments{};  // ES CS SS DS FS GS
  SegmentRegister ldtr, tr;
  DescriptorTableRegister gdtr, idtr;
  u32 cr0 = 0x60000010u, cr2 = 0, cr3 = 0, cr4 = 0;
  std::array<u32, 8> dr{};  // DR0-DR7 (DR4/DR5 alias DR6/DR7)
  u8 cpl = 0;
  u32 sysenter_cs = 0, sysenter_esp = 0, sysenter_eip = 0;  // IA32_SYSENTER_* MSRs
  u64 tsc_offset = 0;              // time-stamp counter = modeled cycles + this (WRMSR 10h sets it)
  // P6 performance-monitoring counters (SDM Vol. 3, "Performance Monitoring (P6 Family
  // Processor)"): PerfEvtSel0/1 (MSRs 186h/187h) and PerfCtr0/1 (MSRs C1h/C2h, 40 bits).
  // A counter's value is perfctr_base plus what its event source counted since
  // perfctr_since (cpu/performance_counters.h).
  std::array<u32, 2> perfevtsel{};
  std::array<u64, 2> perfctr_base{}, perfctr_since{};
  bool halted = false;
  bool shutdown = false;           // triple fault: the CPU stopped
  bool interrupt_shadow = false;   // the instruction after MOV SS/POP SS/STI blocks interrupts
  bool mov_ss_shadow = false;      // ... and after MOV SS/POP SS also debug traps (delayed one instruction)
  bool nmi_pending = false;        // the NMI pin was raised and the NMI not yet delivered
  bool nmi_blocked = false;        // an NMI handler runs: further NMIs wait for an IRET
  FpuState fpu;                    // the x87 FPU (cpu/x87/fpu_state.h), RESET values
};

namespace cr0 {
inline constexpr u32 PE = 1u << 0, MP = 1u << 1, EM = 1u << 2, TS = 1u << 3, ET = 1u << 4, NE = 1u << 5,
                     WP = 1u << 16, AM = 1u << 18, NW = 1u << 29, CD = 1u << 30, PG = 1u << 31;
}
namespace cr4 {
inline constexpr u32 VME = 1u << 0, PVI = 1u << 1, TSD = 1u << 2, DE = 1u << 3, PSE = 1u << 4, PAE = 1u << 5,
                     MCE = 1u << 6, PGE = 1u << 7, PCE = 1u << 8;
}

}  // namespace x86lab
