// 16550A UART against the National Semiconductor PC16550D data sheet: reset values,
// divisor latch, loopback data and modem lines, FIFO trigger levels and the interrupt
// identification priorities (line status, data available, character timeout, THRE,
// modem status), overrun, and the PC's OUT2-gated IRQ line or the INTR pin wired directly.
#include <gtest/gtest.h>

#include "platform/devices/uart.h"

namespace x86lab {
namespace {

struct UartFixture : ::testing::Test {
  ModeledClock cpu_clock;
  VirtualClock clock{cpu_clock, 1'000'000'000};  // one cycle per nanosecond
  bool irq = false;
  Uart16550 uart{clock, 0x3F8, [this](bool level) { irq = level; }};

  void out(unsigned reg, u8 value) { uart.write(static_cast<u16>(0x3F8 + reg), 1, value); }
  u8 in(unsigned reg) { return static_cast<u8>(uart.read(static_cast<u16>(0x3F8 + reg), 1)); }
  void run_to(u64 cycle) {
    while (clock.next_deadline() <= cycle) {
      clock.advance_to(clock.next_deadline());
      clock.run_due();
    }
    clock.advance_to(cycle);
  }
};

struct RecordingHost : SerialHost {
  std::string sent;
  std::string input;
  std::size_t next = 0;
  void transmit(u8 byte) override { sent += static_cast<char>(byte); }
  std::optional<u8> receive() override {
    if (next < input.size()) return static_cast<u8>(input[next++]);
    return std::nullopt;
  }
  bool input_open() const override { return next < input.size(); }
};

TEST_F(UartFixture, ResetValues) {
  EXPECT_EQ(in(2), 0x01);  // IIR: no interrupt pending
  EXPECT_EQ(in(5), 0x60);  // LSR: THRE and TEMT
  EXPECT_EQ(in(1), 0x00);
  EXPECT_EQ(in(4), 0x00);
}

TEST_F(UartFixture, IerHasOnlyFourBits) {
  out(1, 0xFF);
  EXPECT_EQ(in(1), 0x0F);
}

TEST_F(UartFixture, DivisorLatchIsReachedWithDlab) {
  out(3, 0x80);
  out(0, 0x01);
  out(1, 0x00);
  EXPECT_EQ(in(0), 0x01);
  out(3, 0x03);  // 8N1
  EXPECT_EQ(in(3), 0x03);
  EXPECT_EQ(uart.character_ns(), 86'805u);  // 10 bits at 115200 baud
}

TEST_F(UartFixture, TransmittedBytesReachTheHost) {
  RecordingHost host;
  uart.attach_host(&host);
  out(0, 'h');
  out(0, 'i');
  EXPECT_EQ(host.sent, "hi");
}

TEST_F(UartFixture, LoopbackReturnsTransmittedByte) {
  out(4, 0x10);
  out(0, 'A');
  EXPECT_EQ(in(5) & 0x01, 0x01);
  EXPECT_EQ(in(0), 'A');
  EXPECT_EQ(in(5) & 0x01, 0x00);
}

TEST_F(UartFixture, LoopbackConnectsModemControlToModemStatus) {
  out(4, 0x10 | 0x0A);  // loop, RTS, OUT2 (what Linux's autoconfig writes)
  EXPECT_EQ(in(6) & 0xF0, 0x90);  // CTS and DCD
  out(4, 0x10 | 0x05);            // DTR and OUT1
  EXPECT_EQ(in(6) & 0xF0, 0x60);  // DSR and RI
}

TEST_F(UartFixture, ModemStatusDeltasAreSetAndClearedByReading) {
  out(4, 0x10);         // loopback with all lines low: CTS, DSR, DCD fall
  EXPECT_EQ(in(6), 0x0B);  // DCTS, DDSR, DDCD
  EXPECT_EQ(in(6), 0x00);
  out(4, 0x14);         // OUT1 -> RI high
  out(4, 0x10);         // RI falls: TERI
  EXPECT_EQ(in(6), 0x04);
}

TEST_F(UartFixture, ThreInterruptOnEnableAndClearedByReadingIir) {
  out(1, 0x02);
  EXPECT_EQ(in(2), 0x02);
  EXPECT_EQ(in(2), 0x01);  // reading IIR cleared the THRE source
  out(0, 'x');             // the holding register empties again
  EXPECT_EQ(in(2), 0x02);
}

TEST_F(UartFixture, IrqLineNeedsOut2) {
  out(1, 0x02);
  EXPECT_FALSE(irq);
  out(4, 0x08);
  EXPECT_TRUE(irq);
  out(4, 0x18);  // loopback forces OUT2 inactive
  EXPECT_FALSE(irq);
}

// xv6's uartinit (../shared/tests/xv6/uart.c): FIFO off, 9600 baud 8N1, MCR 00h (OUT2
// clear), receive interrupts on, then LSR, IIR and RBR read once. A received byte then
// makes the chip's interrupt pending: IIR 04h ("received data available", the second
// priority of the data sheet's interrupt control table), LSR 61h (DR, THRE, TEMT).
void xv6_uartinit(UartFixture& f) {
  f.out(2, 0x00);
  f.out(3, 0x80);
  f.out(0, 115200 / 9600);
  f.out(1, 0x00);
  f.out(3, 0x03);
  f.out(4, 0x00);
  f.out(1, 0x01);
  EXPECT_EQ(f.in(5), 0x60);  // THRE, TEMT: a port is there (xv6 checks for FFh)
  EXPECT_EQ(f.in(2), 0x01);
  f.in(0);
}

TEST_F(UartFixture, ReceivedByteWithOut2ClearStaysOffThePcIrqLine) {
  xv6_uartinit(*this);
  uart.receive('l');
  EXPECT_EQ(in(2), 0x04);
  EXPECT_EQ(in(5), 0x61);
  EXPECT_FALSE(irq);  // the serial adapter's IRQ buffer is disabled by OUT2 = 0
}

TEST_F(UartFixture, DirectWiringDrivesTheIrqLineFromIntrWhateverOut2) {
  uart.set_irq_gate(Uart16550::IrqGate::Direct);
  xv6_uartinit(*this);
  EXPECT_FALSE(irq);
  uart.receive('l');
  EXPECT_EQ(in(2), 0x04);
  EXPECT_EQ(in(5), 0x61);
  EXPECT_TRUE(irq);
  EXPECT_EQ(in(0), 'l');  // reading RBR clears the data-available interrupt and INTR
  EXPECT_EQ(in(2), 0x01);
  EXPECT_EQ(in(5), 0x60);
  EXPECT_FALSE(irq);
}

// Data sheet, loopback: "the receiver and transmitter interrupts are fully operational";
// only the PC's OUT2 gate (forced inactive in loopback) keeps them off the IRQ line.
TEST_F(UartFixture, DirectWiringKeepsInterruptsInLoopback) {
  uart.set_irq_gate(Uart16550::IrqGate::Direct);
  out(4, 0x10);
  out(1, 0x02);
  EXPECT_EQ(in(2), 0x02);
  EXPECT_EQ(in(2), 0x01);
  EXPECT_FALSE(irq);
  out(1, 0x01);
  out(0, 'x');  // looped back into the receiver
  EXPECT_EQ(in(2), 0x04);
  EXPECT_TRUE(irq);
  uart.set_irq_gate(Uart16550::IrqGate::Out2);
  EXPECT_FALSE(irq);
}

TEST_F(UartFixture, FifoModeShowsInIirTopBits) {
  out(2, 0x01);
  EXPECT_EQ(in(2), 0xC1);
}

TEST_F(UartFixture, DataAvailableAtTriggerLevelThenCharacterTimeout) {
  out(3, 0x80); out(0, 0x01); out(1, 0x00); out(3, 0x03);  // 115200 8N1
  out(2, 0x81);  // FIFO on, trigger level 8
  out(4, 0x10);
  out(1, 0x01);  // received data interrupt
  for (char c : std::string("1234567")) out(0, static_cast<u8>(c));
  EXPECT_EQ(in(2), 0xC1);  // 7 bytes: below the trigger
  out(0, '8');
  EXPECT_EQ(in(2), 0xC4);  // data available
  EXPECT_EQ(in(0), '1');
  EXPECT_EQ(in(2), 0xC1);
  run_to(clock.now() + 4 * 86'805 + 10);
  EXPECT_EQ(in(2), 0xCC);  // character timeout with 7 bytes waiting
  EXPECT_EQ(in(0), '2');
  EXPECT_EQ(in(2), 0xC1);  // reading a byte clears the timeout
}

TEST_F(UartFixture, FifoHoldsSixteenBytesThenOverruns) {
  out(2, 0x01);
  out(4, 0x10);
  for (int i = 0; i < 17; ++i) out(0, static_cast<u8>('a' + i));
  EXPECT_EQ(in(5), 0x63);  // DR, OE, THRE, TEMT
  EXPECT_EQ(in(5), 0x61);  // OE cleared by the read
  std::string got;
  while (in(5) & 1) got += static_cast<char>(in(0));
  EXPECT_EQ(got, "abcdefghijklmnop");
}

TEST_F(UartFixture, LineStatusInterruptHasTopPriority) {
  out(4, 0x10);
  out(1, 0x07);
  out(0, 'a');
  out(0, 'b');  // overrun of the one-byte holding register
  EXPECT_EQ(in(2), 0x06);
  in(5);
  EXPECT_EQ(in(2), 0x04);
}

TEST_F(UartFixture, ModemStatusInterruptHasLowestPriority) {
  out(1, 0x08);
  out(4, 0x10);
  EXPECT_EQ(in(2), 0x00);  // modem status change pending
  in(6);
  EXPECT_EQ(in(2), 0x01);
}

TEST_F(UartFixture, ScratchRegisterKeepsItsValue) {
  out(7, 0x5A);
  EXPECT_EQ(in(7), 0x5A);
}

TEST_F(UartFixture, HostInputArrivesAtTheBaudRateOnceReceiveInterruptsAreEnabled) {
  RecordingHost host;
  host.input = "ok";
  uart.attach_host(&host);
  out(3, 0x80); out(0, 0x01); out(1, 0x00); out(3, 0x03);
  out(4, 0x08);
  out(1, 0x01);
  run_to(1);
  EXPECT_EQ(in(5) & 1, 1);
  EXPECT_TRUE(irq);
  EXPECT_EQ(in(0), 'o');
  EXPECT_EQ(in(5) & 1, 0);
  run_to(86'805 + 1);
  EXPECT_EQ(in(0), 'k');
}

}  // namespace
}  // namespace x86lab
