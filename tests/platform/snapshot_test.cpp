// Machine snapshots (platform/snapshot/, docs/snapshots.md): a machine restored from a
// capture runs on exactly as the captured one, and a damaged file is refused with
// an InputError, never a crash or a half-applied machine.
#include <gtest/gtest.h>

#include <random>

#include "platform/input_error.h"
#include "platform/rom_image.h"
#include "platform/snapshot/snapshot_file.h"

namespace x86lab {
namespace {

MachineConfig rom_config(const std::string& rom) {
  MachineConfig config;
  config.bios = read_rom_image(std::string(X86LAB_ROM_DIR) + "/" + rom);
  config.memory_mib = 4;
  return config;
}

// Everything a capture holds, as one comparable value.
std::vector<u8> flatten(const MachineState& s) {
  MachineState copy = s;
  copy.serial = {};
  return encode_snapshot(copy);
}

// The offset of the first byte where two sections differ (the shorter one's size when one
// is a prefix of the other).
size_t first_difference(const std::vector<u8>& a, const std::vector<u8>& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return i;
  return n;
}

// The state after `total` steps, run straight through or saved at each of `cuts` and
// restored into a fresh machine each time.
void expect_exact(const std::string& rom, u64 total, const std::vector<u64>& cuts) {
  const MachineConfig config = rom_config(rom);
  Machine straight(config);
  straight.run_for(total);
  total = straight.cpu.steps();  // (a ROM that ends sooner)
  const std::vector<u8> expected = flatten(capture_machine_state(straight));
  for (u64 cut : cuts) {
    if (cut >= total) continue;
    Machine first(config);
    first.run_for(cut);
    const MachineState saved = decode_snapshot(encode_snapshot(capture_machine_state(first)));
    Machine second(config);
    restore_machine_state(second, saved);
    second.run_for(total - second.cpu.steps());
    const MachineState got = capture_machine_state(second);
    if (flatten(got) == expected) continue;
    const MachineState want = capture_machine_state(straight);
    EXPECT_EQ(got.machine, want.machine) << rom << " cut at step " << cut << ": machine section";
    EXPECT_EQ(got.cpu, want.cpu) << rom << " cut at step " << cut << ": cpu section";
    EXPECT_EQ(got.mmu, want.mmu) << rom << " cut at step " << cut << ": mmu section";
    EXPECT_EQ(got.devices, want.devices) << rom << " cut at step " << cut << ": devices section, first difference at byte "
                                         << first_difference(got.devices, want.devices) << " of " << want.devices.size();
    EXPECT_EQ(got.clock, want.clock) << rom << " cut at step " << cut << ": clock section";
    EXPECT_EQ(got.counters, want.counters) << rom << " cut at step " << cut << ": counters section";
    ADD_FAILURE() << rom << " cut at step " << cut << ": the states differ";
  }
}

TEST(Snapshot, ARestoredMachineRunsOnAsTheSavedOneOnTheTimerRom) {
  expect_exact("platform/pc_timer_devices.bin", 200000, {1, 2, 3, 1000, 4321, 50000, 123457, 199999});
}

TEST(Snapshot, ARestoredMachineRunsOnAsTheSavedOneWithPaging) {
  expect_exact("paging/tlb.bin", 60000, {17, 5000, 20011, 40000});
  expect_exact("paging/global_pages.bin", 60000, {33, 9000, 30001});
}

// The TLB statistics model saves its LRU order, not its raw stamps: the machine restored
// after the ROM's code writes (step 6619 on) counted its hits through the model where the
// saved one counted them beside it, and its stamps and last data page came out different
// though it holds the same pages in the same order.
TEST(Snapshot, ARestoredMachineRunsOnAsTheSavedOneWithSelfModifyingCode) {
  expect_exact("paging/smc.bin", 7000, {1000, 4000, 6619, 6700, 6800, 6900});
}

TEST(Snapshot, ARestoredMachineRunsOnAsTheSavedOneWithStringsAndX87) {
  expect_exact("real_stack_strings.bin", 40000, {10, 101, 1001, 2500, 10007});
  expect_exact("fpu_probe.bin", 40000, {10, 333, 2000, 9001});
}

TEST(Snapshot, ARestoredMachineRunsOnAsTheSavedOneWithDebugTrapsAndTasks) {
  expect_exact("protected/pm_debug.bin", 40000, {50, 700, 3001, 12000});
  expect_exact("protected/pm_tasks.bin", 40000, {50, 700, 3001, 12000});
}

// Which bytes were fetched as instructions is saved: the Linux boot continued from a
// snapshot at 3 G steps counted 3545 code-block-invalidations where the boot counted
// 1031 before the marks were saved, and a write into code fetched before the cut
// counts only if the restored machine knows that code.
TEST(Snapshot, ARestoredMachineCountsWritesIntoCodeFetchedBeforeTheCut) {
  const MachineConfig config = rom_config("paging/smc.bin");
  Machine straight(config);
  straight.run_for(7000);
  EXPECT_EQ(straight.counters.code_block_invalidations, 6u) << "the ROM's six writes into fetched code";
  const MachineState want = capture_machine_state(straight);
  for (u64 cut = 4000; cut < 6826; cut += 97) {
    Machine first(config);
    first.run_for(cut);
    Machine second(config);
    restore_machine_state(second, decode_snapshot(encode_snapshot(capture_machine_state(first))));
    second.run_for(7000 - second.cpu.steps());
    EXPECT_EQ(second.counters.code_block_invalidations, 6u) << "cut at step " << cut;
    const MachineState got = capture_machine_state(second);
    EXPECT_EQ(got.counters, want.counters) << "cut at step " << cut;
    EXPECT_EQ(got.machine, want.machine) << "cut at step " << cut;
  }
}

TEST(Snapshot, UnchangedPagesAreSharedWithThePreviousCapture) {
  Machine machine(rom_config("platform/pc_timer_devices.bin"));
  machine.run_for(1000);
  const MachineState first = capture_machine_state(machine);
  machine.run_for(10);
  const MachineState second = capture_machine_state(machine, &first);
  std::size_t shared = 0;
  for (const RamPage& page : second.ram)
    for (const RamPage& old : first.ram) shared += page.bytes == old.bytes;
  EXPECT_GT(shared, 0u);
  EXPECT_LT(shared, second.ram.size() + 1);
}

class SnapshotFile : public ::testing::Test {
 protected:
  void SetUp() override {
    Machine machine(rom_config("platform/pc_timer_devices.bin"));
    machine.run_for(5000);
    bytes = encode_snapshot(capture_machine_state(machine));
  }
  // The problem decode_snapshot reports for `file`, or "" when it decodes; any other
  // exception fails the test.
  static std::string problem(const std::vector<u8>& file) {
    try {
      decode_snapshot(file);
      return "";
    } catch (const InputError& error) {
      return error.what();
    }
  }
  // The offsets where sections start (and the end of the file).
  std::vector<std::size_t> boundaries() const {
    std::vector<std::size_t> at = {0, 20};
    std::size_t offset = 20;
    while (offset + 32 <= bytes.size()) {
      u64 stored = 0;
      for (int i = 0; i < 8; ++i) stored |= u64{bytes[offset + 8 + i]} << (8 * i);
      offset += 32 + stored;
      at.push_back(offset);
    }
    return at;
  }
  std::vector<u8> bytes;
};

TEST_F(SnapshotFile, DecodesWhatItEncodes) {
  EXPECT_EQ(problem(bytes), "");
  EXPECT_EQ(encode_snapshot(decode_snapshot(bytes)), bytes);
}

TEST_F(SnapshotFile, ATruncatedFileIsRefusedAtEverySectionBoundaryAndElsewhere) {
  std::vector<std::size_t> cuts = boundaries();
  ASSERT_EQ(cuts.size(), 12u);  // the header, ten sections, the end
  ASSERT_EQ(cuts.back(), bytes.size());
  cuts.pop_back();
  std::mt19937 random(26);
  for (int i = 0; i < 300; ++i) cuts.push_back(random() % bytes.size());
  for (std::size_t cut : cuts) {
    const std::vector<u8> truncated(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
    EXPECT_NE(problem(truncated), "") << "cut at " << cut;
  }
  std::vector<u8> longer = bytes;
  longer.push_back(0);
  EXPECT_EQ(problem(longer), "1 bytes after the last section");
}

TEST_F(SnapshotFile, AFlippedByteAnywhereIsRefused) {
  std::mt19937 random(2026);
  for (int i = 0; i < 400; ++i) {
    std::vector<u8> damaged = bytes;
    damaged[random() % damaged.size()] ^= static_cast<u8>(1u << (random() % 8));
    EXPECT_NE(problem(damaged), "");
  }
}

TEST_F(SnapshotFile, AForeignFileOrAnotherVersionIsNamed) {
  std::vector<u8> foreign = bytes;
  foreign[0] = 'Y';
  EXPECT_EQ(problem(foreign), "not an x86lab snapshot (no X86LSNAP magic at its start)");
  std::vector<u8> version = bytes;
  version[8] = static_cast<u8>(kSnapshotVersion + 1);  // another version (the header CRC catches it first)
  EXPECT_EQ(problem(version), "the file header's CRC-32 does not match");
  EXPECT_EQ(problem({}), "not an x86lab snapshot (no X86LSNAP magic at its start)");
}

TEST_F(SnapshotFile, AnotherMachineConfigurationIsRefusedBeforeAnythingChanges) {
  const MachineState state = decode_snapshot(bytes);
  MachineConfig config = rom_config("platform/pc_timer_devices.bin");
  config.memory_mib = 8;
  Machine other(config);
  const std::vector<u8> before = flatten(capture_machine_state(other));
  try {
    restore_machine_state(other, state);
    FAIL() << "restored into 8 MiB";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "saved with --memory 4, not 8");
  }
  EXPECT_EQ(flatten(capture_machine_state(other)), before);
  config.memory_mib = 4;
  config.profile = find_profile("k7");
  config.cost_model = builtin_cost_model("k7");
  Machine k7(config);
  EXPECT_THROW(restore_machine_state(k7, state), InputError);
}

TEST_F(SnapshotFile, ASectionThatDoesNotDecodeIsRefusedBeforeAnythingChanges) {
  MachineState state = decode_snapshot(bytes);
  state.devices.push_back(0);  // one byte too many
  Machine machine(rom_config("platform/pc_timer_devices.bin"));
  const std::vector<u8> before = flatten(capture_machine_state(machine));
  EXPECT_THROW(restore_machine_state(machine, state), InputError);
  EXPECT_EQ(flatten(capture_machine_state(machine)), before);
  state = decode_snapshot(bytes);
  state.cpu[0x60] = 7;  // inside the segment registers: some field out of range or not
  state.cpu.resize(state.cpu.size() - 1);
  EXPECT_THROW(restore_machine_state(machine, state), InputError);
  EXPECT_EQ(flatten(capture_machine_state(machine)), before);
}

}  // namespace
}  // namespace x86lab
