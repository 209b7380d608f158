// Decimal adjusts: DAA DAS AAA AAS AAM AAD (Intel SDM Vol. 2, each instruction's
// "Operation" section). Undefined flags as cpu/undefined_flags.h states.
#include "cpu/alu.h"
#include "cpu/cpu.h"
#include "cpu/instruction_table.h"

namespace x86lab {
namespace {

// DAA and DAS: AL plus or minus 6 when the low digit is over 9 or AF is set (AF = 1), and
// plus or minus 60h when the original AL was over 99h or CF was set (CF = 1). The low
// adjust's own carry (DAA) or borrow (DAS) out of AL also sets CF: DAS with AL = 03h and
// AF = 1 gives AL = FDh, CF = 1. For DAA that carry needs AL >= FAh, so the high adjust
// (AL > 99h) sets CF anyway and the SDM's "ELSE CF := 0" of DAA never clears it.
template <int kSign>
void decimal_adjust(Cpu& c) {
  const u8 old_al = c.reg<u8>(0);
  const bool old_cf = c.flag_set(flag::CF);
  u8 al = old_al;
  u32 f = 0;
  if ((al & 0x0F) > 9 || c.flag_set(flag::AF)) {
    const bool carry_out = kSign > 0 ? al > 0xFF - 6 : al < 6;
    al = static_cast<u8>(al + kSign * 6);
    f |= flag::AF | (carry_out ? flag::CF : 0);
  }
  if (old_al > 0x99 || old_cf) {
    al = static_cast<u8>(al + kSign * 0x60);
    f |= flag::CF;
  }
  c.set_reg<u8>(0, al);
  c.set_flags(f | alu::zsp<u8>(al), flag::kStatus);
}
void daa(Cpu& c, const Instruction&) { decimal_adjust<1>(c); }
void das(Cpu& c, const Instruction&) { decimal_adjust<-1>(c); }

// AAA/AAS adjust AX (P6: AX += 106h / AX -= 106h as one 16-bit operation).
template <int kSign>
void ascii_adjust(Cpu& c) {
  u16 ax = c.reg<u16>(EAX);
  u32 f = 0;
  if ((ax & 0x0F) > 9 || c.flag_set(flag::AF)) {
    ax = static_cast<u16>(ax + kSign * 0x106);
    f = flag::AF | flag::CF;
  }
  ax &= 0xFF0F;
  c.set_reg<u16>(EAX, ax);
  c.set_flags(f | alu::zsp<u8>(static_cast<u8>(ax)), flag::kStatus);
}
void aaa(Cpu& c, const Instruction&) { ascii_adjust<1>(c); }
void aas(Cpu& c, const Instruction&) { ascii_adjust<-1>(c); }

// AAM imm8: AH = AL / imm8, AL = AL mod imm8; imm8 = 0 raises #DE.
void aam(Cpu& c, const Instruction& i) {
  const u8 base = static_cast<u8>(i.immediate), al = c.reg<u8>(0);
  if (base == 0) throw de("AAM with base 0");
  const u8 result = al % base;
  c.set_reg<u16>(EAX, static_cast<u16>(((al / base) << 8) | result));
  c.set_flags(alu::zsp<u8>(result), flag::kStatus);
}

// AAD imm8: AL = AL + AH * imm8, AH = 0.
void aad(Cpu& c, const Instruction& i) {
  const u8 base = static_cast<u8>(i.immediate);
  const u8 result = static_cast<u8>(c.reg<u8>(0) + c.reg<u8>(4) * base);
  c.set_reg<u16>(EAX, result);
  c.set_flags(alu::zsp<u8>(result), flag::kStatus);
}

// The rows of cpu/opcode_map.tsv whose family is exec_decimal (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/exec_decimal.inc"
};

}  // namespace

FormList decimal_forms() { return kForms; }

}  // namespace x86lab
