// System and flag instructions: CPUID, RDTSC, RDMSR/WRMSR, SYSENTER/SYSEXIT, IN/OUT,
// CLI STI CLD STD CLC STC CMC, UD2, INVD, WBINVD, INVLPG, MOV to/from CRn and DRn,
// CLTS, LMSW, SMSW, LGDT, LIDT, SGDT, SIDT (Intel SDM Vol. 2, each instruction's page).
#include "cpu/cpu.h"
#include "cpu/instruction_table.h"
#include "cpu/io_permission.h"
#include "cpu/performance_counters.h"
#include "cpu/privilege.h"
#include "segmentation/system_segments.h"

namespace x86lab {
namespace {

void cpuid(Cpu& c, const Instruction&) {
  const CpuProfile& p = c.profile();
  auto& r = c.state.gpr;
  auto vendor_word = [&](unsigned n) {
    u32 w = 0;
    for (unsigned k = 0; k < 4; ++k) w |= u32{static_cast<u8>(p.vendor[n * 4 + k])} << (8 * k);
    return w;
  };
  switch (r[EAX]) {
    case 0: r[EAX] = 2; r[EBX] = vendor_word(0); r[EDX] = vendor_word(1); r[ECX] = vendor_word(2); break;
    // EBX bits 31:24: the initial APIC ID, 0 for the one CPU (the BSP).
    case 1: r[EAX] = p.signature; r[EBX] = 0; r[ECX] = p.features_ecx; r[EDX] = p.features_edx; break;
    case 2: r[EAX] = p.cache_descriptors[0]; r[EBX] = p.cache_descriptors[1]; r[ECX] = p.cache_descriptors[2]; r[EDX] = p.cache_descriptors[3]; break;
    default:  // SDM: leaves above the maximum return the highest basic leaf's data
      r[EAX] = p.cache_descriptors[0]; r[EBX] = p.cache_descriptors[1]; r[ECX] = p.cache_descriptors[2]; r[EDX] = p.cache_descriptors[3]; break;
  }
}

// The time-stamp counter: the modeled cycle count plus the offset a WRMSR to it set.
u64 time_stamp_counter(Cpu& c) { return c.clock().cycles() + c.state.tsc_offset; }

// RDTSC returns the time-stamp counter; CR4.TSD makes it privileged.
void rdtsc(Cpu& c, const Instruction&) {
  if ((c.state.cr4 & cr4::TSD) && c.state.cpl != 0 && !c.real_mode()) throw gp(0, "RDTSC with CR4.TSD at CPL > 0");
  c.note_rdtsc();
  const u64 tsc = time_stamp_counter(c);
  c.state.gpr[EAX] = static_cast<u32>(tsc);
  c.state.gpr[EDX] = static_cast<u32>(tsc >> 32);
}

// RDPMC: EDX:EAX = performance counter ECX (0 or 1 on P6, else #GP(0)); outside ring 0
// (virtual-8086 mode included) only with CR4.PCE (SDM Vol. 2 "RDPMC").
void rdpmc(Cpu& c, const Instruction&) {
  if (!c.real_mode() && (c.state.cpl != 0 || c.virtual_8086()) && !(c.state.cr4 & cr4::PCE))
    throw gp(0, "RDPMC with CR4.PCE clear at CPL > 0");
  const u32 n = c.state.gpr[ECX];
  if (n > 1) throw gp(0, "RDPMC of a counter the P6 does not have");
  const u64 value = pmc::read_counter(c.state, c.counters(), c.clock(), n);
  c.state.gpr[EAX] = static_cast<u32>(value);
  c.state.gpr[EDX] = static_cast<u32>(value >> 32);
}

namespace msr {
constexpr u32 kTsc = 0x10, kApicBase = 0x1B, kBiosSignId = 0x8B, kPlatformId = 0x17, kSysenterCs = 0x174, kSysenterEsp = 0x175, kSysenterEip = 0x176;
}

void rdmsr(Cpu& c, const Instruction&) {
  u64 value;
  switch (c.state.gpr[ECX]) {
    case msr::kTsc: value = time_stamp_counter(c); break;
    case pmc::kPerfCtr0: case pmc::kPerfCtr1: value = pmc::read_counter(c.state, c.counters(), c.clock(), c.state.gpr[ECX] - pmc::kPerfCtr0); break;
    case pmc::kPerfEvtSel0: case pmc::kPerfEvtSel1: value = c.state.perfevtsel[c.state.gpr[ECX] - pmc::kPerfEvtSel0]; break;
    case msr::kApicBase:  // without a local APIC: global enable clear
      value = c.apic_base_register() ? c.apic_base_register()->apic_base() : 0xFEE00000u;
      break;
    case msr::kBiosSignId: value = 0; break;  // IA32_BIOS_SIGN_ID: no microcode update loaded (EDX = 0)
    case msr::kPlatformId: value = 0; break;  // IA32_PLATFORM_ID: platform ID bits 52:50 = 0
    case msr::kSysenterCs: value = c.state.sysenter_cs; break;
    case msr::kSysenterEsp: value = c.state.sysenter_esp; break;
    case msr::kSysenterEip: value = c.state.sysenter_eip; break;
    default: throw gp(0, "RDMSR of an unknown MSR");
  }
  c.state.gpr[EAX] = static_cast<u32>(value);
  c.state.gpr[EDX] = static_cast<u32>(value >> 32);
}

void wrmsr(Cpu& c, const Instruction&) {
  const u32 value = c.state.gpr[EAX];
  switch (c.state.gpr[ECX]) {
    // The TSC takes the value written from here on; device time (the cycle count) goes on.
    case msr::kTsc: c.state.tsc_offset = ((u64{c.state.gpr[EDX]} << 32) | value) - c.clock().cycles(); break;
    case pmc::kPerfCtr0: case pmc::kPerfCtr1: {
      const unsigned n = c.state.gpr[ECX] - pmc::kPerfCtr0;
      pmc::reprogram(c.state, c.counters(), c.clock(), [&] { c.state.perfctr_base[n] = pmc::counter_from_write(value); });
      break;
    }
    case pmc::kPerfEvtSel0: case pmc::kPerfEvtSel1: {
      const unsigned n = c.state.gpr[ECX] - pmc::kPerfEvtSel0;
      pmc::reprogram(c.state, c.counters(), c.clock(), [&] { c.state.perfevtsel[n] = value; });
      break;
    }
    case msr::kSysenterCs: c.state.sysenter_cs = value & 0xFFFF; break;
    case msr::kSysenterEsp: c.state.sysenter_esp = value; break;
    case msr::kSysenterEip: c.state.sysenter_eip = value; break;
    case msr::kBiosSignId: break;  // software writes 0 before CPUID to read the revision back
    case msr::kApicBase:  // reserved bits set, or no local APIC: #GP(0)
      if (!c.apic_base_register() || !c.apic_base_register()->write_apic_base((u64{c.state.gpr[EDX]} << 32) | value))
        throw gp(0, "WRMSR to IA32_APIC_BASE with reserved bits set");
      break;
    default: throw gp(0, "WRMSR of an unknown MSR");
  }
}

// SYSENTER/SYSEXIT load flat CS and SS caches from IA32_SYSENTER_CS without reading
// the GDT (SDM "SYSENTER": the descriptors are "fixed" values).
void load_flat(SegmentRegister& reg, u16 selector, bool code, u8 dpl) { load_flat_segment(reg, selector, code, dpl); }

void sysenter(Cpu& c, const Instruction&) {
  if (c.real_mode() || (c.state.sysenter_cs & 0xFFFC) == 0) throw gp(0, "SYSENTER with IA32_SYSENTER_CS = 0 or in real mode");
  c.state.eflags &= ~(flag::VM | flag::IF | flag::RF);
  c.state.cpl = 0;
  load_flat(c.state.segments[CS], static_cast<u16>(c.state.sysenter_cs & 0xFFFC), true, 0);
  load_flat(c.state.segments[SS], static_cast<u16>((c.state.sysenter_cs + 8) & 0xFFFC), false, 0);
  c.state.gpr[ESP] = c.state.sysenter_esp;
  c.state.eip = c.state.sysenter_eip;
}

void sysexit(Cpu& c, const Instruction&) {
  if (!c.protected_mode() || (c.state.sysenter_cs & 0xFFFC) == 0)  // (CPL 0: kPrivileged)
    throw gp(0, "SYSEXIT in real mode or with IA32_SYSENTER_CS = 0");
  c.state.cpl = 3;
  load_flat(c.state.segments[CS], static_cast<u16>((c.state.sysenter_cs + 16) | 3), true, 3);
  load_flat(c.state.segments[SS], static_cast<u16>((c.state.sysenter_cs + 24) | 3), false, 3);
  c.state.gpr[ESP] = c.state.gpr[ECX];
  c.state.eip = c.state.gpr[EDX];
}

// IN/OUT: the port is Ib (zero-extended) or DX.
u16 port_of(const Cpu& c, const Instruction& i, unsigned n) {
  return i.operands[n].method == OperandMethod::I ? static_cast<u16>(i.immediate & 0xFF) : c.reg<u16>(EDX);
}
template <class T>
void in(Cpu& c, const Instruction& i) {
  const u16 port = port_of(c, i, 1);
  if (auto fault = io_permission_fault(c, port, sizeof(T))) [[unlikely]] return c.signal_fault(*fault);
  c.set_reg<T>(EAX, static_cast<T>(c.ports().read(port, sizeof(T))));
}
template <class T>
void out(Cpu& c, const Instruction& i) {
  const u16 port = port_of(c, i, 0);
  if (auto fault = io_permission_fault(c, port, sizeof(T))) [[unlikely]] return c.signal_fault(*fault);
  c.ports().write(port, sizeof(T), c.reg<T>(EAX));
}

// CLI/STI: IOPL-sensitive in protected and V86 mode. STI blocks interrupts for one
// instruction (the interrupt shadow).
void cli(Cpu& c, const Instruction&) {
  if (!c.real_mode() && c.state.cpl > c.iopl()) [[unlikely]] return c.signal_fault(gp(0, "CLI with CPL > IOPL"));
  c.state.eflags &= ~flag::IF;
}
void sti(Cpu& c, const Instruction&) {
  if (!c.real_mode() && c.state.cpl > c.iopl()) [[unlikely]] return c.signal_fault(gp(0, "STI with CPL > IOPL"));
  if (!c.flag_set(flag::IF)) c.start_interrupt_shadow(false);
  c.state.eflags |= flag::IF;
  c.notify_interrupt();
}
void cld(Cpu& c, const Instruction&) { c.state.eflags &= ~flag::DF; }
void std_(Cpu& c, const Instruction&) { c.state.eflags |= flag::DF; }
void clc(Cpu& c, const Instruction&) { c.state.eflags &= ~flag::CF; }
void stc(Cpu& c, const Instruction&) { c.state.eflags |= flag::CF; }
void cmc(Cpu& c, const Instruction&) { c.state.eflags ^= flag::CF; }

void ud2(Cpu&, const Instruction&) { throw ud("UD2"); }
void invd(Cpu&, const Instruction&) {}    // no caches are modeled
void wbinvd(Cpu&, const Instruction&) {}
// INVLPG m: drops the TLB entry of the page holding m's linear address (segment base
// plus effective address; no limit check, and no fault for an unmapped page).
void invlpg(Cpu& c, const Instruction& i) {
  c.mmu().invalidate_page(c.state.segments[i.segment].cache.base + c.effective_address(i));
}

// MOV to/from control registers: always 32-bit, ModRM.mod ignored (treated as register).
void mov_from_cr(Cpu& c, const Instruction& i) {
  u32 value;
  switch (i.reg) {
    case 0: value = c.state.cr0; break;
    case 2: value = c.state.cr2; break;
    case 3: value = c.state.cr3; break;
    case 4: value = c.state.cr4; break;
    default: throw ud("MOV from CR1/CR5-CR7");
  }
  c.state.gpr[i.rm] = value;
}
void mov_to_cr(Cpu& c, const Instruction& i) {
  const u32 value = c.state.gpr[i.rm];
  switch (i.reg) {
    case 0: c.write_cr0(value); break;
    case 2: c.state.cr2 = value; break;
    case 3: c.write_cr3(value); break;
    case 4: c.write_cr4(value); break;
    default: throw ud("MOV to CR1/CR5-CR7");
  }
}

// DR4/DR5 alias DR6/DR7 unless CR4.DE is set, when they raise #UD.
unsigned debug_register(const Cpu& c, unsigned n) {
  if (n == 4 || n == 5) {
    if (c.state.cr4 & cr4::DE) throw ud("DR4/DR5 with CR4.DE");
    return n + 2;
  }
  return n;
}
// DR7.GD makes any access a #DB fault first (kDebugRegisterAccess; cpu/debug_registers.cpp).
void mov_from_dr(Cpu& c, const Instruction& i) {
  c.state.gpr[i.rm] = c.state.dr[debug_register(c, i.reg)];
}
void mov_to_dr(Cpu& c, const Instruction& i) {
  c.write_debug_register(debug_register(c, i.reg), c.state.gpr[i.rm]);
}

void clts(Cpu& c, const Instruction&) {
  c.state.cr0 &= ~cr0::TS;
}

// LMSW loads CR0 bits 0-3 and cannot clear PE.
void lmsw(Cpu& c, const Instruction& i) {
  u16 value;
  if (!read_operand<u16>(c, i, 0, value)) return;
  u32 cr0 = (c.state.cr0 & ~0xEu) | (value & 0xFu);
  if (c.state.cr0 & cr0::PE) cr0 |= cr0::PE;
  c.write_cr0(cr0);
}

// SMSW: a register destination with a 32-bit operand size gets all of CR0.
template <class T>
void smsw(Cpu& c, const Instruction& i) {
  if (i.is_memory()) (void)write_operand<u16>(c, i, 0, static_cast<u16>(c.state.cr0));  // (nothing follows)
  else (void)write_operand<T>(c, i, 0, static_cast<T>(c.state.cr0));
}

// LGDT/LIDT Ms: a 16-bit limit and a base (24 bits used with a 16-bit operand size).
template <class T, bool kIdt>
void load_table_register(Cpu& c, const Instruction& i) {
  const u32 mask = i.address_size_32 ? 0xFFFFFFFFu : 0xFFFFu;
  const u32 ea = c.effective_address(i);
  u16 limit;
  u32 base;
  if (!c.try_read<u16>(i.segment, ea, limit) || !c.try_read<u32>(i.segment, (ea + 2) & mask, base)) return;
  if constexpr (sizeof(T) == 2) base &= 0x00FFFFFFu;
  c.trace_control(kIdt ? 9 : 8, (kIdt ? c.state.idtr : c.state.gdtr).base, base);
  (kIdt ? c.state.idtr : c.state.gdtr) = {base, limit};
}
template <class T> void lgdt(Cpu& c, const Instruction& i) { load_table_register<T, false>(c, i); }
template <class T> void lidt(Cpu& c, const Instruction& i) { load_table_register<T, true>(c, i); }

// SGDT/SIDT store 6 bytes; with a 16-bit operand size the top base byte is stored as 0
// on P6 (QUIRK; the 286 stored FFh).
template <class T, bool kIdt>
void store_table_register(Cpu& c, const Instruction& i) {
  const u32 mask = i.address_size_32 ? 0xFFFFFFFFu : 0xFFFFu;
  const u32 ea = c.effective_address(i);
  const DescriptorTableRegister& r = kIdt ? c.state.idtr : c.state.gdtr;
  c.check_write(i.segment, ea, 2);
  c.check_write(i.segment, (ea + 2) & mask, 4);
  c.write<u16>(i.segment, ea, r.limit);
  c.write<u32>(i.segment, (ea + 2) & mask, sizeof(T) == 2 ? r.base & 0x00FFFFFFu : r.base);
}
template <class T> void sgdt(Cpu& c, const Instruction& i) { store_table_register<T, false>(c, i); }
template <class T> void sidt(Cpu& c, const Instruction& i) { store_table_register<T, true>(c, i); }

// The rows of cpu/opcode_map.tsv whose family is exec_system (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/exec_system.inc"
};

}  // namespace

FormList system_forms() { return kForms; }

}  // namespace x86lab
