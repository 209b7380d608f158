// x86lab's rules 8-13 for the 80286 suite (tests/cpu/sst286_rules.h, docs/sst286.md) on
// synthetic tests in the suite's JSON shape: for each rule, 286 outcomes it must turn
// into the P6's documented one (the test then passes on x86lab's CPU with the rule
// applied), and outcomes it must leave alone. The 286 side of each case is the
// behaviour the full suite shows for that difference; the P6 side is the SDM's.
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "cpu/decoder.h"
#include "sst286_rules.h"
#include "sst286_runner.h"

namespace x86lab::sst286 {
namespace {

using nlohmann::json;

constexpr u32 kCs = 0x1000, kIp = 0x0100, kSs = 0x2000, kSp = 0x0800, kDs = 0x3000, kEs = 0x4000;
constexpr u32 kHandlerCs = 0x0600;  // the 286 test's own handler: a HLT at 0600:0000

// A test as the suite writes one: the instruction at CS:IP followed by a HLT.
struct Synthetic {
  std::vector<u8> bytes;
  std::map<std::string, u32> regs = {{"ax", 0x1234}, {"bx", 0x0010}, {"cx", 0x0003}, {"dx", 0x5678},
                                     {"cs", kCs},    {"ss", kSs},    {"ds", kDs},    {"es", kEs},
                                     {"sp", kSp},    {"bp", 0x0020}, {"si", 0x0040}, {"di", 0x0060},
                                     {"ip", kIp},    {"flags", 0x0002}};
  std::map<u32, u8> initial_ram, final_ram;
  std::map<std::string, u32> final_regs;
  std::optional<int> exception;
  std::optional<u32> flag_address;

  explicit Synthetic(std::vector<u8> code, std::map<std::string, u32> changes = {}) : bytes(std::move(code)) {
    bytes.push_back(0xF4);
    for (const auto& [name, value] : changes) regs[name] = value;
    for (u32 k = 0; k < bytes.size(); ++k) initial_ram[linear(kCs, regs["ip"] + k)] = bytes[k];
  }

  // The 286 completed the instruction: IP past the HLT, `changes` to the registers.
  void completes(std::map<std::string, u32> changes) {
    final_regs = std::move(changes);
    final_regs["ip"] = (regs["ip"] + static_cast<u32>(bytes.size())) & 0xFFFF;
  }

  // The 286 took `vector` through its own handler, pushing IP = `pushed_ip`, CS and
  // FLAGS = `pushed_flags` below stack offset `top` (SP, or SP as the 286 stepped it).
  void interrupts(int vector, u32 top, u32 pushed_flags, u32 pushed_ip) {
    exception = vector;
    for (u32 i = 0; i < 4; ++i) initial_ram[4u * vector + i] = static_cast<u8>(i < 2 ? 0 : kHandlerCs >> (8 * (i - 2)));
    initial_ram[kHandlerCs << 4] = 0xF4;
    const u16 frame[3] = {static_cast<u16>(pushed_ip), static_cast<u16>(regs["cs"]), static_cast<u16>(pushed_flags)};
    for (u32 word = 0; word < 3; ++word) {
      for (u32 k = 0; k < 2; ++k) final_ram[linear(regs["ss"], top - 6 + 2 * word + k)] = static_cast<u8>(frame[word] >> (8 * k));
    }
    flag_address = linear(regs["ss"], top - 2);
    final_regs["cs"] = kHandlerCs;
    final_regs["ip"] = 1;
    final_regs["sp"] = (top - 6) & 0xFFFF;
    final_regs["flags"] = pushed_flags & ~(flag::IF | flag::TF);
  }

