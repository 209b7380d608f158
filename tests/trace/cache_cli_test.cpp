// `--stats` l1i-misses and l1d-misses of ROMs whose code and data layouts give them by
// hand (with --cache-model on; off, the default of run, shows and charges none), and
// bad cache keys and values.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "../ui/run_x86lab.h"
#include "trace/types.h"

namespace x86lab::testing {
namespace {

// A 64 KiB BIOS image (mapped at FFFF0000h, the real-mode CS base at reset, so ROM
// offset = IP). Bytes written at an IP:
//   FFF0: E9 0D 80      jmp near 8000h        (the reset vector)
//   8000: B9 0A 00      mov cx, 10
//   8003: E9 FA 0F      jmp near 9000h
//   9000, A000, B000, C000: E9 FD 0F   jmp near to the next 4 KiB (A000h .. D000h)
//   D000: 49            dec cx
//   D001: 0F 85 FB BF   jnz near 9000h
//   D005: B0 00         mov al, 0
//   D007: E6 F4         out F4h, al           (exit port: status 1)
using Rom = std::vector<char>;
void put(Rom& rom, u32 ip, std::initializer_list<int> bytes) {
  u32 at = ip;
  for (int b : bytes) rom[at++] = static_cast<char>(b);
}
std::string save(const Rom& rom, const std::string& name) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary).write(rom.data(), static_cast<std::streamsize>(rom.size()));
  return path;
}

std::string write_rom() {
  Rom rom(0x10000, '\xF4');  // HLT elsewhere
  auto put = [&](u32 ip, std::initializer_list<int> bytes) { x86lab::testing::put(rom, ip, bytes); };
  put(0xFFF0, {0xE9, 0x0D, 0x80});
  put(0x8000, {0xB9, 0x0A, 0x00, 0xE9, 0xFA, 0x0F});
  for (u32 ip = 0x9000; ip <= 0xC000; ip += 0x1000) put(ip, {0xE9, 0xFD, 0x0F});
  put(0xD000, {0x49, 0x0F, 0x85, 0xFB, 0xBF, 0xB0, 0x00, 0xE6, 0xF4});
  return save(rom, "l1i_sets.bin");
}

u64 stat(const std::string& output, const std::string& name) {
  const auto at = output.find("\n" + name + " ");
  return at == std::string::npos ? 0 : std::stoull(output.substr(at + name.size() + 2));
}

// Each instruction accesses the L1I line of its first byte. The lines fetched:
// FFFFFFE0h (the reset vector's; k7's 64-byte line FFFFFFC0h), FFFF8000h, then ten
// rounds of FFFF9000h, A000h, B000h, C000h, D000h (the JNZ, MOV and OUT share D000h's line).
// p3 (16 KiB, 4-way, 32-byte lines: 128 sets, index bits 5-11): 8000h-D000h all fall
// in set 0, and the loop cycles 5 lines through 4 ways, so under LRU every one of its
// 50 fetches misses: 2 + 50 = 52.
// k7 (64 KiB, 2-way, 64-byte lines: 512 sets, index bits 6-14): 8000h..D000h are in
// sets 0, 40h, 80h, C0h, 100h, 140h, so only the first fetch of each line misses: 1 + 1 + 5 = 7.
// modern (32 KiB, 8-way, 64-byte lines: 64 sets): 6 lines in set 0 fit its 8 ways: 7.
// The traced run decodes every instruction byte by byte (not the linked run) and
// must count the same.
TEST(CacheCli, L1iMissesOfARomWithKnownLayout) {
  const std::string rom = write_rom();
  const struct {
    const char* profile;
    u64 misses;
  } cases[] = {{"p3", 52}, {"k7", 7}, {"modern", 7}, {"p4", 0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.profile);
    const Outcome o =
        run_x86lab("run --bios " + rom + " --debugcon none --stats --cache-model on --profile " + c.profile);
    ASSERT_EQ(o.status, 1) << o.output;
    EXPECT_EQ(stat(o.output, "instructions"), 3u + 6 * 10 + 2) << o.output;
    EXPECT_EQ(stat(o.output, "l1i-misses"), c.misses) << o.output;
    EXPECT_NE(o.output.find("\nl1i-misses "), std::string::npos) << "shown even when 0 (p4)";
    EXPECT_NE(o.output.find("\nl1d-misses 0\n"), std::string::npos) << o.output;
    const Outcome traced = run_x86lab("run --bios " + rom + " --debugcon none --stats --cache-model on --profile " +
                                      c.profile + " --trace text:/dev/null");
    EXPECT_EQ(stat(traced.output, "l1i-misses"), c.misses) << traced.output;
  }
}

