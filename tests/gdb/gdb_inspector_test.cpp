// `x86lab gui --gdb` without a window: the inspector's session and InspectorLink
// (ui/gdb/gdb_inspector.h) served by the test thread as the frame loop would (tick,
// then serve), with a loopback gdb client. gdb's continue shows as Running, the GUI's
// Pause and a GUI breakpoint are gdb's stop replies, Ctrl-C pauses the session, and
// detach leaves the machine where gdb left it. The guest: a 64 KiB ROM whose reset
// vector (linear FFFFFFF0h) holds inc ax; inc ax; jmp short FFF0h.
#include <gtest/gtest.h>

#include "tests/gdb/rsp_test_client.h"
#include "ui/gdb/gdb_inspector.h"

namespace x86lab::gdb {
namespace {

gui::SessionOptions spin_rom() {
  gui::SessionOptions options;
  options.config.memory_mib = 1;
  options.config.bios.assign(0x10000, 0xF4);
  const u8 code[] = {0x40, 0x40, 0xEB, 0xFC};
  std::copy(std::begin(code), std::end(code), options.config.bios.begin() + 0xFFF0);
  options.scenarios = "/nonexistent";
  options.fixed_machine = true;
  return options;
}

TEST(GdbInspector, GdbAndTheInspectorShareStopsOnOneMachine) {
  gui::Session session(spin_rom());
  ServerOptions options;
  options.port = 0;
  options.wait_for_gdb = true;
  GdbServer server(session.debugger(), options);
  InspectorLink link(session, server);
  InspectorLink::Frame frame = link.serve();
  EXPECT_TRUE(frame.hold);  // --wait-gdb: scripts wait for gdb
  const auto frames = [&] {
    session.tick(0.001);
    frame = link.serve();
  };
  RspTestClient gdb(server.port());
  ASSERT_TRUE(gdb.connected());

  gdb.send_packet("?");
  EXPECT_NE(gdb.expect("$T05", frames), "");
  EXPECT_TRUE(server.attached());

  // gdb's continue: the inspector runs the machine.
  gdb.send_packet("c");
  gdb.expect("+", frames);
  frames();
  EXPECT_EQ(session.run_state(), gui::RunState::Running);
  // The inspector's Pause is gdb's stop (SIGINT).
  session.apply({gui::CommandKind::Pause});
  EXPECT_NE(gdb.expect("$T02#", frames), "");
  EXPECT_EQ(session.run_state(), gui::RunState::Paused);

  // A breakpoint set in the inspector (F9) on the JMP stops gdb's continue with SIGTRAP.
  session.apply({gui::CommandKind::ToggleBreakpoint, 0xFFFFFFF2u});
  gdb.send_packet("c");
  EXPECT_NE(gdb.expect("$T05#", frames), "");
  EXPECT_EQ(session.run_state(), gui::RunState::Paused);
  EXPECT_EQ(session.debugger().last_stop().kind, StopKind::Breakpoint);
  gdb.send_packet("p8");
  EXPECT_NE(gdb.expect("$f2ffffff#", frames), "");  // real mode: linear CS.base + EIP
  session.apply({gui::CommandKind::ToggleBreakpoint, 0xFFFFFFF2u});

  // gdb's stepi is the inspector's Step into.
  const u32 ax = session.machine().cpu.state.gpr[EAX];
  gdb.send_packet("s");
  EXPECT_NE(gdb.expect("$T05#", frames), "");
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF0u);  // the JMP went back
  EXPECT_EQ(session.status(), "step done");
  EXPECT_EQ(session.machine().cpu.state.gpr[EAX], ax);

  // Ctrl-C while the inspector runs the machine for gdb.
  gdb.send_packet("c");
  gdb.expect("+", frames);
  frames();
  EXPECT_EQ(session.run_state(), gui::RunState::Running);
  gdb.send_raw("\x03");
  EXPECT_NE(gdb.expect("$T02#", frames), "");
  EXPECT_EQ(session.run_state(), gui::RunState::Paused);

  // Detach: the machine stays where gdb left it; the script may go on.
  const u32 eip = session.machine().cpu.state.eip;
  gdb.send_packet("D");
  EXPECT_NE(gdb.expect("$OK#", frames), "");
  for (int i = 0; i < 5; ++i) frames();
  EXPECT_FALSE(server.attached());
  EXPECT_FALSE(frame.hold);
  EXPECT_FALSE(frame.quit);
  EXPECT_EQ(session.run_state(), gui::RunState::Paused);
  EXPECT_EQ(session.machine().cpu.state.eip, eip);
}

TEST(GdbInspector, KillClosesTheInspectorAndAVariantLaunchIsRefused) {
  gui::Session session(spin_rom());
  ServerOptions options;
  options.port = 0;
  GdbServer server(session.debugger(), options);
  InspectorLink link(session, server);
  session.apply({gui::CommandKind::LaunchVariant, 0, false, {}, "tls", "flipping"});
  EXPECT_NE(session.message().find("--gdb"), std::string::npos);
  RspTestClient gdb(server.port());
  InspectorLink::Frame frame;
  gdb.send_packet("k");
  gdb.expect("+", [&] { frame = link.serve(); });
  EXPECT_TRUE(frame.quit);
  EXPECT_TRUE(server.killed());
}

}  // namespace
}  // namespace x86lab::gdb
