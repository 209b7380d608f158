// The interrupt-dispatch scenario (roms/scenarios/irq/, docs/scenarios/irq.md; seed 004):
// each variant runs once on the p3 profile and is checked against its own structure:
// the stub bytes and code lines its layout gives for the vectors it actually took, the
// CS loads and Accessed-bit writes of the CS-encoded vector, and the direction of the
// RDTSC-delta tail that those counts predict. The *_apic variants take the same
// interrupts through the I/O APIC and the local APIC, at the vectors Linux's i386
// assign_irq_vector gave ISA IRQs 0, 3 and 8.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>

#include "platform/scenario/scenario_runner.h"
#include "trace/cost_model.h"

namespace x86lab {
namespace {

constexpr unsigned kFirstVector = 0x20, kVectors = 224, kSyscallVector = 0x80;

const ScenarioManifest& manifest() {
  static const ScenarioManifest m = load_manifest(X86LAB_ROM_DIR "/scenarios/irq/variants.json");
  return m;
}

// Every variant of the manifest, run once per test process (one thread: ctest runs
// tests side by side already), by name.
const VariantResult& result(const std::string& name) {
  static const std::map<std::string, VariantResult> all = [] {
    std::vector<VariantJob> jobs;
    for (const VariantSpec& variant : manifest().variants) jobs.push_back({&manifest(), &variant});
    MachineConfig base;
    apply_builtin_profile("p3", base);
    std::map<std::string, VariantResult> by_name;
    for (VariantResult& r : run_variants(jobs, base, 1)) by_name.emplace(r.name, std::move(r));
    return by_name;
  }();
  return all.at(name);
}

// External vectors taken (20h-FFh but the system-call gate) and how often.
std::map<unsigned, u64> external_vectors(const Counters& c) {
  std::map<unsigned, u64> taken;
  for (unsigned v = kFirstVector; v < 256; ++v)
    if (v != kSyscallVector && c.exceptions_by_vector[v]) taken[v] = c.exceptions_by_vector[v];
  return taken;
}

// One stub instruction as the layout places it: offset in the entry area and length.
struct StubInstruction {
  u32 offset;
  unsigned length;
};

// The instructions vector `v` executes inside the entry area, from the layouts of
// entry.asm (docs/scenarios.md section 3): classic 16-byte slots with push imm8
// (6A ib, vectors below 80h) or push imm32 (68 id) and jmp rel32 (E9 cd); compressed
// 32-byte chunks of seven 4-byte stubs (push imm8 + jmp rel8 to the chunk's jmp rel32 at
// byte 26; the seventh falls through); single 8-byte slots (push imm8 + jmp rel32); the
// CS-encoded entry (push cs, 1 byte; jmp ptr16:32, 7 bytes) shared by every vector.
std::vector<StubInstruction> stub_path(const std::string& layout, unsigned v) {
  const u32 i = v - kFirstVector;
  if (layout == "classic") {
    const unsigned push = v < 0x80 ? 2 : 5;
    return {{16 * i, push}, {16 * i + push, 5}};
  }
  if (layout == "compressed") {
    const u32 chunk = 32 * (i / 7), k = i % 7;
    if (k == 6) return {{chunk + 24, 2}, {chunk + 26, 5}};
    return {{chunk + 4 * k, 2}, {chunk + 4 * k + 2, 2}, {chunk + 26, 5}};
  }
  if (layout == "single") return {{8 * i, 2}, {8 * i + 2, 5}};
  return {{0, 1}, {1, 7}};  // csvec
}

bool is_apic(const std::string& variant) {
  return variant.size() > 5 && variant.compare(variant.size() - 5, 5, "_apic") == 0;
}
// The stub layout of a variant: its name without "_apic", csvec_a0/_a1 -> csvec.
std::string layout_of(const std::string& variant) {
  const std::string name = is_apic(variant) ? variant.substr(0, variant.size() - 5) : variant;
  return name.rfind("csvec", 0) == 0 ? "csvec" : name;
}

const std::vector<std::string> kVariants = {"classic", "compressed", "single", "csvec_a0", "csvec_a1"};
const std::vector<std::string> kApicVariants = {"classic_apic", "compressed_apic", "single_apic", "csvec_a0_apic",
                                                "csvec_a1_apic"};

TEST(IrqScenario, EveryVariantPassesAndTakesEachDeviceInterrupt) {
  for (const std::string& name : kVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure << "\n" << r.console;
    const Counters& c = r.counters;
    // The guest's own counts agree with the CPU's deliveries: IRQ 0 at 20h, IRQ 3
    // (COM2) at 23h, IRQ 8 (RTC, slave base 28h) at 28h, system calls at 80h.
    EXPECT_EQ(r.metrics.at("interrupts_timer"), static_cast<i64>(c.exceptions_by_vector[0x20])) << name;
    EXPECT_EQ(r.metrics.at("interrupts_uart"), static_cast<i64>(c.exceptions_by_vector[0x23])) << name;
    EXPECT_EQ(r.metrics.at("interrupts_rtc"), static_cast<i64>(c.exceptions_by_vector[0x28])) << name;
    EXPECT_EQ(r.metrics.at("syscalls"), static_cast<i64>(c.exceptions_by_vector[kSyscallVector])) << name;
    const auto taken = external_vectors(c);
    EXPECT_EQ(taken.size(), 3u) << name;
    u64 interrupts = 0;
    for (const auto& [v, n] : taken) interrupts += n;
    EXPECT_EQ(r.metrics.at("interrupts"), static_cast<i64>(interrupts)) << name;
    // A 16550A interrupts when THRE is enabled with the transmitter empty (once, at
    // set-up), then after each byte, which the timer sends every 4th tick (UART_EVERY).
    EXPECT_EQ(r.metrics.at("interrupts_uart"), 1 + r.metrics.at("interrupts_timer") / 4) << name;
    // Ping-pong: per round trip two successful sends/receives each way and one blocked,
    // re-executed receive per task; plus the two SYS_EXIT calls.
    const i64 ops = r.metrics.at("operations");
    EXPECT_EQ(ops, 1500) << name;
    EXPECT_EQ(r.metrics.at("syscalls"), 6 * ops + 2) << name;
    EXPECT_EQ(r.metrics.at("task_switches"), 2 * ops) << name;
    EXPECT_GT(r.metrics.at("pingpong_cycles"), 0) << name;
    EXPECT_LT(c.instructions, 5'000'000u) << name;  // well under a second of simulation
  }
}

// The code-range counters of a run equal what its external interrupts' stub paths add up
// to: instructions, bytes, and the distinct 32- and 64-byte lines they touch.
void expect_code_range_follows_stubs(const std::string& name, const Counters& c, const std::string& layout) {
  u64 instructions = 0, bytes = 0;
  std::set<u32> lines_32, lines_64;
  for (const auto& [v, n] : external_vectors(c)) {
    for (const StubInstruction& insn : stub_path(layout, v)) {
      instructions += n;
      bytes += n * insn.length;
      for (u32 a = insn.offset; a < insn.offset + insn.length; ++a) {
        lines_32.insert(a / 32);
        lines_64.insert(a / 64);
      }
    }
  }
  EXPECT_EQ(c.code_range_instructions, instructions) << name;
  EXPECT_EQ(c.code_range_bytes, bytes) << name;
  EXPECT_EQ(c.code_range_lines_32, lines_32.size()) << name;
  EXPECT_EQ(c.code_range_lines_64, lines_64.size()) << name;
}

TEST(IrqScenario, StubBytesAndLinesFollowTheLayout) {
  const std::map<std::string, u32> area_bytes = {
      {"classic", 16 * kVectors}, {"compressed", 1024}, {"single", 8 * kVectors}, {"csvec", 8}};
  for (const std::string& name : kVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure;
    const Counters& c = r.counters;
    const std::string layout = layout_of(name);
    ASSERT_EQ(c.code_range_end - c.code_range_begin, area_bytes.at(layout)) << name;
    ASSERT_EQ(c.code_range_begin % 64, 0u) << name;
    expect_code_range_follows_stubs(name, c, layout);
  }
  // The vectors 20h, 23h and 28h: classic 16-byte slots 0, 3, 8 lie in 32-byte lines
  // 0, 1, 4; compressed stubs in chunks (= 32-byte lines) 0, 0, 1; single 8-byte slots
  // at offsets 0, 24, 64 in lines 0, 0, 2; the CS-encoded entry is 8 bytes in one line.
  EXPECT_EQ(result("classic").counters.code_range_lines_32, 3u);
  EXPECT_EQ(result("compressed").counters.code_range_lines_32, 2u);
  EXPECT_EQ(result("single").counters.code_range_lines_32, 2u);
  EXPECT_EQ(result("csvec_a0").counters.code_range_lines_32, 1u);
}

TEST(IrqScenario, CsEncodedVectorLoadsCsTwicePerInterrupt) {
  for (const std::string& name : kVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure;
    const Counters& c = r.counters;
    u64 deliveries = 0, interrupts = 0;
    for (unsigned v = 0; v < 256; ++v) deliveries += c.exceptions_by_vector[v];
    for (const auto& [v, n] : external_vectors(c)) interrupts += n;
    // CS loads: the far jump after LGDT; one per delivery through a gate; one per IRET
    // (every delivery returns except the final SYS_EXIT, and enter_user IRETs once);
    // the CS-encoded entry adds the far jump back to the kernel CS per interrupt.
    const bool csvec = layout_of(name) == "csvec";
    EXPECT_EQ(c.segment_loads[CS], 1 + 2 * deliveries + (csvec ? interrupts : 0)) << name;
  }
}

TEST(IrqScenario, AccessedBitIsWrittenOnceOnFirstUseOfEachVectorWithAZero) {
  for (const std::string& name : kVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure;
    const auto taken = external_vectors(r.counters);
    for (const auto& [v, n] : taken) EXPECT_GT(n, 1u) << name << " vector " << v;  // later uses exist
    const u64 writes = r.counters.locked_by_kind[static_cast<std::size_t>(AccessKind::DescriptorAccessedBit)];
    // The kernel creates every fixed descriptor with A=1; only csvec_a0's per-vector
    // descriptors start with A=0 and the P6 profile writes A only when it is clear.
    EXPECT_EQ(writes, name == "csvec_a0" ? taken.size() : 0u) << name;
  }
  // The two CS-encoded variants differ only in those writes: same instructions, and
  // cycles differ by exactly one locked access per vector (p3 cost model).
  const Counters &a0 = result("csvec_a0").counters, &a1 = result("csvec_a1").counters;
  EXPECT_EQ(a0.instructions, a1.instructions);
  const u64 locked = builtin_cost_model("p3").part(CostPart::LockedAccess) / 256;
  EXPECT_EQ(result("csvec_a0").cycles - result("csvec_a1").cycles, external_vectors(a0).size() * locked);
}

// The delta of a sample that an interrupt landed in: the median of the samples larger
// than four times the overall median (the loop's own delta).
i64 interrupted_delta(const std::vector<i64>& samples) {
  std::vector<i64> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const i64 loop = sorted[sorted.size() / 2];
  std::vector<i64> tail;
  for (i64 s : sorted)
    if (s > 4 * loop) tail.push_back(s);
  return tail.empty() ? 0 : tail[tail.size() / 2];
}

TEST(IrqScenario, RdtscTailGrowsWithTheEntryWork) {
  std::map<std::string, i64> tail;
  for (const std::string& name : kVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure;
    const std::vector<i64>& deltas = r.samples.at("rdtsc_delta");
    ASSERT_EQ(static_cast<i64>(deltas.size()), r.metrics.at("rdtsc_samples")) << name;
    // Every interrupt of phase 1 lands in some delta; two can share one.
    std::vector<i64> sorted = deltas;
    std::sort(sorted.begin(), sorted.end());
    const i64 loop = sorted[sorted.size() / 2];
    const auto interrupted = std::count_if(deltas.begin(), deltas.end(), [&](i64 d) { return d > 4 * loop; });
    EXPECT_GT(interrupted, r.metrics.at("interrupts_rdtsc_phase") / 2) << name;
    EXPECT_LE(interrupted, r.metrics.at("interrupts_rdtsc_phase")) << name;
    tail[name] = interrupted_delta(deltas);
  }
  // Entry work per interrupt beyond classic (push; jmp): single adds the common code's
  // `add [esp], -80h`; compressed also the jmp short; the CS-encoded entry adds a far
  // jump, a CS load and the selector decoding. The tail follows that order.
  EXPECT_LT(tail["classic"], tail["single"]);
  EXPECT_LT(tail["single"], tail["compressed"]);
  EXPECT_LT(tail["compressed"], tail["csvec_a1"]);
  EXPECT_EQ(tail["csvec_a0"], tail["csvec_a1"]);  // A=0 costs only on first use
  const auto& c0 = result("classic").samples.at("rdtsc_delta");
  const auto& s1 = result("csvec_a1").samples.at("rdtsc_delta");
  EXPECT_LT(*std::max_element(c0.begin(), c0.end()), *std::max_element(s1.begin(), s1.end()));
  // A=0: the first-use locked writes inside phase 1 lengthen its deltas in total.
  const auto& s0 = result("csvec_a0").samples.at("rdtsc_delta");
  EXPECT_GT(std::accumulate(s0.begin(), s0.end(), i64{0}), std::accumulate(s1.begin(), s1.end(), i64{0}));
  // The ping-pong workload pays the extra entry work too (the seed's direction).
  EXPECT_GT(result("csvec_a1").metrics.at("pingpong_cycles"), result("classic").metrics.at("pingpong_cycles"));
}

// ---- The APIC variants (docs/scenarios/irq.md, "The APIC variants") ----

// The vectors the redirection entries must hold, from Linux's i386 io_apic.c (read in
// 2.6.13 and 2.6.19; docs/scenarios/irq.md), not from the guest: IRQ 0 was given
// FIRST_DEVICE_VECTOR = 31h in advance, and every other IRQ, in I/O APIC pin order (pin 1
// IRQ 1, pin 2 IRQ 0, pin 3 IRQ 3, ...), the previous vector + 8: IRQ 1 39h, IRQ 3 41h,
// IRQ 4 49h, ..., IRQ 7 61h, IRQ 8 69h.
constexpr unsigned kTimerVector = 0x31, kUartVector = 0x41, kRtcVector = 0x69;
// The I/O APIC pins a PC wires them to: ISA IRQ 0 (8254) to pin 2, IRQ 3 (COM2) to pin
// 3, IRQ 8 (RTC) to pin 8.
constexpr unsigned kTimerPin = 2, kUartPin = 3, kRtcPin = 8;

u64 external_interrupts(const Counters& c) {
  u64 total = 0;
  for (const auto& [v, n] : external_vectors(c)) total += n;
  return total;
}

TEST(IrqScenarioApic, EveryInterruptArrivesWithTheVectorItsRedirectionEntryHolds) {
  for (const std::string& name : kApicVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure << "\n" << r.console;
    const Counters& c = r.counters;
    // What the guest read back from its redirection entries at the end of the run ...
    EXPECT_EQ(r.metrics.at("vector_timer"), kTimerVector) << name;
    EXPECT_EQ(r.metrics.at("vector_uart"), kUartVector) << name;
    EXPECT_EQ(r.metrics.at("vector_rtc"), kRtcVector) << name;
    // ... is where the CPU delivered every device interrupt: no 8259A vector (20h-2Fh),
    // no spurious vector (FFh), each source's count at its own vector.
    const std::map<unsigned, u64> expected = {
        {kTimerVector, static_cast<u64>(r.metrics.at("interrupts_timer"))},
        {kUartVector, static_cast<u64>(r.metrics.at("interrupts_uart"))},
        {kRtcVector, static_cast<u64>(r.metrics.at("interrupts_rtc"))}};
    EXPECT_EQ(external_vectors(c), expected) << name;
    EXPECT_EQ(r.metrics.at("distinct_vectors"), 3) << name;
    EXPECT_EQ(r.metrics.at("interrupts"), static_cast<i64>(external_interrupts(c))) << name;
    // 31h, 41h and 69h lie in three priority classes (vector >> 4): 3, 4 and 6.
    EXPECT_EQ(std::set<unsigned>({kTimerVector >> 4, kUartVector >> 4, kRtcVector >> 4}).size(), 3u);
    // The workloads are those of the 8259A variants.
    EXPECT_EQ(r.metrics.at("interrupts_uart"), 1 + r.metrics.at("interrupts_timer") / 4) << name;
    EXPECT_EQ(r.metrics.at("syscalls"), 6 * r.metrics.at("operations") + 2) << name;
    EXPECT_EQ(r.metrics.at("syscalls"), static_cast<i64>(c.exceptions_by_vector[kSyscallVector])) << name;
    EXPECT_EQ(r.metrics.at("task_switches"), 2 * r.metrics.at("operations")) << name;
    EXPECT_LT(c.instructions, 5'000'000u) << name;
  }
}

TEST(IrqScenarioApic, EachSourceReachesTheCpuThroughItsIoApicPin) {
  MachineConfig p3;
  apply_builtin_profile("p3", p3);
  for (const std::string& name : kApicVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure;
    const Counters& c = r.counters;
    // Edge-triggered pins put one message on the APIC bus per rising edge. The 8254 in
    // mode 2 makes one per period (1193182 Hz / 12) whether or not the CPU takes it: the
    // guest prints its report with interrupts off, and those ticks only set the IRR bit
    // again. So pin 2 counts the periods of the run, less the few before the guest
    // programmed the 8254 (its set-up takes a few thousand cycles, a period is ~5000).
    const double periods = double(r.cycles) * 1193182.0 / (12.0 * double(p3.cpu_hz));
    EXPECT_LE(double(c.ioapic_deliveries_by_pin[kTimerPin]), periods) << name;
    EXPECT_GE(double(c.ioapic_deliveries_by_pin[kTimerPin]) + 3, periods) << name;
    EXPECT_GT(c.ioapic_deliveries_by_pin[kTimerPin], c.exceptions_by_vector[kTimerVector]) << name;
    // The RTC's and the UART's lines stay high until the handler acknowledges them
    // (register C, IIR), so each edges again only after being handled: every message but
    // perhaps the last, left pending when the guest stops taking interrupts, is taken.
    for (const auto& [pin, vector] : {std::pair{kUartPin, kUartVector}, std::pair{kRtcPin, kRtcVector}}) {
      EXPECT_GE(c.ioapic_deliveries_by_pin[pin], c.exceptions_by_vector[vector]) << name << " pin " << pin;
      EXPECT_LE(c.ioapic_deliveries_by_pin[pin], c.exceptions_by_vector[vector] + 1) << name << " pin " << pin;
    }
    u64 by_pin = 0;
    for (u64 n : c.ioapic_deliveries_by_pin) by_pin += n;
    EXPECT_EQ(by_pin, c.ioapic_deliveries_by_pin[kTimerPin] + c.ioapic_deliveries_by_pin[kUartPin] +
                          c.ioapic_deliveries_by_pin[kRtcPin]) << name;  // no other pin unmasked
  }
  // The 8259A variants leave the I/O APIC as reset, every entry masked.
  for (const std::string& name : kVariants) EXPECT_EQ(result(name).counters.ioapic_deliveries, 0u) << name;
}

TEST(IrqScenarioApic, OneEoiToTheLocalApicPerInterruptAndNoneToThe8259) {
  for (const std::string& name : kApicVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure;
    const Counters& c = r.counters;
    const u64 interrupts = external_interrupts(c);
    // x86lab's local APIC counts the EOI writes that ended an in-service vector: one per
    // interrupt handled (and the guest checked at the end that no ISR bit is left).
    EXPECT_EQ(c.apic_eois, interrupts) << name;
    // Port 20h (master ICW1/OCW2) and A0h (slave): only the initialisation's ICW1.
    EXPECT_EQ(c.io_by_port[0x20], 1u) << name;
    EXPECT_EQ(c.io_by_port[0xA0], 1u) << name;
  }
  // The 8259A variants: ICW1, then a non-specific EOI to the master per interrupt and
  // one to the slave per RTC interrupt.
  for (const std::string& name : kVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure;
    EXPECT_EQ(r.counters.io_by_port[0x20], 1 + external_interrupts(r.counters)) << name;
    EXPECT_EQ(r.counters.io_by_port[0xA0], 1 + static_cast<u64>(r.metrics.at("interrupts_rtc"))) << name;
    EXPECT_EQ(r.counters.apic_eois, 0u) << name;
  }
}

// Per interrupt the two paths differ only in do_irq: the 8259A path ends a timer or COM2
// interrupt with MOV AL, 20h; OUT 20h, AL (and an RTC one with the same to the slave
// first); the APIC path finds the IRQ with a MOVZX from its vector table and ends every
// interrupt with one MOV to the EOI register. In the p3 profile OUT and MOVZX cost the same
// (both 1 cycle, assumptions in trace/profiles/p3.cost), so a timer or COM2 interrupt costs
// the same on both paths, and the RDTSC loop sees the same interrupted delta. The APIC
// set-up adds a few hundred instructions and the RTC's interrupts are cheaper, so the runs
// differ by less than one 8254 period (12 / 1193182 s, about 5000 cycles at 500 MHz): a
// source may interrupt once more or less near the end of a run, not more.
TEST(IrqScenarioApic, AnInterruptCostsTheSameThroughTheApicAsThroughThe8259) {
  const CostModel& model = builtin_cost_model("p3");
  ASSERT_EQ(model.instruction_cost("OUT"), model.instruction_cost("MOVZX"));
  MachineConfig p3;
  apply_builtin_profile("p3", p3);
  const double period = 12.0 * double(p3.cpu_hz) / 1193182.0;
  for (const std::string& name : kApicVariants) {
    const std::string pic_name = name.substr(0, name.size() - 5);
    const VariantResult &apic = result(name), &pic = result(pic_name);
    ASSERT_TRUE(apic.succeeded) << name << ": " << apic.failure;
    ASSERT_TRUE(pic.succeeded) << pic_name << ": " << pic.failure;
    EXPECT_EQ(interrupted_delta(apic.samples.at("rdtsc_delta")), interrupted_delta(pic.samples.at("rdtsc_delta")))
        << name;
    EXPECT_LT(std::abs(double(apic.cycles) - double(pic.cycles)), period) << name;
    for (const char* metric : {"interrupts_timer", "interrupts_rtc", "interrupts_uart", "interrupts_rdtsc_phase"})
      EXPECT_LE(std::abs(apic.metrics.at(metric) - pic.metrics.at(metric)), 1) << name << " " << metric;
  }
}

TEST(IrqScenarioApic, StubBytesAndLinesFollowTheLayoutAtTheSpreadVectors) {
  for (const std::string& name : kApicVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure;
    const Counters& c = r.counters;
    const std::string layout = layout_of(name);
    expect_code_range_follows_stubs(name, c, layout);
  }
  // Vectors 31h, 41h, 69h are entries 17, 33, 73: classic 16-byte slots at 272, 528,
  // 1168 (32-byte lines 8, 16, 36), compressed chunks 2, 4, 10 (one line each), single
  // 8-byte slots at 136, 264, 584 (lines 4, 8, 18). Spread by 8, the vectors touch one
  // line each in every stub layout: the compressed table's two lines for 20h/23h/28h
  // become three. The CS-encoded entry stays one line.
  EXPECT_EQ(result("classic_apic").counters.code_range_lines_32, 3u);
  EXPECT_EQ(result("compressed_apic").counters.code_range_lines_32, 3u);
  EXPECT_EQ(result("single_apic").counters.code_range_lines_32, 3u);
  EXPECT_EQ(result("csvec_a0_apic").counters.code_range_lines_32, 1u);
}

TEST(IrqScenarioApic, CsLoadsAndAccessedBitWritesAsOnThe8259Path) {
  for (const std::string& name : kApicVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure;
    const Counters& c = r.counters;
    u64 deliveries = 0;
    for (unsigned v = 0; v < 256; ++v) deliveries += c.exceptions_by_vector[v];
    const bool csvec = layout_of(name) == "csvec";
    EXPECT_EQ(c.segment_loads[CS], 1 + 2 * deliveries + (csvec ? external_interrupts(c) : 0)) << name;
    const u64 writes = c.locked_by_kind[static_cast<std::size_t>(AccessKind::DescriptorAccessedBit)];
    EXPECT_EQ(writes, name == "csvec_a0_apic" ? external_vectors(c).size() : 0u) << name;
  }
  // A=0 costs three locked writes (20 cycles each on p3), all in phase 1, where every
  // vector is first used. They delay everything after by 60 cycles, which moves where the
  // later interrupts land, so the two runs are not copies of each other the way the
  // 8259A pair's happen to be: the ping-pong window (measured by RDTSC, which drops the
  // clock's fractions of a cycle) agrees to a cycle, and the report prints measured values
  // whose 64-bit decimal conversion (__udivdi3) takes value-dependent paths.
  const VariantResult &a0 = result("csvec_a0_apic"), &a1 = result("csvec_a1_apic");
  const u64 locked = builtin_cost_model("p3").part(CostPart::LockedAccess) / 256;
  EXPECT_LE(std::abs(a0.metrics.at("pingpong_cycles") - a1.metrics.at("pingpong_cycles")), 1);
  EXPECT_GE(a0.cycles - a1.cycles, 3 * locked);
  EXPECT_LE(a0.cycles - a1.cycles, 3 * locked + 10);
  EXPECT_LE(std::max(a0.counters.instructions, a1.counters.instructions) -
                std::min(a0.counters.instructions, a1.counters.instructions), 10u);
}

TEST(IrqScenarioApic, RdtscTailFollowsTheEntryWorkAsOnThe8259Path) {
  std::map<std::string, i64> tail;
  for (const std::string& name : kApicVariants) {
    const VariantResult& r = result(name);
    ASSERT_TRUE(r.succeeded) << name << ": " << r.failure;
    tail[name] = interrupted_delta(r.samples.at("rdtsc_delta"));
  }
  EXPECT_LT(tail["classic_apic"], tail["single_apic"]);
  EXPECT_LT(tail["single_apic"], tail["compressed_apic"]);
  EXPECT_LT(tail["compressed_apic"], tail["csvec_a1_apic"]);
  EXPECT_EQ(tail["csvec_a0_apic"], tail["csvec_a1_apic"]);
}

}  // namespace
}  // namespace x86lab

