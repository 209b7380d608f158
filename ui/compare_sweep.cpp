// `x86lab compare sweep` (docs/compare.md, "Sweeps"): the plan, running its points,
// the point result text and sweep.csv.
#include "ui/compare_sweep.h"
#include "ui/help_text.h"

#include <boost/program_options.hpp>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "platform/input_error.h"
#include "platform/scenario/comparison.h"
#include "trace/output_file.h"
#include "ui/compare_command.h"
#include "ui/trace_command.h"

namespace po = boost::program_options;

namespace x86lab {
namespace {

constexpr const char* kPointHeader = "x86lab sweep point 1";

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.emplace_back();
  return parts;
}

// The machine configuration of --profile and --cache-model as `compare` builds it.
MachineConfig plan_base(const SweepPlan& plan) {
  po::variables_map vm;
  vm.insert({"profile", po::variable_value(plan.profile, false)});
  vm.insert({"cache-model", po::variable_value(plan.cache_model, false)});
  MachineConfig base;
  apply_profile_option(vm, base);
  apply_cache_model_option(vm, base);
  return base;
}

PointResult point_result(const SweepPlan& plan, const std::vector<u64>& point,
                         const std::vector<const VariantSpec*>& specs, const std::vector<const VariantResult*>& runs) {
  PointResult result;
  result.scenario = plan.manifest.scenario;
  for (std::size_t a = 0; a < plan.axes.size(); ++a) result.knobs.emplace_back(plan.axes[a].knob, point[a]);
  const ScenarioComparison comparison = build_comparison(plan.manifest, specs, runs);
  for (std::size_t v = 0; v < specs.size(); ++v) {
    result.variants.push_back(specs[v]->name);
    result.succeeded.push_back(runs[v]->succeeded);
  }
  std::vector<std::string> slowdown(specs.size());
  if (const MetricRow* cycles = comparison.find(MetricSource::Counter, "cycles"))
    for (std::size_t v = 0; v < specs.size(); ++v)
      if (const auto ratio = comparison.ratio(*cycles, v)) slowdown[v] = format_ratio(*ratio);
  result.rows.emplace_back("slowdown", std::move(slowdown));
  for (const MetricRow& row : comparison.rows) {
    std::vector<std::string> values;
    for (const auto& value : row.values) values.push_back(value ? format_value(*value) : std::string());
    result.rows.emplace_back(std::string(name_of(row.source)) + "." + row.key, std::move(values));
  }
  return result;
}

po::options_description sweep_options() {
  po::options_description options("x86lab compare sweep SCENARIO --vary NAME=V1,V2,... [--vary ...] [options]");
  options.add_options()
      ("help,h", "show the sweep options")
      ("vary", po::value<std::vector<std::string>>()->value_name("NAME=V1,V2,..."),
       "a knob of the scenario's guests and its values (repeat for a cross product)")
      ("variants", po::value<std::string>()->value_name("A,B,..."),
       "run only these variants (the baseline is always added)");
  add_profile_option(options);
  add_cache_model_option(options, "on");
  options.add_options()
      ("out", po::value<std::string>()->default_value("x86lab-sweep")->value_name("DIR"),
       "folder for sweep.csv and the plots (created if missing)")
      ("emit-jobs", po::value<std::string>()->value_name("DIR"),
       "run nothing: write the sweep as independent jobs (jobs.txt, run-parallel.sh, sweep.sbatch) into DIR")
      ("jobs,j", po::value<std::string>()->value_name("N"), "variant runs at once (default: the number of cores)")
      ("scenario-dir", po::value<std::string>()->value_name("DIR"),
       "where the built scenarios are (DIR/<scenario>/variants.json)");
  return options;
}

}  // namespace

std::vector<std::vector<u64>> SweepPlan::points() const {
  std::vector<std::vector<u64>> points{{}};
  for (const SweepAxis& axis : axes) {
    std::vector<std::vector<u64>> next;
    for (const auto& point : points)
      for (u64 value : axis.values) {
        next.push_back(point);
        next.back().push_back(value);
      }
    points = std::move(next);
  }
  return points;
}

