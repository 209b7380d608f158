// A sweep as independent jobs (docs/compare.md, "Running a sweep on a cluster"):
// `compare sweep --emit-jobs DIR` writes the inputs under content-hash names, one
// `compare sweep-point` command line per point (jobs.txt), a GNU parallel runner and a
// Slurm array script; `compare collect DIR` merges the jobs' result files.
#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cpu/cpu_profile.h"
#include "platform/input_error.h"
#include "trace/input_file.h"
#include "trace/output_file.h"
#include "ui/compare_command.h"
#include "ui/help_text.h"
#include "ui/compare_sweep.h"
#include "ui/trace_command.h"

namespace po = boost::program_options;
using nlohmann::json;

namespace x86lab {
namespace {

constexpr const char* kPlanFile = "plan.json";

// FNV-1a, 64 bits (Fowler, Noll, Vo): a name for a file's content, not a checksum
// against tampering.
std::string content_hash(const std::string& bytes) {
  u64 hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) hash = (hash ^ c) * 0x100000001b3ull;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

// A POSIX shell single-quoted word.
std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  try {
    write_whole_file(path.string(), bytes, "job file");
  } catch (const OutputError& error) {
    throw InputError(error.what());
  }
}

// Copies `bytes` to DIR/inputs/<hash><extension> (once) and returns that file name.
std::string store_input(const std::filesystem::path& dir, const std::string& bytes, const std::string& extension) {
  const std::string name = content_hash(bytes) + extension;
  if (!std::filesystem::exists(dir / "inputs" / name)) write_file(dir / "inputs" / name, bytes);
  return name;
}

std::filesystem::path executable_path() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path("x86lab") : self;
}

std::string result_name(std::size_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "results/p%05zu.txt", index + 1);
  return name;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ",") + name;
  return text;
}

// The plan of an emitted folder (plan.json and the manifest it names).
SweepPlan read_plan(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kPlanFile;
  if (!std::filesystem::exists(file))
    throw InputError("collect: '" + file.string() + "' is missing (not a folder written by compare sweep --emit-jobs)");
  const std::string text = read_input_text(file.string(), "sweep plan", kTextInputLimit);
  const auto fail = [&](const std::string& problem) -> void {
    throw InputError("sweep plan '" + file.string() + "': " + problem);
  };
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& error) {
    fail(std::string("not valid JSON (") + error.what() + ")");
  }
  SweepPlan plan;
  try {
    if (root.at("x86lab_sweep").get<int>() != 1) fail("unknown version");
    plan.manifest = load_manifest(dir / root.at("manifest").get<std::string>());
    plan.profile = root.at("profile").get<std::string>();
    plan.cache_model = root.at("cache_model").get<std::string>();
    plan.variants = root.at("variants").get<std::vector<std::string>>();
    for (const json& axis : root.at("vary")) {
      // Each knob checked as --vary checks it: a knob of the manifest, values in its range.
      std::string vary = axis.at("knob").get<std::string>() + "=";
      for (const json& value : axis.at("values")) vary += std::to_string(value.get<u64>()) + ",";
      if (vary.back() == ',') vary.pop_back();
      try {
        plan.axes.push_back(parse_vary(vary, plan.manifest, plan.axes));
      } catch (const InputError& error) {
        fail(error.what());
      }
    }
  } catch (const json::exception& error) {
    fail(std::string("a field is missing or mistyped (") + error.what() + ")");
  }
  for (const std::string& variant : plan.variants)
    if (!plan.manifest.find(variant)) fail("the manifest has no variant '" + variant + "'");
  if (plan.axes.empty()) fail("no knob is varied");
  return plan;
}

}  // namespace

