// The host differential run: random integer instructions executed by the host CPU and
// by x86lab from the same state, compared on every register, the data buffer and the
// flags the SDM defines (cpu/undefined_flags.h masks the others). Used by
// host_differential_test.cpp (CI size) and bench/host_differential (millions).
#pragma once
#include <map>
#include <string>
#include <string_view>

#include "host_cases.h"

namespace x86lab::testing {

struct DifferentialReport {
  u64 cases = 0;
  u64 mismatches = 0;
  u64 divide_errors = 0;                        // cases where both CPUs raised #DE
  std::map<std::string_view, u64> by_mnemonic;  // cases per mnemonic
  std::string details;                          // the first mismatches, described
};

// Runs `cases` cases drawn with `seed` (the same seed gives the same cases) and
// describes at most `max_details` mismatches.
DifferentialReport run_host_differential(u64 cases, u64 seed, unsigned max_details = 5);

// Runs one case on both CPUs; returns "" when they agree, else a description. Stores
// how the host's execution ended in `ending` when given.
std::string compare_on_host(HostCpu& host, SimulatedCpu& simulated, const InstructionCase& c, Ending* ending = nullptr);

// The case count from the environment variable X86LAB_DIFF_CASES, or `fallback` when
// it is unset. Throws std::invalid_argument when it is not a positive number.
u64 differential_case_count(u64 fallback);

}  // namespace x86lab::testing
