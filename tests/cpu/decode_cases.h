// Decoder cases, one line each (mode, bytes, expected length and mnemonic), and the
// check each decoder table test runs over its cases: the bytes decode to that length
// and to a table row with that mnemonic.
#pragma once
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "cpu/decoder.h"

namespace x86lab::decode_testing {

struct Case {
  bool mode32;
  std::vector<u8> bytes;
  unsigned length;  // bytes
  const char* mnemonic;
};

inline void expect_lengths_and_mnemonics(std::span<const Case> cases) {
  for (const Case& c : cases) {
    Instruction insn;
    ASSERT_TRUE(decode_bytes(c.bytes.data(), static_cast<unsigned>(c.bytes.size()), c.mode32, insn)) << c.mnemonic;
    EXPECT_EQ(insn.length, c.length) << c.mnemonic;
    EXPECT_EQ(insn.form->mnemonic, c.mnemonic);
  }
}

}  // namespace x86lab::decode_testing
