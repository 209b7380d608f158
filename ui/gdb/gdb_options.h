// The options of the gdb stub (--gdb, --wait-gdb; docs/gdb.md), shared by `x86lab run`
// and `x86lab gui`.
#pragma once
#include <boost/program_options.hpp>
#include <memory>

#include "platform/machine.h"
#include "ui/gdb/gdb_server.h"

namespace x86lab {

void add_gdb_options(boost::program_options::options_description& options);
// The stub for --gdb/--wait-gdb (null without either), listening on `debugger`'s
// machine; prints "x86lab: gdb stub listening on HOST:PORT" on stderr. `notify`:
// ServerOptions::notify. Throws InputError for a bad --gdb address or one that cannot
// be bound.
std::unique_ptr<gdb::GdbServer> start_gdb_server(const boost::program_options::variables_map& vm, Debugger& debugger,
                                                 std::function<void()> notify = {});
// Runs the machine: under the gdb stub when --gdb or --wait-gdb was given, else
// Machine::run(). `before_run` is called once nothing can fail any more (the stub is
// listening), just before the machine runs: the caller empties its output files there.
// Without the stub, a run that returns Reason::Paused goes on as long as `on_pause`
// returns true (the serial console's monitor served the pause). Throws as start_gdb_server.
RunResult run_machine(const boost::program_options::variables_map& vm, Machine& machine,
                      const std::function<void()>& before_run, const std::function<bool()>& on_pause = {});

}  // namespace x86lab
