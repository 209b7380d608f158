// Ctrl-C (03h) latency of the gdb stub, end to end and deterministic: a real-mode guest
// writes port 80h and then spins in REP MOVSW (each step a batch of 1024 word moves,
// the costliest step there is). At the port write, on the machine's thread, the test
// sends 03h through the socket and waits until the stub's network thread has queued it
// (ServerOptions::notify), so the pause is asked for at a known step. The stop reply
// must be T02 (SIGINT) and come within Debugger::kSliceSteps = 4096 steps of the port
// write (docs/gdb.md "Ctrl-C"); with the former slices of 65536 steps it came 65535
// steps later. Every wait is bounded; nothing asserts on wall time.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "ui/gdb/gdb_server.h"
#include "tests/gdb/rsp_test_client.h"

namespace x86lab::gdb {
namespace {

// Sends 03h when the guest writes port 80h, and returns to the guest only when the
// stub has queued it.
class CtrlCAtPortWrite final : public TraceSink {
 public:
  CtrlCAtPortWrite(const Cpu& cpu, RspTestClient*& client) : cpu_(cpu), client_(client) {}
  void write(const Event& event) override {
    if (event.kind != EventKind::Io || event.a != 0x80 || !(event.flags & kEventWrite) || !client_) return;
    steps_at_write = cpu_.steps();
    std::unique_lock lock(mutex);
    const u64 before = queued;
    client_->send_raw("\x03");
    queued_in_time = queued_cv.wait_for(lock, std::chrono::seconds(10), [&] { return queued > before; });
  }
  void finish() override {}
  void item_queued() {
    {
      std::lock_guard lock(mutex);
      ++queued;
    }
    queued_cv.notify_all();
  }

  u64 steps_at_write = 0;
  bool queued_in_time = false;
  std::mutex mutex;
  std::condition_variable queued_cv;
  u64 queued = 0;

 private:
  const Cpu& cpu_;
  RspTestClient*& client_;
};

TEST(GdbCtrlC, StopsARepStringSpinWithinTheSliceBound) {
  MachineConfig config;
  config.memory_mib = 1;
  Machine machine(config);
  enter_real_mode_at_10000h(machine, 0);
  const CpuState& s = machine.cpu.state;
  // out 80h, al; again: mov cx, FFFFh; rep movsw (DS:SI -> ES:DI in segment 0); jmp again
  const u8 program[] = {0xE6, 0x80, 0xB9, 0xFF, 0xFF, 0xF3, 0xA5, 0xEB, 0xF9};
  machine.bus.load(0x10000, program);

  RspTestClient* client = nullptr;
  auto sink = std::make_unique<CtrlCAtPortWrite>(machine.cpu, client);
  CtrlCAtPortWrite& ctrl_c = *sink;
  TraceFilter io_only;
  io_only.kinds.reset();
  io_only.kinds.set(static_cast<std::size_t>(EventKind::Io));
  auto tracer = std::make_unique<Tracer>(io_only, TraceTriggers{});
  tracer->add_sink(std::move(sink));
  machine.attach_tracer(std::move(tracer));

  Debugger debugger(machine);
  ServerOptions options;
  options.port = 0;
  options.wait_for_gdb = true;
  options.notify = [&ctrl_c] { ctrl_c.item_queued(); };
  GdbServer server(debugger, options);
  RspTestClient gdb(server.port());
  ASSERT_TRUE(gdb.connected());
  client = &gdb;
  RunResult result{RunResult::Reason::Paused, 0};
  std::thread machine_thread([&] { result = server.serve(); });

  gdb.send_packet("?");
  EXPECT_NE(gdb.expect("$T05"), "");
  gdb.send_packet("c");
  EXPECT_NE(gdb.expect("$T02#"), "");
  gdb.send_packet("k");
  machine_thread.join();

  EXPECT_TRUE(ctrl_c.queued_in_time);
  EXPECT_TRUE(server.killed());
  EXPECT_EQ(result.exit_status, 1);
  const u64 after = machine.cpu.steps() - ctrl_c.steps_at_write;
  EXPECT_GT(after, 0u);
  EXPECT_LE(after, 4096u) << "steps from the Ctrl-C to the stop";
  EXPECT_EQ(Debugger::kSliceSteps, 4096u);
  // The guest was inside its REP MOVSW loop: CS:IP at one of its instructions.
  EXPECT_EQ(s.segments[CS].selector, 0x1000);
  EXPECT_GE(s.eip, 2u);
  EXPECT_LE(s.eip, 7u);
}

}  // namespace
}  // namespace x86lab::gdb
