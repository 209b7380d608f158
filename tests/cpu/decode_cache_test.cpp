// The decode cache (cpu/decode_cache.h, docs/performance.md): every way instruction
// bytes can change behind a cached decode must be seen by the next execution (Intel
// SDM Vol. 3, "Self-Modifying Code": detection by physical address; "Invalidation of
// TLBs and Paging-Structure Caches" for remapped linear pages), and a cache hit must
// leave the same counters as decoding byte by byte.
#include <gtest/gtest.h>

#include <memory>

#include "cpu_fixture.h"

namespace x86lab {
namespace {

constexpr u32 P = 1, W = 2, U = 4;
constexpr u32 kPageDirectory = 0x10000, kPageTable = 0x11000, kPageDirectory2 = 0x12000, kPageTable2 = 0x13000;

// MOV EAX, imm32; the immediate starts at byte 1.
void mov_eax(testing::CpuFixture& f, u32 at, u32 value) {
  f.code(at, {0xB8, static_cast<u8>(value), static_cast<u8>(value >> 8), static_cast<u8>(value >> 16),
              static_cast<u8>(value >> 24)});
}

struct Flat32 : testing::CpuFixture {
  Flat32() {
    real_mode_at(0x1000);
    cpu.state.segments[CS].cache.db = true;
  }
  void poke32(u32 address, u32 value) {
    for (int i = 0; i < 4; ++i) bus.poke(address + i, static_cast<u8>(value >> (8 * i)));
  }
  // Places MOV EAX, `value` at `at` and runs it once, which caches its decode.
  void cache_mov(u32 at, u32 value) {
    mov_eax(*this, at, value);
    EXPECT_EQ(run_at(at), value);
  }
  // Executes the instruction at `eip` and returns EAX.
  u32 run_at(u32 eip) {
    cpu.state.eip = eip;
    cpu.step();
    return cpu.state.gpr[EAX];
  }
  // Paging on: two page directories whose tables map the first 1 MiB one-to-one
  // except linear page 5: frame 30000h in the first, frame 31000h in the second.
  void enable_paging() {
    for (u32 page = 0; page < 256; ++page) {
      poke32(kPageTable + page * 4, page << 12 | P | W | U);
      poke32(kPageTable2 + page * 4, page << 12 | P | W | U);
    }
    poke32(kPageTable + 5 * 4, 0x30000 | P | W | U);
    poke32(kPageTable2 + 5 * 4, 0x31000 | P | W | U);
    poke32(kPageDirectory, kPageTable | P | W | U);
    poke32(kPageDirectory2, kPageTable2 | P | W | U);
    cpu.state.cr3 = kPageDirectory;
    cpu.state.cr0 |= cr0::PE | cr0::PG;
    cpu.sync_paging();
  }
  // enable_paging(), then MOV EAX, AAAAAAAAh in frame 30000h and MOV EAX, BBBBBBBBh in
  // frame 31000h; runs linear 5000h once through the first directory (caching its decode).
  void enable_paging_with_two_frames_of_code() {
    enable_paging();
    mov_eax(*this, 0x30000, 0xAAAAAAAA);
    mov_eax(*this, 0x31000, 0xBBBBBBBB);
    EXPECT_EQ(run_at(0x5000), 0xAAAAAAAAu);
  }
};

TEST(DecodeCache, AHitCountsTheSameCodeFetchesAsDecoding) {
  Flat32 f;
  mov_eax(f, 0x1000, 0x11111111);
  f.code(0x1005, {0x40, 0x90});  // inc eax; nop
  for (int round = 0; round < 3; ++round) {
    f.cpu.state.eip = 0x1000;
    f.steps(3);
  }
  EXPECT_EQ(f.cpu.state.gpr[EAX], 0x11111112u);
  EXPECT_EQ(f.counters.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)], 3u * 7u)
      << "one code fetch per instruction byte per execution, cached or not";
  EXPECT_EQ(f.counters.code_bytes, 21u);
  EXPECT_EQ(f.counters.instructions, 9u);
}

