// The linked run (LinkedRunner, cpu/linked_runner.h, docs/performance.md): inside run(), instructions
// reached through decode-cache successor links skip the per-instruction checks of the
// slow step. It must stop wherever the slow step would act differently, so run(n)
// leaves the same state and counters as n calls of step(). The tests place the event
// that must end the run inside a loop whose links are already made.
#include <gtest/gtest.h>

#include "../segmentation/protected_fixture.h"
#include "cpu_fixture.h"

namespace x86lab {
namespace {

constexpr u32 P = 1, W = 2, U = 4;

// Real-mode addressing (base = selector * 16) with a 32-bit code segment, so that the
// linked run (32-bit code only) is used and a far transfer changes only CS's base.
struct RealMode32 : testing::CpuFixture {
  void start(u32 eip) {
    real_mode_at(eip);
    cpu.state.segments[CS].cache.db = true;
    cpu.state.halted = false;
  }
};

// Every counter the fetch path and the retirement touch, of a CPU run by run() (`a`)
// and of one given the same program in single steps (`b`).
void expect_same_counters(const Cpu& cpu_a, const Cpu& cpu_b) {
  const Counters &a = cpu_a.counters(), &b = cpu_b.counters();
  EXPECT_EQ(a.instructions, b.instructions);
  EXPECT_EQ(cpu_a.clock().cycles(), cpu_b.clock().cycles());
  EXPECT_EQ(a.page_walks, b.page_walks);
  EXPECT_EQ(a.tlb_code_hits, b.tlb_code_hits);
  EXPECT_EQ(a.tlb_code_misses, b.tlb_code_misses);
  EXPECT_EQ(a.tlb_data_hits, b.tlb_data_hits);
  EXPECT_EQ(a.tlb_data_misses, b.tlb_data_misses);
  EXPECT_EQ(a.accesses_by_kind, b.accesses_by_kind);
  EXPECT_EQ(a.opcodes, b.opcodes);
  EXPECT_EQ(a.code_bytes, b.code_bytes);
  EXPECT_EQ(a.code_lines_32, b.code_lines_32);
  EXPECT_EQ(a.code_lines_64, b.code_lines_64);
}

// `n` steps of `run` through run() and of `steps` one by one.
void run_and_step(Cpu& run, Cpu& steps, unsigned n) {
  run.run(n);
  for (unsigned i = 0; i < n; ++i) steps.step();
}

// A loop that alternates between two code segments with the same offsets, 0000:1100
// and 0200:1100 (real-address mode: bases 0 and 2000h), where INC EAX and INC EDX
// differ: each round pushes the other segment and 1100h, jumps far to 0000:1000 and
// returns far from there (SDM "JMP", "RET": in real-address mode they load CS with
// base = selector * 16). The far RET's link to EIP 1100h made for one segment must
// not be taken for the other: the run must look again after a far transfer, whether
// it ran inside the linked run (after the far JMP within segment 0) or in the slow
// step just before it (after the far JMP from segment 0200h ended the run).
TEST(LinkedRun, AFarTransferEndsTheRunWhenItChangesTheCodeSegment) {
  RealMode32 f;
  for (u32 base : {0x0000u, 0x2000u}) {
    const u8 inc = base ? 0x42 : 0x40;  // inc edx : inc eax
    f.code(base + 0x1100, {inc,
                           0x31, 0xFE,                    // xor esi, edi (the other segment)
                           0x49,                          // dec ecx
                           0x74, 0x0D,                    // jz done
                           0x56,                          // push esi
                           0x68, 0x00, 0x11, 0x00, 0x00,  // push 1100h
                           0xEA, 0x00, 0x10, 0, 0, 0, 0,  // jmp far 0000:00001000
                           0xF4});                        // done: hlt
  }
  f.code(0x1000, {0xCB});  // retf (32-bit operands: EIP, then CS)
  f.start(0x1100);
  f.cpu.state.gpr[EDX] = 0;  // reset left the processor signature there
  f.cpu.state.gpr[EDI] = 0x0200;
  f.cpu.state.gpr[ECX] = 100;
  f.cpu.run(10'000);
  EXPECT_TRUE(f.cpu.state.halted);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 50u);
  EXPECT_EQ(f.cpu.state.gpr[EDX], 50u);
  EXPECT_EQ(f.counters.instructions, 99u * 8 + 5);  // 8 per round; the last: 4 and HLT
}

// set_cycle_limit: run() returns before the first instruction at or past the limit.
// Without a cost model every instruction costs one cycle, so a limit of 1000 cycles
// is exactly 1000 instructions of the loop.
TEST(LinkedRun, StopsExactlyAtTheCycleLimit) {
  RealMode32 f;
  f.code(0x1000, {0x40, 0xEB, 0xFD});  // loop: inc eax; jmp loop
  f.start(0x1000);
  f.cpu.set_cycle_limit(1000);
  EXPECT_EQ(f.cpu.run(1'000'000), StopReason::CycleLimit);
  EXPECT_EQ(f.counters.instructions, 1000u);
  EXPECT_EQ(f.cpu.clock().cycles(), 1000u);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 500u);
  EXPECT_EQ(f.cpu.steps(), 1000u);
}

// A port whose fifth write stops the CPU as a signal handler would
// (Cpu::stop_from_signal, Attention::raise_from_signal), in the middle of an
// instruction inside the linked run.
struct SignalAtTheFifthWrite : BusDevice {
  Cpu* cpu = nullptr;
  int writes = 0;
  u32 read(u32, unsigned) override { return 0; }
  void write(u32, unsigned, u32) override {
    if (++writes == 5) cpu->stop_from_signal();
  }
  std::string_view device_name() const override { return "signal"; }
};

// The signal stop ends run() right after the instruction during which it came, as a
// reached cycle limit does (StopReason::CycleLimit), and every run() after it until
// the next set_cycle_limit. From the second round on, OUT runs inside the linked run.
TEST(LinkedRun, ASignalStopEndsTheRunAfterItsInstructionUntilTheNextCycleLimit) {
  RealMode32 f;
  SignalAtTheFifthWrite port;
  port.cpu = &f.cpu;
  f.ports.attach(0x80, 0x80, &port);
  f.code(0x1000, {0x40,         // loop: inc eax
                  0xE6, 0x80,   // out 80h, al
                  0xEB, 0xFB});  // jmp loop
  f.start(0x1000);
  f.cpu.state.gpr[EAX] = 0;
  EXPECT_EQ(f.cpu.run(1'000'000), StopReason::CycleLimit);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 5u);
  EXPECT_EQ(f.cpu.state.eip, 0x1003u);  // after the fifth OUT
  EXPECT_EQ(f.counters.instructions, 14u);
  EXPECT_EQ(f.cpu.run(100), StopReason::CycleLimit);
  EXPECT_EQ(f.counters.instructions, 14u) << "the stop holds until the next cycle limit";
  f.cpu.set_cycle_limit(~u64{0});
  EXPECT_EQ(f.cpu.run(3), StopReason::InstructionLimit);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 6u);
  EXPECT_EQ(f.counters.instructions, 17u);
}

