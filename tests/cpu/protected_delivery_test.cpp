// Delivery rules that guest ROMs cannot reach (no device raises NMI, a triple fault
// stops the machine) or that need an interrupt controller: Intel SDM Vol. 3,
// "Interrupt and Exception Handling", "Nonmaskable Interrupt (NMI)", "Interrupt 8 -
// Double Fault Exception", "Masking Exceptions and Interrupts When Switching Stacks".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "../segmentation/protected_fixture.h"

namespace x86lab {
namespace {

using testing::gate;
using testing::kCode;
using testing::ProtectedModeFixture;

using OneShotPic = testing::OneShotInterrupt;

TEST(Delivery, TripleFaultShutsDownAndReportsTheFaultChain) {
  ProtectedModeFixture f;
  f.cpu.state.idtr = {testing::kIdt, 0};  // no usable IDT entry
  f.code(0x1000, {0xCD, 0x40});           // int 40h
  f.cpu.step();
  EXPECT_TRUE(f.cpu.state.shutdown);
  const auto chain = f.cpu.fault_chain();
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain[0].vector, 13);
  EXPECT_EQ(chain[0].error_code, 0x40u * 8 + 2);      // INT n: IDT bit, no EXT
  EXPECT_EQ(chain[1].vector, 13);
  EXPECT_EQ(chain[1].error_code, 13u * 8 + 2 + 1);    // while delivering #GP: IDT and EXT
  EXPECT_EQ(chain[2].vector, 13);
  EXPECT_EQ(chain[2].error_code, 8u * 8 + 2 + 1);     // while delivering #DF
}

TEST(Delivery, ContributoryFaultWhileDeliveringGpBecomesDoubleFault) {
  ProtectedModeFixture f;
  f.put_idt(13, gate(kCode, 0x1400, 0x0E));  // #GP gate not present
  f.put_idt(8, gate(kCode, 0x1500, 0x8E));
  f.cpu.state.gpr[EAX] = 0x7;                // LDT selector with no LDT
  f.code(0x1000, {0x8E, 0xD8});              // mov ds, ax -> #GP(4)
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.eip, 0x1500u);
  EXPECT_EQ(f.peek32(0x8000 - 16), 0u);        // #DF error code 0
  EXPECT_EQ(f.peek32(0x8000 - 12), 0x1000u);   // CS:EIP of the faulting MOV
}

TEST(Delivery, NmiIsDeliveredThroughVector2AndBlockedUntilIret) {
  ProtectedModeFixture f;
  f.put_idt(2, gate(kCode, 0x1400, 0x8E));
  f.code(0x1000, {0x90, 0x90});
  f.code(0x1400, {0x90, 0xCF});  // nop; iretd
  f.cpu.raise_nmi();
  f.cpu.step();  // NMI delivery
  EXPECT_EQ(f.cpu.state.eip, 0x1400u);
  EXPECT_EQ(f.peek32(0x8000 - 12), 0x1000u);
  f.cpu.raise_nmi();  // blocked: the handler is not interrupted
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.eip, 0x1401u);
  f.cpu.step();  // IRET ends the blocking
  EXPECT_EQ(f.cpu.state.eip, 0x1000u);
  f.cpu.step();  // the second NMI
  EXPECT_EQ(f.cpu.state.eip, 0x1400u);
  EXPECT_EQ(f.counters.exceptions_by_vector[2], 2u);
}

TEST(Delivery, NmiWakesHaltedCpu) {
  ProtectedModeFixture f;
  f.put_idt(2, gate(kCode, 0x1400, 0x8E));
  f.code(0x1000, {0xF4});  // hlt
  f.cpu.step();
  EXPECT_TRUE(f.cpu.state.halted);
  f.cpu.raise_nmi();
  EXPECT_EQ(f.cpu.run(1), StopReason::InstructionLimit);
  EXPECT_FALSE(f.cpu.state.halted);
  EXPECT_EQ(f.cpu.state.eip, 0x1400u);
  EXPECT_EQ(f.peek32(0x8000 - 12), 0x1001u);  // the instruction after HLT
}

TEST(Delivery, StiDelaysAnInterruptByOneInstruction) {
  ProtectedModeFixture f;
  OneShotPic pic;
  f.connect_interrupt(pic);
  f.code(0x1000, {0xFB, 0x90, 0x90});  // sti; nop; nop
  pic.raised = true;
  f.cpu.step();  // STI
  f.cpu.step();  // the shadow: NOP runs first
  EXPECT_EQ(f.cpu.state.eip, 0x1002u);
  f.cpu.step();  // now the interrupt
  EXPECT_EQ(f.cpu.state.eip, 0x1400u);
  EXPECT_EQ(f.peek32(0x8000 - 12), 0x1002u);
}

