// `x86lab compare` (docs/compare.md): option parsing, finding the scenarios, running
// their variants on threads and writing the report.
#include "ui/compare_command.h"
#include "ui/help_text.h"

#include <unistd.h>

#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "platform/input_error.h"
#include "platform/scenario/scenario_runner.h"
#include "platform/scenario/tls_stream.h"
#include "trace/output_file.h"
#include "ui/compare_make_stream.h"
#include "ui/compare_plots.h"
#include "ui/compare_report.h"
#include "ui/compare_sweep.h"
#include "ui/compare_tls_real.h"
#include "ui/trace_command.h"

namespace po = boost::program_options;

namespace x86lab {
namespace {

const std::vector<std::string> kFormats = {"text", "markdown", "json", "csv"};

po::options_description compare_options() {
  po::options_description options("x86lab compare SCENARIO...|all [options]");
  options.add_options()
      ("help,h", "show the compare options")
      ("variants", po::value<std::string>()->value_name("A,B,..."),
       "run only these variants (the baseline is always added)");
  add_profile_option(options);
  add_cache_model_option(options, "on");
  options.add_options()
      ("out", po::value<std::string>()->default_value("x86lab-compare")->value_name("DIR"),
       "folder for report.{txt,md,json,csv} and the plots (created if missing)")
      ("no-files", "write no report folder; print the table only")
      ("format", po::value<std::string>()->default_value("text")->value_name("text|markdown|json|csv"),
       "what is printed on stdout")
      ("jobs,j", po::value<std::string>()->value_name("N"), "variants run at once (default: the number of cores)")
      ("scenario-dir", po::value<std::string>()->value_name("DIR"),
       "where the built scenarios are (DIR/<scenario>/variants.json)")
      ("stream", po::value<std::string>()->value_name("FILE"),
       "a recorded TLS access stream: module 0 of every variant that has a \"module\" (tls-stream; docs/compare.md)")
      ("workload", po::value<std::string>()->default_value("ls")->value_name("NAME"),
       "tls-real: the Linux workload recorded (ls, find, threads, boot)")
      ("no-stream-cache", "tls-real: record the workload again instead of taking its stream from the guest cache")
      ("verbose,v", "also print each variant's debug-console text on stderr");
  return options;
}

std::string joined(const std::vector<std::string>& names, const char* separator = ", ") {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : separator) + name;
  return text;
}

std::vector<ScenarioManifest> load_scenarios(const std::vector<std::string>& requested,
                                             const std::filesystem::path& dir) {
  if (requested.empty()) throw InputError("compare needs a scenario name or 'all' (x86lab compare --help)");
  const std::vector<std::string> available = scenario_names(dir);
  const std::string listing = available.empty() ? "none" : joined(available);
  std::vector<ScenarioManifest> manifests;
  for (const std::string& name : requested) {
    if (name == "all") {
      for (const std::string& scenario : available) {
        ScenarioManifest manifest = load_manifest(dir / scenario / "variants.json");
        if (manifest.in_all) manifests.push_back(std::move(manifest));
      }
      if (manifests.empty()) throw InputError("no scenarios are built in '" + dir.string() + "'");
      continue;
    }
    if (std::find(available.begin(), available.end(), name) == available.end())
      throw InputError("unknown scenario '" + name + "' (built in '" + dir.string() + "': " + listing + ")");
    manifests.push_back(load_manifest(dir / name / "variants.json"));
  }
  return manifests;
}

}  // namespace

// Shared with `compare sweep` (ui/compare_command.h).
std::vector<std::vector<const VariantSpec*>> select_variants(const std::vector<ScenarioManifest>& manifests,
                                                             const po::variables_map& vm) {
  std::vector<std::string> wanted;
  if (vm.count("variants")) {
    std::istringstream list(vm["variants"].as<std::string>());
    for (std::string name; std::getline(list, name, ',');)
      if (!name.empty()) wanted.push_back(name);
    if (wanted.empty()) throw InputError("--variants needs a comma-separated list of variant names");
  }
  std::vector<std::vector<const VariantSpec*>> selected;
  for (const ScenarioManifest& manifest : manifests) {
    for (const std::string& name : wanted)
      if (!manifest.find(name)) {
        std::vector<std::string> names;
        for (const VariantSpec& variant : manifest.variants) names.push_back(variant.name);
        throw InputError("scenario '" + manifest.scenario + "' has no variant '" + name + "' (" + joined(names) + ")");
      }
    selected.emplace_back();
    for (const VariantSpec& variant : manifest.variants)
      if (wanted.empty() || variant.name == manifest.baseline ||
          std::find(wanted.begin(), wanted.end(), variant.name) != wanted.end())
        selected.back().push_back(&variant);
  }
  return selected;
}

