// Command-line parsing with Boost.Program_options and the `run` subcommand.
#include "ui/cli.h"
#include "ui/help_text.h"

#include <unistd.h>

#include <boost/program_options.hpp>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>

#include "platform/input_error.h"
#include "platform/machine.h"
#include "platform/scenario/tls_recorder.h"
#include "platform/rom_image.h"
#include "platform/snapshot/snapshot_file.h"
#include "trace/output_file.h"
#include "ui/compare_command.h"
#include "ui/gui/gui_command.h"
#include "ui/gdb/gdb_options.h"
#include "ui/platform_options.h"
#include "ui/progress_line.h"
#include "ui/signal_guard.h"
#include "ui/recording.h"
#include "ui/trace_command.h"

namespace po = boost::program_options;

namespace x86lab {
namespace {

constexpr const char* kUsage =
    "usage: x86lab <command> [options]\n"
    "\n"
    "commands:\n"
    "  run        run a machine (x86lab run --help for its options)\n"
    "  trace      binary traces: dump FILE | stats FILE | diff A B | convert IN OUT | window --recording DIR\n"
    "  compare    run the design-comparison scenarios: compare tls|ctxsw|irq|all (docs/compare.md)\n"
    "  gui        the inspector: a machine in windows, paused at reset (x86lab gui --help, docs/gui.md)\n"
    "  help       show this text\n"
    "\n"
    "  --version  print the version\n";

po::options_description run_options() {
  po::options_description options("x86lab run options");
  options.add_options()
      ("help,h", "show the run options")
      ("bios", po::value<std::string>()->value_name("FILE"),
       "ROM image (a multiple of 64 KiB, at most 16 MiB) ending at physical FFFFFFFFh; a PC BIOS (SeaBIOS, "
       "the Bochs BIOS) also appears at E0000h-FFFFFh behind the i440FX's shadow RAM (default with a boot device: "
       "/usr/share/seabios/bios-256k.bin)")
      ("memory", po::value<std::string>()->default_value("64")->value_name("MiB"), "RAM size in MiB (1 to 3584)")
      ("debugcon", po::value<std::string>()->default_value("stdio")->value_name("stdio|file:PATH|none"),
       "where port E9h (and SeaBIOS's port 402h) output goes")
      ("post", "print each write to port 80h as 'POST xx' on stderr")
      ("max-instructions", po::value<std::string>()->value_name("N"),
       "stop after N steps (instructions, fault and interrupt deliveries, REP batches of at most 1024 "
       "iterations); exit status 1")
      ("exit-on-halt", "end at HLT with interrupts disabled (status 0) even if a device could raise NMI; no device raises NMI yet, so such a HLT always ends the run and this changes nothing today")
      ("reset-on-triple-fault", "a triple fault resets the CPU (as a PC chipset does) instead of ending the run")
      ("save-snapshot", po::value<std::string>()->value_name("FILE"),
       "write the whole machine to FILE where the run stops (with --max-instructions N: after step N; docs/snapshots.md)")
      ("load-snapshot", po::value<std::string>()->value_name("FILE"),
       "continue the machine saved in FILE (instead of --bios/--kernel; --memory, --profile and --cpu-mhz must be "
       "those it was saved with; --max-instructions counts from reset, the steps before the snapshot included)");
  add_profile_option(options);
  add_cache_model_option(options, "off");
  options.add_options()("stats", "print the counters on stderr at exit");
  options.add_options()
      ("record-tls", po::value<std::string>()->value_name("FILE"),
       "write the TLS access stream (every data access through GS at CPL 3, with the thread switches) to FILE "
       "(docs/compare.md, \"TLS streams\")")
      ("record-tls-window", po::value<std::string>()->value_name("BEGIN..END"),
       "record only between the COM1 output BEGIN and the next END (e.g. X86LAB-WORKLOAD-BEGIN..X86LAB-WORKLOAD-END), "
       "or for the instructions FROM..TO (default: the whole run)");
  add_trace_options(options);
  add_platform_options(options);
  add_gdb_options(options);
  return options;
}

// The debug console's stream: stdout, none, or a file (an OutputFile).
struct ConsoleFile {
  std::FILE* file = nullptr;
  std::unique_ptr<OutputFile> output;  // for file:PATH
};

void open_console(const std::string& spec, ConsoleFile& console) {
  if (spec == "stdio") {
    console.file = stdout;
  } else if (spec == "none") {
    console.file = nullptr;
  } else if (spec.rfind("file:", 0) == 0 && spec.size() > 5) {
    console.output = std::make_unique<OutputFile>(spec.substr(5), "debug console file");
    console.file = console.output->stream();
  } else {
    throw InputError("--debugcon must be stdio, file:PATH or none, not '" + spec + "'");
  }
}

// SIGINT and SIGTERM during `run`: the machine stops at the next instruction boundary
// and the run ends as usual, closing its output files whole; a second signal acts as
// if none were caught (SA_RESETHAND).
std::atomic<Machine*> g_interruptible{nullptr};

void on_interrupt(int signal) {
  if (Machine* machine = g_interruptible.load()) machine->interrupt_from_signal(signal);
}

class InterruptHandlers {
 public:
  // The machine is known before the handler is installed.
  explicit InterruptHandlers(Machine& machine) : guard_((g_interruptible = &machine, on_interrupt)) {}
  ~InterruptHandlers() { g_interruptible = nullptr; }
  InterruptHandlers(const InterruptHandlers&) = delete;
  InterruptHandlers& operator=(const InterruptHandlers&) = delete;

