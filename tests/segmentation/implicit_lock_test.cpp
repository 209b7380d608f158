// The implied locked accesses (Intel SDM Vol. 3, "Automatic Locking"), one test each.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../cpu/cpu_fixture.h"
#include "platform/devices/pic.h"
#include "protected_fixture.h"
#include "trace/tracer.h"

namespace x86lab {
namespace {

// A GDT at 0x2000 with a flat data descriptor at index 2 (A = 0) and a TSS at index 3.
struct ProtectedFixture : testing::CpuFixture {
  ProtectedFixture() {
    const u64 flat_data = 0x00CF92000000FFFFull;
    const u64 tss = 0x0000890030000067ull;  // available 32-bit TSS at 3000h, limit 67h
    for (int i = 0; i < 8; ++i) {
      bus.poke(0x2010 + i, static_cast<u8>(flat_data >> (8 * i)));
      bus.poke(0x2018 + i, static_cast<u8>(tss >> (8 * i)));
    }
    cpu.state.gdtr = {0x2000, 0x1F};
    cpu.state.cr0 |= cr0::PE;
  }
  u8 access_byte(unsigned index) { return bus.peek(0x2000 + index * 8 + 5); }
  u64 locked(AccessKind kind) { return counters.locked_by_kind[static_cast<int>(kind)]; }
};

TEST(ImplicitLock, SegmentLoadSetsAccessedBit) {
  ProtectedFixture f;
  f.cpu.load_segment(DS, 0x10);
  EXPECT_EQ(f.access_byte(2), 0x93);
  EXPECT_EQ(f.locked(AccessKind::DescriptorAccessedBit), 1u);
}

TEST(ImplicitLock, SegmentLoadWithAccessedBitSetMakesNoLockedWrite) {
  ProtectedFixture f;
  f.cpu.load_segment(DS, 0x10);
  f.cpu.load_segment(ES, 0x10);
  EXPECT_EQ(f.locked(AccessKind::DescriptorAccessedBit), 1u);
}

TEST(ImplicitLock, I386ProfileWritesAccessedBitOnEveryLoad) {
  Counters counters;
  PhysicalBus bus{1 << 20, counters};
  PortBus ports{counters};
  Mmu mmu{bus};
  Cpu cpu{mmu, ports, counters, *find_profile("i386-locking")};
  const u64 flat_data = 0x00CF93000000FFFFull;  // A already set
  for (int i = 0; i < 8; ++i) bus.poke(0x2010 + i, static_cast<u8>(flat_data >> (8 * i)));
  cpu.state.gdtr = {0x2000, 0x1F};
  cpu.state.cr0 |= cr0::PE;
  cpu.load_segment(DS, 0x10);
  cpu.load_segment(ES, 0x10);
  EXPECT_EQ(counters.locked_by_kind[static_cast<int>(AccessKind::DescriptorAccessedBit)], 2u);
}

TEST(ImplicitLock, LtrSetsTssBusyBit) {
  ProtectedFixture f;
  f.real_mode_at(0x1000);
  f.cpu.state.cr0 |= cr0::PE;
  f.cpu.state.segments[CS].cache.db = false;
  f.cpu.state.gpr[EAX] = 0x18;
  f.code(0x1000, {0x0F, 0x00, 0xD8});  // ltr ax
  f.cpu.step();
  EXPECT_EQ(f.access_byte(3), 0x8B);
  EXPECT_EQ(f.locked(AccessKind::TssBusyBit), 1u);
  EXPECT_EQ(f.cpu.state.tr.selector, 0x18);
}

TEST(ImplicitLock, XchgWithMemoryIsLockedWithoutPrefix) {
  testing::CpuFixture f;
  f.real_mode_at();
  f.code(0x1000, {0x87, 0x06, 0x00, 0x05});  // xchg [0500h], ax
  f.cpu.state.gpr[EAX] = 0x1234;
  f.bus.poke(0x500, 0x78);
  f.bus.poke(0x501, 0x56);
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.gpr[EAX], 0x5678u);
  EXPECT_EQ(f.bus.peek(0x500), 0x34);
  EXPECT_EQ(f.counters.locked_by_kind[static_cast<int>(AccessKind::XchgMemory)], 1u);
}

TEST(ImplicitLock, LockPrefixMakesOneLockedReadModifyWrite) {
  testing::CpuFixture f;
  f.real_mode_at();
  f.code(0x1000, {0xF0, 0xFF, 0x06, 0x00, 0x05});  // lock inc word [0500h]
  f.cpu.step();
  EXPECT_EQ(f.bus.peek(0x500), 1);
  EXPECT_EQ(f.counters.locked_by_kind[static_cast<int>(AccessKind::LockPrefix)], 1u);
}

}  // namespace
}  // namespace x86lab