void emit_sweep_jobs(const SweepPlan& plan, const std::filesystem::path& dir_given) {
  prepare_out_dir(dir_given);
  const std::filesystem::path dir = std::filesystem::absolute(dir_given).lexically_normal();
  for (const char* sub : {"inputs", "results", "logs"}) prepare_out_dir(dir / sub);

  // The manifest with its images renamed to their content hashes, itself stored by hash.
  json manifest = json::parse(read_input_text(plan.manifest.path.string(), "manifest", kTextInputLimit));
  for (json& variant : manifest["variants"])
    for (const char* key : {"kernel", "bios"})
      if (variant.contains(key)) {
        const std::filesystem::path image = plan.manifest.path.parent_path() / variant[key].get<std::string>();
        variant[key] = store_input(dir, read_input_text(image.string(), "guest image", kAnyInputSize),
                                   image.extension().string());
      }
  const std::string manifest_name = "inputs/" + store_input(dir, manifest.dump(2) + "\n", ".json");
  std::string profile = plan.profile;
  if (!find_profile(profile)) profile = "inputs/" + store_input(dir, read_input_text(profile, "cost file", kTextInputLimit), ".cost");

  json vary = json::array();
  for (const SweepAxis& axis : plan.axes) vary.push_back({{"knob", axis.knob}, {"values", axis.values}});
  const std::vector<std::vector<u64>> points = plan.points();
  const json plan_json = {{"x86lab_sweep", 1}, {"scenario", plan.manifest.scenario}, {"manifest", manifest_name},
                          {"profile", profile}, {"cache_model", plan.cache_model}, {"variants", plan.variants},
                          {"vary", vary}, {"points", points.size()}};
  write_file(dir / kPlanFile, plan_json.dump(2) + "\n");

  // jobs.txt: line N runs point N into results/pNNNNN.txt; each line starts with a cd to
  // this folder, so it runs the same from GNU parallel, ssh or a Slurm task (the folder
  // must be at the same path there: a shared file system). $X86LAB overrides the binary.
  std::ostringstream jobs;
  const std::string binary = "\"${X86LAB:-" + executable_path().string() + "}\"";
  for (std::size_t p = 0; p < points.size(); ++p) {
    jobs << "cd " << shell_quoted(dir.string()) << " && " << binary << " compare sweep-point --manifest "
         << manifest_name << " --variants " << joined(plan.variants) << " --profile " << shell_quoted(profile)
         << " --cache-model " << plan.cache_model;
    for (std::size_t a = 0; a < plan.axes.size(); ++a) jobs << " --set " << plan.axes[a].knob << "=" << points[p][a];
    jobs << " --jobs 1 --out " << result_name(p) << "\n";
  }
  write_file(dir / "jobs.txt", jobs.str());

  const std::string runner =
      "#!/bin/sh\n"
      "# Runs jobs.txt with GNU parallel: locally with ./run-parallel.sh, on other machines\n"
      "# with ./run-parallel.sh --sshloginfile HOSTS (this folder at the same path on each,\n"
      "# e.g. NFS). Extra arguments go to parallel. Then: x86lab compare collect <this folder>\n"
      "cd \"$(dirname \"$0\")\" || exit 2\n"
      "exec parallel --halt soon,fail=1 --joblog logs/parallel.log \"$@\" < jobs.txt\n";
  write_file(dir / "run-parallel.sh", runner);
  std::ostringstream sbatch;
  sbatch << "#!/bin/bash\n"
         << "# Slurm array job: task N runs line N of jobs.txt (sbatch sweep.sbatch from any folder).\n"
         << "# Then: x86lab compare collect " << dir.string() << "\n"
         << "#SBATCH --job-name=x86lab-sweep-" << plan.manifest.scenario << "\n"
         << "#SBATCH --array=1-" << points.size() << "\n"
         << "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
         << "#SBATCH --output=" << dir.string() << "/logs/slurm-%A_%a.out\n"
         << "set -eu\n"
         << "line=$(sed -n \"${SLURM_ARRAY_TASK_ID}p\" " << shell_quoted((dir / "jobs.txt").string()) << ")\n"
         << "if [ -z \"$line\" ]; then echo \"x86lab sweep: no job ${SLURM_ARRAY_TASK_ID} in jobs.txt\" >&2; exit 2; fi\n"
         << "exec /bin/sh -c \"$line\"\n";
  write_file(dir / "sweep.sbatch", sbatch.str());
  for (const char* script : {"run-parallel.sh", "sweep.sbatch"})
    std::filesystem::permissions(dir / script, std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec,
                                 std::filesystem::perm_options::add);
  std::cerr << "x86lab: " << points.size() << " jobs written to " << dir.string()
            << "/jobs.txt; run them with " << dir.string() << "/run-parallel.sh (GNU parallel) or sbatch "
            << dir.string() << "/sweep.sbatch (Slurm), then x86lab compare collect " << dir.string() << "\n";
}

