// Trace events, sinks, the binary format, the trace tools and the cost model.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trace/binary_format.h"
#include "trace/cost_model.h"
#include "trace/sink.h"
#include "trace/trace_tools.h"
#include "trace/tracer.h"

namespace x86lab {
namespace {

// `parse` throws std::invalid_argument with exactly `message`.
template <class Parse>
void expect_invalid_argument(Parse parse, const std::string& message) {
  try {
    parse();
    FAIL() << "no error; expected: " << message;
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), message);
  }
}

Event segment_load_event() {
  Event e;
  e.kind = EventKind::SegmentLoad;
  e.detail = 3;  // DS
  e.a = 0x10;
  e.value = 0x00CF93000000FFFFull;
  e.b = 0;
  e.c = 0xFFFFFFFFu;
  e.flags = kEventAccessedWritten;
  return e;
}

Event locked_access_event() {
  Event e;
  e.kind = EventKind::MemoryAccess;
  e.detail = static_cast<u8>(AccessKind::DescriptorAccessedBit);
  e.flags = kEventLocked | kEventWrite;
  e.a = e.b = 0x1015;
  e.size = 1;
  e.c = 0x92;
  e.value = 0x93;
  return e;
}

std::string write_binary(const std::vector<Event>& events, const std::string& name) {
  const std::string path = ::testing::TempDir() + name;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  BinaryTraceWriter writer(file);
  for (const Event& e : events) writer.write(e);
  writer.finish();
  std::fclose(file);
  return path;
}

TEST(TraceText, LockedAccessLineShowsKindLockAndOldAndNewValue) {
  EXPECT_EQ(format_event(locked_access_event()),
            "#0 c=0 mem rmw accessed-bit LOCK lin=00001015 phys=00001015 size=1 value=92->93");
}

TEST(TraceText, SegmentLoadLineShowsTableIndexDescriptorAndAccessedWrite) {
  EXPECT_EQ(format_event(segment_load_event()),
            "#0 c=0 seg ds sel=0010 gdt[2] desc=00cf93000000ffff base=00000000 limit=ffffffff accessed-bit-written");
}

TEST(TraceBinary, RoundTripKeepsEveryField) {
  Event insn;
  insn.kind = EventKind::Instruction;
  insn.a = 0x8;
  insn.b = 0xF017F;
  insn.c = 0xF017F;
  insn.size = 3;
  insn.bytes = {0x8E, 0xD8, 0x90};
  insn.text = "MOV";
  insn.instruction = 7;
  insn.cycle = 40;
  Event second = insn;
  second.instruction = 8;
  second.cycle = 41;
  Event mem = locked_access_event();
  mem.instruction = 8;
  mem.cycle = 41;
  const std::string path = write_binary({insn, mem, second}, "roundtrip.bin");
  BinaryTraceReader reader;
  std::string error;
  ASSERT_TRUE(reader.open(path, error)) << error;
  Event e;
  ASSERT_TRUE(reader.next(e));
  EXPECT_EQ(e.kind, EventKind::Instruction);
  EXPECT_EQ(e.b, 0xF017Fu);
  EXPECT_EQ(e.text, "MOV");
  EXPECT_EQ(e.bytes[1], 0xD8);
  EXPECT_EQ(e.instruction, 7u);
  ASSERT_TRUE(reader.next(e));
  EXPECT_EQ(e.c, 0x92u);
  EXPECT_EQ(e.value, 0x93u);
  EXPECT_EQ(e.cycle, 41u);
  ASSERT_TRUE(reader.next(e));
  EXPECT_EQ(e.text, "MOV") << "second use of a string refers to the table";
  EXPECT_FALSE(reader.next(e));
  EXPECT_TRUE(reader.error().empty());
}

TEST(TraceBinary, ReaderRejectsAFileWithoutTheMagic) {
  const std::string path = ::testing::TempDir() + "not_a_trace.bin";
  std::ofstream(path) << "hello, this is not a trace";
  BinaryTraceReader reader;
  std::string error;
  EXPECT_FALSE(reader.open(path, error));
  EXPECT_NE(error.find("not an x86lab binary trace"), std::string::npos);
}

