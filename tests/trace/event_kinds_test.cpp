// One test per trace event kind (trace/event.h): a short program on the CPU produces
// the event, and its fields carry the values the SDM and the program's own bytes give.
#include <gtest/gtest.h>

#include <algorithm>

#include "../segmentation/protected_fixture.h"
#include "cpu/disassembler.h"
#include "trace/tracer.h"

namespace x86lab {
namespace {

using testing::descriptor;
using testing::gate;
using testing::kCode;
using testing::ProtectedModeFixture;

struct CollectingSink : TraceSink {
  std::vector<Event>* events;
  explicit CollectingSink(std::vector<Event>* e) : events(e) {}
  void write(const Event& e) override { events->push_back(e); }
  void finish() override {}
};

// Protected mode (tests/segmentation/protected_fixture.h) with every event collected.
struct TracedCpu : ProtectedModeFixture {
  std::vector<Event> events;
  Tracer tracer{{}, {}};
  TracedCpu() {
    tracer.add_sink(std::make_unique<CollectingSink>(&events));
    cpu.set_tracer(&tracer);
  }
  std::vector<Event> of(EventKind kind) const {
    std::vector<Event> out;
    std::copy_if(events.begin(), events.end(), std::back_inserter(out), [&](const Event& e) { return e.kind == kind; });
    return out;
  }
};

TEST(EventKinds, InstructionNamesCsEipBytesAndMnemonic) {
  TracedCpu f;
  f.code(0x1000, {0xB8, 0x78, 0x56, 0x34, 0x12});  // mov eax, 12345678h
  f.cpu.step();
  const auto insns = f.of(EventKind::Instruction);
  ASSERT_EQ(insns.size(), 1u);
  EXPECT_EQ(insns[0].a, kCode);
  EXPECT_EQ(insns[0].b, 0x1000u);
  EXPECT_EQ(insns[0].c, 0x1000u);  // flat CS: linear = EIP
  EXPECT_EQ(insns[0].size, 5);
  EXPECT_EQ(insns[0].bytes[4], 0x12);
  EXPECT_EQ(insns[0].text, "MOV");
  EXPECT_EQ(insns[0].detail, 0);  // CPL
  EXPECT_EQ(insns[0].code_size, 32);  // the fixture's flat code segment has D = 1
  EXPECT_EQ(format_event(insns[0], &instruction_text).substr(format_event(insns[0]).size() - 3),
            "mov eax, 12345678h");
}

TEST(EventKinds, RegisterWriteHasOldAndNewValue) {
  TracedCpu f;
  f.cpu.state.gpr[ECX] = 5;
  f.code(0x1000, {0x41});  // inc ecx
  f.cpu.step();
  const auto writes = f.of(EventKind::RegisterWrite);
  const auto ecx = std::find_if(writes.begin(), writes.end(), [](const Event& e) { return e.detail == ECX; });
  ASSERT_NE(ecx, writes.end());
  EXPECT_EQ(ecx->c, 5u);
  EXPECT_EQ(ecx->value, 6u);
  // INC 5 -> 6 clears ZF, SF, OF, AF and sets PF (6 = 110b has two 1 bits): EFLAGS is register 9.
  EXPECT_TRUE(std::any_of(writes.begin(), writes.end(), [](const Event& e) { return e.detail == 9 && (e.value & flag::PF); }));
}

TEST(EventKinds, MemoryAccessOfAStoreHasAddressesSizeKindAndValue) {
  TracedCpu f;
  f.cpu.state.gpr[EAX] = 0xCAFEF00D;
  f.code(0x1000, {0xA3, 0x00, 0x50, 0x00, 0x00});  // mov [5000h], eax
  f.cpu.step();
  const auto accesses = f.of(EventKind::MemoryAccess);
  const auto store = std::find_if(accesses.begin(), accesses.end(), [](const Event& e) { return e.flags & kEventWrite; });
  ASSERT_NE(store, accesses.end());
  EXPECT_EQ(store->a, 0x5000u);
  EXPECT_EQ(store->b, 0x5000u);
  EXPECT_EQ(store->size, 4);
  EXPECT_EQ(store->detail, static_cast<u8>(AccessKind::Data));
  EXPECT_EQ(store->value, 0xCAFEF00Du);
  EXPECT_FALSE(store->flags & kEventLocked);
}

TEST(EventKinds, SegmentLoadWithAccessedBitClearReportsTheLockedWrite) {
  TracedCpu f;
  f.put(0x40, descriptor(0x12345000, 0xFFF, 0x92, 0x4));  // data, A = 0, byte granular
  f.cpu.state.gdtr.limit = 0x47;
  f.cpu.state.gpr[EAX] = 0x40;
  f.code(0x1000, {0x8E, 0xD8});  // mov ds, ax
  f.cpu.step();
  const auto loads = f.of(EventKind::SegmentLoad);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].detail, DS);
  EXPECT_EQ(loads[0].a, 0x40u);
  EXPECT_EQ(loads[0].b, 0x12345000u);
  EXPECT_EQ(loads[0].c, 0xFFFu);
  EXPECT_TRUE(loads[0].flags & kEventAccessedWritten);
  const auto accesses = f.of(EventKind::MemoryAccess);
  EXPECT_EQ(std::count_if(accesses.begin(), accesses.end(), [](const Event& e) {
              return (e.flags & kEventLocked) && e.detail == static_cast<u8>(AccessKind::DescriptorAccessedBit);
            }), 1);
}

