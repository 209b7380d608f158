// The `x86lab` command line: subcommands `run` and `help`, and `--version`.
// Bad input prints one line "x86lab: ..." on stderr and returns exit status 2.
#pragma once
#include <string>
#include <vector>

namespace x86lab {

inline constexpr const char* kVersion = "0.1.0";

// Runs the command line `args` (without the program name); returns the exit status.
int run_cli(const std::vector<std::string>& args);

}  // namespace x86lab
