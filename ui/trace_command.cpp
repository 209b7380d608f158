// Trace tools and the run options that attach tracing, statistics and cost profiles.
#include "ui/trace_command.h"

#include <charconv>

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "cpu/disassembler.h"
#include "cpu/instruction_table.h"
#include "platform/input_error.h"
#include "trace/trace_tools.h"
#include "ui/recording.h"

namespace po = boost::program_options;

namespace x86lab {

int trace_command(const std::vector<std::string>& args) {
  const char* usage =
      "usage: x86lab trace dump FILE [--from N] [--to M] | stats FILE | diff A B | convert IN OUT [--from N] [--to M]\n"
      "                    | window --recording DIR --from N --to M --out FILE [--filter ITEMS]\n"
      "  dump     print the events of a binary trace as text (of instructions N to M)\n"
      "  stats    count events by kind, accesses and locked accesses by kind, vectors\n"
      "  diff     report the first event that differs and the per-kind count differences\n"
      "  convert  rewrite a trace (version 2 or later) in the current version 4 (its instructions N to M)\n"
      "  window   regenerate the trace of instructions N to M of a run kept with run --recording DIR\n";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << usage;
    return args.empty() ? 2 : 0;
  }
  const std::string& verb = args[0];
  if (verb == "window") return trace_window_command({args.begin() + 1, args.end()});
  const std::size_t wanted = verb == "diff" || verb == "convert" ? 3 : 2;
  const bool with_range = (verb == "dump" || verb == "convert") && args.size() > wanted;
  if ((verb != "dump" && verb != "stats" && verb != "diff" && verb != "convert") ||
      (!with_range && args.size() != wanted)) {
    std::cerr << "x86lab: trace needs 'dump FILE', 'stats FILE', 'diff A B', 'convert IN OUT' or 'window ...' "
                 "(x86lab trace --help)\n";
    return 2;
  }
  u64 from = 0, to = ~u64{0};
  for (std::size_t i = wanted; i < args.size(); i += 2) {
    const std::string& option = args[i];
    if ((option != "--from" && option != "--to") || i + 1 >= args.size()) {
      std::cerr << "x86lab: trace " << verb << ": unknown option '" << option << "' (--from N, --to M)\n";
      return 2;
    }
    const std::string& text = args[i + 1];
    u64 value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      std::cerr << "x86lab: trace " << verb << " " << option << ": '" << text << "' is not an instruction index\n";
      return 2;
    }
    (option == "--from" ? from : to) = value;
  }
  if (verb == "dump") return trace_dump(args[1], std::cout, std::cerr, &instruction_text, from, to);
  if (verb == "stats") return trace_stats(args[1], std::cout, std::cerr);
  if (verb == "convert") return trace_convert(args[1], args[2], std::cerr, from, to);
  return trace_diff(args[1], args[2], std::cout, std::cerr, &instruction_text);
}

void add_trace_options(po::options_description& options) {
  options.add_options()
      ("trace", po::value<std::vector<std::string>>()->value_name("KIND:PATH"),
       "write a trace: text:PATH (one line per event), bin:PATH (x86lab trace dump|stats|diff), "
       "perfetto:PATH (Chrome/Perfetto JSON); may be given more than once")
      ("trace-filter", po::value<std::string>()->value_name("ITEMS"),
       "keep only: event kinds (insn,reg,mem,seg,exc,task,io,cr,walk,tlb-miss,halt,wake,lapic-accept,"
       "lapic-dispatch,lapic-eoi,lapic-ipi,lapic-timer,ioapic-delivery; apic for those six), cpl=N, "
       "eip=LO-HI (hex), cs=SEL (hex), window=FROM-TO (instruction indexes); comma-separated")
      ("trace-start", po::value<std::string>()->value_name("eip=HEX|vector=N"),
       "start tracing at the first instruction at EIP or the first delivery of a vector")
      ("trace-stop", po::value<std::string>()->value_name("eip=HEX|window"),
       "stop tracing at the first instruction at EIP, or end the run once the --trace-filter window is over")
      ("stats-json", po::value<std::string>()->value_name("PATH"), "write the counters as JSON at exit")
      ("code-range", po::value<std::string>()->value_name("BEGIN:END"),
       "also count instructions, bytes and 32/64-byte lines retired in the linear range [BEGIN, END) (hex)");
}

