// Stream mode of the TLS scenario (docs/scenarios/tls.md "Stream mode"; issue 25): the
// stream file's layout, and tls_stream.elf replaying streams through every design. The
// independent cross-check: the stream of the synthetic program's own accesses (its
// gcc listing, docs/scenarios/tls.md) gives the same #GP, replay, flip, emulation and
// descriptor counts as the synthetic program itself (tls.elf, the tls manifest).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

#include "platform/input_error.h"
#include "platform/scenario/scenario_runner.h"
#include "platform/scenario/tls_stream.h"
#include "roms/scenarios/tls/descriptor.h"

namespace x86lab {
namespace {

const ScenarioManifest& tls_manifest() {
  static const ScenarioManifest m = load_manifest(X86LAB_ROM_DIR "/scenarios/tls/variants.json");
  return m;
}

i64 metric(const VariantResult& r, const std::string& name) {
  const auto it = r.metrics.find(name);
  if (it == r.metrics.end()) throw std::runtime_error(r.name + ": no METRIC " + name + "\n" + r.console);
  return it->second;
}

i64 metric_or_0(const VariantResult& r, const std::string& name) {
  const auto it = r.metrics.find(name);
  return it == r.metrics.end() ? 0 : it->second;
}

u64 gp_count(const VariantResult& r) { return r.counters.exceptions_by_vector[13]; }
u64 locked_accessed(const VariantResult& r) {
  return r.counters.locked_by_kind[static_cast<std::size_t>(AccessKind::DescriptorAccessedBit)];
}

const VariantResult& synthetic(const std::string& variant) {
  static std::map<std::string, VariantResult> results;
  auto it = results.find(variant);
  if (it == results.end()) it = results.emplace(variant, run_variant(tls_manifest(), *tls_manifest().find(variant), "p3")).first;
  return it->second;
}

// `variant` of the tls manifest in stream mode: tls_stream.elf with the variant's
// hypervisor words, stream=virt-happy for the virt-happy variants, `stream` as module 0.
VariantResult run_stream(const std::string& variant, const std::string& stream_name, const std::vector<u8>& bytes) {
  VariantSpec spec = *tls_manifest().find(variant);
  const bool happy = variant.rfind("virt-happy", 0) == 0;
  spec.kernel = spec.kernel.parent_path() / "tls_stream.elf";
  spec.append += happy ? " stream=virt-happy" : " stream=direct";
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("x86lab-tls-stream-" + std::to_string(::getpid()) + "-" + stream_name + ".x86ltls");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  spec.module = file;
  spec.max_instructions = 40000000;
  VariantResult r = run_variant(tls_manifest(), spec, "p3");
  std::filesystem::remove(file);
  return r;
}

VariantResult run_stream(const std::string& variant, const std::string& stream_name, const TlsStream& stream) {
  return run_stream(variant, stream_name, encode_tls_stream(stream));
}

TEST(TlsStreamFile, LayoutIsTheAgreedLittleEndianFormat) {
  TlsStream s;
  s.threads = 2;
  s.records = {tls_access(-0x10, 4, true, 6, 0), tls_switch(1), tls_access(0x14, 2, false, 8, 1)};
  const std::vector<u8> bytes = encode_tls_stream(s);
  const std::vector<u8> expected = {'X', '8', '6', 'L', 'T', 'L', 'S', '1', 1, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
                                    0xF0, 0xFF, 0xFF, 0xFF, 4, 0x01, 6, 0,   // write -0x10, 4 bytes, 6-byte instruction
                                    0, 0, 0, 0, 0, 0x80, 0, 1,               // switch to thread 1
                                    0x14, 0, 0, 0, 2, 0, 8, 1};              // read +0x14, 2 bytes, thread 1
  EXPECT_EQ(bytes, expected);
  const TlsStream back = decode_tls_stream(bytes, "t");
  EXPECT_EQ(back.threads, 2u);
  ASSERT_EQ(back.records.size(), 3u);
  EXPECT_EQ(back.records[0].offset, -0x10);
  EXPECT_EQ(back.records[2].length, 8);
  std::vector<u8> truncated(bytes.begin(), bytes.end() - 1);
  EXPECT_THROW(decode_tls_stream(truncated, "t"), InputError);
  EXPECT_THROW(tls_stream_pattern("threads:17"), InputError);
  EXPECT_THROW(tls_stream_pattern("sawtooth"), InputError);
  // More threads than the replay guests hold (TLS_STREAM_MAX_THREADS) is refused with the
  // header, as a count of 0 is, not left to fail in the guest.
  for (const u8 threads : {u8{0}, u8{17}, u8{0xFF}}) {
    std::vector<u8> many = bytes;
    many[16] = threads;
    try {
      decode_tls_stream(many, "t");
      ADD_FAILURE() << "thread count " << int(threads) << " accepted";
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find("thread count " + std::to_string(threads)), std::string::npos) << error.what();
    }
  }
}

TEST(TlsStreamFile, SyntheticStreamHasTheProgramsAccessCounts) {
  // docs/scenarios/tls.md: 8 accesses per call (4 negative), a yield and one negative
  // store after every 16th call: 1024 x 8 + 64 accesses, 64 x 5 = 4160 negative.
  const TlsStream s = synthetic_tls_stream();
  EXPECT_EQ(s.records.size(), 1024u * 8 + 64 * 2);
  EXPECT_EQ(std::count_if(s.records.begin(), s.records.end(), [](const auto& r) { return r.flags & TLS_STREAM_SWITCH; }), 64);
  EXPECT_EQ(std::count_if(s.records.begin(), s.records.end(), [](const auto& r) { return r.offset < 0; }), 4160);
}

TEST(TlsStreamManifest, ModuleIsResolvedBesideTheManifestAndNeedsAKernel) {
  const std::filesystem::path dir = X86LAB_ROM_DIR "/scenarios/tls-stream";
  const ScenarioManifest m = load_manifest(dir / "variants.json");
  EXPECT_FALSE(m.in_all);
  ASSERT_EQ(m.variants.size(), 8u);
  EXPECT_EQ(m.variants[0].module, dir / "synthetic.x86ltls");
  EXPECT_EQ(m.variants[0].kernel, dir / "../tls/tls_stream.elf");
  EXPECT_TRUE(tls_manifest().variants[0].module.empty());
  const std::filesystem::path bad = std::filesystem::temp_directory_path() / ("x86lab-module-" + std::to_string(::getpid()) + ".json");
  std::ofstream(bad) << R"({"scenario": "s", "baseline": "a", "variants": [{"name": "a", "bios": "a.bin",
                           "module": "m.x86ltls", "max_instructions": 10}]})";
  try {
    load_manifest(bad);
    ADD_FAILURE() << "a module without a kernel was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("variant 'a' has a \"module\" but no \"kernel\""), std::string::npos) << e.what();
  }
  std::filesystem::remove(bad);
}

