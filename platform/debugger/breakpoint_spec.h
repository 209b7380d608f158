// Breakpoints written as text, the one notation of gdb's `monitor break-on` and the
// inspector's Breakpoints window (docs/gdb.md, docs/gui.md): a kind and its
// arguments, numbers in C notation (0x10 hex, 16 decimal).
//   code ADDR                  code at linear ADDR (CS.base + EIP)
//   vector N [M]               the delivery of vectors N..M, any source
//   fault                      exceptions 0-31 (vectors delivered as exceptions)
//   lock KIND                  a locked access of an implied-lock kind or the LOCK prefix:
//                              accessed-bit, tss-busy-bit, page-directory-ad, ... (trace/access_kind.h)
//   load REG                   a load of es|cs|ss|ds|fs|gs|ldtr|tr
//   selector SEL               a load of selector SEL into any register (RPL ignored)
//   write gdt|ldt|idt [ENTRY]  a write into a descriptor table (one entry)
//   io PORT [LAST]             IN/OUT/INS/OUTS to the ports
//   phys ADDR LEN [r|w|a]      a watchpoint on physical memory (default w)
//   watch ADDR LEN [r|w|a]     a watchpoint on linear memory (default w)
// Terms as the Intel SDM (Vol. 3 "Interrupt and Exception Handling", "Automatic
// Locking", "Segment Registers"; Vol. 1 "I/O Port Addressing").
#pragma once
#include <string>
#include <vector>

#include "platform/debugger/breakpoints.h"

namespace x86lab {

// A number in C notation that fits 32 bits; throws std::invalid_argument "bad number 'W'".
u32 parse_number(const std::string& word);

// The breakpoint `words` describe (the kind first). Throws std::invalid_argument with
// one line (no newline) naming the problem: "vectors are 0-255", "ports are 0-0xffff",
// "unknown segment register 'xs'", or a usage line for an unknown kind.
Breakpoint parse_breakpoint(const std::vector<std::string>& words);
// The same for one line of text ("vector 13", "io 0x60 0x64"); "if COND" at the end
// adds a register condition (parse_condition: "if eax==5 && cs!=8").
Breakpoint parse_breakpoint(const std::string& text);

}  // namespace x86lab