 private:
  SignalGuard guard_;
};

void announce_snapshot(const SavedSnapshot& saved) {
  std::cerr << "x86lab: snapshot '" << saved.path << "' saved after " << saved.steps << " steps (" << saved.file_bytes
            << " bytes)\n";
}

// Ends --record-tls: writes the stream and says on stderr what it holds.
void finish_tls_recording(TlsRecorder& recorder, const std::string& path) {
  recorder.finish();
  if (recorder.counts().opened) write_tls_stream(recorder.stream(), path);
  const TlsStream& stream = recorder.stream();
  if (!recorder.counts().opened) {
    std::cerr << "x86lab: --record-tls: the window never opened (its begin marker never appeared on COM1); '" << path
              << "' not written\n";
    return;
  }
  std::cerr << "x86lab: TLS stream '" << path << "': " << recorder.accesses() << " accesses (" << recorder.negative_accesses()
            << " at negative offsets), " << stream.threads << " threads, " << recorder.switches() << " switches; window "
            << recorder.counts().instructions << " instructions, " << recorder.counts().cycles << " cycles"
            << (recorder.counts().closed ? "" : " (open at the end of the run)") << "\n";
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  po::options_description options = run_options();
  options.add_options()
      ("progress", "show the progress line on stderr while the guest prints nothing (default: when stderr is a terminal)")
      ("no-progress", "never show the progress line");
  add_recording_options(options);
  po::variables_map vm = parse_command_options(args, options, "run");
  if (vm.count("help")) {
    std::cout << format_options(options);
    return 0;
  }
  MachineConfig config;
  configure_machine(vm, config);
  std::optional<MachineState> loaded;  // --load-snapshot
  if (vm.count("load-snapshot")) {
    for (const char* option : {"bios", "kernel", "initrd", "append"})
      if (vm.count(option))
        throw InputError(std::string("--load-snapshot takes the machine from its file: --") + option + " cannot be given");
    loaded = read_snapshot_file(vm["load-snapshot"].as<std::string>());
  } else if (!vm.count("bios") && !vm.count("kernel") && !uses_bios_boot(vm)) {
    throw InputError("run needs --bios FILE, --kernel FILE, a boot device or --load-snapshot FILE (x86lab run --help lists the options)");
  }
  const bool under_gdb = vm.count("gdb") || vm.count("wait-gdb");
  if (vm.count("progress") && vm.count("no-progress")) throw InputError("--progress and --no-progress exclude each other");
  if (vm.count("progress") && under_gdb)
    throw InputError("--progress does not go with --gdb or --wait-gdb (gdb decides when the machine runs)");
  const bool show_progress = !under_gdb && (vm.count("progress") || (!vm.count("no-progress") && isatty(STDERR_FILENO)));
  std::unique_ptr<Recording> recording;  // --recording: snapshots and the input log (ui/recording.h)
  if (vm.count("recording-interval") && !vm.count("recording")) throw InputError("--recording-interval needs --recording");
  if (vm.count("recording")) {
    if (vm.count("record") || vm.count("replay"))
      throw InputError("--recording keeps its own input log: --record and --replay cannot be given with it");
    if (under_gdb) throw InputError("--recording does not go with --gdb or --wait-gdb");
    // A window's run would have to find each image as the snapshot expects it, and the
    // recorded run has written it since: not done yet (docs/tracing.md).
    for (const char* option : kBootDeviceOptions)
      if (vm.count(option)) throw InputError(std::string("--recording does not go with disk images yet (--") + option + ")");
    const u64 interval = vm.count("recording-interval")
                             ? parse_whole("recording-interval", vm["recording-interval"].as<std::string>(), 1, ~u64{0})
                             : Recording::kDefaultInterval;
    recording = std::make_unique<Recording>(vm["recording"].as<std::string>(), interval, Recording::machine_options_of(vm));
    // The input log goes where --record would write it.
    vm.insert({"record", po::variable_value(boost::any(recording->inputs_path()), false)});
  }
  ProgressLine* progress_line = nullptr;  // the progress line, once it exists
  config.before_console_output = [&progress_line](u8 byte) {
    if (progress_line) progress_line->guest_output(byte);
  };
  // The outputs are opened first (an unwritable path fails before any work) but
  // emptied only once every input has been read (trace/output_file.h).
  check_distinct_files(vm);
  const std::unique_ptr<OutputFile> stats_json = open_stats_json(vm);
  ConsoleFile console;
  open_console(vm["debugcon"].as<std::string>(), console);
  config.debug_console = console.file;
  PlatformSession platform;
  platform.configure(vm, config);
  std::unique_ptr<TlsRecorder> tls_recorder;  // --record-tls: COM1 goes through it (its window's markers)
  if (vm.count("record-tls-window") && !vm.count("record-tls")) throw InputError("--record-tls-window needs --record-tls");
  if (vm.count("record-tls")) {
    const TlsWindow window = vm.count("record-tls-window") ? parse_tls_window(vm["record-tls-window"].as<std::string>())
                                                           : TlsWindow{};
    tls_recorder = std::make_unique<TlsRecorder>(window, config.com1_host);
    config.com1_host = tls_recorder.get();
  }
  if (!loaded) configure_bios(vm, config);
  if (loaded) config.bios = loaded->bios;

  auto machine = std::make_unique<Machine>(config);
  // Its counters (--stats, --stats-json, and a snapshot's, which a later run may print)
  // count replays too (replayed-instructions; cpu/replay_watch.h).
  machine->cpu.watch_replays();
  if (loaded) {
    try {
      restore_machine_state(*machine, *loaded);
    } catch (const InputError& error) {
      throw InputError("snapshot '" + vm["load-snapshot"].as<std::string>() + "': " + error.what());
    }
    loaded.reset();
  }
  platform.connect(*machine);
  attach_trace_options(vm, *machine);
  if (tls_recorder) tls_recorder->attach(*machine);
  std::optional<InterruptHandlers> interrupt_handlers;  // while the machine runs
  RunHooks hooks;
  hooks.on_pause = [&] { return platform.serve_console_monitor(); };
  std::optional<ProgressLine> progress;
  if (show_progress) {
    progress.emplace(*machine, stderr);
    progress_line = &*progress;
    platform.serial().on_output([&](u8 byte) { progress->guest_output(byte); });
  }
  // The run goes in slices (the same run) for the progress line and, on a raw
  // terminal, so that the Ctrl-A keys act even while the guest never reads COM1.
  if (show_progress || platform.serial().raw() || platform.display()) {
    // (--display sdl: slices short enough for a few frames a second at any speed.)
    hooks.slice_steps = platform.display() ? 2'000'000 : ProgressLine::kSliceSteps;
    hooks.between_slices = [&] {
      platform.serial().service_keys();
      if (progress) progress->update();
      // --display sdl: closing the window stops the run.
      if (platform.display() && !platform.display()->update(machine->devices->vga)) machine->request_stop();
    };
  }
  if (recording) {
    recording->start(*machine);
    // Slices of at most the interval (a step retires at most one instruction).
    hooks.slice_steps = std::min<u64>(hooks.slice_steps ? hooks.slice_steps : ProgressLine::kSliceSteps,
                                      recording->interval());
    hooks.between_slices = [&, previous = hooks.between_slices] {
      if (previous) previous();
      recording->between_slices(*machine);
    };
  }
  const RunResult result = run_machine(vm, *machine, [&] {
    interrupt_handlers.emplace(*machine);
    if (console.output) console.output->start();
    platform.start();
    machine->start_tracing();
  }, hooks);
  if (progress) {
    platform.serial().on_output({});
    progress_line = nullptr;
    progress.reset();  // erases the line
  }
  bool output_failed = false;
  if (vm.count("save-snapshot"))
    finish_output([&] { announce_snapshot(save_machine_snapshot(*machine, vm["save-snapshot"].as<std::string>())); }, output_failed);
  finish_output([&] { machine->finish_tracing(); }, output_failed);
  if (console.output) finish_output([&] { console.output->finish(); }, output_failed);
  else if (console.file) std::fflush(console.file);
  finish_output([&] { platform.finish(*machine); }, output_failed);
  if (recording) finish_output([&] { recording->finish(*machine); }, output_failed);
  if (recording && !output_failed) std::cerr << "x86lab: " << recording->summary() << "\n";
  if (tls_recorder) finish_output([&] { finish_tls_recording(*tls_recorder, vm["record-tls"].as<std::string>()); }, output_failed);
  if (result.reason != RunResult::Reason::ExitPort && result.reason != RunResult::Reason::Halted)
    std::cerr << "x86lab: " << describe_run_end(result.reason) << " at " << std::hex << machine->cpu.state.segments[CS].selector
              << ":" << machine->cpu.state.eip << std::dec << " after " << machine->counters.instructions
              << " instructions\n";
  if (result.reason == RunResult::Reason::ExitPort) {
    // The shell sees the status modulo 256: V = 0, 1, 80h and 81h give 1 and 3, which
    // x86lab also uses (instruction limit, internal error): say where it came from.
    const int shell_status = result.exit_status & 0xFF;
    if (shell_status == 1 || shell_status == 3)
      std::cerr << "x86lab: the guest wrote " << std::hex << std::uppercase << std::setw(2) << std::setfill('0')
                << ((result.exit_status >> 1) & 0xFF) << "h to the exit port F4h: exit status " << std::dec
                << shell_status << "\n";
  }
  if (result.reason == RunResult::Reason::Shutdown) {
    // The faults that ended in the triple fault, first to last (Cpu::fault_chain).
    std::cerr << "x86lab: fault chain:";
    for (const auto& fault : machine->cpu.fault_chain()) {
      std::cerr << " vector " << unsigned{fault.vector};
      if (fault.error_code) std::cerr << "(" << std::hex << *fault.error_code << std::dec << "h)";
      if (!fault.cause.empty()) std::cerr << " [" << fault.cause << "]";
      if (&fault != &machine->cpu.fault_chain().back()) std::cerr << " ->";
    }
    std::cerr << "\n";
  }
  report_uncosted(std::cerr, machine->cpu, machine->config().cost_model.name);
  if (vm.count("stats")) machine->counters.print(std::cerr, machine->cpu.clock().cycles());
  finish_output([&] { write_stats_json(stats_json.get(), *machine); }, output_failed);
  return output_failed ? 2 : result.exit_status;
}

po::variables_map parse_command_options(const std::vector<std::string>& args, const po::options_description& options,
                                        const std::string& command) {
  const po::parsed_options parsed = po::command_line_parser(args).options(options).run();
  for (const po::option& option : parsed.options)
    if (option.position_key >= 0)  // not an option: store() would drop it silently
      throw InputError(command + " takes only options, not '" + option.value.front() + "' (x86lab " + command +
                       " --help lists them)");
  po::variables_map vm;
  po::store(parsed, vm);
  po::notify(vm);
  return vm;
}

po::options_description machine_options() { return run_options(); }

void configure_machine(const po::variables_map& vm, MachineConfig& config) {
  config.memory_mib = static_cast<u32>(parse_whole("memory", vm["memory"].as<std::string>(), 1, kMaxMemoryMib, " MiB"));
  if (vm.count("max-instructions"))
    config.max_instructions = parse_whole("max-instructions", vm["max-instructions"].as<std::string>(), 0, ~u64{0});
  config.post = vm.count("post") > 0;
  config.exit_on_halt = vm.count("exit-on-halt") > 0;
  config.reset_on_triple_fault = vm.count("reset-on-triple-fault") > 0;
  apply_profile_option(vm, config);
  apply_cache_model_option(vm, config);
}

int run_cli(const std::vector<std::string>& args) {
  try {
    if (args.empty()) {
      std::cerr << kUsage;
      return 2;
    }
    const std::string& command = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "--version" || command == "version") {
      std::cout << "x86lab " << kVersion << "\n";
      return 0;
    }
    if (command == "help" || command == "--help" || command == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (command == "run") return run_command(rest);
    if (command == "trace") return trace_command(rest);
    if (command == "gui") return gui::gui_command(rest);
    if (command == "compare") return compare_command(rest);
    std::cerr << "x86lab: unknown command '" << command << "' (try x86lab help)\n";
    return 2;
  } catch (const InputError& error) {
    std::cerr << "x86lab: " << error.what() << "\n";
    return 2;
  } catch (const OutputError& error) {
    std::cerr << "x86lab: " << error.what() << "\n";
    return 2;
  } catch (const po::error& error) {
    std::cerr << "x86lab: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "x86lab: internal error: " << error.what() << "\n";
    return 3;
  }
}

}  // namespace x86lab
