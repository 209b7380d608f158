// Running scenario variants in-process with the debug console captured
// (docs/compare.md, "How a variant runs").
#include "platform/scenario/scenario_runner.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <thread>

#include "platform/input_error.h"
#include "platform/rom_image.h"

namespace x86lab {
namespace {

// A growing in-memory FILE (POSIX open_memstream) that receives port E9h output.
class CapturedConsole {
 public:
  CapturedConsole() : file_(open_memstream(&buffer_, &size_)) {
    if (!file_) throw std::runtime_error("open_memstream failed");
  }
  ~CapturedConsole() {
    if (file_) std::fclose(file_);
    std::free(buffer_);
  }
  CapturedConsole(const CapturedConsole&) = delete;
  CapturedConsole& operator=(const CapturedConsole&) = delete;

  std::FILE* file() const { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(buffer_, size_);
  }

 private:
  char* buffer_ = nullptr;
  std::size_t size_ = 0;
  std::FILE* file_;
};

// Why a run that ended this way is not a success, or "" when it is one.
std::string end_failure(const RunResult& run, const Machine& machine) {
  if (run.reason == RunResult::Reason::ExitPort && run.exit_status == 33) return {};
  if (run.reason == RunResult::Reason::Halted && run.exit_status == 0) return {};
  std::ostringstream out;
  out << describe_run_end(run.reason);
  if (run.reason == RunResult::Reason::ExitPort) out << " with exit status " << run.exit_status << " (success is 33)";
  out << " at " << std::hex << machine.cpu.state.segments[CS].selector << ":" << machine.cpu.state.eip << std::dec
      << " after " << machine.counters.instructions << " instructions";
  return out.str();
}

}  // namespace

void apply_builtin_profile(const std::string& name, MachineConfig& config) {
  const CpuProfile* profile = find_profile(name);
  if (!profile) throw InputError("unknown profile '" + name + "' (p3, k7, p4, modern, i386-locking)");
  config.profile = profile;
  config.cost_model = builtin_cost_model(name == "i386-locking" ? "p3" : name);
}

MachineConfig variant_config(const VariantSpec& variant, const MachineConfig& base) {
  MachineConfig config = base;
  config.memory_mib = variant.memory_mib;
  config.max_instructions = variant.max_instructions;
  config.exit_on_halt = true;
  config.bios.clear();
  config.kernel = {};
  if (!variant.bios.empty()) config.bios = read_rom_image(variant.bios.string());
  if (!variant.kernel.empty()) config.kernel = {variant.kernel.string(), variant.module.string(), variant.append};
  return config;
}

MachineConfig isolated_variant_config(const VariantSpec& variant, const MachineConfig& base) {
  MachineConfig model;
  model.profile = base.profile;
  model.cost_model = base.cost_model;
  model.cache_model = base.cache_model;
  model.cpu_hz = base.cpu_hz;
  model.rtc_start = base.rtc_start;
  return variant_config(variant, model);
}

void apply_code_range(const VariantSpec& variant, Machine& machine) {
  machine.counters.code_range_begin = variant.code_range_begin;
  machine.counters.code_range_end = variant.code_range_end;
}

VariantResult run_variant(const ScenarioManifest& manifest, const VariantSpec& variant, const MachineConfig& base) {
  MachineConfig config = isolated_variant_config(variant, base);
  CapturedConsole console;
  config.debug_console = console.file();

  VariantResult result;
  result.scenario = manifest.scenario;
  result.name = variant.name;
  auto machine = std::make_unique<Machine>(config);
  apply_code_range(variant, *machine);
  machine->cpu.enable_cost_windows();
  machine->cpu.watch_replays();  // (the comparison's replayed_instructions)
  result.run = machine->run();
  result.counters = machine->counters;
  result.cycles = machine->cpu.clock().cycles();
  result.ledger = machine->cpu.cost_ledger();
  result.windows = machine->cpu.cost_windows();
  result.console = console.text();
  ConsoleReport report = parse_console(result.console);
  result.metrics = std::move(report.metrics);
  result.samples = std::move(report.samples);
  result.failure = end_failure(result.run, *machine);
  if (result.failure.empty() && !report.malformed.empty())
    result.failure = "malformed console output, " + report.malformed.front();
  result.succeeded = result.failure.empty();
  return result;
}

VariantResult run_variant(const ScenarioManifest& manifest, const VariantSpec& variant, const std::string& profile) {
  MachineConfig base;
  apply_builtin_profile(profile, base);
  return run_variant(manifest, variant, base);
}

std::vector<VariantResult> run_variants(const std::vector<VariantJob>& jobs, const MachineConfig& base,
                                        unsigned threads) {
  std::vector<VariantResult> results(jobs.size());
  std::vector<std::exception_ptr> errors(jobs.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      try {
        results[i] = run_variant(*jobs[i].manifest, *jobs[i].variant, base);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t count = std::max<std::size_t>(1, std::min<std::size_t>(threads, jobs.size()));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < count; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  return results;
}

}  // namespace x86lab