// A trace file of the header (reserved word `reserved`) and `records`, as raw bytes.
std::string write_raw_trace(const std::string& name, const std::string& records, u8 reserved = 0,
                            u32 version = kUnchunkedTraceVersion) {
  const std::string path = ::testing::TempDir() + name;
  std::string bytes("x86ltrc\0", 8);
  for (int i = 0; i < 4; ++i) bytes += static_cast<char>(version >> (8 * i));
  bytes += std::string(1, static_cast<char>(reserved)) + std::string(3, '\0');
  std::ofstream(path, std::ios::binary) << bytes << records;
  return path;
}

// One record: kind, instruction and cycle deltas, detail, flags, size, a, b, c, value
// (one-byte varints except where `abc` replaces a, b and c), no text (id 0).
std::string raw_record(u8 kind, u8 detail, const std::string& abc = std::string(3, '\0')) {
  return std::string{static_cast<char>(kind), 0, 0, static_cast<char>(detail), 0, 4} + abc + std::string(2, '\0');
}

// Readers index name tables by the detail byte, so a detail the writer never produces
// is a malformed record (it read past the access-kind names before). The last
// access kind (16, debugger) is one the writer produces.
TEST(TraceBinary, ReaderRejectsRecordsTheWriterCannotProduce) {
  const u8 mem = static_cast<u8>(EventKind::MemoryAccess);
  struct Case {
    const char* name;
    std::string records;
    u8 reserved;
  };
  const Case cases[] = {
      {"access_kind_17.bin", raw_record(mem, 17), 0},
      {"access_kind_18.bin", raw_record(mem, 18), 0},
      {"register_10.bin", raw_record(static_cast<u8>(EventKind::RegisterWrite), 10), 0},
      {"control_5.bin", raw_record(static_cast<u8>(EventKind::ControlRegister), 5), 0},
      {"a_over_32_bits.bin", raw_record(mem, 0, std::string("\x80\x80\x80\x80\x10\0\0", 7)), 0},
      {"varint_over_64_bits.bin",  // value (a 64-bit field) with bit 64 set: 1 << 64
       std::string{static_cast<char>(mem), 0, 0, 0, 0, 4, 0, 0, 0} + std::string(9, '\x80') + std::string("\x02\0", 2), 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = write_raw_trace(c.name, c.records, c.reserved);
    std::ostringstream out, err;
    EXPECT_EQ(trace_dump(path, out, err), 2);
    EXPECT_EQ(err.str(), "x86lab: '" + path + "': malformed record at byte 16\n");
  }
  const std::string last_kind = write_raw_trace("access_kind_16.bin", raw_record(mem, 16));
  std::ostringstream out, err;
  EXPECT_EQ(trace_dump(last_kind, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("debugger"), std::string::npos) << out.str();
}

// Version 3 added the APIC kinds (12-17) and nothing else: a version-2 trace (a halt
// record, kind 10) still dumps, a kind-12 record in a version-2 file is malformed
// (version 2 had no such kind), and a version the reader does not know is refused.
TEST(TraceBinary, ReaderTakesVersion2TracesWithoutApicKinds) {
  const std::string old = write_raw_trace("version2.bin", raw_record(10, 0), 0, 2);
  std::ostringstream out, err;
  EXPECT_EQ(trace_dump(old, out, err), 0) << err.str();
  EXPECT_EQ(out.str(), "#0 c=0 halt\n");
  const std::string apic_in_v2 = write_raw_trace("version2_apic.bin", raw_record(12, 0x40), 0, 2);
  std::ostringstream out2, err2;
  EXPECT_EQ(trace_dump(apic_in_v2, out2, err2), 2);
  EXPECT_EQ(err2.str(), "x86lab: '" + apic_in_v2 + "': malformed record at byte 16\n");
  const std::string apic_in_v3 = write_raw_trace("version3_apic.bin", raw_record(14, 0x40), 0, 3);
  std::ostringstream out3, err3;
  EXPECT_EQ(trace_dump(apic_in_v3, out3, err3), 0) << err3.str();
  EXPECT_EQ(out3.str(), "#0 c=0 lapic-eoi vector=40 edge apic=00\n");
  const std::string future = write_raw_trace("version5.bin", raw_record(10, 0), 0, 5);
  std::ostringstream out4, err4;
  EXPECT_EQ(trace_dump(future, out4, err4), 2);
  EXPECT_EQ(err4.str(), "x86lab: '" + future + "' is binary trace version 5; this x86lab reads versions 2 to 4\n");
}

TEST(TraceBinary, ReaderRejectsAHeaderWithReservedBytesSet) {
  const std::string path = write_raw_trace("reserved.bin", raw_record(0, 0), 1);
  std::ostringstream out, err;
  EXPECT_EQ(trace_dump(path, out, err), 2);
  EXPECT_EQ(err.str(), "x86lab: '" + path + "' is not an x86lab binary trace (reserved header bytes 12-15 are not zero)\n");
}

TEST(TraceTools, DiffReportsTheFirstDivergenceAndKindCounts) {
  const std::string a = write_binary({segment_load_event(), locked_access_event()}, "a.bin");
  Event changed = locked_access_event();
  changed.value = 0x92;
  const std::string b = write_binary({segment_load_event(), changed, changed}, "b.bin");
  std::ostringstream out, err;
  EXPECT_EQ(trace_diff(a, b, out, err), 1);
  EXPECT_NE(out.str().find("first difference at event 1"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("mem 1 2 -1"), std::string::npos) << out.str();
  std::ostringstream same_out;
  EXPECT_EQ(trace_diff(a, a, same_out, err), 0);
  EXPECT_NE(same_out.str().find("identical (2 events)"), std::string::npos);
}

TEST(TraceTools, StatsCountsLockedAccessesByKind) {
  const std::string path = write_binary({segment_load_event(), locked_access_event()}, "stats.bin");
  std::ostringstream out, err;
  EXPECT_EQ(trace_stats(path, out, err), 0);
  EXPECT_NE(out.str().find("locked.accessed-bit 1"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("kind.seg 1"), std::string::npos);
}

TEST(TraceTools, MissingFileIsOneLineAndStatus2) {
  std::ostringstream out, err;
  EXPECT_EQ(trace_dump("/nonexistent/trace.bin", out, err), 2);
  EXPECT_EQ(err.str(), "x86lab: cannot open trace '/nonexistent/trace.bin': No such file or directory\n");
}

struct CollectingSink : TraceSink {
  std::vector<Event>* events;
  explicit CollectingSink(std::vector<Event>* e) : events(e) {}
  void write(const Event& event) override { events->push_back(event); }
  void finish() override {}
};

TEST(Tracer, FilterKeepsOnlyTheNamedKindsAndCpl) {
  std::vector<Event> events;
  Tracer tracer(parse_trace_filter("seg,cpl=3"), {});
  tracer.add_sink(std::make_unique<CollectingSink>(&events));
  tracer.begin_instruction(0, 0, 0x1B, 0x1000, 3);
  tracer.emit(segment_load_event());
  tracer.emit(locked_access_event());
  tracer.begin_instruction(1, 1, 0x08, 0x2000, 0);
  tracer.emit(segment_load_event());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].instruction, 0u);
}

// One start (`start` = true) or stop trigger parsed from `spec`.
TraceTriggers trigger(const char* spec, bool start) {
  TraceTriggers triggers;
  parse_trace_trigger(spec, start, triggers);
  return triggers;
}

TEST(Tracer, StartTriggerOnAVectorBeginsAtThatDelivery) {
  std::vector<Event> events;
  Tracer tracer({}, trigger("vector=13", true));
  tracer.add_sink(std::make_unique<CollectingSink>(&events));
  tracer.emit(segment_load_event());
  Event gp;
  gp.kind = EventKind::Exception;
  gp.detail = 13;
  tracer.emit(gp);
  tracer.emit(segment_load_event());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, EventKind::Exception);
}

TEST(Tracer, StopTriggerEndsTracingForGood) {
  std::vector<Event> events;
  Tracer tracer({}, trigger("eip=2000", false));
  tracer.add_sink(std::make_unique<CollectingSink>(&events));
  tracer.begin_instruction(0, 0, 8, 0x1000, 0);
  tracer.emit(segment_load_event());
  tracer.begin_instruction(1, 1, 8, 0x2000, 0);
  tracer.emit(segment_load_event());
  tracer.begin_instruction(2, 2, 8, 0x1000, 0);
  tracer.emit(segment_load_event());
  EXPECT_EQ(events.size(), 1u);
}

TEST(TraceFilter, UnknownItemIsRejectedByName) {
  expect_invalid_argument([] { parse_trace_filter("seg,bogus"); }, "--trace-filter: unknown item 'bogus'");
}

TEST(CostModel, P3ProfileGivesTheSeedsLldtAndLgdtCyclesExactly) {
  const CostModel p3 = builtin_cost_model("p3");
  EXPECT_EQ(p3.instruction_cost("LLDT"), 51 * kSubcyclesPerCycle);
  EXPECT_EQ(p3.instruction_cost("LGDT"), 50 * kSubcyclesPerCycle);
  EXPECT_EQ(p3.instruction_cost("LLDT"), 51 * kSubcyclesPerCycle);
  // They come from the seed: calibrated, never sources (docs/cost-model.md, "Provenance").
  EXPECT_EQ(p3.provenance.at("instruction.LLDT").kind, Provenance::Calibrated);
  EXPECT_EQ(p3.provenance.at("instruction.LGDT").kind, Provenance::Calibrated);
  EXPECT_EQ(p3.provenance.at("instruction.MOV").kind, Provenance::Calibrated);
}

// The K7 costs the seeds' system instructions from AMD's latency table (pub. 25112,
// Appendix C Table 13: LLDT mreg16 34, LGDT 37, MOV sreg 8 = MOV 1 + segment-load 7) and
// REP MOVS from the Athlon guide (pub. 22007E Table 1: 15 + 4/3 per element).
TEST(CostModel, K7CostsLldtLgdtSegmentLoadsAndRepMovsFromAmdsTables) {
  const CostModel k7 = builtin_cost_model("k7");
  EXPECT_EQ(k7.instruction_cost("LLDT"), 34 * kSubcyclesPerCycle);
  EXPECT_EQ(k7.instruction_cost("LGDT"), 37 * kSubcyclesPerCycle);
  EXPECT_EQ(*k7.instruction_cost("MOV") + k7.part(CostPart::SegmentLoad), 8 * kSubcyclesPerCycle);
  EXPECT_EQ(k7.instruction_cost("MOVS"), 15 * kSubcyclesPerCycle);
  EXPECT_EQ(k7.part(CostPart::StringIteration), 341u);  // 1.333 cycles
  for (const char* key : {"instruction.LLDT", "instruction.LGDT", "instruction.MOV", "segment-load", "instruction.MOVS",
                          "string-iteration"})
    EXPECT_EQ(k7.provenance.at(key).kind, Provenance::Source) << key;
}

// The modern profile costs MOV Sreg and REP MOVSD from bench/host_costs, run on a modern Intel
// core (bench/results.md "Host instruction costs": MOV ES,r16 20.0 cycles = MOV 0.5 +
// segment-load 19.5; REP MOVSD 36 cycles of start-up, 0.048 per element). No published figure was
// found for LLDT, LGDT, LTR or LIDT on a modern core (privileged: a user process cannot time them),
// nor for any of these, MOV Sreg or REP MOVS on NetBurst: those lines stay assumptions that say
// what was searched.
TEST(CostModel, ModernCostsMovSregAndRepMovsFromTheHostMeasurementAndTheRestSayWhatWasSearched) {
  const CostModel modern = builtin_cost_model("modern");
  EXPECT_EQ(*modern.instruction_cost("MOV") + modern.part(CostPart::SegmentLoad), 20 * kSubcyclesPerCycle);
  EXPECT_EQ(modern.instruction_cost("MOVS"), 36 * kSubcyclesPerCycle);
  EXPECT_EQ(modern.part(CostPart::StringIteration), 12u);  // 0.048 cycles, in 1/256 cycles
  for (const char* key : {"instruction.MOVS", "string-iteration", "segment-load"}) {
    EXPECT_EQ(modern.provenance.at(key).kind, Provenance::Source) << key;
    EXPECT_NE(modern.provenance.at(key).text.find("bench/host_costs"), std::string::npos) << key;
  }
  for (const char* name : {"modern", "p4"}) {
    const CostModel model = builtin_cost_model(name);
    std::vector<const char*> keys = {"instruction.LLDT", "instruction.LGDT", "instruction.LTR", "instruction.LIDT"};
    if (std::string(name) == "p4") keys.insert(keys.end(), {"segment-load", "instruction.MOVS", "string-iteration"});
    for (const char* key : keys) {
      EXPECT_EQ(model.provenance.at(key).kind, Provenance::Assumption) << name << " " << key;
      EXPECT_NE(model.provenance.at(key).text.find("searched:"), std::string::npos) << name << " " << key;
    }
  }
}

TEST(CostModel, EachTagGivesItsProvenance) {
  const CostModel model = parse_cost_model(
      "name = x  source: t\niret = 2  assumption: a guess\ninstruction.LLDT = 51  calibrated on: ctxsw lldt\n"
      "page-walk = 3  source: a table (assumption: is a word in the text here)\n", "x.cost", {});
  EXPECT_EQ(model.provenance.at("iret").kind, Provenance::Assumption);
  EXPECT_EQ(model.provenance.at("iret").text, "a guess");
  EXPECT_EQ(model.provenance.at("instruction.LLDT").kind, Provenance::Calibrated);
  EXPECT_EQ(model.provenance.at("instruction.LLDT").line, 3);
  EXPECT_EQ(model.provenance.at("page-walk").kind, Provenance::Source);
  EXPECT_EQ(model.part(CostPart::PageWalk), 3u * 256);
}

// docs/cost-model.md "Ranges": value [low..high] on assumption lines, reasoning after range:.
TEST(CostModel, AnAssumptionRangeIsParsedWithItsReasoning) {
  const CostModel model = parse_cost_model(
      "name = x  source: t\niret = 20 [10..60]  assumption: microcoded; range: the Pentium's 27\n"
      "page-walk = 10  assumption: a guess\nfar-transfer = 4  source: a table\n", "x.cost", {});
  const ConstantProvenance& iret = model.provenance.at("iret");
  EXPECT_TRUE(iret.range_given);
  EXPECT_EQ(iret.value, 20);
  EXPECT_EQ(iret.low, 10);
  EXPECT_EQ(iret.high, 60);
  EXPECT_EQ(iret.range_reason, "the Pentium's 27");
  EXPECT_EQ(model.part(CostPart::Iret), 20u * 256);
  // No range given: half to double; a sourced constant is a point.
  EXPECT_FALSE(model.provenance.at("page-walk").range_given);
  EXPECT_EQ(model.provenance.at("page-walk").low, 5);
  EXPECT_EQ(model.provenance.at("page-walk").high, 20);
  EXPECT_EQ(model.provenance.at("far-transfer").low, 4);
  EXPECT_EQ(model.provenance.at("far-transfer").high, 4);
}

TEST(CostModel, ABadRangeIsAnErrorNamingTheLine) {
  const auto parse = [](const std::string& line) { return parse_cost_model("name = x  source: t\n" + line + "\n", "x.cost", {}); };
  expect_invalid_argument([&] { parse("iret = 20 [30..60]  assumption: a; range: b"); },
                          "x.cost:2: the range of 'iret' does not hold its value 20");
  expect_invalid_argument([&] { parse("iret = 20 [60..10]  assumption: a; range: b"); },
                          "x.cost:2: the range of 'iret' has low above high");
  expect_invalid_argument([&] { parse("iret = 20 [10..x]  assumption: a; range: b"); },
                          "x.cost:2: the range of 'iret' has 'x', not a non-negative number");
  expect_invalid_argument([&] { parse("iret = 20 [10-60]  assumption: a; range: b"); },
                          "x.cost:2: the range of 'iret' must be written [low..high] after the number");
  expect_invalid_argument([&] { parse("iret = 20 [10..60]  source: a; range: b"); },
                          "x.cost:2: the range of 'iret' is given on a line not tagged assumption:");
  expect_invalid_argument([&] { parse("iret = 20 [10..60]  assumption: a guess"); },
                          "x.cost:2: the range of 'iret' has no reasoning (\"range: why these bounds\" in the text)");
}

// Every assumption of the built-in profiles says how far it may be off, and why.
TEST(CostModel, EveryBuiltinAssumptionHasARangeWithItsReasoning) {
  for (const std::string& name : builtin_cost_model_names())
    for (const auto& [key, p] : builtin_cost_model(name).provenance) {
      if (p.kind != Provenance::Assumption) continue;
      EXPECT_TRUE(p.range_given) << name << " " << key;
      EXPECT_FALSE(p.range_reason.empty()) << name << " " << key;
      EXPECT_LE(p.low, p.value) << name << " " << key;
      EXPECT_GE(p.high, p.value) << name << " " << key;
    }
  // p3's delivery range spans the earlier processors' figures (the Pentium's INT 48, the
  // Intel386's 99 clocks) that its reasoning cites.
  const ConstantProvenance& delivery = builtin_cost_model("p3").provenance.at("exception-delivery");
  EXPECT_LE(delivery.low, 48);
  EXPECT_GE(delivery.high, 99);
}

TEST(CostModel, ATagWithoutTextIsAnError) {
  expect_invalid_argument([] { parse_cost_model("name = x  source: t\niret = 2  assumption:\n", "x.cost", {}); },
                          "x.cost:2: the assumption: of 'iret' is empty");
}

// There is no default cost: an instruction without its own line is uncosted.
TEST(CostModel, InstructionDefaultIsRefusedAndAnUnlistedMnemonicHasNoCost) {
  expect_invalid_argument(
      [] { parse_cost_model("name = x  source: t\ninstruction.default = 1  assumption: t\n", "x.cost", {}); },
      "x.cost:2: there is no instruction.default: give each instruction its own cost");
  EXPECT_FALSE(parse_cost_model("name = x  source: t\ninstruction.NOP = 1  assumption: t\n", "x.cost", {})
                   .instruction_cost("CPUID")
                   .has_value());
}

TEST(CostModel, EveryBuiltinProfileParses) {
  for (const std::string& name : builtin_cost_model_names()) EXPECT_EQ(builtin_cost_model(name).name, name);
  EXPECT_GE(builtin_cost_model_names().size(), 4u);
}

TEST(CostModel, UnknownKeyIsAnErrorNamingTheLine) {
  expect_invalid_argument(
      [] { parse_cost_model("name = x  source: test\nwarp-speed = 9  source: fiction\n", "x.cost", {}); },
      "x.cost:2: unknown key 'warp-speed'");
}

TEST(CostModel, NumberWithoutSourceIsAnErrorNamingTheLine) {
  expect_invalid_argument([] { parse_cost_model("name = x  source: test\n\ninstruction.LLDT = 51\n", "x.cost", {}); },
                          "x.cost:3: the number for 'instruction.LLDT' has no provenance (source:, assumption: or calibrated on:)");
}

// Costs are u32 in 1/256 cycles: 16777216 cycles would wrap to 0.
TEST(CostModel, ACostTooLargeForItsFieldIsAnError) {
  expect_invalid_argument(
      [] { parse_cost_model("name = x  source: t\ninstruction.NOP = 16777216  source: t\n", "x.cost", {}); },
      "x.cost:2: '16777216' cycles is too large (at most 16777215)");
  EXPECT_EQ(parse_cost_model("name = x  source: t\niret = 16777215  source: t\n", "x.cost", {}).part(CostPart::Iret), 16777215u * 256);
}

TEST(CostModel, AKeyGivenTwiceIsAnError) {
  expect_invalid_argument(
      [] { parse_cost_model("name = x  source: t\niret = 1  source: t\niret = 2  source: t\n", "x.cost", {}); },
      "x.cost:3: 'iret' is given twice (first on line 2)");
  expect_invalid_argument([] { parse_cost_model("name = x  source: t\nname = y  source: t\n", "x.cost", {}); },
                          "x.cost:2: 'name' is given twice (first on line 1)");
}

TEST(CostModel, ANulByteIsAnError) {
  expect_invalid_argument(
      [] { parse_cost_model(std::string("name = x  source: t\niret = 1") + '\0' + "  source: t\n", "x.cost", {}); },
      "x.cost:2: a NUL byte (not a text file)");
}

TEST(CostModel, AMnemonicTheCheckDoesNotKnowIsAnError) {
  const MnemonicCheck only_mov = [](const std::string& mnemonic) { return mnemonic == "MOV"; };
  expect_invalid_argument(
      [&] { parse_cost_model("name = x  source: t\ninstruction.MOVE = 1  source: t\n", "x.cost", only_mov); },
      "x.cost:2: no instruction 'MOVE' in x86lab's instruction table");
  EXPECT_EQ(parse_cost_model("name = x  source: t\ninstruction.MOV = 1  source: t\n", "x.cost", only_mov)
                .instruction_cost("MOV"),
            256u);
}

TEST(CostModel, FractionalCyclesAreKeptInSubcycles) {
  const CostModel model = parse_cost_model("name = x  source: t\ninstruction.MOV = 0.625  source: t\n", "x.cost", {});
  EXPECT_EQ(model.instruction_cost("MOV"), 160u);  // 0.625 * 256
}

}  // namespace
}  // namespace x86lab
