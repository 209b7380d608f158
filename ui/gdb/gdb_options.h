// The `x86lab run` options of the gdb stub (--gdb, --wait-gdb; docs/gdb.md).
#pragma once
#include <boost/program_options.hpp>

#include "platform/machine.h"

namespace x86lab {

void add_gdb_options(boost::program_options::options_description& options);
// Runs the machine: under the gdb stub when --gdb or --wait-gdb was given (printing
// "x86lab: gdb stub listening on HOST:PORT" on stderr), else Machine::run(). Throws
// InputError for a bad --gdb address or one that cannot be bound.
RunResult run_machine(const boost::program_options::variables_map& vm, Machine& machine);

}  // namespace x86lab
