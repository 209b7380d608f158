// The page walker and TLB on a small bus (Intel SDM Vol. 3, "Paging": "32-Bit
// Paging", "Accessed and Dirty Flags", "Page-Fault Exceptions", "Invalidation of
// TLBs and Paging-Structure Caches"). Expected values are the SDM's bit layouts and
// error-code definitions.
#include "mmu/paging.h"

#include <gtest/gtest.h>

#include "bus_words.h"

namespace x86lab {
namespace {

constexpr u32 P = 1, W = 2, U = 4, A = 0x20, D = 0x40, PS = 0x80, G = 0x100;
constexpr u32 kDirectory = 0x10000, kTable = 0x11000;

// 8 MiB of RAM; CR3 = 10000h; directory entry 0 points at a table at 11000h.
struct PagingFixture {
  Counters counters;
  PhysicalBus bus{8 << 20, counters};
  Mmu mmu{bus};
  PagingControl control;

  PagingFixture() {
    control.pg = true;
    control.cr3 = kDirectory;
    set_pde(0, kTable | P | W | U);
    mmu.set_control(control);
  }
  void poke32(u32 address, u32 value) { testing::poke32(bus, address, value); }
  u32 peek32(u32 address) const { return testing::peek32(bus, address); }
  void set_pde(u32 index, u32 value) { poke32(kDirectory + index * 4, value); }
  void set_pte(u32 index, u32 value) { poke32(kTable + index * 4, value); }
  u32 pde(u32 index) const { return peek32(kDirectory + index * 4); }
  u32 pte(u32 index) const { return peek32(kTable + index * 4); }
  void apply() { mmu.set_control(control); }
  u64 locked(AccessKind kind) const { return counters.locked_by_kind[static_cast<int>(kind)]; }

