// `x86lab compare SCENARIO...|all`: runs the variants of the design-comparison
// scenarios (issue 9) in parallel, prints a table per scenario and writes the report
// files and plots (docs/compare.md).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace x86lab {

// Runs `x86lab compare ...` with the arguments after "compare". Exit status: 0 when
// every variant succeeded, 1 when some variant failed (the report still names it), 2 for
// bad input (an unknown scenario or variant, a bad manifest or option, an --out that
// cannot be written); the bad input throws InputError for run_cli to print.
int compare_command(const std::vector<std::string>& args);

}  // namespace x86lab
