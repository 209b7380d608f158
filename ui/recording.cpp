// Recordings and trace windows (ui/recording.h).
#include "ui/recording.h"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "platform/input_error.h"
#include "platform/snapshot/snapshot_file.h"
#include "trace/input_file.h"
#include "trace/output_file.h"
#include "ui/cli.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace x86lab {

namespace {

constexpr const char* kOptionsFile = "machine-options";
constexpr const char* kInputsFile = "inputs.log";
constexpr const char* kEndFile = "end-steps";

// "snapshot-000000001234.snap" -> 1234; false for any other name.
bool snapshot_instruction(const std::string& name, u64& instruction) {
  constexpr std::string_view prefix = "snapshot-", suffix = ".snap";
  if (name.size() != prefix.size() + 12 + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix))
    return false;
  const char* first = name.data() + prefix.size();
  const auto [end, ec] = std::from_chars(first, first + 12, instruction);
  return ec == std::errc() && end == first + 12;
}

bool is_recording_file(const std::string& name) {
  u64 ignored;
  return name == kOptionsFile || name == kInputsFile || name == kEndFile || snapshot_instruction(name, ignored);
}

u64 parse_count(const std::string& option, const std::string& text) {
  u64 value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw InputError(option + " needs a whole number of instructions, not '" + text + "'");
  return value;
}

}  // namespace

Recording::Recording(std::string dir, u64 interval, std::vector<std::string> machine_options)
    : dir_(std::move(dir)), interval_(interval), machine_options_(std::move(machine_options)) {
  if (interval_ == 0) throw InputError("--recording-interval must be at least 1 instruction");
  std::error_code error;
  if (fs::exists(dir_, error)) {
    if (!fs::is_directory(dir_, error)) throw InputError("--recording '" + dir_ + "' exists and is not a directory");
    std::vector<fs::path> earlier;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir_, error)) {
      if (!is_recording_file(entry.path().filename().string()))
        throw InputError("--recording '" + dir_ + "' holds '" + entry.path().filename().string() +
                         "', which is not part of a recording (give an empty or new directory)");
      earlier.push_back(entry.path());
    }
    if (error) throw InputError("--recording '" + dir_ + "': " + error.message());
    for (const fs::path& path : earlier) fs::remove(path, error);
  } else if (!fs::create_directories(dir_, error) || error) {
    throw InputError("--recording: cannot create the directory '" + dir_ + "': " + error.message());
  }
  // Writable? (Fails now, before any work, as the other outputs do.)
  const std::string probe = dir_ + "/" + kOptionsFile;
  std::ofstream test(probe);
  if (!test) throw InputError("--recording: cannot write in '" + dir_ + "'");
}

std::vector<std::string> Recording::machine_options_of(const po::variables_map& vm) {
  std::vector<std::string> options;
  for (const char* name : {"memory", "profile", "cpu-mhz", "cache-model"}) {
    if (!vm.count(name)) continue;
    options.push_back(std::string("--") + name);
    options.push_back(vm[name].as<std::string>());
  }
  for (const char* flag : {"exit-on-halt", "reset-on-triple-fault"})
    if (vm.count(flag)) options.push_back(std::string("--") + flag);
  return options;
}

void Recording::start(Machine& machine) {
  OutputFile file(dir_ + "/" + kOptionsFile, "recording's machine options");
  file.start();
  for (const std::string& option : machine_options_) std::fprintf(file.stream(), "%s\n", option.c_str());
  file.finish();
  save(machine);
}

void Recording::between_slices(Machine& machine) {
  if (machine.counters.instructions >= next_) save(machine);
}

void Recording::save(Machine& machine) {
  const u64 at = machine.counters.instructions;
  char name[40];
  std::snprintf(name, sizeof name, "snapshot-%012llu.snap", static_cast<unsigned long long>(at));
  save_machine_snapshot(machine, dir_ + "/" + name);
  ++saved_;
  next_ = (at / interval_ + 1) * interval_;
}

void Recording::finish(Machine& machine) {
  OutputFile file(dir_ + "/" + kEndFile, "recording's end");
  file.start();
  std::fprintf(file.stream(), "%llu\n", static_cast<unsigned long long>(machine.cpu.steps()));
  file.finish();
}

std::string Recording::summary() const {
  return "recording '" + dir_ + "': " + std::to_string(saved_) + " snapshot" + (saved_ == 1 ? "" : "s") +
         " and the input log (x86lab trace window --recording " + dir_ + " --from N --to M --out FILE)";
}

