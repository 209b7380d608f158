// The text of a decoded instruction in Intel syntax, as the SDM writes it (Intel SDM
// Vol. 2, chapter 3 "Instruction Set Reference": mnemonic, then destination and
// source operands), made from our decoder's Instruction and its row's operand notation
// (cpu/opcode_map.tsv, Vol. 2 Appendix A "Key to Abbreviations"). Used by the text
// trace, the GUI's Trace and Disassembly windows. Zydis stays the independent oracle
// of the tests (tests/cpu/disassembler_test.cpp), never the formatter.
//
// Notation (docs/tracing.md, "Instruction text"):
//   - lower case mnemonics and registers; the SDM's operand-size names where it gives
//     two (CWDE, CDQ, IRETD, PUSHAD, POPAD, PUSHFD, POPFD, JECXZ, MOVSD, ...), PAUSE for
//     F3 90; prefixes LOCK, REP, REPE, REPNE written before the mnemonic;
//   - registers by the operand size (16/32 from CS.D, 66h; byte forms), st(0)..st(7);
//   - memory as [base+index*scale+disp] by the address size (16/32 from CS.D, 67h),
//     with the segment written when an override prefix names it ("fs:[eax]"), and the
//     size ("byte ptr", "word ptr", "dword ptr", "fword ptr", "qword ptr", "tbyte ptr")
//     when no register operand of the same size gives it;
//   - numbers 0-9 in decimal, others in hex with an "h" suffix (a leading 0 before a
//     letter: 0FFh); immediates as the instruction uses them (imm8 sign-extended to the
//     operand size for 6A, 6B and 83); displacements signed next to a register;
//   - branch targets and far pointers as addresses: the target offset (4 or 8 hex
//     digits by operand size) and selector:offset ("jmp 0008:00101000").
#pragma once
#include <optional>
#include <span>
#include <string>

#include "cpu/instruction.h"

namespace x86lab {

// The text of `insn` (decoded, form set) decoded as 32-bit code when `code32` (CS.D),
// whose first byte is at offset `eip` in CS (relative branch targets are offsets from
// the next instruction).
std::string format_instruction(const Instruction& insn, bool code32, u32 eip);

struct Disassembly {
  bool valid = false;         // the bytes decode to an instruction of the opcode map
  u8 length = 1;              // bytes it takes (1 when not valid)
  std::string text;           // format_instruction's text, or "(bad)"
  std::optional<u32> target;  // a relative branch's target offset in CS
};

// Decodes `bytes` (at most 15 are read) as 32-bit code when `code32` (CS.D), else
// 16-bit, and formats the instruction at offset `eip`. Bytes that run out before the
// instruction ends, or decode to #UD, give "(bad)".
Disassembly disassemble(std::span<const u8> bytes, bool code32, u32 eip);

// disassemble(...).text: the trace's InstructionText (trace/sink.h).
std::string instruction_text(std::span<const u8> bytes, bool code32, u32 eip);

}  // namespace x86lab
