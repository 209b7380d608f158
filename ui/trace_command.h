// `x86lab trace dump|stats|diff` and the tracing, statistics and profile options of
// `x86lab run` (docs/tracing.md).
#pragma once
#include <boost/program_options.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "platform/machine.h"
#include "trace/output_file.h"

namespace x86lab {

// Runs `x86lab trace ...` with the arguments after "trace"; returns the exit status.
int trace_command(const std::vector<std::string>& args);

// Adds --trace, --trace-filter, --trace-start, --trace-stop, --stats-json and
// --code-range to `options`.
void add_trace_options(boost::program_options::options_description& options);

// Adds --profile NAME (default p3) to `options`: a built-in CPU and cost profile or a
// cost-model file (docs/cost-model.md).
void add_profile_option(boost::program_options::options_description& options);
// Applies --profile to `config` (CPU profile and cost model). Throws InputError.
void apply_profile_option(const boost::program_options::variables_map& vm, MachineConfig& config);
// Adds --cache-model on|off (default `default_value`): the profile's L1 cache model
// (MachineConfig::cache_model; docs/cost-model.md "Cache model").
void add_cache_model_option(boost::program_options::options_description& options, const char* default_value);
// Applies --cache-model to `config`. Throws InputError for a value other than on or off.
void apply_cache_model_option(const boost::program_options::variables_map& vm, MachineConfig& config);
// Builds and attaches the tracer of --trace/--trace-filter/--trace-start/--trace-stop
// (its files are emptied by Machine::start_tracing). Throws InputError for a bad value
// or an output that cannot be opened.
void attach_trace_options(const boost::program_options::variables_map& vm, Machine& machine);
// Rejects (InputError) two output options naming one file (--trace, --stats-json,
// --debugcon file:, --serial file:; their writes would interleave into a corrupt file)
// and an output naming an input file (--bios, --kernel, --initrd, --serial-input,
// --profile, --script, --symbols): the same file by device and inode, so through hard
// and symbolic links and /dev/fd/N too. Devices, FIFOs and /dev/null may be shared.
void check_distinct_files(const boost::program_options::variables_map& vm);
// The file of --stats-json, opened (not yet emptied) so that an unwritable path fails
// before the run; null without the option. Throws OutputError.
std::unique_ptr<OutputFile> open_stats_json(const boost::program_options::variables_map& vm);
// Writes the counters as JSON to `output` (from open_stats_json; nothing when null)
// and closes it. Throws OutputError if it cannot be written.
void write_stats_json(OutputFile* output, const Machine& machine);
// One line on `out` listing the retired instructions `profile` has no cost for (they
// charged nothing; docs/cost-model.md "No default"); nothing when there are none.
void report_uncosted(std::ostream& out, const Cpu& cpu, const std::string& profile);
// Runs `finish` (closing an output); an OutputError is printed as one line
// ("x86lab: cannot write ...") and makes `failed` true, so that every output is closed
// and each failure named before the run ends with status 2.
void finish_output(const std::function<void()>& finish, bool& failed);

}  // namespace x86lab
