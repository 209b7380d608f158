// `x86lab run|gui --gdb [HOST:]PORT --wait-gdb` (gdb_options.h).
#include "ui/gdb/gdb_options.h"

#include <cstdint>
#include <iostream>

#include "platform/input_error.h"
#include "platform/snapshot/history.h"

namespace po = boost::program_options;

namespace x86lab {

void add_gdb_options(po::options_description& options) {
  options.add_options()
      ("gdb", po::value<std::string>()->value_name("[HOST:]PORT"),
       "serve the gdb remote protocol on PORT (0: any free port), on 127.0.0.1 unless HOST is given")
      ("wait-gdb", "start paused until gdb connects and continues (with --gdb, else on 127.0.0.1:1234)")
      ("history-mib", po::value<std::string>()->value_name("MIB"),
       "memory for the snapshots of reverse execution under gdb and in the inspector (default 768; docs/gdb.md)");
}

u64 history_budget_mib(const po::variables_map& vm) {
  if (!vm.count("history-mib")) return SnapshotHistory::kDefaultBudgetMib;
  const std::string text = vm["history-mib"].as<std::string>();
  // 1 MiB up to 1 TiB, in decimal digits only.
  constexpr u64 kMost = u64{1} << 20;
  u64 value = 0;
  bool ok = !text.empty() && text.size() <= 7;
  for (char c : text) {
    if (c < '0' || c > '9') ok = false;
    else value = value * 10 + static_cast<u64>(c - '0');
  }
  if (!ok || value == 0 || value > kMost)
    throw InputError("--history-mib must be a whole number of MiB from 1 to " + std::to_string(kMost) + ", not '" +
                     text + "'");
  return value;
}

std::unique_ptr<gdb::GdbServer> start_gdb_server(const po::variables_map& vm, Debugger& debugger,
                                                 std::function<void()> notify) {
  history_budget_mib(vm);  // refused even when unused
  if (!vm.count("gdb") && !vm.count("wait-gdb")) return nullptr;
  gdb::ServerOptions options = vm.count("gdb") ? gdb::parse_gdb_address(vm["gdb"].as<std::string>()) : gdb::ServerOptions{};
  options.wait_for_gdb = vm.count("wait-gdb") > 0;
  options.notify = std::move(notify);
  auto server = std::make_unique<gdb::GdbServer>(debugger, options);
  std::cerr << "x86lab: gdb stub listening on " << options.host << ":" << server->port() << std::endl;
  return server;
}

RunResult run_machine(const po::variables_map& vm, Machine& machine, const std::function<void()>& before_run,
                      const RunHooks& hooks) {
  if (!vm.count("gdb") && !vm.count("wait-gdb")) {
    history_budget_mib(vm);  // refused even when unused
    before_run();
    // run_for counts --max-instructions from the machine's start, as run() does.
    const u64 slice = hooks.slice_steps ? hooks.slice_steps : UINT64_MAX;
    RunResult result = hooks.slice_steps ? machine.run_for(slice) : machine.run();
    while (result.reason == RunResult::Reason::Paused) {
      if (hooks.on_pause && hooks.on_pause()) {
      } else if (hooks.slice_steps && hooks.between_slices) {
        hooks.between_slices();
      } else {
        break;
      }
      result = machine.run_for(slice);
    }
    return result;
  }
  Debugger debugger(machine);
  SnapshotHistory history(history_budget_mib(vm) << 20);
  debugger.set_snapshot_history(&history);
  const auto server = start_gdb_server(vm, debugger);
  before_run();
  const RunResult result = server->serve();
  if (server->killed()) std::cerr << "x86lab: killed by gdb" << std::endl;
  return result;
}

}  // namespace x86lab
