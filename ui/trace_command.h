// `x86lab trace dump|stats|diff` and the tracing, statistics and profile options of
// `x86lab run` (docs/tracing.md).
#pragma once
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "platform/machine.h"

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
// Builds and attaches the tracer of --trace/--trace-filter/--trace-start/--trace-stop.
// Throws InputError for a bad value or an output that cannot be created.
void attach_trace_options(const boost::program_options::variables_map& vm, Machine& machine);
// Writes --stats-json (counters as JSON) if asked. Throws InputError if it cannot.
void write_stats_json(const boost::program_options::variables_map& vm, const Machine& machine);

}  // namespace x86lab
