// What the Disassembly window shows: instructions around EIP decoded by our decoder and
// written by cpu/disassembler.h (the text trace's notation) from bytes read by peek, with ELF
// symbols as labels and branch-target names. The code size is CS's: 32-bit when its
// descriptor cache has D = 1 outside virtual-8086 mode (SDM Vol. 3, "Code-Segment
// Descriptors"; real-address and V86 code is 16-bit); lines the trace saw execute under
// another CS (16-bit code before the switch to protected mode) are decoded as they ran.
#pragma once
#include <array>
#include <optional>
#include <span>
#include <unordered_map>
#include <string>
#include <vector>

#include "cpu/cpu_state.h"
#include "mmu/paging.h"
#include "ui/gui/elf_symbols.h"

namespace x86lab::gui {

struct DisassemblyLine {
  u32 offset = 0;   // EIP of the instruction (offset in CS)
  u32 linear = 0;   // CS.base + offset
  u8 length = 0;    // bytes; 1 for an undecodable or unmapped byte
  std::array<u8, 15> bytes{};
  bool valid = false;  // it decoded (false: "(bad)" or "(not mapped)")
  std::string text;    // Intel syntax, e.g. "mov eax, [esp+4]" (cpu/disassembler.h)
  std::string label;   // the symbol that starts here, if any
  std::string target;  // the symbol a relative branch or call goes to ("name+0x4"), if any
  bool code32 = true;  // decoded as 32-bit code
  std::optional<u16> ran_cs;  // it executed at ran_cs:offset, a CS other than the current one (from the trace)
};

// Whether CS's code is 32-bit now: its cache's D bit, and never in virtual-8086 mode.
bool code_is_32bit(const CpuState& state);

// An instruction the trace saw retire: the CS selector and EIP it ran at, its length,
// and CS's code size right after it (a far transfer's own size may differ: the length
// tells them apart).
struct ExecutedInstruction {
  u16 cs = 0;
  u32 eip = 0;
  u8 length = 0;
  bool code32 = true;
};
// Executed instructions by linear address (the latest at each address).
using ExecutedCode = std::unordered_map<u32, ExecutedInstruction>;

// One instruction from `bytes` (at most 15 used) at `offset`, 32-bit or 16-bit code.
DisassemblyLine disassemble_one(std::span<const u8> bytes, u32 offset, bool code32);

// Up to `before` instructions before EIP, the one at EIP, and `after` more. Bytes are
// read with Mmu::peek_linear from CS.base + offset; the lines before EIP start at the
// enclosing symbol when one is known, else at the farthest point (up to 64 bytes
// back) whose decoding lands exactly on EIP. A line at an address in `executed` is
// decoded at the offset it ran at in the code size it ran in (the recorded size, or the
// other one when only that gives the length it ran with); its CS is in ran_cs when that
// differs from `cs`.
std::vector<DisassemblyLine> disassemble_around(const Mmu& mmu, u32 cs_base, u32 eip, bool code32, unsigned before,
                                                unsigned after, const ElfSymbols* symbols,
                                                const ExecutedCode* executed = nullptr, u16 cs = 0);

}  // namespace x86lab::gui