// Cache hits skip the code-line set once an entry has retired at the same linear
// address (Cpu::retire_code_bytes); the counts must stay those of the bytes: the MOV at
// 101Ch ends in the next 32-byte line (two 32-byte lines, one 64-byte line), and the
// code range still counts every retirement of the INC inside it.
TEST(DecodeCache, RepeatedHitsKeepTheCodeLineAndCodeRangeCountsExact) {
  Flat32 f;
  mov_eax(f, 0x101C, 0x11111111);  // 101C-1020
  f.code(0x1021, {0x40, 0x90});    // inc eax; nop
  f.counters.code_range_begin = 0x1021;
  f.counters.code_range_end = 0x1022;
  for (int round = 0; round < 3; ++round) {
    f.cpu.state.eip = 0x101C;
    f.steps(3);
  }
  EXPECT_EQ(f.counters.code_lines_32, 2u);
  EXPECT_EQ(f.counters.code_lines_64, 1u);
  EXPECT_EQ(f.counters.code_range_instructions, 3u);
  EXPECT_EQ(f.counters.code_range_bytes, 3u);
  EXPECT_EQ(f.counters.code_range_lines_32, 1u);
}

TEST(DecodeCache, AStoreIntoTheNextInstructionIsSeenInTheSameStream) {
  Flat32 f;
  f.cache_mov(0x1007, 0x11111111);
  // mov dword [1008h], 22222222h  (C7 05 disp32 imm32), 10 bytes ending at 1006h+... placed before it
  f.code(0x0FFD, {0xC7, 0x05, 0x08, 0x10, 0x00, 0x00, 0x22, 0x22, 0x22, 0x22});
  f.cpu.state.eip = 0x0FFD;
  f.steps(1);
  EXPECT_EQ(f.cpu.state.eip, 0x1007u);
  f.steps(1);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 0x22222222u) << "the cached MOV was dropped by the store";
  EXPECT_EQ(f.counters.code_block_invalidations, 1u) << "the MOV's block (the store's own bytes there are no MOV's)";
}

// Stores beside code leave its decode in place: the MOV's immediate is then changed
// behind the bus (PhysicalBus::ram(), which the code marks do not see), so the old
// value comes back only from the cached decode.
TEST(DecodeCache, AStoreBesideCodeInItsPageRetiresNothing) {
  Flat32 f;
  f.cache_mov(0x1000, 0x11111111);                            // 1000h-1004h
  f.mmu.write<u8>(0x1005, 0x90, AccessKind::Data, false);     // the next byte, same block
  f.mmu.write<u32>(0x0FFC, 0, AccessKind::Data, false);       // the bytes before it (page 0)
  f.mmu.write<u32>(0x1040, 0, AccessKind::Data, false);       // the next block
  f.mmu.write<u8>(0x1FFF, 0x90, AccessKind::Data, false);     // the page's last byte
  f.bus.write<u16>(0x1006, 0xFFFF, AccessKind::Data);         // a device, beside it
  f.bus.poke(0x1010, 0xCC);                                   // the debugger, beside it
  EXPECT_EQ(f.counters.code_block_invalidations, 0u);
  EXPECT_TRUE(f.bus.is_code_page(1));
  f.bus.ram()[0x1001] = 0x22;
  EXPECT_EQ(f.run_at(0x1000), 0x11111111u) << "the decoded entry ran";
}

TEST(DecodeCache, AStoreIntoAnInstructionsFirstOrLastByteIsSeen) {
  Flat32 f;
  f.cache_mov(0x1000, 0x11111111);
  f.mmu.write<u8>(0x1004, 0x99, AccessKind::Data, false);  // the last immediate byte
  EXPECT_EQ(f.run_at(0x1000), 0x99111111u);
  EXPECT_EQ(f.counters.code_block_invalidations, 1u);
  f.mmu.write<u8>(0x1000, 0xB9, AccessKind::Data, false);  // the opcode: MOV ECX, imm32
  f.cpu.state.gpr[EAX] = 0;
  f.run_at(0x1000);
  EXPECT_EQ(f.cpu.state.gpr[ECX], 0x99111111u);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 0u);
}

