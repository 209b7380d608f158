// Text views of the registers, memory and page mappings for the monitor commands a QEMU
// user reaches for (`info registers`, `x`/`xp`, `info tlb`, `info mem`), read without
// side effects: no Accessed/Dirty bits, no TLB fill, no device reads (Intel SDM Vol. 3,
// "Paging": 32-bit paging, "Hierarchical Paging Structures"; Vol. 1 "EFLAGS Register").
#pragma once
#include <optional>
#include <string>

#include "platform/debugger/debugger.h"

namespace x86lab {

// The general registers, EIP, EFLAGS with its set flags named, the segment selectors
// with their cache bases, CPL, GDTR/IDTR/LDTR/TR and CR0, CR2, CR3, CR4.
std::string describe_registers(const CpuState& state);

// QEMU's /FMT of `x` and `xp`: a count of units, a format and a unit size, each
// optional and in any order after the slash ("/10xw", "/4b", "/s", "/c").
struct MemoryFormat {
  u32 count = 1;     // units (1 or more)
  char format = 'x';  // x hex, d signed decimal, u unsigned decimal, o octal, c characters
  u8 size = 4;       // bytes per unit: 1 (b), 2 (h), 4 (w), 8 (g); 'c' makes it 1
};
// Parses "/NFMT" ("" is the default, 1 hex word). Throws std::invalid_argument with one
// line naming the bad character.
MemoryFormat parse_memory_format(const std::string& text);

// `count` units of `format` at `address`, linear (`x`, through the page tables as the
// CPU would translate now) or physical (`xp`): one line per 16 bytes (8 for 'c'), each
// prefixed by its address, at most 4096 bytes in all. A linear page that is not
// present ends the dump with a line saying so; a last line says when fewer units than
// asked for were shown.
std::string describe_memory(const Debugger& debugger, u32 address, const MemoryFormat& format, bool physical);

// `info tlb`: every present 4 KiB or 4 MiB mapping of the current page tables (CR3), one
// line each: linear, physical and the flags (G global, S 4 MiB page, D dirty, A
// accessed, C cache disabled, T write-through, U user, W writable; '-' when clear), at
// most `max_lines` from linear `first`. `info mem`: the linear ranges that map with the
// same user and write rights, merged ("00400000-00800000 00400000 urw"). With CR0.PG
// clear, one line saying linear = physical.
std::string describe_page_mappings(const Debugger& debugger, bool ranges, u32 first = 0, u32 max_lines = 4096);

}  // namespace x86lab
