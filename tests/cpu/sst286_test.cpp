// The hardware-captured 80286 real-mode tests (../shared/tests/sst286, README.md there):
// one test case per opcode file, each failing on a failure not listed in
// sst286_known_failures.txt and on a listed test that passes now; plus the overall
// pass rate and the documentation of every known failure.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "cpu/decoder.h"
#include "sst286_runner.h"
#include "tests/shared_dir.h"

namespace x86lab {
namespace {

namespace fs = std::filesystem;

const fs::path kDataDir = testing::shared_dir() / "tests" / "sst286";
const fs::path kKnownFailuresFile = fs::path(X86LAB_SOURCE_DIR) / "tests" / "cpu" / "sst286_known_failures.txt";
const fs::path kDocumentation = fs::path(X86LAB_SOURCE_DIR) / "docs" / "sst286.md";
constexpr const char* kMissing = "missing";

struct KnownFailure {
  std::string file, instruction, reason;
};

std::string trim(std::string_view text) {
  const auto begin = text.find_first_not_of(' '), end = text.find_last_not_of(' ');
  return begin == std::string_view::npos ? std::string{} : std::string(text.substr(begin, end - begin + 1));
}

// sst286_known_failures.txt: "hash | opcode file | instruction | reason" per line;
// blank lines and lines starting with '#' are comments.
std::map<std::string, KnownFailure> read_known_failures() {
  std::map<std::string, KnownFailure> list;
  std::ifstream file(kKnownFailuresFile);
  if (!file) throw std::runtime_error("cannot read " + kKnownFailuresFile.string());
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::string_view rest = line;
    for (std::size_t bar; (bar = rest.find(" | ")) != std::string_view::npos && fields.size() < 3;
         rest = rest.substr(bar + 3))
      fields.push_back(trim(rest.substr(0, bar)));
    fields.push_back(trim(rest));
    if (fields.size() != 4 || fields[0].size() != 40 || fields[3].empty())
      throw std::runtime_error(kKnownFailuresFile.string() + ": malformed line: " + line);
    list[fields[0]] = {fields[1], fields[2], fields[3]};
  }
  return list;
}

// The opcode files present ("00", "80.4", ...), or {kMissing} without the data folder.
std::vector<std::string> opcode_files() {
  std::vector<std::string> stems;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(kDataDir, error)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = ".jsonl.gz";
    if (name.size() > suffix.size() && name.ends_with(suffix)) stems.push_back(name.substr(0, name.size() - suffix.size()));
  }
  std::sort(stems.begin(), stems.end());
  if (stems.empty()) stems.push_back(kMissing);
  return stems;
}