void add_profile_option(po::options_description& options) {
  options.add_options()("profile", po::value<std::string>()->default_value("p3")->value_name("NAME"),
                        "CPU and cost profile: p3, k7, p4, modern, i386-locking, or a cost-model FILE "
                        "(docs/cost-model.md)");
}

void add_cache_model_option(po::options_description& options, const char* default_value) {
  options.add_options()("cache-model", po::value<std::string>()->default_value(default_value)->value_name("on|off"),
                        "the profile's L1 instruction and data caches: count l1i-misses/l1d-misses and charge "
                        "each miss its cost (docs/cost-model.md \"Cache model\"; on costs host time)");
}

void apply_cache_model_option(const po::variables_map& vm, MachineConfig& config) {
  const std::string value = vm["cache-model"].as<std::string>();
  if (value != "on" && value != "off") throw InputError("--cache-model must be on or off, not '" + value + "'");
  config.cache_model = value == "on";
}

// The modeled clock of the cost model's `cpu-mhz` (--cpu-mhz overrides it later, in
// PlatformSession::configure).
void apply_profile_clock(const std::string& name, MachineConfig& config) {
  if (config.cost_model.cpu_mhz < 1 || config.cost_model.cpu_mhz > 100000)
    throw InputError("--profile '" + name + "': cpu-mhz must be between 1 and 100000");
  config.cpu_hz = static_cast<u64>(std::llround(config.cost_model.cpu_mhz * 1e6));
}

namespace {
// Whether the CPU's instruction table has a row with `mnemonic` (a cost for any other
// name would charge nothing).
bool is_table_mnemonic(const std::string& mnemonic) {
  static const std::set<std::string> known = [] {
    std::set<std::string> names;
    for (const InstructionForm* row : InstructionTable::get().rows()) names.emplace(row->mnemonic);
    return names;
  }();
  return known.contains(mnemonic);
}
}  // namespace

void apply_profile_option(const po::variables_map& vm, MachineConfig& config) {
  const std::string name = vm["profile"].as<std::string>();
  if (const CpuProfile* profile = find_profile(name)) {
    config.profile = profile;
    config.cost_model = builtin_cost_model(name == "i386-locking" ? "p3" : name);
    apply_profile_clock(name, config);
    return;
  }
  // Not a built-in name: a cost-model file whose `name` picks the CPU profile.
  // A path (a '/' or a .cost name) or an existing file is a cost file; anything else an unknown name.
  std::error_code error;
  if (name.find('/') == std::string::npos && !name.ends_with(".cost") && !std::filesystem::exists(name, error))
    throw InputError("unknown --profile '" + name + "' (p3, k7, p4, modern, i386-locking, or a .cost file)");
  const std::string text = read_input_text(name, "cost file", kTextInputLimit);
  try {
    config.cost_model = parse_cost_model(text, name, is_table_mnemonic);
  } catch (const std::invalid_argument& error) {
    throw InputError(error.what());
  }
  const CpuProfile* profile = find_profile(config.cost_model.name);
  config.profile = profile ? profile : &default_profile();
  apply_profile_clock(name, config);
}

