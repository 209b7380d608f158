// What the Disassembly window shows: instructions around EIP decoded by Zydis (an
// independent decoder, docs/toolchain.md section 3) from bytes read by peek, with ELF
// symbols as labels and branch-target names.
#pragma once
#include <array>
#include <span>
#include <string>
#include <vector>

#include "mmu/paging.h"
#include "ui/gui/elf_symbols.h"

namespace x86lab::gui {

struct DisassemblyLine {
  u32 offset = 0;   // EIP of the instruction (offset in CS)
  u32 linear = 0;   // CS.base + offset
  u8 length = 0;    // bytes; 1 for an undecodable or unmapped byte
  std::array<u8, 15> bytes{};
  bool valid = false;  // Zydis decoded it (false: "(bad)" or "(not mapped)")
  std::string text;    // Intel syntax, e.g. "mov eax, [esp+0x04]"
  std::string label;   // the symbol that starts here, if any
  std::string target;  // the symbol a relative branch or call goes to ("name+0x4"), if any
};

// One instruction from `bytes` (at most 15 used) at `offset`, 32-bit or 16-bit code.
DisassemblyLine disassemble_one(std::span<const u8> bytes, u32 offset, bool code32);

// Up to `before` instructions before EIP, the one at EIP, and `after` more. Bytes are
// read with Mmu::peek_linear from CS.base + offset; the lines before EIP start at the
// enclosing symbol when one is known, else at the farthest point (up to 64 bytes
// back) whose decoding lands exactly on EIP.
std::vector<DisassemblyLine> disassemble_around(const Mmu& mmu, u32 cs_base, u32 eip, bool code32, unsigned before,
                                                unsigned after, const ElfSymbols* symbols);

}  // namespace x86lab::gui