  json to_json() const {
    json test;
    test["name"] = "synthetic";
    test["bytes"] = bytes;
    test["hash"] = std::string(40, '0');
    for (const auto& [name, value] : regs) test["initial"]["regs"][name] = value;
    test["initial"]["ram"] = json::array();
    for (const auto& [address, value] : initial_ram) test["initial"]["ram"].push_back({address, value});
    test["final"]["regs"] = json::object();
    for (const auto& [name, value] : final_regs) test["final"]["regs"][name] = value;
    test["final"]["ram"] = json::array();
    for (const auto& [address, value] : final_ram) test["final"]["ram"].push_back({address, value});
    if (exception) test["exception"] = {{"number", *exception}, {"flag_address", *flag_address}};
    return test;
  }
};

Outcome run(const Synthetic& s) {
  static Machine machine;
  return run_test(machine, s.to_json());
}

// Passes with exactly `rules` applied (0: none).
void expect_pass(const Synthetic& s, u32 rules) {
  const Outcome outcome = run(s);
  EXPECT_EQ(outcome.verdict, Verdict::Pass) << outcome.detail;
  EXPECT_EQ(outcome.rules, rules);
}

// The initial RAM of `test`, as faulting_string_element reads it.
Expectation initial_of(const json& test) {
  Expectation e;
  for (const auto& pair : test["initial"]["ram"]) e.initial_ram[pair[0].get<u32>()] = pair[1].get<u8>();
  return e;
}

Instruction decoded(std::vector<u8> bytes) {
  Instruction insn;
  EXPECT_TRUE(decode_bytes(bytes.data(), static_cast<unsigned>(bytes.size()), false, insn));
  return insn;
}

// ---- rule 8: MOV to and from segment registers 4 and 5 ----------------------------

TEST(Sst286Rules, Rule8TurnsThe286sUdOnSegmentRegisters4And5IntoMovesOfFsAndGs) {
  Synthetic to_register({0x8C, 0xE0});  // mov ax, fs
  to_register.interrupts(6, kSp, 0x0002, kIp);
  expect_pass(to_register, 1u << 8);  // AX = 0 (FS as the runner loads it), IP past the HLT

  Synthetic to_memory({0x8C, 0x2F}, {{"bx", 0x0200}});  // mov [bx], gs
  to_memory.initial_ram[linear(kDs, 0x200)] = 0x55;
  to_memory.initial_ram[linear(kDs, 0x201)] = 0xAA;
  to_memory.interrupts(6, kSp, 0x0002, kIp);
  expect_pass(to_memory, 1u << 8);

  Synthetic load({0x8E, 0xE8});  // mov gs, ax
  load.interrupts(6, kSp, 0x0002, kIp);
  expect_pass(load, 1u << 8);
}

TEST(Sst286Rules, Rule8LeavesOtherSegmentRegistersAndFaultingOperandsAlone) {
  // MOV [bx], DS: a P6 moves it too, so a #UD there is no segment-register difference.
  Synthetic ds({0x8C, 0x1F});
  ds.interrupts(6, kSp, 0x0002, kIp);
  const json test = ds.to_json();
  EXPECT_FALSE(expect_mov_fs_gs(decoded({0x8C, 0x1F, 0xF4}), test));
  EXPECT_EQ(run(ds).verdict, Verdict::Fail);
  // Segment register 6 is #UD on both: the captured #UD stands, no rule.
  Synthetic six({0x8C, 0xF0});
  six.interrupts(6, kSp, 0x0002, kIp);
  expect_pass(six, 0);
  // A word at offset FFFFh: the P6 faults on the access; the rule refuses.
  Synthetic past({0x8C, 0x27}, {{"bx", 0xFFFF}});
  past.interrupts(6, kSp, 0x0002, kIp);
  EXPECT_FALSE(expect_mov_fs_gs(decoded({0x8C, 0x27, 0xF4}), past.to_json()));
  // No #UD on the 286: nothing to turn.
  Synthetic completed({0x8C, 0xE0});
  completed.completes({{"ax", 0}});
  EXPECT_FALSE(expect_mov_fs_gs(decoded({0x8C, 0xE0, 0xF4}), completed.to_json()));
}

// ---- rule 9: POP m16 with a faulting destination ----------------------------------

TEST(Sst286Rules, Rule9ExpectsPopM16ToFaultWithSpAsAtItsStart) {
  Synthetic pop({0x8F, 0x07}, {{"bx", 0xFFFF}});  // pop word [bx]: the write runs past FFFFh
  pop.initial_ram[linear(kSs, kSp)] = 0x11;
  pop.initial_ram[linear(kSs, kSp + 1)] = 0x22;
  pop.interrupts(13, kSp + 2, 0x0002, kIp);  // the 286 had stepped SP by 2
  expect_pass(pop, 1u << 9);
}

TEST(Sst286Rules, Rule9LeavesAPopWhoseFaultIsElsewhereOrWhoseSpWasNotSteppedAlone) {
  // SP not stepped in the data: already the P6's outcome, no rule.
  Synthetic unstepped({0x8F, 0x07}, {{"bx", 0xFFFF}});
  unstepped.interrupts(13, kSp, 0x0002, kIp);
  expect_pass(unstepped, 0);
  // The stack read faults (SP = FFFFh): rule 6's case (#SS), not rule 9's.
  Synthetic stack({0x8F, 0x07}, {{"bx", 0x0010}, {"sp", 0xFFFF}});
  stack.interrupts(13, 0xFFFF + 2, 0x0002, kIp);
  EXPECT_FALSE(run(stack).applied(9));
  // A destination within the limit: no limit fault to explain.
  Synthetic inside({0x8F, 0x07}, {{"bx", 0x0010}});
  inside.interrupts(13, kSp + 2, 0x0002, kIp);
  const Outcome outcome = run(inside);
  EXPECT_FALSE(outcome.applied(9));
  EXPECT_EQ(outcome.verdict, Verdict::Fail);
}

// ---- rule 10: a REP string fault after completed elements -------------------------

TEST(Sst286Rules, Rule10ExpectsSiDiCxAfterTheCompletedElements) {
  // rep stosw from ES:FFFBh, CX = 5: elements at FFFBh and FFFDh complete, FFFFh faults.
  Synthetic stos({0xF3, 0xAB}, {{"di", 0xFFFB}, {"cx", 5}, {"ax", 0xBEEF}});
  for (u32 offset = 0xFFFB; offset < 0xFFFF; offset += 2) {
    stos.final_ram[linear(kEs, offset)] = 0xEF;
    stos.final_ram[linear(kEs, offset + 1)] = 0xBE;
  }
  stos.interrupts(13, kSp, 0x0002, kIp);
  stos.final_regs["di"] = 0x0001;  // the 286's own count: one element further, CX - 4
  stos.final_regs["cx"] = 1;
  expect_pass(stos, 1u << 10);  // the P6: DI = FFFFh, CX = 3
  const json test = stos.to_json();
  const auto fault = faulting_string_element(decoded({0xF3, 0xAB, 0xF4}), test, initial_of(test));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->element, 2u);
  EXPECT_EQ(fault->segment, ES);

