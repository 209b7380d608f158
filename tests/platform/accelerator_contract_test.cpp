// The contract between the reference interpreter (Cpu::step) and the accelerator
// (LinkedRunner, which Cpu::run picks when nothing observes every instruction;
// docs/performance.md "The contract"): over every ROM under roms/tests/ and the two
// test386 images, a machine run with the accelerator ends in the same state as one in
// which a step monitor makes every step go through the reference interpreter: the
// same run result, debug-console bytes, CPU, MMU, device, clock and counter sections
// of a machine snapshot (platform/snapshot/machine_state.h) and the same RAM. The
// reference side is the independent source here: each instruction fetched by a full
// decode-cache look-up and retired through the complete count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "platform/machine.h"
#include "platform/rom_image.h"
#include "platform/snapshot/machine_state.h"
#include "tests/shared_dir.h"

namespace x86lab {
namespace {

namespace fs = std::filesystem;

// Looks at every step: run() then takes the reference interpreter's loop.
struct EveryStep final : StepMonitor {
  void before_step() override {}
};

struct Outcome {
  RunResult result{};
  std::string console;
  MachineState state;
};

// The images rom.* runs (tests/rom/CMakeLists.txt), by their path under the ROM directory.
std::vector<std::string> test_roms() {
  std::vector<std::string> roms;
  const fs::path sources = fs::path(X86LAB_SOURCE_DIR) / "roms" / "tests";
  for (const auto& file : fs::recursive_directory_iterator(sources))
    if (file.path().extension() == ".asm")
      roms.push_back(fs::relative(file.path(), sources).replace_extension(".bin").string());
  std::sort(roms.begin(), roms.end());
  // test386 is built only from ../shared/tests/test386 (roms/guest/test386/CMakeLists.txt):
  // every image that exists is compared (issue 39: a plain clone has none); with the
  // sources there, a missing image fails.
  const bool test386_sources = fs::is_directory(testing::shared_dir() / "tests" / "test386" / "src");
  for (const char* image : {"test386/test386.bin", "test386/test386_rom128.bin"}) {
    if (test386_sources || fs::exists(fs::path(X86LAB_ROM_DIR) / image)) roms.push_back(image);
    else std::printf("AcceleratorContract: %s is not built (no %s/tests/test386/src): not compared\n", image,
                     testing::shared_dir().c_str());
  }
  return roms;
}

Outcome run_rom(const std::string& image, u64 max_steps, bool reference) {
  Outcome outcome;
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* console = open_memstream(&buffer, &size);
  {
    MachineConfig config;
    config.bios = read_rom_image(image);
    config.debug_console = console;
    config.max_instructions = max_steps;
    Machine machine(config);
    EveryStep monitor;
    if (reference) machine.cpu.set_step_monitor(&monitor);
    outcome.result = machine.run();
    machine.cpu.set_step_monitor(nullptr);
    outcome.state = capture_machine_state(machine);
  }
  std::fclose(console);
  outcome.console.assign(buffer, size);
  std::free(buffer);
  return outcome;
}

TEST(AcceleratorContract, EveryTestRomEndsAsUnderTheReferenceInterpreter) {
  const std::vector<std::string> roms = test_roms();
  ASSERT_GE(roms.size(), 25u);  // (the glob found the ROM sources)
  for (const std::string& rom : roms) {
    const std::string image = std::string(X86LAB_ROM_DIR) + "/" + rom;
    // test386 runs on past its POST FFh loop; 3 million steps cover its tests.
    const u64 max_steps = rom.starts_with("test386/") ? 3'000'000 : 50'000'000;
    const Outcome fast = run_rom(image, max_steps, false), reference = run_rom(image, max_steps, true);
    SCOPED_TRACE(rom);
    EXPECT_EQ(fast.result.reason, reference.result.reason);
    EXPECT_EQ(fast.result.exit_status, reference.result.exit_status);
    EXPECT_EQ(fast.console, reference.console);
    EXPECT_EQ(fast.state.steps, reference.state.steps);
    EXPECT_EQ(fast.state.instructions, reference.state.instructions);
    EXPECT_TRUE(fast.state.cpu == reference.state.cpu) << "CPU section";
    EXPECT_TRUE(fast.state.mmu == reference.state.mmu) << "MMU section (TLB, its statistics model)";
    EXPECT_TRUE(fast.state.devices == reference.state.devices) << "devices section";
    EXPECT_TRUE(fast.state.clock == reference.state.clock) << "clock section (modeled cycles, device events)";
    EXPECT_TRUE(fast.state.counters == reference.state.counters) << "counters section";
    ASSERT_EQ(fast.state.ram.size(), reference.state.ram.size());
    for (std::size_t i = 0; i < fast.state.ram.size(); ++i) {
      EXPECT_EQ(fast.state.ram[i].index, reference.state.ram[i].index);
      EXPECT_TRUE(*fast.state.ram[i].bytes == *reference.state.ram[i].bytes) << "RAM page " << fast.state.ram[i].index;
    }
    // A ROM that passes prints PASS (the reference run must not be vacuous).
    if (!rom.starts_with("test386/")) {
      EXPECT_NE(reference.console.find("PASS"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace x86lab
