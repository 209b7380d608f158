// Why a bus access happens. Every physical access carries one of these so that
// counters and traces can say what was touched and why (DESIGN.md section 3).
// The locked kinds name the SDM's "Automatic Locking" rules (Intel SDM Vol. 3,
// "Locked Atomic Operations").
#pragma once
#include <array>
#include <string_view>

#include "trace/types.h"

namespace x86lab {

enum class AccessKind : u8 {
  Data,                   // an instruction's explicit memory operand
  Stack,                  // PUSH/POP/CALL/RET/ENTER/LEAVE and frames pushed on delivery
  CodeFetch,              // instruction bytes
  DescriptorTableRead,    // an 8-byte GDT/LDT descriptor read on a segment load
  InterruptTableRead,     // an IVT entry (real mode) or IDT gate read
  TssRead,                // stack pointers and task state read from a TSS
  TssWrite,               // task state saved into a TSS
  PageDirectoryRead,      // the page walk's read of a page-directory entry
  PageTableRead,          // the page walk's read of a page-table entry
  // Implied locked read-modify-writes (the CPU locks these by itself).
  DescriptorAccessedBit,  // setting the Accessed bit of a segment descriptor on load
  TssBusyBit,             // setting or clearing the Busy bit of a TSS descriptor
  PageDirectoryAD,        // setting Accessed in a page-directory entry
  PageTableAD,            // setting Accessed/Dirty in a page-table entry
  XchgMemory,             // XCHG with a memory operand (locked without a prefix)
  // The interrupt-acknowledge cycle: the 8259A puts the vector on the data bus while
  // the processor holds LOCK (SDM "Automatic Locking": "Acknowledging interrupts").
  // No address; counted and traced by Cpu::try_deliver_interrupt.
  InterruptAcknowledge,
  // Explicitly locked.
  LockPrefix,             // an instruction with the LOCK prefix
  Debugger,               // side-effect-free peek/poke from a debugger or loader
};

inline constexpr std::size_t kAccessKindCount = static_cast<std::size_t>(AccessKind::Debugger) + 1;

inline constexpr std::array<std::string_view, kAccessKindCount> kAccessKindNames = {
    "data",           "stack",           "code",          "descriptor-read", "interrupt-table-read",
    "tss-read",       "tss-write",       "page-directory-read", "page-table-read", "accessed-bit",
    "tss-busy-bit",   "page-directory-ad", "page-table-ad", "xchg-memory",    "inta",
    "lock-prefix",    "debugger",
};

constexpr std::string_view name_of(AccessKind kind) { return kAccessKindNames[static_cast<std::size_t>(kind)]; }

// True for the kinds the CPU performs as a locked read-modify-write.
constexpr bool is_locked_kind(AccessKind kind) {
  return kind >= AccessKind::DescriptorAccessedBit && kind <= AccessKind::LockPrefix;
}

}  // namespace x86lab
