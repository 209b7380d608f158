// Fuzz target: the local APIC and the 82093AA I/O APIC of a Machine driven by register
// accesses, IRQ lines, time, INTA cycles and EOIs, with the invariants the Intel SDM
// (Vol. 3, "Advanced Programmable Interrupt Controller (APIC)") and the 82093AA data
// sheet imply checked after every operation. Guest register writes must never crash
// the host: an escaping exception, a sanitizer report or a broken invariant is a bug.
//
// Input: a sequence of 8-byte operations (a short tail is padded with zeros):
//   [0] operation (modulo kOperations, below)   [1..2] offset or selector (LE)
//   [3] width: bits 1:0 -> 1, 2, 4, 4 bytes; other bits per operation
//   [4..7] value (LE)
// Operations: local APIC page write / read (offset & FFFh at IA32_APIC_BASE, through
// the physical bus, any alignment; a write of offset B0h is an EOI), I/O APIC page
// write / read (offset & FFFh at FEC00000h), IOREGSEL-then-IOWIN write (selector byte
// [1]), ISA IRQ line level (IRQ [1] & 15, level value bit 0), clock advance (value
// cycles, at most 2^24), INTA (when the CPU's INTR is asserted; width bit 7: also
// when it is not), EOI, WRMSR
// IA32_APIC_BASE, LINT1 level, a port write to the 8259A pair (20h, 21h, A0h, A1h),
// CPU reset (Machine::reset_cpu), and a snapshot round trip of both APICs.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "platform/devices/apic/io_apic.h"
#include "platform/devices/apic/local_apic.h"
#include "platform/machine.h"
#include "platform/snapshot/machine_state.h"
#include "tests/fuzz/fuzz_bus.h"