SweepAxis parse_vary(const std::string& text, const ScenarioManifest& manifest, const std::vector<SweepAxis>& earlier) {
  const auto equals = text.find('=');
  std::string names;
  for (const ScenarioKnob& knob : manifest.knobs) names += (names.empty() ? "" : ", ") + knob.name;
  if (names.empty()) names = "none";
  if (equals == std::string::npos || equals == 0)
    throw InputError("--vary '" + text + "' must be NAME=V1,V2,... (knobs of " + manifest.scenario + ": " + names + ")");
  SweepAxis axis{text.substr(0, equals), {}};
  const ScenarioKnob* knob = nullptr;
  for (const ScenarioKnob& k : manifest.knobs)
    if (k.name == axis.knob) knob = &k;
  if (!knob)
    throw InputError("--vary: scenario '" + manifest.scenario + "' has no knob '" + axis.knob + "' (" + names + ")");
  for (const SweepAxis& other : earlier)
    if (other.knob == axis.knob) throw InputError("--vary: knob '" + axis.knob + "' is varied twice");
  const std::string range = std::to_string(knob->min) + "-" + std::to_string(knob->max);
  for (const std::string& value : split(text.substr(equals + 1), ',')) {
    if (value.empty() || value.size() > 10 || value.find_first_not_of("0123456789") != std::string::npos)
      throw InputError("--vary " + axis.knob + ": '" + value + "' is not a whole number (" + range + ")");
    const u64 number = std::stoull(value);
    if (number < knob->min || number > knob->max)
      throw InputError("--vary " + axis.knob + ": " + value + " is outside " + range);
    for (u64 seen : axis.values)
      if (seen == number) throw InputError("--vary " + axis.knob + ": " + value + " is given twice");
    axis.values.push_back(number);
  }
  if (axis.values.empty()) throw InputError("--vary " + axis.knob + ": no values (" + range + ")");
  return axis;
}

void check_sweep_size(const SweepPlan& plan, bool emitted) {
  u64 points = 1;
  for (const SweepAxis& axis : plan.axes) points *= axis.values.size();  // at most 10^k per knob: no overflow
  const u64 runs = points * plan.variants.size();
  const auto count = std::to_string(points) + " points x " + std::to_string(plan.variants.size()) + " variants";
  if (emitted && points > kMaxEmittedPoints)
    throw InputError("--vary: the sweep has " + count + "; --emit-jobs writes at most " +
                     std::to_string(kMaxEmittedPoints) + " points (jobs)");
  if (!emitted && runs > kMaxLocalRuns)
    throw InputError("--vary: the sweep has " + count + " = " + std::to_string(runs) + " runs; at most " +
                     std::to_string(kMaxLocalRuns) + " run in one process (use --emit-jobs DIR for more)");
}

VariantSpec variant_at_point(const VariantSpec& variant, const SweepPlan& plan, const std::vector<u64>& point) {
  VariantSpec spec = variant;
  for (std::size_t a = 0; a < plan.axes.size(); ++a)
    spec.append += (spec.append.empty() ? "" : " ") + plan.axes[a].knob + "=" + std::to_string(point[a]);
  return spec;
}

std::vector<PointResult> run_sweep_points(const SweepPlan& plan, const std::vector<std::size_t>& points,
                                          unsigned threads) {
  const std::vector<std::vector<u64>> all = plan.points();
  std::vector<std::vector<VariantSpec>> specs(points.size());
  std::vector<VariantJob> jobs;
  for (std::size_t p = 0; p < points.size(); ++p) {
    for (const std::string& name : plan.variants)
      specs[p].push_back(variant_at_point(*plan.manifest.find(name), plan, all.at(points[p])));
    for (const VariantSpec& spec : specs[p]) jobs.push_back({&plan.manifest, &spec});
  }
  const std::vector<VariantResult> runs = run_variants(jobs, plan_base(plan), threads);
  std::vector<PointResult> results;
  for (std::size_t p = 0, next = 0; p < points.size(); ++p) {
    std::vector<const VariantSpec*> spec_pointers;
    std::vector<const VariantResult*> run_pointers;
    for (const VariantSpec& spec : specs[p]) {
      spec_pointers.push_back(&spec);
      run_pointers.push_back(&runs[next]);
      if (!runs[next].succeeded)
        std::cerr << "x86lab: " << plan.manifest.scenario << "/" << spec.name << " (" << spec.append
                  << ") failed: " << runs[next].failure << "\n";
      ++next;
    }
    results.push_back(point_result(plan, all.at(points[p]), spec_pointers, run_pointers));
  }
  return results;
}

