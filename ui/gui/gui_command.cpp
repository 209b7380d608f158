// The `gui` subcommand: options, the machine (from the run options or a scenario
// variant), the session and the inspector window.
#include "ui/gui/gui_command.h"
#include "ui/help_text.h"

#include <cstdlib>
#include <iostream>

#include "platform/input_error.h"
#include "platform/rom_image.h"
#include "ui/cli.h"
#include "ui/gdb/gdb_inspector.h"
#include "ui/gdb/gdb_options.h"
#include "ui/gui/app.h"
#include "ui/platform_options.h"
#include "ui/trace_command.h"

namespace po = boost::program_options;

namespace x86lab::gui {

namespace {
po::options_description gui_options() {
  po::options_description options("x86lab gui options");
  options.add_options()
      ("scenario", po::value<std::string>()->value_name("NAME[/VARIANT]"),
       "open a design-comparison scenario's variant (the baseline when no variant is named) instead of --bios/--kernel")
      ("scenario-dir", po::value<std::string>()->value_name("DIR"), "where the built scenarios are (default: this build's roms/scenarios)")
      ("run", "start running at once instead of paused at reset")
      ("script", po::value<std::string>()->value_name("FILE"), "run inspector commands from FILE (docs/gui.md \"Scripts\")")
      ("symbols", po::value<std::string>()->value_name("FILE"), "ELF file whose symbols label the disassembly")
      ("size", po::value<std::string>()->default_value("1600x1000")->value_name("WxH"), "window size in pixels")
      ("no-layout", "do not read or save the window layout file")
      ("frames", po::value<std::string>()->value_name("N"),
       "close after N frames and print the frame rate and guest steps on stderr (bench/gui_fps.sh)");
  return options;
}

void parse_size(const std::string& text, AppOptions& app) {
  const auto x = text.find('x');
  const auto number = [&](const std::string& part) {
    if (part.empty() || part.size() > 5 || part.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(part);
  };
  app.width = x == std::string::npos ? -1 : number(text.substr(0, x));
  app.height = x == std::string::npos ? -1 : number(text.substr(x + 1));
  if (app.width < 320 || app.height < 200 || app.width > 8192 || app.height > 8192)
    throw InputError("--size needs WIDTHxHEIGHT between 320x200 and 8192x8192, not '" + text + "'");
}

// The variant `spec` ("tls" or "tls/flip") names in the scenarios folder.
const VariantSpec& find_variant(const ScenarioCatalog& catalog, const std::string& spec, std::string& title) {
  const auto slash = spec.find('/');
  const std::string scenario = spec.substr(0, slash);
  const ScenarioManifest* manifest = catalog.find(scenario);
  if (!manifest) {
    std::string known;
    for (const auto& m : catalog.scenarios) known += (known.empty() ? "" : ", ") + m.scenario;
    throw InputError("--scenario: no scenario '" + scenario + "' in '" + catalog.folder.string() + "'" +
                     (known.empty() ? std::string(" (none built)") : " (there are: " + known + ")"));
  }
  const std::string variant = slash == std::string::npos ? manifest->baseline : spec.substr(slash + 1);
  const VariantSpec* found = manifest->find(variant);
  if (!found) throw InputError("--scenario: scenario '" + scenario + "' has no variant '" + variant + "'");
  title = scenario + "/" + variant;
  return *found;
}

// Without a display, scripts render offscreen; interactive use needs one.
void choose_video_driver(bool script) {
  if (std::getenv("SDL_VIDEODRIVER") || std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY")) return;
  if (!script) throw InputError("gui needs a display (DISPLAY is not set); for headless runs use --script FILE");
  setenv("SDL_VIDEODRIVER", "offscreen", 1);
}
}  // namespace

int gui_command(const std::vector<std::string>& args) {
  po::options_description options = gui_options();
  options.add(machine_options());
  const po::variables_map vm = parse_command_options(args, options, "gui");
  if (vm.count("help")) {
    std::cout << "usage: x86lab gui [options]\n" << format_options(options);
    return 0;
  }
  SessionOptions session_options;
  MachineConfig& config = session_options.config;
  configure_machine(vm, config);
  const bool gdb = vm.count("gdb") || vm.count("wait-gdb");
  if (vm.count("wait-gdb") && vm.count("run")) throw InputError("--run and --wait-gdb cannot be used together");
  session_options.fixed_machine = gdb;  // the stub holds this machine's debugger
  session_options.history_mib = history_budget_mib(vm);  // Step back, Run back, the Timeline (docs/gui.md)
  if (vm.count("scenario-dir")) session_options.scenarios = vm["scenario-dir"].as<std::string>();
  if (vm.count("scenario")) {
    if (vm.count("bios") || vm.count("kernel")) throw InputError("--scenario cannot be used with --bios or --kernel");
    const ScenarioCatalog catalog = ScenarioCatalog::scan(session_options.scenarios);
    session_options.variant = find_variant(catalog, vm["scenario"].as<std::string>(), session_options.title);
    config = variant_config(*session_options.variant, config);
  } else if (vm.count("load-snapshot")) {
    for (const char* option : {"bios", "kernel", "initrd", "append", "scenario"})
      if (vm.count(option))
        throw InputError(std::string("--load-snapshot takes the machine from its file: --") + option + " cannot be given");
    session_options.snapshot = vm["load-snapshot"].as<std::string>();
    config.bios = read_snapshot_file(session_options.snapshot.string()).bios;
    session_options.title = session_options.snapshot.string();
  } else if (vm.count("bios") || vm.count("kernel") || uses_bios_boot(vm)) {
    // As `x86lab run`: a PC BIOS gets its VGA BIOS (--vga-bios), and a boot device
    // option alone boots through the default BIOS (docs/booting.md).
    configure_bios(vm, config);
    session_options.title = vm.count("bios")     ? vm["bios"].as<std::string>()
                            : vm.count("kernel") ? vm["kernel"].as<std::string>()
                                                 : std::string(kDefaultPcBios);
  } else {
    throw InputError(
        "gui needs --bios FILE, --kernel FILE, a boot device (--hda, --cdrom, --fda, ...), --load-snapshot FILE or "
        "--scenario NAME (x86lab gui --help lists the options)");
  }
  AppOptions app;
  parse_size(vm["size"].as<std::string>(), app);
  if (vm.count("script")) {
    app.script = load_script(vm["script"].as<std::string>());
    app.script_given = true;
  }
  app.start_running = vm.count("run") > 0;
  if (vm.count("frames")) {
    const std::string frames = vm["frames"].as<std::string>();
    if (frames.empty() || frames.size() > 9 || frames.find_first_not_of("0123456789") != std::string::npos || frames == "0")
      throw InputError("--frames needs a whole number of frames (1 or more), not '" + frames + "'");
    app.max_frames = std::stoull(frames);
  }
  if (!app.script_given && !vm.count("no-layout")) app.layout_file = default_layout_file();
  if (vm.count("symbols")) session_options.symbols = vm["symbols"].as<std::string>();
  choose_video_driver(app.script_given || app.max_frames || vm.count("wait-gdb"));

  // Opened first, emptied when the machine starts (trace/output_file.h).
  check_distinct_files(vm);
  const std::unique_ptr<OutputFile> stats_json = open_stats_json(vm);
  PlatformSession platform;
  if (vm.count("scenario")) {
    // The variant's image replaces --kernel/--bios; keep its kernel request across configure().
    const KernelBootRequest kernel = config.kernel;
    platform.configure(vm, config);
    config.kernel = kernel;
  } else {
    platform.configure(vm, config);
  }
  platform.journal_inputs(config);  // Back and the Timeline re-execute with the keys typed
  // COM1 output is also copied to --serial (stdout by default); its input is the
  // inspector's (through the --record/--replay journal, config.inputs).
  session_options.serial_forward = &platform.serial();
  // The output files are emptied once the session and the gdb stub stand (trace/output_file.h).
  bool outputs_started = false;
  session_options.prepare = [&](Machine& machine) {
    platform.connect(machine);
    attach_trace_options(vm, machine);
    if (outputs_started) {  // a machine that replaces the first one (reset, another variant)
      platform.start();
      machine.start_tracing();
    }
  };
  Session session(std::move(session_options));
  // gdb is served from the frame loop on the machine shown (docs/gdb.md "With the inspector").
  const auto server = start_gdb_server(vm, session.debugger(), wake_frame_loop);
  std::optional<gdb::InspectorLink> link;
  if (server) {
    link.emplace(session, *server);
    app.service = [&link](Session&) {
      const gdb::InspectorLink::Frame frame = link->serve();
      return ServiceState{frame.hold, frame.quit};
    };
  }
  outputs_started = true;
  platform.start();
  session.machine().start_tracing();
  const AppStats stats = run_app(session, app);
  if (app.max_frames)
    std::cerr << "x86lab gui: " << stats.frames << " frames in " << stats.seconds << " s: "
              << static_cast<double>(stats.frames) / stats.seconds << " frames/s, guest "
              << static_cast<double>(stats.guest_steps) / stats.seconds / 1e6 << " million steps/s\n";
  bool output_failed = false;
  finish_output([&] { session.machine().finish_tracing(); }, output_failed);
  finish_output([&] { platform.finish(session.machine()); }, output_failed);
  report_uncosted(std::cerr, session.machine().cpu, session.machine().config().cost_model.name);
  if (vm.count("stats")) session.machine().counters.print(std::cerr, session.machine().cpu.clock().cycles());
  finish_output([&] { write_stats_json(stats_json.get(), session.machine()); }, output_failed);
  if (output_failed) return 2;
  if (stats.signal) {
    std::cerr << "x86lab: " << describe_run_end(RunResult::Reason::Interrupted) << std::endl;
    return 128 + stats.signal;
  }
  if (server && server->killed()) {
    std::cerr << "x86lab: killed by gdb" << std::endl;
    return 1;
  }
  return 0;
}

}  // namespace x86lab::gui
