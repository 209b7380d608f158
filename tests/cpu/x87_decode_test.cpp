// Decoding of the x87 escape opcodes D8-DF and WAIT, one line per case (Intel SDM
// Vol. 2, Appendix A "Escape Opcode Instructions"), and the encodings a P6 rejects:
// the reserved escape forms measured as #UD (SIGILL) on the host CPU, and FISTTP,
// which arrived with SSE3.
#include <gtest/gtest.h>

#include <vector>

#include "cpu/cpu_profile.h"
#include "cpu/decoder.h"
#include "decode_cases.h"

namespace x86lab {
namespace {

using decode_testing::Case;

const Case kCases[] = {
    {true, {0xD8, 0x03}, 2, "FADD"},                                    // fadd dword [ebx]
    {true, {0xD8, 0xC1}, 2, "FADD"},                                    // fadd st, st(1)
    {true, {0xDC, 0xC1}, 2, "FADD"},                                    // fadd st(1), st
    {true, {0xDE, 0xC1}, 2, "FADDP"},
    {true, {0xDC, 0xE9}, 2, "FSUB"},                                    // fsub st(1), st (DC E8+i)
    {true, {0xDC, 0xE1}, 2, "FSUBR"},                                   // fsubr st(1), st (DC E0+i)
    {true, {0xDE, 0xF9}, 2, "FDIVP"},
    {true, {0xD9, 0x05, 0x00, 0x10, 0x00, 0x00}, 6, "FLD"},             // fld dword [1000h]
    {false, {0xDD, 0x06, 0x34, 0x12}, 4, "FLD"},                        // fld qword [1234h]
    {true, {0xDB, 0x6C, 0x24, 0x08}, 4, "FLD"},                         // fld tword [esp+8]
    {true, {0xD9, 0xC9}, 2, "FXCH"},
    {true, {0xD9, 0xD0}, 2, "FNOP"},
    {true, {0xD9, 0xE0}, 2, "FCHS"},
    {true, {0xD9, 0xE1}, 2, "FABS"},
    {true, {0xD9, 0xE4}, 2, "FTST"},
    {true, {0xD9, 0xE5}, 2, "FXAM"},
    {true, {0xD9, 0xE8}, 2, "FLD1"},
    {true, {0xD9, 0xEB}, 2, "FLDPI"},
    {true, {0xD9, 0xEE}, 2, "FLDZ"},
    {true, {0xD9, 0xF0}, 2, "F2XM1"},
    {true, {0xD9, 0xF3}, 2, "FPATAN"},
    {true, {0xD9, 0xF5}, 2, "FPREM1"},
    {true, {0xD9, 0xF8}, 2, "FPREM"},
    {true, {0xD9, 0xFA}, 2, "FSQRT"},
    {true, {0xD9, 0xFB}, 2, "FSINCOS"},
    {true, {0xD9, 0xFE}, 2, "FSIN"},
    {true, {0xD9, 0xFF}, 2, "FCOS"},
    {true, {0xD9, 0x2B}, 2, "FLDCW"},
    {true, {0xD9, 0x3B}, 2, "FNSTCW"},
    {true, {0xD9, 0x33}, 2, "FNSTENV"},
    {true, {0xD9, 0x23}, 2, "FLDENV"},
    {true, {0xDA, 0xC1}, 2, "FCMOVB"},
    {true, {0xDA, 0xE9}, 2, "FUCOMPP"},
    {true, {0xDB, 0xD1}, 2, "FCMOVNBE"},
    {true, {0xDB, 0xE2}, 2, "FNCLEX"},
    {true, {0xDB, 0xE3}, 2, "FNINIT"},
    {true, {0xDB, 0xE4}, 2, "FSETPM"},                                  // a NOP since the 387
    {true, {0xDB, 0xE9}, 2, "FUCOMI"},
    {true, {0xDB, 0xF1}, 2, "FCOMI"},
    {true, {0xDD, 0xC1}, 2, "FFREE"},
    {true, {0xDD, 0xE1}, 2, "FUCOM"},
    {true, {0xDD, 0x33}, 2, "FNSAVE"},
    {true, {0xDD, 0x23}, 2, "FRSTOR"},
    {true, {0xDD, 0x3B}, 2, "FNSTSW"},
    {true, {0xDE, 0xD9}, 2, "FCOMPP"},
    {true, {0xDF, 0xE0}, 2, "FNSTSW"},                                  // fnstsw ax
    {true, {0xDF, 0xE9}, 2, "FUCOMIP"},
    {true, {0xDF, 0xF1}, 2, "FCOMIP"},
    {true, {0xDF, 0x2B}, 2, "FILD"},                                    // fild qword [ebx]
    {true, {0xDF, 0x33}, 2, "FBSTP"},
    {true, {0xDF, 0xC1}, 2, "FFREEP"},                                  // undocumented, decodes on P6
    {true, {0xD9, 0xD9}, 2, "FSTPNCE"},                                 // undocumented D9 D8+i
    {true, {0x9B}, 1, "FWAIT"},
    {true, {0x66, 0xD9, 0x30}, 3, "FNSTENV"},                           // 16-bit environment
    {false, {0x67, 0xDD, 0x34, 0x8D, 0x00, 0x10, 0x00, 0x00}, 8, "FNSAVE"},  // fnsave [ecx*4+1000h]
};

TEST(X87Decoder, EachCaseHasTheExpectedLengthAndMnemonic) {
  decode_testing::expect_lengths_and_mnemonics(kCases);
}

// Measured on an Intel host (SIGILL) and in the SDM's escape opcode maps as blank.
TEST(X87Decoder, ReservedEscapeEncodingsRaiseUd) {
  const std::vector<std::vector<u8>> reserved = {
      {0xD9, 0xD1}, {0xD9, 0xE2}, {0xD9, 0xE6}, {0xD9, 0xEF}, {0xDA, 0xE0}, {0xDA, 0xE8}, {0xDA, 0xEA},
      {0xDA, 0xF0}, {0xDA, 0xF8}, {0xDB, 0xE5}, {0xDB, 0xF8}, {0xDD, 0xF0}, {0xDD, 0xF8}, {0xDE, 0xD8},
      {0xDF, 0xE1}, {0xDF, 0xF8}, {0xD9, 0x0B}, {0xDB, 0x23}, {0xDB, 0x33}, {0xDD, 0x2B},
      {0xDB, 0x0B}, {0xDD, 0x0B}, {0xDF, 0x0B},  // FISTTP (SSE3), not on a P6
  };
  for (const auto& bytes : reserved) {
    Instruction insn;
    try {
      decode_bytes(bytes.data(), static_cast<unsigned>(bytes.size()), true, insn);
      ADD_FAILURE() << "decoded " << std::hex << int{bytes[0]} << " " << int{bytes[1]};
    } catch (const Fault& fault) {
      EXPECT_EQ(fault.vector, 6);
    }
  }
}

// FXSAVE/FXRSTOR (0F AE /0, /1) exist only where CPUID reports FXSR; no profile does.
TEST(X87Decoder, FxsaveAndFxrstorRaiseUdWhereCpuidReportsNoFxsr) {
  EXPECT_EQ(default_profile().features_edx & cpuid_edx::FXSR, 0u);
  EXPECT_NE(default_profile().features_edx & cpuid_edx::FPU, 0u);
  for (u8 modrm : {u8{0x00}, u8{0x08}}) {
    const u8 bytes[] = {0x0F, 0xAE, modrm};
    Instruction insn;
    EXPECT_THROW(decode_bytes(bytes, sizeof bytes, true, insn), Fault);
  }
}

TEST(X87Decoder, LockPrefixOnAnEscapeRaisesUd) {
  const u8 bytes[] = {0xF0, 0xD8, 0x03};  // lock fadd dword [ebx]
  Instruction insn;
  EXPECT_THROW(decode_bytes(bytes, sizeof bytes, true, insn), Fault);
}

}  // namespace
}  // namespace x86lab