TEST(DecodeCache, AStoreThroughALinearAliasIsSeenAndOneBesideTheCodeIsNot) {
  Flat32 f;
  f.enable_paging();
  f.poke32(kPageTable + 6 * 4, 0x30000 | P | W | U);  // linear 6000h aliases frame 30000h too
  mov_eax(f, 0x30000, 0xAAAAAAAA);
  EXPECT_EQ(f.run_at(0x5000), 0xAAAAAAAAu);
  f.mmu.write<u8>(0x6005, 0x90, AccessKind::Data, false);
  EXPECT_EQ(f.counters.code_block_invalidations, 0u) << "beside the code";
  f.mmu.write<u8>(0x6004, 0x77, AccessKind::Data, false);
  EXPECT_EQ(f.run_at(0x5000), 0x77AAAAAAu);
  EXPECT_EQ(f.counters.code_block_invalidations, 1u);
}

// MOV EAX at 103Eh: opcode and first immediate byte in the block at 1000h, the other
// three in the block at 1040h. A write to either part is seen.
TEST(DecodeCache, AnInstructionAcrossTwoCodeBlocksSeesAWriteToEither) {
  Flat32 f;
  f.cache_mov(0x103E, 0x11111111);
  f.cache_mov(0x1000, 0x22222222);  // another entry in the first block
  f.mmu.write<u8>(0x1042, 0x33, AccessKind::Data, false);  // in the second block only
  EXPECT_EQ(f.run_at(0x103E), 0x33111111u);
  f.mmu.write<u8>(0x103F, 0x44, AccessKind::Data, false);  // in the first block
  EXPECT_EQ(f.run_at(0x103E), 0x33111144u);
  f.mmu.write<u32>(0x103F, 0x55555555, AccessKind::Data, false);  // both
  EXPECT_EQ(f.run_at(0x103E), 0x55555555u);
  EXPECT_EQ(f.counters.code_block_invalidations, 1u + 1u + 2u);
  EXPECT_EQ(f.run_at(0x1000), 0x22222222u);
}

TEST(DecodeCache, DeviceWritesOnTheBusAreSeen) {
  Flat32 f;
  f.cache_mov(0x1000, 0x11111111);
  f.bus.write<u32>(0x1001, 0x33333333, AccessKind::Data);  // as a bus master (DMA) writes
  EXPECT_EQ(f.run_at(0x1000), 0x33333333u);
  f.bus.write<u16>(0x1003, 0x4444, AccessKind::Data);
  EXPECT_EQ(f.run_at(0x1000), 0x44443333u);
}

TEST(DecodeCache, DebuggerPokesAreSeen) {
  Flat32 f;
  f.cache_mov(0x1000, 0x11111111);
  f.bus.poke(0x1004, 0x55);
  EXPECT_EQ(f.run_at(0x1000), 0x55111111u);
  f.enable_paging();
  mov_eax(f, 0x30000, 0xAAAAAAAA);
  EXPECT_EQ(f.run_at(0x5000), 0xAAAAAAAAu);
  EXPECT_TRUE(f.mmu.poke_linear(0x5001, 0x66));
  EXPECT_EQ(f.run_at(0x5000), 0xAAAAAA66u);
}

TEST(DecodeCache, LoadsAndRomMappingsAreSeen) {
  Flat32 f;
  f.cache_mov(0x1000, 0x11111111);
  const u8 image[] = {0xB8, 0x77, 0x77, 0x77, 0x77};
  f.bus.load(0x1000, image);
  EXPECT_EQ(f.run_at(0x1000), 0x77777777u);
  std::vector<u8> rom(0x1000, 0x90);
  rom[0] = 0xB8;
  rom[1] = rom[2] = rom[3] = rom[4] = 0x88;
  f.bus.map_rom(0x1000, rom);
  EXPECT_EQ(f.run_at(0x1000), 0x88888888u) << "the page is ROM now";
}

