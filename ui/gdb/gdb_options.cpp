// `x86lab run|gui --gdb [HOST:]PORT --wait-gdb` (gdb_options.h).
#include "ui/gdb/gdb_options.h"

#include <cstdint>
#include <iostream>

namespace po = boost::program_options;

namespace x86lab {

void add_gdb_options(po::options_description& options) {
  options.add_options()
      ("gdb", po::value<std::string>()->value_name("[HOST:]PORT"),
       "serve the gdb remote protocol on PORT (0: any free port), on 127.0.0.1 unless HOST is given")
      ("wait-gdb", "start paused until gdb connects and continues (with --gdb, else on 127.0.0.1:1234)");
}

std::unique_ptr<gdb::GdbServer> start_gdb_server(const po::variables_map& vm, Debugger& debugger,
                                                 std::function<void()> notify) {
  if (!vm.count("gdb") && !vm.count("wait-gdb")) return nullptr;
  gdb::ServerOptions options = vm.count("gdb") ? gdb::parse_gdb_address(vm["gdb"].as<std::string>()) : gdb::ServerOptions{};
  options.wait_for_gdb = vm.count("wait-gdb") > 0;
  options.notify = std::move(notify);
  auto server = std::make_unique<gdb::GdbServer>(debugger, options);
  std::cerr << "x86lab: gdb stub listening on " << options.host << ":" << server->port() << std::endl;
  return server;
}

RunResult run_machine(const po::variables_map& vm, Machine& machine, const std::function<void()>& before_run,
                      const std::function<bool()>& on_pause) {
  if (!vm.count("gdb") && !vm.count("wait-gdb")) {
    before_run();
    RunResult result = machine.run();
    // run_for counts --max-instructions from the machine's start, as run() did.
    while (result.reason == RunResult::Reason::Paused && on_pause && on_pause())
      result = machine.run_for(UINT64_MAX);
    return result;
  }
  Debugger debugger(machine);
  const auto server = start_gdb_server(vm, debugger);
  before_run();
  const RunResult result = server->serve();
  if (server->killed()) std::cerr << "x86lab: killed by gdb" << std::endl;
  return result;
}

}  // namespace x86lab
