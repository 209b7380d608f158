// The L1 cache model (trace/cache_model.h): hit and miss sequences worked by hand from
// the documented geometries (docs/cost-model.md, "Cache model"), the observer's
// filtering and costs, and the profile keys that configure it.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "../mmu/bus_words.h"
#include "mmu/paging.h"
#include "trace/cache_model.h"
#include "trace/cost_model.h"

namespace x86lab {
namespace {

// K7 L1 (AMD Athlon x86 Code Optimization Guide): 64 KiB, 2-way, 64-byte lines, so
// 512 sets of 2 and a set index in address bits 6-14: lines 32 KiB apart share a set.
constexpr CacheGeometry kK7{65536, 2, 64};
// P6 L1 (Intel SDM Vol. 3A Table 11-1): 16 KiB, 4-way, 32-byte lines: 128 sets, index
// in bits 5-11, so lines 4 KiB apart share a set.
constexpr CacheGeometry kP3{16384, 4, 32};

TEST(SetAssociativeCache, ThreeLinesOfOneTwoWaySetAreEvictedLeastRecentlyUsedFirst) {
  SetAssociativeCache cache(kK7);
  const u32 a = 0x0000, b = 0x8000, c = 0x10000;  // set 0 each
  EXPECT_FALSE(cache.access(a));
  EXPECT_FALSE(cache.access(b));
  EXPECT_TRUE(cache.access(a + 63));  // the same line as a: a hit, a becomes the MRU
  EXPECT_FALSE(cache.access(c));      // evicts b, the LRU
  EXPECT_TRUE(cache.holds(a));
  EXPECT_FALSE(cache.holds(b));
  EXPECT_TRUE(cache.access(a));   // a is the MRU again, c the LRU
  EXPECT_FALSE(cache.access(b));  // evicts c
  EXPECT_FALSE(cache.holds(c));
  EXPECT_TRUE(cache.holds(a));
  EXPECT_FALSE(cache.access(0x40));  // set 1: its miss evicts nothing of set 0
  EXPECT_TRUE(cache.holds(a));
  EXPECT_TRUE(cache.holds(b));
}

TEST(SetAssociativeCache, LinesOfOtherSetsDoNotEvict) {
  SetAssociativeCache cache(kK7);
  // 1024 lines 64 bytes apart fill all 512 sets twice: the whole 64 KiB.
  for (u32 line = 0; line < 1024; ++line) EXPECT_FALSE(cache.access(line * 64));
  for (u32 line = 0; line < 1024; ++line) EXPECT_TRUE(cache.access(line * 64)) << line;
}

TEST(SetAssociativeCache, FiveLinesCycledThroughAFourWaySetAllMissButFourAllHit) {
  SetAssociativeCache cache(kP3);
  // Lines 4 KiB apart: set 0 of the P6 L1. Cycling 4 of them: 4 cold misses, then hits.
  unsigned misses = 0;
  for (int round = 0; round < 3; ++round)
    for (u32 k = 0; k < 4; ++k) misses += !cache.access(k * 0x1000);
  EXPECT_EQ(misses, 4u);
  // Cycling 5: under LRU the line needed next is always the one just evicted.
  SetAssociativeCache other(kP3);
  misses = 0;
  for (int round = 0; round < 3; ++round)
    for (u32 k = 0; k < 5; ++k) misses += !other.access(k * 0x1000);
  EXPECT_EQ(misses, 15u);
}

TEST(SetAssociativeCache, ADirectMappedCacheKeepsOneLinePerSet) {
  SetAssociativeCache cache(CacheGeometry{4096, 1, 32});
  EXPECT_FALSE(cache.access(0));
  EXPECT_TRUE(cache.access(31));
  EXPECT_FALSE(cache.access(4096));  // set 0 again
  EXPECT_FALSE(cache.holds(0));
}

TEST(CacheObserver, CountsAndChargesEachMissAndFiltersRepeats) {
  Counters counters;
  ModeledClock clock;
  CacheObserver caches(counters, clock);
  clock.costs[static_cast<std::size_t>(CostPart::L1iMiss)] = 18 * kSubcyclesPerCycle;
  clock.costs[static_cast<std::size_t>(CostPart::L1dMiss)] = 8 * kSubcyclesPerCycle;
  caches.configure(kP3, kK7);
  caches.fetch(0x1000);
  caches.fetch(0x1001);  // the same 32-byte line
  caches.fetch(0x1020);  // the next
  caches.fetch(0x1000);  // a hit
  EXPECT_EQ(counters.l1i_misses, 2u);
  caches.data(0x2000, 4);
  caches.data(0x2004, 4);   // the same 64-byte line
  caches.data(0x203E, 4);   // bytes 203Eh-2041h: that line (a hit) and the next (a miss)
  caches.data(0x1FFF, 2);   // 1FFFh in the line before 2000h (a miss), 2000h in 2000h's (a hit)
  EXPECT_EQ(counters.l1d_misses, 3u);
  EXPECT_EQ(clock.cycles(), 2u * 18 + 3u * 8);
  caches.invalidate();
  caches.fetch(0x1000);
  caches.data(0x2000, 4);
  EXPECT_EQ(counters.l1i_misses, 3u);
  EXPECT_EQ(counters.l1d_misses, 4u);
}

TEST(CacheObserver, ACacheTheProfileDoesNotGiveCountsNothing) {
  Counters counters;
  ModeledClock clock;
  CacheObserver caches(counters, clock);
  caches.configure({}, kK7);  // p4: no L1I
  for (u32 a = 0; a < 0x10000; a += 64) caches.fetch(a);
  EXPECT_EQ(counters.l1i_misses, 0u);
  EXPECT_EQ(caches.fetch_run_bytes(), 0x1000u);
  caches.configure({}, {});
  for (u32 a = 0; a < 0x10000; a += 64) caches.data(a, 4);
  EXPECT_EQ(counters.l1d_misses, 0u);
  EXPECT_EQ(clock.subcycles, 0u);
}

// The observer's filters (the last two lines, the older only while in another set)
// skip only look-ups that are hits changing nothing: over a pseudo-random sequence of
// fetches and data accesses, mostly near the last few lines and often in one set, it
// counts exactly the misses of caches looked up on every access.
TEST(CacheObserver, FilteringChangesNoMissCount) {
  for (const CacheGeometry& geometry : {kP3, kK7, CacheGeometry{4096, 1, 64}}) {
    Counters counters;
    ModeledClock clock;
    CacheObserver caches(counters, clock);
    caches.configure(geometry, geometry);
    SetAssociativeCache l1i(geometry), l1d(geometry);
    u64 l1i_misses = 0, l1d_misses = 0;
    u32 state = 12345, recent[4] = {0, 0, 0, 0};
    for (int i = 0; i < 200000; ++i) {
      state = state * 1103515245u + 12345u;  // (the C standard's example generator)
      const u32 r = state >> 8;
      // Near a recent address (same line, next line, or the same set one way-span away), or anywhere in 256 KiB.
      u32 address = recent[r & 3];
      switch ((r >> 2) & 7) {
        case 0: address = r & 0x3FFFF; break;
        case 1: address += geometry.line; break;
        case 2: address += geometry.size / geometry.ways; break;
        case 3: address -= geometry.size / geometry.ways; break;
        default: address += (r >> 5) & 7; break;
      }
      address &= 0x3FFFF;
      recent[(r >> 10) & 3] = address;
      if (r & 0x8000) {
        caches.fetch(address);
        l1i_misses += !l1i.access(address);
      } else {
        const unsigned size = 1u << ((r >> 16) & 3);  // 1, 2, 4 or 8 bytes
        caches.data(address, size);
        l1d_misses += !l1d.access(address);
        if ((address ^ (address + size - 1)) >> l1d.line_shift()) l1d_misses += !l1d.access(address + size - 1);
      }
    }
    EXPECT_EQ(counters.l1i_misses, l1i_misses) << geometry.size;
    EXPECT_EQ(counters.l1d_misses, l1d_misses) << geometry.size;
    EXPECT_GT(l1i_misses, 1000u);  // (the sequence does miss)
  }
}

// The model sees a data access at the physical address the bus uses: with paging on
// and the A20 gate closed, a page whose PTE names frame 100000h is read at 0 (bit 20
// masked; SDM Vol. 3A "Address Translation"/A20M#, and the PC's gate), so it shares its
// line with frame 0. p3 L1D: the PDE (10000h) and PTE (11000h) reads miss, the first
// read (frame 100000h, so 0) misses; the second (PTE 11004h: 11000h's line; frame 0)
// hits all three lines: 3 misses (4 if the frame were not masked).
TEST(CacheObserver, SeesPagedDataAtTheA20MaskedAddress) {
  Counters counters;
  PhysicalBus bus{8 << 20, counters};
  Mmu mmu{bus};
  ModeledClock clock;
  CacheObserver caches(counters, clock);
  caches.configure(kP3, kP3);
  bus.attach_caches(&caches);
  mmu.set_direct_access(false);  // as Cpu::set_cache_model(true) does
  constexpr u32 P = 1, W = 2, A = 0x20, D = 0x40;
  testing::poke32(bus, 0x10000, 0x11000 | P | W | A);
  testing::poke32(bus, 0x11000, 0x100000 | P | W | A | D);  // linear 0 -> frame 100000h
  testing::poke32(bus, 0x11004, 0x000000 | P | W | A | D);  // linear 1000h -> frame 0
  PagingControl control;
  control.pg = true;
  control.cr3 = 0x10000;
  mmu.set_control(control);
  bus.set_a20(A20Source::KeyboardController, false);
  ASSERT_FALSE(bus.a20());
  mmu.read<u32>(0x0000, AccessKind::Data, false);
  EXPECT_EQ(counters.l1d_misses, 3u);
  mmu.read<u32>(0x1000, AccessKind::Data, false);
  mmu.write<u32>(0x1004, 1, AccessKind::Data, false);
  EXPECT_EQ(counters.l1d_misses, 3u);
  bus.attach_caches(nullptr);
}

void expect_invalid_argument(const std::string& text, const std::string& message) {
  try {
    parse_cost_model(text, "x.cost", {});
    ADD_FAILURE() << "no error for: " << text;
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(CostModelCacheKeys, TheGeometryAndMissCostsAreRead) {
  const CostModel m = parse_cost_model(
      "name = x  source: t\nl1i-size = 16384  source: t\nl1i-ways = 4  source: t\nl1i-line = 32  source: t\n"
      "l1i-miss = 18  source: t\nl1d-size = 65536  source: t\nl1d-ways = 2  source: t\nl1d-line = 64  source: t\n"
      "l1d-miss = 2.5  source: t\n",
      "x.cost", {});
  EXPECT_EQ(m.l1i, (CacheGeometry{16384, 4, 32}));
  EXPECT_EQ(m.l1d, (CacheGeometry{65536, 2, 64}));
  EXPECT_EQ(m.part(CostPart::L1iMiss), 18u * 256);
  EXPECT_EQ(m.part(CostPart::L1dMiss), 640u);
  EXPECT_EQ(parse_cost_model("name = x  source: t\n", "x.cost", {}).l1i, CacheGeometry{});
}

TEST(CostModelCacheKeys, BadGeometriesAreErrorsNamingTheLine) {
  expect_invalid_argument("name = x  source: t\nl1i-ways = 3  source: t\n",
                          "x.cost:2: 'l1i-ways' must be a whole power of two from 1 to 2^24");
  expect_invalid_argument("name = x  source: t\n\nl1d-size = 1000.5  source: t\n",
                          "x.cost:3: 'l1d-size' must be a whole power of two from 1 to 2^24");
  expect_invalid_argument("name = x  source: t\nl1d-line = 16  source: t\n",
                          "x.cost:2: 'l1d-line' must be 32 to 4096 bytes");
  expect_invalid_argument("name = x  source: t\nl1i-size = 16384  source: t\nl1i-ways = 4  source: t\n",
                          "x.cost:3: 'l1i' needs all of l1i-size, l1i-ways and l1i-line");
  expect_invalid_argument(
      "name = x  source: t\nl1d-size = 1024  source: t\nl1d-ways = 64  source: t\nl1d-line = 32  source: t\n",
      "x.cost:4: 'l1d': l1d-ways times l1d-line exceeds l1d-size");
  expect_invalid_argument("name = x  source: t\nl1i-colour = 1  source: t\n", "x.cost:2: unknown key 'l1i-colour'");
  expect_invalid_argument("name = x  source: t\nl1i-miss = -1  source: t\n",
                          "x.cost:2: '-1' is not a non-negative number");
}

// The built-in profiles' caches, as their sources give them.
TEST(CostModelCacheKeys, TheBuiltinProfilesHaveTheirVendorsGeometries) {
  EXPECT_EQ(builtin_cost_model("p3").l1i, kP3);
  EXPECT_EQ(builtin_cost_model("p3").l1d, kP3);
  EXPECT_EQ(builtin_cost_model("k7").l1i, kK7);
  EXPECT_EQ(builtin_cost_model("k7").l1d, kK7);
  EXPECT_EQ(builtin_cost_model("p4").l1i, CacheGeometry{});  // a trace cache instead
  EXPECT_EQ(builtin_cost_model("p4").l1d, (CacheGeometry{16384, 8, 64}));
  EXPECT_EQ(builtin_cost_model("modern").l1d, (CacheGeometry{32768, 8, 64}));
  EXPECT_EQ(builtin_cost_model("p3").part(CostPart::L1iMiss), 18u * 256);
  EXPECT_EQ(builtin_cost_model("k7").part(CostPart::L1dMiss), 8u * 256);
}

}  // namespace
}  // namespace x86lab
