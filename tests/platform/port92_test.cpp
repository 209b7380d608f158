// Port 92h (Intel 82371 PIIX data sheets, "Port 92 Register"): bit 1 is the A20 gate
// input, a 0-to-1 transition of bit 0 resets the CPU.
#include "platform/devices/port92.h"

#include <gtest/gtest.h>

namespace x86lab {
namespace {

struct Port92Fixture {
  Counters counters;
  PhysicalBus bus{2 << 20, counters};
  int resets = 0;
  Port92 port{bus, [this] { ++resets; }};
  Port92Fixture() { bus.set_a20(A20Source::KeyboardController, false); }
};

TEST(Port92, Bit1OpensAndClosesTheA20Gate) {
  Port92Fixture f;
  EXPECT_FALSE(f.bus.a20());
  f.port.write(0x92, 1, 0x02);
  EXPECT_TRUE(f.bus.a20());
  EXPECT_EQ(f.port.read(0x92, 1), 0x02u);
  f.port.write(0x92, 1, 0x00);
  EXPECT_FALSE(f.bus.a20());
  EXPECT_EQ(f.port.read(0x92, 1), 0x00u);
}

TEST(Port92, FastResetFiresOnARisingBit0Only) {
  Port92Fixture f;
  f.port.write(0x92, 1, 0x01);
  f.port.write(0x92, 1, 0x03);
  EXPECT_EQ(f.resets, 1);
  f.port.write(0x92, 1, 0x02);
  f.port.write(0x92, 1, 0x03);
  EXPECT_EQ(f.resets, 2);
  EXPECT_TRUE(f.bus.a20());
}

}  // namespace
}  // namespace x86lab
