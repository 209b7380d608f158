// Stream mode of the ctxsw scenario (docs/scenarios/ctxsw.md "Stream mode"; issue 25):
// the designs' context switches driven by the switch markers of a TLS stream
// (roms/scenarios/ctxsw/ctxsw_stream.c), checked against the stream's own structure.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "platform/scenario/scenario_runner.h"
#include "platform/scenario/tls_stream.h"

namespace x86lab {
namespace {

const ScenarioManifest& manifest() {
  static const ScenarioManifest m = load_manifest(X86LAB_ROM_DIR "/scenarios/ctxsw-stream/variants.json");
  return m;
}

i64 metric(const VariantResult& r, const std::string& name) {
  const auto it = r.metrics.find(name);
  if (it == r.metrics.end()) throw std::runtime_error(r.name + ": no METRIC " + name + "\n" + r.console);
  return it->second;
}

u64 locked_accessed(const VariantResult& r) {
  return r.counters.locked_by_kind[static_cast<std::size_t>(AccessKind::DescriptorAccessedBit)];
}

VariantResult run(const std::string& variant, const std::string& tag, const std::vector<u8>& bytes) {
  VariantSpec spec = *manifest().find(variant);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("x86lab-ctxsw-stream-" + std::to_string(::getpid()) + "-" + tag);
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  spec.module = file;
  VariantResult r = run_variant(manifest(), spec, "p3");
  std::filesystem::remove(file);
  return r;
}

TEST(CtxswStream, OneSwitchPerMarkerToAnotherThread) {
  // Two threads; markers to 1, 1, 0, 0, 1: three switches (a marker to the running
  // thread switches nothing).
  TlsStream s;
  s.threads = 2;
  s.records = {tls_access(-4, 4, false, 7, 0), tls_switch(1), tls_access(-4, 4, false, 7, 1), tls_switch(1),
               tls_switch(0), tls_switch(0), tls_switch(1), tls_access(8, 4, false, 6, 1)};
  const VariantResult r = run("copy2_a0", "markers", encode_tls_stream(s));
  ASSERT_TRUE(r.succeeded) << r.failure << "\n" << r.console;
  EXPECT_EQ(metric(r, "stream_switch_markers"), 5);
  EXPECT_EQ(metric(r, "switches"), 3);
  EXPECT_EQ(metric(r, "tls_checks"), 3);
  EXPECT_EQ(metric(r, "stream_threads"), 2);
  // Copy with A=0: every switch into a thread reloads an A=0 copy: the entry switch into
  // stream thread 0, the 3 recorded, and the switch back to stream thread 0 after the
  // timed pass (ctxsw_stream.c).
  EXPECT_EQ(locked_accessed(r), 1u + 3u + 1u);
  const VariantResult one = run("copy2_a0", "one-thread", encode_tls_stream(synthetic_tls_stream()));
  ASSERT_TRUE(one.succeeded) << one.failure;
  EXPECT_EQ(metric(one, "stream_switch_markers"), 64);
  EXPECT_EQ(metric(one, "switches"), 0);  // one thread: every yield returns to it
}

class CtxswStreamVariant : public ::testing::TestWithParam<const char*> {};

TEST_P(CtxswStreamVariant, RoundRobinOverThreeThreadsFollowsTheDesign) {
  const std::string name = GetParam();
  const TlsStream stream = tls_stream_pattern("threads:3");
  const VariantResult r = run(name, "threads3", encode_tls_stream(stream));
  ASSERT_TRUE(r.succeeded) << r.failure << "\n" << r.console;
  EXPECT_EQ(metric(r, "switches"), 64);
  EXPECT_EQ(metric(r, "tls_checks"), 64);
  const bool a0 = name.find("_a0") != std::string::npos;
  const bool keeps_descriptors = name.rfind("lldt", 0) == 0 || name.rfind("lgdt", 0) == 0;
  // Locked Accessed-bit writes: the copying designs reload an A=0 copy on every switch
  // into a thread (64 recorded + the entry switch + the switch back to thread 0 between
  // the passes); LDT and per-thread GDTs set A once per thread (3).
  const u64 expected = !a0 ? 0u : keeps_descriptors ? 3u : 66u;
  EXPECT_EQ(locked_accessed(r), expected) << name;
}

INSTANTIATE_TEST_SUITE_P(All, CtxswStreamVariant,
                         ::testing::Values("lldt_a0", "lldt_a1", "copy1_a0", "copy1_a1", "copy3_a0", "copy3_a1",
                                           "c3_1_a0", "c3_8_a1", "lgdt_a0", "lgdt_a1"));

TEST(CtxswStream, AccessedBitCostsTheLockedWriteOnEveryCopiedSwitch) {
  // Same code, A=0 against A=1: the difference per switch is the p3 model's locked
  // access (20 cycles, trace/profiles/p3.cost; docs/scenarios/ctxsw.md).
  const std::vector<u8> bytes = encode_tls_stream(tls_stream_pattern("threads:3"));
  for (const char* kind : {"copy1", "copy3", "c3_1"}) {
    const VariantResult a0 = run(std::string(kind) + "_a0", std::string(kind) + "a0", bytes);
    const VariantResult a1 = run(std::string(kind) + "_a1", std::string(kind) + "a1", bytes);
    EXPECT_EQ(metric(a0, "cycles_per_switch_x100") - metric(a1, "cycles_per_switch_x100"), 2000) << kind;
  }
}

TEST(CtxswStream, BadStreamFailsBeforeAnyMetric) {
  std::vector<u8> bytes = encode_tls_stream(tls_stream_pattern("threads:3"));
  bytes[16] = 17;  // thread count
  const VariantResult r = run("copy1_a0", "bad", bytes);
  EXPECT_FALSE(r.succeeded);
  EXPECT_NE(r.console.find("FAIL: TLS stream module: thread count is not 1..16"), std::string::npos) << r.console;
  EXPECT_TRUE(r.metrics.empty()) << r.console;
}

}  // namespace
}  // namespace x86lab