// An interrupt controller whose request appears at its 20th look (a device raising
// its line while the loop runs), vector 50h.
struct RequestAtTheTwentiethLook : InterruptController {
  mutable int looks = 0;  // interrupt_pending() calls while the request was not taken
  bool taken = false;
  bool interrupt_pending() const override { return !taken && ++looks >= 20; }
  u8 acknowledge() override {
    taken = true;
    return 0x50;
  }
};

// STI inside the run (SDM "STI": a waiting interrupt is taken after the instruction
// that follows STI). The run must stop after STI, which asks for an interrupt check,
// so that the controller is looked at once per round, after INC EBX; the 20th look
// delivers the request to the real-mode handler (IVT vector 50h -> 0000:3000h), which
// halts.
TEST(LinkedRun, StiEndsTheRunSoThatTheInterruptCheckFollowsTheNextInstruction) {
  RealMode32 f;
  RequestAtTheTwentiethLook pic;
  f.cpu.set_interrupt_controller(&pic);
  f.poke32(0x50 * 4, 0x0000'3000);  // IVT: offset 3000h, segment 0
  f.code(0x3000, {0xF4});           // handler: hlt
  f.code(0x1000, {0xFB,             // loop: sti
                  0x43,             // inc ebx
                  0xFA,             // cli
                  0x49,             // dec ecx
                  0x75, 0xFA,       // jnz loop
                  0xF4});           // hlt
  f.start(0x1000);
  f.cpu.state.gpr[EBX] = 0;
  f.cpu.state.gpr[ECX] = 100;
  f.cpu.run(10'000);
  EXPECT_TRUE(f.cpu.state.halted);
  EXPECT_EQ(pic.looks, 20);
  EXPECT_EQ(f.cpu.state.gpr[EBX], 20u);
  EXPECT_EQ(f.cpu.state.eip, 0x3001u);
}

// MOV SS inside the run (SDM "MOV": the instruction after a load of SS cannot be
// interrupted). The shadow covers only that instruction: after the run stops at the
// cycle limit behind INC EBX (instruction 1001 = 3 x 333 + 2), a waiting request is
// taken before the next instruction. MOV SS asks for the slow step, which starts the
// next instruction by clearing the shadow; a run that went on after MOV SS would
// leave the shadow set and take the request one instruction late.
TEST(LinkedRun, MovSsEndsTheRunSoThatItsShadowCoversOnlyTheNextInstruction) {
  RealMode32 f;
  f.poke32(0x50 * 4, 0x0000'3000);  // IVT: offset 3000h, segment 0
  f.code(0x3000, {0xF4});           // handler: hlt
  f.code(0x1000, {0x8E, 0xD0,       // loop: mov ss, ax
                  0x43,             // inc ebx
                  0xEB, 0xFB});     // jmp loop
  f.start(0x1000);
  f.cpu.state.gpr[EAX] = f.cpu.state.gpr[EBX] = 0;
  f.cpu.state.eflags |= flag::IF;
  f.cpu.set_cycle_limit(1001);
  ASSERT_EQ(f.cpu.run(1'000'000), StopReason::CycleLimit);
  ASSERT_EQ(f.cpu.state.eip, 0x1003u);  // after INC EBX
  ASSERT_EQ(f.cpu.state.gpr[EBX], 334u);
  RequestAtTheTwentiethLook pic;
  pic.looks = 19;
  f.cpu.set_interrupt_controller(&pic);
  f.cpu.set_cycle_limit(~u64{0});
  f.cpu.step();
  EXPECT_TRUE(pic.taken);
  EXPECT_EQ(f.cpu.state.eip, 0x3000u) << "the request waited behind a stale interrupt shadow";
}

// A store into the run's own code (SDM "Self-Modifying Code"). The loop's store goes
// to the address in a table at 3000h indexed by ECX: to data at 2000h, except in the
// round with ECX = 50, where it writes 5 into the immediate of the ADD that follows.
// Every instruction is linked from the second round on, so the store runs inside a
// linked run. Its write retires the page's decoded instructions, which must end the
// run (its links all share one link key): EDX = 50 x 1 + 50 x 5. A run that went on
// would keep adding 1 through the old entry.
TEST(LinkedRun, AStoreIntoItsOwnCodeEndsTheRun) {
  RealMode32 f;
  f.code(0x1000, {0x8B, 0x3C, 0x8E,                    // loop: mov edi, [esi+ecx*4]
                  0x89, 0x07,                          // mov [edi], eax
                  0x81, 0xC2, 0x01, 0x00, 0x00, 0x00,  // add edx, 1 (immediate at 1007h)
                  0x49,                                // dec ecx
                  0x75, 0xF2,                          // jnz loop
                  0xF4});                              // hlt
  for (u32 round = 1; round <= 100; ++round) f.poke32(0x3000 + round * 4, round == 50 ? 0x1007 : 0x2000);
  f.start(0x1000);
  f.cpu.state.gpr[EAX] = 5;
  f.cpu.state.gpr[EDX] = 0;
  f.cpu.state.gpr[ESI] = 0x3000;
  f.cpu.state.gpr[ECX] = 100;
  EXPECT_EQ(f.cpu.run(10'000), StopReason::Halted);
  EXPECT_EQ(f.cpu.state.gpr[EDX], 300u);
  EXPECT_EQ(f.counters.instructions, 501u);
}

// A controller that requests vector 50h whenever the CPU is halted, telling the CPU
// that its output changed (as the 8259A model does when a device raises a line).
struct WakeTheHaltedCpu : InterruptController {
  Cpu* cpu = nullptr;
  int acknowledged = 0;
  bool interrupt_pending() const override {
    if (!cpu->state.halted) return false;
    cpu->notify_interrupt();
    return true;
  }
  u8 acknowledge() override {
    ++acknowledged;
    return 0x50;
  }
};

// HLT inside the run (SDM "HLT": execution stops until an interrupt; the handler
// returns to the instruction after HLT). From the second round on, HLT is reached
// through the link of JNZ; the run must stop after it so that each HLT waits for
// its own interrupt: 10 rounds, 10 wakes. (HLT asks for the slow step; the run
// would also stop for want of a link, as a delivery always follows HLT.)
TEST(LinkedRun, HltEndsTheRun) {
  RealMode32 f;
  WakeTheHaltedCpu pic;
  pic.cpu = &f.cpu;
  f.cpu.set_interrupt_controller(&pic);
  f.poke32(0x50 * 4, 0x0000'3000);     // IVT: offset 3000h, segment 0
  f.code(0x3000, {0x40, 0x66, 0xCF});  // handler: inc eax; iret (16-bit: real mode pushed IP, CS, FLAGS)
  f.code(0x1000, {0xF4,                // loop: hlt
                  0x43,                // inc ebx
                  0x49,                // dec ecx
                  0x75, 0xFB,          // jnz loop
                  0xFA,                // cli
                  0xF4});              // hlt
  f.start(0x1000);
  f.cpu.state.eflags |= flag::IF;
  f.cpu.state.gpr[EAX] = f.cpu.state.gpr[EBX] = 0;
  f.cpu.state.gpr[ECX] = 10;
  EXPECT_EQ(f.cpu.run(10'000), StopReason::Halted);
  EXPECT_EQ(pic.acknowledged, 10);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 10u);
  EXPECT_EQ(f.cpu.state.gpr[EBX], 10u);
  EXPECT_EQ(f.cpu.state.eip, 0x1007u);
}

// A data breakpoint hit inside the run (SDM "Debug Exceptions": a data breakpoint is
// a trap, taken after the instruction that wrote). DR0 = 2000h with R/W0 = 01 (writes)
// and LEN0 = 11 (4 bytes); the #DB handler counts in ESI. Every round's store must
// be followed by its trap, from the second round on inside the run.
TEST(LinkedRun, ADataBreakpointHitEndsTheRunWithItsTrap) {
  RealMode32 f;
  f.poke32(1 * 4, 0x0000'3000);        // IVT: #DB -> 0000:3000
  f.code(0x3000, {0x46, 0x66, 0xCF});  // handler: inc esi; iret (16-bit)
  f.code(0x1000, {0x0F, 0x23, 0xC0,    // mov dr0, eax
                  0x0F, 0x23, 0xFA,    // mov dr7, edx
                  0x89, 0x1D, 0x00, 0x20, 0x00, 0x00,  // loop: mov [2000h], ebx
                  0x43,                // inc ebx
                  0x49,                // dec ecx
                  0x75, 0xF6,          // jnz loop
                  0xF4});              // hlt
  f.start(0x1000);
  f.cpu.state.gpr[EAX] = 0x2000;
  f.cpu.state.gpr[EDX] = 0x000D'0001;  // L0, R/W0 = 01, LEN0 = 11
  f.cpu.state.gpr[EBX] = f.cpu.state.gpr[ESI] = 0;
  f.cpu.state.gpr[ECX] = 10;
  EXPECT_EQ(f.cpu.run(10'000), StopReason::Halted);
  EXPECT_EQ(f.cpu.state.gpr[ESI], 10u);
  EXPECT_EQ(f.peek32(0x2000), 9u);
  EXPECT_EQ(f.cpu.state.dr[6] & 1, 1u);  // B0
  EXPECT_EQ(f.cpu.state.eip, 0x1011u);
}

// Trap and emulate inside the run: CLI at CPL 3 with IOPL 0 raises #GP(0) (SDM "CLI"),
// which the executor signals (Cpu::signal_fault) instead of throwing. From the second
// round on, CLI is reached through the link of JNZ; the run must deliver the #GP
// after it, before anything else retires. The ring-0 handler counts in ESI, steps over
// the 1-byte CLI and returns, or halts once ECX is 0.
TEST(LinkedRun, ASignalledFaultIsDeliveredAfterItsInstruction) {
  testing::Ring3Fixture f;
  f.code(0x1100, {0xFA,                          // loop: cli (#GP)
                  0x43,                          // inc ebx
                  0x49,                          // dec ecx
                  0x75, 0xFB,                    // jnz loop
                  0xFA});                        // cli (#GP)
  f.code(0x1500, {0x46,                          // handler: inc esi
                  0x85, 0xC9,                    // test ecx, ecx
                  0x74, 0x09,                    // jz stop
                  0x83, 0x44, 0x24, 0x04, 0x01,  // add dword [esp+4], 1 (EIP after CLI)
                  0x83, 0xC4, 0x04,              // add esp, 4 (the error code)
                  0xCF,                          // iretd
                  0xF4});                        // stop: hlt
  f.enter_ring3();
  f.cpu.state.gpr[EBX] = f.cpu.state.gpr[ESI] = 0;
  f.cpu.state.gpr[ECX] = 10;
  EXPECT_EQ(f.cpu.run(10'000), StopReason::Halted);
  EXPECT_EQ(f.cpu.state.gpr[ESI], 11u);
  EXPECT_EQ(f.cpu.state.gpr[EBX], 10u);
  EXPECT_EQ(f.counters.exceptions_by_vector[13], 11u);
  EXPECT_EQ(f.cpu.state.eip, 0x150Fu);
}

// A trapped instruction that faults before it ever retired is not linked at its
// faults (LinkedRunner::faulted links only an instruction that retired at that
// address, CodeFootprint::known_at): its first retirement must count its code lines,
// which a linked run does not look at. CLI at
// 123Fh is alone in its 32- and 64-byte lines. The #GP handler steps past it; the
// fifth time it also sets IOPL 3 in the EFLAGS image, so that the CLI of the next
// round, reached by a full look-up after JMP, retires.
// run(300) must leave the counters of 300 steps.
TEST(LinkedRun, AnInstructionLinkedAtItsFaultCountsItsCodeLinesWhenItFirstRetires) {
  testing::Ring3Fixture run, steps;
  for (testing::Ring3Fixture* f : {&run, &steps}) {
    f->code(0x1100, {0x43,                             // loop: inc ebx
                     0xE9, 0x39, 0x01, 0x00, 0x00});  // jmp 123Fh
    f->code(0x123F, {0xFA,                             // cli (#GP while IOPL < 3)
                     0xE9, 0xBB, 0xFE, 0xFF, 0xFF});  // jmp loop
    // (No branch in the handler: every instruction is decoded in the first round, so
    // no new entry makes the links stale later.)
    f->code(0x1500, {0x46,                                // handler: inc esi
                     0x31, 0xC0,                          // xor eax, eax
                     0x83, 0xFE, 0x05,                    // cmp esi, 5
                     0x0F, 0x94, 0xC0,                    // sete al
                     0x69, 0xC0, 0x00, 0x30, 0x00, 0x00,  // imul eax, eax, 3000h (IOPL 3 the fifth time)
                     0x09, 0x44, 0x24, 0x0C,              // or [esp+12], eax (the EFLAGS image)
                     0x83, 0x44, 0x24, 0x04, 0x01,        // add dword [esp+4], 1 (past the CLI)
                     0x83, 0xC4, 0x04,                    // add esp, 4 (the error code)
                     0xCF});                              // iretd
    f->enter_ring3();
    f->cpu.state.gpr[EBX] = f->cpu.state.gpr[ESI] = 0;
  }
  run_and_step(run.cpu, steps.cpu, 300);
  EXPECT_EQ(run.counters.exceptions_by_vector[13], 5u);
  EXPECT_EQ(run.cpu.state.gpr[ESI], 5u);
  EXPECT_EQ(run.cpu.state.gpr[EBX], steps.cpu.state.gpr[EBX]);
  EXPECT_EQ(run.cpu.state.eip, steps.cpu.state.eip);
  expect_same_counters(run.cpu, steps.cpu);
}

// Runs `cpu` to its HLT and expects `rounds` faults of `vector`, each one replayed.
void run_expecting_replays(Cpu& cpu, const Counters& counters, u8 vector, u64 rounds) {
  cpu.watch_replays();
  EXPECT_EQ(cpu.run(1000), StopReason::Halted);
  EXPECT_EQ(counters.exceptions_by_vector[vector], rounds);
  EXPECT_EQ(counters.replayed_instructions, rounds);
}

// Replays met inside a linked run (Counters::replayed_instructions, cpu/replay_watch.h):
// MOV DS, AX with an LDT selector (EAX = 7, set again each round) and no LDT raises
// #GP; the ring-0 handler, at the faulting CPL, puts 10h in EAX and returns to the
// INC before the MOV. From the second round on, the MOV starts again at its CS:EIP
// through INC's link, inside a linked run at the faulting CPL, which must watch for
// that start: one replay per round.
TEST(LinkedRun, AReplayAtTheFaultingCplIsSeenInsideTheRun) {
  testing::ProtectedModeFixture f;
  f.put_idt(13, testing::gate(testing::kCode, 0x1400, 0x8E));
  f.code(0x1000, {0x43,         // loop: inc ebx
                  0x8E, 0xD8,   // mov ds, ax (#GP while EAX = 7)
                  0x89, 0xF8,   // mov eax, edi (7)
                  0x49,         // dec ecx
                  0x75, 0xF8,   // jnz loop
                  0xF4});       // hlt
  f.code(0x1400, {0xB8, 0x10, 0x00, 0x00, 0x00,  // mov eax, 10h
                  0x83, 0x6C, 0x24, 0x04, 0x01,  // sub dword [esp+4], 1 (the INC before the MOV)
                  0x83, 0xC4, 0x04,              // add esp, 4 (the error code)
                  0xCF});                        // iretd
  f.cpu.state.gpr[EAX] = f.cpu.state.gpr[EDI] = 0x7;
  f.cpu.state.gpr[EBX] = 0;
  f.cpu.state.gpr[ECX] = 5;
  run_expecting_replays(f.cpu, f.counters, 13, 5);
  EXPECT_EQ(f.cpu.state.gpr[EBX], 10u);
}

// The same in a code segment whose base is not 0 (0200h in real-address mode, base
// 2000h, with 32-bit code): the run watches for the faulting instruction's CS offset,
// which is its linear address less that base. DIV ECX raises #DE while ECX = 0; the
// handler (vector 0, at the faulting CPL) sets ECX = 1 and returns to the XOR before
// the DIV, so the DIV starts again through XOR's link inside a linked run.
TEST(LinkedRun, AReplayIsSeenInsideTheRunInACodeSegmentWithABase) {
  RealMode32 f;
  f.code(0x3000, {0x31, 0xC9,   // loop: xor ecx, ecx (CS offset 1000h)
                  0x31, 0xD2,   // xor edx, edx
                  0xF7, 0xF1,   // div ecx (#DE while ECX = 0)
                  0x4B,         // dec ebx
                  0x75, 0xF7,   // jnz loop
                  0xF4});       // hlt
  f.code(0x1400, {0xB9, 0x01, 0x00, 0x00, 0x00,  // mov ecx, 1
                  0x66, 0x83, 0x2C, 0x24, 0x02,  // sub word [esp], 2 (the XOR before the DIV)
                  0x66, 0xCF});                  // iret (16-bit frame)
  f.poke32(0, 0x00001400);  // IVT vector 0: 0000:1400
  f.start(0x1000);
  f.cpu.state.segments[CS].selector = 0x0200;
  f.cpu.state.segments[CS].cache.base = 0x2000;
  f.cpu.state.gpr[EAX] = 5;
  f.cpu.state.gpr[EBX] = 5;
  run_expecting_replays(f.cpu, f.counters, 0, 5);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 5u);
}

// One decode-cache entry at two linear addresses (paging maps linear 100000h to frame
// 5000h too): DIV ECX at 503Eh, alone in its 32- and 64-byte lines, is reached by JMP
// EBP at 503Eh or at 10003Eh, and #DE (ECX = 0) is stepped over by the handler. It
// faults twice at 503Eh, retires at 10003Eh, then retires at 503Eh: that first
// retirement at 503Eh must count its lines, though the one at the other address came
// first (the footprint's mark for the entry is per linear address, and a fault at
// 503Eh links it only after it retired there). run(80) must leave the counters of 80 steps.
TEST(LinkedRun, AnInstructionLinkedAtItsFaultCountsItsLinesAtThatAddressAfterRetiringAtAnother) {
  testing::Ring3Fixture run, steps;
  const u32 table[][2] = {{0, 0x503E}, {0, 0x503E}, {1, 0x10003E}, {1, 0x503E}, {1, 0x503E},
                          {1, 0x10003E}, {1, 0x503E}, {1, 0x503E}, {1, 0x503E}, {1, 0x503E},
                          {1, 0x503E}, {1, 0x503E}};
  for (testing::Ring3Fixture* f : {&run, &steps}) {
    for (u32 page = 0; page < 256; ++page) f->poke32(0x21000 + page * 4, page << 12 | P | W | U);
    f->poke32(0x21000 + 0x100 * 4, 0x5000 | P | W | U);  // linear 100000h: frame 5000h
    f->poke32(0x20000, 0x21000 | P | W | U);
    f->cpu.state.cr3 = 0x20000;
    f->cpu.state.cr0 |= cr0::PG;
    f->cpu.sync_paging();
    f->code(0x1100, {0x16, 0x1F,         // push ss; pop ds (ring 3's data selector)
                     0x8B, 0x0E,         // loop: mov ecx, [esi]
                     0x8B, 0x6E, 0x04,   // mov ebp, [esi+4]
                     0x83, 0xC6, 0x08,   // add esi, 8
                     0x31, 0xD2,         // xor edx, edx
                     0xFF, 0xE5});       // jmp ebp
    f->code(0x503E, {0xF7, 0xF1,         // div ecx (#DE while ECX = 0)
                     0xFF, 0xE7});       // jmp edi (the loop)
    f->put_idt(0, testing::gate(testing::kCode, 0x1600, 0x8E));
    f->code(0x1600, {0x83, 0x04, 0x24, 0x02,  // #DE handler: add dword [esp], 2 (past the DIV)
                     0xCF});                  // iretd
    for (u32 i = 0; i < std::size(table); ++i) {
      f->poke32(0x6000 + i * 8, table[i][0]);
      f->poke32(0x6004 + i * 8, table[i][1]);
    }
    f->enter_ring3();
    f->cpu.state.gpr[ESI] = 0x6000;
    f->cpu.state.gpr[EDI] = 0x1102;
    f->cpu.state.gpr[EAX] = 5;
  }
  run_and_step(run.cpu, steps.cpu, 80);
  EXPECT_EQ(run.counters.exceptions_by_vector[0], 2u);
  EXPECT_EQ(run.cpu.state.gpr[ESI], steps.cpu.state.gpr[ESI]);
  EXPECT_EQ(run.cpu.state.eip, steps.cpu.state.eip);
  expect_same_counters(run.cpu, steps.cpu);
}

// The code lines of a far JMP are those of its own linear address, from CS's base at
// its fetch, in single steps as in a run (SDM "JMP": in real-address mode the far
// JMP loads CS with base = selector * 16). The loop's far JMP at 0000:101Eh reaches
// into line 1020h, where nothing else runs; the one back at 1000:2001h (linear
// 12001h) is in line 12000h with INC EDX. Lines of 32 bytes: 1000h, 1020h, 12000h.
TEST(LinkedRun, AFarJumpsCodeLinesAreThoseOfItsOwnAddress) {
  RealMode32 run, steps;
  for (RealMode32* f : {&run, &steps}) {
    for (u32 a = 0x1000; a < 0x101E; ++a) f->bus.poke(a, 0x90);     // 30 NOPs
    f->code(0x101E, {0xEA, 0x00, 0x20, 0x00, 0x00, 0x00, 0x10});  // jmp far 1000:00002000
    f->code(0x12000, {0x42,                                       // inc edx
                      0xEA, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00});  // jmp far 0000:00001000
    f->start(0x1000);
  }
  run_and_step(run.cpu, steps.cpu, 330);
  for (RealMode32* f : {&run, &steps}) {
    EXPECT_EQ(f->counters.instructions, 330u);
    EXPECT_EQ(f->counters.code_lines_32, 3u);
    EXPECT_EQ(f->counters.code_lines_64, 2u);
  }
}

// Two CPUs given the same paged program, one run by run() and one by single steps.
// Paging maps the first 1 MiB one-to-one (page table 11000h); `extra_table`, if not
// 0, is the page table for linear 400000h-7FFFFFh. CS is 32-bit and DS flat.
struct RunAgainstSteps {
  testing::CpuFixture run, steps;
  template <class Setup>
  RunAgainstSteps(u32 eip, u32 extra_table, Setup setup) {
    for (testing::CpuFixture* f : {&run, &steps}) {
      for (u32 page = 0; page < 256; ++page) f->poke32(0x11000 + page * 4, page << 12 | P | W | U);
      f->poke32(0x10000, 0x11000 | P | W | U);
      if (extra_table) f->poke32(0x10004, extra_table | P | W | U);
      f->real_mode_at(eip);
      f->cpu.state.segments[CS].cache.db = true;
      f->cpu.state.segments[DS].cache.limit = f->cpu.state.segments[DS].cache.valid_max = 0xFFFFFFFF;
      f->cpu.state.cr3 = 0x10000;
      f->cpu.state.cr0 |= cr0::PE | cr0::PG;
      f->cpu.sync_paging();
      setup(*f);
    }
  }
  // Runs both until HLT (at most `limit` instructions) and compares every counter the
  // fetch path and the retirement touch.
  void run_both_and_compare(u64 limit) {
    run.cpu.run(limit);
    for (u64 i = 0; i < limit && !steps.cpu.state.halted; ++i) steps.cpu.step();
    ASSERT_TRUE(run.cpu.state.halted);
    ASSERT_TRUE(steps.cpu.state.halted);
    expect_same_counters(run.cpu, steps.cpu);
  }
};

// The functional TLB is direct-mapped by linear address bits 21-12 (mmu/tlb.h): a load
// from linear 401000h replaces the translation of code page 1000h, so the next
// instruction's fetch walks the page tables again (SDM "Translation Lookaside
// Buffers (TLBs)": the processor may drop any entry; it re-walks on a miss). The loop
// alternates its loads between 5000h and 401000h: 1 + 1000 walks for the code page,
// 1 for page 5000h (never replaced) and 1000 for page 401000h; run() must count the
// same walks as single steps.
TEST(LinkedRun, ALoadThatReplacesTheCodePagesTranslationEndsTheRun) {
  RunAgainstSteps both(0x1000, 0x12000, [](testing::CpuFixture& f) {
    f.poke32(0x12000 + 1 * 4, 0x50000 | P | W | U);  // linear 401000h: frame 50000h
    f.code(0x1000, {0x8B, 0x03,                       // loop: mov eax, [ebx]
                    0x31, 0xF3,                       // xor ebx, esi (5000h <-> 401000h)
                    0x49,                             // dec ecx
                    0x75, 0xF9,                       // jnz loop
                    0xF4});                           // hlt
    f.cpu.state.gpr[EBX] = 0x5000;
    f.cpu.state.gpr[ESI] = 0x5000 ^ 0x401000;
    f.cpu.state.gpr[ECX] = 2000;
  });
  both.run_both_and_compare(20'000);
  EXPECT_EQ(both.run.counters.instructions, 8'001u);  // 4 per round, and HLT
  EXPECT_EQ(both.steps.counters.page_walks, 1u + 1000u + 1u + 1000u);
}

// Loads that walk 128 pages, so that the TLB changes on most rounds (each change is a
// new fetch context), in a loop that crosses a page boundary.
TEST(LinkedRun, LeavesTheSameCountersAsSingleSteps) {
  RunAgainstSteps both(0x1FF8, 0, [](testing::CpuFixture& f) {
    f.code(0x1FF8, {0x8B, 0x03,                          // loop: mov eax, [ebx]
                    0x81, 0xC3, 0x00, 0x10, 0x00, 0x00,  // add ebx, 1000h (the next page)
                    0x81, 0xE3, 0xFF, 0xFF, 0x07, 0x00,  // and ebx, 7FFFFh (pages 0-127)
                    0x49,                                // dec ecx
                    0x75, 0xEF,                          // jnz loop
                    0xF4});                              // hlt
    f.cpu.state.gpr[ECX] = 2000;
  });
  both.run_both_and_compare(20'000);
  const Counters& a = both.run.counters;
  EXPECT_EQ(a.instructions, 10'001u);  // 5 per round, and HLT
  // Page 1, then two changes of page per round, except that the last JNZ falls through.
  EXPECT_EQ(a.tlb_code_hits + a.tlb_code_misses, 4000u);
}

}  // namespace
}  // namespace x86lab
