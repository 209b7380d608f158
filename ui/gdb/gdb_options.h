// The options of the gdb stub (--gdb, --wait-gdb; docs/gdb.md), shared by `x86lab run`
// and `x86lab gui`.
#pragma once
#include <boost/program_options.hpp>
#include <memory>

#include "platform/machine.h"
#include "ui/gdb/gdb_server.h"

namespace x86lab {

void add_gdb_options(boost::program_options::options_description& options);
// --history-mib in MiB (SnapshotHistory::kDefaultBudgetMib without it); throws
// InputError with one line for 0, a negative number, one over 2^20 or anything not a
// decimal number.
u64 history_budget_mib(const boost::program_options::variables_map& vm);
// The stub for --gdb/--wait-gdb (null without either), listening on `debugger`'s
// machine; prints "x86lab: gdb stub listening on HOST:PORT" on stderr. `notify`:
// ServerOptions::notify. Throws InputError for a bad --gdb address or one that cannot
// be bound.
std::unique_ptr<gdb::GdbServer> start_gdb_server(const boost::program_options::variables_map& vm, Debugger& debugger,
                                                 std::function<void()> notify = {});
// What `x86lab run` does between parts of a run without the gdb stub.
struct RunHooks {
  // A pause the machine was asked for (Machine::request_pause): true when it was served
  // (the serial console's monitor) and the run goes on.
  std::function<bool()> on_pause;
  // With slice_steps > 0 the machine runs in slices of that many steps (the same steps,
  // counters and trace as one run) and `between_slices` is called after each.
  u64 slice_steps = 0;
  std::function<void()> between_slices;
};
// Runs the machine: under the gdb stub when --gdb or --wait-gdb was given, else
// Machine::run() (in slices, with `hooks`). `before_run` is called once nothing can
// fail any more (the stub is listening), just before the machine runs: the caller
// empties its output files there. Throws as start_gdb_server.
RunResult run_machine(const boost::program_options::variables_map& vm, Machine& machine,
                      const std::function<void()>& before_run, const RunHooks& hooks = {});

}  // namespace x86lab
