// The 8237A pair against the Intel 8237A-5 data sheet: address and count written and
// read back through the byte pointer flip-flop, the status register's TC and request
// bits (TC cleared by reading), the mask set at terminal count, auto-initialize,
// decrement, master clear, the cascade channel 4, word transfers on channels 5-7 with
// the page register's A23-A17, and the scratch page registers.
#include <gtest/gtest.h>

#include <vector>

#include "platform/devices/dma8237.h"

namespace x86lab {
namespace {

struct Device : DmaClient {
  std::vector<u16> to_memory;  // units the device supplies, in order
  std::vector<u16> from_memory;
  std::size_t next = 0;
  unsigned terminal_counts = 0;
  Dma8237Pair* dma = nullptr;
  unsigned channel = 0;
  std::size_t stop_after = ~std::size_t{0};  // drop DREQ after this many units
  std::size_t units = 0;
  u16 dma_read_unit() override {
    if (++units >= stop_after) dma->set_dreq(channel, false);
    return next < to_memory.size() ? to_memory[next++] : 0;
  }
  void dma_write_unit(u16 value) override {
    if (++units >= stop_after) dma->set_dreq(channel, false);
    from_memory.push_back(value);
  }
  void dma_terminal_count() override {
    ++terminal_counts;
    dma->set_dreq(channel, false);
  }
};

struct DmaFixture : ::testing::Test {
  Counters counters;
  PhysicalBus bus{1u << 20, counters};
  Dma8237Pair dma{bus};
  Device device;

