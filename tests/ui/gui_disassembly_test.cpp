// The Disassembly window's model: our disassembler's text (cpu/disassembler.h) for bytes read by peek (values from
// docs/toolchain.md section 3), labels and branch targets from ELF symbols, and the
// lines before EIP landing exactly on EIP.
#include <gtest/gtest.h>

#include "tests/ui/gui_test_memory.h"
#include "ui/gui/disassembly_model.h"
#include "ui/gui/trace_ring.h"

namespace x86lab::gui {
namespace {

DisassemblyLine one(std::vector<u8> bytes, u32 offset, bool code32) { return disassemble_one(bytes, offset, code32); }

TEST(GuiDisassembly, DecodesInTheTraceNotation) {
  EXPECT_EQ(one({0x8B, 0x44, 0x24, 0x04}, 0, true).text, "mov eax, [esp+4]");
  EXPECT_EQ(one({0x8B, 0x44, 0x24, 0x04}, 0, true).length, 4);
  EXPECT_EQ(one({0xEA, 0x00, 0x00, 0x10, 0x00, 0x08, 0x00}, 0, true).text, "jmp 0008:00100000");
  EXPECT_EQ(one({0xB8, 0x34, 0x12}, 0, false).text, "mov ax, 1234h");
  EXPECT_EQ(one({0x0F, 0x20, 0xC0}, 0, true).text, "mov eax, cr0");
  const DisassemblyLine bad = one({0x0F, 0xFF}, 0, true);
  EXPECT_FALSE(bad.valid);
  EXPECT_EQ(bad.length, 1);
}

TEST(GuiDisassembly, RelativeBranchesWrapAt64KiBInRealMode) {
  // docs/toolchain.md: E9 00 90 at 7C00h is "jmp 0x0C03" in 16-bit code.
  const DisassemblyLine line = one({0xE9, 0x00, 0x90}, 0x7C00, false);
  EXPECT_EQ(line.text, "jmp 0C03");
  EXPECT_EQ(line.target, "C03");  // the target offset, named by disassemble_around when symbols exist
}

TEST(GuiDisassembly, SymbolsNameLabelsAndBranchTargets) {
  GuiTestMemory memory;
  PhysicalBus& bus = memory.bus;
  const Mmu& mmu = memory.mmu;
  // 1000h: nop; nop; call 1010h; nop ... 1010h: ret
  const u8 code[] = {0x90, 0x90, 0xE8, 0x09, 0x00, 0x00, 0x00, 0x90};
  bus.load(0x1000, code);
  bus.poke(0x1010, 0xC3);
  ElfSymbols symbols;
  symbols.add(0x1000, 8, "main");
  symbols.add(0x1010, 1, "helper");
  EXPECT_EQ(symbols.describe(0x1004), "main+0x4");
  EXPECT_EQ(symbols.describe(0x1010), "helper");
  EXPECT_EQ(symbols.describe(0x1011), "");  // past helper's one byte
  const auto lines = disassemble_around(mmu, 0, 0x1002, true, 4, 0, &symbols);
  ASSERT_EQ(lines.size(), 3u);  // two NOPs before EIP, the CALL at EIP
  EXPECT_EQ(lines[0].label, "main");
  EXPECT_EQ(lines[0].offset, 0x1000u);
  EXPECT_EQ(lines[2].offset, 0x1002u);
  EXPECT_EQ(lines[2].text, "call 00001010");
  EXPECT_EQ(lines[2].target, "helper");
}

TEST(GuiDisassembly, LinesBeforeEipLandExactlyOnEipWithoutSymbols) {
  GuiTestMemory memory;
  PhysicalBus& bus = memory.bus;
  const Mmu& mmu = memory.mmu;
  // mov eax, 12345678h (5 bytes); push 1 (2); add eax, ebx (2); EIP at the next.
  const u8 code[] = {0xB8, 0x78, 0x56, 0x34, 0x12, 0x6A, 0x01, 0x01, 0xD8, 0xC3};
  bus.load(0x2000, code);
  const auto lines = disassemble_around(mmu, 0, 0x2009, true, 3, 1, nullptr);
  ASSERT_GE(lines.size(), 3u);
  const auto at_eip = std::find_if(lines.begin(), lines.end(), [](const auto& l) { return l.offset == 0x2009; });
  ASSERT_NE(at_eip, lines.end());
  EXPECT_EQ(at_eip->text, "ret");
  EXPECT_EQ(std::prev(at_eip)->text, "add eax, ebx");
  EXPECT_EQ(std::prev(at_eip, 2)->text, "push 1");
}

}  // namespace
}  // namespace x86lab::gui