  // repe cmpsw, DF = 1, source DS:0004h down to FFFFh: equal words until the fault.
  Synthetic cmps({0xF3, 0xA7}, {{"si", 0x0003}, {"di", 0x0100}, {"cx", 4}, {"flags", 0x0402}});
  for (u32 k = 0; k < 4; ++k) {
    cmps.initial_ram[linear(kDs, 0x0003 + k)] = static_cast<u8>(0x30 + k);
    cmps.initial_ram[linear(kEs, 0x00FE + k)] = static_cast<u8>(0x30 + k + 1);
  }
  const json compare = cmps.to_json();
  EXPECT_FALSE(faulting_string_element(decoded({0xF3, 0xA7, 0xF4}), compare, initial_of(compare)));
  // (DS:0003h holds 30h 31h, ES:0100h 32h 33h: the first comparison differs, REPE stops.)
}

TEST(Sst286Rules, Rule10LeavesARepetitionThatEndsBeforeTheLimitAlone) {
  // repe cmpsw whose first comparison differs: the repetition ends after element 0 and
  // never reaches offset FFFFh, so the rule does not explain a #GP.
  Synthetic cmps({0xF3, 0xA7}, {{"si", 0xFFFD}, {"di", 0x0100}, {"cx", 3}});
  cmps.initial_ram[linear(kDs, 0xFFFD)] = 1;
  cmps.initial_ram[linear(kEs, 0x0100)] = 2;
  cmps.interrupts(13, kSp, 0x0002, kIp);
  cmps.final_regs["si"] = 0x0001;
  cmps.final_regs["di"] = 0x0104;
  const json differing = cmps.to_json();
  EXPECT_FALSE(faulting_string_element(decoded({0xF3, 0xA7, 0xF4}), differing, initial_of(differing)));
  EXPECT_FALSE(run(cmps).applied(10));
  // The same data with equal words reaches FFFFh after one element: element 1 faults.
  cmps.initial_ram[linear(kEs, 0x0100)] = 1;
  const json equal = cmps.to_json();
  const auto fault = faulting_string_element(decoded({0xF3, 0xA7, 0xF4}), equal, initial_of(equal));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->element, 1u);
}

// ---- rule 11: AAM 0 --------------------------------------------------------------

TEST(Sst286Rules, Rule11ExpectsAam0ToLeaveSfZfPfAsAtTheStart) {
  Synthetic aam({0xD4, 0x00}, {{"ax", 0x0000}, {"flags", 0x0002}});
  aam.interrupts(0, kSp, 0x0002 | flag::ZF | flag::PF, kIp);  // the 286 set ZF and PF from AL = 0
  expect_pass(aam, 1u << 11);
}