// --stream FILE: the module of every variant that boots one (docs/compare.md "Replaying a
// recorded stream"). The file is checked here, so a bad one is bad input (status 2).
void replace_modules(std::vector<ScenarioManifest>& manifests, const std::filesystem::path& stream) {
  decode_tls_stream(read_input_bytes(stream.string(), "--stream", kAnyInputSize), stream.string());
  bool used = false;
  for (ScenarioManifest& manifest : manifests)
    for (VariantSpec& variant : manifest.variants)
      if (!variant.module.empty()) {
        variant.module = stream;
        used = true;
      }
  if (!used) throw InputError("--stream '" + stream.string() + "': no variant of these scenarios boots a module (tls-stream does)");
}

unsigned parse_jobs(const po::variables_map& vm) {
  if (!vm.count("jobs")) return std::max(1u, std::thread::hardware_concurrency());
  const std::string text = vm["jobs"].as<std::string>();
  if (text.empty() || text.size() > 3 || text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(text) < 1 || std::stoul(text) > 256)
    throw InputError("--jobs needs a whole number from 1 to 256, not '" + text + "'");
  return static_cast<unsigned>(std::stoul(text));
}

// Creates --out and checks that files can be made in it, before anything runs.
void prepare_out_dir(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw InputError("cannot create --out folder '" + dir.string() + "': " + error.message());
  if (!std::filesystem::is_directory(dir)) throw InputError("--out '" + dir.string() + "' is not a folder");
  if (access(dir.c_str(), W_OK) != 0) throw InputError("cannot write into --out folder '" + dir.string() + "'");
}

namespace {

// Writes report.{txt,md,json,csv} into `dir`, all or none: each goes to a `.part` file
// first (write_whole_file), and only when all four are written are they renamed to their
// names; on an error the `.part` files are removed and the old reports stay as they were.
void write_report_files(const std::filesystem::path& dir, const CompareReport& report) {
  using Writer = void (*)(std::ostream&, const CompareReport&);
  const std::pair<const char*, Writer> files[] = {
      {"report.txt", write_text}, {"report.md", write_markdown}, {"report.json", write_json}, {"report.csv", write_csv}};
  std::vector<std::filesystem::path> written;
  try {
    for (const auto& [name, writer] : files) {
      std::ostringstream text;
      writer(text, report);
      const std::filesystem::path part = dir / (std::string(name) + ".part");
      write_whole_file(part.string(), text.str(), "report file");
      written.push_back(part);
    }
  } catch (const OutputError& error) {
    for (const std::filesystem::path& part : written) std::filesystem::remove(part);
    throw InputError(error.what());
  }
  // A report name taken by a folder would stop the renames half-way: check first.
  for (const std::filesystem::path& part : written)
    if (std::filesystem::is_directory(std::filesystem::path(part).replace_extension())) {
      for (const std::filesystem::path& p : written) std::filesystem::remove(p);
      throw InputError("cannot write report file '" + std::filesystem::path(part).replace_extension().string() +
                       "': a folder has that name");
    }
  for (const std::filesystem::path& part : written) {
    std::error_code error;
    std::filesystem::rename(part, std::filesystem::path(part).replace_extension(), error);
    if (error) throw InputError("cannot rename '" + part.string() + "': " + error.message());
  }
}

std::string regenerate_command(const std::vector<std::string>& names, const po::variables_map& vm) {
  std::string command = "x86lab compare " + joined(names, " ");
  if (vm["profile"].as<std::string>() != "p3") command += " --profile " + vm["profile"].as<std::string>();
  if (vm["cache-model"].as<std::string>() != "on") command += " --cache-model off";
  if (vm.count("variants")) command += " --variants " + vm["variants"].as<std::string>();
  return command + " --format markdown";
}

}  // namespace

