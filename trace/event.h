// Trace events: what the machine did, one record each (DESIGN.md section 6). Events
// are produced only while a Tracer with a sink is attached; the fields' meaning
// depends on the kind (see each enumerator). Units: cycles are modeled cycles,
// `instruction` is the index of the instruction being executed (0-based).
#pragma once
#include <array>
#include <string_view>

#include "trace/access_kind.h"
#include "trace/types.h"

namespace x86lab {

enum class EventKind : u8 {
  Instruction,      // retired: a = CS selector, b = EIP, c = linear EIP, size = length, bytes = the bytes,
                    //   text = mnemonic, detail = CPL
  RegisterWrite,    // after an instruction: detail = register (RegisterId), value = new, c = old
  MemoryAccess,     // a = linear, b = physical, size = bytes, detail = AccessKind, flags = kWrite|kLocked
                    //   (a read has neither), value = value (after the write for writes; old value in c
                    //   for locked RMWs); AccessKind::InterruptAcknowledge: flags = kLocked, size = 1,
                    //   value = the vector read, no address (a = b = c = 0)
  SegmentLoad,      // detail = register (0-5 ES..GS, 6 LDTR, 7 TR), a = selector, value = descriptor bytes,
                    //   b = base after, c = limit after, flags = kAccessedWritten|kFromLdt|kNullSelector
  Exception,        // detail = vector, a = error code (flags & kHasErrorCode), b = CS, c = EIP pushed,
                    //   size = EventSource, text = cause; flags = kHasErrorCode|kDoubleFault|kShutdown
  TaskSwitch,       // a = old TR selector, b = new TR selector, detail = reason (0 JMP, 1 CALL, 2 IRET, 3 INT)
  Io,               // a = port, size = bytes, flags = kWrite, value = value, text = device name
  ControlRegister,  // detail = which (0-4 CRn, 8 GDTR, 9 IDTR, 10 LDTR, 11 TR), value = new, c = old
  PageWalk,         // a = linear, b = physical, flags = kWrite, value = (PDE << 32) | PTE
  TlbMiss,          // a = linear
  Halt,             // the CPU executed HLT
  Wake,             // the CPU left HLT; detail = vector that woke it
};

inline constexpr std::size_t kEventKindCount = static_cast<std::size_t>(EventKind::Wake) + 1;
inline constexpr std::array<std::string_view, kEventKindCount> kEventKindNames = {
    "insn", "reg", "mem", "seg", "exc", "task", "io", "cr", "walk", "tlb-miss", "halt", "wake"};

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
};

constexpr std::string_view name_of(EventKind kind) { return kEventKindNames[static_cast<std::size_t>(kind)]; }

}  // namespace x86lab
