// The GUI's session: the machine, the debugger that drives it (platform/debugger), the
// Trace window's ring, COM1 and port E9h captured for their windows, symbols, and the
// state at the last stop for change highlighting. Applies the windows' commands
// between frames. No SDL here: the session is tested headless.
#pragma once
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "platform/debugger/debugger.h"
#include "platform/machine.h"
#include "platform/scenario/comparison.h"
#include "platform/scenario/scenario_runner.h"
#include "platform/snapshot/snapshot_file.h"
#include "ui/gui/apic_model.h"
#include "ui/gui/command_queue.h"
#include "ui/gui/elf_symbols.h"
#include "platform/replay/input_journal.h"
#include "ui/gui/gui_serial_host.h"
#include "ui/gui/scenario_catalog.h"
#include "ui/gui/timeline.h"
#include "ui/gui/trace_ring.h"

namespace x86lab::gui {

// Paused: windows read the machine. Running: the guest runs (F5) in bounded slices
// between frames; windows read the machine between slices. Busy: the same for a step
// over, step out or run-to, which may take any number of slices (a call that never
// returns keeps it Busy until Pause); nothing ever blocks a frame. Ended: the machine's
// run is over (exit port, halt, shutdown...).
enum class RunState : u8 { Paused, Running, Busy, Ended };

struct SessionOptions {
  MachineConfig config;              // the machine (rebuilt with a variant's image by LaunchVariant)
  std::filesystem::path symbols;     // ELF file for the Disassembly window, or empty
  // --load-snapshot: the machine starts as saved in this file (config.bios must be the
  // snapshot's), and Restart goes back to it; or empty.
  std::filesystem::path snapshot;
  std::filesystem::path scenarios = default_scenario_dir();
  // The scenario variant the machine comes from (its code range is counted), if any.
  std::optional<VariantSpec> variant;
  SerialHost* serial_forward = nullptr;  // gets a copy of COM1 output (the --serial stream), or null
  std::size_t trace_capacity = 4096;     // events kept for the Trace window
  // Upper bound of the steps run per frame while Running (any operation). The steps per
  // frame adapt to the frame's time budget, but after a stretch of cheap steps (HLT
  // waiting for a timer) a busy guest may take much longer per step: this bounds such a
  // frame (8M steps: a fraction of a second at the GUI's usual rates).
  u64 max_slice_steps = u64{1} << 23;
  std::string title = "x86lab";          // what runs ("tls/flip", a ROM's file name)
  // Called on each new machine before the session attaches its trace ring (the
  // command line's --trace options); may be empty.
  std::function<void(Machine&)> prepare;
  bool fixed_machine = false;  // LaunchVariant is refused: something else holds this machine (x86lab gui --gdb)
  // The bound of the snapshot history for Step back, Run back and the Timeline
  // (--history-mib, in MiB; 0: no history, going back is refused).
  u64 history_mib = SnapshotHistory::kDefaultBudgetMib;
  u64 history_interval_steps = SnapshotHistory::kDefaultIntervalSteps;  // between periodic snapshots (tests: smaller)
};

// The results of a Compare run (RunCompare), or why there are none. Not copied: the
// table points into `variants` and the session's catalog.
struct CompareResults {
  std::string scenario;
  std::vector<VariantResult> variants;   // every variant of the scenario, in manifest order
  std::optional<ScenarioComparison> table;  // the rows of `x86lab compare` (platform/scenario/comparison.h)
  std::string error;
  bool running = false;
};

class Session {
 public:
  explicit Session(SessionOptions options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Machine& machine() { return *machine_; }
  const Machine& machine() const { return *machine_; }
  Debugger& debugger() { return *debugger_; }
  const Debugger& debugger() const { return *debugger_; }
  // Keeps `*slot` naming the current debugger for a signal handler (Debugger::pause() is
  // async-signal-safe): set now, null while build() (Restart, a snapshot Load) replaces
  // the debugger, the new one after. publish_debugger(nullptr) stops it (and the caller
  // clears its slot). Issue 39: a handler that kept the first debugger's address crashed.
  void publish_debugger(std::atomic<Debugger*>* slot) {
    debugger_slot_ = slot;
    if (slot) slot->store(debugger_.get());
  }
  const TraceRing& trace() const { return *trace_; }
  // The tracer that feeds the Trace ring while the debugger records (Debugger::set_recorder),
  // or null when a --trace tracer attached to the machine feeds it at every step.
  const Tracer* recorder() const { return recorder_.get(); }
  const GuiSerialHost& serial() const { return serial_; }
  // Port E9h output so far.
  std::string_view debug_console() const;
  const ElfSymbols& symbols() const { return symbols_; }
  const ScenarioCatalog& catalog() const { return catalog_; }
  const CompareResults& compare() const { return compare_; }
  const std::string& title() const { return options_.title; }
  // The CPU state when the machine last stopped (before the last step or run).
  const CpuState& previous() const { return previous_; }
  // Both APICs when the machine last stopped (the APIC window's highlights).
  const ApicSnapshot& previous_apic() const { return previous_apic_; }
  RunState run_state() const;
  // One line: "paused", "running", "running (step over; Pause stops it)",
  // "breakpoint 1 (linear) at 0008:00100010", "ended: exit port (status 33)".
  std::string status() const;

  // Applies one command (see CommandKind); Run, step over/out and run-to begin a sliced
  // operation that tick() carries on (one running operation replaces another; Pause
  // ends it); WriteMemory is ignored unless Paused or Ended. A command that fails
  // (a scenario variant that cannot be loaded) leaves its one-line reason in message().
  void apply(const Command& command);
  const std::string& message() const { return message_; }
  // Call once per frame: collects a finished Compare run, and while Running carries the
  // operation on for up to `budget_seconds` of wall time (the steps per slice adapt;
  // where the operation stops and the modeled results never depend on it). Returns the
  // steps executed.
  u64 tick(double budget_seconds);

  // Blocking forms for scripts and tests (the same debugger calls, run to their stop).
  // step_into(N) is one operation (Debugger::step_into: a breakpoint after its first
  // step stops it); its steps run at the speed of `x86lab run` unless something
  // observes every step (Debugger::set_recorder).
  StopInfo step_into(u64 count);
  StopInfo step_over();
  StopInfo step_out();
  StopInfo run_to(u32 linear);
  StopInfo run(u64 max_steps = UINT64_MAX);
  // Going back in time (docs/gui.md "Going back"; Debugger reverse execution on the
  // session's snapshot history): `count` single steps back (stops at the start of the
  // history, StopKind::HistoryBegin), back to the latest earlier stop of a breakpoint
  // (Debugger::reverse_continue), and to any step of the run, forward or back (false,
  // changing nothing, before the history). Refused (InputError) without a history.
  StopInfo step_back(u64 count);
  StopInfo run_back();
  bool go_to_step(u64 step);
  // The snapshot file (docs/snapshots.md): the machine now, written to `path`
  // (OutputError); or the machine replaced by the one in `path` (InputError naming the
  // file: unreadable, corrupt, or of another machine identity; the machine is then
  // unchanged). Loading keeps the breakpoints and starts a new history and timeline.
  SavedSnapshot save_snapshot(const std::string& path);
  void load_snapshot(const std::string& path);
  // The snapshot history (null with history_mib 0) and the Timeline's marks.
  const SnapshotHistory* snapshot_history() const { return snapshots_.get(); }
  const Timeline& timeline() const { return *timeline_; }

  // Toggles a code breakpoint at `linear`; true when one now exists there.
  bool toggle_breakpoint(u32 linear);
  // The id of the enabled code breakpoint at `linear`, or 0.
  u32 breakpoint_at(u32 linear) const;

 private:
  void build(const MachineConfig& config);
  void restart();
  void begin_execution();
  void execute(const Command& command, RunState state);
  void launch_variant(const std::string& scenario, const std::string& variant);
  void start_compare(const std::string& scenario);
  void begin_operation(const Command& command);
  void require_history() const;
  void after_jump();  // the Trace ring and highlights after the machine moved in time

  SessionOptions options_;
  MachineConfig config_;  // the current machine's configuration (Restart builds it again)
  GuiSerialHost serial_;
  // Port E9h output: an open_memstream stream that the Serial console window shows.
  // Closed by its own destructor, so also when the constructor throws (a bad
  // --symbols file); declared before machine_, which writes to it, so it outlives it.
  struct MemoryStream {
    std::FILE* file = nullptr;
    char* buffer = nullptr;
    std::size_t size = 0;
    MemoryStream() = default;
    MemoryStream(const MemoryStream&) = delete;
    MemoryStream& operator=(const MemoryStream&) = delete;
    ~MemoryStream() { close(); }
    void open() {
      close();
      file = open_memstream(&buffer, &size);
    }
    void close() {
      if (file) std::fclose(file);
      std::free(buffer);
      file = nullptr;
      buffer = nullptr;
      size = 0;
    }
  };
  MemoryStream debug_console_;
  // The tracer of the Trace ring when no --trace tracer holds it: attached only while
  // the debugger records (Debugger::set_recorder); outlives the machine and debugger.
  std::unique_ptr<Tracer> recorder_;
  // The Timeline's marks, fed by a sink on the tracer that feeds the Trace ring; outlives it.
  std::unique_ptr<Timeline> timeline_ = std::make_unique<Timeline>();
  // Snapshots of the run for going back; outlives the debugger that captures into it.
  std::unique_ptr<SnapshotHistory> snapshots_;
  // COM1's host with --record/--replay (config_.inputs): serial_ through the journal.
  std::unique_ptr<JournalSerialHost> journal_host_;
  std::unique_ptr<Machine> machine_;
  std::unique_ptr<Debugger> debugger_;
  std::atomic<Debugger*>* debugger_slot_ = nullptr;  // publish_debugger()
  TraceRing* trace_ = nullptr;  // owned by the machine's tracer
  ElfSymbols symbols_;
  ScenarioCatalog catalog_;
  CpuState previous_;
  ApicSnapshot previous_apic_;
  CommandKind running_kind_ = CommandKind::Run;  // what the debugger's operation is, for status()
  u64 slice_steps_ = 20000;     // steps per tick while Running, adapted to the budget
  CompareResults compare_;
  std::string message_;
  std::future<std::vector<VariantResult>> compare_job_;
};

}  // namespace x86lab::gui
