// 8042 keyboard controller and keyboard against the IBM PC/AT and PS/2 technical
// references: self test answer 55h, command byte access, keyboard reset FA AA,
// identify AB 83 (41h when translated), output port A20 and reset lines, the
// auxiliary loopback and IRQ 1 / IRQ 12.
#include <gtest/gtest.h>

#include <vector>

#include "platform/devices/i8042.h"

namespace x86lab {
namespace {

struct I8042Fixture : ::testing::Test {
  bool irq1 = false, irq12 = false, a20 = true;
  unsigned resets = 0;
  I8042 kbc{{[this](unsigned irq, bool level) { (irq == 1 ? irq1 : irq12) = level; },
             [this](bool enabled) { a20 = enabled; }, [this] { ++resets; }}};

  void command(u8 value) { kbc.write(0x64, 1, value); }
  void data(u8 value) { kbc.write(0x60, 1, value); }
  u8 status() { return static_cast<u8>(kbc.read(0x64, 1)); }
  std::vector<u8> drain() {
    std::vector<u8> bytes;
    while (status() & 0x01) bytes.push_back(static_cast<u8>(kbc.read(0x60, 1)));
    return bytes;
  }
};

TEST_F(I8042Fixture, SelfTestAnswers55) {
  command(0xAA);
  EXPECT_EQ(status() & 0x01, 0x01);
  EXPECT_EQ(drain(), std::vector<u8>{0x55});
  EXPECT_EQ(status() & 0x04, 0x04);  // system flag
}

TEST_F(I8042Fixture, InterfaceTestsAnswerZero) {
  command(0xAB);
  EXPECT_EQ(drain(), std::vector<u8>{0x00});
}

TEST_F(I8042Fixture, CommandByteIsReadAndWritten) {
  command(0x60);
  data(0x47);
  command(0x20);
  EXPECT_EQ(drain(), std::vector<u8>{0x47});
}

TEST_F(I8042Fixture, KeyboardResetAcknowledgesThenPassesItsSelfTest) {
  data(0xFF);
  EXPECT_EQ(drain(), (std::vector<u8>{0xFA, 0xAA}));
}

TEST_F(I8042Fixture, IdentifyIsTranslatedWithXlat) {
  data(0xF2);
  EXPECT_EQ(drain(), (std::vector<u8>{0xFA, 0xAB, 0x41}));
  command(0x60);
  data(0x05);  // translation off
  data(0xF2);
  EXPECT_EQ(drain(), (std::vector<u8>{0xFA, 0xAB, 0x83}));
}

TEST_F(I8042Fixture, LedCommandTakesAnArgument) {
  data(0xED);
  data(0x07);
  EXPECT_EQ(drain(), (std::vector<u8>{0xFA, 0xFA}));
}

TEST_F(I8042Fixture, UnknownKeyboardCommandAsksForResend) {
  data(0x42);
  EXPECT_EQ(drain(), std::vector<u8>{0xFE});
}

TEST_F(I8042Fixture, OutputPortBit1IsTheA20Gate) {
  command(0xD1);
  data(0xDD);
  EXPECT_FALSE(a20);
  command(0xD0);
  EXPECT_EQ(drain(), std::vector<u8>{0xDD});
  command(0xD1);
  data(0xDF);
  EXPECT_TRUE(a20);
}

TEST_F(I8042Fixture, PulsingOutputBit0ResetsTheCpu) {
  command(0xFE);
  EXPECT_EQ(resets, 1u);
  command(0xFF);  // pulses nothing
  EXPECT_EQ(resets, 1u);
  command(0xD1);
  data(0xCE);  // reset line driven low
  EXPECT_EQ(resets, 2u);
}

TEST_F(I8042Fixture, KeyboardBytesRaiseIrq1WhenEnabledInTheCommandByte) {
  data(0xEE);
  EXPECT_TRUE(irq1);
  EXPECT_EQ(drain(), std::vector<u8>{0xEE});
  EXPECT_FALSE(irq1);
  command(0x60);
  data(0x64);  // IRQ 1 off
  data(0xEE);
  EXPECT_FALSE(irq1);
}

TEST_F(I8042Fixture, AuxiliaryLoopbackRaisesIrq12AndSetsStatusBit5) {
  command(0x60);
  data(0x47);  // both interrupts on
  command(0xD3);
  data(0x5A);
  EXPECT_TRUE(irq12);
  EXPECT_EQ(status() & 0x21, 0x21);
  EXPECT_EQ(drain(), std::vector<u8>{0x5A});
  EXPECT_FALSE(irq12);
}

// The PS/2 mouse on the auxiliary port (IBM PS/2 Hardware Interface Technical
// Reference, "Pointing Device"): its answers come back as auxiliary bytes.
struct MouseFixture : I8042Fixture {
  std::vector<u8> mouse(u8 value) {
    command(0xD4);
    data(value);
    return drain();
  }
};

TEST_F(MouseFixture, ResetAnswersAckSelfTestPassedAndIdZero) {
  command(0xD4);
  data(0xFF);
  EXPECT_EQ(status() & 0x21, 0x21);  // output full, from the auxiliary device
  EXPECT_EQ(drain(), (std::vector<u8>{0xFA, 0xAA, 0x00}));
  EXPECT_EQ(mouse(0xF2), (std::vector<u8>{0xFA, 0x00}));
}

TEST_F(MouseFixture, StatusRequestShowsDefaultsAndSettings) {
  EXPECT_EQ(mouse(0xE9), (std::vector<u8>{0xFA, 0x00, 0x02, 100}));  // stream, disabled, 1:1, 4 counts/mm, 100/s
  EXPECT_EQ(mouse(0xE8), std::vector<u8>{0xFA});
  EXPECT_EQ(mouse(0x03), std::vector<u8>{0xFA});
  EXPECT_EQ(mouse(0xF3), std::vector<u8>{0xFA});
  EXPECT_EQ(mouse(40), std::vector<u8>{0xFA});
  EXPECT_EQ(mouse(0xE7), std::vector<u8>{0xFA});
  EXPECT_EQ(mouse(0xF4), std::vector<u8>{0xFA});
  EXPECT_EQ(mouse(0xE9), (std::vector<u8>{0xFA, 0x30, 0x03, 40}));
  EXPECT_EQ(mouse(0xF0), std::vector<u8>{0xFA});  // remote mode
  EXPECT_EQ(mouse(0xE9), (std::vector<u8>{0xFA, 0x70, 0x03, 40}));
  EXPECT_EQ(mouse(0xF6), std::vector<u8>{0xFA});  // defaults
  EXPECT_EQ(mouse(0xE9), (std::vector<u8>{0xFA, 0x00, 0x02, 100}));
  EXPECT_EQ(mouse(0x01), std::vector<u8>{0xFE});  // unknown command: resend
}

TEST_F(MouseFixture, StreamModeSendsThreeBytePacketsOnIrq12) {
  command(0x60);
  data(0x47);  // both interrupts on, auxiliary interface enabled
  mouse(0xF4);
  kbc.mouse_move(5, -3, 0, Ps2Mouse::kLeft);
  EXPECT_TRUE(irq12);
  EXPECT_EQ(drain(), (std::vector<u8>{0x29, 0x05, 0xFD}));  // Y sign, always 1, left
  kbc.mouse_move(-300, 0, 0, Ps2Mouse::kRight | Ps2Mouse::kMiddle);
  EXPECT_EQ(drain(), (std::vector<u8>{0x5E, 0x00, 0x00}));  // X overflow, X sign, right, middle
  mouse(0xF5);
  kbc.mouse_move(1, 1, 0, 0);
  EXPECT_TRUE(drain().empty());
}

TEST_F(MouseFixture, TwoToOneScalingDoublesLargeMovesInStreamMode) {
  command(0x60);
  data(0x47);
  mouse(0xE7);
  mouse(0xF4);
  kbc.mouse_move(3, 8, 0, 0);
  EXPECT_EQ(drain(), (std::vector<u8>{0x08, 3, 16}));
}

TEST_F(MouseFixture, RemoteModeSendsTheSumOnReadData) {
  command(0x60);
  data(0x47);
  mouse(0xF0);
  kbc.mouse_move(2, 3, 0, 0);
  kbc.mouse_move(4, 1, 0, 0);
  EXPECT_TRUE(drain().empty());
  EXPECT_EQ(mouse(0xEB), (std::vector<u8>{0xFA, 0x08, 6, 4}));
  EXPECT_EQ(mouse(0xEB), (std::vector<u8>{0xFA, 0x08, 0, 0}));
}

TEST_F(MouseFixture, SampleRates200_100_80MakeAnIntelliMouseWithFourBytePackets) {
  command(0x60);
  data(0x47);
  for (u8 rate : {200, 100, 80}) {
    mouse(0xF3);
    mouse(rate);
  }
  EXPECT_EQ(mouse(0xF2), (std::vector<u8>{0xFA, 0x03}));
  mouse(0xF4);
  kbc.mouse_move(0, 0, -1, 0);
  EXPECT_EQ(drain(), (std::vector<u8>{0x08, 0, 0, 0xFF}));
  EXPECT_EQ(mouse(0xFF), (std::vector<u8>{0xFA, 0xAA, 0x00}));
  EXPECT_EQ(mouse(0xF2), (std::vector<u8>{0xFA, 0x00}));  // a reset returns to ID 0
}

TEST_F(MouseFixture, AuxiliaryInterfaceDisabledHoldsMouseBytes) {
  command(0x60);
  data(0x47);
  mouse(0xF4);
  command(0xA7);  // disable the auxiliary interface
  EXPECT_EQ(kbc.command_byte() & 0x20, 0x20);
  kbc.mouse_move(1, 0, 0, 0);
  EXPECT_TRUE(drain().empty());
  command(0xA8);
  EXPECT_EQ(drain(), (std::vector<u8>{0x08, 1, 0}));
  command(0xA9);  // auxiliary interface test
  EXPECT_EQ(drain(), std::vector<u8>{0x00});
}

TEST_F(MouseFixture, Irq12FollowsCommandByteBit1) {
  command(0x60);
  data(0x45);  // IRQ 12 off (bit 1 clear), aux enabled
  mouse(0xF4);
  kbc.mouse_move(1, 0, 0, 0);
  EXPECT_FALSE(irq12);
  EXPECT_EQ(status() & 0x21, 0x21);
  drain();
}

TEST_F(I8042Fixture, ScanCodesAreDroppedWhileScanningIsDisabled) {
  data(0xF5);  // disable scanning
  drain();
  kbc.keyboard_byte(0x1C);
  EXPECT_TRUE(drain().empty());
  data(0xF4);  // enable scanning
  drain();
  kbc.keyboard_byte(0x1C);
  EXPECT_EQ(drain(), std::vector<u8>{0x1C});
}

TEST_F(I8042Fixture, StatusBit3RemembersCommandOrDataWrite) {
  command(0xAD);
  EXPECT_EQ(status() & 0x08, 0x08);
  data(0xF4);
  EXPECT_EQ(status() & 0x08, 0x00);
}

// Keys from the GUI's keyboard. Values: the scan code tables of the IBM PS/2 Hardware
// Interface Technical Reference (A: set 1 1Eh, set 2 1Ch; Up: E0 48h / E0 75h; F7: set
// 2 83h) and the 8042's translation of set 2 into set 1.
TEST_F(I8042Fixture, KeysAreTranslatedToSet1ByDefault) {
  ASSERT_EQ(kbc.scancode_set(), 2);
  kbc.key(0x1E, false, false);  // A pressed
  kbc.key(0x1E, false, true);   // A released: set 2 F0 1C, translated to 9E
  kbc.key(0x48, true, false);   // Up pressed: E0 75 -> E0 48
  kbc.key(0x48, true, true);    // Up released: E0 F0 75 -> E0 C8
  kbc.key(0x41, false, false);  // F7: set 2 83h -> 41h
  EXPECT_EQ(drain(), (std::vector<u8>{0x1E, 0x9E, 0xE0, 0x48, 0xE0, 0xC8, 0x41}));
  EXPECT_TRUE(irq1 == false);  // drained
}

TEST_F(I8042Fixture, KeysComeInSet2WithoutTranslation) {
  command(0x60);
  data(0x05);  // translation off (command byte 05h)
  kbc.key(0x1E, false, false);
  kbc.key(0x1E, false, true);
  kbc.key(0x1C, false, false);  // Enter: 5Ah
  kbc.key(0x48, true, true);    // Up released: E0 F0 75
  EXPECT_EQ(drain(), (std::vector<u8>{0x1C, 0xF0, 0x1C, 0x5A, 0xE0, 0xF0, 0x75}));
}

TEST_F(I8042Fixture, KeysComeInSet1WhenTheGuestChoosesIt) {
  command(0x60);
  data(0x05);   // translation off
  data(0xF0);   // select scan code set...
  data(0x01);   // ...1
  EXPECT_EQ(drain(), (std::vector<u8>{0xFA, 0xFA}));
  EXPECT_EQ(kbc.scancode_set(), 1);
  kbc.key(0x1E, false, false);
  kbc.key(0x1E, false, true);
  kbc.key(0x53, true, false);  // Delete: E0 53
  EXPECT_EQ(drain(), (std::vector<u8>{0x1E, 0x9E, 0xE0, 0x53}));
  EXPECT_TRUE(irq1 == false);
}

TEST_F(I8042Fixture, KeysWaitWhileTheKeyboardInterfaceIsDisabled) {
  command(0xAD);  // disable the keyboard interface
  kbc.key(0x1E, false, false);
  EXPECT_TRUE(drain().empty());
  command(0xAE);  // enable: the held byte arrives, with IRQ 1
  EXPECT_TRUE(irq1);
  EXPECT_EQ(drain(), std::vector<u8>{0x1E});
}

// Each byte of a multi-byte answer is its own rising edge of IRQ 1 (the 8259A of a
// PC/AT is edge-triggered: one interrupt per edge): identify answers FA AB 41
// with three interrupts. Found with Linux's atkbd, which got no keyboard ID.
TEST(I8042Interrupts, EachByteOfAnAnswerRaisesIrq1Anew) {
  bool level = false;
  unsigned rising = 0;
  I8042 kbc{{[&](unsigned irq, bool now) {
               if (irq != 1) return;
               if (now && !level) ++rising;
               level = now;
             },
             nullptr, nullptr}};
  kbc.write(0x60, 1, 0xF2);  // identify
  std::vector<u8> bytes;
  while (kbc.read(0x64, 1) & 0x01) bytes.push_back(static_cast<u8>(kbc.read(0x60, 1)));
  EXPECT_EQ(bytes, (std::vector<u8>{0xFA, 0xAB, 0x41}));
  EXPECT_EQ(rising, 3u);
  EXPECT_FALSE(level);
}

TEST_F(I8042Fixture, KeyPressRaisesIrq1) {
  kbc.key(0x1C, false, false);
  EXPECT_TRUE(irq1);
  EXPECT_EQ(drain(), std::vector<u8>{0x1C});
  EXPECT_FALSE(irq1);
}

}  // namespace
}  // namespace x86lab