namespace x86lab {
namespace {

// Counters::count_code_range on its own: instructions, bytes, and lines by linear
// address, a line counted once however often it is touched.
TEST(CodeRangeCounter, CountsInstructionsBytesAndDistinctLines) {
  Counters c;
  c.code_range_begin = 0x1010;  // not line-aligned: lines are still absolute 32/64-byte lines
  c.code_range_end = 0x10A0;
  EXPECT_FALSE(c.in_code_range(0x100F));
  EXPECT_TRUE(c.in_code_range(0x1010));
  EXPECT_TRUE(c.in_code_range(0x109F));
  EXPECT_FALSE(c.in_code_range(0x10A0));
  c.count_code_range(0x1010, 5);  // line32 0x80, line64 0x40
  c.count_code_range(0x101E, 5);  // 101E-1022: lines32 0x80 and 0x81, line64 0x40
  c.count_code_range(0x1012, 2);  // nothing new
  c.count_code_range(0x109E, 7);  // 109E-10A4: lines32 0x84, 0x85; lines64 0x42
  EXPECT_EQ(c.code_range_instructions, 4u);
  EXPECT_EQ(c.code_range_bytes, 19u);
  EXPECT_EQ(c.code_range_lines_32, 4u);
  EXPECT_EQ(c.code_range_lines_64, 2u);
  Counters off;  // an empty range never matches
  EXPECT_FALSE(off.in_code_range(0));
  EXPECT_FALSE(off.in_code_range(0x110000));
}

}  // namespace
}  // namespace x86lab