  // The #PF raised by translating `linear`, or a vector of 0xFF when none is.
  Fault fault_of(u32 linear, AccessIntent intent, bool user) {
    try {
      mmu.translate(linear, intent, user);
    } catch (const Fault& fault) {
      return fault;
    }
    return {0xFF, std::nullopt, "none"};
  }
};

TEST(Paging, WithPagingOffLinearIsPhysicalAndNothingIsWalked) {
  PagingFixture f;
  f.control.pg = false;
  f.apply();
  EXPECT_EQ(f.mmu.translate(0x12345678, AccessIntent::Write, true), 0x12345678u);
  EXPECT_EQ(f.counters.page_walks, 0u);
}

TEST(Paging, FourKibPageTranslatesThroughDirectoryAndTable) {
  PagingFixture f;
  f.set_pte(5, 0x00300000 | P);
  EXPECT_EQ(f.mmu.translate(0x5ABC, AccessIntent::Read, false), 0x00300ABCu);
}

TEST(Paging, NotPresentDirectoryEntryRaisesPfWithErrorCode0AndTheLinearAddress) {
  PagingFixture f;
  const Fault fault = f.fault_of(0x00801234, AccessIntent::Read, false);
  EXPECT_EQ(fault.vector, 14);
  EXPECT_EQ(fault.error_code, 0u);
  EXPECT_EQ(fault.linear_address, 0x00801234u);
}

TEST(Paging, NotPresentPageErrorCodesCarryWriteAndUserBits) {
  PagingFixture f;
  EXPECT_EQ(f.fault_of(0x7000, AccessIntent::Write, false).error_code, 2u);
  EXPECT_EQ(f.fault_of(0x7000, AccessIntent::Read, true).error_code, 4u);
  EXPECT_EQ(f.fault_of(0x7000, AccessIntent::Write, true).error_code, 6u);
  EXPECT_EQ(f.fault_of(0x7000, AccessIntent::Execute, true).error_code, 4u) << "no I/D bit without NX";
}

TEST(Paging, UserAccessToSupervisorPageRaisesPfWithErrorCode5Or7) {
  PagingFixture f;
  f.set_pte(7, 0x7000 | P | W);
  EXPECT_EQ(f.fault_of(0x7000, AccessIntent::Read, true).error_code, 5u);
  EXPECT_EQ(f.fault_of(0x7000, AccessIntent::Write, true).error_code, 7u);
  EXPECT_EQ(f.fault_of(0x7000, AccessIntent::Read, false).vector, 0xFF);
}

TEST(Paging, UserAccessNeedsUserAtBothLevels) {
  PagingFixture f;
  f.set_pde(1, 0x12000 | P | W);  // supervisor directory entry
  f.poke32(0x12000, 0x00500000 | P | W | U);
  EXPECT_EQ(f.fault_of(0x00400000, AccessIntent::Read, true).error_code, 5u);
}

TEST(Paging, UserWriteToReadOnlyPageRaisesPfWithErrorCode7) {
  PagingFixture f;
  f.set_pte(7, 0x7000 | P | U);
  EXPECT_EQ(f.fault_of(0x7000, AccessIntent::Write, true).error_code, 7u);
  f.set_pde(0, kTable | P | U);  // read-only at the directory level
  f.set_pte(8, 0x8000 | P | W | U);
  EXPECT_EQ(f.fault_of(0x8000, AccessIntent::Write, true).error_code, 7u);
}

TEST(Paging, SupervisorWriteToReadOnlyPageFaultsOnlyWithWp) {
  PagingFixture f;
  f.set_pte(7, 0x7000 | P);
  EXPECT_EQ(f.fault_of(0x7000, AccessIntent::Write, false).vector, 0xFF);
  EXPECT_TRUE(f.pte(7) & D) << "the write without WP sets D";
  f.set_pte(8, 0x8000 | P);
  f.control.wp = true;
  f.apply();
  const Fault fault = f.fault_of(0x8000, AccessIntent::Write, false);
  EXPECT_EQ(fault.vector, 14);
  EXPECT_EQ(fault.error_code, 3u);
}

TEST(Paging, ReadSetsAccessedInBothEntriesWithLockedWritesButNotDirty) {
  PagingFixture f;
  f.set_pte(5, 0x5000 | P | W);
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  EXPECT_EQ(f.pte(5), 0x5000u | P | W | A);
  EXPECT_EQ(f.pde(0), kTable | P | W | U | A);
  EXPECT_EQ(f.locked(AccessKind::PageDirectoryAD), 1u);
  EXPECT_EQ(f.locked(AccessKind::PageTableAD), 1u);
}

// The walk's two entry reads are counted as walk reads, not as the A/D kinds, which
// name only the locked updates (none here: A is set in both entries already).
TEST(Paging, WalkReadsOfBothEntriesAreCountedUnderTheirOwnKinds) {
  PagingFixture f;
  f.set_pte(5, 0x5000 | P | W | A);
  f.set_pde(0, kTable | P | W | U | A);
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  const auto accesses = [&](AccessKind kind) { return f.counters.accesses_by_kind[static_cast<int>(kind)]; };
  EXPECT_EQ(accesses(AccessKind::PageDirectoryRead), 1u);
  EXPECT_EQ(accesses(AccessKind::PageTableRead), 1u);
  EXPECT_EQ(accesses(AccessKind::PageDirectoryAD), 0u);
  EXPECT_EQ(accesses(AccessKind::PageTableAD), 0u);
  EXPECT_EQ(f.locked(AccessKind::PageDirectoryAD) + f.locked(AccessKind::PageTableAD), 0u);
}

TEST(Paging, DirectoryEntryOfATableGetsNoDirtyBit) {
  PagingFixture f;
  f.set_pte(5, 0x5000 | P | W);
  f.mmu.translate(0x5000, AccessIntent::Write, false);
  EXPECT_EQ(f.pte(5), 0x5000u | P | W | A | D);
  EXPECT_EQ(f.pde(0) & D, 0u);
}

TEST(Paging, WriteToAPageReadBeforeSetsDirtyThroughASecondWalk) {
  PagingFixture f;
  f.set_pte(5, 0x5000 | P | W);
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  f.mmu.translate(0x5004, AccessIntent::Read, false);
  EXPECT_EQ(f.counters.page_walks, 1u) << "the second read hits the TLB";
  f.mmu.translate(0x5008, AccessIntent::Write, false);
  EXPECT_TRUE(f.pte(5) & D);
  EXPECT_EQ(f.counters.page_walks, 2u) << "the cached entry had D = 0";
  EXPECT_EQ(f.locked(AccessKind::PageTableAD), 2u) << "A on the read, D on the write";
  f.mmu.translate(0x500C, AccessIntent::Write, false);
  EXPECT_EQ(f.counters.page_walks, 2u) << "now the entry caches D = 1";
}

TEST(Paging, PageAlreadyDirtyIsCachedDirtyOnARead) {
  PagingFixture f;
  f.set_pte(5, 0x5000 | P | W | A | D);
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  f.mmu.translate(0x5000, AccessIntent::Write, false);
  EXPECT_EQ(f.counters.page_walks, 1u);
  EXPECT_EQ(f.locked(AccessKind::PageTableAD), 0u) << "A and D were already set";
}

TEST(Paging, TlbKeepsAStaleTranslationUntilInvlpg) {
  PagingFixture f;
  f.set_pte(5, 0x00300000 | P);
  EXPECT_EQ(f.mmu.translate(0x5000, AccessIntent::Read, false), 0x00300000u);
  f.set_pte(5, 0x00400000 | P);
  EXPECT_EQ(f.mmu.translate(0x5000, AccessIntent::Read, false), 0x00300000u);
  f.mmu.invalidate_page(0x5FFF);
  EXPECT_EQ(f.mmu.translate(0x5000, AccessIntent::Read, false), 0x00400000u);
  EXPECT_EQ(f.counters.tlb_page_invalidations, 1u);
}

TEST(Paging, TlbDoesNotCacheNotPresentEntries) {
  PagingFixture f;
  EXPECT_EQ(f.fault_of(0x5000, AccessIntent::Read, false).vector, 14);
  f.set_pte(5, 0x00300000 | P);
  EXPECT_EQ(f.mmu.translate(0x5000, AccessIntent::Read, false), 0x00300000u);
}

TEST(Paging, RightsGrantedWithoutInvlpgTakeEffectWithoutASpuriousFault) {
  PagingFixture f;
  f.set_pte(5, 0x5000 | P | U);
  f.mmu.translate(0x5000, AccessIntent::Read, true);
  f.set_pte(5, 0x5000 | P | W | U | A);
  EXPECT_EQ(f.fault_of(0x5000, AccessIntent::Write, true).vector, 0xFF);
}

TEST(Paging, RightsTakenAwayWithoutInvlpgStillApplyToADirtyCachedEntry) {
  PagingFixture f;
  f.set_pte(5, 0x5000 | P | W | U);
  f.mmu.translate(0x5000, AccessIntent::Write, true);
  f.set_pte(5, 0x5000 | P | U | A | D);  // now read-only, no INVLPG
  EXPECT_EQ(f.fault_of(0x5000, AccessIntent::Write, true).vector, 0xFF) << "the stale entry allows the write";
  f.mmu.invalidate_page(0x5000);
  EXPECT_EQ(f.fault_of(0x5000, AccessIntent::Write, true).error_code, 7u);
}

TEST(Paging, Cr3ReloadDropsNonGlobalEntriesAndKeepsGlobalOnesWithPge) {
  PagingFixture f;
  f.control.pge = true;
  f.apply();
  f.set_pte(5, 0x00300000 | P | G);
  f.set_pte(6, 0x00310000 | P);
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  f.mmu.translate(0x6000, AccessIntent::Read, false);
  f.set_pte(5, 0x00400000 | P | G);
  f.set_pte(6, 0x00410000 | P);
  f.mmu.flush_non_global();
  EXPECT_EQ(f.mmu.translate(0x5000, AccessIntent::Read, false), 0x00300000u) << "global: kept";
  EXPECT_EQ(f.mmu.translate(0x6000, AccessIntent::Read, false), 0x00410000u) << "non-global: dropped";
}

TEST(Paging, GlobalBitIsIgnoredWithoutPge) {
  PagingFixture f;
  f.set_pte(5, 0x00300000 | P | G);
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  f.set_pte(5, 0x00400000 | P | G);
  f.mmu.flush_non_global();
  EXPECT_EQ(f.mmu.translate(0x5000, AccessIntent::Read, false), 0x00400000u);
}

TEST(Paging, TogglingPgeFlushesGlobalEntries) {
  PagingFixture f;
  const u64 flushes = f.counters.tlb_flushes;
  f.control.pge = true;
  f.apply();
  f.set_pte(5, 0x00300000 | P | G);
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  f.set_pte(5, 0x00400000 | P | G);
  f.control.pge = false;
  f.apply();
  f.control.pge = true;
  f.apply();
  EXPECT_EQ(f.mmu.translate(0x5000, AccessIntent::Read, false), 0x00400000u);
  EXPECT_EQ(f.counters.tlb_flushes - flushes, 3u);
}

TEST(Paging, ADifferentCr3FlushesNonGlobalEntries) {
  PagingFixture f;
  f.set_pte(5, 0x00300000 | P);
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  for (u32 i = 0; i < 1024; ++i) f.poke32(0x30000 + i * 4, f.pde(i));  // a copy of the directory
  f.set_pte(5, 0x00400000 | P);
  f.control.cr3 = 0x30000;
  f.apply();
  EXPECT_EQ(f.mmu.translate(0x5000, AccessIntent::Read, false), 0x00400000u);
}

TEST(Paging, GlobalEntriesSurviveManyCr3Reloads) {
  PagingFixture f;
  f.control.pge = true;
  f.apply();
  f.set_pte(5, 0x00300000 | P | G);
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  f.set_pte(5, 0x00400000 | P | G);
  for (int i = 0; i < 5000; ++i) f.mmu.flush_non_global();  // past the TLB's epoch counter wrap
  EXPECT_EQ(f.mmu.translate(0x5000, AccessIntent::Read, false), 0x00300000u);
  EXPECT_EQ(f.counters.page_walks, 1u);
}

TEST(Paging, FourMibPageWithPseMapsOffsetAndSetsDirtyInTheDirectoryEntry) {
  PagingFixture f;
  f.control.pse = true;
  f.apply();
  f.set_pde(1, 0x00C00000 | P | W | PS);
  EXPECT_EQ(f.mmu.translate(0x00412345, AccessIntent::Write, false), 0x00C12345u);
  EXPECT_EQ(f.pde(1), 0x00C00000u | P | W | PS | A | D);
  EXPECT_EQ(f.locked(AccessKind::PageDirectoryAD), 1u) << "A and D in one locked update";
}

TEST(Paging, PageSizeBitIsIgnoredWithoutPse) {
  PagingFixture f;
  f.set_pde(1, 0x12000 | P | W | PS);
  f.poke32(0x12000 + 0x12 * 4, 0x00700000 | P);
  EXPECT_EQ(f.mmu.translate(0x00412345, AccessIntent::Read, false), 0x00700345u);
}

TEST(Paging, InvlpgOfAnyAddressInAFourMibPageDropsAllOfIt) {
  PagingFixture f;
  f.control.pse = true;
  f.apply();
  f.set_pde(1, 0x00C00000 | P | W | PS);
  f.mmu.translate(0x00400000, AccessIntent::Read, false);
  f.mmu.translate(0x00401000, AccessIntent::Read, false);
  f.set_pde(1, 0x01000000 | P | W | PS);
  f.mmu.invalidate_page(0x007FF000);
  EXPECT_EQ(f.mmu.translate(0x00401000, AccessIntent::Read, false), 0x01001000u);
  EXPECT_EQ(f.mmu.translate(0x00400000, AccessIntent::Read, false), 0x01000000u);
}

TEST(Paging, PageCrossingWriteChecksBothPagesBeforeWritingAnyByte) {
  PagingFixture f;
  f.set_pte(5, 0x5000 | P | W | U);
  f.set_pte(6, 0x6000 | P | U);  // read-only
  try {
    f.mmu.write<u32>(0x5FFE, 0xAABBCCDD, AccessKind::Data, true);
    FAIL() << "no #PF";
  } catch (const Fault& fault) {
    EXPECT_EQ(fault.error_code, 7u);
    EXPECT_EQ(fault.linear_address, 0x6000u);
  }
  EXPECT_EQ(f.bus.peek(0x5FFE), 0);
  EXPECT_EQ(f.bus.peek(0x5FFF), 0);
}

TEST(Paging, PageCrossingQuadwordReadAssemblesEveryByte) {
  PagingFixture f;
  f.set_pte(5, 0x00300000 | P);
  f.set_pte(6, 0x00200000 | P);
  for (u32 i = 0; i < 4; ++i) f.bus.poke(0x00300FFC + i, static_cast<u8>(0x11 * (i + 1)));
  for (u32 i = 0; i < 4; ++i) f.bus.poke(0x00200000 + i, static_cast<u8>(0x55 + 0x11 * i));
  EXPECT_EQ(f.mmu.read<u64>(0x5FFC, AccessKind::Data, false), 0x8877665544332211ull);
}

// Direct accesses (TlbEntry host pointers): a TLB hit on RAM reads and writes host
// memory without the bus's page look-up, so everything the bus decides per page must
// still hold: code-page writes reported, A20 wrap-around, ROM writes dropped.
struct CodeWrites : CodeWriteListener {
  std::vector<u32> pages;
  void code_blocks_written(u32 page, u64) override { pages.push_back(page); }
};

TEST(Paging, ADirectStoreIntoAFrameThatBecameCodeIsReported) {
  PagingFixture f;
  CodeWrites writes;
  f.bus.add_code_write_listener(&writes);
  f.set_pte(5, 0x00300000 | P | W);
  f.mmu.write<u32>(0x5000, 1, AccessKind::Data, false);  // fills the TLB with a writable RAM frame
  f.bus.fetch<u8>(0x00300010);                            // an instruction fetch marks frame 300h as code
  f.mmu.write<u32>(0x5020, 2, AccessKind::Data, false);  // beside the fetched byte
  EXPECT_TRUE(writes.pages.empty());
  f.mmu.write<u32>(0x500E, 3, AccessKind::Data, false);  // 300Eh-3011h: over it
  EXPECT_EQ(writes.pages, std::vector<u32>{0x300});
  EXPECT_EQ(f.peek32(0x00300020), 2u);
  EXPECT_EQ(f.peek32(0x0030000E), 3u);
  f.bus.remove_code_write_listener(&writes);
}

TEST(Paging, DirectAccessesFollowTheA20Gate) {
  PagingFixture f;
  f.set_pte(5, 0x00101000 | P | W);  // a frame above 1 MiB: bit 20 set
  f.poke32(0x00101000, 0x11111111);
  f.poke32(0x00001000, 0x22222222);
  EXPECT_EQ(f.mmu.read<u32>(0x5000, AccessKind::Data, false), 0x11111111u);
  f.bus.set_a20(false);
  EXPECT_EQ(f.mmu.read<u32>(0x5000, AccessKind::Data, false), 0x22222222u) << "bit 20 is masked: physical 1000h";
  f.mmu.write<u32>(0x5004, 0x33333333, AccessKind::Data, false);
  EXPECT_EQ(f.peek32(0x00001004), 0x33333333u);
  f.bus.set_a20(true);
  EXPECT_EQ(f.mmu.read<u32>(0x5000, AccessKind::Data, false), 0x11111111u);
}

TEST(Paging, DirectReadsSeeRomAndStoresToItAreDropped) {
  PagingFixture f;
  std::vector<u8> image(0x1000, 0xC3);
  f.bus.map_rom(0x00700000, image);
  f.set_pte(5, 0x00700000 | P | W);
  EXPECT_EQ(f.mmu.read<u32>(0x5000, AccessKind::Data, false), 0xC3C3C3C3u);
  f.mmu.write<u32>(0x5000, 0, AccessKind::Data, false);
  EXPECT_EQ(f.mmu.read<u32>(0x5000, AccessKind::Data, false), 0xC3C3C3C3u);
}

TEST(Paging, TheTranslationEpochChangesOnlyWhenACachedTranslationMayChange) {
  PagingFixture f;
  f.set_pte(5, 0x00300000 | P | W);
  f.set_pde(1, kTable | P | W);  // linear 405000h uses the same table entry, and the same TLB slot as 5000h
  u32 epoch = f.mmu.translation_epoch();
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  EXPECT_EQ(f.mmu.translation_epoch(), epoch) << "a fill into a free slot changes no translation";
  f.mmu.translate(0x405000, AccessIntent::Read, false);
  EXPECT_NE(f.mmu.translation_epoch(), epoch) << "this fill replaces the translation of 5000h";
  epoch = f.mmu.translation_epoch();
  f.mmu.invalidate_page(0x405000);
  EXPECT_NE(f.mmu.translation_epoch(), epoch);
  epoch = f.mmu.translation_epoch();
  f.mmu.flush_non_global();
  EXPECT_NE(f.mmu.translation_epoch(), epoch);
}

TEST(Paging, DebuggerPeekSetsNoBitsFillsNoTlbAndCountsNothing) {
  PagingFixture f;
  f.set_pte(5, 0x00300000 | P);
  f.bus.poke(0x00300010, 0x5A);
  const Counters before = f.counters;
  EXPECT_EQ(f.mmu.peek_linear(0x5010), 0x5A);
  EXPECT_FALSE(f.mmu.peek_linear(0x9000).has_value()) << "not present";
  EXPECT_EQ(f.pte(5), 0x00300000u | P);
  EXPECT_EQ(f.pde(0) & A, 0u);
  EXPECT_EQ(f.counters.page_walks, before.page_walks);
  EXPECT_EQ(f.counters.accesses_by_kind, before.accesses_by_kind);
  f.set_pte(5, 0x00400000 | P);
  EXPECT_EQ(f.mmu.translate(0x5010, AccessIntent::Read, false), 0x00400010u) << "peek left no TLB entry";
}

TEST(Paging, DebuggerSeesTheTranslationTheTlbHolds) {
  PagingFixture f;
  f.set_pte(5, 0x00300000 | P);
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  f.set_pte(5, 0x00400000 | P);
  EXPECT_EQ(f.mmu.debug_translate(0x5123), 0x00300123u);
  EXPECT_TRUE(f.mmu.poke_linear(0x5123, 0x77));
  EXPECT_EQ(f.bus.peek(0x00300123), 0x77);
}

TEST(TlbModel, CountsMissesForNewPagesAndHitsForRepeatedOnes) {
  PagingFixture f;
  f.set_pte(5, 0x5000 | P);
  f.set_pte(6, 0x6000 | P);
  f.mmu.translate(0x5000, AccessIntent::Read, false);
  f.mmu.translate(0x5004, AccessIntent::Read, false);
  f.mmu.translate(0x6000, AccessIntent::Read, false);
  f.mmu.translate(0x5008, AccessIntent::Read, false);
  EXPECT_EQ(f.counters.tlb_data_misses, 2u);
  EXPECT_EQ(f.counters.tlb_data_hits, 2u);
}

TEST(TlbModel, AFourWaySetEvictsItsLeastRecentlyUsedPage) {
  PagingFixture f;  // P6 data TLB: 64 entries, 4-way: 16 sets, pages 16 apart share a set
  for (u32 k = 0; k < 5; ++k) f.set_pte(k * 16, (k * 16) << 12 | P);
  for (u32 k = 0; k < 5; ++k) f.mmu.translate((k * 16) << 12, AccessIntent::Read, false);
  EXPECT_EQ(f.counters.tlb_data_misses, 5u);
  f.mmu.translate(0x40000, AccessIntent::Read, false);  // page 64: still cached
  EXPECT_EQ(f.counters.tlb_data_hits, 1u);
  f.mmu.translate(0x0, AccessIntent::Read, false);  // page 0: evicted by page 64
  EXPECT_EQ(f.counters.tlb_data_misses, 6u);
}

// Data accesses to the most recently used way of a set are counted from a mark in
// the TLB model marks beside the functional TLB (TlbModelMarks::kMru). The counts must stay those of LRU
// sets: pages 10h-50h share set 0 of the P6's 4-way data TLB (16 sets).
TEST(TlbModel, AMarkIsDroppedWhenAnotherPageOfItsSetBecomesMostRecentlyUsed) {
  PagingFixture f;
  for (u32 page = 0x10; page <= 0x50; page += 0x10) f.set_pte(page, page << 12 | P | W);
  const auto read = [&](u32 page) { f.mmu.read<u32>(page << 12, AccessKind::Data, false); };
  for (u32 page : {0x10, 0x20, 0x10, 0x30, 0x40}) read(page);
  // LRU order, oldest first: 20h, 10h, 30h, 40h. 50h replaces 20h, and 10h stays.
  read(0x50);
  read(0x10);
  read(0x20);
  EXPECT_EQ(f.counters.tlb_data_misses, 6u) << "20h was replaced";
  EXPECT_EQ(f.counters.tlb_data_hits, 2u) << "10h's second access must make it newer than 20h";
}

// The CPU's direct accesses (Mmu::direct_pointer) count a hit on any page the model
// holds (TlbModelMarks::kResident) without a call into the model's look-up; a hit on
// a way that is not its set's most recently used one must still make it that, and a
// page the model replaced must lose its mark. Pages 10h-50h share set 0 (LRU order,
// oldest first, in the comments).
TEST(TlbModel, DirectAccessesKeepTheLruOrderAndLoseTheMarkOfAReplacedPage) {
  PagingFixture f;
  for (u32 page = 0x10; page <= 0x50; page += 0x10) f.set_pte(page, page << 12 | P | W);
  const auto direct = [&](u32 page) {
    return f.mmu.direct_pointer<AccessIntent::Read>(page << 12, 4, false, AccessKind::Data) != nullptr;
  };
  const auto access = [&](u32 page) {  // as the CPU does: direct, else the checked path
    if (!direct(page)) f.mmu.read<u32>(page << 12, AccessKind::Data, false);
  };
  for (u32 page : {0x10, 0x20, 0x30, 0x40}) access(page);  // 10h 20h 30h 40h
  EXPECT_TRUE(direct(0x10)) << "a held page that is not the most recently used";  // 20h 30h 40h 10h
  access(0x50);  // replaces 20h: 30h 40h 10h 50h
  access(0x20);  // replaces 30h: 40h 10h 50h 20h
  EXPECT_TRUE(direct(0x10));  // 40h 50h 20h 10h
  EXPECT_FALSE(direct(0x30)) << "30h was replaced";
  access(0x30);  // replaces 40h
  EXPECT_EQ(f.counters.tlb_data_misses, 7u);
  EXPECT_EQ(f.counters.tlb_data_hits, 2u);
}

// MOV CR3 keeps global translations (functional and modeled) but the model's
// most-recently-used knowledge is gone, so the global page's mark must go too.
TEST(TlbModel, AGlobalPageKeepsNoMarkAcrossAFlush) {
  PagingFixture f;
  f.control.pge = true;
  f.apply();
  f.set_pte(0x10, 0x10000 | P | W | 0x100);  // G
  for (u32 page = 0x20; page <= 0x50; page += 0x10) f.set_pte(page, page << 12 | P | W);
  const auto read = [&](u32 page) { f.mmu.read<u32>(page << 12, AccessKind::Data, false); };
  read(0x10);
  f.mmu.flush_non_global();
  for (u32 page : {0x10, 0x20, 0x10, 0x30, 0x40}) read(page);
  // LRU order, oldest first: 20h, 10h, 30h, 40h. 50h replaces 20h, and 10h stays.
  read(0x50);
  read(0x10);
  read(0x20);
  EXPECT_EQ(f.counters.tlb_data_misses, 6u) << "20h was replaced";
  EXPECT_EQ(f.counters.tlb_data_hits, 3u);
}

TEST(TlbModel, GeometryChangesCountsButNeverTranslations) {
  PagingFixture small, large;
  small.mmu.set_tlb_geometry({{1, 1}, {1, 1}, {1, 1}, {1, 1}});
  for (PagingFixture* f : {&small, &large})
    for (u32 k = 0; k < 8; ++k) f->set_pte(k, (0x100 + k) << 12 | P);
  for (int round = 0; round < 2; ++round)
    for (u32 k = 0; k < 8; ++k)
      EXPECT_EQ(small.mmu.translate(k << 12, AccessIntent::Read, false),
                large.mmu.translate(k << 12, AccessIntent::Read, false));
  EXPECT_EQ(small.counters.tlb_data_misses, 16u);
  EXPECT_EQ(large.counters.tlb_data_misses, 8u);
  EXPECT_EQ(small.counters.page_walks, large.counters.page_walks);
}

TEST(TlbModel, InstructionFetchesAreLookedUpOncePerPageRun) {
  PagingFixture f;
  f.set_pte(5, 0x5000 | P);
  f.set_pte(6, 0x6000 | P);
  for (u32 i = 0; i < 16; ++i) f.mmu.fetch(0x5FF8 + i, false);
  EXPECT_EQ(f.counters.tlb_code_misses, 2u);
  EXPECT_EQ(f.counters.tlb_code_hits, 0u);
  f.mmu.fetch(0x5000, false);
  EXPECT_EQ(f.counters.tlb_code_hits, 1u);
}

}  // namespace
}  // namespace x86lab
