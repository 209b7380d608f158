// Decoder cases, one line each: mode, bytes, expected length and mnemonic (lengths
// checked against the SDM's encoding rules; the Zydis comparison covers the rest).
#include "cpu/decoder.h"
#include "decode_cases.h"
#include "segmentation/descriptor.h"
#include "trace/cost_model.h"

#include <gtest/gtest.h>

#include <set>
#include <string_view>
#include <vector>

namespace x86lab {
namespace {

using decode_testing::Case;

const Case kCases[] = {
    {false, {0xB8, 0x34, 0x12}, 3, "MOV"},                               // mov ax, 1234h
    {false, {0x66, 0xB8, 0x78, 0x56, 0x34, 0x12}, 6, "MOV"},             // mov eax, 12345678h
    {false, {0x8B, 0x46, 0xFE}, 3, "MOV"},                               // mov ax, [bp-2]
    {false, {0x67, 0x8B, 0x04, 0x24}, 4, "MOV"},                         // mov ax, [esp]
    {true, {0x8B, 0x44, 0x24, 0x04}, 4, "MOV"},                          // mov eax, [esp+4]
    {true, {0xEA, 0x00, 0x00, 0x10, 0x00, 0x08, 0x00}, 7, "JMP"},        // jmp far 8:100000h
    {false, {0xEA, 0x00, 0x7C, 0x00, 0x00}, 5, "JMP"},                   // jmp far 0:7C00h
    {true, {0xF3, 0xA5}, 2, "MOVS"},                                     // rep movsd
    {true, {0x0F, 0x20, 0xC0}, 3, "MOV"},                                // mov eax, cr0
    {true, {0x81, 0x05, 0x00, 0x10, 0x00, 0x00, 0x01, 0, 0, 0}, 10, "ADD"},  // add [1000h], 1
    {true, {0x83, 0x04, 0x8D, 0x00, 0x20, 0x00, 0x00, 0xFF}, 8, "ADD"},  // add [ecx*4+2000h], -1
    {false, {0xC8, 0x08, 0x00, 0x02}, 4, "ENTER"},                       // enter 8, 2
    {true, {0x69, 0xC0, 0x10, 0x00, 0x00, 0x00}, 6, "IMUL"},             // imul eax, eax, 16
    {true, {0x6B, 0xC0, 0x10}, 3, "IMUL"},                               // imul eax, eax, 16
    {true, {0x0F, 0xA4, 0xC2, 0x04}, 4, "SHLD"},                         // shld edx, eax, 4
    {true, {0x0F, 0xC7, 0x0E}, 3, "CMPXCHG8B"},                          // cmpxchg8b [esi]
    {true, {0x65, 0xA1, 0xFC, 0xFF, 0xFF, 0xFF}, 6, "MOV"},              // mov eax, gs:[-4]
    {true, {0x0F, 0x84, 0x00, 0x01, 0x00, 0x00}, 6, "JE"},               // je rel32
    {false, {0x0F, 0x84, 0x00, 0x01}, 4, "JE"},                          // je rel16
    {true, {0xF0, 0x0F, 0xB1, 0x0A}, 4, "CMPXCHG"},                      // lock cmpxchg [edx], ecx
    {true, {0x0F, 0x01, 0x15, 0x00, 0x10, 0x00, 0x00}, 7, "LGDT"},       // lgdt [1000h]
    {false, {0xA1, 0x34, 0x12}, 3, "MOV"},                               // mov ax, [1234h]
    {true, {0x67, 0xA1, 0x34, 0x12}, 4, "MOV"},                          // mov eax, [1234h] (16-bit moffs)
    {true, {0xD4, 0x0A}, 2, "AAM"},
    {true, {0x0F, 0x31}, 2, "RDTSC"},
    {true, {0x8C, 0xD8}, 2, "MOV"},                                      // mov eax, ds
    {true, {0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65, 0x90}, 7, "NOP"},        // six overrides
};

TEST(Decoder, EachCaseHasTheExpectedLengthAndMnemonic) {
  decode_testing::expect_lengths_and_mnemonics(kCases);
}

TEST(Decoder, LastSegmentOverrideWins) {
  const u8 bytes[] = {0x26, 0x64, 0x8B, 0x00};  // es fs mov eax, [eax]
  Instruction insn;
  ASSERT_TRUE(decode_bytes(bytes, sizeof bytes, true, insn));
  EXPECT_EQ(insn.segment, FS);
}

TEST(Decoder, EbpBasedAddressDefaultsToSs) {
  const u8 bytes[] = {0x8B, 0x45, 0x08};  // mov eax, [ebp+8]
  Instruction insn;
  ASSERT_TRUE(decode_bytes(bytes, sizeof bytes, true, insn));
  EXPECT_EQ(insn.segment, SS);
  EXPECT_EQ(insn.displacement, 8u);
}

TEST(Decoder, SixteenByteInstructionRaisesGp0) {
  std::vector<u8> bytes(15, 0x66);
  bytes.push_back(0x90);
  Instruction insn;
  try {
    decode_bytes(bytes.data(), static_cast<unsigned>(bytes.size()), true, insn);
    FAIL() << "no fault";
  } catch (const Fault& fault) {
    EXPECT_EQ(fault.vector, 13);
    EXPECT_EQ(fault.error_code, 0u);
  }
}

TEST(Decoder, FifteenByteInstructionIsAllowed) {
  std::vector<u8> bytes(14, 0x66);
  bytes.push_back(0x90);
  Instruction insn;
  EXPECT_TRUE(decode_bytes(bytes.data(), static_cast<unsigned>(bytes.size()), true, insn));
  EXPECT_EQ(insn.length, 15);
}

TEST(Decoder, LockOnARegisterDestinationRaisesUd) {
  const u8 bytes[] = {0xF0, 0x01, 0xC0};  // lock add eax, eax
  Instruction insn;
  EXPECT_THROW(decode_bytes(bytes, sizeof bytes, true, insn), Fault);
}

TEST(Decoder, LockOnANonLockableFormRaisesUd) {
  const u8 bytes[] = {0xF0, 0x8B, 0x00};  // lock mov eax, [eax]
  Instruction insn;
  EXPECT_THROW(decode_bytes(bytes, sizeof bytes, true, insn), Fault);
}

TEST(Decoder, LockOnAMemoryAddIsAccepted) {
  const u8 bytes[] = {0xF0, 0x01, 0x00};  // lock add [eax], eax
  Instruction insn;
  ASSERT_TRUE(decode_bytes(bytes, sizeof bytes, true, insn));
  EXPECT_TRUE(insn.lock);
}

TEST(Decoder, UndefinedOpcodeRaisesUd) {
  const u8 bytes[] = {0x0F, 0xFF};
  Instruction insn;
  try {
    decode_bytes(bytes, sizeof bytes, true, insn);
    FAIL() << "no fault";
  } catch (const Fault& fault) {
    EXPECT_EQ(fault.vector, 6);
  }
}

TEST(Decoder, MovToControlRegisterIgnoresMod) {
  const u8 bytes[] = {0x0F, 0x22, 0x18};  // mod=0: still mov cr3, eax, no displacement
  Instruction insn;
  ASSERT_TRUE(decode_bytes(bytes, sizeof bytes, true, insn));
  EXPECT_EQ(insn.length, 3);
  EXPECT_EQ(insn.reg, 3);
}

TEST(InstructionTable, EveryRowHasExecutorsForBothSizes) {
  for (const InstructionForm* form : InstructionTable::get().rows()) {
    EXPECT_NE(form->execute16, nullptr) << form->mnemonic;
    EXPECT_NE(form->execute32, nullptr) << form->mnemonic;
  }
}

// A cost for a mnemonic the table lacks would charge nothing: the built-in profiles
// (parsed without the table's check, trace/cost_model.h) name only table mnemonics.
TEST(InstructionTable, EveryBuiltinProfileCostsATableMnemonic) {
  std::set<std::string_view> mnemonics;
  for (const InstructionForm* row : InstructionTable::get().rows()) mnemonics.insert(row->mnemonic);
  for (const std::string& name : builtin_cost_model_names())
    for (const auto& [mnemonic, cost] : builtin_cost_model(name).instruction)
      EXPECT_TRUE(mnemonics.contains(mnemonic)) << name << ": instruction." << mnemonic;
}

}  // namespace
}  // namespace x86lab
