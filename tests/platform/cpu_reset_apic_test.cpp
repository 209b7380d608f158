// Every CPU reset of the Machine (port 92h's fast reset, the 8042's reset line, a
// triple fault with reset_on_triple_fault, the debugger's reset) resets the local APIC
// too (Intel SDM Vol. 3, "Local APIC State After Power-Up or Reset": IA32_APIC_BASE
// FEE00900h for the BSP, SVR FFh, the page at the default base), while the I/O APIC
// keeps its state (82093AA data sheet: RESET# of the platform resets it).
#include <gtest/gtest.h>

#include <vector>

#include "platform/debugger/debugger.h"
#include "platform/devices/apic/local_apic.h"
#include "platform/machine.h"

namespace x86lab {
namespace {

enum class ResetPath { Port92, KeyboardController, TripleFault };

// A 64 KiB ROM. First pass (byte 0:0500h is not 5Ah): set it, move the APIC page to
// 00010000h (WRMSR 1Bh), software-enable the APIC (SVR 1FFh) and raise TPR to 20h
// through that page in real mode, then reset by `path`. Second pass: store RDMSR 1Bh's
// EDX:EAX at 0:0600h, write 77h to 1000:00F0h (RAM again after the reset) and write
// 10h to the exit port.
std::vector<u8> apic_reset_rom(ResetPath path) {
  std::vector<u8> code = {
      0x31, 0xC0,                    // xor ax, ax
      0x8E, 0xD8,                    // mov ds, ax
      0x80, 0x3E, 0x00, 0x05, 0x5A,  // cmp byte [0500h], 5Ah
      0x74, 0x00,                    // je second (patched)
      0xC6, 0x06, 0x00, 0x05, 0x5A,  // mov byte [0500h], 5Ah
      0x66, 0xB9, 0x1B, 0x00, 0x00, 0x00,  // mov ecx, 1Bh
      0x66, 0xB8, 0x00, 0x08, 0x01, 0x00,  // mov eax, 00010800h (enable, base 10000h)
      0x66, 0x31, 0xD2,                    // xor edx, edx
      0x0F, 0x30,                          // wrmsr
      0xB8, 0x00, 0x10,                    // mov ax, 1000h
      0x8E, 0xD8,                          // mov ds, ax
      0x66, 0xC7, 0x06, 0xF0, 0x00, 0xFF, 0x01, 0x00, 0x00,  // mov dword [00F0h], 1FFh (SVR)
      0x66, 0xC7, 0x06, 0x80, 0x00, 0x20, 0x00, 0x00, 0x00,  // mov dword [0080h], 20h (TPR)
      0x31, 0xC0,                          // xor ax, ax
      0x8E, 0xD8,                          // mov ds, ax
  };
  const std::size_t je_at = 10;
  // Byte by byte: GCC 12 reports a false -Warray-bounds for vector::insert of an
  // initializer list here.
  auto append = [&code](std::initializer_list<u8> bytes) {
    for (u8 byte : bytes) code.push_back(byte);
  };
  switch (path) {
    case ResetPath::Port92: append({0xB0, 0x01, 0xE6, 0x92}); break;  // mov al, 1; out 92h, al
    case ResetPath::KeyboardController: append({0xB0, 0xFE, 0xE6, 0x64}); break;  // out 64h, FEh
    case ResetPath::TripleFault:  // lidt [0020h] (limit 0), int3: #GP, #DF, shutdown
      append({0x0F, 0x01, 0x1E, 0x20, 0x00, 0xCC});
      break;
  }
  append({0xEB, 0xFE});  // jmp $
  code[je_at] = static_cast<u8>(code.size() - (je_at + 1));
  append({
      0x66, 0xB9, 0x1B, 0x00, 0x00, 0x00,  // second: mov ecx, 1Bh
      0x0F, 0x32,                          // rdmsr
      0x66, 0xA3, 0x00, 0x06,              // mov [0600h], eax
      0x66, 0x89, 0x16, 0x04, 0x06,        // mov [0604h], edx
      0xB8, 0x00, 0x10,                    // mov ax, 1000h
      0x8E, 0xD8,                          // mov ds, ax
      0xC6, 0x06, 0xF0, 0x00, 0x77,        // mov byte [00F0h], 77h
      0xB0, 0x10,                          // mov al, 10h
      0xE6, 0xF4,                          // out F4h, al
      0xF4,                                // hlt
  });
  std::vector<u8> rom(0x10000, 0xF4);
  std::copy(code.begin(), code.end(), rom.begin());
  const u8 reset_jump[] = {0xEA, 0x00, 0x00, 0x00, 0xF0};  // jmp F000:0000
  std::copy(std::begin(reset_jump), std::end(reset_jump), rom.begin() + 0xFFF0);
  return rom;
}

u32 peek32(Machine& machine, u32 address) {
  u32 value = 0;
  for (unsigned i = 0; i < 4; ++i) value |= u32{machine.bus.peek(address + i)} << (8 * i);
  return value;
}

class CpuResetApic : public testing::TestWithParam<ResetPath> {};

TEST_P(CpuResetApic, ResetRestoresTheLocalApicsPowerUpState) {
  MachineConfig config;
  config.bios = apic_reset_rom(GetParam());
  config.max_instructions = 1000;
  config.reset_on_triple_fault = GetParam() == ResetPath::TripleFault;
  Machine machine(config);
  machine.devices->io_apic.write_register(IoApic::kIoRedTbl0 + 2 * 4, 0x31);  // an unmasked entry
  const RunResult result = machine.run();
  ASSERT_EQ(result.reason, RunResult::Reason::ExitPort);
  EXPECT_EQ(result.exit_status, 33);
  EXPECT_EQ(machine.bus.peek(0x500), 0x5A) << "the first pass ran";
  EXPECT_EQ(peek32(machine, 0x600), 0xFEE00900u) << "IA32_APIC_BASE after reset: FEE00000h | enable | BSP";
  EXPECT_EQ(peek32(machine, 0x604), 0u);
  EXPECT_EQ(machine.local_apic->register_value(lapic::kSvr), 0xFFu) << "software-disabled again";
  EXPECT_EQ(machine.local_apic->register_value(lapic::kTpr), 0u);
  EXPECT_EQ(machine.local_apic->register_value(lapic::kLvtLint0), lapic::kLvtMask);
  EXPECT_EQ(machine.bus.peek(0x100F0), 0x77) << "the page left 10000h: RAM answers there again";
  EXPECT_EQ(machine.bus.peek(0x10080), 0x00) << "the first pass's TPR write went to the APIC, not RAM";
  EXPECT_EQ(machine.bus.read<u32>(0xFEE000F0, AccessKind::Data), 0xFFu) << "the page is back at FEE00000h";
  EXPECT_EQ(machine.devices->io_apic.read_register(IoApic::kIoRedTbl0 + 2 * 4), 0x31u)
      << "the I/O APIC is not reset by a CPU reset";
}

INSTANTIATE_TEST_SUITE_P(EveryPath, CpuResetApic,
                         testing::Values(ResetPath::Port92, ResetPath::KeyboardController, ResetPath::TripleFault));

TEST(CpuResetApic, DebuggerResetResetsTheLocalApic) {
  MachineConfig config;
  Machine machine(config);
  ASSERT_TRUE(machine.local_apic->write_apic_base(0x00010800));
  machine.local_apic->write(lapic::kSvr, 4, 0x1FF);
  ASSERT_EQ(machine.local_apic->register_value(lapic::kSvr), 0x1FFu);
  Debugger debugger(machine);
  debugger.reset();
  EXPECT_EQ(machine.local_apic->apic_base(), 0xFEE00900u);
  EXPECT_EQ(machine.local_apic->register_value(lapic::kSvr), 0xFFu);
}

}  // namespace
}  // namespace x86lab
