// MC146818 RTC and CMOS against the Motorola data sheet: BCD and binary time and
// calendar registers, 12-hour format, the update cycle and its carries, UIP timing,
// periodic, alarm and update-ended interrupts on IRQ 8 with register C, and the IBM
// PC/AT memory-size bytes of the CMOS RAM.
#include <gtest/gtest.h>

#include <initializer_list>
#include <utility>

#include "platform/devices/rtc.h"

namespace x86lab {
namespace {

constexpr u64 kHz = 1'000'000'000;  // one cycle per nanosecond

struct RtcFixture : ::testing::Test {
  ModeledClock cpu_clock;
  VirtualClock clock{cpu_clock, kHz};
  bool irq8 = false;
  unsigned irq8_edges = 0;
  std::unique_ptr<Mc146818> rtc;

  void start(i64 seconds = Mc146818::kDefaultStart) {
    rtc = std::make_unique<Mc146818>(clock, seconds, [this](bool level) {
      if (level && !irq8) ++irq8_edges;
      irq8 = level;
    });
  }
  u8 read(u8 index) {
    rtc->write(0x70, 1, index);
    return static_cast<u8>(rtc->read(0x71, 1));
  }
  // Expects each register (index, value) of `expected` to read back as its value.
  void expect_registers(std::initializer_list<std::pair<u8, u8>> expected) {
    for (const auto& [index, value] : expected) EXPECT_EQ(read(index), value) << "register " << unsigned{index};
  }
  void write(u8 index, u8 value) {
    rtc->write(0x70, 1, index);
    rtc->write(0x71, 1, value);
  }
  void run_to(u64 cycle) {
    while (clock.next_deadline() <= cycle) {
      clock.advance_to(clock.next_deadline());
      clock.run_due();
    }
    clock.advance_to(cycle);
  }
};

TEST_F(RtcFixture, DefaultStartIsMonday2024January1InBcd) {
  start();
  // Seconds, minutes, hours, day of week (Sunday = 1, Monday = 2), date, month, year.
  expect_registers({{0x00, 0x00}, {0x02, 0x00}, {0x04, 0x00}, {0x06, 0x02}, {0x07, 0x01}, {0x08, 0x01}, {0x09, 0x24}});
  EXPECT_EQ(read(0x32), 0x20);  // PC/AT century byte
  EXPECT_EQ(read(0x0B), 0x02);  // 24-hour, BCD
  EXPECT_EQ(read(0x0D), 0x80);  // VRT
}

TEST_F(RtcFixture, BcdFieldsOfAnArbitraryTime) {
  start(1'709'210'096);  // 2024-02-29 12:34:56 UTC, a Thursday
  expect_registers({{0x00, 0x56}, {0x02, 0x34}, {0x04, 0x12}, {0x06, 0x05}, {0x07, 0x29}, {0x08, 0x02}});
}

TEST_F(RtcFixture, TimeAdvancesOneSecondPerUpdateCycle) {
  start();
  run_to(3 * kHz + 1);
  EXPECT_EQ(read(0x00), 0x03);
}

TEST_F(RtcFixture, BinaryModeCarriesThroughTheEndOfTheCentury) {
  start();
  write(0x0B, 0x86);  // SET, binary, 24-hour
  write(0x00, 59); write(0x02, 59); write(0x04, 23);
  write(0x07, 31); write(0x08, 12); write(0x09, 99);
  write(0x0B, 0x06);
  run_to(1 * kHz + 1);
  expect_registers({{0x00, 0}, {0x02, 0}, {0x04, 0}, {0x07, 1}, {0x08, 1}, {0x09, 0}});  // 2000-01-01 00:00:00
}

TEST_F(RtcFixture, SetBitStopsTheClock) {
  start();
  write(0x0B, 0x82);
  run_to(5 * kHz);
  EXPECT_EQ(read(0x00), 0x00);
}

TEST_F(RtcFixture, TwelveHourModeMarksPmInBit7) {
  start(Mc146818::kDefaultStart + 13 * 3600);
  write(0x0B, 0x80);  // SET, 12-hour BCD
  write(0x04, 0x81);  // 1 PM
  write(0x0B, 0x00);
  EXPECT_EQ(read(0x04), 0x81);
  write(0x02, 0x59);
  write(0x00, 0x59);
  write(0x04, 0x92);  // 12 PM + 59:59 -> 1 PM
  run_to(1 * kHz + 1);
  EXPECT_EQ(read(0x04), 0x81);
}

TEST_F(RtcFixture, UpdateInProgressIsSetJustBeforeEachUpdate) {
  start();
  run_to(kHz / 2);
  EXPECT_EQ(read(0x0A) & 0x80, 0);
  run_to(kHz - 100'000);  // 100 us before the update, inside the 244 us window
  EXPECT_EQ(read(0x0A) & 0x80, 0x80);
  run_to(kHz + 1000);
  EXPECT_EQ(read(0x0A) & 0x80, 0);
}

TEST_F(RtcFixture, PeriodicInterruptAt1024HzRaisesIrq8UntilRegisterCIsRead) {
  start();
  write(0x0B, 0x42);  // PIE, 24-hour BCD; register A keeps rate 6 (1024 Hz)
  run_to(976'562 + 1000);  // one period and a little
  EXPECT_TRUE(irq8);
  EXPECT_EQ(read(0x0C), 0xC0);  // IRQF | PF
  EXPECT_FALSE(irq8);
  EXPECT_EQ(read(0x0C), 0x00);
}

TEST_F(RtcFixture, PeriodicRate6Gives1024FlagsPerSecond) {
  start();
  write(0x0B, 0x42);
  unsigned flags = 0;
  for (u64 t = 0; t <= kHz; t += 100'000) {  // polling faster than the period
    run_to(t);
    if (read(0x0C) & 0x40) ++flags;
  }
  EXPECT_EQ(flags, 1024u);
}

TEST_F(RtcFixture, PeriodicFlagIsSetEvenWithoutPie) {
  start();
  run_to(2'000'000);
  EXPECT_EQ(read(0x0C), 0x40);  // PF without IRQF
  EXPECT_FALSE(irq8);
}

TEST_F(RtcFixture, UpdateEndedInterrupt) {
  start();
  write(0x0B, 0x12);  // UIE
  run_to(kHz + 1);
  EXPECT_TRUE(irq8);
  EXPECT_EQ(read(0x0C) & ~0x40, 0x90);  // IRQF | UF (PF runs at the default 1024 Hz too)
}

TEST_F(RtcFixture, AlarmWithDontCareBytesFiresEverySecond) {
  start();
  write(0x01, 0xFF); write(0x03, 0xFF); write(0x05, 0xFF);
  write(0x0B, 0x22);  // AIE
  run_to(kHz + 1);
  EXPECT_EQ(read(0x0C) & ~0x40, 0xB0);  // IRQF | AF | UF
}

TEST_F(RtcFixture, AlarmMatchesOnlyItsTime) {
  start();
  write(0x01, 0x05); write(0x03, 0x00); write(0x05, 0x00);
  write(0x0B, 0x22);
  run_to(4 * kHz + 1);
  EXPECT_EQ(read(0x0C) & 0x20, 0);
  run_to(5 * kHz + 1);
  EXPECT_EQ(read(0x0C) & 0x20, 0x20);
}

TEST_F(RtcFixture, SetBitClearsUpdateInterruptEnable) {
  start();
  write(0x0B, 0x92);
  EXPECT_EQ(read(0x0B), 0x82);
}

TEST_F(RtcFixture, CmosMemorySizeBytesFor64MiB) {
  start();
  rtc->set_configuration(64u << 20, true);
  EXPECT_EQ(read(0x15), 0x80);  // 640 KiB base memory = 0280h
  EXPECT_EQ(read(0x16), 0x02);
  EXPECT_EQ(read(0x17), 0x00);  // 63 MiB extended = 64512 KiB = FC00h
  EXPECT_EQ(read(0x18), 0xFC);
  EXPECT_EQ(read(0x30), 0x00);
  EXPECT_EQ(read(0x31), 0xFC);
  EXPECT_EQ(read(0x34), 0x00);  // 48 MiB above 16 MiB in 64 KiB units = 0300h
  EXPECT_EQ(read(0x35), 0x03);
  EXPECT_EQ(read(0x14) & 0x02, 0x02);  // math coprocessor present
  unsigned sum = 0;
  for (u8 i = 0x10; i <= 0x2D; ++i) sum += read(i);
  EXPECT_EQ(read(0x2E), static_cast<u8>(sum >> 8));
  EXPECT_EQ(read(0x2F), static_cast<u8>(sum));
}

TEST_F(RtcFixture, ExtendedMemoryIsCappedAtFFFFKiB) {
  start();
  rtc->set_configuration(256u << 20, false);
  EXPECT_EQ(read(0x17), 0xFF);
  EXPECT_EQ(read(0x18), 0xFF);
}

TEST_F(RtcFixture, NvramBytesKeepWhatIsWritten) {
  start();
  write(0x40, 0xA5);
  EXPECT_EQ(read(0x40), 0xA5);
  rtc->write(0x70, 1, 0x80 | 0x40);  // NMI mask bit does not change the index
  EXPECT_EQ(rtc->read(0x71, 1), 0xA5u);
  EXPECT_TRUE(rtc->nmi_masked());
}

}  // namespace
}  // namespace x86lab
