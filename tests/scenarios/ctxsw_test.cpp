// The ctxsw scenario (docs/scenarios/ctxsw.md; seed 003): every variant of
// roms/scenarios/ctxsw/ runs on the p3 profile, and the counts the seed's designs imply
// come out exactly: LLDT/LGDT executions, GDT stores, descriptor reads and the implied
// locked writes of the Accessed bit; the cycles per operation are compared with the
// seed's Pentium III figures (docs/scenarios.md section 4).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "platform/scenario/scenario_runner.h"
#include "trace/cost_model.h"
#include "trace/sink.h"
#include "trace/tracer.h"

namespace x86lab {
namespace {

const std::string kDirectory = std::string(X86LAB_ROM_DIR) + "/scenarios/ctxsw/";

// The kernel's structure (ctxsw_kernel.c): 4 threads, thread 0 without TLS, 64
// round-robin timer switches, Luca's method with 8 warm-up iterations.
constexpr i64 kThreads = 4, kSwitches = 64, kWarmup = 8;
constexpr i64 kTlsSwitches = kSwitches * (kThreads - 1) / kThreads;
constexpr std::size_t kAccessedBit = static_cast<std::size_t>(AccessKind::DescriptorAccessedBit);
constexpr std::size_t kDescriptorRead = static_cast<std::size_t>(AccessKind::DescriptorTableRead);
constexpr std::size_t kOpcodeGroup0F00 = 0x100, kOpcodeGroup0F01 = 0x101;  // LLDT is 0F 00 /2, LGDT 0F 01 /2

const ScenarioManifest& manifest() {
  static const ScenarioManifest loaded = load_manifest(kDirectory + "variants.json");
  return loaded;
}

// Variants run on p3, each once per test process (ctest runs every test in its own).
std::map<std::string, VariantResult>& results() {
  static std::map<std::string, VariantResult> by_name;
  return by_name;
}

// Runs every manifest variant not run yet, two at a time.
void run_all() {
  std::vector<VariantJob> jobs;
  for (const VariantSpec& variant : manifest().variants)
    if (!results().count(variant.name)) jobs.push_back({&manifest(), &variant});
  MachineConfig base;
  apply_builtin_profile("p3", base);
  for (VariantResult& r : run_variants(jobs, base, 2)) results().emplace(r.name, std::move(r));
}

const VariantResult& result(const std::string& name) {
  auto it = results().find(name);
  if (it == results().end()) it = results().emplace(name, run_variant(manifest(), *manifest().find(name))).first;
  return it->second;
}

i64 metric(const VariantResult& r, const std::string& name) {
  const auto it = r.metrics.find(name);
  EXPECT_NE(it, r.metrics.end()) << r.name << " reports no METRIC " << name;
  return it == r.metrics.end() ? -1 : it->second;
}

// Timed runs of Luca's method per loop (warm-up included).
i64 runs(const VariantResult& r) { return kWarmup + metric(r, "iterations"); }

double seed_cycles(const std::string& name) { return manifest().find(name)->seed.at("cycles_per_op"); }

const char* const kAllKinds[] = {"lldt", "copy1", "copy2", "copy3", "c3_0", "c3_1", "c3_8", "lgdt"};

TEST(CtxswScenario, EveryVariantSwitchesSixtyFourTimesAndEachTlsThreadSeesItsOwnTls) {
  ASSERT_EQ(manifest().variants.size(), 16u);
  run_all();
  for (const VariantSpec& variant : manifest().variants) {
    const VariantResult& r = result(variant.name);
    ASSERT_TRUE(r.succeeded) << r.name << ": " << r.failure << "\n" << r.console;
    EXPECT_EQ(metric(r, "switches"), kSwitches) << r.name;
    EXPECT_EQ(metric(r, "tls_switches"), metric(r, "tls_threads") ? kTlsSwitches : 0) << r.name;
    EXPECT_EQ(metric(r, "tls_checks"), metric(r, "tls_switches")) << r.name;
    EXPECT_EQ(r.counters.exceptions_by_vector[0x20], static_cast<u64>(kSwitches)) << r.name;
  }
  EXPECT_EQ(metric(result("c3_0_a0"), "tls_threads"), 0);
  EXPECT_EQ(metric(result("copy3_a0"), "tls_threads"), kThreads - 1);
}

TEST(CtxswScenario, LldtAndLgdtTakeTheSeedsFiftyOneAndFiftyCyclesOnP3) {
  const CostModel p3 = builtin_cost_model("p3");
  for (const char* a : {"_a0", "_a1"}) {
    const VariantResult& lldt = result(std::string("lldt") + a);
    const VariantResult& lgdt = result(std::string("lgdt") + a);
    // RDTSC around one instruction, minus the empty brackets, averaged: the seed's method.
    EXPECT_EQ(metric(lldt, "cycles_per_op_x100"), 5100);
    EXPECT_EQ(metric(lgdt, "cycles_per_op_x100"), 5000);
    EXPECT_EQ(metric(lldt, "op_cycles_total"), 51 * metric(lldt, "iterations"));
    EXPECT_EQ(metric(lgdt, "op_cycles_total"), 50 * metric(lgdt, "iterations"));
    EXPECT_EQ(p3.instruction_cost("LLDT"), 51 * kSubcyclesPerCycle);
    EXPECT_EQ(p3.instruction_cost("LGDT"), 50 * kSubcyclesPerCycle);
    // Executions: the boot LLDT, the timed LLDTs, and one per switch between address
    // spaces (the timed switches, the entry and exit switches, the timer switches).
    EXPECT_EQ(lldt.counters.opcodes[kOpcodeGroup0F00], static_cast<u64>(1 + 2 * runs(lldt) + 2 + kSwitches));
    EXPECT_EQ(lgdt.counters.opcodes[kOpcodeGroup0F00], 0u);
    // LGDT plus the boot LGDT and LIDT.
    EXPECT_EQ(lgdt.counters.opcodes[kOpcodeGroup0F01], static_cast<u64>(2 + 2 * runs(lgdt) + 2 + kSwitches));
    // Each LLDT reads one descriptor from the GDT; nothing else differs from copy1.
    const VariantResult& copy1 = result(std::string("copy1") + a);
    EXPECT_EQ(lldt.counters.accesses_by_kind[kDescriptorRead] - copy1.counters.accesses_by_kind[kDescriptorRead],
              lldt.counters.opcodes[kOpcodeGroup0F00]);
  }
  for (const char* kind : {"copy1", "copy2", "copy3", "c3_0", "c3_1", "c3_8"}) {
    EXPECT_EQ(result(std::string(kind) + "_a0").counters.opcodes[kOpcodeGroup0F00], 0u) << kind;
    EXPECT_EQ(result(std::string(kind) + "_a0").counters.opcodes[kOpcodeGroup0F01], 2u) << kind;
  }
}

TEST(CtxswScenario, UnconditionalCopyOfTwoDescriptorsIsWithinTwentyPercentOfTheSeed) {
  for (const char* name : {"copy2_a0", "copy2_a1"}) {
    const double seed = seed_cycles(name);
    EXPECT_EQ(seed, 5);
    const double modeled = metric(result(name), "cycles_per_op_x100") / 100.0;
    EXPECT_LE(std::abs(modeled - seed), 0.2 * seed) << name << " modeled " << modeled;
  }
  // D9's three descriptors, the validation point the calibration did not use.
  const double d9 = metric(result("copy3_a0"), "cycles_per_op_x100") / 100.0;
  EXPECT_LE(std::abs(d9 - seed_cycles("copy3_a0")), 0.2 * seed_cycles("copy3_a0")) << "copy3 modeled " << d9;
}

TEST(CtxswScenario, RangedCopyKeepsTheSeedsOrderAndEachDwordCostsTheStringIteration) {
  // The whole-loop figure: exact to 1/10008 cycle where a bracketed run rounds to whole cycles.
  const i64 none = metric(result("c3_0_a0"), "loop_cycles_per_op_x100");
  const i64 one = metric(result("c3_1_a0"), "loop_cycles_per_op_x100");
  const i64 eight = metric(result("c3_8_a0"), "loop_cycles_per_op_x100");
  EXPECT_LT(seed_cycles("c3_0_a0"), seed_cycles("c3_1_a0"));
  EXPECT_LT(seed_cycles("c3_1_a0"), seed_cycles("c3_8_a0"));
  EXPECT_LT(none, one);
  EXPECT_LT(one, eight);
  // Seven more descriptors are 14 more REP MOVSD iterations and nothing else.
  const CostModel p3 = builtin_cost_model("p3");
  EXPECT_EQ((eight - one) * static_cast<i64>(kSubcyclesPerCycle), 14 * 100 * static_cast<i64>(p3.part(CostPart::StringIteration)));
  EXPECT_LE(std::abs(eight / 100.0 - 52), 0.2 * 52) << "c3_8 modeled " << eight / 100.0;
}

TEST(CtxswScenario, AccessedBitClearCostsOneLockedWritePerSwitchToATlsThread) {
  for (const char* kind : kAllKinds) {
    const VariantResult& a0 = result(std::string(kind) + "_a0");
    const VariantResult& a1 = result(std::string(kind) + "_a1");
    const u64 locked_a0 = a0.counters.locked_by_kind[kAccessedBit];
    EXPECT_EQ(a1.counters.locked_by_kind[kAccessedBit], 0u) << kind;
    const std::string k = kind;
    if (k == "lldt" || k == "lgdt") {
      // The descriptor lives on in the thread's LDT or GDT: its first load sets A for good.
      EXPECT_EQ(locked_a0, static_cast<u64>(metric(a0, "tls_threads"))) << kind;
    } else {
      // Every switch copies A=0 descriptors back into the GDT, so every reload writes A.
      EXPECT_EQ(locked_a0, static_cast<u64>(metric(a0, "tls_switches") + metric(a0, "bench_tls_switches"))) << kind;
    }
    // The Accessed bit changes no load and no descriptor read.
    EXPECT_EQ(a0.counters.segment_loads, a1.counters.segment_loads) << kind;
    EXPECT_EQ(a0.counters.accesses_by_kind[kDescriptorRead], a1.counters.accesses_by_kind[kDescriptorRead]) << kind;
  }
  EXPECT_EQ(metric(result("copy2_a0"), "bench_tls_switches"), runs(result("copy2_a0")) + 1);
  EXPECT_EQ(result("c3_0_a0").counters.locked_by_kind[kAccessedBit], 0u);
}

TEST(CtxswScenario, TheIterationCountOfLucasMethodDoesNotChangeCyclesPerOperation) {
  VariantSpec short_run = *manifest().find("copy2_a0");
  short_run.name = "copy2_a0_short";
  short_run.kernel = kDirectory + "copy2_a0_short.elf";
  const VariantResult shorter = run_variant(manifest(), short_run);
  ASSERT_TRUE(shorter.succeeded) << shorter.failure;
  const VariantResult& longer = result("copy2_a0");
  ASSERT_EQ(metric(longer, "iterations"), 10 * metric(shorter, "iterations"));
  EXPECT_EQ(metric(shorter, "cycles_per_op_x100"), metric(longer, "cycles_per_op_x100"));
  EXPECT_EQ(metric(shorter, "cycles_per_switch"), metric(longer, "cycles_per_switch"));
  EXPECT_EQ(10 * metric(shorter, "op_cycles_total"), metric(longer, "op_cycles_total"));
}

// Counts the data stores into GDT entries [first, last] (bytes from `base`).
class GdtStoreSink : public TraceSink {
 public:
  GdtStoreSink(u32 first, u32 end, u64& stores) : first_(first), end_(end), stores_(stores) {}
  void write(const Event& event) override {
    if (event.kind == EventKind::MemoryAccess && (event.flags & kEventWrite) &&
        event.detail == static_cast<u8>(AccessKind::Data) && event.a >= first_ && event.a < end_)
      ++stores_;
  }
  void finish() override {}