// ---- the rules in protected-mode transfers, each against the descriptor bytes ----
namespace x86lab {
namespace {

using testing::ProtectedModeFixture;

TEST(ImplicitLock, FarJumpSetsAccessedBitOfTheCodeDescriptor) {
  ProtectedModeFixture f;
  const u64 before = f.locked(AccessKind::DescriptorAccessedBit);
  f.code(0x1000, {0xEA, 0x00, 0x11, 0x00, 0x00, 0x18, 0x00});  // jmp 0018h:00001100h
  f.cpu.step();
  EXPECT_EQ(f.access_byte(testing::kCode2), 0x9B);
  EXPECT_EQ(f.locked(AccessKind::DescriptorAccessedBit) - before, 1u);
  EXPECT_EQ(f.cpu.state.eip, 0x1100u);
}

TEST(ImplicitLock, StackSegmentLoadSetsAccessedBit) {
  ProtectedModeFixture f;
  f.cpu.state.gpr[EAX] = testing::kStack;
  f.code(0x1000, {0x8E, 0xD0});  // mov ss, ax
  f.cpu.step();
  EXPECT_EQ(f.access_byte(testing::kStack), 0x93);
}

TEST(ImplicitLock, InterruptGateTargetLoadSetsAccessedBit) {
  ProtectedModeFixture f;
  f.put_idt(0x40, testing::gate(testing::kCode2, 0x1200, 0x8E));
  f.code(0x1000, {0xCD, 0x40});  // int 40h
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.eip, 0x1200u);
  EXPECT_EQ(f.access_byte(testing::kCode2), 0x9B);
}

TEST(ImplicitLock, FailedSegmentLoadMakesNoLockedWrite) {
  ProtectedModeFixture f;
  f.put(0x30, testing::descriptor(0, 0xFFFFF, 0x12, 0xC));  // not present
  f.put_idt(11, testing::gate(testing::kCode, 0x1400, 0x8E));
  const u64 before = f.locked(AccessKind::DescriptorAccessedBit);
  f.cpu.state.gpr[EAX] = 0x30;
  f.code(0x1000, {0x8E, 0xD8});  // mov ds, ax -> #NP(30h)
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.eip, 0x1400u);
  EXPECT_EQ(f.access_byte(0x30), 0x12);
  EXPECT_EQ(f.locked(AccessKind::DescriptorAccessedBit), before);
}

TEST(ImplicitLock, LtrOnBusyTssMakesNoLockedWrite) {
  ProtectedModeFixture f;
  f.put_idt(13, testing::gate(testing::kCode, 0x1400, 0x8E));
  const u64 before = f.locked(AccessKind::TssBusyBit);
  f.cpu.state.gpr[EAX] = testing::kTssASelector;  // already busy: LTR raises #GP(20h)
  f.code(0x1000, {0x0F, 0x00, 0xD8});
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.eip, 0x1400u);
  EXPECT_EQ(f.peek32(0x8000 - 16), testing::kTssASelector);  // error code
  EXPECT_EQ(f.locked(AccessKind::TssBusyBit), before);
}

TEST(ImplicitLock, TaskSwitchByJmpClearsOldBusyBitAndSetsNewBusyBit) {
  ProtectedModeFixture f;
  const u64 before = f.locked(AccessKind::TssBusyBit);
  f.code(0x1000, {0xEA, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00});  // jmp 0028h:0 (TSS B)
  f.cpu.step();
  EXPECT_EQ(f.access_byte(testing::kTssASelector), 0x89);
  EXPECT_EQ(f.access_byte(testing::kTssBSelector), 0x8B);
  EXPECT_EQ(f.locked(AccessKind::TssBusyBit) - before, 2u);
  EXPECT_EQ(f.cpu.state.tr.selector, testing::kTssBSelector);
  EXPECT_EQ(f.cpu.state.eip, 0x1300u);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 0x1234u);
  EXPECT_EQ(f.peek32(testing::kTssA + 0x20), 0x1007u);  // saved EIP: after the JMP
}

