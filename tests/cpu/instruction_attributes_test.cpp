// The rows' attributes against lists taken from the SDM (Intel SDM Vol. 3, "Privileged
// Instructions"; Vol. 2, each instruction's "Real-Address Mode Exceptions"), and the
// checks cpu/privilege.h makes for them before the executor.
#include <set>
#include <string>

#include "../segmentation/protected_fixture.h"
#include "cpu/instruction_table.h"

namespace x86lab {
namespace {

bool names_control_or_debug_register(std::string_view operands) {
  return operands.find('C') != std::string_view::npos || operands.find('D') != std::string_view::npos;
}

// SDM Vol. 3, "Privileged Instructions": the instructions that run only at CPL 0
// (RDPMC and RDTSC only under a CR4 bit, so no row of theirs is privileged), and
// SYSEXIT ("#GP(0) If CPL ≠ 0"). MOV rows count when they name a control or debug
// register.
TEST(Instructions, PrivilegedRowsAreTheSdmsList) {
  const std::set<std::string> privileged = {"LGDT", "LIDT", "LLDT",   "LTR",   "LMSW",  "CLTS",  "INVD",
                                            "WBINVD", "INVLPG", "HLT", "RDMSR", "WRMSR", "SYSEXIT"};
  unsigned mov_rows = 0;
  for (const InstructionForm* form : InstructionTable::get().rows()) {
    const std::string mnemonic(form->mnemonic);
    const bool mov_system = mnemonic == "MOV" && names_control_or_debug_register(form->operands);
    mov_rows += mov_system;
    const bool expected = privileged.count(mnemonic) != 0 || mov_system;
    EXPECT_EQ((form->attributes & kPrivileged) != 0, expected) << mnemonic << " " << form->operands;
  }
  EXPECT_EQ(mov_rows, 4u) << "MOV to and from CRn and DRn";
}

// Each instruction's "Real-Address Mode Exceptions": "#UD The ... instruction is not
// recognized in real-address mode" (and in virtual-8086 mode).
TEST(Instructions, ProtectedModeOnlyRowsAreTheSdmsList) {
  const std::set<std::string> protected_only = {"SLDT", "STR", "LLDT", "LTR", "VERR", "VERW", "LAR", "LSL", "ARPL"};
  for (const InstructionForm* form : InstructionTable::get().rows())
    EXPECT_EQ((form->attributes & kProtectedModeOnly) != 0, protected_only.count(std::string(form->mnemonic)) != 0)
        << form->mnemonic;
}

// The fast path's attribute: a row that can load CS or change CPL without faulting
// must carry kLoadsCs (execute_ending_run in cpu/fetch_unit.cpp ends a linked run after it; a linked run
// would otherwise go on with a stale fetch context). The SDM's instructions that load
// CS (Vol. 2 "JMP", "CALL", "RET", "IRET/IRETD", "INT n/INTO/INT3/INT1", "SYSENTER",
// "SYSEXIT"; Vol. 3 "Task Switching"): far JMP and CALL (a direct far pointer Ap or a
// memory one Mp), far RET, IRET, the software interrupts and the fast system calls.
// Near transfers (Jb, Jz, Ev) keep CS.
TEST(Instructions, RowsThatLoadCsAreTheSdmsList) {
  const std::set<std::string> always = {"RETF", "IRET", "INT", "INT3", "INTO", "INT1", "SYSENTER", "SYSEXIT"};
  const std::set<std::string> far_forms = {"JMP Ap", "JMP Mp", "CALL Ap", "CALL Mp"};
  unsigned far_rows = 0;
  for (const InstructionForm* form : InstructionTable::get().rows()) {
    const std::string mnemonic(form->mnemonic);
    const bool far = far_forms.count(mnemonic + " " + std::string(form->operands)) != 0;
    far_rows += far;
    EXPECT_EQ((form->attributes & kLoadsCs) != 0, always.count(mnemonic) != 0 || far)
        << "cpu/opcode_map.tsv:" << form->map_line << ": " << mnemonic << " " << form->operands;
  }
  EXPECT_EQ(far_rows, 4u);
}

// Protected mode at CPL 3 (tests/segmentation/protected_fixture.h's Ring3Fixture):
// `bytes` at 1100h raise #GP(0), taken by the handler at 1500h.
void expect_gp0_at_cpl3(std::initializer_list<u8> bytes) {
  testing::Ring3Fixture f;
  f.enter_ring3();
  f.code(0x1100, bytes);
  f.cpu.step();
  ASSERT_EQ(f.cpu.fault_chain().size(), 1u);
  EXPECT_EQ(f.cpu.fault_chain()[0].vector, 13);
  EXPECT_EQ(f.cpu.fault_chain()[0].error_code, 0u);
  EXPECT_EQ(f.cpu.state.eip, 0x1500u);
}

TEST(Instructions, PrivilegedInstructionsAtCpl3RaiseGp0) {
  expect_gp0_at_cpl3({0x0F, 0x06});              // clts
  expect_gp0_at_cpl3({0xF4});                    // hlt
  expect_gp0_at_cpl3({0x0F, 0x20, 0xC0});        // mov eax, cr0
  expect_gp0_at_cpl3({0x0F, 0x01, 0x15, 0, 0x50, 0, 0});  // lgdt [5000h]
  expect_gp0_at_cpl3({0x0F, 0x32});              // rdmsr
  expect_gp0_at_cpl3({0x0F, 0x00, 0xD0});        // lldt ax
}

// LLDT in real mode: not recognized (#UD), before any privilege question.
TEST(Instructions, LldtInRealModeRaisesUd) {
  testing::CpuFixture f;
  f.real_mode_at();
  f.code(0x1000, {0x0F, 0x00, 0xD0});
  f.cpu.step();
  ASSERT_EQ(f.cpu.fault_chain().size(), 1u);
  EXPECT_EQ(f.cpu.fault_chain()[0].vector, 6);
}

}  // namespace
}  // namespace x86lab
