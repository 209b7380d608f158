// Disassembly of guest memory for the Disassembly window (cpu/disassembler.h).
#include "ui/gui/disassembly_model.h"

#include "cpu/disassembler.h"

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

struct Context {
  const Mmu& mmu;
  u32 cs_base;
  bool code32;
  const ElfSymbols* symbols;
  const ExecutedCode* executed;
  u16 cs;
};

DisassemblyLine decode_at(const Context& context, u32 offset) {
  std::array<u8, 15> bytes{};
  const u32 linear = context.cs_base + offset;
  const std::size_t n = peek_bytes(context.mmu, linear, bytes);
  DisassemblyLine line;
  u32 target_base = context.cs_base;  // the base a relative branch target is an offset in
  if (n == 0) {
    line.offset = offset;
    line.length = 1;
    line.text = "(not mapped)";
  } else {
    const std::span<const u8> code(bytes.data(), n);
    const auto ran = context.executed ? context.executed->find(linear) : ExecutedCode::const_iterator{};
    if (context.executed && ran != context.executed->end()) {
      // Decoded as it ran: its CS:EIP (the same linear address) and code size.
      const ExecutedInstruction& e = ran->second;
      line = disassemble_one(code, e.eip, e.code32);
      if (line.length != e.length) {
        DisassemblyLine other = disassemble_one(code, e.eip, !e.code32);
        if (other.length == e.length) line = other;
      }
      target_base = linear - e.eip;
      if (e.cs != context.cs || line.code32 != context.code32) line.ran_cs = e.cs;
    } else {
      line = disassemble_one(code, offset, context.code32);
    }
  }
  line.linear = linear;
  if (context.symbols) {
    if (const std::string* name = context.symbols->at(line.linear)) line.label = *name;
    if (!line.target.empty()) {
      // disassemble_one left the branch target offset in `target` as hex; turn it into a name.
      const u32 target = static_cast<u32>(std::stoul(line.target, nullptr, 16));
      line.target = context.symbols->describe(target_base + target);
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
  line.code32 = code32;
  std::memcpy(line.bytes.data(), bytes.data(), std::min<std::size_t>(bytes.size(), 15));
  const Disassembly instruction = disassemble(bytes, code32, offset);
  line.valid = instruction.valid;
  line.length = instruction.length;
  line.text = instruction.text;
  if (instruction.target) {
    char text[16];
    std::snprintf(text, sizeof text, "%X", *instruction.target);
    line.target = text;
  }
  return line;
}

bool code_is_32bit(const CpuState& state) { return state.segments[CS].cache.db && !(state.eflags & (1u << 17)); }

std::vector<DisassemblyLine> disassemble_around(const Mmu& mmu, u32 cs_base, u32 eip, bool code32, unsigned before,
                                                unsigned after, const ElfSymbols* symbols, const ExecutedCode* executed,
                                                u16 cs) {
  const Context context{mmu, cs_base, code32, symbols, executed, cs};
  const u32 mask = code32 ? 0xFFFFFFFFu : 0xFFFFu;
  std::vector<DisassemblyLine> lines;
  if (before > 0) {
    std::vector<u32> starts;
    if (executed) {
      // Back through the instructions that ran right before EIP: each ends where the next starts.
      std::unordered_map<u32, u32> by_end;
      for (const auto& [linear, e] : *executed) by_end[linear + e.length] = linear;
      u32 start = cs_base + eip;
      for (unsigned n = 0; n < before; ++n) {
        const auto found = by_end.find(start);
        if (found == by_end.end()) break;
        start = found->second;
      }
      if (start != cs_base + eip) starts.push_back(start - cs_base);
    }
    if (symbols)
      if (auto start = symbols->start_of(cs_base + eip); start && cs_base + eip - *start <= 4096)
        starts.push_back(*start - cs_base);
    for (u32 back = 64; back > 0; --back) starts.push_back((eip - back) & mask);
    for (const u32 start : starts) {
      std::vector<DisassemblyLine> run;
      u32 at = start;
      while (((eip - at) & mask) != 0 && ((eip - at) & mask) <= 4096) {
        run.push_back(decode_at(context, at));
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
    lines.push_back(decode_at(context, at));
    at = (at + lines.back().length) & mask;
  }
  return lines;
}

}  // namespace x86lab::gui
