// `x86lab compare SCENARIO...|all`: runs the variants of the design-comparison
// scenarios (issue 9) in parallel, prints a table per scenario and writes the report
// files and plots (docs/compare.md).
#pragma once
#include <boost/program_options.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace x86lab {

// Runs `x86lab compare ...` with the arguments after "compare". Exit status: 0 when
// every variant succeeded, 1 when some variant failed (the report still names it), 2 for
// bad input (an unknown scenario or variant, a bad manifest or option, an --out that
// cannot be written); the bad input throws InputError for run_cli to print.
int compare_command(const std::vector<std::string>& args);

struct ScenarioManifest;
struct VariantSpec;
// The variants of each manifest that --variants A,B,... selects, in manifest order, the
// baseline always included (all when --variants is not given). Throws InputError for a
// name no manifest has.
std::vector<std::vector<const VariantSpec*>> select_variants(const std::vector<ScenarioManifest>& manifests,
                                                             const boost::program_options::variables_map& vm);
// --jobs N, 1-256 (default: the number of cores). Throws InputError.
unsigned parse_jobs(const boost::program_options::variables_map& vm);
// Creates the folder `dir` and checks that files can be made in it. Throws InputError.
void prepare_out_dir(const std::filesystem::path& dir);

}  // namespace x86lab