std::string point_result_text(const PointResult& result) {
  std::ostringstream out;
  out << kPointHeader << "\nscenario " << result.scenario << "\n";
  for (const auto& [knob, value] : result.knobs) out << "knob " << knob << " " << value << "\n";
  for (std::size_t v = 0; v < result.variants.size(); ++v)
    out << "variant " << result.variants[v] << " " << (result.succeeded[v] ? 1 : 0) << "\n";
  for (const auto& [key, values] : result.rows) {
    out << "row " << key;
    for (const std::string& value : values) out << " " << (value.empty() ? "-" : value);
    out << "\n";
  }
  out << "end\n";
  return out.str();
}

PointResult parse_point_result(const std::string& text, const std::string& file) {
  const auto fail = [&](std::size_t line, const std::string& problem) -> void {
    throw InputError("sweep result '" + file + "': " + (line ? "line " + std::to_string(line) + ": " : "") + problem);
  };
  PointResult result;
  const std::vector<std::string> lines = split(text, '\n');
  if (lines.empty() || lines[0] != kPointHeader) fail(0, "not a sweep point result (no '" + std::string(kPointHeader) + "' line)");
  bool ended = false;
  for (std::size_t n = 1; n < lines.size(); ++n) {
    const std::vector<std::string> words = split(lines[n], ' ');
    if (lines[n].empty()) {
      if (n + 1 == lines.size()) continue;
      fail(n + 1, "empty line");
    }
    if (ended) fail(n + 1, "text after 'end'");
    const std::string& tag = words[0];
    const auto number = [&](const std::string& word) {
      if (word.empty() || word.size() > 20 || word.find_first_not_of("0123456789") != std::string::npos)
        fail(n + 1, "'" + word + "' is not a whole number");
      return static_cast<u64>(std::stoull(word));
    };
    if (tag == "scenario" && words.size() == 2 && result.scenario.empty()) {
      result.scenario = words[1];
    } else if (tag == "knob" && words.size() == 3) {
      result.knobs.emplace_back(words[1], number(words[2]));
    } else if (tag == "variant" && words.size() == 3 && (words[2] == "0" || words[2] == "1") && result.rows.empty()) {
      result.variants.push_back(words[1]);
      result.succeeded.push_back(words[2] == "1");
    } else if (tag == "row" && words.size() == result.variants.size() + 2) {
      std::vector<std::string> values;
      for (std::size_t w = 2; w < words.size(); ++w) {
        const std::string& value = words[w];
        if (value != "-" && (value.empty() || value.find_first_not_of("0123456789.-") != std::string::npos))
          fail(n + 1, "value '" + value + "' is not a number or -");
        values.push_back(value == "-" ? std::string() : value);
      }
      result.rows.emplace_back(words[1], std::move(values));
    } else if (tag == "end" && words.size() == 1) {
      ended = true;
    } else {
      fail(n + 1, "unexpected '" + lines[n].substr(0, 60) + "'");
    }
  }
  if (!ended) fail(0, "truncated (no 'end' line)");
  if (result.scenario.empty() || result.variants.empty()) fail(0, "no scenario or no variants");
  return result;
}

void write_sweep_csv(std::ostream& out, const std::vector<PointResult>& results) {
  std::vector<std::string> columns;
  std::set<std::string> seen;
  for (const PointResult& result : results)
    for (const auto& [key, values] : result.rows)
      if (seen.insert(key).second) columns.push_back(key);
  if (!results.empty())
    for (const auto& [knob, value] : results[0].knobs) out << knob << ",";
  out << "variant,succeeded";
  for (const std::string& column : columns) out << "," << column;
  out << "\n";
  for (const PointResult& result : results) {
    std::map<std::string, const std::vector<std::string>*> by_key;
    for (const auto& [key, values] : result.rows) by_key[key] = &values;
    for (std::size_t v = 0; v < result.variants.size(); ++v) {
      for (const auto& [knob, value] : result.knobs) out << value << ",";
      out << result.variants[v] << "," << (result.succeeded[v] ? 1 : 0);
      for (const std::string& column : columns) {
        const auto found = by_key.find(column);
        out << "," << (found == by_key.end() ? std::string() : found->second->at(v));
      }
      out << "\n";
    }
  }
}