int compare_command(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "sweep") return compare_sweep_command({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "sweep-point") return compare_sweep_point_command({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "collect") return compare_collect_command({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "make-stream") return make_stream_command({args.begin() + 1, args.end()});
  const po::options_description options = compare_options();
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("scenario", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << format_options(options);
    return 0;
  }
  const std::string format = vm["format"].as<std::string>();
  if (std::find(kFormats.begin(), kFormats.end(), format) == kFormats.end())
    throw InputError("--format must be text, markdown, json or csv, not '" + format + "'");
  const unsigned jobs = parse_jobs(vm);
  MachineConfig base;
  apply_profile_option(vm, base);
  apply_cache_model_option(vm, base);
  const std::filesystem::path dir =
      vm.count("scenario-dir") ? std::filesystem::path(vm["scenario-dir"].as<std::string>()) : default_scenario_dir();
  if (!std::filesystem::is_directory(dir)) throw InputError("scenario folder '" + dir.string() + "' does not exist");
  const std::vector<std::string> names =
      vm.count("scenario") ? vm["scenario"].as<std::vector<std::string>>() : std::vector<std::string>{};
  // tls-real: record the Linux workload's stream, then replay it as tls-stream (ui/compare_tls_real.h).
  // Every check of the input (variants, --out) comes before the recording, which boots Linux.
  std::optional<TlsRealRun> tls_real;
  std::vector<std::string> run_names = names;
  const bool is_tls_real = std::find(names.begin(), names.end(), "tls-real") != names.end();
  if (is_tls_real) {
    if (names.size() != 1 || vm.count("stream"))
      throw InputError("tls-real runs alone and records its own stream (no other scenario, no --stream)");
    run_names = {"tls-stream"};
  }
  std::vector<ScenarioManifest> manifests = load_scenarios(run_names, dir);
  if (vm.count("stream")) replace_modules(manifests, vm["stream"].as<std::string>());
  const auto selected = select_variants(manifests, vm);
  const bool files = !vm.count("no-files");
  const std::filesystem::path out = vm["out"].as<std::string>();
  if (is_tls_real) {
    tls_real = record_tls_real(dir, vm["workload"].as<std::string>(), base, !vm.count("no-stream-cache"), [&] {
      if (files) prepare_out_dir(out);
    });
    replace_modules(manifests, tls_real->recorded.stream_file);
  } else if (files) {
    prepare_out_dir(out);
  }

  std::vector<VariantJob> variant_jobs;
  for (std::size_t s = 0; s < manifests.size(); ++s)
    for (const VariantSpec* variant : selected[s]) variant_jobs.push_back({&manifests[s], variant});
  const std::vector<VariantResult> results = run_variants(variant_jobs, base, jobs);

  CompareReport report{regenerate_command(names, vm), vm["profile"].as<std::string>(), base.cost_model, {}, {}, {}};
  std::set<std::string> uncosted;
  for (const VariantResult& result : results) uncosted.insert(result.ledger.uncosted.begin(), result.ledger.uncosted.end());
  if (!uncosted.empty())
    std::cerr << "x86lab: uncosted instructions (profile " << base.cost_model.name
              << " has no cost for them; they charged 0 cycles): " << joined({uncosted.begin(), uncosted.end()}, " ") << "\n";
  bool all_succeeded = true;
  for (std::size_t s = 0, next = 0; s < manifests.size(); ++s) {
    std::vector<const VariantResult*> scenario_results;
    for (std::size_t v = 0; v < selected[s].size(); ++v, ++next) {
      const VariantResult& result = results[next];
      scenario_results.push_back(&result);
      if (vm.count("verbose")) {
        std::istringstream lines(result.console);
        for (std::string line; std::getline(lines, line);)
          std::cerr << "[" << result.scenario << "/" << result.name << "] " << line << "\n";
      }
      if (!result.succeeded) {
        all_succeeded = false;
        std::cerr << "x86lab: " << result.scenario << "/" << result.name << " failed: " << result.failure << "\n";
      }
    }
    report.scenarios.push_back(build_comparison(manifests[s], selected[s], scenario_results));
  }

  // irq at the seed's conditions: HZ 100, 250 and 1000 (Linux 2.6's choices) beside the
  // scenario's 99.4 kHz default, classic against csvec_a0 (the seed's before and after).
  for (std::size_t s = 0; s < manifests.size(); ++s) {
    if (manifests[s].scenario != "irq" || !manifests[s].find("classic") || !manifests[s].find("csvec_a0")) continue;
    for (const u32 hz : {100u, 250u, 1000u}) {
      auto run = std::make_unique<CompareReport::RateRun>();
      run->manifest = manifests[s];
      run->manifest.scenario = "irq@" + std::to_string(hz) + "Hz";
      std::vector<const VariantSpec*> chosen;
      for (VariantSpec& variant : run->manifest.variants)
        if (variant.name == "classic" || variant.name == "csvec_a0") {
          variant.append += (variant.append.empty() ? "" : " ") + std::string("timer_hz=") + std::to_string(hz);
          chosen.push_back(&variant);
        }
      std::vector<VariantJob> rate_jobs;
      for (const VariantSpec* variant : chosen) rate_jobs.push_back({&run->manifest, variant});
      run->results = run_variants(rate_jobs, base, jobs);
      std::vector<const VariantResult*> pointers;
      for (const VariantResult& result : run->results) {
        pointers.push_back(&result);
        if (!result.succeeded)
          std::cerr << "x86lab: " << run->manifest.scenario << "/" << result.name << " failed: " << result.failure << "\n";
      }
      run->comparison = build_comparison(run->manifest, chosen, pointers);
      report.rate_runs.push_back(std::move(run));
    }
  }

  // The seed's own CPU (seed_profile): the same variants again under its profile.
  for (std::size_t s = 0; s < manifests.size(); ++s) {
    const std::string& seed_profile = manifests[s].seed_profile;
    if (seed_profile.empty() || seed_profile == report.profile) continue;
    auto run = std::make_unique<CompareReport::SeedProfileRun>();
    MachineConfig seed_base = base;
    apply_builtin_profile(seed_profile, seed_base);
    run->profile = seed_profile;
    run->model = seed_base.cost_model;
    std::vector<VariantJob> seed_jobs;
    for (const VariantSpec* variant : selected[s]) seed_jobs.push_back({&manifests[s], variant});
    run->results = run_variants(seed_jobs, seed_base, jobs);
    std::vector<const VariantResult*> pointers;
    for (const VariantResult& result : run->results) {
      pointers.push_back(&result);
      if (!result.succeeded)
        std::cerr << "x86lab: " << result.scenario << "/" << result.name << " (profile " << seed_profile
                  << ") failed: " << result.failure << "\n";
    }
    run->comparison = build_comparison(manifests[s], selected[s], pointers);
    report.seed_profile_runs.push_back(std::move(run));
  }

  if (format == "text") write_text(std::cout, report);
  else if (format == "markdown") write_markdown(std::cout, report);
  else if (format == "json") write_json(std::cout, report);
  else write_csv(std::cout, report);
  // The stack-protector knob: the same designs again on the stream without the canary reads.
  std::optional<TlsRealRun> plain;
  std::vector<VariantResult> plain_results;
  if (tls_real) {
    plain = without_canary_reads(*tls_real);
    std::vector<ScenarioManifest> plain_manifests = manifests;
    replace_modules(plain_manifests, plain->recorded.stream_file);
    std::vector<VariantJob> plain_jobs;
    for (const VariantSpec* variant : selected[0]) plain_jobs.push_back({&plain_manifests[0], plain_manifests[0].find(variant->name)});
    plain_results = run_variants(plain_jobs, base, jobs);
  }
  if (tls_real && format == "text") {
    write_tls_real_text(std::cout, *tls_real, results, base.cost_model);
    write_tls_real_text(std::cout, *plain, plain_results, base.cost_model);
  }
  std::cout.flush();
  if (tls_real && files) {
    std::ostringstream text, json, plain_json;
    write_tls_real_text(text, *tls_real, results, base.cost_model);
    write_tls_real_text(text, *plain, plain_results, base.cost_model);
    write_tls_real_json(json, *tls_real, results, base.cost_model);
    write_tls_real_json(plain_json, *plain, plain_results, base.cost_model);
    write_whole_file((out / "tls-real.txt").string(), text.str(), "report file");
    write_whole_file((out / "tls-real.json").string(), json.str(), "report file");
    write_whole_file((out / "tls-real-no-canary.json").string(), plain_json.str(), "report file");
    if (!tls_real->recorded.serial.empty())
      write_whole_file((out / "tls-real-console.txt").string(), tls_real->recorded.serial, "report file");
  }
  if (files) {
    write_report_files(out, report);
    const PlotOutcome plots = write_plots(report, out);
    if (!plots.write_error.empty()) throw InputError(plots.write_error);
    std::cerr << "x86lab: report written to " << out.string() << "/ (report.txt, report.md, report.json, report.csv, "
              << plots.rendered.size() << " plots)\n";
    if (!plots.problem.empty()) std::cerr << "x86lab: " << plots.problem << "\n";
  }
  return all_succeeded ? 0 : 1;
}

}  // namespace x86lab
