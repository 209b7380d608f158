// The PC/AT FERR# latch: IRQ 13 on FERR#, port F0h clears it and asserts IGNNE#.
#include "platform/devices/fpu_error.h"

#include <gtest/gtest.h>

#include <vector>

namespace x86lab {
namespace {

TEST(FpuErrorLatch, FerrRaisesIrq13AndPortF0ClearsItAndAssertsIgnne) {
  std::vector<bool> irq13;
  FpuErrorLatch latch([&](bool level) { irq13.push_back(level); });
  EXPECT_FALSE(latch.ignne());
  latch.ferr(true);
  ASSERT_EQ(irq13, std::vector<bool>{true});
  latch.write(0xF0, 1, 0);
  EXPECT_EQ(irq13.back(), false);
  EXPECT_TRUE(latch.ignne()) << "IGNNE# is asserted while FERR# stays";
  latch.ferr(false);
  EXPECT_FALSE(latch.ignne()) << "IGNNE# goes away with FERR#";
}

TEST(FpuErrorLatch, PortF0WithoutFerrLeavesIgnneClear) {
  FpuErrorLatch latch([](bool) {});
  latch.write(0xF0, 1, 0);
  EXPECT_FALSE(latch.ignne());
}

}  // namespace
}  // namespace x86lab
