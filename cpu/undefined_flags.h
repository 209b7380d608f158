// The flags the SDM calls "undefined" after each instruction, and the values x86lab
// gives them (Intel SDM Vol. 2, "Flags Affected" of each instruction). This is the
// one place these choices live: executors write the flags listed here as stated. The
// opcode map's flags column (cpu/opcode_map.tsv, "u:") states the same bits per row;
// the differential tests (host CPU, 286 hardware data) mask the row's bits, and
// OpcodeMap.FlagsColumnMatchesTheUndefinedFlagsRules holds the rows to this table.
// docs/undefined-flags.md is the readable form of this table.
#pragma once
#include <string_view>

#include "cpu/flags.h"

namespace x86lab {

struct UndefinedFlagsRule {
  std::string_view mnemonic;
  u32 undefined;              // flag bits the SDM leaves undefined
  std::string_view x86lab;    // what x86lab writes into them
  std::string_view operands = {};  // the rows it covers by operand notation; {} for all
};

inline constexpr UndefinedFlagsRule kUndefinedFlags[] = {
    {"AND", flag::AF, "AF cleared"},
    {"OR", flag::AF, "AF cleared"},
    {"XOR", flag::AF, "AF cleared"},
    {"TEST", flag::AF, "AF cleared"},
    {"MUL", flag::SF | flag::ZF | flag::AF | flag::PF, "SF, ZF, PF from the low half of the result; AF cleared"},
    {"IMUL", flag::SF | flag::ZF | flag::AF | flag::PF, "SF, ZF, PF from the low half of the result; AF cleared"},
    {"DIV", flag::kStatus, "unchanged"},
    {"IDIV", flag::kStatus, "unchanged"},
    // Shifts: OF is defined only for a count of 1; AF is undefined for non-zero counts.
    {"SHL", flag::OF | flag::AF, "OF = MSB(result) XOR CF for every count; AF cleared"},
    {"SAL", flag::OF | flag::AF, "OF = MSB(result) XOR CF for every count; AF cleared"},
    {"SHR", flag::OF | flag::AF, "OF = MSB of the original operand for every count; AF cleared"},
    {"SAR", flag::OF | flag::AF, "OF cleared for every count; AF cleared"},
    {"ROL", flag::OF, "OF = MSB(result) XOR CF for every count"},
    {"ROR", flag::OF, "OF = the two top bits of the result XORed, for every count"},
    {"RCL", flag::OF, "OF = MSB(result) XOR CF for every count"},
    {"RCR", flag::OF, "OF = the two top bits of the result XORed, for every count"},
    {"SHLD", flag::OF | flag::AF, "OF = sign change of the destination; AF cleared"},
    {"SHRD", flag::OF | flag::AF, "OF = sign change of the destination; AF cleared"},
    {"BT", flag::OF | flag::SF | flag::AF | flag::PF, "unchanged"},
    {"BTS", flag::OF | flag::SF | flag::AF | flag::PF, "unchanged"},
    {"BTR", flag::OF | flag::SF | flag::AF | flag::PF, "unchanged"},
    {"BTC", flag::OF | flag::SF | flag::AF | flag::PF, "unchanged"},
    {"BSF", flag::CF | flag::OF | flag::SF | flag::AF | flag::PF, "unchanged"},
    {"BSR", flag::CF | flag::OF | flag::SF | flag::AF | flag::PF, "unchanged"},
    {"DAA", flag::OF, "OF cleared"},
    {"DAS", flag::OF, "OF cleared"},
    {"AAA", flag::OF | flag::SF | flag::ZF | flag::PF, "OF cleared; SF, ZF, PF from AL"},
    {"AAS", flag::OF | flag::SF | flag::ZF | flag::PF, "OF cleared; SF, ZF, PF from AL"},
    {"AAM", flag::OF | flag::AF | flag::CF, "cleared"},
    {"AAD", flag::OF | flag::AF | flag::CF, "cleared"},
    // SDM "MOV - Move to/from Control Registers", "MOV - Move to/from Debug Registers".
    {"MOV", flag::kStatus, "unchanged", "Rd,Cd"},
    {"MOV", flag::kStatus, "unchanged", "Cd,Rd"},
    {"MOV", flag::kStatus, "unchanged", "Rd,Dd"},
    {"MOV", flag::kStatus, "unchanged", "Dd,Rd"},
};

// The undefined flags of `mnemonic` with `operands` in SDM notation ("Rd,Cd"; only MOV
// depends on them), 0 when the SDM defines them all.
constexpr u32 undefined_flags(std::string_view mnemonic, std::string_view operands = {}) {
  for (const auto& rule : kUndefinedFlags)
    if (rule.mnemonic == mnemonic && (rule.operands.empty() || rule.operands == operands)) return rule.undefined;
  return 0;
}

// The undefined flags of a shift or rotate by its count masked to 5 bits, for an
// operand of `width` bits (SDM "Flags Affected" of SAL/SAR/SHL/SHR, RCL/RCR/ROL/ROR,
// SHLD, SHRD): a count of 0 affects no flag; a count of 1 defines OF; SHL/SAL/SHR by
// the operand size or more also leave CF undefined (x86lab writes the last bit shifted
// out, 0 beyond the operand); SHLD/SHRD by more than the operand size leave every
// status flag undefined, and the result (x86lab's: at double_shift, cpu/exec_shift.cpp).
// `row_undefined` is the flags column's "u:" of the row (InstructionForm::flags_undefined).
constexpr u32 undefined_shift_flags(u32 row_undefined, std::string_view mnemonic, unsigned masked_count,
                                    unsigned width) {
  if (masked_count == 0) return 0;
  u32 undefined = row_undefined;
  if (masked_count == 1) undefined &= ~flag::OF;
  if ((mnemonic == "SHL" || mnemonic == "SAL" || mnemonic == "SHR") && masked_count >= width) undefined |= flag::CF;
  if ((mnemonic == "SHLD" || mnemonic == "SHRD") && masked_count > width) undefined = flag::kStatus;
  return undefined;
}
constexpr u32 undefined_shift_flags(std::string_view mnemonic, unsigned masked_count, unsigned width) {
  return undefined_shift_flags(undefined_flags(mnemonic), mnemonic, masked_count, width);
}

}  // namespace x86lab
