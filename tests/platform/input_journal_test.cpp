// Record and replay at machine level (platform/replay/input_journal.h, docs/snapshots.md
// "Record and replay") on roms/guest/multiboot/keyboard_kernel.elf, which polls the 8042
// with interrupts off, echoes the keys on the VGA text screen and sends each line to
// COM1: keys typed into a recording machine at a step are given again at that step when
// the machine re-executes after going back, by a replaying machine, and by a machine
// restored from a snapshot file saved in the replay; a snapshot of another run is refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "platform/input_error.h"
#include "platform/replay/input_journal.h"
#include "platform/snapshot/history.h"
#include "platform/snapshot/snapshot_file.h"
#include "tests/platform/debugger_fixture.h"

namespace x86lab {
namespace {

constexpr u64 kTypedAt = 200'000;  // the kernel waits at its prompt by then (tests/gui "vga_keyboard")
constexpr u64 kEnd = 500'000;

using debugger_test::everything;

struct KeyboardMachine {
  InputJournal journal;
  MachineConfig config;
  std::unique_ptr<Machine> machine;
  SnapshotHistory history{u64{64} << 20, 50'000};
  std::unique_ptr<Debugger> debugger;
  KeyboardMachine(InputJournal::Mode mode, InputLog log) : journal(mode, std::move(log)) {
    config.kernel.kernel_path = std::string(X86LAB_ROM_DIR) + "/multiboot/keyboard_kernel.elf";
    config.inputs = &journal;
    machine = std::make_unique<Machine>(config);
    debugger = std::make_unique<Debugger>(*machine);
    debugger->set_snapshot_history(&history);
  }
  // As the inspector's VGA text screen does (ui/gui/session.cpp, GuestKey).
  void tap(u8 set1) {
    for (bool released : {false, true}) {
      journal.record_key(set1, false, released);
      machine->devices->keyboard_controller.key(set1, false, released);
      debugger->state_changed();
    }
  }
  std::string screen() const { return machine->devices->vga.text(); }
};

// "hi" and Enter typed at kTypedAt, run on to kEnd.
struct Recorded {
  KeyboardMachine k{InputJournal::Mode::Record, {}};
  std::vector<u8> at_end;
  Recorded() {
    k.debugger->run(kTypedAt);
    for (u8 key : {0x23, 0x17, 0x1C}) k.tap(key);  // H, I, Enter
    k.debugger->run(kEnd - kTypedAt);
    EXPECT_EQ(k.machine->cpu.steps(), kEnd);
    at_end = everything(*k.machine);
  }
};

TEST(InputJournal, TheTypedKeysReachTheGuest) {
  Recorded r;
  EXPECT_NE(r.k.screen().find("kbd> hi"), std::string::npos) << r.k.screen();
  ASSERT_EQ(r.k.journal.log().keys.size(), 6u);
  EXPECT_EQ(r.k.journal.log().keys[0].at.step, kTypedAt);
  EXPECT_EQ(r.k.journal.log().keys[0].set1, 0x23);
  EXPECT_TRUE(r.k.journal.log().keys[1].released);
}

TEST(InputJournal, GoingBackAcrossARecordedKeyAndForwardAgainGivesTheOriginalRun) {
  Recorded r;
  ASSERT_TRUE(r.k.debugger->go_to_step(kTypedAt - 50'000));
  EXPECT_EQ(r.k.screen().find("kbd> hi"), std::string::npos);
  EXPECT_EQ(r.k.journal.cursor(), (InputCursor{0, 0}));  // the restored snapshot's
  r.k.debugger->run(kEnd - r.k.machine->cpu.steps());  // forward across the keys, no snapshot on the way
  EXPECT_EQ(r.k.journal.cursor(), (InputCursor{0, 6}));
  EXPECT_EQ(everything(*r.k.machine), r.at_end);
  // And back to a step between the keys' and the end: from a snapshot after the keys.
  ASSERT_TRUE(r.k.debugger->go_to_step(kTypedAt + 120'000));
  ASSERT_TRUE(r.k.debugger->go_to_step(kEnd));
  EXPECT_EQ(everything(*r.k.machine), r.at_end);
}

TEST(InputJournal, AReplayingMachineGetsTheKeysAtTheirSteps) {
  Recorded r;
  KeyboardMachine replay(InputJournal::Mode::Replay, InputLog::decode(r.k.journal.log().encode()));
  replay.machine->run_for(kEnd);
  EXPECT_EQ(everything(*replay.machine), r.at_end);
  EXPECT_THROW(replay.journal.record_key(0x1E, false, false), InputError);
  // Without the log the guest sees no key.
  KeyboardMachine none(InputJournal::Mode::Replay, {});
  none.machine->run_for(kEnd);
  EXPECT_NE(everything(*none.machine), r.at_end);
}

TEST(InputJournal, ASnapshotOfTheReplayContinuesWithTheRestOfTheLog) {
  Recorded r;
  const InputLog log = InputLog::decode(r.k.journal.log().encode());
  const std::string path = (std::filesystem::temp_directory_path() / "x86lab_input_journal_test.snap").string();
  {
    KeyboardMachine replay(InputJournal::Mode::Replay, log);
    replay.machine->run_for(kTypedAt);  // the keys are due at the next boundary
    write_snapshot_file(path, capture_machine_state(*replay.machine));
  }
  const MachineState saved = read_snapshot_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(saved.inputs, (InputCursor{0, 0}));
  KeyboardMachine loaded(InputJournal::Mode::Replay, log);
  restore_machine_state(*loaded.machine, saved);
  loaded.machine->run_for(kEnd - kTypedAt);
  EXPECT_EQ(everything(*loaded.machine), r.at_end);
  // A snapshot taken after the keys cannot continue a log that has none.
  KeyboardMachine after(InputJournal::Mode::Replay, log);
  after.machine->run_for(kTypedAt + 10);
  const MachineState late = capture_machine_state(*after.machine);
  EXPECT_EQ(late.inputs, (InputCursor{0, 6}));
  KeyboardMachine other(InputJournal::Mode::Replay, {});
  try {
    restore_machine_state(*other.machine, late);
    ADD_FAILURE() << "restored";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(),
                 "its input position (serial byte 0, key 6) lies outside the replay log (another run's snapshot?)");
  }
}

TEST(InputJournal, TypingAfterGoingBackStartsAnotherFuture) {
  Recorded r;
  ASSERT_TRUE(r.k.debugger->go_to_step(kTypedAt - 50'000));
  r.k.tap(0x1E);  // A, at another step than the recorded keys
  EXPECT_EQ(r.k.journal.log().keys.size(), 2u);
  EXPECT_EQ(r.k.journal.log().keys[0].at.step, kTypedAt - 50'000);
  r.k.debugger->run(kEnd - r.k.machine->cpu.steps());
  EXPECT_NE(r.k.screen().find("kbd> a"), std::string::npos);
}

}  // namespace
}  // namespace x86lab
