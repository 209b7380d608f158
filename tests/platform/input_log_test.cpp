// The replay log (platform/replay/input_log.h, docs/snapshots.md "Record and replay"):
// its bytes as the format table gives them, every refusal of a bad log, and a UART
// session recorded from a host whose bytes arrive at irregular polls (a FIFO written
// at wall-clock moments) replayed from the log alone: the guest sees the same bytes at
// the same cycles.
#include <gtest/gtest.h>

#include <cstring>

#include "platform/input_error.h"
#include "platform/replay/input_log.h"

namespace x86lab {
namespace {

InputLog sample_log() {
  InputLog log;
  log.rtc_start = 1'700'000'000;
  log.rtc_from_host = true;
  log.serial = {{3, 1000, 10, 'a'}, {7, 5000, 52, '\n'}};
  log.serial_end = InputLog::SerialEnd{9, 7000};
  return log;
}

std::string problem_of(const std::vector<u8>& bytes) {
  try {
    InputLog::decode(bytes);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(InputLog, BytesFollowTheDocumentedLayout) {
  const std::vector<u8> bytes = sample_log().encode();
  ASSERT_EQ(bytes.size(), 24u + 2 * 26 + 17 + 13);
  EXPECT_EQ(std::memcmp(bytes.data(), "X86LREPL", 8), 0);
  EXPECT_EQ(bytes[8], 1);   // version 1, little-endian
  EXPECT_EQ(bytes[12], 1);  // flags: from --rtc-start host
  // 1'700'000'000 = 6553F100h
  EXPECT_EQ(bytes[16], 0x00);
  EXPECT_EQ(bytes[17], 0xF1);
  EXPECT_EQ(bytes[18], 0x53);
  EXPECT_EQ(bytes[19], 0x65);
  EXPECT_EQ(bytes[24], 1);         // a serial byte
  EXPECT_EQ(bytes[25], 3);         // poll 3
  EXPECT_EQ(bytes[33], 0xE8);      // cycle 1000 = 3E8h
  EXPECT_EQ(bytes[34], 0x03);
  EXPECT_EQ(bytes[41], 10);        // step 10
  EXPECT_EQ(bytes[49], 'a');
  EXPECT_EQ(bytes[76], 2);         // the input's end
  EXPECT_EQ(bytes[77], 9);
  EXPECT_EQ(bytes[93], 0xFF);      // the trailer
  EXPECT_EQ(bytes[94], 3);         // three events
  const InputLog back = InputLog::decode(bytes);
  EXPECT_EQ(back.rtc_start, 1'700'000'000);
  EXPECT_TRUE(back.rtc_from_host);
  ASSERT_EQ(back.serial.size(), 2u);
  EXPECT_EQ(back.serial[1].call, 7u);
  EXPECT_EQ(back.serial[1].cycle, 5000u);
  EXPECT_EQ(back.serial[1].step, 52u);
  EXPECT_EQ(back.serial[1].byte, '\n');
  ASSERT_TRUE(back.serial_end);
  EXPECT_EQ(back.serial_end->call, 9u);
  EXPECT_EQ(back.serial_end->cycle, 7000u);
}

TEST(InputLog, BadLogsAreRefused) {
  const std::vector<u8> good = sample_log().encode();
  EXPECT_EQ(problem_of(good), "");
  EXPECT_EQ(problem_of({'X', '8', '6', 'L', 'S', 'N', 'A', 'P', 1, 0, 0, 0}),
            "not an x86lab replay log (no X86LREPL magic at its start)");
  std::vector<u8> version = good;
  version[8] = 2;
  EXPECT_EQ(problem_of(version), "replay log format version 2; this x86lab reads version 1");
  std::vector<u8> flipped = good;
  flipped[49] ^= 0x20;
  EXPECT_EQ(problem_of(flipped), "CRC-32 does not match (truncated or corrupt)");
  EXPECT_EQ(problem_of(std::vector<u8>(good.begin(), good.end() - 1)), "CRC-32 does not match (truncated or corrupt)");
  EXPECT_EQ(problem_of(std::vector<u8>(good.begin(), good.begin() + 20)), "truncated: shorter than a header and a trailer");
}

struct FakeClock {
  u64 cycle = 0;
  InputClock clock() {
    return {[this] { return cycle; }, [this] { return cycle / 10; }};
  }
};

// Gives its text one byte at every `every`-th poll (a pipe whose writer is slower than
// the guest), then ends.
struct SlowHost : SerialHost {
  std::string input;
  unsigned every = 1;
  unsigned polls = 0;
  std::size_t next = 0;
  std::string sent;
  void transmit(u8 byte) override { sent += static_cast<char>(byte); }
  std::optional<u8> receive() override {
    if (++polls % every != 0 || next >= input.size()) return std::nullopt;
    return static_cast<u8>(input[next++]);
  }
  bool input_open() const override { return next < input.size(); }
};

// A guest with receive interrupts on that reads RBR whenever LSR says data is ready,
// checking every 20000 cycles up to 40 ms: "cycle:byte " for each byte read.
std::string guest_reads(SerialHost& host, FakeClock& fake) {
  ModeledClock cpu_clock;
  VirtualClock clock{cpu_clock, 1'000'000'000};
  Uart16550 uart{clock, 0x3F8, [](bool) {}};
  uart.attach_host(&host);
  uart.write(0x3FB, 1, 0x80);  // LCR: divisor latch access
  uart.write(0x3F8, 1, 0x01);  // divisor 1: 115200 baud
  uart.write(0x3F9, 1, 0x00);
  uart.write(0x3FB, 1, 0x03);  // 8N1
  uart.write(0x3F9, 1, 0x01);  // IER: received data available
  std::string seen;
  for (u64 cycle = 0; cycle < 40'000'000; cycle += 20'000) {
    while (clock.next_deadline() <= cycle) {
      clock.advance_to(clock.next_deadline());
      fake.cycle = clock.now();
      clock.run_due();
    }
    clock.advance_to(cycle);
    fake.cycle = cycle;
    if (uart.read(0x3FD, 1) & 1) seen += std::to_string(cycle) + ":" + static_cast<char>(uart.read(0x3F8, 1)) + " ";
  }
  return seen;
}

TEST(InputLog, ReplayGivesTheRecordedBytesAtTheRecordedCycles) {
  FakeClock fake;
  SlowHost slow;
  slow.input = "ls\nexit\n";
  slow.every = 3;
  InputLog log;
  RecordingSerialHost recording(slow, log);
  recording.set_clock(fake.clock());
  const std::string recorded = guest_reads(recording, fake);
  ASSERT_EQ(log.serial.size(), 8u);
  ASSERT_TRUE(log.serial_end);
  const InputLog decoded = InputLog::decode(log.encode());
  SlowHost silent;  // the replay's host: output only
  ReplaySerialHost replay(silent, decoded);
  FakeClock replay_fake;
  replay.set_clock(replay_fake.clock());
  EXPECT_EQ(guest_reads(replay, replay_fake), recorded);
  // The same text given at every poll reaches the guest at other cycles (the log matters).
  FakeClock fast_fake;
  SlowHost fast;
  fast.input = slow.input;
  EXPECT_NE(guest_reads(fast, fast_fake), recorded);
}

}  // namespace
}  // namespace x86lab
