// The inspector's session going back in time (issue 26; ui/gui/session_time.cpp): the
// Timeline's marks sit at the step of the event (going there and stepping once
// performs it again), a snapshot of another machine is refused with the machine left
// as it was, and without a history going back is refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "platform/input_error.h"
#include "platform/rom_image.h"
#include "ui/gui/session.h"

namespace x86lab::gui {
namespace {

// pm_segment_loads.bin: real mode, MOV CR0 into protected mode, segment loads, then a
// load of a not-present selector that raises #GP (the GUI tests' "first #GP").
SessionOptions segment_rom() {
  SessionOptions options;
  options.config.memory_mib = 1;
  options.config.bios = read_rom_image(std::string(X86LAB_ROM_DIR) + "/protected/pm_segment_loads.bin");
  options.scenarios = "/nonexistent";
  return options;
}

const TimelineMark* first_mark(const Timeline& timeline, TimelineMarkKind kind) {
  for (const TimelineMark& mark : timeline.marks)
    if (mark.kind == kind) return &mark;
  return nullptr;
}

TEST(GuiReverse, TheFaultMarkIsTheStepOfTheDeliveryAndGoingThereReplaysIt) {
  Session session(segment_rom());
  session.debugger().breakpoints().add(Breakpoint::on_vector(13, 13));
  const StopInfo stop = session.run();
  ASSERT_EQ(stop.kind, StopKind::Event) << stop.describe();
  const u64 after = session.machine().cpu.steps();
  const CpuState handler = session.machine().cpu.state;
  const TimelineMark* fault = first_mark(session.timeline(), TimelineMarkKind::Fault);
  ASSERT_NE(fault, nullptr);
  EXPECT_EQ(fault->step, after - 1);  // the delivery is the stop's last step
  const u64 fault_step = fault->step;
  ASSERT_TRUE(session.go_to_step(fault_step));
  EXPECT_EQ(session.machine().cpu.steps(), fault_step);
  EXPECT_NE(session.machine().cpu.state.eip, handler.eip);
  session.step_into(1);
  EXPECT_EQ(session.machine().cpu.state.eip, handler.eip);
  EXPECT_EQ(session.machine().cpu.state.segments[CS].selector, handler.segments[CS].selector);
  EXPECT_EQ(session.machine().cpu.state.gpr, handler.gpr);

  // The mode change: at its step the next instruction is MOV CR0, r32 (0F 22 /0, SDM
  // Vol. 2 "MOV—Move to/from Control Registers"), and CR0.PE is still clear.
  const TimelineMark* mode = first_mark(session.timeline(), TimelineMarkKind::ModeChange);
  ASSERT_NE(mode, nullptr);
  EXPECT_LT(mode->step, fault_step);
  ASSERT_TRUE(session.go_to_step(mode->step));
  u8 bytes[3] = {};
  ASSERT_EQ(session.debugger().read_linear(session.debugger().pc_linear(), bytes), 3u);
  EXPECT_EQ(bytes[0], 0x0F);
  EXPECT_EQ(bytes[1], 0x22);
  EXPECT_EQ((bytes[2] >> 3) & 7, 0);  // reg field: CR0
  EXPECT_EQ(session.machine().cpu.state.cr0 & 1, 0u);
  session.step_into(1);
  EXPECT_EQ(session.machine().cpu.state.cr0 & 1, 1u);
}

TEST(GuiReverse, StepBackAtTheStartOfTheHistoryStaysThere) {
  Session session(segment_rom());
  session.step_into(2);
  EXPECT_EQ(session.step_back(5).kind, StopKind::HistoryBegin);
  EXPECT_EQ(session.machine().cpu.steps(), 0u);
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF0u);  // the reset EIP (SDM "Processor State After Reset")
}

TEST(GuiReverse, ASnapshotOfAnotherMachineIsRefusedAndChangesNothing) {
  const std::string path = (std::filesystem::temp_directory_path() / "gui_reverse_test.snap").string();
  {
    SessionOptions two_mib = segment_rom();
    two_mib.config.memory_mib = 2;
    Session other(two_mib);
    other.step_into(10);
    other.save_snapshot(path);
  }
  Session session(segment_rom());
  session.step_into(3);
  const u32 eip = session.machine().cpu.state.eip;
  session.apply({.kind = CommandKind::LoadSnapshot, .text = path});
  EXPECT_NE(session.message().find("snapshot '" + path + "'"), std::string::npos) << session.message();
  EXPECT_EQ(session.machine().cpu.steps(), 3u);
  EXPECT_EQ(session.machine().cpu.state.eip, eip);
  std::filesystem::remove(path);
}

TEST(GuiReverse, WithoutAHistoryGoingBackIsRefused) {
  SessionOptions options = segment_rom();
  options.history_mib = 0;
  Session session(options);
  session.step_into(2);
  EXPECT_THROW(session.step_back(1), InputError);
  session.apply({CommandKind::StepBack});
  EXPECT_EQ(session.message(), "going back needs the snapshot history (--history-mib is 0)");
  EXPECT_EQ(session.machine().cpu.steps(), 2u);
}

}  // namespace
}  // namespace x86lab::gui