TEST(DecodeCache, ARemappedLinearPageRunsTheNewFrameAfterInvlpg) {
  Flat32 f;
  f.enable_paging_with_two_frames_of_code();
  f.poke32(kPageTable + 5 * 4, 0x31000 | P | W | U);
  EXPECT_EQ(f.run_at(0x5000), 0xAAAAAAAAu) << "the TLB still holds the old frame until INVLPG";
  f.cpu.state.gpr[EBX] = 0x5000;
  f.code(0x1000, {0x0F, 0x01, 0x3B});  // invlpg [ebx]
  f.cpu.state.eip = 0x1000;
  f.steps(1);
  EXPECT_EQ(f.run_at(0x5000), 0xBBBBBBBBu);
}

TEST(DecodeCache, MovCr3SwitchesToTheOtherFramesCode) {
  Flat32 f;
  f.enable_paging_with_two_frames_of_code();
  f.cpu.write_cr3(kPageDirectory2);
  EXPECT_EQ(f.run_at(0x5000), 0xBBBBBBBBu);
  f.cpu.write_cr3(kPageDirectory);
  EXPECT_EQ(f.run_at(0x5000), 0xAAAAAAAAu) << "both frames' decodes stay valid: nothing wrote them";
}

TEST(DecodeCache, AnInstructionAcrossAPageBoundarySeesAWriteToItsSecondPage) {
  Flat32 f;
  f.cache_mov(0x1FFE, 0x11111111);
  f.bus.write<u8>(0x2001, 0x99, AccessKind::Data);
  EXPECT_EQ(f.run_at(0x1FFE), 0x11991111u);
}

TEST(DecodeCache, ALowerCodeSegmentLimitFaultsOnACachedInstruction) {
  Flat32 f;
  f.cache_mov(0x1000, 0x11111111);
  f.cpu.state.segments[CS].cache.valid_max = 0x1003;  // the last immediate byte is outside
  f.cpu.state.gpr[EAX] = 0;
  f.run_at(0x1000);
  EXPECT_EQ(f.counters.exceptions_by_vector[13], 1u) << "#GP(0) for the code segment limit";
  EXPECT_EQ(f.cpu.state.gpr[EAX], 0u);
}

TEST(DecodeCache, TheCodeSegmentSizeIsPartOfTheKey) {
  Flat32 f;
  f.cache_mov(0x1000, 0x11111111);
  f.cpu.state.segments[CS].cache.db = false;  // B8 iw: MOV AX, 1111h (3 bytes)
  f.cpu.state.gpr[EAX] = 0xFFFFFFFF;
  f.run_at(0x1000);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 0xFFFF1111u);
  EXPECT_EQ(f.cpu.state.eip, 0x1003u);
}

TEST(DecodeCache, TheA20GateSelectsThePhysicalPage) {
  testing::CpuFixture f;  // 1 MiB of RAM: with A20 open, 100000h+ is open bus
  f.real_mode_at(0x10);
  f.cpu.state.segments[CS].selector = 0xFFFF;
  f.cpu.state.segments[CS].cache.set_real_mode(0xFFFF0);  // FFFF:0010 = physical 100000h
  f.code(0x0, {0xB0, 0x12});                              // mov al, 12h
  f.bus.set_a20(false);
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.gpr[EAX] & 0xFF, 0x12u) << "wrapped to physical 0";
  f.bus.set_a20(true);
  f.cpu.state.eip = 0x10;
  f.cpu.state.gpr[EAX] = 0;
  f.cpu.step();
  EXPECT_NE(f.cpu.state.gpr[EAX] & 0xFF, 0x12u) << "physical 100000h is open bus, not the cached MOV";
  EXPECT_GE(f.counters.open_bus_reads, 1u);
}