class TlsStreamVariant : public ::testing::TestWithParam<const char*> {};

TEST_P(TlsStreamVariant, SyntheticStreamGivesTheSyntheticProgramsCounts) {
  const std::string name = GetParam();
  const VariantResult& program = synthetic(name);
  const VariantResult r = run_stream(name, "synthetic", synthetic_tls_stream());
  ASSERT_TRUE(r.succeeded) << r.failure << "\n" << r.console;
  ASSERT_TRUE(program.succeeded) << program.failure;
  EXPECT_EQ(gp_count(r), gp_count(program)) << name;
  EXPECT_EQ(r.counters.replayed_instructions, program.counters.replayed_instructions) << name;
  for (const char* m : {"gp_faults", "gp_faults_ring3", "emulations", "flips_to_expand_down", "flips_to_expand_up",
                        "handler_descriptor_writes", "yields", "rewrites", "descriptor_updates", "operations"})
    EXPECT_EQ(metric(r, m), metric(program, m)) << name << " " << m;
  EXPECT_EQ(locked_accessed(r), locked_accessed(program)) << name;
  // The emulator decoded stores of the same forms (MOV r->m incl. the moffs store, MOV
  // imm->m); the program's CMP m,r read is replayed as a MOV load of the same length.
  for (const char* m : {"emulated_store_reg", "emulated_store_imm"})
    EXPECT_EQ(metric_or_0(r, m), metric_or_0(program, m)) << name << " " << m;
  EXPECT_EQ(metric_or_0(r, "emulated_load"), metric_or_0(program, "emulated_load") + metric_or_0(program, "emulated_cmp_mem_reg"));
  EXPECT_EQ(metric(r, "thread_changes"), 0) << name;
  EXPECT_EQ(metric(r, "lengths_approximated"), 0) << name;  // every recorded length has a form
  if (name.rfind("virt-happy", 0) == 0) {
    // No negative %gs offset is left: one %gs:0 load per negative access instead (gcc
    // shares one per function, so the program has fewer).
    EXPECT_EQ(metric(r, "tls_accesses_negative"), 0);
    EXPECT_EQ(metric(r, "extra_user_loads"), 4160);
    // -mno-tls-direct-seg-refs code adds the thread-pointer load and nothing else: the
    // replay runs native's instructions plus one per negative access, never fewer cycles.
    const std::string twin_of = name == "virt-happy" ? "native" : "native-rewrites";
    const VariantResult native = run_stream(twin_of, "synthetic-" + twin_of + "-for-" + name, synthetic_tls_stream());
    // (virt-happy runs on the flipping hypervisor, whose rewrite at each yield does a little
    // more than native's: the rewrites variant may run more.)
    if (name == "virt-happy") EXPECT_EQ(metric(r, "replay_instructions"), metric(native, "replay_instructions") + 4160);
    else EXPECT_GE(metric(r, "replay_instructions"), metric(native, "replay_instructions") + 4160) << name;
    EXPECT_GE(metric(r, "replay_cycles_measured"), metric(native, "replay_cycles_measured")) << name;
  } else {
    EXPECT_EQ(metric(r, "tls_accesses_negative"), metric(program, "tls_accesses_negative")) << name;
    EXPECT_EQ(metric(r, "tls_accesses_positive"), metric(program, "tls_accesses_positive")) << name;
  }
  // Emulated loads, stores and compares give the replay the values native gives it.
  static const i64 native_checksum = metric(run_stream("native", "synthetic-native", synthetic_tls_stream()), "checksum");
  EXPECT_EQ(metric(r, "checksum"), native_checksum) << name;
}