 private:
  u32 first_, end_;
  u64& stores_;
};

// Stores into GDT entries [first_entry, last_entry] in a traced run of `name`.
u64 gdt_stores(const std::string& name, u32 first_entry, u32 last_entry) {
  const VariantResult& untraced = result(name);
  const u32 base = static_cast<u32>(metric(untraced, "gdt_base"));
  MachineConfig config;
  apply_builtin_profile("p3", config);
  const VariantSpec& variant = *manifest().find(name);
  config.memory_mib = variant.memory_mib;
  config.max_instructions = variant.max_instructions;
  config.exit_on_halt = true;
  config.kernel = {variant.kernel.string(), "", ""};
  std::FILE* console = std::tmpfile();
  config.debug_console = console;
  u64 stores = 0;
  {
    Machine machine(config);
    TraceFilter filter;
    filter.kinds.reset();
    filter.kinds.set(static_cast<std::size_t>(EventKind::MemoryAccess));
    auto tracer = std::make_unique<Tracer>(filter, TraceTriggers{});
    tracer->add_sink(std::make_unique<GdtStoreSink>(base + 8 * first_entry, base + 8 * (last_entry + 1), stores));
    machine.attach_tracer(std::move(tracer));
    const RunResult run = machine.run();
    EXPECT_EQ(run.exit_status, 33) << name;
    EXPECT_EQ(machine.cpu.clock().cycles(), untraced.cycles) << "tracing changed the modeled time";
  }
  std::fclose(console);
  return stores;
}

TEST(CtxswScenario, GdtStoresPerSwitchFollowEachDesign) {
  // Switches that run the copy: the timed copies, the timed switches, the entry and
  // exit switches and the timer switches.
  const VariantResult& copy2 = result("copy2_a0");
  const u64 copy_switches = static_cast<u64>(2 * runs(copy2) + 2 + kSwitches);
  EXPECT_EQ(gdt_stores("copy2_a0", 6, 16), 4 * copy_switches);  // 2 descriptors = 4 dword stores
  EXPECT_EQ(gdt_stores("c3_8_a0", 6, 16), 16 * copy_switches);  // REP MOVSD of 16 dwords
  EXPECT_EQ(gdt_stores("c3_0_a0", 6, 16), 0u);                  // the branch skips the copy
  // The LDT design writes the LDT descriptor (GDT 17) once per address-space switch
  // (and once at boot); the LGDT design writes no GDT on a switch.
  const VariantResult& lldt = result("lldt_a0");
  EXPECT_EQ(gdt_stores("lldt_a0", 17, 17), static_cast<u64>(2 * (1 + runs(lldt) + 2 + kSwitches)));
  EXPECT_EQ(gdt_stores("lgdt_a0", 6, 16), 0u);
}

}  // namespace
}  // namespace x86lab