// Successor links (cpu/linked_runner.cpp, LinkedRunner::fetch): an entry remembers
// the entry that ran after it. The tests below run the same instruction to the same
// EIP in different fetch contexts through run() (the accelerator's; step() takes no
// links); taking the remembered link would run the first context's instruction.
// In one run, where links stay valid (run() and step() make every link stale when
// they return, DecodeCache::settle): IRET returns alternately to
// 0200:0100 (add bx, 1) and 0300:0100 (add bx, 100h), each followed by a far JMP back
// to the IRET. From the third round on every instruction is cached and no entry is
// replaced, so IRET's link to EIP 0100h is live; it belongs to the code segment of
// the round that made it, and taking it in the other would add the other constant.
TEST(DecodeCache, ALinkIsNotTakenInOneRunWhenTheSameEipIsInAnotherCodeSegment) {
  testing::CpuFixture f;
  f.real_mode_at(0x1000);
  f.code(0x1000, {0xCF});                                            // iret
  f.code(0x2100, {0x81, 0xC3, 0x01, 0x00, 0xEA, 0x00, 0x10, 0x00, 0x00});  // add bx, 1; jmp 0000:1000
  f.code(0x3100, {0x81, 0xC3, 0x00, 0x01, 0xEA, 0x00, 0x10, 0x00, 0x00});  // add bx, 100h; jmp 0000:1000
  constexpr unsigned kRounds = 20;
  for (unsigned i = 0; i < kRounds; ++i) {  // IP, CS, FLAGS per IRET
    const u8 cs = i % 2 ? 0x03 : 0x02;
    f.code(0x7000 + 6 * i, {0x00, 0x01, 0x00, cs, 0x02, 0x00});
  }
  f.cpu.state.gpr[ESP] = 0x7000;
  f.cpu.state.gpr[EBX] = 0;
  f.cpu.run(3 * kRounds);
  EXPECT_EQ(f.cpu.state.gpr[EBX], 0x0A0Au) << "10 rounds in each segment";
}

// In one run (links live only within a run): a loop swaps the page directory with MOV
// CR3 just before linear 5000h, which is frame 30000h under one directory and 31000h
// under the other; the link from MOV CR3 to the next instruction must follow the
// mapping, so each frame's ADD runs every other round.
TEST(DecodeCache, ALinkIsNotTakenInOneRunAfterMovCr3RemapsTheNextInstruction) {
  Flat32 f;
  f.enable_paging();
  f.code(0x4F00, {0x87, 0xDE});                    // xchg esi, ebx: the other directory
  f.code(0x4F02, {0xE9, 0xF6, 0x00, 0x00, 0x00});  // jmp 4FFDh
  f.code(0x4FFD, {0x0F, 0x22, 0xDB});              // mov cr3, ebx; the next instruction is at 5000h
  f.code(0x30000, {0x81, 0xC5, 0x01, 0x00, 0x00, 0x00});  // add ebp, 1
  f.code(0x31000, {0x81, 0xC5, 0x00, 0x01, 0x00, 0x00});  // add ebp, 100h
  for (const u32 frame : {0x30006u, 0x31006u}) f.code(frame, {0xE9, 0xF5, 0xFE, 0xFF, 0xFF});  // jmp 4F00h
  f.cpu.state.eip = 0x4F00;
  f.cpu.state.gpr[EBX] = kPageDirectory;
  f.cpu.state.gpr[ESI] = kPageDirectory2;
  f.cpu.state.gpr[EBP] = 0;
  constexpr unsigned kRounds = 20;
  f.cpu.run(5 * kRounds);  // xchg, jmp, mov cr3, add, jmp
  EXPECT_EQ(f.cpu.state.gpr[EBP], 0x0A0Au) << "10 rounds through each directory";
  EXPECT_EQ(f.cpu.state.eip, 0x4F00u);
}

