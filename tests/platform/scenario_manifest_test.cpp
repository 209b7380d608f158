// Scenario manifests and the METRIC/SAMPLES console protocol (platform/scenario/,
// docs/compare.md): what a well-formed file gives, and one clear InputError for each
// kind of bad manifest.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "platform/input_error.h"
#include "platform/scenario/console_report.h"
#include "platform/scenario/manifest.h"
#include "platform/scenario/scenario_runner.h"

namespace x86lab {
namespace {

TEST(ConsoleReport, MetricAndSamplesLinesAreParsedAndFreeTextIgnored) {
  const ConsoleReport report = parse_console(
      "booting...\nMETRIC operations 100\r\nMETRIC answer -42\nSAMPLES latency 3 4\n"
      "METRICS are not metrics\nSAMPLES latency 5\nSAMPLES other 9223372036854775807\nMETRIC operations 7");
  EXPECT_TRUE(report.malformed.empty());
  ASSERT_EQ(report.metrics.size(), 2u);
  EXPECT_EQ(report.metrics.at("operations"), 7);  // the last value wins
  EXPECT_EQ(report.metrics.at("answer"), -42);
  EXPECT_EQ(report.samples.at("latency"), (std::vector<i64>{3, 4, 5}));
  EXPECT_EQ(report.samples.at("other"), (std::vector<i64>{INT64_MAX}));
}

TEST(ConsoleReport, LinesBreakingTheProtocolAreReportedWithTheirLineNumber) {
  const ConsoleReport report =
      parse_console("METRIC x 1 2\nMETRIC Bad 1\nSAMPLES s 1 two\nMETRIC big 9223372036854775808\nMETRIC\n");
  ASSERT_EQ(report.malformed.size(), 5u);
  EXPECT_EQ(report.malformed[0], "line 1: METRIC x needs exactly one value");
  EXPECT_EQ(report.malformed[1], "line 2: METRIC name 'Bad' is not [a-z0-9_]+");
  EXPECT_EQ(report.malformed[2], "line 3: SAMPLES s value 'two' is not an integer");
  EXPECT_EQ(report.malformed[3], "line 4: METRIC big value '9223372036854775808' is not an integer");
  EXPECT_EQ(report.malformed[4], "line 5: METRIC without a name");
  EXPECT_TRUE(report.metrics.empty());
  EXPECT_TRUE(report.samples.empty());
}

TEST(ScenarioManifest, SelftestManifestLoadsWithPathsBesideIt) {
  const std::filesystem::path path = X86LAB_ROM_DIR "/scenarios/selftest/variants.json";
  const ScenarioManifest manifest = load_manifest(path);
  EXPECT_EQ(manifest.scenario, "selftest");
  EXPECT_EQ(manifest.baseline, "base");
  EXPECT_FALSE(manifest.in_all);
  ASSERT_EQ(manifest.variants.size(), 6u);
  const VariantSpec* hang = manifest.find("hang");
  ASSERT_NE(hang, nullptr);
  EXPECT_EQ(hang->bios, path.parent_path() / "hang.bin");
  EXPECT_TRUE(hang->kernel.empty());
  EXPECT_EQ(hang->max_instructions, 5000u);
  EXPECT_EQ(hang->memory_mib, 64u);
  EXPECT_EQ(manifest.find("base")->seed.at("operations"), 100.0);
  EXPECT_EQ(manifest.find("nope"), nullptr);
}

class BadManifest : public ::testing::Test {
 protected:
  std::filesystem::path path_ = std::filesystem::temp_directory_path() /
                                ("x86lab_manifest_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json");
  void TearDown() override { std::filesystem::remove(path_); }

