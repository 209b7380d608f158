// Fuzz target: random instruction bytes executed from random machine states (real
// mode, 16/32-bit protected mode at CPL 0 or 3, virtual-8086 mode, paging on or off)
// for a bounded number of steps. Guest code must never crash the host: any escaping
// exception, sanitizer report or broken invariant below is a bug in x86lab.
//
// Input layout (missing bytes read as zero):
//   [0]      mode: bits 0-1 real / pm16 / pm32 / v86, bit 2 paging, bit 3 CPL 3,
//            bit 4 CR4.PSE, bit 5 CR0.WP, bit 6 A20 off, bit 7 16-bit IDT gates
//   [1..32]  EAX ECX EDX EBX ESP EBP ESI EDI (little-endian)
//   [33..34] EFLAGS bits 0-15 (reserved bits forced), [35] step budget,
//   [36]     entry offset of the exception handlers in the code area,
//   [37..52] two GDT entries the input chooses (selectors 48h and 50h),
//   [53..56] four page-table entries the input weakens (page index, flags),
//   [57]     CR0 bits MP EM TS NE AM CD (bits 0-5; NW with CD when bit 6),
//   [58]     CR4 bits TSD DE PGE PCE (bits 0-3), EFLAGS AC and ID (bits 4-5),
//   [59..60] an interrupt request raised before step [59] (0: none) with vector [60],
//   [61..]   code, placed at the start of the code area (and copied to the data area).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "cpu/cpu.h"

namespace x86lab {
namespace {

// Physical layout of the fuzzing machine (256 KiB of RAM; above it is open bus).
constexpr u32 kRamBytes = 256 * 1024;
constexpr u32 kGdt = 0x0800, kIdt = 0x1000, kTss = 0x2000, kTaskTss = 0x2200, kLdt = 0x2400, kPageDirectory = 0x3000,
              kPageTable = 0x4000;
constexpr u32 kCode = 0x10000, kData = 0x20000, kStackTop = 0x3F000, kRingZeroStackTop = 0x3FF00;
constexpr u16 kCode32 = 0x08, kData32 = 0x10, kCode16 = 0x18, kData16 = 0x20, kUserCode = 0x2B, kUserData = 0x33,
              kTssSelector = 0x38, kTaskTssSelector = 0x60, kLdtSelector = 0x68;
constexpr u32 kTssLimit = 104 + 32;  // with an I/O bitmap for ports 0-255 (all allowed)
constexpr unsigned kHeaderBytes = 61, kMaxSteps = 160;

// Reads the input as little-endian fields; bytes past the end read as zero.
struct Reader {
  const u8* data;
  std::size_t size;
  u8 byte(std::size_t at) const { return at < size ? data[at] : 0; }
  u32 dword(std::size_t at) const {
    return byte(at) | u32{byte(at + 1)} << 8 | u32{byte(at + 2)} << 16 | u32{byte(at + 3)} << 24;
  }
  u64 qword(std::size_t at) const { return dword(at) | u64{dword(at + 4)} << 32; }
};

// A present segment descriptor from its fields (SDM "Segment Descriptors"); `limit`
// is the 20-bit limit field.
u64 segment_descriptor(u32 base, u32 limit, u8 type, u8 dpl, bool db, bool g, bool s = true) {
  const u32 low = (base << 16) | (limit & 0xFFFF);
  const u32 high = (base & 0xFF000000u) | (u32{g} << 23) | (u32{db} << 22) | (limit & 0xF0000u) | 0x8000u |
                   (u32{dpl} << 13) | (u32{s} << 12) | (u32{type} << 8) | ((base >> 16) & 0xFF);
  return (u64{high} << 32) | low;
}

// A call, interrupt, trap or task gate (SDM "Call Gates", "IDT Descriptors").
u64 gate_descriptor(u16 selector, u32 offset, u8 type, u8 dpl, u8 parameters = 0) {
  const u32 low = (u32{selector} << 16) | (offset & 0xFFFF);
  const u32 high = (offset & 0xFFFF0000u) | 0x8000u | (u32{dpl} << 13) | (u32{type} << 8) | parameters;
  return (u64{high} << 32) | low;
}

// One interrupt request line that rises once, before a chosen step, and is
// acknowledged with a chosen vector (an 8259A in its simplest use).
class OneShotInterrupt : public InterruptController {
 public:
  explicit OneShotInterrupt(u8 vector) : vector_(vector) {}
  void raise() { pending_ = true; }
  bool interrupt_pending() const override { return pending_; }
  u8 acknowledge() override {
    pending_ = false;
    return vector_;
  }

