// Benchmark-sized host differential run: the test HostDifferential.IntegerInstructionsMatchTheHostCpu
// at millions of cases (tests/cpu/host_differential.h). Usage:
//   host_differential [CASES [SEED [SHOWN]]]   (default 10,000,000 cases, 10 mismatches shown;
//                                               X86LAB_DIFF_CASES also sets the count)
// Prints the cases per mnemonic, the first mismatches and the totals; exit status 0 when
// none differ, 1 on a mismatch or a host that cannot run the stub, 2 on bad input.
#include "host_differential.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace {

unsigned long long parse_count(const char* text, const char* what) {
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 0);
  if (!*text || *end != '\0') throw std::invalid_argument(std::string(what) + ": not a number: " + text);
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace x86lab::testing;
  unsigned long long cases = 0, seed = 0x861ABD1FFull, shown = 10;
  try {
    cases = differential_case_count(10'000'000);
    if (argc > 1) cases = parse_count(argv[1], "CASES");
    if (argc > 2) seed = parse_count(argv[2], "SEED");
    if (argc > 3) shown = parse_count(argv[3], "SHOWN");
    if (argc > 4 || cases == 0) throw std::invalid_argument("usage: host_differential [CASES [SEED [SHOWN]]]");
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "x86lab: %s\n", error.what());
    return 2;
  }
  DifferentialReport report;
  try {
    report = run_host_differential(cases, seed, static_cast<unsigned>(shown));
  } catch (const std::runtime_error& error) {  // no x86-64 Linux host, or its pages refused
    std::fprintf(stderr, "x86lab: host_differential: %s\n", error.what());
    return 1;
  }
  for (const auto& [mnemonic, count] : report.by_mnemonic)
    std::printf("  %-10.*s %llu\n", static_cast<int>(mnemonic.size()), mnemonic.data(),
                static_cast<unsigned long long>(count));
  std::printf("%s", report.details.c_str());
  std::printf("host differential: seed %#llx, %llu cases, %llu mismatches, %llu #DE agreed\n", seed,
              static_cast<unsigned long long>(report.cases), static_cast<unsigned long long>(report.mismatches),
              static_cast<unsigned long long>(report.divide_errors));
  return report.mismatches == 0 ? 0 : 1;
}