TEST(EventKinds, ExceptionOfIntNHasVectorSourceAndReturnEip) {
  TracedCpu f;
  f.put_idt(0x40, gate(kCode, 0x1400, 0x8E));
  f.code(0x1000, {0xCD, 0x40});  // int 40h
  f.cpu.step();
  const auto exceptions = f.of(EventKind::Exception);
  ASSERT_EQ(exceptions.size(), 1u);
  EXPECT_EQ(exceptions[0].detail, 0x40);
  EXPECT_EQ(exceptions[0].size, static_cast<u8>(EventSource::SoftwareInterrupt));
  EXPECT_EQ(exceptions[0].b, kCode);
  EXPECT_EQ(exceptions[0].c, 0x1002u);
  EXPECT_FALSE(exceptions[0].flags & kEventHasErrorCode);
}

TEST(EventKinds, TaskSwitchByJmpNamesBothTssSelectors) {
  TracedCpu f;
  f.code(0x1000, {0xEA, 0, 0, 0, 0, testing::kTssBSelector, 0});  // jmp far 28h:0
  f.cpu.step();
  const auto switches = f.of(EventKind::TaskSwitch);
  ASSERT_EQ(switches.size(), 1u);
  EXPECT_EQ(switches[0].a, testing::kTssASelector);
  EXPECT_EQ(switches[0].b, testing::kTssBSelector);
  EXPECT_EQ(switches[0].detail, 0);  // JMP
  EXPECT_EQ(f.cpu.state.eip, 0x1300u);
}

TEST(EventKinds, IoWriteHasPortSizeAndValue) {
  TracedCpu f;
  f.cpu.state.gpr[EAX] = 0x5A;
  f.code(0x1000, {0xE6, 0x80});  // out 80h, al
  f.cpu.step();
  const auto io = f.of(EventKind::Io);
  ASSERT_EQ(io.size(), 1u);
  EXPECT_EQ(io[0].a, 0x80u);
  EXPECT_EQ(io[0].size, 1);
  EXPECT_TRUE(io[0].flags & kEventWrite);
  EXPECT_EQ(io[0].value, 0x5Au);
}

TEST(EventKinds, ControlRegisterWriteHasOldAndNewValue) {
  TracedCpu f;
  f.cpu.state.gpr[EAX] = 0x10000;
  f.code(0x1000, {0x0F, 0x22, 0xD8});  // mov cr3, eax
  f.cpu.step();
  const auto writes = f.of(EventKind::ControlRegister);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].detail, 3);
  EXPECT_EQ(writes[0].value, 0x10000u);
  EXPECT_EQ(writes[0].c, 0u);
}

