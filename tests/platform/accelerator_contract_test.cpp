// The contract between the reference interpreter (InstructionCycle::run_reference) and
// the accelerator (LinkedRunner, which Cpu::run picks when nothing observes every
// instruction; docs/performance.md "The contract"): over every ROM under roms/tests/
// and the two test386 images, a machine run with the accelerator ends in the same
// state as one with the decode cache off (Cpu::set_decode_cache(false)): the same run
// result, debug-console bytes, CPU, MMU, device, clock and counter sections of a
// machine snapshot (platform/snapshot/machine_state.h) and the same RAM. The reference
// side is the independent source here: each instruction decoded from its bytes at
// every step (FetchUnit::decode_at), no decode cache at all, and retired through the
// complete count; so a wrong decode-cache entry shows as a difference (the second
// test corrupts one and sees the comparison fail).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "platform/machine.h"
#include "platform/rom_image.h"
#include "platform/snapshot/machine_state.h"
#include "tests/shared_dir.h"

namespace x86lab {
namespace {

namespace fs = std::filesystem;

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

// Runs `bios` for at most `max_steps` steps, with the accelerator or (`reference`)
// with the decode cache off. `after_steps`, when set, is called once after the
// first `pause_at` steps (a test hook into the accelerated machine).
Outcome run_bios(std::vector<u8> bios, u64 max_steps, bool reference, u64 pause_at = 0,
                 const std::function<void(Machine&)>& after_steps = {}) {
  Outcome outcome;
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* console = open_memstream(&buffer, &size);
  {
    MachineConfig config;
    config.bios = std::move(bios);
    config.debug_console = console;
    config.max_instructions = max_steps;
    Machine machine(config);
    if (reference) machine.cpu.set_decode_cache(false);
    if (after_steps) {
      machine.run_for(pause_at);
      after_steps(machine);
    }
    outcome.result = machine.run();
    outcome.state = capture_machine_state(machine);
  }
  std::fclose(console);
  outcome.console.assign(buffer, size);
  std::free(buffer);
  return outcome;
}

// The contract's comparison: what differs between the two outcomes, one line each
// (empty: they end alike).
std::vector<std::string> differences(const Outcome& fast, const Outcome& reference) {
  std::vector<std::string> found;
  const auto check = [&](bool same, const std::string& what) {
    if (!same) found.push_back(what);
  };
  check(fast.result.reason == reference.result.reason, "run result");
  check(fast.result.exit_status == reference.result.exit_status, "exit status");
  check(fast.console == reference.console, "debug console");
  check(fast.state.steps == reference.state.steps, "steps");
  check(fast.state.instructions == reference.state.instructions, "instructions");
  check(fast.state.cpu == reference.state.cpu, "CPU section");
  check(fast.state.mmu == reference.state.mmu, "MMU section (TLB, its statistics model)");
  check(fast.state.devices == reference.state.devices, "devices section");
  check(fast.state.clock == reference.state.clock, "clock section (modeled cycles, device events)");
  check(fast.state.counters == reference.state.counters, "counters section");
  check(fast.state.ram.size() == reference.state.ram.size(), "RAM page count");
  for (std::size_t i = 0; i < std::min(fast.state.ram.size(), reference.state.ram.size()); ++i)
    check(fast.state.ram[i].index == reference.state.ram[i].index &&
              *fast.state.ram[i].bytes == *reference.state.ram[i].bytes,
          "RAM page " + std::to_string(fast.state.ram[i].index));
  return found;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "; ";
  return text;
}

TEST(AcceleratorContract, EveryTestRomEndsAsUnderTheReferenceInterpreter) {
  const std::vector<std::string> roms = test_roms();
  ASSERT_GE(roms.size(), 25u);  // (the glob found the ROM sources)
  for (const std::string& rom : roms) {
    const std::string image = std::string(X86LAB_ROM_DIR) + "/" + rom;
    // test386 runs on past its POST FFh loop; 3 million steps cover its tests.
    const u64 max_steps = rom.starts_with("test386/") ? 3'000'000 : 50'000'000;
    const Outcome fast = run_bios(read_rom_image(image), max_steps, false);
    const Outcome reference = run_bios(read_rom_image(image), max_steps, true);
    SCOPED_TRACE(rom);
    EXPECT_TRUE(differences(fast, reference).empty()) << joined(differences(fast, reference));
    // A ROM that passes prints PASS (the reference run must not be vacuous).
    if (!rom.starts_with("test386/")) {
      EXPECT_NE(reference.console.find("PASS"), std::string::npos);
    }
  }
}

// A 64 KiB BIOS image whose reset vector (F000:FFF0) jumps to a loop at F000:0100
// that adds 1 to EAX 100 times, writes AL to the debug console (port E9h) and halts
// with IF = 0. Real mode, 16-bit code; hand-assembled (SDM Vol. 2 opcode tables).
constexpr u16 kAddOffset = 0x0106;  // ADD EAX, 1 (66 83 C0 01)
std::vector<u8> counting_loop_bios() {
  std::vector<u8> image(kRomGranule, 0xF4);  // HLT everywhere else
  const std::vector<u8> code = {
      0x66, 0x31, 0xC0,        // 0100: xor eax, eax
      0xB9, 0x64, 0x00,        // 0103: mov cx, 100
      0x66, 0x83, 0xC0, 0x01,  // 0106: add eax, 1
      0xE2, 0xFA,              // 010A: loop 0106
      0xE6, 0xE9,              // 010C: out E9h, al
      0xF4,                    // 010E: hlt
  };
  std::copy(code.begin(), code.end(), image.begin() + 0x100);
  const std::vector<u8> reset = {0xE9, 0x0D, 0x01};  // FFF0: jmp near 0100 (FFF3 + 010Dh)
  std::copy(reset.begin(), reset.end(), image.begin() + 0xFFF0);
  return image;
}

// The comparison fails when the accelerated side runs a decode-cache entry that no
// longer matches its bytes: after 10 steps (the loop's ADD decoded and cached), the
// test hook changes the cached ADD's immediate from 1 to 2; the cache-free reference
// decodes the bytes and still adds 1. Without the corruption the sides agree, so the
// difference is the entry's.
TEST(AcceleratorContract, AWrongDecodeCacheEntryMakesTheComparisonFail) {
  constexpr u64 kMaxSteps = 10'000;
  const Outcome reference = run_bios(counting_loop_bios(), kMaxSteps, true);
  ASSERT_NE(reference.result.reason, RunResult::Reason::InstructionLimit);
  ASSERT_EQ(reference.console, std::string(1, char(100)));  // 100 additions of 1

  const Outcome intact = run_bios(counting_loop_bios(), kMaxSteps, false, 10, [](Machine&) {});
  EXPECT_TRUE(differences(intact, reference).empty()) << joined(differences(intact, reference));

  bool corrupted = false;
  const Outcome broken = run_bios(counting_loop_bios(), kMaxSteps, false, 10, [&](Machine& machine) {
    const u32 physical = (0xFFFF0000u + kAddOffset) & machine.cpu.mmu().bus().a20_mask();
    DecodeCache::Entry* entry = machine.cpu.fetch_unit().decode_cache().find_entry(physical, false);
    if (!entry) return;
    entry->insn.immediate = 2;
    entry->insn.immediate_operand = 2;
    corrupted = true;
  });
  ASSERT_TRUE(corrupted) << "the ADD was not in the decode cache after 10 steps";
  const std::vector<std::string> found = differences(broken, reference);
  EXPECT_FALSE(found.empty());
  EXPECT_NE(std::find(found.begin(), found.end(), "CPU section"), found.end()) << joined(found);
  EXPECT_NE(broken.console, reference.console);
}

}  // namespace
}  // namespace x86lab
