// Recording TLS streams (platform/scenario/tls_recorder.h, `x86lab run --record-tls`).
// The independent fact: the synthetic tls program's own %gs accesses as its gcc listing
// has them (synthetic_tls_stream, docs/scenarios/tls.md "What runs"), offset, size,
// direction and instruction length, must be what the recorder sees when that program
// runs (tls.elf, native variant), at CPL 3 only and in one thread.
#include <gtest/gtest.h>

#include "platform/input_error.h"
#include "platform/machine.h"
#include "platform/scenario/scenario_runner.h"
#include "platform/scenario/tls_recorder.h"
#include "platform/scenario/tls_stream.h"

namespace x86lab {
namespace {

std::vector<tls_stream_record> accesses_of(const TlsStream& stream) {
  std::vector<tls_stream_record> accesses;
  for (const tls_stream_record& r : stream.records)
    if (!(r.flags & TLS_STREAM_SWITCH)) accesses.push_back(r);
  return accesses;
}

struct Recorded {
  TlsStream stream;
  TlsWindowCounts counts;
  u64 run_instructions = 0;
};

Recorded record_tls_variant(const std::string& variant_name, const TlsWindow& window) {
  const ScenarioManifest manifest = load_manifest(X86LAB_ROM_DIR "/scenarios/tls/variants.json");
  MachineConfig base;
  apply_builtin_profile("p3", base);
  MachineConfig config = variant_config(*manifest.find(variant_name), base);
  TlsRecorder recorder(window, nullptr);
  config.com1_host = &recorder;
  Machine machine(config);
  recorder.attach(machine);
  const RunResult run = machine.run();
  EXPECT_EQ(run.reason, RunResult::Reason::ExitPort);  // the guest's success: 10h to port F4h
  EXPECT_EQ(run.exit_status, 33);
  recorder.finish();
  return {recorder.stream(), recorder.counts(), machine.counters.instructions};
}

bool same_access(const tls_stream_record& a, const tls_stream_record& b) {
  return a.offset == b.offset && a.size == b.size && a.flags == b.flags && a.length == b.length && a.thread == b.thread;
}

TEST(TlsRecorder, RecordsTheSyntheticProgramsAccessesAsItsListingHasThem) {
  const Recorded recorded = record_tls_variant("native", TlsWindow{});
  const std::vector<tls_stream_record> got = accesses_of(recorded.stream);
  const std::vector<tls_stream_record> expected = accesses_of(synthetic_tls_stream());
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_TRUE(same_access(got[i], expected[i]))
        << "access " << i << ": recorded offset " << got[i].offset << " size " << unsigned{got[i].size} << " flags "
        << unsigned{got[i].flags} << " length " << unsigned{got[i].length} << ", listing offset " << expected[i].offset
        << " size " << unsigned{expected[i].size} << " flags " << unsigned{expected[i].flags} << " length "
        << unsigned{expected[i].length};
  EXPECT_EQ(recorded.stream.threads, 1u);
  ASSERT_FALSE(recorded.stream.records.empty());
  EXPECT_TRUE(recorded.stream.records.front().flags & TLS_STREAM_SWITCH);  // the first thread's marker
}

TEST(TlsRecorder, AnInstructionWindowKeepsOnlyTheAccessesInsideIt) {
  const Recorded whole = record_tls_variant("native", TlsWindow{});
  TlsWindow window;
  window.from = whole.run_instructions / 2;
  window.to = whole.run_instructions;
  const Recorded half = record_tls_variant("native", window);
  const auto all = accesses_of(whole.stream), part = accesses_of(half.stream);
  ASSERT_GT(part.size(), 0u);
  ASSERT_LT(part.size(), all.size());
  // The window's accesses are the whole run's last ones.
  for (std::size_t i = 0; i < part.size(); ++i) EXPECT_TRUE(same_access(part[i], all[all.size() - part.size() + i]));
}

TEST(TlsRecorder, WindowOptionIsParsedOrRefusedInOneLine) {
  const TlsWindow markers = parse_tls_window("X86LAB-WORKLOAD-BEGIN..X86LAB-WORKLOAD-END");
  EXPECT_EQ(markers.begin, "X86LAB-WORKLOAD-BEGIN");
  EXPECT_EQ(markers.end, "X86LAB-WORKLOAD-END");
  const TlsWindow steps = parse_tls_window("100..2000");
  EXPECT_FALSE(steps.markers());
  EXPECT_EQ(steps.from, 100u);
  EXPECT_EQ(steps.to, 2000u);
  for (const char* bad : {"", "BEGIN", "..END", "BEGIN..", "20..10"})
    EXPECT_THROW(parse_tls_window(bad), InputError) << bad;
}

}  // namespace
}  // namespace x86lab