std::vector<std::string> read_gzip_lines(const fs::path& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) throw std::runtime_error("cannot open " + path.string());
  std::string text;
  char buffer[1 << 16];
  for (int n; (n = gzread(file, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  gzclose(file);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

struct FileResult {
  unsigned passed = 0, known = 0, skipped = 0;
  std::array<unsigned, sst286::kLastRule + 1> passed_by_rule{};  // passes owed to x86lab rule n (6-13)
  unsigned passed_by_rules = 0;                                  // passes owed to any of them
  std::vector<std::string> unexpected;  // "hash | file | instruction | what differed"
  std::vector<std::string> stale;       // listed hashes that pass (or are skipped) now
  std::set<std::string> hashes;         // every test of the file
  std::map<std::string, unsigned> skip_reasons;
};

FileResult run_file(const std::string& stem, const std::map<std::string, KnownFailure>& known) {
  FileResult result;
  sst286::Machine machine;
  for (const std::string& line : read_gzip_lines(kDataDir / (stem + ".jsonl.gz"))) {
    const auto test = nlohmann::json::parse(line);
    const std::string hash = test["hash"].get<std::string>();
    result.hashes.insert(hash);
    const sst286::Outcome outcome = sst286::run_test(machine, test);
    const bool listed = known.count(hash) != 0;
    switch (outcome.verdict) {
      case sst286::Verdict::Skipped:
        ++result.skipped;
        ++result.skip_reasons[outcome.detail];
        if (listed) result.stale.push_back(hash + " | " + stem + " | " + test["name"].get<std::string>() + " (skipped)");
        break;
      case sst286::Verdict::Pass:
        ++result.passed;
        for (unsigned rule = sst286::kFirstRule; rule <= sst286::kLastRule; ++rule)
          result.passed_by_rule[rule] += outcome.applied(rule);
        result.passed_by_rules += outcome.rules != 0;
        if (listed) result.stale.push_back(hash + " | " + stem + " | " + test["name"].get<std::string>());
        break;
      case sst286::Verdict::Fail:
        if (listed) ++result.known;
        else result.unexpected.push_back(hash + " | " + stem + " | " + test["name"].get<std::string>() + " | " + outcome.detail);
        break;
    }
  }
  return result;
}

class Opcode : public ::testing::TestWithParam<std::string> {};

TEST_P(Opcode, Passes) {
  if (GetParam() == kMissing) GTEST_SKIP() << "no 80286 test data at " << kDataDir << " (../shared/tests/sst286)";
  const FileResult r = run_file(GetParam(), read_known_failures());
  std::cout << "sst286 " << GetParam() << ": " << r.passed << " pass, " << r.known << " known failures, "
            << r.unexpected.size() << " unexpected failures, " << r.skipped << " skipped\n";
  for (const auto& line : r.unexpected) ADD_FAILURE() << "not a known failure: " << line;
  for (const auto& line : r.stale) ADD_FAILURE() << "listed in sst286_known_failures.txt but does not fail: " << line;
  if (r.skipped == r.hashes.size()) GTEST_SKIP() << r.skip_reasons.begin()->first;
}

INSTANTIATE_TEST_SUITE_P(Sst286, Opcode, ::testing::ValuesIn(opcode_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

// The overall pass rate (the issue asks for at least 99.9%), raw (the README's five rules)
// and with x86lab's rules 6-13 (docs/sst286.md): printed, while the per-file cases keep
// the known-failure list exact.
TEST(Sst286, PrintsTheOverallPassRateAndListsOnlyTestsOfTheData) {
  if (opcode_files().front() == kMissing) GTEST_SKIP() << "no 80286 test data at " << kDataDir;
  const auto known = read_known_failures();
  unsigned passed = 0, failed = 0, unexpected = 0, skipped = 0, total = 0, by_rules = 0;
  std::array<unsigned, sst286::kLastRule + 1> by_rule{};
  std::set<std::string> seen;
  std::map<std::string, unsigned> skip_reasons;
  for (const std::string& stem : opcode_files()) {
    const FileResult r = run_file(stem, known);
    passed += r.passed;
    for (unsigned rule = sst286::kFirstRule; rule <= sst286::kLastRule; ++rule) by_rule[rule] += r.passed_by_rule[rule];
    by_rules += r.passed_by_rules;
    failed += r.known + static_cast<unsigned>(r.unexpected.size());
    unexpected += static_cast<unsigned>(r.unexpected.size());
    skipped += r.skipped;
    total += static_cast<unsigned>(r.hashes.size());
    seen.insert(r.hashes.begin(), r.hashes.end());
    for (const auto& [reason, count] : r.skip_reasons) skip_reasons[reason] += count;
  }
  const unsigned compared = passed + failed, raw = passed - by_rules;
  auto percent = [&](unsigned n) { return compared ? 100.0 * n / compared : 0.0; };
  // Raw: the README's five rules only. A test passed by one of rules 6-13 fails without
  // it: its expected vector, frame, SI/DI/CX, SP or flags differ from the 286's.
  std::ostringstream decided;
  for (unsigned rule = sst286::kFirstRule; rule <= sst286::kLastRule; ++rule)
    decided << (rule == sst286::kFirstRule ? "" : ", ") << "rule " << rule << ": " << by_rule[rule];
  std::cout << "sst286: raw (README rules 1-5): " << raw << " of " << compared << " pass (" << percent(raw)
            << "%); with x86lab rules 6-13: " << passed << " pass (" << percent(passed) << "%; decided by "
            << decided.str() << "); " << failed << " fail, " << unexpected
            << " of them not in sst286_known_failures.txt (" << known.size() << " listed); " << skipped << " of "
            << total << " tests skipped as the README allows:\n";
  for (const auto& [reason, count] : skip_reasons) std::cout << "  " << count << "  " << reason << '\n';
  EXPECT_EQ(unexpected, 0u) << "failures missing from sst286_known_failures.txt (the Sst286/Opcode cases name them)";
  for (const auto& [hash, entry] : known)
    EXPECT_TRUE(seen.count(hash)) << "sst286_known_failures.txt lists a test that is not in the data: " << hash;
}

// docs/sst286.md has one table row per known failure: | hash | file | instruction | reason |.
TEST(Sst286, DocumentationListsEveryKnownFailure) {
  std::ifstream file(kDocumentation);
  ASSERT_TRUE(file) << kDocumentation << " is missing";
  std::stringstream text;
  text << file.rdbuf();
  const auto known = read_known_failures();
  for (const auto& [hash, entry] : known) {
    const std::string row = "| " + hash + " | " + entry.file + " | " + entry.instruction + " | " + entry.reason + " |";
    EXPECT_NE(text.str().find(row), std::string::npos) << "docs/sst286.md lacks the row " << row
                                                       << " (scripts/sst286-known-failures.py regenerates it)";
  }
  std::size_t rows = 0;
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);)
    if (line.size() > 44 && line.starts_with("| ") && line.find_first_not_of("0123456789abcdef", 2) == 42) ++rows;
  EXPECT_EQ(rows, known.size()) << "docs/sst286.md lists failures that sst286_known_failures.txt does not";
}

// x86lab rules 6 and 7, the condition: the first access past offset FFFFh, from the
// decoded bytes and the initial registers, and its segment (SS: #SS on the P6, Intel SDM
// Vol. 3, "Interrupt 12—Stack Fault Exception (#SS)"; else #GP).
TEST(Sst286, FirstLimitViolationFollowsTheDecodedAccess) {
  auto violation = [](std::vector<u8> bytes, nlohmann::json regs) {
    Instruction insn;
    EXPECT_TRUE(decode_bytes(bytes.data(), static_cast<unsigned>(bytes.size()), false, insn));
    return sst286::first_limit_violation(insn, regs);
  };
  auto is = [](std::optional<sst286::LimitViolation> v, SegmentIndex segment, bool string) {
    return v && v->segment == segment && v->string_element == string;
  };
  EXPECT_TRUE(is(violation({0x07}, {{"sp", 0xFFFF}}), SS, false));                         // pop es
  EXPECT_FALSE(violation({0x07}, {{"sp", 0xFFFE}}));                                        // pop es, a whole word
  EXPECT_TRUE(is(violation({0xCB}, {{"sp", 0xFFFD}}), SS, false));                         // retf: CS at FFFFh
  EXPECT_TRUE(is(violation({0xC9}, {{"bp", 0xFFFF}, {"sp", 0x100}}), SS, false));          // leave
  EXPECT_TRUE(is(violation({0x31, 0x1B}, {{"bp", 0}, {"di", 0xFFFF}}), SS, false));        // xor [bp+di],bx
  EXPECT_TRUE(is(violation({0x26, 0x31, 0x1B}, {{"di", 0xFFFF}}), ES, false));             // es xor [bp+di],bx
  EXPECT_TRUE(is(violation({0x31, 0x1F}, {{"bx", 0xFFFF}}), DS, false));                   // xor [bx],bx
  EXPECT_FALSE(violation({0x30, 0x1B}, {{"di", 0xFFFF}}));                                  // xor [bp+di],bl: a byte
  EXPECT_TRUE(is(violation({0xAD}, {{"si", 0xFFFF}}), DS, true));                          // lodsw
  EXPECT_TRUE(is(violation({0x36, 0xA5}, {{"si", 0xFFFF}, {"di", 0xFFFF}}), SS, true));    // ss movsw: source first
  EXPECT_TRUE(is(violation({0x36, 0xA5}, {{"si", 0}, {"di", 0xFFFF}}), ES, true));         // ss movsw: destination
  EXPECT_TRUE(is(violation({0xF3, 0xAB}, {{"cx", 1}, {"di", 0xFFFF}}), ES, true));         // rep stosw
  EXPECT_FALSE(violation({0xF3, 0xAB}, {{"cx", 0}, {"di", 0xFFFF}}));                       // rep stosw, CX = 0
  EXPECT_FALSE(violation({0xAA}, {{"di", 0xFFFF}}));                                        // stosb
}

// README difference 3, the P6 side (Intel SDM Vol. 2, "LOCK—Assert LOCK# Signal Prefix").
TEST(Sst286, LockIsKeptOnlyOnReadModifyWriteFormsWithAMemoryDestination) {
  using sst286::lock_raises_ud_on_p6;
  EXPECT_FALSE(lock_raises_ud_on_p6(std::vector<u8>{0xF0, 0x00, 0x07, 0xF4}));        // lock add [bx],al
  EXPECT_TRUE(lock_raises_ud_on_p6(std::vector<u8>{0xF0, 0x00, 0xC0, 0xF4}));         // lock add al,al
  EXPECT_TRUE(lock_raises_ud_on_p6(std::vector<u8>{0xF0, 0x02, 0x07, 0xF4}));         // lock add al,[bx]
  EXPECT_TRUE(lock_raises_ud_on_p6(std::vector<u8>{0xF0, 0x80, 0x3F, 0x01, 0xF4}));   // lock cmp byte [bx],1
  EXPECT_FALSE(lock_raises_ud_on_p6(std::vector<u8>{0x26, 0xF0, 0x87, 0x07, 0xF4}));  // es lock xchg [bx],ax
  EXPECT_FALSE(lock_raises_ud_on_p6(std::vector<u8>{0xF0, 0xF7, 0x1F, 0xF4}));        // lock neg word [bx]
  EXPECT_TRUE(lock_raises_ud_on_p6(std::vector<u8>{0xF0, 0xF7, 0x27, 0xF4}));         // lock mul word [bx]
  EXPECT_TRUE(lock_raises_ud_on_p6(std::vector<u8>{0xF0, 0xD6, 0xF4}));               // lock salc
  EXPECT_FALSE(lock_raises_ud_on_p6(std::vector<u8>{0x01, 0x07, 0xF4}));              // add [bx],ax
}

}  // namespace
}  // namespace x86lab