  void out(u16 port, u8 value) { dma.write(port, 1, value); }
  u8 in(u16 port) { return static_cast<u8>(dma.read(port, 1)); }
  // Programs DMA1 channel `ch` with mode, address, count and page, then unmasks it;
  // channel 4 is set to cascade as a BIOS does.
  void program(unsigned ch, u8 mode, u16 address, u16 count, u8 page) {
    out(0xD6, 0xC0);  // DMA2 mode: channel 4 cascade
    out(0xD4, 0x00);  // unmask channel 4
    out(0x0A, static_cast<u8>(0x04 | ch));
    out(0x0B, static_cast<u8>(mode | ch));
    out(0x0C, 0);
    out(static_cast<u16>(ch * 2), static_cast<u8>(address));
    out(static_cast<u16>(ch * 2), static_cast<u8>(address >> 8));
    out(static_cast<u16>(ch * 2 + 1), static_cast<u8>(count));
    out(static_cast<u16>(ch * 2 + 1), static_cast<u8>(count >> 8));
    static constexpr u16 kPage[4] = {0x87, 0x83, 0x81, 0x82};
    out(kPage[ch], page);
    out(0x0A, static_cast<u8>(ch));
  }
};

TEST_F(DmaFixture, AddressAndCountReadBackLowByteThenHighThroughTheFlipFlop) {
  out(0x0C, 0);
  out(0x04, 0x34);
  out(0x04, 0x12);
  out(0x05, 0xFF);
  out(0x05, 0x01);
  out(0x0C, 0);
  EXPECT_EQ(in(0x04), 0x34);
  EXPECT_EQ(in(0x04), 0x12);
  EXPECT_EQ(in(0x05), 0xFF);
  EXPECT_EQ(in(0x05), 0x01);
  // Without clearing, the flip-flop goes on alternating: the next read is a low byte.
  out(0x0C, 0);
  EXPECT_EQ(in(0x04), 0x34);
  out(0x0C, 0);  // clear again: low byte next
  EXPECT_EQ(in(0x04), 0x34);
}

TEST_F(DmaFixture, WriteTransferFillsMemoryAndSetsTcAndMask) {
  device.dma = &dma;
  device.channel = 2;
  device.to_memory = {0x11, 0x22, 0x33, 0x44};
  dma.attach(2, &device);
  program(2, 0x44, 0x1000, 3, 0x05);  // single mode, write (to memory), 4 bytes at 51000h
  dma.set_dreq(2, true);
  EXPECT_EQ(bus.peek(0x51000), 0x11);
  EXPECT_EQ(bus.peek(0x51003), 0x44);
  EXPECT_EQ(device.terminal_counts, 1u);
  EXPECT_TRUE(dma.masked(2));  // no auto-initialize: the mask bit is set at TC
  EXPECT_EQ(dma.current_count(2), 0xFFFF);
  EXPECT_EQ(dma.current_address(2), 0x1004);
  EXPECT_EQ(in(0x08) & 0x0F, 0x04);  // TC bit of channel 2
  EXPECT_EQ(in(0x08) & 0x0F, 0x00);  // cleared by the read
}

TEST_F(DmaFixture, AutoInitializeReloadsBaseRegistersAndKeepsTheChannelUnmasked) {
  device.dma = &dma;
  device.channel = 1;
  device.to_memory = {1, 2};
  dma.attach(1, &device);
  program(1, 0x54, 0x2000, 1, 0x00);  // single, auto-initialize, write
  dma.set_dreq(1, true);
  EXPECT_EQ(device.terminal_counts, 1u);
  EXPECT_FALSE(dma.masked(1));
  EXPECT_EQ(dma.current_address(1), 0x2000);
  EXPECT_EQ(dma.current_count(1), 1);
  EXPECT_EQ(in(0x08) & 0x02, 0x02);
}

TEST_F(DmaFixture, ReadTransferWithDecrementGoesDownFromTheAddress) {
  device.dma = &dma;
  device.channel = 3;
  dma.attach(3, &device);
  bus.poke(0x3010, 0xAA);
  bus.poke(0x300F, 0xBB);
  program(3, 0x68, 0x3010, 1, 0x00);  // single, decrement, read (from memory)
  dma.set_dreq(3, true);
  EXPECT_EQ(device.from_memory, (std::vector<u16>{0xAA, 0xBB}));
}

TEST_F(DmaFixture, DemandModeStopsWhenDreqDropsAndShowsTheRequestInStatus) {
  device.dma = &dma;
  device.channel = 0;
  device.stop_after = 2;
  dma.attach(0, &device);
  program(0, 0x04, 0x0000, 9, 0x01);  // demand, write
  dma.set_dreq(0, true);
  EXPECT_EQ(device.units, 2u);
  EXPECT_EQ(dma.current_count(0), 7);
  EXPECT_EQ(device.terminal_counts, 0u);
  // A masked channel keeps its request visible in status bits 7-4.
  out(0x0A, 0x04);
  dma.set_dreq(0, true);
  EXPECT_EQ(in(0x08) & 0x10, 0x10);
  EXPECT_EQ(device.units, 2u);
}

TEST_F(DmaFixture, ChannelsZeroToThreeWaitForTheCascadeChannelFour) {
  device.dma = &dma;
  device.channel = 2;
  device.to_memory = {7};
  dma.attach(2, &device);
  program(2, 0x44, 0x0000, 0, 0x02);
  out(0xD4, 0x04);  // mask channel 4: DMA1 cannot reach the bus
  dma.set_dreq(2, true);
  EXPECT_EQ(device.units, 0u);
  out(0xD4, 0x00);  // unmasking channel 4 serves the pending request
  EXPECT_EQ(device.units, 1u);
  EXPECT_EQ(bus.peek(0x20000), 7);
}

TEST_F(DmaFixture, MasterClearMasksEveryChannelAndClearsTheFlipFlop) {
  out(0x0E, 0);  // clear all masks
  EXPECT_FALSE(dma.masked(0));
  out(0x00, 0x12);  // flip-flop now at the high byte
  out(0x0D, 0);     // master clear
  for (unsigned ch = 0; ch < 4; ++ch) EXPECT_TRUE(dma.masked(ch));
  out(0x00, 0x56);  // low byte again
  out(0x00, 0x78);
  EXPECT_EQ(dma.current_address(0), 0x7856);
  out(0x0F, 0x05);  // write all mask bits: channels 0 and 2 masked
  EXPECT_TRUE(dma.masked(0));
  EXPECT_FALSE(dma.masked(1));
  EXPECT_TRUE(dma.masked(2));
}

TEST_F(DmaFixture, WordChannelsUseWordAddressesAndPageBitsSeventeenUp) {
  device.dma = &dma;
  device.channel = 5;
  device.to_memory = {0xBEEF, 0xCAFE};
  dma.attach(5, &device);
  out(0xD6, 0xC0);
  out(0xD4, 0x00);
  out(0xD6, 0x45);  // channel 5: single, write
  out(0xD8, 0);     // clear flip-flop
  out(0xC4, 0x00);  // word address 8000h = byte 10000h within the 128 KiB page
  out(0xC4, 0x80);
  out(0xC6, 0x01);  // two words
  out(0xC6, 0x00);
  out(0x8B, 0x03);  // page: bit 0 unused, so A23-A17 = 1 -> 20000h
  out(0xD4, 0x01);  // unmask channel 5
  dma.set_dreq(5, true);
  EXPECT_EQ(bus.peek(0x30000), 0xEF);
  EXPECT_EQ(bus.peek(0x30001), 0xBE);
  EXPECT_EQ(bus.peek(0x30002), 0xFE);
  EXPECT_EQ(device.terminal_counts, 1u);
  EXPECT_EQ(in(0xD0) & 0x02, 0x02);  // DMA2 status: TC of channel 5
}

TEST_F(DmaFixture, UnusedPageRegistersAreScratchRegisters) {
  out(0x84, 0x5A);
  out(0x8E, 0xA5);
  EXPECT_EQ(in(0x84), 0x5A);
  EXPECT_EQ(in(0x8E), 0xA5);
  out(0x81, 0x12);
  EXPECT_EQ(dma.page(2), 0x12);
}

}  // namespace
}  // namespace x86lab
