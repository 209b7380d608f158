// The replay log (platform/replay/input_log.h, docs/snapshots.md "Record and replay"):
// its bytes as the format table gives them, every refusal of a bad log, and a UART
// session recorded from a host whose bytes arrive at irregular polls (a FIFO written
// at wall-clock moments) replayed from the log alone: the guest sees the same bytes at
// the same cycles.
#include <gtest/gtest.h>

#include <zlib.h>

#include <cstring>

#include "platform/input_error.h"
#include "platform/replay/input_journal.h"

namespace x86lab {
namespace {

InputLog sample_log() {
  InputLog log;
  log.rtc_start = 1'700'000'000;
  log.rtc_from_host = true;
  log.first = {2, 1};
  log.serial = {{{10, 1000}, 'a'}, {{52, 5000}, '\n'}};
  log.keys = {{{30, 3000}, 0x1E, false, false}, {{60, 8000}, 0x48, true, true}};
  log.serial_end = InputMoment{55, 7000};
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
  // header 40, two serial bytes of 18, a key of 19, the end of 17, a key of 19, trailer 13
  ASSERT_EQ(bytes.size(), 40u + 18 + 19 + 18 + 17 + 19 + 13);
  EXPECT_EQ(std::memcmp(bytes.data(), "X86LREPL", 8), 0);
  EXPECT_EQ(bytes[8], 2);   // version 2, little-endian
  EXPECT_EQ(bytes[12], 1);  // flags: from --rtc-start host
  // 1'700'000'000 = 6553F100h
  EXPECT_EQ(bytes[16], 0x00);
  EXPECT_EQ(bytes[17], 0xF1);
  EXPECT_EQ(bytes[18], 0x53);
  EXPECT_EQ(bytes[19], 0x65);
  EXPECT_EQ(bytes[24], 2);         // the first serial byte's number
  EXPECT_EQ(bytes[32], 1);         // the first key's number
  EXPECT_EQ(bytes[40], 1);         // a serial byte
  EXPECT_EQ(bytes[41], 10);        // step 10
  EXPECT_EQ(bytes[49], 0xE8);      // cycle 1000 = 3E8h
  EXPECT_EQ(bytes[50], 0x03);
  EXPECT_EQ(bytes[57], 'a');
  EXPECT_EQ(bytes[58], 3);         // a key, at step 30
  EXPECT_EQ(bytes[59], 30);
  EXPECT_EQ(bytes[75], 0x1E);      // A's make code
  EXPECT_EQ(bytes[76], 0);         // pressed, not extended
  EXPECT_EQ(bytes[77], 1);         // the second serial byte, step 52
  EXPECT_EQ(bytes[78], 52);
  EXPECT_EQ(bytes[95], 2);         // the input's end at step 55
  EXPECT_EQ(bytes[96], 55);
  EXPECT_EQ(bytes[112], 3);        // a key after the end of the serial input
  EXPECT_EQ(bytes[129], 0x48);     // Up
  EXPECT_EQ(bytes[130], 3);        // extended and released
  EXPECT_EQ(bytes[131], 0xFF);     // the trailer
  EXPECT_EQ(bytes[132], 5);        // five events
  const InputLog back = InputLog::decode(bytes);
  EXPECT_EQ(back.rtc_start, 1'700'000'000);
  EXPECT_TRUE(back.rtc_from_host);
  EXPECT_EQ(back.first, (InputCursor{2, 1}));
  ASSERT_EQ(back.serial.size(), 2u);
  EXPECT_EQ(back.serial[1].at, (InputMoment{52, 5000}));
  EXPECT_EQ(back.serial[1].byte, '\n');
  ASSERT_EQ(back.keys.size(), 2u);
  EXPECT_EQ(back.keys[1].at, (InputMoment{60, 8000}));
  EXPECT_EQ(back.keys[1].set1, 0x48);
  EXPECT_TRUE(back.keys[1].extended);
  EXPECT_TRUE(back.keys[1].released);
  EXPECT_FALSE(back.keys[0].extended);
  ASSERT_TRUE(back.serial_end);
  EXPECT_EQ(*back.serial_end, (InputMoment{55, 7000}));
}

TEST(InputLog, BadLogsAreRefused) {
  const std::vector<u8> good = sample_log().encode();
  EXPECT_EQ(problem_of(good), "");
  EXPECT_EQ(problem_of({'X', '8', '6', 'L', 'S', 'N', 'A', 'P', 1, 0, 0, 0}),
            "not an x86lab replay log (no X86LREPL magic at its start)");
  std::vector<u8> version = good;
  version[8] = 1;
  EXPECT_EQ(problem_of(version), "replay log format version 1; this x86lab reads version 2");
  std::vector<u8> flipped = good;
  flipped[57] ^= 0x20;
  EXPECT_EQ(problem_of(flipped), "CRC-32 does not match (truncated or corrupt)");
  EXPECT_EQ(problem_of(std::vector<u8>(good.begin(), good.end() - 1)), "CRC-32 does not match (truncated or corrupt)");
  EXPECT_EQ(problem_of(std::vector<u8>(good.begin(), good.begin() + 30)), "truncated: shorter than a header and a trailer");
  std::vector<u8> backwards = good;
  backwards[78] = 5;  // the second serial byte at step 5, before the key at step 30
  const std::size_t body = backwards.size() - 4;
  const u32 crc = static_cast<u32>(crc32(crc32(0, nullptr, 0), backwards.data(), static_cast<uInt>(body)));
  for (unsigned i = 0; i < 4; ++i) backwards[body + i] = static_cast<u8>(crc >> (8 * i));
  EXPECT_EQ(problem_of(backwards), "event 3 is before the one before it");
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
  InputJournal recording(InputJournal::Mode::Record, {});
  JournalSerialHost recording_host(slow, recording);
  recording.set_clock(fake.clock());
  const std::string recorded = guest_reads(recording_host, fake);
  ASSERT_EQ(recording.log().serial.size(), 8u);
  ASSERT_TRUE(recording.log().serial_end);
  SlowHost silent;  // the replay's host: output only
  InputJournal replay(InputJournal::Mode::Replay, InputLog::decode(recording.log().encode()));
  JournalSerialHost replay_host(silent, replay);
  FakeClock replay_fake;
  replay.set_clock(replay_fake.clock());
  EXPECT_EQ(guest_reads(replay_host, replay_fake), recorded);
  EXPECT_EQ(silent.polls, 0u);  // the replay never asks the host
  // The same text given at every poll reaches the guest at other cycles (the log matters).
  FakeClock fast_fake;
  SlowHost fast;
  fast.input = slow.input;
  EXPECT_NE(guest_reads(fast, fast_fake), recorded);
}

}  // namespace
}  // namespace x86lab
