// Zydis-based disassembly of guest memory for the Disassembly window.
#include "ui/gui/disassembly_model.h"

#include <Zydis/Zydis.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace x86lab::gui {

namespace {
// Reads up to 15 bytes at linear `at` by peek; stops at the first unmapped byte.
std::size_t peek_bytes(const Mmu& mmu, u32 at, std::array<u8, 15>& out) {
  std::size_t n = 0;
  for (; n < out.size(); ++n) {
    const auto byte = mmu.peek_linear(at + static_cast<u32>(n));
    if (!byte) break;
    out[n] = *byte;
  }
  return n;
}

DisassemblyLine decode_at(const Mmu& mmu, u32 cs_base, u32 offset, bool code32, const ElfSymbols* symbols) {
  std::array<u8, 15> bytes{};
  const std::size_t n = peek_bytes(mmu, cs_base + offset, bytes);
  DisassemblyLine line;
  if (n == 0) {
    line.offset = offset;
    line.linear = cs_base + offset;
    line.length = 1;
    line.text = "(not mapped)";
  } else {
    line = disassemble_one(std::span<const u8>(bytes.data(), n), offset, code32);
    line.linear = cs_base + offset;
  }
  if (symbols) {
    if (const std::string* name = symbols->at(line.linear)) line.label = *name;
    if (!line.target.empty()) {
      // disassemble_one left the branch target offset in `target` as hex; turn it into a name.
      const u32 target = static_cast<u32>(std::stoul(line.target, nullptr, 16));
      line.target = symbols->describe(cs_base + target);
    }
  } else {
    line.target.clear();
  }
  return line;
}
}  // namespace

DisassemblyLine disassemble_one(std::span<const u8> bytes, u32 offset, bool code32) {
  DisassemblyLine line;
  line.offset = offset;
  std::memcpy(line.bytes.data(), bytes.data(), std::min<std::size_t>(bytes.size(), 15));
  ZydisDisassembledInstruction instruction;
  const ZydisMachineMode mode = code32 ? ZYDIS_MACHINE_MODE_LEGACY_32 : ZYDIS_MACHINE_MODE_LEGACY_16;
  if (!ZYAN_SUCCESS(ZydisDisassembleIntel(mode, offset, bytes.data(), std::min<std::size_t>(bytes.size(), 15),
                                          &instruction))) {
    line.length = 1;
    line.text = "(bad)";
    return line;
  }
  line.valid = true;
  line.length = instruction.info.length;
  line.text = instruction.text;
  for (unsigned i = 0; i < instruction.info.operand_count_visible; ++i) {
    const ZydisDecodedOperand& operand = instruction.operands[i];
    if (operand.type != ZYDIS_OPERAND_TYPE_IMMEDIATE || !operand.imm.is_relative) continue;
    ZyanU64 target = 0;
    if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&instruction.info, &operand, offset, &target))) {
      char text[16];
      std::snprintf(text, sizeof text, "%X", static_cast<u32>(code32 ? target : target & 0xFFFF));
      line.target = text;
    }
  }
  return line;
}

std::vector<DisassemblyLine> disassemble_around(const Mmu& mmu, u32 cs_base, u32 eip, bool code32, unsigned before,
                                                unsigned after, const ElfSymbols* symbols) {
  const u32 mask = code32 ? 0xFFFFFFFFu : 0xFFFFu;
  std::vector<DisassemblyLine> lines;
  if (before > 0) {
    std::vector<u32> starts;
    if (symbols)
      if (auto start = symbols->start_of(cs_base + eip); start && cs_base + eip - *start <= 4096)
        starts.push_back(*start - cs_base);
    for (u32 back = 64; back > 0; --back) starts.push_back((eip - back) & mask);
    for (const u32 start : starts) {
      std::vector<DisassemblyLine> run;
      u32 at = start;
      while (((eip - at) & mask) != 0 && ((eip - at) & mask) <= 4096) {
        run.push_back(decode_at(mmu, cs_base, at, code32, symbols));
        at = (at + run.back().length) & mask;
      }
      if (at == eip) {
        const std::size_t skip = run.size() > before ? run.size() - before : 0;
        lines.assign(run.begin() + static_cast<std::ptrdiff_t>(skip), run.end());
        break;
      }
    }
  }
  u32 at = eip;
  for (unsigned i = 0; i <= after; ++i) {
    lines.push_back(decode_at(mmu, cs_base, at, code32, symbols));
    at = (at + lines.back().length) & mask;
  }
  return lines;
}

}  // namespace x86lab::gui