namespace x86lab::gui {
namespace {

// Stopped at 0008:000F00D0 (32-bit code, base 0) right after the switch to protected
// mode: the lines before are the 16-bit code that switched (roms/demo.asm's shape), and
// the trace saw them run at F000:00C5 and F000:00C8. Issue 27: they were decoded as
// 32-bit code ("jmp 000F:00D0").
TEST(GuiDisassembly, CodeThatRanAs16BitIsDecodedAsItRan) {
  GuiTestMemory memory;
  const u8 code[] = {0x0F, 0x22, 0xC0,                                     // F00C5 mov cr0, eax
                     0x66, 0xEA, 0xD0, 0x00, 0x0F, 0x00, 0x08, 0x00,       // F00C8 jmp far 0008:000F00D0
                     0xB8, 0x18, 0x00, 0x00, 0x00};                        // F00D0 mov eax, 18h
  memory.bus.load(0xF00C5, code);
  ExecutedCode executed;
  executed[0xF00C5] = {0xF000, 0xC5, 3, false};
  executed[0xF00C8] = {0xF000, 0xC8, 8, true};  // CS is 32-bit right after the far jump
  const auto lines = disassemble_around(memory.mmu, 0, 0xF00D0, true, 2, 0, nullptr, &executed, 0x0008);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text, "mov cr0, eax");
  EXPECT_EQ(lines[0].offset, 0xC5u);
  EXPECT_EQ(lines[0].ran_cs, u16{0xF000});
  EXPECT_FALSE(lines[0].code32);
  EXPECT_EQ(lines[1].text, "jmp 0008:000F00D0");
  EXPECT_EQ(lines[1].length, 8);
  EXPECT_FALSE(lines[1].code32);
  EXPECT_EQ(lines[2].text, "mov eax, 18h");
  EXPECT_FALSE(lines[2].ran_cs);
  EXPECT_TRUE(lines[2].code32);
  // Without the trace, the same bytes as 32-bit code give another far jump.
  EXPECT_EQ(disassemble_one(std::span<const u8>(code + 3, 8), 0xF00C8, true).text, "jmp 000F:00D0");
}

TEST(GuiDisassembly, TheCodeSizeIsCsDBitOutsideVirtual8086Mode) {
  CpuState state;
  state.segments[CS].cache.db = true;
  EXPECT_TRUE(code_is_32bit(state));
  state.eflags |= 1u << 17;  // EFLAGS.VM: V86 code is 16-bit whatever the cache holds
  EXPECT_FALSE(code_is_32bit(state));
  state.eflags = 2;
  state.segments[CS].cache.db = false;
  EXPECT_FALSE(code_is_32bit(state));
}

TEST(GuiTraceRing, RecordsWhereAndInWhichCodeSizeInstructionsRan) {
  CpuState cpu;
  TraceRing ring(16, &cpu);
  Event event;
  event.kind = EventKind::Instruction;
  event.a = 0xF000;
  event.b = 0xC5;
  event.c = 0xF00C5;
  event.size = 3;
  ring.write(event);  // CS's cache has D = 0
  cpu.segments[CS].cache.db = true;
  event.a = 0x0008;
  event.b = event.c = 0xF00D0;
  event.size = 5;
  ring.write(event);
  const ExecutedCode code = ring.executed_code();
  ASSERT_EQ(code.size(), 2u);
  EXPECT_FALSE(code.at(0xF00C5).code32);
  EXPECT_EQ(code.at(0xF00C5).cs, 0xF000);
  EXPECT_EQ(code.at(0xF00C5).eip, 0xC5u);
  EXPECT_TRUE(code.at(0xF00D0).code32);
  EXPECT_EQ(code.at(0xF00D0).length, 5);
}

}  // namespace
}  // namespace x86lab::gui
