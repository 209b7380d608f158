// The code-footprint line set (cpu/code_lines.h) against std::set as the reference:
// the counts of new 32-byte lines and new 64-byte lines must agree for any order of
// lines, including both halves of a 64-byte line and lines at the top of the space.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "cpu/code_lines.h"

namespace x86lab {
namespace {

TEST(CodeLineSet, CountsNewLinesLikeTwoSets) {
  CodeLineSet lines;
  std::set<u32> seen32, seen64;
  std::mt19937 random(12);
  u64 new32 = 0, new64 = 0, expected32 = 0, expected64 = 0;
  for (int i = 0; i < 20000; ++i) {
    // Clustered lines (neighbours and partners) plus a few anywhere, top included.
    const u32 line = i % 7 == 0 ? static_cast<u32>(random()) >> 5 : (0x7FFFFFFu - 64u + random() % 128u) & 0x7FFFFFFu;
    const unsigned fresh = lines.insert(line);
    new32 += fresh != 0;
    new64 += fresh == 2;
    expected32 += seen32.insert(line).second;
    expected64 += seen64.insert(line >> 1).second;
  }
  EXPECT_EQ(new32, expected32);
  EXPECT_EQ(new64, expected64);
  EXPECT_GT(expected64, 10u);
  EXPECT_LT(expected64, expected32) << "the sample has lines sharing a 64-byte line";
}

TEST(CodeLineSet, PartnersOfA64ByteLine) {
  CodeLineSet lines;
  EXPECT_EQ(lines.insert(10), 2u);  // 32-byte line 10, 64-byte line 5: both new
  EXPECT_EQ(lines.insert(11), 1u);  // its partner: 64-byte line 5 was seen
  EXPECT_EQ(lines.insert(11), 0u);
  EXPECT_EQ(lines.insert(12), 2u);
  EXPECT_EQ(lines.insert(0x7FFFFFF), 2u) << "the last line of the 4 GiB space";
}

}  // namespace
}  // namespace x86lab