TEST(Sst286Rules, Rule11LeavesEverythingButSfZfPfAsCaptured) {
  // The 286 data also changed AX: not the rule's difference, so the test still fails.
  Synthetic aam({0xD4, 0x00}, {{"ax", 0x0005}});
  aam.interrupts(0, kSp, 0x0002 | flag::ZF, kIp);
  aam.final_regs["ax"] = 0x0000;
  const Outcome outcome = run(aam);
  EXPECT_TRUE(outcome.applied(11));
  EXPECT_EQ(outcome.verdict, Verdict::Fail);
  // AAM 10 completes on both: no rule.
  Synthetic ten({0xD4, 0x0A}, {{"ax", 0x0025}});
  ten.completes({{"ax", 0x0307}, {"flags", 0x0002}});
  EXPECT_FALSE(run(ten).applied(11));
}

// ---- rule 12: IDIV overflow where the 286 takes no #DE ----------------------------

TEST(Sst286Rules, Rule12ExpectsDivideErrorWhereTheQuotientDoesNotFit) {
  Synthetic byte({0xF6, 0xFB}, {{"ax", 0x4000}, {"bx", 0x0040}});  // idiv bl: 16384 / 64 = 256
  byte.completes({{"ax", 0x0000}});
  expect_pass(byte, 1u << 12);
  Synthetic memory({0xF6, 0x3F}, {{"ax", 0xFF00}, {"bx", 0x0300}});  // idiv byte [bx]: -256 / 1
  memory.initial_ram[linear(kDs, 0x300)] = 0x01;
  memory.completes({{"ax", 0x0000}});
  expect_pass(memory, 1u << 12);
  Synthetic word({0xF7, 0xFB}, {{"dx", 0x0001}, {"ax", 0x0000}, {"bx", 0x0001}});  // idiv bx: 65536 / 1
  word.completes({{"ax", 0x0000}, {"dx", 0x0000}});
  expect_pass(word, 1u << 12);
}

TEST(Sst286Rules, Rule12LeavesQuotientsThatFitAndZeroDivisorsAlone) {
  Synthetic fits({0xF6, 0xFB}, {{"ax", 0xFF80}, {"bx", 0x0001}});  // -128 / 1 = -128 fits
  fits.completes({{"ax", 0x0080}});
  expect_pass(fits, 0);
  Synthetic most({0xF6, 0xFB}, {{"ax", 0x00FE}, {"bx", 0x0002}});  // 254 / 2 = 127 fits
  most.completes({{"ax", 0x007F}});
  expect_pass(most, 0);
  const Synthetic zero({0xF6, 0xFB}, {{"ax", 0x0100}, {"bx", 0x0000}});  // #DE on both
  EXPECT_FALSE(expect_idiv_overflow(decoded({0xF6, 0xFB, 0xF4}), zero.to_json()));
  Synthetic faulted({0xF6, 0xFB}, {{"ax", 0x4000}, {"bx", 0x0040}});  // the 286 took #DE itself
  faulted.interrupts(0, kSp, 0x0002, kIp);
  EXPECT_FALSE(expect_idiv_overflow(decoded({0xF6, 0xFB, 0xF4}), faulted.to_json()));
  expect_pass(faulted, 0);
}

// ---- rule 13: an 11-byte invalid form --------------------------------------------

TEST(Sst286Rules, Rule13ExpectsUdForAnInvalidFormOverThe286sLengthLimit) {
  std::vector<u8> code(9, 0x26);  // nine ES overrides, then LEA with a register operand (#UD)
  code.insert(code.end(), {0x8D, 0xC0});
  Synthetic invalid(code);
  invalid.interrupts(13, kSp, 0x0002, kIp);
  expect_pass(invalid, 1u << 13);
}

TEST(Sst286Rules, Rule13LeavesShortInvalidFormsAndLongValidOnesAlone) {
  std::vector<u8> code(8, 0x26);  // 10 bytes: within the 286's limit, #UD on both
  code.insert(code.end(), {0x8D, 0xC0});
  Synthetic short_form(code);
  short_form.interrupts(6, kSp, 0x0002, kIp);
  expect_pass(short_form, 0);
  EXPECT_FALSE(expect_long_invalid_form(6, short_form.to_json()));
  // A long valid form is README difference 5 (skipped), not rule 13.
  std::vector<u8> valid(9, 0x26);
  valid.insert(valid.end(), {0x8B, 0xC0});  // mov ax, ax
  Synthetic long_valid(valid);
  long_valid.interrupts(13, kSp, 0x0002, kIp);
  EXPECT_EQ(run(long_valid).verdict, Verdict::Skipped);
  // A #GP that the P6's decoder does not explain with #UD.
  EXPECT_FALSE(expect_long_invalid_form(13, Synthetic(code).to_json()));
}

}  // namespace
}  // namespace x86lab::sst286
