// Binary trace format version 4 (docs/trace-format.md, "Version 4"): chunks that decode
// on their own, the chunk index and seeking, the predictions of the record codec, and
// one clear line for each kind of damage.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trace/binary_format.h"
#include "trace/sink.h"
#include "trace/trace_tools.h"

namespace x86lab {
namespace {

// A synthetic stream shaped like a real one: for each instruction a data read, the
// instruction (a 2-byte loop body at one of eight addresses), a register write of the
// value read, and every 7th a write copying it elsewhere; the values are pseudo-random.
std::vector<Event> synthetic_events(u64 instructions) {
  std::vector<Event> out;
  u32 x = 12345;
  for (u64 i = 0; i < instructions; ++i) {
    x = x * 1103515245u + 12345u;
    Event read;
    read.kind = EventKind::MemoryAccess;
    read.detail = static_cast<u8>(AccessKind::Data);
    read.size = 4;
    read.a = 0xC0100000u + static_cast<u32>(i % 4096) * 4;
    read.b = read.a - 0xC0000000u;
    read.value = x;
    read.instruction = i;
    read.cycle = i * 3 / 2;
    out.push_back(read);
    Event insn;
    insn.kind = EventKind::Instruction;
    insn.a = 0x60;
    insn.c = 0xC1000000u + static_cast<u32>(i % 8) * 2;
    insn.b = insn.c;
    insn.size = 2;
    insn.bytes = {0x8B, static_cast<u8>(0x00 + i % 8)};
    insn.text = "MOV";
    insn.instruction = i;
    insn.cycle = read.cycle;
    out.push_back(insn);
    Event reg;
    reg.kind = EventKind::RegisterWrite;
    reg.detail = static_cast<u8>(i % 3);
    reg.value = x;
    reg.instruction = i;
    reg.cycle = read.cycle;
    out.push_back(reg);
    if (i % 7 == 0) {
      Event write = read;
      write.flags = kEventWrite;
      write.a = write.b = 0x5000 + static_cast<u32>(i % 64) * 4;
      out.push_back(write);
    }
  }
  // Register old values: what the previous write of that register left.
  u32 last[3] = {};
  for (Event& e : out)
    if (e.kind == EventKind::RegisterWrite) {
      e.c = last[e.detail];
      last[e.detail] = static_cast<u32>(e.value);
    }
  return out;
}

std::string write_events(const std::vector<Event>& events, const std::string& name) {
  const std::string path = ::testing::TempDir() + name;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  BinaryTraceWriter writer(file);
  for (const Event& e : events) writer.write(e);
  writer.finish();
  std::fclose(file);
  return path;
}

bool same(const Event& x, const Event& y) {
  return x.kind == y.kind && x.detail == y.detail && x.flags == y.flags && x.size == y.size && x.a == y.a &&
         x.b == y.b && x.c == y.c && x.value == y.value && x.instruction == y.instruction && x.cycle == y.cycle &&
         x.bytes == y.bytes && x.text == y.text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_file(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

u64 le64(const std::string& s, std::size_t at) {
  u64 v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<u8>(s[at + i]);
  return v;
}

TEST(TraceV4, EveryEventComesBackAcrossChunks) {
  // 70,000 instructions: more records than one chunk takes (kChunkTargetRecords).
  const std::vector<Event> events = synthetic_events(70000);
  const std::string path = write_events(events, "v4_roundtrip.bin");
  BinaryTraceReader reader;
  std::string error;
  ASSERT_TRUE(reader.open(path, error)) << error;
  EXPECT_EQ(reader.version(), 4u);
  Event e;
  std::size_t n = 0;
  while (reader.next(e)) {
    ASSERT_LT(n, events.size());
    ASSERT_TRUE(same(e, events[n])) << "event " << n;
    ++n;
  }
  EXPECT_TRUE(reader.error().empty()) << reader.error();
  EXPECT_EQ(n, events.size());
  // The trailer names the index; the index lists more than one chunk.
  const std::string bytes = read_file(path);
  ASSERT_EQ(bytes.substr(bytes.size() - 8), std::string("x86ltidx", 8));
  const u64 index = le64(bytes, bytes.size() - 16);
  EXPECT_EQ(bytes.substr(index, 4), "x86i");
  EXPECT_GE(static_cast<u8>(bytes[index + 4]), 2);
}

TEST(TraceV4, TheSameEventsGiveTheSameBytes) {
  const std::vector<Event> events = synthetic_events(70000);
  EXPECT_EQ(read_file(write_events(events, "v4_a.bin")), read_file(write_events(events, "v4_b.bin")));
}

TEST(TraceV4, ARegisterLoadedFromMemoryCostsNoSecondValue) {
  // The same stream twice: register writes of the value just read (predicted: the codec
  // stores no value), and register writes of a value unrelated to the read (stored).
  // A pseudo-random 32-bit value does not compress, so the difference is at least 3 of
  // its 4 to 5 bytes per instruction.
  const std::vector<Event> loaded = synthetic_events(70000);
  std::vector<Event> unrelated = loaded;
  u32 last[3] = {};
  for (Event& e : unrelated)
    if (e.kind == EventKind::RegisterWrite) {
      e.value = static_cast<u32>(e.value) * 2654435761u ^ 0x5A5A5A5Au;
      e.c = last[e.detail];
      last[e.detail] = static_cast<u32>(e.value);
    }
  const std::size_t a = read_file(write_events(loaded, "v4_loaded.bin")).size();
  const std::size_t b = read_file(write_events(unrelated, "v4_unrelated.bin")).size();
  EXPECT_GT(b, a + 3 * 70000) << a << " against " << b;
}

TEST(TraceV4, SeekReadsFromTheChunkThatHoldsTheInstruction) {
  const std::vector<Event> events = synthetic_events(70000);
  const std::string path = write_events(events, "v4_seek.bin");
  for (u64 target : {0ull, 1ull, 40000ull, 65535ull, 69999ull}) {
    BinaryTraceReader reader;
    std::string error;
    ASSERT_TRUE(reader.open(path, error)) << error;
    ASSERT_TRUE(reader.seek_instruction(target)) << target << " " << reader.error();
    Event e;
    ASSERT_TRUE(reader.next(e));
    std::size_t first = 0;
    while (events[first].instruction < target) ++first;
    EXPECT_TRUE(same(e, events[first])) << "instruction " << target;
  }
  BinaryTraceReader reader;
  std::string error;
  ASSERT_TRUE(reader.open(path, error));
  EXPECT_FALSE(reader.seek_instruction(70000)) << "beyond the last instruction";
  EXPECT_TRUE(reader.error().empty());
  // trace dump --from/--to prints exactly that instruction's events.
  std::ostringstream out, err;
  EXPECT_EQ(trace_dump(path, out, err, nullptr, 40000, 40000), 0) << err.str();
  std::string expected;
  for (const Event& e : events)
    if (e.instruction == 40000) expected += format_event(e) + "\n";
  EXPECT_EQ(out.str(), expected);
  EXPECT_EQ(std::count(expected.begin(), expected.end(), '\n'), 3);
}

TEST(TraceV4, AnUnfinishedTraceIsReadWithoutItsIndex) {
  const std::vector<Event> events = synthetic_events(70000);
  std::string bytes = read_file(write_events(events, "v4_full.bin"));
  const u64 index = le64(bytes, bytes.size() - 16);
  const std::string path = ::testing::TempDir() + "v4_unfinished.bin";
  write_file(path, bytes.substr(0, index));  // as if the run was killed before finish()
  std::ostringstream out, err;
  EXPECT_EQ(trace_stats(path, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("kind.insn 70000\n"), std::string::npos) << out.str();
}

TEST(TraceV4, DamageIsOneLineNamingTheFileAndOffset) {
  const std::string good = read_file(write_events(synthetic_events(70000), "v4_good.bin"));
  const u64 index = le64(good, good.size() - 16);
  struct Case {
    const char* name;
    std::string bytes;
    std::string message;
  };
  std::string truncated = good.substr(0, 16 + 32 + 100);  // a chunk cut short, no index
  std::string bad_index = good;
  bad_index[index + 8] ^= 0x40;  // the first entry's offset
  std::string garbage = good;
  garbage[16 + 32 + 200] ^= 0x5A;  // inside the first chunk's zstd frame
  std::string wrong_size = good;
  wrong_size[16 + 8] ^= 0x01;  // the first chunk header's uncompressed size
  const Case cases[] = {
      {"v4_truncated.bin", truncated, "truncated chunk at byte 16"},
      {"v4_bad_index.bin", bad_index, "corrupt chunk index at byte " + std::to_string(index)},
      {"v4_garbage.bin", garbage, "chunk at byte 16 does not decompress (zstd: "},
      {"v4_wrong_size.bin", wrong_size, "chunk at byte 16 decompresses to "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = ::testing::TempDir() + c.name;
    write_file(path, c.bytes);
    std::ostringstream out, err;
    EXPECT_EQ(trace_stats(path, out, err), 2);
    EXPECT_EQ(err.str().rfind("x86lab: '" + path + "': " + c.message, 0), 0u) << err.str();
    EXPECT_EQ(err.str().find('\n'), err.str().size() - 1) << "one line";
  }
}

TEST(TraceV4, ConvertRewritesAnOlderTraceEventForEvent) {
  // A version-3 file: one halt record (kind 10), as the version-3 writer wrote it.
  const std::string old = ::testing::TempDir() + "v3_for_convert.bin";
  std::string bytes("x86ltrc\0", 8);
  bytes += std::string("\x03\0\0\0\0\0\0\0", 8);
  bytes += std::string{10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  write_file(old, bytes);
  const std::string converted = ::testing::TempDir() + "v4_converted.bin";
  std::ostringstream err;
  ASSERT_EQ(trace_convert(old, converted, err), 0) << err.str();
  std::ostringstream out_old, out_new, e1, e2;
  EXPECT_EQ(trace_dump(old, out_old, e1), 0);
  EXPECT_EQ(trace_dump(converted, out_new, e2), 0) << e2.str();
  EXPECT_EQ(out_old.str(), out_new.str());
  EXPECT_EQ(read_file(converted).substr(8, 4), std::string("\x04\0\0\0", 4));
}

}  // namespace
}  // namespace x86lab
