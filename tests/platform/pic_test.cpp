// 8259A pair at the register level against the Intel 8259A data sheet: the ICW
// sequence, IRR/ISR/IMR reads through OCW3/OCW1, priorities, EOI forms, rotation,
// AEOI, poll, cascade, edge/level triggering with the PIIX ELCR, spurious IR7.
#include <gtest/gtest.h>

#include <vector>

#include "platform/devices/pic.h"

namespace x86lab {
namespace {

struct PicFixture : ::testing::Test {
  PicPair pic;
  void out(u16 port, u8 value) { pic.write(port, 1, value); }
  u8 in(u16 port) { return static_cast<u8>(pic.read(port, 1)); }
  // The PC/AT initialisation: edge mode, cascade, 8086 mode; master base 08h, slave 70h.
  void initialise(u8 master_icw4 = 0x01) {
    out(0x20, 0x11); out(0x21, 0x08); out(0x21, 0x04); out(0x21, master_icw4);
    out(0xA0, 0x11); out(0xA1, 0x70); out(0xA1, 0x02); out(0xA1, 0x01);
  }
  // Raises IRQ `irq` and acknowledges it: the vector the CPU reads in the INTA cycle.
  u8 request(unsigned irq) {
    pic.set_irq(irq, true);
    return pic.acknowledge();
  }
  u8 irr() { out(0x20, 0x0A); return in(0x20); }
  u8 isr() { out(0x20, 0x0B); return in(0x20); }
};

TEST_F(PicFixture, Icw1ClearsTheMaskAndIcwSequenceEndsWithImrWritable) {
  out(0x21, 0x5A);
  initialise();
  EXPECT_EQ(in(0x21), 0x00);  // ICW1 clears the IMR
  out(0x21, 0xFB);            // OCW1
  EXPECT_EQ(in(0x21), 0xFB);
  EXPECT_EQ(in(0x20), 0x00);  // after ICW1 a read of A0=0 gives IRR
}

TEST_F(PicFixture, RequestShowsInIrrThenMovesToIsrOnAcknowledge) {
  initialise();
  pic.set_irq(0, true);
  EXPECT_EQ(irr(), 0x01);
  EXPECT_TRUE(pic.interrupt_pending());
  EXPECT_EQ(pic.acknowledge(), 0x08);
  EXPECT_EQ(irr(), 0x00);
  EXPECT_EQ(isr(), 0x01);
  out(0x20, 0x20);  // non-specific EOI
  EXPECT_EQ(isr(), 0x00);
}

TEST_F(PicFixture, LowerIrNumberHasPriority) {
  initialise();
  pic.set_irq(3, true);
  pic.set_irq(1, true);
  EXPECT_EQ(pic.acknowledge(), 0x09);
}

TEST_F(PicFixture, InServiceLevelBlocksLowerButNotHigherPriority) {
  initialise();
  EXPECT_EQ(request(3), 0x0B);
  pic.set_irq(5, true);
  EXPECT_FALSE(pic.interrupt_pending());
  pic.set_irq(1, true);
  EXPECT_TRUE(pic.interrupt_pending());
  EXPECT_EQ(pic.acknowledge(), 0x09);
}

TEST_F(PicFixture, SpecificEoiClearsTheNamedLevel) {
  initialise();
  request(3);
  request(1);
  EXPECT_EQ(isr(), 0x0A);
  out(0x20, 0x63);  // specific EOI, level 3
  EXPECT_EQ(isr(), 0x02);
}

TEST_F(PicFixture, MaskedRequestStaysInIrrButIsNotSignalled) {
  initialise();
  out(0x21, 0x01);
  pic.set_irq(0, true);
  EXPECT_EQ(irr(), 0x01);
  EXPECT_FALSE(pic.interrupt_pending());
  out(0x21, 0x00);
  EXPECT_TRUE(pic.interrupt_pending());
}

TEST_F(PicFixture, RequestRemovedBeforeAcknowledgeGivesSpuriousIr7) {
  initialise();
  pic.set_irq(4, true);
  pic.set_irq(4, false);
  EXPECT_EQ(pic.acknowledge(), 0x0F);  // base + 7
  EXPECT_EQ(isr(), 0x00);              // a spurious IR7 does not set ISR
}

TEST_F(PicFixture, SlaveAnswersSpuriousIr7WhenItsRequestVanished) {
  Pic8259 slave(false);
  slave.write(0, 0x11); slave.write(1, 0x70); slave.write(1, 0x02); slave.write(1, 0x01);
  slave.set_input(2, true);
  slave.set_input(2, false);
  bool spurious = false;
  EXPECT_EQ(slave.acknowledge(spurious), 7u);
  EXPECT_TRUE(spurious);
  EXPECT_EQ(slave.isr(), 0x00);
}

TEST_F(PicFixture, SlaveIrqIsDeliveredThroughMasterIr2) {
  initialise();
  pic.set_irq(9, true);
  EXPECT_TRUE(pic.interrupt_pending());
  EXPECT_EQ(pic.acknowledge(), 0x71);
  EXPECT_EQ(isr(), 0x04);            // master: cascade input in service
  out(0xA0, 0x0B);
  EXPECT_EQ(in(0xA0), 0x02);         // slave: IR1 in service
}

TEST_F(PicFixture, EdgeTriggeredLineHeldHighDoesNotInterruptAgainAfterEoi) {
  initialise();
  request(1);
  out(0x20, 0x20);
  EXPECT_FALSE(pic.interrupt_pending());
  pic.set_irq(1, false);
  pic.set_irq(1, true);
  EXPECT_TRUE(pic.interrupt_pending());
}

TEST_F(PicFixture, ElcrLevelTriggeredLineInterruptsAgainWhileHigh) {
  initialise();
  out(0x4D1, 0x04);  // IRQ 10 level-triggered
  EXPECT_EQ(request(10), 0x72);
  out(0xA0, 0x20);
  out(0x20, 0x20);
  EXPECT_TRUE(pic.interrupt_pending());
  pic.set_irq(10, false);
  EXPECT_FALSE(pic.interrupt_pending());
}

TEST_F(PicFixture, ElcrBitsOfIrq012813StayEdge) {
  out(0x4D0, 0xFF);
  out(0x4D1, 0xFF);
  EXPECT_EQ(in(0x4D0), 0xF8);
  EXPECT_EQ(in(0x4D1), 0xDE);
}

TEST_F(PicFixture, AutomaticEoiLeavesIsrClear) {
  initialise(0x03);  // ICW4: AEOI, 8086 mode
  EXPECT_EQ(request(0), 0x08);
  EXPECT_EQ(isr(), 0x00);
}

TEST_F(PicFixture, RotateOnNonSpecificEoiMakesServicedLevelLowest) {
  initialise();
  request(0);
  out(0x20, 0xA0);  // rotate on non-specific EOI
  pic.set_irq(0, false);
  pic.set_irq(0, true);
  pic.set_irq(1, true);
  EXPECT_EQ(pic.acknowledge(), 0x09);  // IR1 now outranks IR0
}

TEST_F(PicFixture, SetPriorityCommandChoosesTheLowestLevel) {
  initialise();
  out(0x20, 0xC4);  // set priority: IR4 lowest, IR5 highest
  pic.set_irq(3, true);
  pic.set_irq(6, true);
  EXPECT_EQ(pic.acknowledge(), 0x0E);
}

TEST_F(PicFixture, PollCommandReturnsLevelAndActsAsAcknowledge) {
  initialise();
  pic.set_irq(5, true);
  out(0x20, 0x0C);  // OCW3 poll
  EXPECT_EQ(in(0x20), 0x85);
  EXPECT_EQ(isr(), 0x20);
  out(0x20, 0x0C);
  EXPECT_EQ(in(0x20), 0x00);  // nothing requesting
}

// 8259A data sheet, "Poll Command": the read is an interrupt acknowledge, so the
// master's INT output falls with it, and the pair's INT listener (the I/O APIC's pin
// 0, ExtINT) must hear that (found by tests/fuzz/device_fuzzer: the pin stayed high).
TEST_F(PicFixture, MasterPollReadDropsTheIntOutputForItsListener) {
  std::vector<bool> levels;
  pic.set_int_output_listener([&](bool level) { levels.push_back(level); });
  initialise();
  pic.set_irq(5, true);
  ASSERT_TRUE(pic.interrupt_pending());
  ASSERT_FALSE(levels.empty());
  EXPECT_TRUE(levels.back());
  out(0x20, 0x0C);  // OCW3 poll
  EXPECT_EQ(in(0x21), 0x85);  // either address reads the poll word
  EXPECT_FALSE(pic.interrupt_pending());
  EXPECT_FALSE(levels.back());
}

TEST_F(PicFixture, SpecialMaskModeLetsLowerLevelsThrough) {
  initialise();
  request(3);
  out(0x21, 0x08);  // mask the level in service
  out(0x20, 0x68);  // OCW3: set special mask mode
  pic.set_irq(5, true);
  EXPECT_TRUE(pic.interrupt_pending());
  EXPECT_EQ(pic.acknowledge(), 0x0D);
}

}  // namespace
}  // namespace x86lab