int compare_sweep_point_command(const std::vector<std::string>& args) {
  po::options_description options("x86lab compare sweep-point --manifest FILE --set NAME=V [--set ...] --out FILE");
  options.add_options()
      ("help,h", "show the options (one job of compare sweep --emit-jobs)")
      ("manifest", po::value<std::string>()->value_name("FILE"), "the scenario's variants.json")
      ("set", po::value<std::vector<std::string>>()->value_name("NAME=V"), "a knob value of this point (repeat)")
      ("variants", po::value<std::string>()->value_name("A,B,..."), "run only these variants (baseline added)")
      ("out", po::value<std::string>()->value_name("FILE"), "the result file")
      ("jobs,j", po::value<std::string>()->value_name("N"), "variants run at once (default: the number of cores)");
  add_profile_option(options);
  add_cache_model_option(options, "on");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << format_options(options);
    return 0;
  }
  for (const char* required : {"manifest", "set", "out"})
    if (!vm.count(required)) throw InputError(std::string("compare sweep-point needs --") + required);
  const unsigned jobs = parse_jobs(vm);
  SweepPlan plan;
  plan.profile = vm["profile"].as<std::string>();
  plan.cache_model = vm["cache-model"].as<std::string>();
  std::vector<ScenarioManifest> manifests{load_manifest(vm["manifest"].as<std::string>())};
  const auto selected = select_variants(manifests, vm);
  for (const VariantSpec* variant : selected[0]) plan.variants.push_back(variant->name);
  plan.manifest = std::move(manifests[0]);
  for (const std::string& set : vm["set"].as<std::vector<std::string>>()) {
    plan.axes.push_back(parse_vary(set, plan.manifest, plan.axes));
    if (plan.axes.back().values.size() != 1) throw InputError("--set " + set + ": one value per knob");
  }
  const std::filesystem::path out = vm["out"].as<std::string>();
  const std::vector<PointResult> results = run_sweep_points(plan, {0}, jobs);
  write_file(out.string() + ".part", point_result_text(results[0]));
  std::error_code error;
  std::filesystem::rename(out.string() + ".part", out, error);
  if (error) throw InputError("cannot write sweep result '" + out.string() + "': " + error.message());
  for (bool ok : results[0].succeeded)
    if (!ok) return 1;
  return 0;
}

int compare_collect_command(const std::vector<std::string>& args) {
  po::options_description options("x86lab compare collect DIR [--out OUT]");
  options.add_options()
      ("help,h", "show the collect options")
      ("out", po::value<std::string>()->value_name("OUT"), "folder for sweep.csv and the plots (default: DIR)");
  const auto parsed = parse_sweep_args(args, options, "dir");
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  if (!vm.count("dir") || vm["dir"].as<std::vector<std::string>>().size() != 1)
    throw InputError("compare collect needs one folder written by compare sweep --emit-jobs");
  const std::filesystem::path dir = vm["dir"].as<std::vector<std::string>>()[0];
  const SweepPlan plan = read_plan(dir);
  const std::vector<std::vector<u64>> points = plan.points();
  std::vector<PointResult> results;
  for (std::size_t p = 0; p < points.size(); ++p) {
    const std::filesystem::path file = dir / result_name(p);
    if (!std::filesystem::exists(file))
      throw InputError("sweep result '" + file.string() + "' is missing (line " + std::to_string(p + 1) +
                       " of jobs.txt has not run, or failed)");
    PointResult result = parse_point_result(read_input_text(file.string(), "sweep result", kTextInputLimit), file.string());
    std::vector<std::pair<std::string, u64>> expected;
    for (std::size_t a = 0; a < plan.axes.size(); ++a) expected.emplace_back(plan.axes[a].knob, points[p][a]);
    if (result.scenario != plan.manifest.scenario || result.knobs != expected || result.variants != plan.variants)
      throw InputError("sweep result '" + file.string() + "': its scenario, knobs or variants are not those of line " +
                       std::to_string(p + 1) + " of jobs.txt");
    results.push_back(std::move(result));
  }
  return write_sweep_outputs(plan, results, vm.count("out") ? std::filesystem::path(vm["out"].as<std::string>()) : dir);
}

}  // namespace x86lab
