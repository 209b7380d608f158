// The APIC window's view model (ui/gui/apic_model.h): LVT, ICR and redirection entry
// fields as the Intel SDM Vol. 3 ("Local Vector Table", "Interrupt Command Register")
// and the 82093AA data sheet ("IOREDTBL") lay them out, the timer's divisor, and a
// capture of a real machine's APICs that changes nothing (no ESR latch, no timer change).
#include <gtest/gtest.h>

#include "platform/machine.h"
#include "ui/gui/apic_model.h"

namespace x86lab::gui {
namespace {

TEST(GuiApicModel, LvtEntriesDecodeTheirOwnFields) {
  const LvtRow timer = decode_lvt(LvtIndex::Timer, 0x00020040);
  EXPECT_EQ(timer.vector, 0x40);
  EXPECT_FALSE(timer.masked);
  ASSERT_TRUE(timer.periodic);
  EXPECT_TRUE(*timer.periodic);
  EXPECT_FALSE(timer.level);  // the timer has no trigger mode, polarity or remote IRR
  EXPECT_FALSE(timer.remote_irr);
  EXPECT_EQ(timer.delivery_mode, "Fixed");

  // LINT0 masked, level (bit 15), active low (bit 13), ExtINT (111b in 10:8).
  const LvtRow lint0 = decode_lvt(LvtIndex::Lint0, 0x0001A700);
  EXPECT_TRUE(lint0.masked);
  EXPECT_EQ(lint0.delivery_mode, "ExtINT");
  EXPECT_TRUE(*lint0.level);
  EXPECT_TRUE(*lint0.active_low);
  EXPECT_FALSE(*lint0.remote_irr);
  EXPECT_FALSE(lint0.periodic);

  // LINT1 NMI (100b) with remote IRR (bit 14) and delivery status (bit 12).
  const LvtRow lint1 = decode_lvt(LvtIndex::Lint1, 0x00005400);
  EXPECT_FALSE(lint1.masked);
  EXPECT_EQ(lint1.delivery_mode, "NMI");
  EXPECT_TRUE(*lint1.remote_irr);
  EXPECT_TRUE(lint1.pending);
  EXPECT_FALSE(*lint1.level);

  // The error entry has no delivery mode field: bits 10:8 set still read as Fixed.
  EXPECT_EQ(decode_lvt(LvtIndex::Error, 0x000107EE).delivery_mode, "Fixed");
  EXPECT_EQ(decode_lvt(LvtIndex::PerformanceCounter, 0x00000400).delivery_mode, "NMI");
}

TEST(GuiApicModel, IcrDecodesShorthandModeAndDestination) {
  const IcrFields self = decode_icr(0x00044061, 0);
  EXPECT_EQ(self.vector, 0x61);
  EXPECT_EQ(self.delivery_mode, "Fixed");
  EXPECT_EQ(self.shorthand, "self");
  EXPECT_TRUE(self.assert);
  EXPECT_FALSE(self.level);
  EXPECT_FALSE(self.logical);

  // INIT level de-assert, logical, all excluding self, to 03h.
  const IcrFields init = decode_icr(0x000C8D00, 0x03000000);
  EXPECT_EQ(init.delivery_mode, "INIT");
  EXPECT_EQ(init.shorthand, "all excl. self");
  EXPECT_TRUE(init.level);
  EXPECT_FALSE(init.assert);
  EXPECT_TRUE(init.logical);
  EXPECT_EQ(init.destination, 0x03);
  EXPECT_EQ(decode_icr(0x00000600, 0).delivery_mode, "StartUp");
}

TEST(GuiApicModel, RedirectionEntriesDecodeTheDataSheetBits) {
  const RedirectionRow level = decode_redirection(2, 0x000000000001C031, true);
  EXPECT_EQ(level.pin, 2u);
  EXPECT_EQ(level.vector, 0x31);
  EXPECT_TRUE(level.level);
  EXPECT_TRUE(level.remote_irr);
  EXPECT_TRUE(level.masked);
  EXPECT_FALSE(level.active_low);
  EXPECT_TRUE(level.input_high);

  // Destination 03h, logical (bit 11), active low (bit 13), lowest priority (001b).
  const RedirectionRow low = decode_redirection(9, 0x0300000000002931, false);
  EXPECT_EQ(low.destination, 0x03);
  EXPECT_TRUE(low.logical);
  EXPECT_TRUE(low.active_low);
  EXPECT_EQ(low.delivery_mode, "LowPri");
  EXPECT_FALSE(low.masked);
  EXPECT_FALSE(low.level);
}

TEST(GuiApicModel, TimerDivisorFollowsTheDivideConfigurationRegister) {
  EXPECT_EQ(timer_divisor(0x0), 2u);
  EXPECT_EQ(timer_divisor(0x3), 16u);
  EXPECT_EQ(timer_divisor(0x8), 32u);
  EXPECT_EQ(timer_divisor(0xA), 128u);
  EXPECT_EQ(timer_divisor(0xB), 1u);
  EXPECT_EQ(timer_mode_name(0x00020040), "periodic");
  EXPECT_EQ(timer_mode_name(0x00000040), "one-shot");
  const ApicBaseFields base = decode_apic_base(0xFEE00900);
  EXPECT_EQ(base.base, 0xFEE00000u);
  EXPECT_TRUE(base.enabled);
  EXPECT_TRUE(base.bsp);
}

struct GuiApicCapture : ::testing::Test {
  static MachineConfig config() {
    MachineConfig c;
    c.memory_mib = 4;
    return c;
  }
  Machine machine{config()};
  u32 reg(u32 offset) { return machine.bus.read<u32>(lapic::kDefaultBase + offset, AccessKind::Data); }
  void set(u32 offset, u32 value) { machine.bus.write<u32>(lapic::kDefaultBase + offset, value, AccessKind::Data); }
  void advance(u64 cycles) {
    machine.clock.advance_to(machine.clock.now() + cycles);
    machine.clock.run_due();
  }
};

TEST_F(GuiApicCapture, BitmapsAreTheApicsIrrIsrAndTmr) {
  set(lapic::kSvr, 0x1FF);
  machine.devices->apic_bus.send(ApicMessage{.vector = 0x31, .destination = 0, .level_triggered = true});
  machine.devices->apic_bus.send(ApicMessage{.vector = 0x45, .destination = 0});
  ASSERT_EQ(machine.local_apic->acknowledge(), 0x45);  // 45h into service, 31h waits
  const ApicSnapshot s = capture_apic(machine);
  ASSERT_TRUE(s.local.present);
  EXPECT_EQ(vector_list(s.local.irr), "31h");
  EXPECT_EQ(vector_list(s.local.isr), "45h");
  EXPECT_EQ(vector_list(s.local.tmr), "31h");
  EXPECT_EQ(set_vectors(s.local.irr), std::vector<u8>{0x31});
  EXPECT_EQ(s.local.ppr, 0x40u);
  EXPECT_EQ(s.local.svr, 0x1FFu);
  EXPECT_EQ(s.local.apic_base, 0xFEE00900u);
  EXPECT_EQ(vector_list(ApicBits{}), "none");
  EXPECT_EQ(s.io.version, 0x00170011u);
  EXPECT_EQ(s.io.entries[5], 0x10000u);  // masked after reset
}

TEST_F(GuiApicCapture, CapturingLatchesNoErrorAndLeavesTheTimerAlone) {
  set(lapic::kSvr, 0x1FF);
  reg(0x040);                             // a reserved offset: ESR bit 7 pending until the next ESR write
  set(lapic::kDivideConfiguration, 0xB);  // divide by 1: 5 cycles a count (500 MHz, 100 MHz bus)
  set(lapic::kLvtTimer, 0x40);            // one-shot, vector 40h
  set(lapic::kInitialCount, 1000);
  advance(100 * 5);
  const ApicSnapshot first = capture_apic(machine);
  const ApicSnapshot second = capture_apic(machine);
  EXPECT_EQ(first.local.esr, 0u);  // not latched: only a write latches
  EXPECT_EQ(first.local.current_count, 900u);
  ASSERT_TRUE(first.local.cycles_to_expiry);
  EXPECT_EQ(*first.local.cycles_to_expiry, 900u * 5);
  EXPECT_EQ(second.local.current_count, 900u);
  EXPECT_EQ(second.local.cycles_to_expiry, first.local.cycles_to_expiry);
  set(lapic::kEsr, 0);
  EXPECT_EQ(reg(lapic::kEsr), 0x80u);  // the error seen before the captures is still there to latch

  advance(900 * 5);  // expires: IRR 40h, a one-shot has no expiry ahead
  const ApicSnapshot after = capture_apic(machine);
  EXPECT_EQ(vector_list(after.local.irr), "40h");
  EXPECT_EQ(after.local.current_count, 0u);
  EXPECT_FALSE(after.local.cycles_to_expiry);
}

}  // namespace
}  // namespace x86lab::gui