void add_recording_options(po::options_description& options) {
  options.add_options()
      ("recording", po::value<std::string>()->value_name("DIR"),
       "keep a recording of the run in DIR (snapshots and the input log) from which `x86lab trace window` "
       "regenerates the trace of any instructions (docs/tracing.md)")
      ("recording-interval", po::value<std::string>()->value_name("N"),
       "instructions between the recording's snapshots (default 500000000)");
}

int trace_window_command(const std::vector<std::string>& args) {
  const char* usage =
      "usage: x86lab trace window --recording DIR --from N --to M --out FILE [--filter ITEMS]\n"
      "  the binary trace of instructions N to M (inclusive) of the run recorded in DIR\n"
      "  (x86lab run ... --recording DIR), regenerated from its nearest snapshot; ITEMS as\n"
      "  --trace-filter's (event kinds, cpl=, eip=, cs=)\n";
  std::map<std::string, std::string> given;
  for (std::size_t i = 0; i < args.size(); i += 2) {
    const std::string& option = args[i];
    if (option == "--help" || option == "-h") {
      std::cout << usage;
      return 0;
    }
    if ((option != "--recording" && option != "--from" && option != "--to" && option != "--out" &&
         option != "--filter") ||
        i + 1 >= args.size()) {
      std::cerr << "x86lab: trace window: unknown option or missing value '" << option << "'\n" << usage;
      return 2;
    }
    given[option] = args[i + 1];
  }
  try {
    for (const char* needed : {"--recording", "--from", "--to", "--out"})
      if (!given.count(needed)) throw InputError(std::string("trace window needs ") + needed);
    const std::string dir = given["--recording"];
    const u64 from = parse_count("trace window --from", given["--from"]);
    const u64 to = parse_count("trace window --to", given["--to"]);
    if (to < from || to == ~u64{0}) throw InputError("trace window needs --from N --to M with N <= M");
    std::error_code error;
    if (!fs::is_directory(dir, error)) throw InputError("trace window: --recording '" + dir + "' is not a directory");
    u64 best = 0;
    std::string snapshot;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
      u64 at = 0;
      if (snapshot_instruction(entry.path().filename().string(), at) && at <= from && (snapshot.empty() || at >= best)) {
        best = at;
        snapshot = entry.path().string();
      }
    }
    if (snapshot.empty())
      throw InputError("trace window: recording '" + dir + "' has no snapshot at or before instruction " +
                       std::to_string(from));
    const std::string inputs = dir + "/" + kInputsFile;
    if (!fs::exists(inputs, error))
      throw InputError("trace window: recording '" + dir + "' has no " + kInputsFile + " (did its run end?)");
    std::vector<std::string> run_args = {"--load-snapshot", snapshot, "--replay", inputs, "--serial", "none",
                                         "--debugcon", "none", "--no-progress", "--trace", "bin:" + given["--out"]};
    if (!fs::exists(dir + "/" + kEndFile, error))
      throw InputError("trace window: recording '" + dir + "' has no " + kEndFile + " (did its run end?)");
    const std::string end_text = read_input_text(dir + "/" + kEndFile, "recording's end", kTextInputLimit);
    run_args.push_back("--max-instructions");
    run_args.push_back(std::to_string(parse_count("recording '" + dir + "' " + kEndFile,
                                                  end_text.substr(0, end_text.find('\n')))));
    std::istringstream options(read_input_text(dir + "/" + kOptionsFile, "recording's machine options",
                                               kTextInputLimit));
    for (std::string line; std::getline(options, line);)
      if (!line.empty()) run_args.push_back(line);
    std::string filter = "window=" + std::to_string(from) + "-" + std::to_string(to + 1);
    if (given.count("--filter")) {
      if (given["--filter"].find("window=") != std::string::npos)
        throw InputError("trace window: --filter takes no window= (--from and --to give it)");
      filter += "," + given["--filter"];
    }
    run_args.insert(run_args.end(), {"--trace-filter", filter, "--trace-stop", "window"});
    // The recorded run's own end (its instruction limit, a triple fault) is status 1
    // there; here the window is whole either way.
    return run_command(run_args) == 2 ? 2 : 0;
  } catch (const InputError& error) {
    std::cerr << "x86lab: " << error.what() << "\n";
    return 2;
  }
}

}  // namespace x86lab
