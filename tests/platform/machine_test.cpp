// The machine's virtual clock end to end with the Multiboot timer kernel of
// roms/guest/multiboot/: PIT interrupts through the PIC while HLT waits, RDTSC and the
// PIT agreeing (both from cycles: 1193 PIT clocks at f MHz are f * 1193 / 1.193182
// cycles), the --cpu-mhz scaling, and determinism of whole runs.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <string>

#include "platform/machine.h"

namespace x86lab {
namespace {

struct TimerRun {
  RunResult result;
  std::string console;
  u64 instructions, cycles;
};

// `slice`: 0 for one Machine::run(), else run_for(slice) until the run ends (as `x86lab
// run` does with its progress line, ui/gdb/gdb_options.h RunHooks).
TimerRun run_timer_kernel(u64 cpu_hz, u64 slice = 0) {
  std::FILE* console = std::tmpfile();
  MachineConfig config;
  config.debug_console = console;
  config.cpu_hz = cpu_hz;
  config.max_instructions = 100'000'000;
  config.kernel.kernel_path = std::string(X86LAB_ROM_DIR) + "/multiboot/timer_kernel.elf";
  Machine machine(config);
  RunResult result = slice ? machine.run_for(slice) : machine.run();
  while (slice && result.reason == RunResult::Reason::Paused) result = machine.run_for(slice);
  std::fflush(console);
  std::rewind(console);
  std::string text;
  for (int c; (c = std::fgetc(console)) != EOF;) text += static_cast<char>(c);
  std::fclose(console);
  return {result, text, machine.counters.instructions, machine.cpu.clock().cycles()};
}

u64 cycles_per_interrupt(const std::string& console) {
  std::smatch match;
  if (!std::regex_search(console, match, std::regex("TSC cycles per interrupt ([0-9]+)"))) return 0;
  return std::stoull(match[1]);
}

TEST(MachineClock, TimerKernelTakesPitInterruptsThroughThePicAndPasses) {
  const TimerRun run = run_timer_kernel(500'000'000);
  EXPECT_EQ(run.result.exit_status, 33) << run.console;  // PASS through port F4h
  EXPECT_NE(run.console.find("21 timer interrupts"), std::string::npos) << run.console;
  // 20 ms of virtual time pass while the CPU mostly sleeps in HLT: far more cycles
  // than instructions.
  EXPECT_GT(run.cycles, 10'000'000u);
  EXPECT_LT(run.instructions, 1'000'000u);
}

TEST(MachineClock, RdtscAndPitAgree) {
  // 1193 PIT clocks = 1193 / 1193182 s = 499,924 cycles at 500 MHz.
  const u64 measured = cycles_per_interrupt(run_timer_kernel(500'000'000).console);
  EXPECT_NEAR(static_cast<double>(measured), 499'924.0, 50.0);
}

TEST(MachineClock, CpuFrequencyScalesCyclesPerTimerInterrupt) {
  const u64 measured = cycles_per_interrupt(run_timer_kernel(100'000'000).console);
  EXPECT_NEAR(static_cast<double>(measured), 99'985.0, 50.0);
}

TEST(MachineClock, SameInputGivesTheSameRun) {
  const TimerRun a = run_timer_kernel(500'000'000);
  const TimerRun b = run_timer_kernel(500'000'000);
  EXPECT_EQ(a.console, b.console);
  EXPECT_EQ(a.instructions, b.instructions);
  EXPECT_EQ(a.cycles, b.cycles);
}

TEST(MachineClock, ARunInSlicesIsTheSameRun) {
  const TimerRun whole = run_timer_kernel(500'000'000);
  for (const u64 slice : {1u, 7u, 1000u}) {
    const TimerRun sliced = run_timer_kernel(500'000'000, slice);
    EXPECT_EQ(sliced.result.exit_status, whole.result.exit_status) << slice;
    EXPECT_EQ(sliced.console, whole.console) << slice;
    EXPECT_EQ(sliced.instructions, whole.instructions) << slice;
    EXPECT_EQ(sliced.cycles, whole.cycles) << slice;
  }
}

TEST(MachineClock, HltWithInterruptsEnabledAndNoEventEndsTheRun) {
  // A ROM-less machine would run from open bus; use a kernel-free machine with the
  // CPU placed on "sti; hlt" in RAM instead.
  MachineConfig config;
  config.max_instructions = 1000;
  Machine machine(config);
  machine.bus.poke(0x1000, 0xFB);  // STI
  machine.bus.poke(0x1001, 0xF4);  // HLT
  machine.cpu.state.segments[CS].selector = 0;
  machine.cpu.state.segments[CS].cache.set_real_mode(0);
  machine.cpu.state.eip = 0x1000;
  const RunResult result = machine.run();
  EXPECT_EQ(result.reason, RunResult::Reason::HaltedForever);
  EXPECT_EQ(result.exit_status, 1);
}

TEST(MachineDevices, VgaTextBufferIsDumpedFromTheTextPlanes) {
  MachineConfig config;
  Machine machine(config);
  const char text[] = "Hello VGA";
  for (unsigned i = 0; text[i]; ++i) {
    machine.bus.poke(0xB8000 + 2 * i, static_cast<u8>(text[i]));
    machine.bus.poke(0xB8000 + 2 * i + 1, 0x07);
  }
  machine.bus.poke(0xB8000 + 160, 'x');  // row 1, column 0
  const std::string screen = machine.devices->vga.text();
  EXPECT_EQ(screen.substr(0, screen.find('\n')), "Hello VGA");
  EXPECT_EQ(screen.substr(screen.find('\n') + 1, 2), "x\n");
}

}  // namespace
}  // namespace x86lab
