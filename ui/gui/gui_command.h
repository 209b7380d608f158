// `x86lab gui [run options] [--scenario NAME[/VARIANT]] [--run] [--script FILE]`: the
// inspector on a machine, paused at reset unless --run (docs/gui.md).
#pragma once
#include <string>
#include <vector>

namespace x86lab::gui {

// Runs the `gui` subcommand with `args` (after the word "gui"); returns the exit status.
// Throws InputError for bad options, a missing scenario or a bad script.
int gui_command(const std::vector<std::string>& args);

}  // namespace x86lab::gui