void attach_trace_options(const po::variables_map& vm, Machine& machine) {
  if (vm.count("code-range")) {
    const std::string text = vm["code-range"].as<std::string>();
    const auto colon = text.find(':');
    const auto hex = [&](const std::string& part) {
      if (part.empty() || part.size() > 8 || part.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        throw InputError("--code-range needs BEGIN:END in hex with BEGIN < END, not '" + text + "'");
      return static_cast<u32>(std::stoul(part, nullptr, 16));
    };
    const u32 begin = hex(text.substr(0, colon)), end = colon == std::string::npos ? 0 : hex(text.substr(colon + 1));
    if (begin >= end) throw InputError("--code-range needs BEGIN:END in hex with BEGIN < END, not '" + text + "'");
    machine.counters.code_range_begin = begin;
    machine.counters.code_range_end = end;
  }
  if (!vm.count("trace")) {
    for (const char* option : {"trace-filter", "trace-start", "trace-stop"})
      if (vm.count(option)) throw InputError(std::string("--") + option + " needs --trace");
    return;
  }
  try {
    TraceFilter filter;
    TraceTriggers triggers;
    if (vm.count("trace-filter")) filter = parse_trace_filter(vm["trace-filter"].as<std::string>());
    if (vm.count("trace-start")) parse_trace_trigger(vm["trace-start"].as<std::string>(), true, triggers);
    if (vm.count("trace-stop")) parse_trace_trigger(vm["trace-stop"].as<std::string>(), false, triggers);
    if (triggers.end_run && (filter.to_instruction == UINT64_MAX || triggers.start_eip || triggers.start_vector))
      throw InputError("--trace-stop window needs --trace-filter window=FROM-TO and no --trace-start");
    auto tracer = std::make_unique<Tracer>(filter, triggers);
    for (const std::string& spec : vm["trace"].as<std::vector<std::string>>())
      tracer->add_sink(open_sink(spec, static_cast<double>(machine.config().cpu_hz) / 1e6, &instruction_text));
    machine.attach_tracer(std::move(tracer));
  } catch (const std::invalid_argument& error) {
    throw InputError(error.what());
  } catch (const std::runtime_error& error) {
    throw InputError(error.what());
  }
}

namespace {
// What identifies the file a path names, for check_distinct_files: device and inode
// of an existing regular file (so hard links, symbolic links and /dev/fd/N match), the
// resolved path of one that does not exist yet (following a dangling symbolic link),
// or "" for a device, FIFO or other stream, which may be shared.
std::string file_identity(const std::string& path) {
  struct stat status;
  if (stat(path.c_str(), &status) == 0)
    return S_ISREG(status.st_mode) ? std::to_string(status.st_dev) + ":" + std::to_string(status.st_ino) : "";
  std::error_code error;
  std::filesystem::path target = path;
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(target, error))) {
    const std::filesystem::path link = std::filesystem::read_symlink(target, error);
    target = link.is_absolute() ? link : target.parent_path() / link;
  }
  return "new:" + std::filesystem::weakly_canonical(target, error).string();
}
}  // namespace

void check_distinct_files(const po::variables_map& vm) {
  struct Named {
    std::string option, path;
    bool output;
  };
  std::vector<Named> files;
  if (vm.count("trace"))
    for (const std::string& spec : vm["trace"].as<std::vector<std::string>>())
      if (const auto colon = spec.find(':'); colon != std::string::npos)
        files.push_back({"--trace " + spec, spec.substr(colon + 1), true});
  if (vm.count("stats-json"))
    files.push_back({"--stats-json " + vm["stats-json"].as<std::string>(), vm["stats-json"].as<std::string>(), true});
  for (const char* option : {"debugcon", "serial"})
    if (vm.count(option)) {
      const std::string value = vm[option].as<std::string>();
      if (value.starts_with("file:")) files.push_back({std::string("--") + option + " " + value, value.substr(5), true});
    }
  for (const char* option : {"bios", "kernel", "initrd", "serial-input", "profile", "script", "symbols"})
    if (vm.count(option)) {
      const std::string value = vm[option].as<std::string>();
      files.push_back({std::string("--") + option + " " + value, value, false});
    }
  std::vector<std::string> identities;
  for (const Named& file : files) identities.push_back(file_identity(file.path));
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      if (identities[i].empty() || identities[i] != identities[j] || (!files[i].output && !files[j].output)) continue;
      if (files[i].output && files[j].output)
        throw InputError(files[j].option + " and " + files[i].option + " would write the same file");
      const Named& output = files[i].output ? files[i] : files[j];
      const Named& input = files[i].output ? files[j] : files[i];
      throw InputError(output.option + " would overwrite the input file of " + input.option);
    }
}

std::unique_ptr<OutputFile> open_stats_json(const po::variables_map& vm) {
  if (!vm.count("stats-json")) return nullptr;
  return std::make_unique<OutputFile>(vm["stats-json"].as<std::string>(), "--stats-json file");
}

