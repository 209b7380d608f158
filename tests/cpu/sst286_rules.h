// x86lab's rules 8-13 for the 80286 real-mode suite (docs/sst286.md): further places
// where that 286 and a P6 differ and where the Intel SDM documents the P6's behaviour.
// Like rules 3, 6 and 7, each turns the hardware's outcome into the P6's documented one
// from the test's own data (the decoded bytes, the initial registers and RAM, the
// captured final state), never from its hash, and applies only where its condition holds
// exactly; everything else is then compared as captured. Used by sst286_runner.cpp.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>

#include "sst286_runner.h"

namespace x86lab::sst286 {

// Shared with the runner: the real-mode linear address of segment:offset (offset
// wrapped to 16 bits), FLAGS as a P6 can load them (bits 12-15 clear, bit 1 set, bits 3
// and 5 clear), and a byte of the test's initial RAM (0 where it lists none).
u32 linear(u32 segment, u32 offset);
u32 loadable_flags(u32 flags);
u8 initial_byte(const Expectation& e, u32 address);

// The expectation "the instruction raised `vector` on the P6" (Intel SDM Vol. 3,
// "Exception and Interrupt Handling in Real-Address Mode"): an IVT entry the runner adds
// points at a HLT of its own, the frame holds IP at the instruction's first prefix, CS
// and FLAGS, IF and TF are clear, nothing else changes. README difference 3 (#UD for
// LOCK) and rules 12 and 13 use it.
Expectation expect_interrupt(const nlohmann::json& test, u8 vector);

// Rule 8: MOV r/m16, Sreg (8C) and MOV Sreg, r/m16 (8E) with ModRM.reg = 4 or 5 raise #UD
// on the 286, which has four segment registers; on the P6 they move FS and GS. Where the
// 286 took #UD (6) there, the expectation becomes the P6's MOV: the destination (8C)
// gets the FS/GS selector as the runner loads it (0), the load (8E) changes nothing that
// the suite compares, and IP passes the HLT that follows. Not applied (nullopt) when the
// memory operand runs past offset FFFFh or uses an FS/GS override.
std::optional<Expectation> expect_mov_fs_gs(const Instruction& insn, const nlohmann::json& test);

// Rule 9: POP m16 (8F /0) whose destination runs past offset FFFFh. The 286 has already
// added 2 to SP when its #GP is taken, so its frame lies 2 bytes higher; on the P6 the
// exception is a fault and SP is that of the instruction's start. Where the 286 took #GP
// with SP + 2 - 6 after it, `e` (the captured expectation) gets the frame moved to
// SS:SP-6 and SP - 6. False (nothing changed) otherwise.
bool expect_pop_fault_with_sp_unchanged(Expectation& e, const Instruction& insn, const nlohmann::json& test);

// Rules 7 and 10: the element of a string instruction (under REP: of the CX elements, in
// the DF direction) whose access first runs past offset FFFFh, and its segment. For
// REPE/REPNE CMPS and SCAS the elements before it must not have ended the repetition
// (their comparison is worked out from the initial RAM and AX); nullopt when one would,
// or when no element faults.
struct StringFault {
  u32 element = 0;  // elements completed before the faulting one
  SegmentIndex segment = DS;
};
std::optional<StringFault> faulting_string_element(const Instruction& insn, const nlohmann::json& test,
                                                   const Expectation& e);
// SI, DI (for the operands the instruction has) and, under REP, CX as the P6 reports them
// at a fault in element `element`: after the completed elements (Intel SDM Vol. 2,
// "REP/REPE/REPZ/REPNE/REPNZ").
void expect_string_registers_after(Expectation& e, const Instruction& insn, const nlohmann::json& test,
                                   u32 element);

// Rule 11: AAM with imm8 = 0 raises #DE on both, but the 286 has already set SF, ZF and
// PF; on the P6 #DE is a fault taken before the instruction changes any state. Where the
// 286 took #DE on AAM 0, SF, ZF and PF of FLAGS and of the pushed FLAGS word are expected
// as they were at the start. False otherwise.
bool expect_aam_zero_flags_unchanged(Expectation& e, const Instruction& insn, const nlohmann::json& test);

// Rule 12: IDIV r/m8 (F6 /7) and IDIV r/m16 (F7 /7) whose quotient, as the SDM's IDIV
// operation computes it from the initial AX (DX:AX) and divisor, lies outside -80h..7Fh
// (-8000h..7FFFh): the P6 raises #DE; some such cases complete on the 286. Where the 286
// took no exception there, the expectation becomes #DE (expect_interrupt). nullopt
// otherwise (a zero divisor faults on both).
std::optional<Expectation> expect_idiv_overflow(const Instruction& insn, const nlohmann::json& test);

// Rule 13: an instruction of more than 10 and at most 15 bytes (before the HLT that
// follows) that the P6 decodes as invalid: the 286 stops at its 10-byte limit with #GP
// (README difference 5), the P6 raises #UD. Where the 286 took #GP and the P6's decoder
// raised #UD (`decode_vector` = 6), the expectation becomes #UD. nullopt otherwise.
std::optional<Expectation> expect_long_invalid_form(std::optional<u8> decode_vector, const nlohmann::json& test);

}  // namespace x86lab::sst286