// The TLB statistics model looks instruction fetches up once per change of code page
// (TlbModel::access_code, docs/tracing.md); a loop whose instructions alternate
// between two pages changes page twice per round. Successor links must not hide the
// changes: they are taken only within the current code page. Through run() (links,
// the code page reused) and through step() (the reference) alike.
TEST(DecodeCache, ALoopAcrossTwoPagesTellsTheTlbModelEveryPageChange) {
  for (const bool linked : {true, false}) {
    Flat32 f;
    f.enable_paging();
    f.code(0x1FF0, {0x49});                                // dec ecx
    f.code(0x1FF1, {0xE9, 0x0A, 0x00, 0x00, 0x00});        // jmp 2000h
    f.code(0x2000, {0x0F, 0x85, 0xEA, 0xFF, 0xFF, 0xFF});  // jnz 1FF0h
    f.cpu.state.eip = 0x1FF0;
    f.cpu.state.gpr[ECX] = 10;
    if (linked) f.cpu.run(30);
    else f.steps(30);
    EXPECT_EQ(f.cpu.state.eip, 0x2006u) << linked;
    // Page 1 first, then 2 and back to 1 each round, except that the last JNZ falls
    // through on page 2: 1 + 2 * 10 - 1 look-ups.
    EXPECT_EQ(f.counters.tlb_code_hits + f.counters.tlb_code_misses, 20u) << linked;
  }
}

// Statistics of cached instructions are counted in their entries and added up when
// run() returns (DecodeCache::settle). The values are the instruction lengths of the
// SDM's encodings: B9 id (5 bytes), 40, 49 (1), 75 cb (2), F4 (1).
TEST(DecodeCache, PerOpcodeCountsAndCodeBytesAreExactAfterEveryRun) {
  Flat32 f;
  f.code(0x1000, {0xB9, 10, 0, 0, 0,  // mov ecx, 10
                  0x40,               // loop: inc eax
                  0x49,               // dec ecx
                  0x75, 0xFC,         // jnz loop
                  0xF4});             // hlt
  const auto opcode_sum = [&] {
    u64 sum = 0;
    for (u64 n : f.counters.opcodes) sum += n;
    return sum;
  };
  for (int pass = 1; pass <= 2; ++pass) {  // the second pass runs from cached entries and links
    f.cpu.state.eip = 0x1000;
    f.cpu.state.halted = false;
    for (int slice = 0; slice < 20 && !f.cpu.state.halted; ++slice) {
      f.cpu.run(7);  // ends inside the loop: links made in one run are used in the next
      EXPECT_EQ(opcode_sum(), f.counters.instructions) << "pass " << pass << " slice " << slice;
      EXPECT_EQ(f.counters.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)], f.counters.code_bytes);
    }
    ASSERT_TRUE(f.cpu.state.halted);
    const u64 p = static_cast<u64>(pass);
    EXPECT_EQ(f.counters.instructions, p * 32);
    EXPECT_EQ(f.counters.opcodes[0xB9], p * 1);
    EXPECT_EQ(f.counters.opcodes[0x40], p * 10);
    EXPECT_EQ(f.counters.opcodes[0x49], p * 10);
    EXPECT_EQ(f.counters.opcodes[0x75], p * 10);
    EXPECT_EQ(f.counters.opcodes[0xF4], p * 1);
    EXPECT_EQ(f.counters.code_bytes, p * (5 + 10 * 4 + 1));
  }
}

