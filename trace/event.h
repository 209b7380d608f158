// Trace events: what the machine did, one record each (DESIGN.md section 6). Events
// are produced only while a Tracer with a sink is attached. Event is the positional
// form every sink and the binary format share; the fields' meaning depends on the
// kind (the typed records of trace/events.h). Units: cycles are modeled cycles,
// `instruction` is the index of the instruction being executed (0-based).
#pragma once
#include <array>
#include <string_view>

#include "trace/access_kind.h"
#include "trace/types.h"

namespace x86lab {

// The kinds of event; the number is the binary format's kind byte. Each kind's fields
// are those of its record in trace/events.h (events::Instruction, ...), which also
// says which positional field of Event holds each.
enum class EventKind : u8 {
  Instruction,      // events::Instruction: a retired instruction
  RegisterWrite,    // events::RegisterWrite: a register the instruction changed
  MemoryAccess,     // events::MemoryAccess: a bus access (and the interrupt acknowledge)
  SegmentLoad,      // events::SegmentLoad
  Exception,        // events::Exception: a delivery, or a shutdown
  TaskSwitch,       // events::TaskSwitch
  Io,               // events::Io
  ControlRegister,  // events::ControlRegister
  PageWalk,         // events::PageWalk
  TlbMiss,          // events::TlbMiss
  Halt,             // events::Halt
  Wake,             // events::Wake
  // The APICs (binary format version 3; `--trace-filter apic` selects all six).
  LapicAccept,      // events::LapicAccept: the local APIC took an interrupt (IRR, NMI, ExtINT)
  LapicDispatch,    // events::LapicDispatch: the CPU's INTA got a vector from IRR (or the spurious vector)
  LapicEoi,         // events::LapicEoi
  LapicIpi,         // events::LapicIpi: an ICR write sent a message
  LapicTimer,       // events::LapicTimer: a timer expiry that requested its vector
  IoApicDelivery,   // events::IoApicDelivery: a redirection entry's message on the APIC bus
};

inline constexpr std::size_t kEventKindCount = static_cast<std::size_t>(EventKind::IoApicDelivery) + 1;
// The first APIC kind: the kinds from here on are the ones `--trace-filter apic`
// selects, and the ones a version-2 binary trace cannot hold.
inline constexpr EventKind kFirstApicEventKind = EventKind::LapicAccept;

// Event::flags bits.
inline constexpr u8 kEventWrite = 1 << 0;
inline constexpr u8 kEventLocked = 1 << 1;
inline constexpr u8 kEventAccessedWritten = 1 << 2;  // SegmentLoad: the Accessed bit was written
inline constexpr u8 kEventFromLdt = 1 << 3;
inline constexpr u8 kEventNullSelector = 1 << 4;
inline constexpr u8 kEventHasErrorCode = 1 << 5;   // Exception: an error code was pushed
inline constexpr u8 kEventNoDescriptor = 1 << 5;   // SegmentLoad: real or virtual-8086 mode (base = selector * 16, no table read)
inline constexpr u8 kEventDoubleFault = 1 << 6;
inline constexpr u8 kEventShutdown = 1 << 7;
// Event::flags bits of the APIC kinds (their own meanings, as bit 5's two above).
inline constexpr u8 kEventApicLevel = 1 << 0;     // level-triggered (else edge)
inline constexpr u8 kEventApicLogical = 1 << 1;   // logical destination mode (else physical)
inline constexpr u8 kEventApicAssert = 1 << 2;    // IPI: level assert (else de-assert)
inline constexpr u8 kEventApicSpurious = 1 << 3;  // dispatch: the spurious vector, nothing left in IRR
inline constexpr u8 kEventApicPeriodic = 1 << 4;  // timer: periodic mode (else one-shot)
inline constexpr u8 kEventApicTaken = 1 << 5;     // I/O APIC delivery: a local APIC took the message

// Register numbers for RegisterWrite: 0-7 EAX..EDI, 8 EIP, 9 EFLAGS.
inline constexpr std::array<std::string_view, 10> kRegisterNames = {"eax", "ecx", "edx", "ebx", "esp",
                                                                    "ebp", "esi", "edi", "eip", "eflags"};

struct Event {
  EventKind kind = EventKind::Instruction;
  u8 detail = 0;
  u8 flags = 0;
  u8 size = 0;
  u32 a = 0, b = 0, c = 0;
  u64 value = 0;
  u64 instruction = 0;  // index of the instruction in progress
  u64 cycle = 0;        // modeled cycle count when emitted
  std::array<u8, 15> bytes{};
  std::string_view text;  // static storage only (mnemonics, causes, device names)
  // In memory only, not in the binary format: an Instruction's code size (CS.D at its
  // start), 16 or 32, or 0 when not known (an event read back from a binary trace).
  u8 code_size = 0;
};

}  // namespace x86lab