// Runs `code` at 1000h in one run() of `steps` steps with an interrupt waiting from
// the start; the last step must be its delivery, with `pushed_eip` in the frame.
void expect_interrupt_as_last_step(std::initializer_list<u8> code, u64 steps, u32 pushed_eip) {
  ProtectedModeFixture f;
  OneShotPic pic;
  f.connect_interrupt(pic);
  f.code(0x1000, code);
  pic.raised = true;
  f.cpu.run(steps);
  EXPECT_EQ(f.cpu.state.eip, 0x1400u);
  EXPECT_EQ(f.peek32(0x8000 - 12), pushed_eip);
}

// The same inside one run(): the interrupt check must survive the shadow (it is not
// re-armed after every instruction; the PIC and IF changes arm it).
TEST(Delivery, StiShadowInsideOneRunDelaysTheInterruptByExactlyOneInstruction) {
  expect_interrupt_as_last_step({0xFB, 0x90, 0x90, 0x90}, 3, 0x1002);  // sti; nop (shadow); interrupt
}

// An interrupt waiting while IF = 0 is taken right after the POPF that sets IF, inside
// one run() (POPF has no shadow; SDM "STI" names only STI).
TEST(Delivery, PopfSettingIfInsideOneRunTakesTheWaitingInterruptNext) {
  expect_interrupt_as_last_step({0x68, 0x02, 0x02, 0x00, 0x00, 0x9D, 0x90, 0x90}, 3, 0x1006);  // push 202h; popfd
}

TEST(Delivery, MovSsBlocksInterruptsForOneInstruction) {
  ProtectedModeFixture f;
  OneShotPic pic;
  f.connect_interrupt(pic);
  f.cpu.state.eflags |= flag::IF;
  f.cpu.state.gpr[EAX] = testing::kData;
  f.code(0x1000, {0x8E, 0xD0, 0x90, 0x90});  // mov ss, ax; nop; nop
  f.cpu.step();
  pic.raised = true;
  f.cpu.notify_interrupt();
  f.cpu.step();  // NOP in the shadow
  EXPECT_EQ(f.cpu.state.eip, 0x1003u);
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.eip, 0x1400u);
}

TEST(Delivery, FaultWhileDeliveringAnExternalInterruptHasTheExtBit) {
  ProtectedModeFixture f;
  OneShotPic pic;
  f.connect_interrupt(pic, gate(kCode, 0x1400, 0x0E));  // not present
  f.put_idt(11, gate(kCode, 0x1500, 0x8E));
  f.cpu.state.eflags |= flag::IF;
  f.code(0x1000, {0x90});
  pic.raised = true;
  f.cpu.notify_interrupt();
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.eip, 0x1500u);
  EXPECT_EQ(f.peek32(0x8000 - 16), 0x50u * 8 + 2 + 1);  // IDT | EXT
  EXPECT_EQ(f.peek32(0x8000 - 12), 0x1000u);            // the interrupted instruction
}

TEST(Delivery, SingleStepTrapPushesTheNextInstructionAndSetsBs) {
  ProtectedModeFixture f;
  f.put_idt(1, gate(kCode, 0x1400, 0x8E));
  f.cpu.state.eflags |= flag::TF;
  f.code(0x1000, {0x90, 0x90});
  f.cpu.step();
  f.cpu.step();  // the #DB trap
  EXPECT_EQ(f.cpu.state.eip, 0x1400u);
  EXPECT_EQ(f.peek32(0x8000 - 12), 0x1001u);
  EXPECT_TRUE(f.cpu.state.dr[6] & (1u << 14));
  EXPECT_FALSE(f.cpu.flag_set(flag::TF));
}

// DESIGN.md section 3: "The cache is written in exactly one place (the segment-load
// code)". Scans the layers above segmentation/ for code that writes a cache field.
TEST(DescriptorCache, IsWrittenOnlyBySegmentLoadCode) {
  namespace fs = std::filesystem;
  const std::regex write(R"(cache\s*\.\s*(\w+)\s*(=[^=]|\+=|-=|\|=|&=)|cache\s*\.\s*(load\w*|set_real_mode|compute_valid_range)\s*\()");
  std::vector<std::string> offenders;
  for (const char* layer : {"cpu", "platform", "ui", "mmu", "trace"}) {
    const fs::path root = fs::path(X86LAB_SOURCE_DIR) / layer;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file()) continue;
      const auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".h") continue;
      std::ifstream in(entry.path());
      std::string line;
      for (unsigned n = 1; std::getline(in, line); ++n)
        if (std::regex_search(line, write)) offenders.push_back(entry.path().string() + ":" + std::to_string(n));
    }
  }
  std::ostringstream list;
  for (const auto& o : offenders) list << o << "\n";
  EXPECT_TRUE(offenders.empty()) << "descriptor-cache writes outside segmentation/:\n" << list.str();
}

}  // namespace
}  // namespace x86lab