// An instruction that faults did not retire: no opcode count and no code bytes, but its
// bytes were fetched. MOV EAX, [EBX] (8B 03, 2 bytes) runs once, then faults with a
// dword at DS offset FFFEh (beyond the real-mode limit FFFFh: #GP(0)) from its entry.
TEST(DecodeCache, AFaultingCachedInstructionCountsItsFetchButNotARetirement) {
  Flat32 f;
  f.code(0x1000, {0x8B, 0x03});
  f.cpu.state.gpr[EBX] = 0x2000;
  f.run_at(0x1000);
  f.cpu.state.gpr[EBX] = 0xFFFE;
  f.cpu.state.eip = 0x1000;
  f.cpu.run(1);
  EXPECT_EQ(f.counters.exceptions_by_vector[13], 1u);
  EXPECT_EQ(f.counters.instructions, 1u);
  EXPECT_EQ(f.counters.opcodes[0x8B], 1u);
  EXPECT_EQ(f.counters.code_bytes, 2u);
  EXPECT_EQ(f.counters.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)], 4u);
}

// A fault while fetching the next instruction (its page is not present) fetched
// nothing: the code-fetch count stays that of the cached NOP before it.
TEST(DecodeCache, AFetchFaultAfterACachedInstructionCountsNoFetch) {
  Flat32 f;
  f.enable_paging();
  f.poke32(kPageTable + 8 * 4, 0);  // linear page 8 not present
  f.code(0x7FFF, {0x90});          // nop, the last byte of page 7
  f.run_at(0x7FFF);
  f.cpu.state.eip = 0x7FFF;
  f.cpu.run(1);  // the NOP again, from its entry
  const u64 fetched = f.counters.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)];
  EXPECT_EQ(fetched, 2u);
  f.cpu.run(1);  // #PF fetching 8000h (delivered or not: no IDT is set up)
  EXPECT_EQ(f.counters.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)], fetched);
  EXPECT_EQ(f.counters.opcodes[0x90], 2u);
}

// Two instructions whose physical addresses share one entry (1000h and 9001h:
// index = (address ^ address >> 15) mod 8000h) replace each other; each replacement
// keeps the replaced instruction's counts.
TEST(DecodeCache, AReplacedEntryKeepsItsCounts) {
  Flat32 f;
  f.code(0x1000, {0xE8, 0xFC, 0x7F, 0x00, 0x00,  // call 9001h
                  0x49,                          // dec ecx
                  0x75, 0xF8,                    // jnz 1000h
                  0xF4});                        // hlt
  f.code(0x9001, {0xC3});                       // ret
  f.cpu.state.gpr[ECX] = 5;
  f.cpu.state.eip = 0x1000;
  for (int slice = 0; slice < 10 && !f.cpu.state.halted; ++slice) f.cpu.run(3);
  ASSERT_TRUE(f.cpu.state.halted);
  EXPECT_EQ(f.counters.opcodes[0xE8], 5u);
  EXPECT_EQ(f.counters.opcodes[0xC3], 5u);
  EXPECT_EQ(f.counters.opcodes[0x49], 5u);
  EXPECT_EQ(f.counters.opcodes[0x75], 5u);
  EXPECT_EQ(f.counters.code_bytes, 5u * (5 + 1 + 1 + 2) + 1);
  EXPECT_EQ(f.counters.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)], f.counters.code_bytes);
}

TEST(DecodeCache, ADestroyedCpuNoLongerListensToTheBus) {
  Counters counters;
  PhysicalBus bus{1 << 20, counters};
  PortBus ports{counters};
  Mmu mmu{bus};
  {
    Cpu first{mmu, ports, counters, default_profile()};
    first.state.segments[CS].cache.set_real_mode(0);
    first.state.eip = 0x1000;
    bus.poke(0x1000, 0x90);
    first.step();
  }
  Cpu second{mmu, ports, counters, default_profile()};
  second.state.segments[CS].cache.set_real_mode(0);
  second.state.eip = 0x1000;
  second.step();                                  // NOP, cached by `second`
  bus.write<u8>(0x1000, 0x40, AccessKind::Data);  // reported to `second` only
  second.state.eip = 0x1000;
  second.step();
  EXPECT_EQ(second.state.gpr[EAX], 1u) << "INC AX from the new byte";
}

}  // namespace
}  // namespace x86lab
