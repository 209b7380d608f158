// Random instruction cases for the host differential tests: the integer instruction
// forms (Intel SDM Vol. 2, Appendix A "Opcode Map") in 8-, 16- and 32-bit operand
// sizes, with register and memory operands and random and edge values.
//
// Every case is valid both in 32-bit protected mode and, without a REX prefix, in
// 64-bit mode with the same meaning: no form that 64-bit mode removes or redefines
// (BCD adjusts, BOUND, INTO, PUSHA/POPA, LDS/LES, segment pushes, INC/DEC 40h-4Fh,
// 82h, moffs MOV, stack operations), no 16-bit addressing, and memory operands whose
// 32-bit effective address never wraps (so a 64-bit address computes the same).
#pragma once
#include <array>
#include <random>
#include <span>
#include <string_view>

#include "host_runner.h"

namespace x86lab::testing {

struct InstructionCase {
  std::array<u8, 15> bytes{};
  unsigned length = 0;
  std::string_view mnemonic;  // the mnemonic of the case's form ("CMOVcc", "SETcc" for those)
  unsigned width = 32;        // operand size in bits
  RegisterState before;
  std::array<u8, kDataBytes> memory{};
  // The flags the row (cpu/opcode_map.tsv's flags column) says the instruction may
  // change ("w:"); the host changing another one is a mismatch of the column.
  u32 written_flags = 0;
  // What the SDM leaves undefined for this case (the row's "u:", by the count for
  // shifts) and the comparison ignores.
  u32 undefined_flags = 0;
  int undefined_register = -1;  // a register whose bits in `undefined_register_mask` are undefined
  u32 undefined_register_mask = 0;
  int undefined_memory_offset = -1;  // data-buffer bytes [offset, offset + bytes) undefined
  unsigned undefined_memory_bytes = 0;

  std::span<const u8> instruction() const { return {bytes.data(), length}; }
};

// The number of instruction forms cases are drawn from.
unsigned host_form_count();

// A random case of form `form` (0 <= form < host_form_count()).
InstructionCase make_host_case(unsigned form, std::mt19937_64& random);

}  // namespace x86lab::testing