int write_sweep_outputs(const SweepPlan& plan, const std::vector<PointResult>& results,
                        const std::filesystem::path& dir) {
  prepare_out_dir(dir);
  std::ostringstream csv;
  write_sweep_csv(csv, results);
  const std::filesystem::path file = dir / "sweep.csv";
  try {
    write_whole_file(file.string() + ".part", csv.str(), "sweep file");
  } catch (const OutputError& error) {
    throw InputError(error.what());
  }
  std::error_code error;
  std::filesystem::rename(file.string() + ".part", file, error);
  if (error) throw InputError("cannot write sweep file '" + file.string() + "': " + error.message());
  const SweepPlots plots = write_sweep_plots(plan, results, dir);
  std::size_t rows = 0, failed = 0;
  for (const PointResult& result : results) {
    rows += result.variants.size();
    for (bool ok : result.succeeded) failed += !ok;
  }
  std::cerr << "x86lab: sweep of " << results.size() << " points x " << plan.variants.size() << " variants written to "
            << file.string() << " (" << rows << " rows, " << plots.rendered.size() << " plots)\n";
  if (!plots.problem.empty()) std::cerr << "x86lab: " << plots.problem << "\n";
  if (failed) std::cerr << "x86lab: " << failed << " of " << rows << " runs failed (succeeded = 0 in sweep.csv)\n";
  return failed ? 1 : 0;
}

std::optional<po::variables_map> parse_sweep_args(const std::vector<std::string>& args,
                                                  const po::options_description& options, const char* positional) {
  po::options_description hidden;
  hidden.add_options()(positional, po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description words;
  words.add(positional, -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(words).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << format_options(options);
    return std::nullopt;
  }
  return vm;
}

int compare_sweep_command(const std::vector<std::string>& args) {
  const auto parsed = parse_sweep_args(args, sweep_options(), "scenario");
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  const std::vector<std::string> names =
      vm.count("scenario") ? vm["scenario"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (names.size() != 1) throw InputError("compare sweep needs exactly one scenario name (x86lab compare sweep --help)");
  if (!vm.count("vary")) throw InputError("compare sweep needs --vary NAME=V1,V2,... (a knob of the scenario)");
  const unsigned jobs = parse_jobs(vm);
  SweepPlan plan;
  plan.profile = vm["profile"].as<std::string>();
  plan.cache_model = vm["cache-model"].as<std::string>();
  plan_base(plan);  // checks --profile and --cache-model before anything runs
  const std::filesystem::path dir =
      vm.count("scenario-dir") ? std::filesystem::path(vm["scenario-dir"].as<std::string>()) : default_scenario_dir();
  const std::vector<std::string> available = scenario_names(dir);
  if (std::find(available.begin(), available.end(), names[0]) == available.end()) {
    std::string listing;
    for (const std::string& name : available) listing += (listing.empty() ? "" : ", ") + name;
    throw InputError("unknown scenario '" + names[0] + "' (built in '" + dir.string() + "': " +
                     (listing.empty() ? "none" : listing) + ")");
  }
  std::vector<ScenarioManifest> manifests{load_manifest(dir / names[0] / "variants.json")};
  const auto selected = select_variants(manifests, vm);
  for (const VariantSpec* variant : selected[0]) plan.variants.push_back(variant->name);
  plan.manifest = std::move(manifests[0]);
  for (const std::string& vary : vm["vary"].as<std::vector<std::string>>())
    plan.axes.push_back(parse_vary(vary, plan.manifest, plan.axes));
  check_sweep_size(plan, vm.count("emit-jobs") != 0);
  if (vm.count("emit-jobs")) {
    emit_sweep_jobs(plan, vm["emit-jobs"].as<std::string>());
    return 0;
  }
  const std::filesystem::path out = vm["out"].as<std::string>();
  prepare_out_dir(out);
  std::vector<std::size_t> indices(plan.points().size());
  for (std::size_t p = 0; p < indices.size(); ++p) indices[p] = p;
  std::vector<PointResult> results;
  // Through the result text, as `compare collect` reads it: one path to sweep.csv.
  for (const PointResult& result : run_sweep_points(plan, indices, jobs))
    results.push_back(parse_point_result(point_result_text(result), "(in memory)"));
  return write_sweep_outputs(plan, results, out);
}

}  // namespace x86lab
