// The `x86lab` command line: subcommands `run` and `help`, and `--version`.
// Bad input prints one line "x86lab: ..." on stderr and returns exit status 2.
#pragma once
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "platform/machine.h"

namespace x86lab {

inline constexpr const char* kVersion = "0.1.0";

// Runs the command line `args` (without the program name); returns the exit status.
int run_cli(const std::vector<std::string>& args);

// `x86lab run ARGS` (without "run"): returns the exit status; throws InputError,
// OutputError or boost::program_options::error for bad input (run_cli reports them).
int run_command(const std::vector<std::string>& args);

// Parses `args` of `x86lab <command>` against `options` (stored and notified). Throws
// InputError for an argument that is not an option: `command` takes none.
boost::program_options::variables_map parse_command_options(const std::vector<std::string>& args,
                                                            const boost::program_options::options_description& options,
                                                            const std::string& command);

// The machine options of `x86lab run` (image, memory, profile, platform and trace
// options), shared by `x86lab gui`.
boost::program_options::options_description machine_options();
// Fills memory, instruction limit, POST, halt and triple-fault behaviour and the
// profile of `config` from those options. Throws InputError for a bad value.
void configure_machine(const boost::program_options::variables_map& vm, MachineConfig& config);

}  // namespace x86lab
