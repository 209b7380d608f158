// Faults of executors' data accesses (#GP and #SS from the segment checks, #PF from
// paging) are signalled, not thrown (Cpu::try_read/try_write, cpu/operands.h;
// docs/performance.md): the run loop delivers them after the executor returns, with the
// state a thrown fault leaves. Each test counts the C++ throws (__cxa_throw, wrapped
// here) while the guest runs, checks the fault's values against the SDM, and checks that
// run() leaves the state and counters of as many step() calls.
#include <cxxabi.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <functional>

#include "../segmentation/protected_fixture.h"
#include "cpu_fixture.h"

namespace {
unsigned thrown_count = 0;  // C++ throws in this test program (gtest's own included)
}  // namespace

// Counts every throw, then throws as the C++ runtime's own __cxa_throw does (declared
// by <cxxabi.h> in this namespace).
namespace __cxxabiv1 {
extern "C" void __cxa_throw(void* object, std::type_info* type, void (*destroy)(void*)) {
  ++thrown_count;
  using Throw = void (*)(void*, std::type_info*, void (*)(void*));
  static const Throw runtime_throw = reinterpret_cast<Throw>(dlsym(RTLD_NEXT, "__cxa_throw"));
  runtime_throw(object, type, destroy);
  __builtin_unreachable();
}
}  // namespace __cxxabiv1