// Its p3 cycles: 65 instructions at their costs plus 52 misses at l1i-miss (18 cycles).
TEST(CacheCli, EachL1iMissCostsTheProfilesL2Latency) {
  const std::string rom = write_rom();
  const std::string cheap = ::testing::TempDir() + "p3_no_miss_cost.cost";
  std::ofstream(cheap) << "name = p3  source: test\nl1i-size = 16384  source: t\nl1i-ways = 4  source: t\n"
                          "l1i-line = 32  source: t\nl1i-miss = 0  source: t\n";
  const std::string costly = ::testing::TempDir() + "p3_miss_cost.cost";
  std::ofstream(costly) << "name = p3  source: test\nl1i-size = 16384  source: t\nl1i-ways = 4  source: t\n"
                           "l1i-line = 32  source: t\nl1i-miss = 18  source: t\n";
  const Outcome a = run_x86lab("run --bios " + rom + " --debugcon none --stats --cache-model on --profile " + cheap);
  const Outcome b = run_x86lab("run --bios " + rom + " --debugcon none --stats --cache-model on --profile " + costly);
  EXPECT_EQ(stat(b.output, "cycles") - stat(a.output, "cycles"), 52u * 18) << a.output << b.output;
  // Off (run's default) the same profile charges nothing for them.
  const Outcome off = run_x86lab("run --bios " + rom + " --debugcon none --stats --profile " + costly);
  EXPECT_EQ(stat(off.output, "cycles"), stat(a.output, "cycles")) << off.output;
}

// With the cache model off, --stats and --stats-json have no l1i/l1d lines or keys (as
// before the model existed); on, both show them.
TEST(CacheCli, OffTheStatsHaveNoL1LinesAndOnTheyHave) {
  const std::string rom = write_rom();
  const std::string json = ::testing::TempDir() + "cache_off_stats.json";
  const Outcome off = run_x86lab("run --bios " + rom + " --debugcon none --stats --stats-json " + json);
  ASSERT_EQ(off.status, 1) << off.output;
  EXPECT_EQ(off.output.find("l1i-misses"), std::string::npos) << off.output;
  EXPECT_EQ(off.output.find("l1d-misses"), std::string::npos) << off.output;
  EXPECT_EQ(read_file(json).find("l1i_misses"), std::string::npos) << read_file(json);
  const Outcome on =
      run_x86lab("run --bios " + rom + " --debugcon none --stats --cache-model on --stats-json " + json);
  ASSERT_EQ(on.status, 1) << on.output;
  EXPECT_NE(read_file(json).find("\"l1i_misses\": 52"), std::string::npos) << read_file(json);
  EXPECT_NE(read_file(json).find("\"l1d_misses\": 0"), std::string::npos) << read_file(json);
}

// A real-mode REP MOVSD of 64 dwords from 1000h to 2000h (RAM, DS = ES = 0): every
// element goes through the bus to the L1D model, so each line of the source and of the
// destination misses once. p3 (32-byte lines; 1000h+32k and 2000h+32k share set k, 2
// lines in 4 ways): 256/32 * 2 = 16; 64-byte lines (k7, p4, modern): 8.
//   FFF0: E9 0D 80      jmp near 8000h
//   8000: 31 C0         xor ax, ax
//   8002: 8E D8 8E C0   mov ds, ax; mov es, ax
//   8006: BE 00 10      mov si, 1000h
//   8009: BF 00 20      mov di, 2000h
//   800C: B9 40 00      mov cx, 64
//   800F: FC            cld
//   8010: F3 66 A5      rep movsd
//   8013: B0 00 E6 F4   mov al, 0; out F4h, al
TEST(CacheCli, EachLineARepMovsdBlockReadsOrWritesMissesOnce) {
  Rom rom(0x10000, '\xF4');
  put(rom, 0xFFF0, {0xE9, 0x0D, 0x80});
  put(rom, 0x8000, {0x31, 0xC0, 0x8E, 0xD8, 0x8E, 0xC0, 0xBE, 0x00, 0x10, 0xBF, 0x00, 0x20, 0xB9, 0x40, 0x00,
                    0xFC, 0xF3, 0x66, 0xA5, 0xB0, 0x00, 0xE6, 0xF4});
  const std::string path = save(rom, "rep_movsd_lines.bin");
  const struct {
    const char* profile;
    u64 misses;
  } cases[] = {{"p3", 16}, {"k7", 8}, {"p4", 8}, {"modern", 8}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.profile);
    const Outcome o =
        run_x86lab("run --bios " + path + " --debugcon none --stats --cache-model on --profile " + c.profile);
    ASSERT_EQ(o.status, 1) << o.output;
    EXPECT_EQ(stat(o.output, "access.data"), 128u) << o.output;
    EXPECT_EQ(stat(o.output, "l1d-misses"), c.misses) << o.output;
  }
}

TEST(CacheCli, ABadCacheModelValueIsRejected) {
  expect_rejected("run --bios " + std::string(X86LAB_ROM_DIR) + "/demo.bin --cache-model yes",
                  "--cache-model must be on or off, not 'yes'");
  expect_rejected("compare irq --no-files --cache-model 1", "--cache-model must be on or off, not '1'");
}

TEST(CacheCli, ABadCacheKeyNamesTheFileAndLine) {
  const std::string path = ::testing::TempDir() + "bad_cache.cost";
  std::ofstream(path) << "name = p3  source: test\nl1d-ways = 3  source: none\n";
  expect_rejected("run --bios " + std::string(X86LAB_ROM_DIR) + "/demo.bin --profile " + path,
                  path + ":2: 'l1d-ways' must be a whole power of two from 1 to 2^24");
}

}  // namespace
}  // namespace x86lab::testing