TEST(ImplicitLock, TaskSwitchByCallLeavesOldBusyBitSet) {
  ProtectedModeFixture f;
  const u64 before = f.locked(AccessKind::TssBusyBit);
  f.code(0x1000, {0x9A, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00});  // call 0028h:0
  f.cpu.step();
  EXPECT_EQ(f.access_byte(testing::kTssASelector), 0x8B);
  EXPECT_EQ(f.access_byte(testing::kTssBSelector), 0x8B);
  EXPECT_EQ(f.locked(AccessKind::TssBusyBit) - before, 1u);
  EXPECT_EQ(f.bus.peek(testing::kTssB) | (f.bus.peek(testing::kTssB + 1) << 8), testing::kTssASelector);  // back link
  EXPECT_TRUE(f.cpu.flag_set(flag::NT));
}

TEST(ImplicitLock, IretTaskReturnClearsBusyBitOfTheTaskLeft) {
  ProtectedModeFixture f;
  f.code(0x1000, {0x9A, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00});  // call 0028h:0
  f.code(0x1300, {0xCF});                                      // iretd (NT = 1)
  f.cpu.step();
  const u64 before = f.locked(AccessKind::TssBusyBit);
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.tr.selector, testing::kTssASelector);
  EXPECT_EQ(f.cpu.state.eip, 0x1007u);
  EXPECT_EQ(f.access_byte(testing::kTssBSelector), 0x89);
  EXPECT_EQ(f.access_byte(testing::kTssASelector), 0x8B);
  EXPECT_EQ(f.locked(AccessKind::TssBusyBit) - before, 1u);
  EXPECT_FALSE(f.cpu.flag_set(flag::NT));
}

TEST(ImplicitLock, TaskGateInTheGdtSetsBusyBitOfItsTss) {
  ProtectedModeFixture f;
  f.code(0x1000, {0xEA, 0x00, 0x00, 0x00, 0x00, 0x38, 0x00});  // jmp 0038h:0 (task gate -> TSS B)
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.tr.selector, testing::kTssBSelector);
  EXPECT_EQ(f.access_byte(testing::kTssBSelector), 0x8B);
  EXPECT_EQ(f.access_byte(testing::kTaskGate), 0x85);  // the gate itself is not written
}

TEST(ImplicitLock, TaskSwitchSetsAccessedBitsOfTheNewTasksSegments) {
  ProtectedModeFixture f;
  f.put(0x30, testing::descriptor(0, 0xFFFFF, 0x92, 0xC));
  f.poke32(testing::kTssB + 0x50, 0x30);  // SS = 30h, Accessed clear
  f.code(0x1000, {0xEA, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00});
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.segments[SS].selector, 0x30);
  EXPECT_EQ(f.access_byte(0x30), 0x93);
}

// SDM "Automatic Locking", "Acknowledging interrupts": while the interrupt controller
// puts the vector on the data bus the processor follows the LOCK semantics. An IRQ from
// the 8259A pair (PC/AT initialisation, master base 50h) taken by the CPU is one locked
// acknowledge cycle, traced with the vector it read.
TEST(ImplicitLock, InterruptAcknowledgeOfAnIrqFromThePicIsOneLockedCycle) {
  struct Collect : TraceSink {
    std::vector<Event>* events;
    explicit Collect(std::vector<Event>* e) : events(e) {}
    void write(const Event& e) override { events->push_back(e); }
    void finish() override {}
  };
  ProtectedModeFixture f;
  std::vector<Event> events;
  Tracer tracer{{}, {}};
  tracer.add_sink(std::make_unique<Collect>(&events));
  f.cpu.set_tracer(&tracer);
  PicPair pic(&f.cpu);
  for (auto [port, value] : {std::pair<u16, u8>{0x20, 0x11}, {0x21, 0x50}, {0x21, 0x04}, {0x21, 0x01},
                             {0xA0, 0x11}, {0xA1, 0x70}, {0xA1, 0x02}, {0xA1, 0x01}})
    pic.write(port, 1, value);
  f.cpu.set_interrupt_controller(&pic);
  f.put_idt(0x50, testing::gate(testing::kCode, 0x1400, 0x8E));
  f.cpu.state.eflags |= flag::IF;
  f.code(0x1000, {0x90});
  pic.set_irq(0, true);
  f.cpu.step();
  ASSERT_EQ(f.cpu.state.eip, 0x1400u);
  EXPECT_EQ(f.locked(AccessKind::InterruptAcknowledge), 1u);
  const auto inta = std::find_if(events.begin(), events.end(), [](const Event& e) {
    return e.kind == EventKind::MemoryAccess && e.detail == static_cast<u8>(AccessKind::InterruptAcknowledge);
  });
  ASSERT_NE(inta, events.end());
  EXPECT_EQ(inta->flags, kEventLocked);
  EXPECT_EQ(inta->value, 0x50u);
  f.cpu.set_tracer(nullptr);
}

}  // namespace
}  // namespace x86lab
