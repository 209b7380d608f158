// The GUI session: machine, debugger, captured consoles and command handling.
#include "ui/gui/session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "platform/debugger/breakpoint_spec.h"
#include "platform/input_error.h"

namespace x86lab::gui {

Session::Session(SessionOptions options) : options_(std::move(options)), serial_(options_.serial_forward) {
  catalog_ = ScenarioCatalog::scan(options_.scenarios);
  build(options_.config);
  if (!options_.snapshot.empty()) {
    const MachineState state = read_snapshot_file(options_.snapshot.string());
    try {
      restore_machine_state(*machine_, state);
    } catch (const InputError& error) {
      throw InputError("snapshot '" + options_.snapshot.string() + "': " + error.what());
    }
    timeline_->furthest = machine_->cpu.steps();
    previous_ = machine_->cpu.state;
  }
  if (!options_.symbols.empty()) symbols_ = ElfSymbols::load(options_.symbols);
}

Session::~Session() {
  if (compare_job_.valid()) compare_job_.wait();
  debugger_.reset();
  machine_.reset();
}

void Session::build(const MachineConfig& config) {
  if (debugger_slot_) debugger_slot_->store(nullptr);  // before the debugger it names goes
  debugger_.reset();
  snapshots_.reset();
  if (machine_) machine_->finish_tracing();  // closes the --trace files of the machine replaced
  machine_.reset();
  debug_console_.open();  // a new, empty stream for the new machine
  config_ = config;
  MachineConfig machine_config = config;
  machine_config.debug_console = debug_console_.file;
  machine_config.com1_host = &serial_;
  journal_host_.reset();
  if (InputJournal* inputs = config.inputs) {
    inputs->start_over();  // the log describes this machine from its start
    journal_host_ = std::make_unique<JournalSerialHost>(serial_, *inputs);
    machine_config.com1_host = journal_host_.get();
  }
  machine_ = std::make_unique<Machine>(machine_config);
  if (options_.variant) apply_code_range(*options_.variant, *machine_);
  if (options_.prepare) options_.prepare(*machine_);
  auto ring = std::make_unique<TraceRing>(options_.trace_capacity, &machine_->cpu.state);
  trace_ = ring.get();
  debugger_ = std::make_unique<Debugger>(*machine_);
  if (debugger_slot_) debugger_slot_->store(debugger_.get());
  if (options_.history_mib) {
    snapshots_ = std::make_unique<SnapshotHistory>(options_.history_mib << 20, options_.history_interval_steps);
    debugger_->set_snapshot_history(snapshots_.get());
  }
  timeline_->clear();
  auto marks = std::make_unique<TimelineSink>(*timeline_, machine_->cpu);
  recorder_.reset();
  if (Tracer* files = machine_->cpu.tracer()) {
    files->add_sink(std::move(ring));  // --trace: every step is traced for the files, and the ring sees them all
    files->add_sink(std::move(marks));
  } else {
    // The ring records the last trace_capacity steps of each slice (at least one event
    // each); the steps before them run on the fast path (Debugger::set_recorder).
    recorder_ = std::make_unique<Tracer>(TraceFilter{}, TraceTriggers{});
    recorder_->add_sink(std::move(ring));
    recorder_->add_sink(std::move(marks));
    debugger_->set_recorder(recorder_.get(), options_.trace_capacity, [this] { trace_->clear(); });
  }
  previous_ = machine_->cpu.state;
  previous_apic_ = capture_apic(*machine_);
  // Symbols of a Multiboot ELF kernel come with it; a file that is not ELF has none.
  symbols_ = {};
  if (!config.kernel.kernel_path.empty()) {
    try {
      symbols_ = ElfSymbols::load(config.kernel.kernel_path);
    } catch (const InputError&) {
    }
  }
}

std::string_view Session::debug_console() const {
  if (!debug_console_.file) return {};
  std::fflush(debug_console_.file);
  return {debug_console_.buffer, debug_console_.size};
}

RunState Session::run_state() const {
  if (debugger_->ended()) return RunState::Ended;
  if (!debugger_->operation_running()) return RunState::Paused;
  return running_kind_ == CommandKind::Run ? RunState::Running : RunState::Busy;
}

std::string Session::status() const {
  switch (run_state()) {
    case RunState::Running: return "running";
    case RunState::Busy:
      return std::string("running (") +
             (running_kind_ == CommandKind::StepOver ? "step over" : running_kind_ == CommandKind::StepOut ? "step out" : "run to") +
             "; Pause stops it)";
    case RunState::Ended: {
      const StopInfo& stop = debugger_->last_stop();
      if (!stop.end) return "ended";
      return std::string("ended: ") + describe_run_end(stop.end->reason) + " (exit status " +
             std::to_string(stop.end->exit_status) + ")";
    }
    case RunState::Paused: break;
  }
  return debugger_->last_stop().describe();
}

void Session::begin_execution() {
  previous_ = machine_->cpu.state;
  previous_apic_ = capture_apic(*machine_);
  timeline_->furthest = std::max(timeline_->furthest, machine_->cpu.steps());
  debugger_->cancel_operation();
}

u32 Session::breakpoint_at(u32 linear) const {
  for (const Breakpoint& b : debugger_->breakpoints().all())
    if (b.kind == BreakpointKind::Linear && b.address == linear) return b.id;
  return 0;
}

bool Session::toggle_breakpoint(u32 linear) {
  if (const u32 id = breakpoint_at(linear)) {
    debugger_->breakpoints().remove(id);
    return false;
  }
  debugger_->breakpoints().add(Breakpoint::at_linear(linear));
  return true;
}

StopInfo Session::step_into(u64 count) {
  begin_execution();
  return debugger_->step_into(count);
}

StopInfo Session::step_over() {
  begin_execution();
  return debugger_->step_over();
}

StopInfo Session::step_out() {
  begin_execution();
  return debugger_->step_out();
}

StopInfo Session::run_to(u32 linear) {
  begin_execution();
  return debugger_->run_to(linear);
}

StopInfo Session::run(u64 max_steps) {
  begin_execution();
  return debugger_->run(max_steps);
}

void Session::begin_operation(const Command& command) {
  begin_execution();
  running_kind_ = command.kind;
  slice_steps_ = std::min<u64>(slice_steps_, options_.max_slice_steps);
  switch (command.kind) {
    case CommandKind::StepOver: debugger_->begin_step_over(); break;
    case CommandKind::StepOut: debugger_->begin_step_out(); break;
    case CommandKind::RunTo: debugger_->begin_run_to(command.address); break;
    default: debugger_->begin_run(); break;
  }
}

void Session::apply(const Command& command) {
  message_.clear();
  try {
    execute(command, run_state());
  } catch (const std::exception& error) {
    message_ = error.what();
  }
}

void Session::execute(const Command& command, RunState state) {
  const bool moving = state == RunState::Running || state == RunState::Busy;
  switch (command.kind) {
    case CommandKind::Run:
      if (state == RunState::Paused) begin_operation(command);
      break;
    case CommandKind::Pause: debugger_->cancel_operation(); break;
    case CommandKind::StepInto:
      if (state != RunState::Ended) step_into(1);
      break;
    case CommandKind::StepOver:
    case CommandKind::StepOut:
    case CommandKind::RunTo:
      if (state != RunState::Ended) begin_operation(command);
      break;
    case CommandKind::Restart: restart(); break;
    case CommandKind::ToggleBreakpoint: toggle_breakpoint(command.address); break;
    case CommandKind::AddBreakpoint:
      try {
        debugger_->breakpoints().add(parse_breakpoint(command.text));
      } catch (const std::invalid_argument& problem) {
        throw InputError("breakpoint '" + command.text + "': " + problem.what());
      }
      break;
    case CommandKind::RemoveBreakpoint: debugger_->breakpoints().remove(command.address); break;
    case CommandKind::EnableBreakpoint: debugger_->breakpoints().set_enabled(command.address, command.physical); break;
    case CommandKind::WriteMemory:
      if (moving) break;
      if (command.physical) debugger_->write_physical(command.address, command.bytes);
      else debugger_->write_linear(command.address, command.bytes);
      break;
    // Input from the user changes the run from here on: the snapshots recorded after
    // this step (a future left by going back) no longer lie on it.
    // With --record the input is logged at this step (a future recorded after it is
    // dropped); with --replay the input comes from the log alone and typing is refused.
    case CommandKind::SerialInput:
      if (InputJournal* inputs = config_.inputs) {
        if (inputs->replaying()) throw InputError("the run is replayed from its log: text typed now is not given to it");
        inputs->drop_future();
      }
      serial_.type(command.text);
      debugger_->state_changed();
      break;
    case CommandKind::GuestKey:
      if (command.bytes.size() == 3) {
        if (InputJournal* inputs = config_.inputs) inputs->record_key(command.bytes[0], command.bytes[1], command.bytes[2]);
        machine_->devices->keyboard_controller.key(command.bytes[0], command.bytes[1], command.bytes[2]);
      }
      debugger_->state_changed();
      break;
    case CommandKind::LaunchVariant: launch_variant(command.text, command.text2); break;
    case CommandKind::RunCompare: start_compare(command.text); break;
    case CommandKind::StepBack:
      if (!moving) step_back(1);
      break;
    case CommandKind::RunBack:
      if (!moving) run_back();
      break;
    case CommandKind::GoToStep:
      if (!moving && !go_to_step(command.steps))
        message_ = "step " + std::to_string(command.steps) + " lies before the history";
      break;
    case CommandKind::SaveSnapshot: {
      const SavedSnapshot saved = save_snapshot(command.text);
      message_ = "snapshot '" + saved.path + "' saved at step " + std::to_string(saved.steps);
      break;
    }
    case CommandKind::LoadSnapshot:
      if (!moving) load_snapshot(command.text);
      break;
  }
}

u64 Session::tick(double budget_seconds) {
  using Clock = std::chrono::steady_clock;
  if (compare_job_.valid() && compare_job_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    try {
      compare_.variants = compare_job_.get();
      if (const ScenarioManifest* manifest = catalog_.find(compare_.scenario)) {
        std::vector<const VariantSpec*> specs;
        std::vector<const VariantResult*> results;
        for (std::size_t i = 0; i < compare_.variants.size(); ++i) {
          specs.push_back(&manifest->variants[i]);
          results.push_back(&compare_.variants[i]);
        }
        compare_.table = build_comparison(*manifest, specs, results);
      }
    } catch (const std::exception& error) {
      compare_.error = error.what();
    }
    compare_.running = false;
  }
  if (!debugger_->operation_running()) return 0;
  const u64 before = machine_->cpu.steps();
  const auto start = Clock::now();
  debugger_->continue_for(slice_steps_);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // Wall time decides only how much runs per frame, never what the guest computes.
  if (seconds < budget_seconds / 2) slice_steps_ = std::min<u64>(slice_steps_ * 2, options_.max_slice_steps);
  else if (seconds > budget_seconds) slice_steps_ = std::max<u64>(1000, static_cast<u64>(slice_steps_ * budget_seconds / seconds));
  timeline_->furthest = std::max(timeline_->furthest, machine_->cpu.steps());
  return machine_->cpu.steps() - before;
}

// A new machine from the same configuration: the ROM, kernel and initrd or scenario
// image loaded again, devices and counters as at start, the consoles emptied; the
// breakpoints stay (with their hit counts cleared). With gdb attached (fixed_machine) the
// stub holds this machine, so Restart is a CPU reset (SDM "Processor State After Reset").
void Session::restart() {
  begin_execution();
  if (options_.fixed_machine) {
    debugger_->reset();
    message_ = "gdb is served on this machine (--gdb): Reset is a CPU reset; RAM and devices stay";
    return;
  }
  if (!options_.snapshot.empty()) {  // --load-snapshot: back to the machine saved there
    load_snapshot(options_.snapshot.string());
    return;
  }
  Breakpoints breakpoints = debugger_->breakpoints();
  breakpoints.clear_hits();
  serial_.clear();
  const CpuState before = previous_;  // the highlights show what the restart changed
  const ApicSnapshot apic_before = previous_apic_;
  build(MachineConfig(config_));
  debugger_->breakpoints() = std::move(breakpoints);
  previous_ = before;
  previous_apic_ = apic_before;
}

void Session::launch_variant(const std::string& scenario, const std::string& variant) {
  if (options_.fixed_machine) throw InputError("gdb is served on this machine (--gdb): no other variant can be launched");
  const ScenarioManifest* manifest = catalog_.find(scenario);
  const VariantSpec* spec = manifest ? manifest->find(variant) : nullptr;
  if (!spec) throw InputError("no scenario variant '" + scenario + "/" + variant + "' in '" + catalog_.folder.string() + "'");
  const MachineConfig config = variant_config(*spec, options_.config);  // reads the image first: may throw
  options_.variant = *spec;
  build(config);
  options_.title = scenario + "/" + variant;
}

void Session::start_compare(const std::string& scenario) {
  if (compare_.running) return;
  const ScenarioManifest* manifest = catalog_.find(scenario);
  compare_ = {};
  compare_.scenario = scenario;
  if (!manifest) {
    compare_.error = "no scenario '" + scenario + "' in '" + catalog_.folder.string() + "'";
    return;
  }
  compare_.running = true;
  const MachineConfig base = options_.config;
  compare_job_ = std::async(std::launch::async, [manifest, base] {
    std::vector<VariantJob> jobs;
    for (const VariantSpec& variant : manifest->variants) jobs.push_back({manifest, &variant});
    return run_variants(jobs, base, 1);
  });
}

}  // namespace x86lab::gui