INSTANTIATE_TEST_SUITE_P(All, TlsStreamVariant,
                         ::testing::Values("native", "native-rewrites", "emulation", "emulation-rewrites", "flipping",
                                           "flipping-rewrites", "virt-happy", "virt-happy-rewrites"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(TlsStream, NonNegativeOffsetsNeverFault) {
  for (const char* variant : {"emulation", "emulation-rewrites", "flipping", "flipping-rewrites"}) {
    const VariantResult r = run_stream(variant, "positive", tls_stream_pattern("positive"));
    ASSERT_TRUE(r.succeeded) << variant << ": " << r.failure << "\n" << r.console;
    EXPECT_EQ(gp_count(r), 0u) << variant;
    EXPECT_EQ(metric(r, "tls_accesses_negative"), 0) << variant;
    EXPECT_EQ(metric(r, "operations"), 1024 * 8 + 64) << variant;
  }
}

TEST(TlsStream, ThreadsHaveTheirOwnTlsBaseAndEverySwitchRewritesTheDescriptor) {
  // Three threads, round robin at each of the 64 yields: every switch changes the TLS
  // base, so the kernel installs the next thread's descriptor even without rewrites=1,
  // and flipping re-faults once per switch as the rewrites variant does (8255).
  const TlsStream s = tls_stream_pattern("threads:3");
  const VariantResult native = run_stream("native", "threads-native", s);
  const VariantResult flipping = run_stream("flipping", "threads-flipping", s);
  const VariantResult emulation = run_stream("emulation", "threads-emulation", s);
  for (const VariantResult* r : {&native, &flipping, &emulation}) {
    ASSERT_TRUE(r->succeeded) << r->failure << "\n" << r->console;
    EXPECT_EQ(metric(*r, "thread_changes"), 64);
    EXPECT_EQ(metric(*r, "rewrites"), 64);
    EXPECT_EQ(metric(*r, "checksum"), metric(native, "checksum"));
  }
  EXPECT_EQ(gp_count(flipping), 8255u);
  EXPECT_EQ(gp_count(emulation), 4160u);
  // The last switch (the 64th) goes to thread 64 mod 3 = 1: thread pointer B - 64 KiB.
  const seg_desc last = desc_truncate(desc_glibc_tls(0xB7E00000u - 0x10000u));
  EXPECT_EQ(static_cast<u32>(metric(emulation, "tls_descriptor_high")), last.high);
  EXPECT_EQ(static_cast<u32>(metric(emulation, "tls_descriptor_low")), last.low);
  EXPECT_NE(metric(native, "checksum"), metric(run_stream("native", "one-thread", synthetic_tls_stream()), "checksum"));
}

TEST(TlsStream, BadStreamFailsWithOneLineAndNoMetric) {
  std::vector<u8> bad_magic = encode_tls_stream(synthetic_tls_stream(4, 2));
  bad_magic[0] = 'Y';
  TlsStream far;
  far.records = {tls_access(-0x8000, 4, false, 7)};
  TlsStream unswitched;
  unswitched.threads = 2;
  unswitched.records = {tls_access(-4, 4, false, 7, 1)};
  const std::pair<std::vector<u8>, std::string> cases[] = {
      {bad_magic, "FAIL TLS stream module: magic is not X86LTLS1"},
      {encode_tls_stream(far), "FAIL TLS stream module: record 0: offset outside -0x4000 .. 0x4000 - size: 0xFFFF8000"},
      {encode_tls_stream(unswitched), "FAIL TLS stream module: record 0: access by a thread other than the running one"}};
  int n = 0;
  for (const auto& [bytes, line] : cases) {
    const VariantResult r = run_stream("flipping", "bad" + std::to_string(n++), bytes);
    EXPECT_FALSE(r.succeeded);
    EXPECT_NE(r.console.find(line), std::string::npos) << r.console;
    EXPECT_TRUE(r.metrics.empty()) << r.console;
  }
}

}  // namespace
}  // namespace x86lab
