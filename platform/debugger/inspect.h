// Text views of the system state for debugger front ends (gdb monitor commands, the
// GUI): the segment registers with their descriptor caches, GDT/LDT/IDT entries, the
// current TSS, counters and physical memory, all read without side effects (Intel SDM
// Vol. 3, "Segment Descriptors", "Gate Descriptors", "Task-State Segment (TSS)").
#pragma once
#include <string>

#include "platform/debugger/debugger.h"

namespace x86lab {

// One line per segment register (ES CS SS DS FS GS, LDTR, TR) with its selector and
// hidden cache (base, limit, type, S, DPL, P, D/B, G), then GDTR and IDTR.
std::string describe_segments(const CpuState& state);
// The entries of a descriptor table (at most `max_entries`, from entry `first`), one
// line each, decoded as segment, system or gate descriptors; unreadable (not mapped)
// entries say so; the IDT lists at most vectors 0-255, and a FIRST past the limit is said.
std::string describe_table(const Debugger& debugger, DescriptorTable table, u32 first = 0, u32 max_entries = 64);
// The current 32-bit (or 16-bit) TSS named by TR: the back link, the ring 0-2 stacks,
// CR3, EIP, EFLAGS, the general and segment registers, the LDT selector, the T bit and
// the I/O map base.
std::string describe_tss(const Debugger& debugger);
// A hex dump of physical memory: 16 bytes a line, at most 4096 bytes and none past
// FFFFFFFFh; a last line says when fewer than `length` bytes were shown.
std::string describe_physical(const Debugger& debugger, u32 address, u32 length);

}  // namespace x86lab
