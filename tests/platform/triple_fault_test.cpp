// A triple fault shuts the CPU down (exit status 1), or with reset_on_triple_fault
// resets it as a PC chipset does, keeping RAM (SDM Vol. 3 "Interrupt 8 - Double Fault
// Exception": a fault while delivering #DF enters shutdown).
#include <gtest/gtest.h>

#include <vector>

#include "platform/machine.h"

namespace x86lab {
namespace {

// A 64 KiB ROM: if the byte at 0:0500h is 5Ah, write 10h to the exit port; otherwise
// set it, load an IDTR with limit 0 and execute INT3 (#GP, then #DF, then shutdown).
std::vector<u8> triple_fault_rom() {
  std::vector<u8> rom(0x10000, 0xF4);
  const u8 code[] = {
      0x31, 0xC0,                    // xor ax, ax
      0x8E, 0xD8,                    // mov ds, ax
      0x80, 0x3E, 0x00, 0x05, 0x5A,  // cmp byte [0500h], 5Ah
      0x74, 0x0D,                    // je pass (+13)
      0xC6, 0x06, 0x00, 0x05, 0x5A,  // mov byte [0500h], 5Ah
      0x0F, 0x01, 0x1E, 0x20, 0x00,  // lidt [0020h]: limit 0, base 0 (zeroed RAM)
      0xCC,                          // int3
      0xEB, 0xFE,                    // jmp $
      0xB0, 0x10,                    // pass: mov al, 10h
      0xE6, 0xF4,                    // out F4h, al
      0xF4,                          // hlt
  };
  std::copy(std::begin(code), std::end(code), rom.begin());
  const u8 reset_jump[] = {0xEA, 0x00, 0x00, 0x00, 0xF0};  // jmp F000:0000
  std::copy(std::begin(reset_jump), std::end(reset_jump), rom.begin() + 0xFFF0);
  return rom;
}

TEST(TripleFault, ShutsTheMachineDownWithStatus1) {
  MachineConfig config;
  config.bios = triple_fault_rom();
  config.max_instructions = 1000;
  Machine machine(config);
  const RunResult result = machine.run();
  EXPECT_EQ(result.reason, RunResult::Reason::Shutdown);
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_EQ(machine.counters.exceptions_by_vector[13], 1u) << "INT3 outside the IDT limit raises #GP";
  EXPECT_EQ(machine.counters.exceptions_by_vector[8], 1u) << "#GP outside the limit escalates to #DF";
}

TEST(TripleFault, ResetsTheCpuAndKeepsRamWhenAsked) {
  MachineConfig config;
  config.bios = triple_fault_rom();
  config.max_instructions = 1000;
  config.reset_on_triple_fault = true;
  Machine machine(config);
  const RunResult result = machine.run();
  EXPECT_EQ(result.reason, RunResult::Reason::ExitPort);
  EXPECT_EQ(result.exit_status, 33);
  EXPECT_EQ(machine.triple_fault_resets(), 1u);
  EXPECT_EQ(machine.bus.peek(0x500), 0x5A);
}

}  // namespace
}  // namespace x86lab