namespace x86lab {
namespace {

constexpr unsigned kOperationBytes = 8, kMaxOperations = 512;
enum Operation : u8 {
  kLapicWrite, kLapicRead, kIoApicWrite, kIoApicRead, kIoApicSelectWrite, kIrqLine, kClock, kAcknowledge,
  kEoi, kApicBase, kLint1, kPicPort, kReset, kSnapshot, kOperations
};

[[noreturn]] void fail(const char* what, unsigned value) {
  std::fprintf(stderr, "apic_fuzzer: invariant broken: %s (%Xh)\n", what, value);
  std::abort();
}
void check(bool ok, const char* what, unsigned value = 0) {
  if (!ok) fail(what, value);
}

using fuzz::bus_read;
using fuzz::bus_write;

unsigned width(u8 code) {
  static constexpr unsigned kWidths[] = {1, 2, 4, 4};
  return kWidths[code & 3];
}

// The highest vector of a 256-bit register read as 8 dwords at `first` (16 bytes apart), or 0.
u32 highest_vector(const LocalApic& apic, u32 first) {
  for (int word = 7; word >= 0; --word) {
    const u32 bits = apic.register_value(first + 0x10 * static_cast<u32>(word));
    for (int bit = 31; bit >= 0; --bit)
      if (bits >> bit & 1) return static_cast<u32>(word * 32 + bit);
  }
  return 0;
}

// SDM "Processor Priority Register (PPR)": PPR[7:4] = max(TPR[7:4], ISRV[7:4]); PPR[3:0]
// = TPR[3:0] when TPR[7:4] >= ISRV[7:4], else 0.
u32 expected_ppr(const LocalApic& apic) {
  const u32 tpr = apic.register_value(lapic::kTpr), isrv = highest_vector(apic, lapic::kIsr);
  return (tpr & 0xF0) >= (isrv & 0xF0) ? tpr : isrv & 0xF0;
}

void check_invariants(Machine& m) {
  const LocalApic& apic = *m.local_apic;
  check(m.devices->io_apic.read_register(IoApic::kIoApicVer) == 0x00170011u, "IOAPICVER reads 00170011h",
        m.devices->io_apic.read_register(IoApic::kIoApicVer));
  check(apic.register_value(lapic::kVersion) == lapic::kP6Version, "local APIC version");
  check(apic.register_value(lapic::kPpr) == expected_ppr(apic), "PPR from TPR and ISR", apic.register_value(lapic::kPpr));
  // Vectors 0-15 are illegal: never in IRR or ISR (SDM "Valid Interrupt Vectors").
  check((apic.register_value(lapic::kIrr) & 0xFFFF) == 0, "IRR bits 15:0 clear", apic.register_value(lapic::kIrr));
  check((apic.register_value(lapic::kIsr) & 0xFFFF) == 0, "ISR bits 15:0 clear", apic.register_value(lapic::kIsr));
  check((apic.register_value(lapic::kSvr) & 0x0F) == 0x0F, "SVR bits 3:0 hardwired to 1 (P6)");
  const u64 base = apic.apic_base();
  check((base & ~u64{0xFFFFF900u}) == 0, "IA32_APIC_BASE reserved bits clear", static_cast<unsigned>(base));
  check(base & lapic::kApicBaseBsp, "the BSP flag stays set");
  for (unsigned pin = 0; pin < IoApic::kPins; ++pin) {
    const u32 low = m.devices->io_apic.read_register(static_cast<u8>(IoApic::kIoRedTbl0 + 2 * pin));
    check((low & 0xFFFE0000u) == 0, "IOREDTBL low dword bits 31:17 read 0", low);
  }
}

// An INTA cycle, when the CPU's INTR is asserted or, with `late`, also when it is not
// (the request went away between INTR and INTA, SDM "Spurious Interrupt"): a vector
// taken from IRR must be the highest one and of a priority class above the PPR's;
// otherwise the 8259A's vector (virtual wire) or, with nothing left to dispatch, the
// spurious vector.
void acknowledge(Machine& m, bool late) {
  LocalApic& apic = *m.local_apic;
  if (!late && !apic.interrupt_pending()) return;
  const u32 ppr = apic.register_value(lapic::kPpr), irrv = highest_vector(apic, lapic::kIrr);
  const bool apic_on = apic.enabled();
  const bool dispatchable = apic_on && irrv != 0 && (irrv & 0xF0) > (ppr & 0xF0);
  const bool pic_pending = m.devices->pic.interrupt_pending();
  bool irr_before[256];
  for (unsigned v = 0; v < 256; ++v) irr_before[v] = apic.irr(static_cast<u8>(v));
  const u8 vector = apic.acknowledge();
  const bool from_irr = apic_on && irr_before[vector] && !apic.irr(vector) && apic.isr(vector);
  if (from_irr) {
    check(vector == irrv, "INTA takes the highest IRR vector", vector);
    check((vector & 0xF0u) > (ppr & 0xF0u), "INTA never dispatches a class <= PPR's", vector);
  } else if (apic_on && !dispatchable && !pic_pending) {
    check(vector == (apic.register_value(lapic::kSvr) & 0xFF), "nothing to dispatch: the spurious vector", vector);
  }
}

void snapshot_round_trip(Machine& m) {
  static constexpr u32 kCompared[] = {lapic::kId, lapic::kTpr, lapic::kPpr, lapic::kLdr, lapic::kDfr, lapic::kSvr,
                                      lapic::kIsr + 0x70, lapic::kIrr + 0x70, lapic::kTmr, lapic::kIcrLow,
                                      lapic::kLvtTimer, lapic::kLvtLint0, lapic::kInitialCount,
                                      lapic::kCurrentCount, lapic::kDivideConfiguration};
  u32 before[std::size(kCompared)];
  for (std::size_t i = 0; i < std::size(kCompared); ++i) before[i] = m.local_apic->register_value(kCompared[i]);
  StateArchive save;
  m.local_apic->transfer_state(save);
  m.devices->io_apic.transfer_state(save);
  for (const StateArchive::Mode mode : {StateArchive::Mode::Check, StateArchive::Mode::Load}) {
    StateArchive load(mode, save.bytes());
    m.local_apic->transfer_state(load);
    m.devices->io_apic.transfer_state(load);
    load.expect_end("APIC state");
  }
  for (std::size_t i = 0; i < std::size(kCompared); ++i)
    check(m.local_apic->register_value(kCompared[i]) == before[i], "a snapshot round trip keeps the register", kCompared[i]);
}

// Moves the clock forward by `cycles`, running the device events on their deadlines.
void advance(Machine& m, u64 cycles) {
  const u64 target = m.clock.now() + cycles;
  for (unsigned i = 0; i < 64; ++i) {
    const u64 next = std::min(target, m.clock.next_deadline());
    m.clock.advance_to(next);
    m.clock.run_due();
    if (m.clock.now() >= target) break;
  }
}

// One machine for every input, its APICs, devices and clock put back into their
// power-up state (the snapshot sections taken after construction) before each:
// building a Machine, or restoring all of it, costs far more than an input. The CPU,
// RAM and counters are not part of what the invariants look at.
Machine& fresh_machine() {
  static Machine* machine = [] {
    MachineConfig config;
    config.memory_mib = 1;
    return new Machine(config);
  }();
  static const MachineState power_up = capture_machine_state(*machine);
  const auto load = [](const std::vector<u8>& bytes, auto transfer) {
    StateArchive archive(StateArchive::Mode::Load, bytes);
    transfer(archive);
    archive.expect_end("power-up state");
  };
  load(power_up.machine, [](StateArchive& a) { machine->transfer_state(a); });
  load(power_up.devices, [](StateArchive& a) { machine->devices->transfer_state(a); });
  load(power_up.clock, [](StateArchive& a) { machine->clock.transfer_state(a); });
  return *machine;
}

void run(const u8* data, std::size_t size) {
  Machine& m = fresh_machine();
  const std::size_t operations = std::min<std::size_t>((size + kOperationBytes - 1) / kOperationBytes, kMaxOperations);
  for (std::size_t n = 0; n < operations; ++n) {
    u8 op[kOperationBytes] = {};
    for (unsigned i = 0; i < kOperationBytes && n * kOperationBytes + i < size; ++i) op[i] = data[n * kOperationBytes + i];
    const u32 offset = (op[1] | u32{op[2]} << 8) & 0xFFF;
    const unsigned bytes = width(op[3]);
    const u32 value = op[4] | u32{op[5]} << 8 | u32{op[6]} << 16 | u32{op[7]} << 24;
    const u32 lapic_page = static_cast<u32>(m.local_apic->apic_base() & lapic::kApicBaseAddress);
    switch (static_cast<Operation>(op[0] % kOperations)) {
      case kLapicWrite: bus_write(m, lapic_page + offset, bytes, value); break;
      case kLapicRead: (void)bus_read(m, lapic_page + offset, bytes); break;
      case kIoApicWrite: bus_write(m, IoApic::kDefaultBase + offset, bytes, value); break;
      case kIoApicRead: (void)bus_read(m, IoApic::kDefaultBase + offset, bytes); break;
      case kIoApicSelectWrite:
        bus_write(m, IoApic::kDefaultBase + IoApic::kIoRegSel, 4, op[1]);
        bus_write(m, IoApic::kDefaultBase + IoApic::kIoWin, 4, value);
        break;
      case kIrqLine: m.devices->set_irq(op[1] & 15, value & 1); break;
      case kClock: advance(m, value & 0xFFFFFF); break;
      case kAcknowledge: acknowledge(m, op[3] & 0x80); break;
      case kEoi: bus_write(m, lapic_page + lapic::kEoi, 4, 0); break;
      case kApicBase: (void)m.local_apic->write_apic_base(value | u64{op[3] & 0x80 ? 1u : 0u} << 32); break;
      case kLint1: m.local_apic->set_lint1(value & 1); break;
      case kPicPort: {
        static constexpr u16 kPorts[] = {0x20, 0x21, 0xA0, 0xA1};
        m.ports.write(kPorts[op[1] & 3], 1, value & 0xFF);
        break;
      }
      case kReset: m.reset_cpu(); break;
      case kSnapshot: snapshot_round_trip(m); break;
      case kOperations: break;
    }
    check_invariants(m);
  }
}

}  // namespace
}  // namespace x86lab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  x86lab::run(data, size);
  return 0;
}