  // The InputError message for a manifest with `text`, or "" if it loaded.
  std::string error_for(const std::string& text) {
    std::ofstream(path_) << text;
    try {
      load_manifest(path_);
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  }
  std::string expected(const std::string& problem) { return "manifest '" + path_.string() + "': " + problem; }
};

constexpr const char* kVariant = R"({"name": "a", "bios": "a.bin", "max_instructions": 10})";

std::string manifest_with(const std::string& variants, const std::string& baseline = "a") {
  return R"({"scenario": "s", "baseline": ")" + baseline + R"(", "variants": [)" + variants + "]}";
}

TEST_F(BadManifest, AWellFormedOneLoads) { EXPECT_EQ(error_for(manifest_with(kVariant)), ""); }

TEST_F(BadManifest, NotJsonIsReported) {
  EXPECT_EQ(error_for("{\"scenario\": ").rfind(expected("not valid JSON"), 0), 0u);
}

TEST_F(BadManifest, AMissingFileIsReported) {
  EXPECT_THROW(load_manifest(path_.string() + ".absent"), InputError);
}

TEST_F(BadManifest, EachBrokenRuleHasItsOwnMessage) {
  EXPECT_EQ(error_for(manifest_with(kVariant, "b")), expected("baseline 'b' is not one of its variants"));
  EXPECT_EQ(error_for(manifest_with(std::string(kVariant) + "," + kVariant)), expected("variant 'a' appears twice"));
  EXPECT_EQ(error_for(manifest_with("")), expected("\"variants\" must be a non-empty array"));
  EXPECT_EQ(error_for(manifest_with(R"({"name": "a", "bios": "a.bin", "kernel": "k", "max_instructions": 1})")),
            expected("variant 'a' needs exactly one of \"kernel\", \"bios\" and \"linux\""));
  EXPECT_EQ(error_for(manifest_with(R"({"name": "a", "bios": "a.bin"})")),
            expected("variant 'a' has no \"max_instructions\""));
  EXPECT_EQ(error_for(manifest_with(R"({"name": "A b", "bios": "a.bin", "max_instructions": 1})")),
            expected("variant 0 name 'A b' is not [a-z0-9_-]+"));
  EXPECT_EQ(error_for(manifest_with(R"({"name": "a", "bios": "a.bin", "max_instructions": 1, "memory_mib": 0})")),
            expected("variant 'a' \"memory_mib\" must be a whole number from 1 to 3584"));
  EXPECT_EQ(error_for(manifest_with(R"({"name": "a", "bios": "a.bin", "max_instructions": 1, "seed": {"x": "1"}})")),
            expected("variant 'a' seed \"x\" is not a number"));
  EXPECT_EQ(
      error_for(manifest_with(R"({"name": "a", "bios": "a.bin", "max_instructions": 1, "code_range": "200:100"})")),
      expected("variant 'a' \"code_range\" must be \"BEGIN:END\" in hex with BEGIN < END"));
}

TEST_F(BadManifest, LinuxKernelsNeedKernelAndInitrdAndNothingElse) {
  const auto linux_variant = [](const std::string& linux_object, const std::string& extra = "") {
    return manifest_with(R"({"name": "a", "max_instructions": 1, "linux": )" + linux_object + extra + "}");
  };
  EXPECT_EQ(error_for(linux_variant(R"({"kernel": "k", "initrd": "i", "cmdline": "quiet"})")), "");
  EXPECT_EQ(error_for(linux_variant(R"({"kernel": "k"})")), expected("variant 'a' \"linux\" has no \"initrd\""));
  EXPECT_EQ(error_for(linux_variant(R"({"kernel": "k", "initrd": ""})")),
            expected("variant 'a' \"linux\" needs non-empty \"kernel\" and \"initrd\" paths"));
  EXPECT_EQ(error_for(linux_variant(R"({"kernel": "k", "initrd": "i", "append": "x"})")),
            expected("variant 'a' \"linux\" has an unknown field \"append\""));
  EXPECT_EQ(error_for(linux_variant(R"("vmlinuz")")),
            expected("variant 'a' \"linux\" is not an object {\"kernel\", \"initrd\", \"cmdline\"}"));
  EXPECT_EQ(error_for(linux_variant(R"({"kernel": "k", "initrd": "i"})", R"(, "append": "x")")),
            expected("variant 'a' gives both \"append\" and \"linux\" (its command line is \"cmdline\")"));
  EXPECT_EQ(error_for(linux_variant(R"({"kernel": "k", "initrd": "i"})", R"(, "bios": "b.bin")")),
            expected("variant 'a' needs exactly one of \"kernel\", \"bios\" and \"linux\""));
}

TEST(ScenarioManifest, LinuxPathsAreResolvedBesideTheManifestOrInTheGuestCache) {
  const auto path = std::filesystem::temp_directory_path() / "x86lab_manifest_linux.json";
  std::ofstream(path) << manifest_with(
      R"({"name": "a", "max_instructions": 1, "linux": {"kernel": "${guest_cache}/vmlinuz", "initrd": "rd.gz", "cmdline": "x86lab.workload=ls"}})");
  setenv("X86LAB_GUEST_CACHE", "/cache/guests", 1);
  const ScenarioManifest manifest = load_manifest(path);
  unsetenv("X86LAB_GUEST_CACHE");
  std::filesystem::remove(path);
  EXPECT_EQ(manifest.variants[0].kernel, std::filesystem::path("/cache/guests/vmlinuz"));
  EXPECT_EQ(manifest.variants[0].module, path.parent_path() / "rd.gz");
  EXPECT_EQ(manifest.variants[0].append, "x86lab.workload=ls");
  const MachineConfig config = variant_config(manifest.variants[0], MachineConfig{});
  EXPECT_EQ(config.kernel.initrd_path, (path.parent_path() / "rd.gz").string());
  EXPECT_EQ(config.kernel.command_line, "x86lab.workload=ls");
}

TEST(ScenarioManifest, CodeRangeIsReadAsHex) {
  const auto path = std::filesystem::temp_directory_path() / "x86lab_manifest_code_range.json";
  std::ofstream(path) << manifest_with(R"({"name": "a", "bios": "a.bin", "max_instructions": 1, "code_range": "1000:1FFF"})");
  const ScenarioManifest manifest = load_manifest(path);
  std::filesystem::remove(path);
  EXPECT_EQ(manifest.variants[0].code_range_begin, 0x1000u);
  EXPECT_EQ(manifest.variants[0].code_range_end, 0x1FFFu);
}

}  // namespace
}  // namespace x86lab