 private:
  u8 vector_;
  bool pending_ = false;
};

// One machine for every input (issue 42): the CPU, with its decode cache and linked
// runner, costs far more to build than most inputs take to run, so it is built once
// and put back into its reset state (Cpu::reset, the TLB flushed) before each input,
// RAM zeroed and its decoded code retired (PhysicalBus::retire_all_code).
struct FuzzMachine {
  Counters counters;
  PhysicalBus bus{kRamBytes, counters};
  PortBus ports{counters};
  Mmu mmu{bus};
  Cpu cpu{mmu, ports, counters, default_profile()};

  // Zeroes RAM between inputs; anything decoded from it is dropped. Pages with fetched
  // instruction bytes are zeroed through the bus, whose writes retire their decoded
  // code as the CPU's own would; the rest directly (PhysicalBus::retire_all_code would
  // visit all 2^20 pages).
  void clear_ram() {
    for (u32 page = 0; page < kRamBytes >> 12; ++page) {
      if (bus.is_code_page(page)) {
        for (u32 offset = 0; offset < 0x1000; offset += 8) bus.write<u64>(page << 12 | offset, 0, AccessKind::Data);
      } else {
        std::memset(bus.ram().data() + (page << 12), 0, 0x1000);
      }
    }
  }
  void put32(u32 address, u32 value) { std::memcpy(bus.ram().data() + address, &value, sizeof value); }
  void put64(u32 address, u64 value) { std::memcpy(bus.ram().data() + address, &value, sizeof value); }
};

FuzzMachine& machine() {
  static FuzzMachine m;
  return m;
}

void build_tables(FuzzMachine& m, const Reader& in, unsigned mode, bool gates16) {
  const u32 handler = kCode + in.byte(36);
  // Real-mode IVT: every vector enters the code area at the chosen handler offset.
  for (u32 v = 0; v < 256; ++v) m.put32(v * 4, (kCode >> 4) << 16 | (handler - kCode));
  // GDT.
  const u64 entries[] = {
      0,
      segment_descriptor(0, 0xFFFFF, 0xB, 0, true, true),          // 08h code32 ring 0, flat
      segment_descriptor(0, 0xFFFFF, 0x3, 0, true, true),          // 10h data32 ring 0, flat
      segment_descriptor(kCode, 0xFFFF, 0xB, 0, false, false),     // 18h code16 ring 0
      segment_descriptor(0, 0xFFFF, 0x3, 0, false, false),         // 20h data16 ring 0
      segment_descriptor(0, 0xFFFFF, 0xB, 3, true, true),          // 28h code32 ring 3, flat
      segment_descriptor(0, 0xFFFFF, 0x3, 3, true, true),          // 30h data32 ring 3, flat
      segment_descriptor(kTss, kTssLimit, 0xB, 0, false, false, false),  // 38h busy 32-bit TSS
      segment_descriptor(kData, 0xFFF, 0x7, 0, false, false),      // 40h expand-down data16
      in.qword(37),                                                // 48h chosen by the input
      in.qword(45),                                                // 50h chosen by the input
      gate_descriptor(kCode32, handler, 12, 3, 2),                 // 58h 32-bit call gate, 2 parameters
      segment_descriptor(kTaskTss, 103, 0x9, 0, false, false, false),  // 60h available 32-bit TSS
      segment_descriptor(kLdt, 3 * 8 - 1, 0x2, 0, false, false, false),  // 68h LDT
      gate_descriptor(kCode16, handler - kCode, 4, 3, 1),          // 70h 16-bit call gate, 1 parameter
      gate_descriptor(kTaskTssSelector, 0, 5, 3),                  // 78h task gate
  };
  for (u32 i = 0; i < std::size(entries); ++i) m.put64(kGdt + 8 * i, entries[i]);
  // LDT: ring-3 code and data, and the first input-chosen descriptor again.
  m.put64(kLdt, segment_descriptor(0, 0xFFFFF, 0xB, 3, true, true));
  m.put64(kLdt + 8, segment_descriptor(0, 0xFFFFF, 0x3, 3, true, true));
  m.put64(kLdt + 16, in.qword(37));
  // IDT: interrupt gates (trap gates for odd vectors) reachable from ring 3.
  const bool code16 = mode == 1;
  const u16 selector = code16 ? kCode16 : kCode32;
  const u32 offset = code16 ? handler - kCode : handler;
  for (u32 v = 0; v < 256; ++v) {
    const u8 type = static_cast<u8>((gates16 ? 6 : 14) | (v & 1));
    m.put64(kIdt + 8 * v, gate_descriptor(selector, offset, type, 3));
  }
  // #DF and vector 7Fh switch tasks through task gates.
  for (u32 v : {8u, 0x7Fu}) m.put64(kIdt + 8 * v, gate_descriptor(kTaskTssSelector, 0, 5, 3));
  // The running task's 32-bit TSS: ring-0 stack for interrupts from ring 3 and V86 mode,
  // ring-1 and ring-2 stacks, and an I/O bitmap right after the 104-byte TSS.
  m.put32(kTss + 4, kRingZeroStackTop);
  m.put32(kTss + 8, kData32);
  m.put32(kTss + 12, kRingZeroStackTop - 0x100);
  m.put32(kTss + 16, kData32 | 1);
  m.put32(kTss + 20, kRingZeroStackTop - 0x200);
  m.put32(kTss + 24, kData32 | 2);
  m.put32(kTss + 0x64, 104u << 16);
  // The other task's 32-bit TSS: flat ring-0 code entering the handler.
  m.put32(kTaskTss + 0x1C, kPageDirectory);  // CR3
  m.put32(kTaskTss + 0x20, handler);         // EIP
  m.put32(kTaskTss + 0x24, 2);               // EFLAGS
  m.put32(kTaskTss + 0x38, kRingZeroStackTop - 0x400);  // ESP
  m.put32(kTaskTss + 0x4C, kCode32);
  for (u32 at : {0x48u, 0x50u, 0x54u, 0x58u, 0x5Cu}) m.put32(kTaskTss + at, kData32);  // ES SS DS FS GS
  m.put32(kTaskTss + 0x64, 104u << 16);
  // Paging: identity-map the first 4 MiB with 4 KiB pages, a few weakened by the input,
  // and alias 4-8 MiB onto it with one 4 MiB page.
  m.put32(kPageDirectory, kPageTable | 7);
  m.put32(kPageDirectory + 4, 0x00000087u);
  for (u32 page = 0; page < 1024; ++page) m.put32(kPageTable + 4 * page, page << 12 | 7);
  for (unsigned k = 0; k < 4; ++k) {
    const u8 chosen = in.byte(53 + k);
    const u32 page = (kCode >> 12) + (chosen >> 3);  // one of the 32 pages from the code area up
    m.put32(kPageTable + 4 * page, page << 12 | (chosen & 7));
  }
}

void enter_protected_mode(Cpu& cpu, unsigned mode, bool user) {
  CpuState& s = cpu.state;
  s.cr0 |= cr0::PE;
  s.gdtr = {kGdt, 16 * 8 - 1};
  s.idtr = {kIdt, 256 * 8 - 1};
  s.tr.selector = kTssSelector;
  s.tr.cache.load(Descriptor::parse(segment_descriptor(kTss, kTssLimit, 0xB, 0, false, false, false)));
  s.ldtr.selector = kLdtSelector;
  s.ldtr.cache.load(Descriptor::parse(segment_descriptor(kLdt, 3 * 8 - 1, 0x2, 0, false, false, false)));
  SegmentationContext context = cpu.segmentation_context();
  // CS is loaded the way a far transfer loads it, then the data segments by MOV's rules.
  const u16 code = user ? kUserCode : mode == 1 ? kCode16 : kCode32;
  DescriptorSlot slot = read_descriptor(context, Selector{code});
  load_code_segment(context, s.segments[CS], slot, code, user ? 3 : 0);
  s.cpl = user ? 3 : 0;
  context.cpl = s.cpl;
  const u16 data = user ? kUserData : mode == 1 ? kData16 : kData32;
  load_stack_segment(context, s.segments[SS], data);
  for (u8 seg : {DS, ES, FS, GS}) cpu.load_segment(seg, data);
  s.eip = mode == 1 && !user ? 0 : kCode;
}

void enter_virtual_8086_mode(Cpu& cpu) {
  CpuState& s = cpu.state;
  enter_protected_mode(cpu, 2, true);
  s.eflags |= flag::VM;
  const u16 selectors[6] = {kData >> 4, kCode >> 4, (kStackTop - 0x10000) >> 4, kData >> 4, 0, 0};
  for (u8 seg = 0; seg < 6; ++seg) {
    s.segments[seg].selector = selectors[seg];
    s.segments[seg].cache.load_virtual_8086(selectors[seg]);
  }
  s.eip = 0;
}

// Stops the run with the broken invariant and the state that broke it.
[[noreturn]] void invariant_failed(const CpuState& s, const char* what) {
  std::fprintf(stderr, "x86lab fuzz: invariant broken: %s (CS:EIP %04X:%08X EFLAGS %08X CR0 %08X CPL %u)\n", what,
               s.segments[CS].selector, s.eip, s.eflags, s.cr0, s.cpl);
  throw std::logic_error(what);
}

// Invariants that no guest code may break (SDM "EFLAGS Register", "Real-Address Mode").
void check_invariants(const Cpu& cpu) {
  const CpuState& s = cpu.state;
  if (!(s.eflags & flag::Reserved1) || (s.eflags & ~(flag::kImplemented | flag::Reserved1)))
    invariant_failed(s, "EFLAGS reserved bits changed");
  if (cpu.real_mode() && s.cpl != 0) invariant_failed(s, "CPL != 0 in real mode");
  if (cpu.virtual_8086() && s.cpl != 3) invariant_failed(s, "CPL != 3 in virtual-8086 mode");
  if ((s.cr0 & cr0::PG) && !(s.cr0 & cr0::PE)) invariant_failed(s, "CR0.PG without CR0.PE");
}

}  // namespace

void run_fuzz_input(const u8* data, std::size_t size) {
  const Reader in{data, size};
  FuzzMachine& m = machine();
  // The counters run on across inputs: nothing here reads them, and a fresh Counters
  // allocates half a MiB (the per-port and per-row tables).
  m.bus.set_a20(true);
  m.clear_ram();
  const u8 config = in.byte(0);
  const unsigned mode = config & 3;
  const bool paging = (config & 4) && mode != 0, user = (config & 8) && (mode == 2), pse = config & 16;
  build_tables(m, in, mode, config & 128);
  if (size > kHeaderBytes) {
    const std::size_t code_bytes = std::min<std::size_t>(size - kHeaderBytes, 0x10000);
    std::memcpy(m.bus.ram().data() + kCode, data + kHeaderBytes, code_bytes);
    std::memcpy(m.bus.ram().data() + kData, data + kHeaderBytes, code_bytes);
  }
  if (config & 64) m.bus.set_a20(false);

  Cpu& cpu = m.cpu;
  cpu.set_interrupt_controller(nullptr);
  cpu.reset();
  m.mmu.flush_all();
  CpuState& s = cpu.state;
  for (unsigned r = 0; r < 8; ++r) s.gpr[r] = in.dword(1 + 4 * r);
  if (mode == 0) {
    for (u8 seg = 0; seg < 6; ++seg) cpu.load_segment(seg, seg == CS ? kCode >> 4 : seg == SS ? 0x3000 : kData >> 4);
    s.idtr = {0, 0x3FF};
    s.eip = 0;
  } else if (mode == 3) {
    enter_virtual_8086_mode(cpu);
  } else {
    enter_protected_mode(cpu, mode, user);
  }
  const u8 cr0_bits = in.byte(57), cr4_bits = in.byte(58);
  const u32 flags = (in.byte(33) | u32{in.byte(34)} << 8) | ((cr4_bits & 16) ? flag::AC : 0) |
                    ((cr4_bits & 32) ? flag::ID : 0);
  cpu.write_eflags((s.eflags & flag::VM) | flags, flag::kImplemented);
  u32 cr0_extra = 0;
  const u32 kCr0Bits[] = {cr0::MP, cr0::EM, cr0::TS, cr0::NE, cr0::AM, cr0::CD};
  for (unsigned b = 0; b < 6; ++b)
    if (cr0_bits & (1u << b)) cr0_extra |= kCr0Bits[b];
  if ((cr0_bits & 64) && (cr0_extra & cr0::CD)) cr0_extra |= cr0::NW;
  u32 cr4 = pse ? cr4::PSE : 0;
  const u32 kCr4Bits[] = {cr4::TSD, cr4::DE, cr4::PGE, cr4::PCE};
  for (unsigned b = 0; b < 4; ++b)
    if (cr4_bits & (1u << b)) cr4 |= kCr4Bits[b];
  cpu.write_cr4(cr4);
  if (paging) cpu.write_cr3(kPageDirectory);
  cpu.write_cr0(s.cr0 | cr0_extra | (paging ? cr0::PG : 0) | ((config & 32) ? cr0::WP : 0));

  OneShotInterrupt irq{in.byte(60)};
  cpu.set_interrupt_controller(&irq);
  const unsigned steps = 1 + in.byte(35) % kMaxSteps, irq_step = in.byte(59);
  for (unsigned i = 0; i < steps && !s.shutdown; ++i) {
    if (i + 1 == irq_step) {
      irq.raise();
      cpu.notify_interrupt();
    }
    cpu.step();
    check_invariants(cpu);
  }
}

}  // namespace x86lab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  x86lab::run_fuzz_input(data, size);
  return 0;
}
