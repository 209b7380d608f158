// cpu/alu.h: the host-flag paths (LAHF/SETO after the host's own ADD/ADC/SUB/SBB/TEST)
// give the same result and six status flags as the portable definitions, flag by
// flag, for every pair of byte operands and for word and dword edge and random pairs.
// Fixed values from the SDM's definitions anchor both.
#include "cpu/alu.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace x86lab {
namespace {

template <class T>
void expect_same(T a, T b, bool carry) {
  const auto add = alu::add<T>(a, b, carry), add_reference = alu::portable::add<T>(a, b, carry);
  ASSERT_EQ(add.value, add_reference.value) << +a << " + " << +b << " + " << carry;
  ASSERT_EQ(add.flags, add_reference.flags) << +a << " + " << +b << " + " << carry;
  const auto sub = alu::sub<T>(a, b, carry), sub_reference = alu::portable::sub<T>(a, b, carry);
  ASSERT_EQ(sub.value, sub_reference.value) << +a << " - " << +b << " - " << carry;
  ASSERT_EQ(sub.flags, sub_reference.flags) << +a << " - " << +b << " - " << carry;
  ASSERT_EQ(alu::zsp<T>(a), alu::portable::zsp<T>(a)) << +a;
}

template <class T>
std::vector<T> edges() {
  const T sign = alu::kSign<T>;
  return {0, 1, 2, 0x0F, 0x10, 0x7F, 0x80, 0xFF, static_cast<T>(sign - 1), sign, static_cast<T>(sign + 1),
          static_cast<T>(~T{0}), static_cast<T>(~T{0} - 1)};
}

template <class T>
void compare_edges_and_random(unsigned random_pairs) {
  for (T a : edges<T>())
    for (T b : edges<T>())
      for (bool carry : {false, true}) expect_same<T>(a, b, carry);
  std::mt19937 generator(12345);
  for (unsigned n = 0; n < random_pairs; ++n)
    expect_same<T>(static_cast<T>(generator()), static_cast<T>(generator()), n & 1);
}

TEST(Alu, HostFlagsMatchThePortableDefinitionsForEveryBytePair) {
  for (unsigned a = 0; a < 256; ++a)
    for (unsigned b = 0; b < 256; ++b)
      for (bool carry : {false, true}) expect_same<u8>(static_cast<u8>(a), static_cast<u8>(b), carry);
}

TEST(Alu, HostFlagsMatchThePortableDefinitionsForWordsAndDwords) {
  compare_edges_and_random<u16>(200000);
  compare_edges_and_random<u32>(200000);
}

// SDM "ADD", "SUB", "ADC", "SBB": values worked by hand.
TEST(Alu, FlagsOfKnownCases) {
  using namespace flag;
  // 7Fh + 1 = 80h: signed overflow, AF from bit 3, SF; parity of 80h is odd.
  EXPECT_EQ(alu::add<u8>(0x7F, 1).flags, OF | AF | SF);
  // FFFFFFFFh + 1 = 0: CF, ZF, AF, PF (0 has even parity).
  EXPECT_EQ(alu::add<u32>(0xFFFFFFFFu, 1).flags, CF | ZF | AF | PF);
  // 0 - 1 = FFFFh with a borrow: CF, AF, SF, PF (FFh has even parity).
  const auto borrow = alu::sub<u16>(0, 1);
  EXPECT_EQ(borrow.value, 0xFFFF);
  EXPECT_EQ(borrow.flags, CF | AF | SF | PF);
  // ADC 0 + FFh + CF = 0 with carry out; SBB 80h - 0 - CF = 7Fh: OF, AF.
  EXPECT_EQ(alu::add<u8>(0, 0xFF, true).flags, CF | ZF | AF | PF);
  EXPECT_EQ(alu::sub<u8>(0x80, 0, true).flags, OF | AF);
  EXPECT_EQ(alu::zsp<u32>(0x100), PF);  // parity looks at the low byte only
}

// The constant-evaluated path is the portable one.
static_assert(alu::add<u8>(0xFF, 1).flags == (flag::CF | flag::ZF | flag::AF | flag::PF));
static_assert(alu::sub<u32>(5, 7).value == 0xFFFFFFFEu);

}  // namespace
}  // namespace x86lab
