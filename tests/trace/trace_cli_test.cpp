// Tracing through the command line: a golden text trace, determinism of binary
// traces, `x86lab trace diff`, and bad trace options.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "../ui/run_x86lab.h"

namespace x86lab::testing {
namespace {

Outcome run(const std::string& arguments) { return run_x86lab(arguments); }

const std::string kDemo = std::string(X86LAB_ROM_DIR) + "/demo.bin";

// The golden file was checked by hand against the SDM: the real-mode loads (the far
// JMP from the reset vector, SS, DS, ES) cache base = selector * 16 with no descriptor;
// LGDT loads base 1000h; CR0.PE
// set; each first load of CS, SS and DS writes the Accessed bit (type 9Ah->9Bh,
// 92h->93h) and caches base 0, limit FFFFFFFFh; the reload after the GDT edit caches
// base 100000h and writes nothing (A already set); LGDT costs 50 cycles on p3.
TEST(TraceCli, DemoSegmentTraceMatchesTheGoldenFile) {
  const std::string out = ::testing::TempDir() + "demo_segments.txt";
  const Outcome o = run("run --bios " + kDemo + " --debugcon none --trace text:" + out + " --trace-filter seg,exc,cr,halt");
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_EQ(read_file(out), read_file(std::string(X86LAB_SOURCE_DIR) + "/tests/trace/golden/demo_segments.txt"));
}

// The line of instruction `index` in a text trace, or "".
std::string instruction_line(const std::string& trace, unsigned long index) {
  std::string start = "#";
  start.append(std::to_string(index)).append(" ");
  for (std::size_t at = 0; at < trace.size();) {
    const std::size_t end = trace.find('\n', at);
    const std::string line = trace.substr(at, end - at);
    if (line.rfind(start, 0) == 0 && line.find(" insn ") != std::string::npos) return line;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

// The demo ROM's instructions, in the code size each ran in (Intel SDM Vol. 2 opcode
// pages): the reset vector's EA ptr16:16 in 16-bit code, the 66h EA ptr16:32 that
// enters protected mode (still 16-bit code: its own CS.D is 0), then BC id in the
// 32-bit code segment. `trace dump` of the same run's binary trace infers the sizes
// the binary format does not record and prints the same lines.
TEST(TraceCli, TextTraceShowsInstructionsWithOperandsInTheirCodeSize) {
  const std::string text = ::testing::TempDir() + "demo_insn.txt", bin = ::testing::TempDir() + "demo_insn.bin";
  ASSERT_EQ(run("run --bios " + kDemo + " --debugcon none --trace text:" + text + " --trace bin:" + bin).status, 0);
  const std::string trace = read_file(text);
  EXPECT_EQ(instruction_line(trace, 0), "#0 c=0 insn f000:0000fff0 lin=fffffff0 cpl=0 ea8a0000f0 jmp F000:008A");
  EXPECT_EQ(instruction_line(trace, 3), "#3 c=12 insn f000:0000008e lin=000f008e cpl=0 bc0070 mov sp, 7000h");
  EXPECT_EQ(instruction_line(trace, 280),
            "#280 c=398 insn f000:000000c8 lin=000f00c8 cpl=0 66ead0000f000800 jmp 0008:000F00D0");
  EXPECT_EQ(instruction_line(trace, 283), "#283 c=466 insn 0008:000f00d6 lin=000f00d6 cpl=0 bc00700000 mov esp, 7000h");
  const Outcome dump = run("trace dump " + bin);
  ASSERT_EQ(dump.status, 0);
  EXPECT_EQ(dump.output, trace);
}

TEST(TraceCli, TwoRunsGiveByteIdenticalBinaryTraces) {
  const std::string a = ::testing::TempDir() + "det_a.bin", b = ::testing::TempDir() + "det_b.bin";
  ASSERT_EQ(run("run --bios " + kDemo + " --debugcon none --trace bin:" + a).status, 0);
  ASSERT_EQ(run("run --bios " + kDemo + " --debugcon none --trace bin:" + b).status, 0);
  const std::string first = read_file(a);
  EXPECT_GT(first.size(), 1000u);
  EXPECT_EQ(first, read_file(b));
  const Outcome diff = run("trace diff " + a + " " + b);
  EXPECT_EQ(diff.status, 0) << diff.output;
}

TEST(TraceCli, DiffFindsADifferentProfile) {
  const std::string a = ::testing::TempDir() + "p3.bin", b = ::testing::TempDir() + "p4.bin";
  ASSERT_EQ(run("run --bios " + kDemo + " --debugcon none --trace bin:" + a).status, 0);
  ASSERT_EQ(run("run --bios " + kDemo + " --debugcon none --profile p4 --trace bin:" + b).status, 0);
  const Outcome diff = run("trace diff " + a + " " + b);
  EXPECT_EQ(diff.status, 1);
  EXPECT_NE(diff.output.find("first difference at event"), std::string::npos) << diff.output;
}

const Rejection kRejections[] = {
    {"BadTraceSpec", "run --bios " + kDemo + " --trace xml:/tmp/x",
     "--trace kind must be text, bin or perfetto, not 'xml'"},
    {"UnwritableTracePath", "run --bios " + kDemo + " --trace text:/nonexistent/dir/t.txt",
     "cannot open trace file '/nonexistent/dir/t.txt': No such file or directory"},
    {"FilterWithoutTrace", "run --bios " + kDemo + " --trace-filter seg", "--trace-filter needs --trace"},
    {"DumpOfMissingTrace", "trace dump /nonexistent.bin",
     "cannot open trace '/nonexistent.bin': No such file or directory"},
    // Numbers too wide for their field were truncated (cs=10008 acted as cs=8).
    {"FilterCsWiderThan16Bits", "run --bios " + kDemo + " --trace text:/dev/null --trace-filter cs=10008,insn",
     "--trace-filter cs: '10008' is too large (at most ffff)"},
    {"FilterEipWiderThan32Bits",
     "run --bios " + kDemo + " --trace text:/dev/null --trace-filter eip=1000f0000-1000fffff",
     "--trace-filter eip: '1000f0000' is too large (at most ffffffff)"},
    {"StartEipWiderThan32Bits", "run --bios " + kDemo + " --trace text:/dev/null --trace-start eip=1000f0044",
     "--trace-start eip: '1000f0044' is too large (at most ffffffff)"},
    {"StopEipWiderThan32Bits", "run --bios " + kDemo + " --trace text:/dev/null --trace-stop eip=100000000",
     "--trace-stop eip: '100000000' is too large (at most ffffffff)"},
    {"FilterEipRangeReversed", "run --bios " + kDemo + " --trace text:/dev/null --trace-filter eip=2-1",
     "--trace-filter eip: '2-1' is not a range LO-HI with LO <= HI"},
    {"FilterWindowReversed", "run --bios " + kDemo + " --trace text:/dev/null --trace-filter window=5-1",
     "--trace-filter window: '5-1' is not a range LO-HI with LO < HI"},
    {"FilterWindowBeyond64Bits",
     "run --bios " + kDemo + " --trace text:/dev/null --trace-filter window=1-18446744073709551616",
     "--trace-filter window: '18446744073709551616' is too large (at most 18446744073709551615)"},
    {"FilterCsNegative", "run --bios " + kDemo + " --trace text:/dev/null --trace-filter cs=-1",
     "--trace-filter cs: '-1' is not a number"},
    {"DumpFromNotANumber", "trace dump /nonexistent.bin --from 12x",
     "trace dump --from: '12x' is not an instruction index"},
    {"DumpUnknownOption", "trace dump /nonexistent.bin --window 5", "trace dump: unknown option '--window' (--from N, --to M)"},
    {"ConvertOfMissingTrace", "trace convert /nonexistent.bin /tmp/x86lab_convert_out.bin",
     "cannot open trace '/nonexistent.bin': No such file or directory"},
    {"FilterEmpty", "run --bios " + kDemo + " --trace text:/dev/null --trace-filter ''",
     "--trace-filter needs at least one item (event kinds, cpl=, eip=, cs=, window=)"},
};
INSTANTIATE_TEST_SUITE_P(TraceCli, RejectedCommandLine, ::testing::ValuesIn(kRejections), rejection_name);

TEST(TraceCli, CostFileWithUnknownKeyNamesTheLine) {
  const std::string path = ::testing::TempDir() + "bad.cost";
  std::ofstream(path) << "name = p3  source: test\nbogus = 1  source: none\n";
  expect_rejected("run --bios " + kDemo + " --profile " + path, path + ":2: unknown key 'bogus'");
}

// Every constant names its provenance (docs/cost-model.md): one without a tag is refused, exit 2.
TEST(TraceCli, CostFileConstantWithoutATagIsRefusedNamingTheLine) {
  const std::string path = ::testing::TempDir() + "untagged.cost";
  std::ofstream(path) << "name = p3  source: test\niret = 20  source: test\npage-walk = 10  two cache reads\n";
  expect_rejected("run --bios " + kDemo + " --profile " + path,
                  path + ":3: the number for 'page-walk' has no provenance (source:, assumption: or calibrated on:)");
}

// The CLI checks instruction.MNEMONIC against the CPU's instruction table.
TEST(TraceCli, CostFileWithAnUnknownMnemonicNamesTheLine) {
  const std::string path = ::testing::TempDir() + "mnemonic.cost";
  std::ofstream(path)
      << "name = p3  source: test\ninstruction.LLDT = 1  source: test\ninstruction.FOO = 1  source: none\n";
  expect_rejected("run --bios " + kDemo + " --profile " + path,
                  path + ":3: no instruction 'FOO' in x86lab's instruction table");
}

TEST(TraceCli, AMissingCostFileIsNamedAsAFile) {
  expect_rejected("run --bios " + kDemo + " --profile /nonexistent/x.cost",
                  "cannot open cost file '/nonexistent/x.cost': No such file or directory");
  expect_rejected("run --bios " + kDemo + " --profile nosuch",
                  "unknown --profile 'nosuch' (p3, k7, p4, modern, i386-locking, or a .cost file)");
}

TEST(TraceCli, CostFileWithAClockBelowOneMhzIsRejected) {
  const std::string path = ::testing::TempDir() + "slow.cost";
  std::ofstream(path) << "name = p3  source: test\ncpu-mhz = 0.5  source: test\n";
  expect_rejected("run --bios " + kDemo + " --profile " + path,
                  "--profile '" + path + "': cpu-mhz must be between 1 and 100000");
}

// Perfetto timestamps are modeled cycles over the machine's clock (µs = cycles / MHz):
// the demo ROM runs no timed device, so the same events come at twice the time at half
// the frequency, whether the clock comes from --cpu-mhz or from the profile.
TEST(TraceCli, PerfettoTimestampsFollowTheMachineClock) {
  const auto last_timestamp = [](const std::string& options) {
    const std::string out = ::testing::TempDir() + "clock.json";
    EXPECT_EQ(run("run --bios " + kDemo + " --debugcon none --trace perfetto:" + out + " " + options).status, 0);
    const std::string json = read_file(out);
    const std::size_t at = json.rfind("\"ts\":");
    return at == std::string::npos ? 0.0 : std::stod(json.substr(at + 5));
  };
  const double at_500 = last_timestamp(""), at_250 = last_timestamp("--cpu-mhz 250");
  const double at_k7 = last_timestamp("--profile k7 --cpu-mhz 500");
  ASSERT_GT(at_500, 0.0);
  EXPECT_NEAR(at_250 / at_500, 2.0, 0.01);
  EXPECT_GT(last_timestamp("--profile k7"), 0.0);
  EXPECT_NEAR(last_timestamp("--profile k7"), at_k7 * 500 / 1667, at_k7 * 0.01);  // k7: 1667 MHz
}

TEST(TraceCli, PerfettoOutputIsJsonWithTraceEvents) {
  const std::string out = ::testing::TempDir() + "demo.json";
  ASSERT_EQ(run("run --bios " + kDemo + " --debugcon none --trace perfetto:" + out).status, 0);
  const std::string json = read_file(out);
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0), 0u);
  EXPECT_NE(json.find("\"ph\":\"C\""), std::string::npos);
  EXPECT_EQ(json.substr(json.size() - 4), "\n]}\n");
}

TEST(TraceCli, StatsJsonHasTheLockedAccessCounts) {
  const std::string out = ::testing::TempDir() + "stats.json";
  ASSERT_EQ(run("run --bios " + kDemo + " --debugcon none --stats-json " + out).status, 0);
  const std::string json = read_file(out);
  EXPECT_NE(json.find("\"accessed-bit\": 3"), std::string::npos) << json;
  EXPECT_NE(json.find("\"profile\": \"p3\""), std::string::npos);
}

TEST(TraceCli, TraceCommandWithoutArgumentsIsStatus2) {
  EXPECT_EQ(run("trace").status, 2);
  EXPECT_EQ(run("trace dump").status, 2);
}


// The value of counter `name` in --stats output, or -1 when it is not printed.
long long counter(const std::string& stats, const std::string& name) {
  const std::string key = "\n" + name + " ";
  const std::size_t at = stats.find(key);
  return at == std::string::npos ? -1 : std::stoll(stats.substr(at + key.size()));
}

// Lines of `trace` containing `text`.
long long lines_with(const std::string& trace, const std::string& text) {
  long long count = 0;
  for (std::size_t at = trace.find(text); at != std::string::npos; at = trace.find(text, at + 1)) ++count;
  return count;
}

// The APIC test kernels' traces filtered to `apic` against the same run's counters,
// which are counted on other paths (the timer event, the EOI write, the I/O APIC's
// send, the INTA): one lapic-timer per apic-timer-interrupts, one lapic-eoi per
// apic-eois, one ioapic-delivery per ioapic-deliveries, one lapic-dispatch of vector
// N per apic-vector.N; and `trace dump` of the binary trace prints the text sink's lines.
TEST(TraceCli, ApicTimerKernelTraceHasAnEventPerApicCounterCount) {
  const std::string kernel = std::string(X86LAB_ROM_DIR) + "/multiboot/apic_timer_kernel.elf";
  const std::string text = ::testing::TempDir() + "apic_timer.txt", bin = ::testing::TempDir() + "apic_timer.bin";
  const Outcome o = run("run --kernel " + kernel + " --stats --trace text:" + text + " --trace bin:" + bin +
                        " --trace-filter apic");
  ASSERT_EQ(o.status, 33) << o.output;  // the kernels pass with exit port value 10h
  const std::string trace = read_file(text);
  const long long timers = counter(o.output, "apic-timer-interrupts"), eois = counter(o.output, "apic-eois");
  ASSERT_GT(timers, 0) << o.output;
  ASSERT_GT(eois, 0) << o.output;
  EXPECT_EQ(lines_with(trace, " lapic-timer "), timers);
  EXPECT_EQ(lines_with(trace, " lapic-eoi "), eois);
  EXPECT_EQ(lines_with(trace, " lapic-accept ") - lines_with(trace, "src=timer"), lines_with(trace, "src=ipi"));
  EXPECT_EQ(lines_with(trace, " lapic-dispatch vector=40 "), counter(o.output, "apic-vector.64"));
  EXPECT_EQ(lines_with(trace, " insn "), 0);  // the filter keeps the APIC kinds only
  const Outcome dump = run("trace dump " + bin);
  ASSERT_EQ(dump.status, 0) << dump.output;
  EXPECT_EQ(dump.output, trace);
}

TEST(TraceCli, IoApicKernelTraceHasAnEventPerIoApicDelivery) {
  const std::string kernel = std::string(X86LAB_ROM_DIR) + "/multiboot/ioapic_kernel.elf";
  const std::string text = ::testing::TempDir() + "ioapic.txt", bin = ::testing::TempDir() + "ioapic.bin";
  const Outcome o = run("run --kernel " + kernel + " --stats --trace text:" + text + " --trace bin:" + bin +
                        " --trace-filter apic");
  ASSERT_EQ(o.status, 33) << o.output;  // the kernels pass with exit port value 10h
  const std::string trace = read_file(text);
  const long long deliveries = counter(o.output, "ioapic-deliveries");
  ASSERT_GT(deliveries, 0) << o.output;
  EXPECT_EQ(lines_with(trace, " ioapic-delivery "), deliveries);
  EXPECT_EQ(lines_with(trace, " ioapic-delivery pin=2 "), counter(o.output, "ioapic-pin.2"));
  EXPECT_EQ(lines_with(trace, " lapic-eoi "), counter(o.output, "apic-eois"));
  EXPECT_EQ(lines_with(trace, " lapic-dispatch vector=30 "), counter(o.output, "apic-vector.48"));
  const Outcome dump = run("trace dump " + bin);
  ASSERT_EQ(dump.status, 0) << dump.output;
  EXPECT_EQ(dump.output, trace);
  const Outcome stats = run("trace stats " + bin);
  EXPECT_NE(stats.output.find("kind.ioapic-delivery " + std::to_string(deliveries) + "\n"), std::string::npos)
      << stats.output;
  EXPECT_EQ(counter("\n" + stats.output, "apic-vector.48"), counter(o.output, "apic-vector.48")) << stats.output;
}

}  // namespace
}  // namespace x86lab::testing
