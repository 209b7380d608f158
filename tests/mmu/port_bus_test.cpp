// The I/O port bus: device dispatch and open-bus reads.
#include "mmu/port_bus.h"

#include <gtest/gtest.h>

namespace x86lab {
namespace {

struct Latch : BusDevice {
  u32 value = 0;
  u16 last_port = 0;
  unsigned last_size = 0;
  u32 read(u32 port, unsigned size) override {
    last_port = port;
    last_size = size;
    return value;
  }
  void write(u32 port, unsigned size, u32 v) override {
    last_port = port;
    last_size = size;
    value = v;
  }
  std::string_view device_name() const override { return "latch"; }
};

TEST(PortBus, UnclaimedPortsReadAllOnesBySize) {
  Counters counters;
  PortBus ports(counters);
  EXPECT_EQ(ports.read(0x1234, 1), 0xFFu);
  EXPECT_EQ(ports.read(0x1234, 2), 0xFFFFu);
  EXPECT_EQ(ports.read(0x1234, 4), 0xFFFFFFFFu);
  ports.write(0x1234, 1, 0);  // dropped
  EXPECT_EQ(counters.io_reads, 3u);
  EXPECT_EQ(counters.io_writes, 1u);
  EXPECT_EQ(counters.io_by_port[0x1234], 4u);
  EXPECT_EQ(counters.io_by_port[0x1235], 0u);
}

TEST(PortBus, AttachedDeviceSeesPortAndSize) {
  Counters counters;
  PortBus ports(counters);
  Latch latch;
  ports.attach(0x3F8, 0x3FF, &latch);
  ports.write(0x3FB, 2, 0xBEEF);
  EXPECT_EQ(latch.last_port, 0x3FB);
  EXPECT_EQ(latch.last_size, 2u);
  EXPECT_EQ(ports.read(0x3FF, 4), 0xBEEFu);
  EXPECT_EQ(ports.device_at(0x3F8), &latch);
  EXPECT_EQ(ports.device_at(0x400), nullptr);
}

}  // namespace
}  // namespace x86lab