void write_stats_json(OutputFile* output, const Machine& machine) {
  if (!output) return;
  const Counters& c = machine.counters;
  nlohmann::json json;
  json["profile"] = machine.config().cost_model.name;
  json["instructions"] = c.instructions;
  json["cycles"] = machine.cpu.clock().cycles();
  for (std::size_t v = 0; v < c.exceptions_by_vector.size(); ++v)
    if (c.exceptions_by_vector[v]) json["vectors"][std::to_string(v)] = c.exceptions_by_vector[v];
  static constexpr const char* kRegisters[] = {"es", "cs", "ss", "ds", "fs", "gs"};
  for (std::size_t r = 0; r < 6; ++r) json["segment_loads"][kRegisters[r]] = c.segment_loads[r];
  for (std::size_t k = 0; k < kAccessKindCount; ++k) {
    const std::string name(kAccessKindNames[k]);
    if (c.accesses_by_kind[k]) json["accesses"][name] = c.accesses_by_kind[k];
    if (c.locked_by_kind[k]) json["locked"][name] = c.locked_by_kind[k];
  }
  json["code_bytes"] = c.code_bytes;
  json["code_lines_32"] = c.code_lines_32;
  json["code_lines_64"] = c.code_lines_64;
  if (c.cache_model) {  // (absent with the cache model off, as in --stats)
    json["l1i_misses"] = c.l1i_misses;
    json["l1d_misses"] = c.l1d_misses;
  }
  if (c.code_range_end > c.code_range_begin)
    json["code_range"] = {{"begin", c.code_range_begin}, {"end", c.code_range_end},
                          {"instructions", c.code_range_instructions}, {"bytes", c.code_range_bytes},
                          {"lines_32", c.code_range_lines_32}, {"lines_64", c.code_range_lines_64}};
  for (const auto& [mnemonic, count] : machine.cpu.retirements_by_mnemonic()) json["mnemonics"][mnemonic] = count;
  json["uncosted"] = machine.cpu.uncosted_mnemonics();
  for (std::size_t p = 0; p < kCostPartCount; ++p)
    if (machine.cpu.clock().charged[p]) json["cost_parts"][kCostPartKeys[p]] = machine.cpu.clock().charged[p];
  json["stack_switches"] = c.stack_switches;
  json["undefined_opcodes"] = c.undefined_opcodes;
  json["replayed_instructions"] = c.replayed_instructions;
  json["open_bus_reads"] = c.open_bus_reads;
  json["open_bus_writes"] = c.open_bus_writes;
  if (c.ioapic_deliveries) json["ioapic_deliveries"] = c.ioapic_deliveries;
  for (std::size_t pin = 0; pin < c.ioapic_deliveries_by_pin.size(); ++pin)
    if (c.ioapic_deliveries_by_pin[pin]) json["ioapic_deliveries_by_pin"][std::to_string(pin)] = c.ioapic_deliveries_by_pin[pin];
  json["io_reads"] = c.io_reads;
  if (c.apic_timer_interrupts) json["apic_timer_interrupts"] = c.apic_timer_interrupts;
  if (c.apic_eois) json["apic_eois"] = c.apic_eois;
  if (c.apic_ipis) json["apic_ipis"] = c.apic_ipis;
  for (std::size_t v = 0; v < c.apic_dispatches_by_vector.size(); ++v)
    if (c.apic_dispatches_by_vector[v]) json["apic_vectors"][std::to_string(v)] = c.apic_dispatches_by_vector[v];
  json["io_writes"] = c.io_writes;
  for (std::size_t port = 0; port < c.io_by_port.size(); ++port)
    if (c.io_by_port[port]) json["io_by_port"][std::to_string(port)] = c.io_by_port[port];
  output->start();
  const std::string text = json.dump(2) + "\n";
  std::fwrite(text.data(), 1, text.size(), output->stream());
  output->finish();
}

void report_uncosted(std::ostream& out, const Cpu& cpu, const std::string& profile) {
  const std::vector<std::string> uncosted = cpu.uncosted_mnemonics();
  if (uncosted.empty()) return;
  out << "x86lab: uncosted instructions (profile " << profile << " has no cost for them; they charged 0 cycles):";
  for (const std::string& mnemonic : uncosted) out << " " << mnemonic;
  out << "\n";
}

void finish_output(const std::function<void()>& finish, bool& failed) {
  try {
    finish();
  } catch (const OutputError& error) {
    std::cerr << "x86lab: " << error.what() << "\n";
    failed = true;
  }
}

}  // namespace x86lab