TEST(EventKinds, PageWalkAndTlbMissOfAFirstTouch) {
  TracedCpu f;
  constexpr u32 kPresentWritable = 3;
  for (u32 page = 0; page < 256; ++page) f.poke32(0x11000 + page * 4, page << 12 | kPresentWritable);
  f.poke32(0x11000 + 5 * 4, 0x30000 | kPresentWritable);  // linear 5000h -> physical 30000h
  f.poke32(0x10000, 0x11000 | kPresentWritable);
  f.cpu.state.cr3 = 0x10000;
  f.cpu.state.cr0 |= cr0::PG;
  f.cpu.sync_paging();
  f.code(0x1000, {0xA1, 0x00, 0x50, 0x00, 0x00});  // mov eax, [5000h]
  f.cpu.step();
  const auto walks = f.of(EventKind::PageWalk);
  const auto walk = std::find_if(walks.begin(), walks.end(), [](const Event& e) { return e.a == 0x5000; });
  ASSERT_NE(walk, walks.end());
  EXPECT_EQ(walk->b, 0x30000u);
  // The entries as the walk read them: the PDE already has A from the code fetch's walk
  // (same directory entry); the PTE of the first touch has A clear.
  EXPECT_EQ(walk->value >> 32, 0x11000u | kPresentWritable | 0x20);
  EXPECT_EQ(walk->value & 0xFFFFFFFFu, 0x30000u | kPresentWritable);
  // ... and the walk then sets the PTE's Accessed bit with an implied locked write.
  const auto accesses = f.of(EventKind::MemoryAccess);
  EXPECT_TRUE(std::any_of(accesses.begin(), accesses.end(), [](const Event& e) {
    return (e.flags & kEventLocked) && e.detail == static_cast<u8>(AccessKind::PageTableAD) && e.b == 0x11000u + 5 * 4;
  }));
  const auto misses = f.of(EventKind::TlbMiss);
  EXPECT_TRUE(std::any_of(misses.begin(), misses.end(), [](const Event& e) { return e.a == 0x5000; }));
}

using OneShotPic = testing::OneShotInterrupt;  // vector 50h

TEST(EventKinds, HaltAndWakeNameTheWakingVector) {
  TracedCpu f;
  OneShotPic pic;
  f.connect_interrupt(pic);
  f.cpu.state.eflags |= flag::IF;
  f.code(0x1000, {0xF4});  // hlt
  f.cpu.step();
  ASSERT_EQ(f.of(EventKind::Halt).size(), 1u);
  pic.raised = true;
  f.cpu.notify_interrupt();
  f.cpu.step();
  const auto wakes = f.of(EventKind::Wake);
  ASSERT_EQ(wakes.size(), 1u);
  EXPECT_EQ(wakes[0].detail, 0x50);
  EXPECT_EQ(f.cpu.state.eip, 0x1400u);
}


TEST(EventKinds, RealModeSegmentLoadHasNoDescriptorAndBaseSixteenTimesSelector) {
  testing::CpuFixture f;
  std::vector<Event> events;
  Tracer tracer{{}, {}};
  tracer.add_sink(std::make_unique<CollectingSink>(&events));
  f.cpu.set_tracer(&tracer);
  f.real_mode_at();
  f.cpu.state.gpr[EAX] = 0x1234;
  f.code(0x1000, {0x8E, 0xC0});  // mov es, ax
  f.cpu.step();
  const auto load = std::find_if(events.begin(), events.end(), [](const Event& e) { return e.kind == EventKind::SegmentLoad; });
  ASSERT_NE(load, events.end());
  EXPECT_EQ(load->detail, ES);
  EXPECT_EQ(load->a, 0x1234u);
  EXPECT_EQ(load->b, 0x12340u);  // SDM Vol. 3 "Real-Address Mode Operation": base = selector * 16
  EXPECT_EQ(load->c, 0xFFFFu);   // the limit a real-mode load keeps
  EXPECT_TRUE(load->flags & kEventNoDescriptor);
  EXPECT_NE(format_event(*load).find("no-descriptor"), std::string::npos);
}

}  // namespace
}  // namespace x86lab
