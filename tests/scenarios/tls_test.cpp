// The TLS scenario (roms/scenarios/tls/, docs/scenarios/tls.md; seed 000): the
// hypervisor's descriptor arithmetic against the worked table of
// docs/scenarios.md section 1 and the simulator's own limit checks, the ring-3
// program's %gs accesses as gcc compiled them (objdump listing next to the image), and
// each variant's #GP, replay, GS-load and locked-write counts against that structure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "../segmentation/protected_fixture.h"
#include "platform/scenario/scenario_runner.h"
#include "roms/scenarios/tls/descriptor.h"
#include "segmentation/descriptor.h"

namespace x86lab {
namespace {

constexpr u32 kThreadPointer = 0xB7E00000u;

u64 raw(seg_desc d) { return (u64{d.high} << 32) | d.low; }

// [valid_min, valid_max] of `d` loaded into a descriptor cache by the simulator.
std::pair<u32, u32> valid_range(seg_desc d) {
  DescriptorCache cache;
  cache.load(Descriptor::parse(raw(d)));
  return {cache.valid_min, cache.valid_max};
}

TEST(TlsDescriptor, WorkedTableOfTheScenarioDocument) {
  const seg_desc asked = desc_glibc_tls(kThreadPointer);
  EXPECT_EQ(asked.high, 0xB7DFF2E0u);
  EXPECT_EQ(asked.low, 0x0000FFFFu);
  const seg_desc clipped = desc_truncate(asked);
  EXPECT_EQ(clipped.high, 0xB7D4F2E0u);
  EXPECT_EQ(clipped.low, 0x000045FFu);
  const seg_desc down = desc_flip_down(clipped);
  EXPECT_EQ(down.high, 0xB7D4F6E0u);
  EXPECT_EQ(down.low, 0x000081FFu);
  const seg_desc up = desc_flip_up(down);
  EXPECT_EQ(raw(up), raw(clipped));
  // The flips keep the Accessed bit the CPU set in the GDT.
  const seg_desc accessed{clipped.low, clipped.high | DESC_ACCESSED};
  EXPECT_EQ(desc_flip_down(accessed).high, 0xB7D4F7E0u);
}

TEST(TlsDescriptor, AccessibleOffsetsAgreeWithTheSimulatorsLimitCheck) {
  const seg_desc asked = desc_glibc_tls(kThreadPointer);
  const seg_desc clipped = desc_truncate(asked);
  const seg_desc down = desc_flip_down(clipped);
  EXPECT_EQ(valid_range(asked), std::make_pair(0u, 0xFFFFFFFFu));
  EXPECT_EQ(valid_range(clipped), std::make_pair(0u, 0x445FFFFFu));
  EXPECT_EQ(valid_range(down), std::make_pair(0x48200000u, 0xFFFFFFFFu));
  // Expand-down covers linear [0, B): the lowest valid offset wraps to linear 0.
  EXPECT_EQ(static_cast<u32>(kThreadPointer + valid_range(down).first), 0u);
  EXPECT_EQ(kThreadPointer + 0x445FFFFFu + 1, TLS_SEGMENT_CLIP);
  for (const seg_desc d : {asked, clipped, down})
    for (const u32 offset : {0x0u, 0x14u, 0x445FFFFCu, 0x48200000u, 0xFFFFFFF0u, 0xFFFFFFFCu}) {
      const auto [lo, hi] = valid_range(d);
      EXPECT_EQ(desc_offset_valid(d, offset, 4) != 0, offset >= lo && offset <= hi - 3) << std::hex << offset;
    }
  // A segment that already ends below the clip, and system descriptors, stay as they are.
  const seg_desc small = desc_make(0x1000, 0xFFFF, 0xF2, 0x4);
  EXPECT_EQ(raw(desc_truncate(small)), raw(small));
  const seg_desc tss = desc_make(0x1000, 0x67, 0x89, 0x0);
  EXPECT_EQ(raw(desc_truncate(tss)), raw(tss));
}

// Counters::replayed_instructions with a handler at the faulting CPL (the scenario
// covers ring 3 -> ring 0 -> ring 3): mov ds, ax with an LDT selector and no LDT
// raises #GP(4) (SDM "MOV - Move"); the ring-0 handler either fixes EAX and returns to
// the MOV, which then retires (a replay), or steps over it (no replay).
TEST(ReplayedInstructions, SameRingHandlerReturningToTheFaultingInstructionCountsOnce) {
  testing::ProtectedModeFixture f;
  f.cpu.watch_replays();
  f.put_idt(13, testing::gate(testing::kCode, 0x1400, 0x8E));
  f.cpu.state.gpr[EAX] = 0x7;
  f.code(0x1000, {0x8E, 0xD8, 0x90, 0x90});                                // mov ds, ax; nop; nop
  f.code(0x1400, {0xB8, 0x10, 0x00, 0x00, 0x00, 0x83, 0xC4, 0x04, 0xCF});  // mov eax, 10h; add esp, 4; iretd
  f.steps(1 + 3 + 1 + 2);  // fault, handler, the MOV again, two NOPs
  EXPECT_EQ(f.counters.exceptions_by_vector[13], 1u);
  EXPECT_EQ(f.cpu.state.eip, 0x1004u);
  EXPECT_EQ(f.counters.replayed_instructions, 1u);
}

// Without a replay watch attached (Cpu::watch_replays), the same replay counts nothing.
TEST(ReplayedInstructions, AreCountedOnlyWithTheWatchAttached) {
  testing::ProtectedModeFixture f;
  f.put_idt(13, testing::gate(testing::kCode, 0x1400, 0x8E));
  f.cpu.state.gpr[EAX] = 0x7;
  f.code(0x1000, {0x8E, 0xD8, 0x90, 0x90});                                // mov ds, ax; nop; nop
  f.code(0x1400, {0xB8, 0x10, 0x00, 0x00, 0x00, 0x83, 0xC4, 0x04, 0xCF});  // mov eax, 10h; add esp, 4; iretd
  f.steps(1 + 3 + 1 + 2);
  EXPECT_EQ(f.cpu.state.eip, 0x1004u);
  EXPECT_EQ(f.counters.replayed_instructions, 0u);
}

TEST(ReplayedInstructions, HandlerThatAdvancesEipCountsNoReplay) {
  testing::ProtectedModeFixture f;
  f.cpu.watch_replays();
  f.put_idt(13, testing::gate(testing::kCode, 0x1400, 0x8E));
  f.cpu.state.gpr[EAX] = 0x7;
  f.code(0x1000, {0x8E, 0xD8, 0x90, 0x90});
  // add dword [esp+4], 2 (the saved EIP, past the error code); add esp, 4; iretd
  f.code(0x1400, {0x83, 0x44, 0x24, 0x04, 0x02, 0x83, 0xC4, 0x04, 0xCF});
  f.steps(1 + 3 + 2);
  EXPECT_EQ(f.counters.exceptions_by_vector[13], 1u);
  EXPECT_EQ(f.cpu.state.eip, 0x1004u);
  EXPECT_EQ(f.counters.replayed_instructions, 0u);
}

// The signs of the %gs accesses of one ring-3 function, in program order, from
// objdump's listing ('-' for an offset with bit 31 set), and how many load %gs:0x0.
struct GsAccesses {
  std::string signs;
  unsigned thread_pointer_loads = 0;
};

std::map<std::string, GsAccesses> read_listing(const std::string& image) {
  const std::string path = X86LAB_ROM_DIR "/scenarios/tls/" + image + ".user.lst";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::map<std::string, GsAccesses> functions;
  std::string line, current;
  while (std::getline(in, line)) {
    const auto open = line.find(" <"), close = line.find(">:");
    if (open != std::string::npos && close != std::string::npos && close > open) {
      current = line.substr(open + 2, close - open - 2);
      functions[current];
      continue;
    }
    const auto gs = line.find("%gs:0x");
    if (gs == std::string::npos || current.empty()) continue;
    const u32 offset = static_cast<u32>(std::stoul(line.substr(gs + 6), nullptr, 16));
    functions[current].signs += (offset >> 31) ? '-' : '+';
    if (offset == 0) ++functions[current].thread_pointer_loads;
  }
  return functions;
}

unsigned count(const std::string& s, char c) { return static_cast<unsigned>(std::count(s.begin(), s.end(), c)); }

TEST(TlsProgram, GccEmitsNegativeGsOffsetsOnlyWithoutTheVirtualisationFlag) {
  const auto direct = read_listing("tls");
  const auto happy = read_listing("tls_virt_happy");
  ASSERT_TRUE(direct.count("tls_operation") && direct.count("tls_after_yield"));
  ASSERT_TRUE(happy.count("tls_operation") && happy.count("tls_after_yield"));
  // glibc-style reads interleaved with __thread accesses (user.c).
  EXPECT_EQ(direct.at("tls_operation").signs, "+-+-+-+-");
  EXPECT_EQ(direct.at("tls_after_yield").signs, "-");
  EXPECT_EQ(count(happy.at("tls_operation").signs, '-') + count(happy.at("tls_after_yield").signs, '-'), 0u);
  EXPECT_GE(happy.at("tls_operation").thread_pointer_loads, 1u);
  EXPECT_EQ(happy.at("tls_after_yield").thread_pointer_loads, 1u);
}

const ScenarioManifest& manifest() {
  static const ScenarioManifest m = load_manifest(X86LAB_ROM_DIR "/scenarios/tls/variants.json");
  return m;
}

const VariantResult& result(const std::string& name) {
  static std::map<std::string, VariantResult> results;
  auto it = results.find(name);
  if (it == results.end()) {
    const VariantSpec* spec = manifest().find(name);
    if (!spec) throw std::runtime_error("no variant " + name);
    it = results.emplace(name, run_variant(manifest(), *spec, "p3")).first;
  }
  return it->second;
}

i64 metric(const VariantResult& r, const std::string& name) {
  const auto it = r.metrics.find(name);
  if (it == r.metrics.end()) throw std::runtime_error(r.name + ": no METRIC " + name);
  return it->second;
}

u64 gp_count(const VariantResult& r) { return r.counters.exceptions_by_vector[13]; }
u64 locked_accessed(const VariantResult& r) {
  return r.counters.locked_by_kind[static_cast<std::size_t>(AccessKind::DescriptorAccessedBit)];
}

// What the program's structure predicts: the %gs signs of one run (iterations calls of
// tls_operation, a yield plus tls_after_yield after every period-th), the faults of a
// flipping handler (each access whose sign differs from the descriptor's current form;
// the form starts expand-up, a rewrite at a yield restores it) and the negatives.
struct Expected {
  u64 negative = 0, positive = 0, flips = 0, thread_pointer_loads = 0;
};

Expected predict(const std::string& image, u64 iterations, u64 yields, bool rewrites) {
  const auto listing = read_listing(image);
  const GsAccesses& op = listing.at("tls_operation");
  const GsAccesses& after = listing.at("tls_after_yield");
  Expected e;
  char form = '+';
  auto run = [&](const std::string& signs) {
    for (const char s : signs) {
      (s == '-' ? e.negative : e.positive) += 1;
      if (s != form) ++e.flips;
      form = s;
    }
  };
  const u64 period = iterations / yields;
  for (u64 i = 0; i < iterations; ++i) {
    run(op.signs);
    if ((i + 1) % period == 0) {
      if (rewrites) form = '+';
      run(after.signs);
    }
  }
  e.thread_pointer_loads = iterations * op.thread_pointer_loads + yields * after.thread_pointer_loads;
  return e;
}

class TlsVariant : public ::testing::TestWithParam<const char*> {};

// Checks shared by every variant; returns the structure's prediction.
Expected check_common(const VariantResult& r) {
  EXPECT_TRUE(r.succeeded) << r.name << ": " << r.failure << "\n" << r.console;
  const bool happy = r.name.rfind("virt-happy", 0) == 0;
  const bool rewrites = r.name.find("-rewrites") != std::string::npos;
  const u64 iterations = static_cast<u64>(metric(r, "iterations")), yields = static_cast<u64>(metric(r, "yields"));
  EXPECT_EQ(iterations, 1024u);
  EXPECT_EQ(yields, 64u);
  const Expected e = predict(happy ? "tls_virt_happy" : "tls", iterations, yields, rewrites);
  EXPECT_EQ(static_cast<u64>(metric(r, "tls_accesses_negative")), e.negative) << r.name;
  EXPECT_EQ(static_cast<u64>(metric(r, "tls_accesses_positive")), e.positive) << r.name;
  EXPECT_EQ(static_cast<u64>(metric(r, "extra_user_loads")), happy ? e.thread_pointer_loads : 0) << r.name;
  EXPECT_EQ(metric(r, "operations"), static_cast<i64>(iterations * 8 + yields)) << r.name;
  // One TLS descriptor write per install: at start and at each rewrite (one per yield).
  EXPECT_EQ(metric(r, "rewrites"), rewrites ? static_cast<i64>(yields) : 0) << r.name;
  EXPECT_EQ(metric(r, "descriptor_updates"), 1 + metric(r, "rewrites")) << r.name;
  // Implied locked Accessed-bit writes: the first GS load of the installed descriptor
  // (A = 0) and exactly one per rewrite; every other descriptor is created with A = 1
  // and the flips keep the bit the CPU set.
  EXPECT_EQ(locked_accessed(r), static_cast<u64>(1 + metric(r, "rewrites"))) << r.name;
  // GS loads: LGDT's reload, ring 1 -> 3, and one POP GS on every exit path that
  // returns (hypercalls but the final shutdown, system calls but the exit, #GP).
  const u64 returning_hypercalls = static_cast<u64>(metric(r, "hypercalls")) - 1;
  EXPECT_EQ(r.counters.segment_loads[GS], 2 + returning_hypercalls + yields + gp_count(r)) << r.name;
  EXPECT_EQ(static_cast<u64>(metric(r, "gp_faults")), gp_count(r)) << r.name;
  EXPECT_EQ(static_cast<u64>(metric(r, "gp_faults_ring3")), gp_count(r)) << r.name;
  EXPECT_EQ(metric(r, "gp_faults_ring1"), 0) << r.name;
  // Emulated loads, stores and compares give the program the same values as native.
  EXPECT_EQ(metric(r, "checksum"), metric(result("native"), "checksum")) << r.name;
  return e;
}

TEST_P(TlsVariant, CountsFollowFromTheProgramsStructure) {
  const VariantResult& r = result(GetParam());
  const Expected e = check_common(r);
  const std::string name = r.name;
  if (name.rfind("native", 0) == 0 || name.rfind("virt-happy", 0) == 0) {
    EXPECT_EQ(gp_count(r), 0u) << name;
    EXPECT_EQ(r.counters.replayed_instructions, 0u) << name;
  } else if (name.rfind("emulation", 0) == 0) {
    // One #GP per negative %gs access, each emulated (EIP advanced: nothing replays).
    EXPECT_EQ(gp_count(r), e.negative) << name;
    EXPECT_EQ(static_cast<u64>(metric(r, "emulations")), e.negative) << name;
    EXPECT_EQ(r.counters.replayed_instructions, 0u) << name;
    EXPECT_EQ(metric(r, "handler_descriptor_writes"), 0) << name;
  } else {
    // One #GP per sign change; the handler writes the descriptor, the access replays once.
    EXPECT_EQ(gp_count(r), e.flips) << name;
    EXPECT_EQ(r.counters.replayed_instructions, gp_count(r)) << name;
    EXPECT_EQ(static_cast<u64>(metric(r, "handler_descriptor_writes")), gp_count(r)) << name;
    EXPECT_EQ(static_cast<u64>(metric(r, "flips_to_expand_down") + metric(r, "flips_to_expand_up")), gp_count(r));
    EXPECT_EQ(metric(r, "emulations"), 0) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(All, TlsVariant,
                         ::testing::Values("native", "native-rewrites", "emulation", "emulation-rewrites", "flipping",
                                           "flipping-rewrites", "virt-happy", "virt-happy-rewrites"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(TlsScenario, InstalledAndFlippedDescriptorsAreTheWorkedTablesRows) {
  EXPECT_EQ(metric(result("native"), "tls_descriptor_high"), 0xB7DFF2E0);
  EXPECT_EQ(metric(result("native"), "tls_descriptor_low"), 0x0000FFFF);
  EXPECT_EQ(metric(result("emulation"), "tls_descriptor_high"), 0xB7D4F2E0);
  EXPECT_EQ(metric(result("emulation"), "tls_descriptor_low"), 0x000045FF);
  // Flipped in the GDT after the CPU set Accessed: the table's row plus A.
  EXPECT_EQ(metric(result("flipping"), "tls_flipped_high"), 0xB7D4F6E0 | DESC_ACCESSED);
  EXPECT_EQ(metric(result("flipping"), "tls_flipped_low"), 0x000081FF);
}

TEST(TlsScenario, FlippingFaultsAboutTwiceAsOftenAsEmulation) {
  for (const std::string suffix : {"", "-rewrites"}) {
    const VariantResult& emulation = result("emulation" + suffix);
    const VariantResult& flipping = result("flipping" + suffix);
    // (8 sign changes per call - 1 at the start [+ 1 re-fault per rewrite]) against
    // (4 negatives per call + 1 per yield): 8191/4160 and 8255/4160.
    const u64 expected_flips = suffix.empty() ? 8191u : 8255u;
    EXPECT_EQ(gp_count(flipping), expected_flips);
    EXPECT_EQ(gp_count(emulation), 4160u);
    std::printf("tls%s: #GP flipping/emulation = %llu/%llu = %.4f; handler instructions per fault %lld vs %lld; "
                "cycles vs native %.3f vs %.3f\n",
                suffix.c_str(), static_cast<unsigned long long>(gp_count(flipping)),
                static_cast<unsigned long long>(gp_count(emulation)),
                static_cast<double>(gp_count(flipping)) / static_cast<double>(gp_count(emulation)),
                static_cast<long long>(metric(flipping, "handler_instructions_per_fault")),
                static_cast<long long>(metric(emulation, "handler_instructions_per_fault")),
                static_cast<double>(flipping.cycles) / static_cast<double>(result("native" + suffix).cycles),
                static_cast<double>(emulation.cycles) / static_cast<double>(result("native" + suffix).cycles));
  }
}

// The handler's self-measured instructions (RDPMC window + the stub's fixed part)
// account for the extra instructions of the trapping variants up to SYS_EXIT (before
// any printing): native retires the same program with every access retiring, emulation
// all but the faulting accesses plus the handler, flipping every access plus the
// handler. What remains is the clipping of 6 descriptors at start-up.
TEST(TlsScenario, HandlerInstructionCountsMatchTheInstructionTotals) {
  for (const std::string mode : {"emulation", "flipping"}) {
    const VariantResult& r = result(mode);
    const i64 extra = metric(r, "instructions_at_exit") - metric(result("native"), "instructions_at_exit");
    const i64 faulting_not_retired = mode == "emulation" ? static_cast<i64>(gp_count(r)) : 0;
    const i64 difference = extra + faulting_not_retired - metric(r, "handler_instructions");
    EXPECT_GE(difference, 0) << mode;
    EXPECT_LT(difference, 200) << mode << " extra " << extra << " handler " << metric(r, "handler_instructions");
    std::printf("tls %s: %lld instructions outside the handler differ from native\n", mode.c_str(),
                static_cast<long long>(difference));
  }
}

}  // namespace
}  // namespace x86lab