namespace x86lab {
namespace {

constexpr u32 P = 1, W = 2, U = 4;

// The throws while `f` runs.
unsigned throws_during(const std::function<void()>& f) {
  const unsigned before = thrown_count;
  f();
  return thrown_count - before;
}

void expect_same_state(const Cpu& a, const Cpu& b) {
  EXPECT_EQ(a.state.gpr, b.state.gpr);
  EXPECT_EQ(a.state.eip, b.state.eip);
  EXPECT_EQ(a.state.eflags, b.state.eflags);
  EXPECT_EQ(a.counters().instructions, b.counters().instructions);
  EXPECT_EQ(a.counters().exceptions_by_vector, b.counters().exceptions_by_vector);
  EXPECT_EQ(a.counters().accesses_by_kind, b.counters().accesses_by_kind);
  EXPECT_EQ(a.clock().cycles(), b.clock().cycles());
}

// 20 rounds of a ring-3 loop whose two accesses through GS lie beyond its limit (FFFh,
// base 30000h): ADD EDX, [GS:2000h] and ADD [GS:2000h], EBX raise #GP(0) (SDM "ADD":
// "If a memory operand effective address is outside the ... segment limit"; Vol. 3
// "Interrupt 13": error code 0 for a limit violation) with EIP at the faulting
// instruction; the ring-0 handler at 1500h counts in ESI, keeps the error code in EDI
// and steps the saved EIP over the 7-byte instruction. Neither access completes: EDX
// stays 5 and linear 32000h is never written.
TEST(DataFault, SegmentLimitFaultsOfMemoryOperandsAreDeliveredWithoutAThrow) {
  testing::Ring3Fixture run, steps;
  for (testing::Ring3Fixture* f : {&run, &steps}) {
    f->put(0x50, testing::descriptor(0x30000, 0xFFF, 0xF2, 0x4));
    f->cpu.state.gdtr.limit = 0x57;
    f->code(0x1100, {0x66, 0xB8, 0x53, 0x00,                    // mov ax, 53h
                     0x8E, 0xE8,                                // mov gs, ax
                     0x65, 0x03, 0x15, 0x00, 0x20, 0x00, 0x00,  // loop: add edx, [gs:2000h] (#GP)
                     0x65, 0x01, 0x1D, 0x00, 0x20, 0x00, 0x00,  // add [gs:2000h], ebx (#GP)
                     0x43,                                      // inc ebx
                     0x49,                                      // dec ecx
                     0x75, 0xEE,                                // jnz loop
                     0xEB, 0xFE});                              // jmp $
    f->code(0x1500, {0x46,                                      // handler: inc esi
                     0x8B, 0x3C, 0x24,                          // mov edi, [esp] (the error code)
                     0x83, 0x44, 0x24, 0x04, 0x07,              // add dword [esp+4], 7
                     0x83, 0xC4, 0x04,                          // add esp, 4
                     0xCF});                                    // iretd
    f->poke32(0x32000, 0xA5A5A5A5);
    f->enter_ring3();
    f->cpu.state.gpr[EDX] = 5;
    f->cpu.state.gpr[EBX] = f->cpu.state.gpr[ESI] = 0;
    f->cpu.state.gpr[EDI] = 0xFFFFFFFF;
    f->cpu.state.gpr[ECX] = 10;
  }
  EXPECT_EQ(throws_during([&] { run.cpu.run(400); }), 0u);
  EXPECT_EQ(throws_during([&] { steps.steps(400); }), 0u);
  EXPECT_EQ(run.cpu.state.gpr[ESI], 20u);
  EXPECT_EQ(run.cpu.state.gpr[EBX], 10u);
  EXPECT_EQ(run.cpu.state.gpr[EDX], 5u);
  EXPECT_EQ(run.cpu.state.gpr[EDI], 0u);
  EXPECT_EQ(run.cpu.state.eip, 0x1118u);
  EXPECT_EQ(run.counters.exceptions_by_vector[13], 20u);
  EXPECT_EQ(run.peek32(0x32000), 0xA5A5A5A5u);
  expect_same_state(run.cpu, steps.cpu);
}

// Paging maps the first MiB to itself for ring 3, but for the not-present page 31000h.
// The ring-3 code at 1100h (`program`, then JMP $) faults once; the #PF handler at 1600h
// keeps the error code at 6004h, CR2 at 6008h and the EFLAGS image at 600Ch, and steps
// the saved EIP over `length` bytes.
struct PageFaultRun {
  testing::Ring3Fixture run, steps;
  PageFaultRun(std::initializer_list<u8> program, u8 length, const std::function<void(testing::Ring3Fixture&)>& setup) {
    for (testing::Ring3Fixture* f : {&run, &steps}) {
      for (u32 page = 0; page < 256; ++page) f->poke32(0x21000 + page * 4, page == 0x31 ? 0 : page << 12 | P | W | U);
      f->poke32(0x20000, 0x21000 | P | W | U);
      f->cpu.state.cr3 = 0x20000;
      f->cpu.state.cr0 |= cr0::PG;
      f->cpu.sync_paging();
      f->code(0x1100, program);
      f->code(static_cast<u32>(0x1100 + program.size()), {0xEB, 0xFE});  // jmp $
      f->put_idt(14, testing::gate(testing::kCode, 0x1600, 0x8E));
      f->code(0x1600, {0x50,                                // handler: push eax
                       0x8B, 0x44, 0x24, 0x04,              // mov eax, [esp+4] (the error code)
                       0xA3, 0x04, 0x60, 0x00, 0x00,        // mov [6004h], eax
                       0x0F, 0x20, 0xD0,                    // mov eax, cr2
                       0xA3, 0x08, 0x60, 0x00, 0x00,        // mov [6008h], eax
                       0x8B, 0x44, 0x24, 0x10,              // mov eax, [esp+16] (the EFLAGS image)
                       0xA3, 0x0C, 0x60, 0x00, 0x00,        // mov [600Ch], eax
                       0x58,                                // pop eax
                       0x83, 0x44, 0x24, 0x04, length,      // add dword [esp+4], length
                       0x83, 0xC4, 0x04,                    // add esp, 4
                       0xCF});                              // iretd
      f->enter_ring3();
      for (u8 segment : {DS, ES}) f->cpu.load_segment(segment, testing::kUserData);  // (IRET made them null)
      setup(*f);
    }
    EXPECT_EQ(throws_during([&] { run.cpu.run(100); }), 0u);
    EXPECT_EQ(throws_during([&] { steps.steps(100); }), 0u);
    EXPECT_EQ(run.counters.exceptions_by_vector[14], 1u);
    EXPECT_EQ(run.cpu.state.eip, static_cast<u32>(0x1100 + program.size()));
    expect_same_state(run.cpu, steps.cpu);
  }
  u32 error_code() const { return run.peek32(0x6004); }
  u32 cr2() const { return run.peek32(0x6008); }
  u32 eflags_image() const { return run.peek32(0x600C); }
  // A string element's read at 31000h faulted (#PF, error code 4: a user read of a
  // not-present page) with ECX and EDI as given and ESI at the page.
  void expect_string_read_fault(u32 ecx, u32 edi) const {
    EXPECT_EQ(error_code(), 4u);
    EXPECT_EQ(cr2(), 0x31000u);
    EXPECT_EQ(run.cpu.state.gpr[ECX], ecx);
    EXPECT_EQ(run.cpu.state.gpr[ESI], 0x31000u);
    EXPECT_EQ(run.cpu.state.gpr[EDI], edi);
  }
};

// A dword store at 30FFEh whose second page is not present: #PF with CR2 31000h (the
// address in the page that faulted) and error code 6 (P = 0, W/R = 1, U/S = 1; SDM Vol.
// 3 "Interrupt 14"); neither page is written.
TEST(DataFault, ASplitStoreIntoANotPresentPageWritesNothing) {
  PageFaultRun f({0x89, 0x45, 0x00}, 3, [](testing::Ring3Fixture& r) {  // mov [ebp], eax
    r.poke32(0x30FFC, 0xAABBCCDD);
    r.cpu.state.gpr[EBP] = 0x30FFE;
    r.cpu.state.gpr[EAX] = 0x11223344;
  });
  EXPECT_EQ(f.error_code(), 6u);
  EXPECT_EQ(f.cr2(), 0x31000u);
  EXPECT_EQ(f.run.peek32(0x30FFC), 0xAABBCCDDu);
}

// REP MOVSB from 30FF0h, 20h bytes: the 16 bytes before the not-present page are
// copied, then #PF (error code 4) with ECX, ESI and EDI as they are after those 16
// elements (SDM "REP": the registers allow the
// instruction to resume).
TEST(DataFault, RepMovsStopsAtTheElementThatFaults) {
  PageFaultRun f({0xF3, 0xA4}, 2, [](testing::Ring3Fixture& r) {  // rep movsb
    for (u32 i = 0; i < 16; ++i) r.bus.poke(0x30FF0 + i, static_cast<u8>(0x10 + i));
    r.poke32(0x32010, 0xEEEEEEEE);
    r.cpu.state.gpr[ESI] = 0x30FF0;
    r.cpu.state.gpr[EDI] = 0x32000;
    r.cpu.state.gpr[ECX] = 0x20;
  });
  f.expect_string_read_fault(0x10, 0x32010);
  EXPECT_EQ(f.run.peek32(0x3200C), 0x1F1E1D1Cu);
  EXPECT_EQ(f.run.peek32(0x32010), 0xEEEEEEEEu);
}

// STC, then REPE CMPSB over two equal bytes before the not-present page: the third
// element faults (#PF, error code 4) with ECX 6, and the EFLAGS image keeps the flags
// from before the instruction (CF = 1, ZF = 0), not those of the equal comparisons (the
// Intel host's behaviour, QUIRK in cpu/exec_string.cpp).
TEST(DataFault, RepeCmpsFaultKeepsTheFlagsFromBeforeTheInstruction) {
  PageFaultRun f({0xF9, 0xF3, 0xA6}, 2, [](testing::Ring3Fixture& r) {  // stc; repe cmpsb
    r.bus.poke(0x30FFE, 0x42);
    r.bus.poke(0x30FFF, 0x43);
    r.bus.poke(0x32000, 0x42);
    r.bus.poke(0x32001, 0x43);
    r.cpu.state.gpr[ESI] = 0x30FFE;
    r.cpu.state.gpr[EDI] = 0x32000;
    r.cpu.state.gpr[ECX] = 8;
  });
  f.expect_string_read_fault(6, 0x32002);
  EXPECT_EQ(f.eflags_image() & (flag::CF | flag::ZF), flag::CF);
}

}  // namespace
}  // namespace x86lab
