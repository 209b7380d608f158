// Reading and checking variants.json (docs/compare.md, "Manifest").
#include "platform/scenario/manifest.h"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "platform/input_error.h"
#include "trace/cost_model.h"

namespace x86lab {
namespace {

using nlohmann::json;

class ManifestReader {
 public:
  explicit ManifestReader(const std::filesystem::path& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError("manifest '" + path_.string() + "': " + problem);
  }

  std::string text(const json& object, const char* key, const std::string& where, bool required = true) const {
    if (!object.contains(key)) {
      if (required) fail(where + "has no \"" + key + "\"");
      return {};
    }
    if (!object[key].is_string()) fail(where + "\"" + key + "\" is not a string");
    return object[key].get<std::string>();
  }

  u64 whole(const json& object, const char* key, const std::string& where, u64 low, u64 high, u64 fallback,
            bool required) const {
    if (!object.contains(key)) {
      if (required) fail(where + "has no \"" + key + "\"");
      return fallback;
    }
    const json& value = object[key];
    if (!value.is_number_unsigned() || value.get<u64>() < low || value.get<u64>() > high)
      fail(where + "\"" + key + "\" must be a whole number from " + std::to_string(low) + " to " +
           std::to_string(high));
    return value.get<u64>();
  }

  // "code_range": "BEGIN:END", two hex numbers (as `x86lab run --code-range`), BEGIN < END.
  void code_range(const json& value, const std::string& where, VariantSpec& spec) const {
    const std::string problem = where + "\"code_range\" must be \"BEGIN:END\" in hex with BEGIN < END";
    if (!value.is_string()) fail(problem);
    const std::string text = value.get<std::string>();
    const auto colon = text.find(':');
    const auto hex = [&](const std::string& part) {
      if (part.empty() || part.size() > 8 || part.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        fail(problem);
      return static_cast<u32>(std::stoul(part, nullptr, 16));
    };
    if (colon == std::string::npos) fail(problem);
    spec.code_range_begin = hex(text.substr(0, colon));
    spec.code_range_end = hex(text.substr(colon + 1));
    if (spec.code_range_begin >= spec.code_range_end) fail(problem);
  }

  // "linux": {"kernel": PATH, "initrd": PATH, "cmdline": TEXT}: a bzImage booted through
  // the Linux boot protocol with its initrd (both required) and command line.
  void linux_kernel(const json& value, const std::string& where, VariantSpec& spec) const {
    const std::string at = where + "\"linux\" ";
    if (!value.is_object()) fail(at + "is not an object {\"kernel\", \"initrd\", \"cmdline\"}");
    for (const auto& [key, item] : value.items())
      if (key != "kernel" && key != "initrd" && key != "cmdline") fail(at + "has an unknown field \"" + key + "\"");
    if (!spec.append.empty()) fail(where + "gives both \"append\" and \"linux\" (its command line is \"cmdline\")");
    const std::filesystem::path folder = path_.parent_path();
    const std::string kernel = text(value, "kernel", at), initrd = text(value, "initrd", at);
    if (kernel.empty() || initrd.empty()) fail(at + "needs non-empty \"kernel\" and \"initrd\" paths");
    spec.kernel = resolve_manifest_path(kernel, folder);
    spec.module = resolve_manifest_path(initrd, folder);
    spec.append = text(value, "cmdline", at, false);
  }

  VariantSpec variant(const json& object, std::size_t index) const {
    const std::string at = "variant " + std::to_string(index) + " ";
    if (!object.is_object()) fail(at + "is not an object");
    VariantSpec spec;
    spec.name = text(object, "name", at);
    if (!is_valid_name(spec.name)) fail(at + "name '" + spec.name + "' is not [a-z0-9_-]+");
    const std::string where = "variant '" + spec.name + "' ";
    spec.description = text(object, "description", where, false);
    const std::string kernel = text(object, "kernel", where, false);
    const std::string bios = text(object, "bios", where, false);
    const bool is_linux = object.contains("linux");
    if (int(!kernel.empty()) + int(!bios.empty()) + int(is_linux) != 1)
      fail(where + "needs exactly one of \"kernel\", \"bios\" and \"linux\"");
    const std::filesystem::path folder = path_.parent_path();
    if (!kernel.empty()) spec.kernel = resolve_manifest_path(kernel, folder);
    if (!bios.empty()) spec.bios = resolve_manifest_path(bios, folder);
    spec.append = text(object, "append", where, false);
    const std::string module = text(object, "module", where, false);
    if (!module.empty() && kernel.empty()) fail(where + "has a \"module\" but no \"kernel\"");
    if (!module.empty()) spec.module = resolve_manifest_path(module, folder);
    if (is_linux) linux_kernel(object["linux"], where, spec);
    spec.memory_mib = static_cast<u32>(whole(object, "memory_mib", where, 1, 3584, 64, false));
    spec.max_instructions = whole(object, "max_instructions", where, 1, UINT64_MAX, 0, true);
    if (object.contains("code_range")) code_range(object["code_range"], where, spec);
    if (object.contains("seed")) {
      if (!object["seed"].is_object()) fail(where + "\"seed\" is not an object");
      for (const auto& [key, value] : object["seed"].items()) {
        if (!value.is_number()) fail(where + "seed \"" + key + "\" is not a number");
        spec.seed[key] = value.get<double>();
      }
    }
    return spec;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace

std::filesystem::path guest_cache_dir() {
  if (const char* cache = std::getenv("X86LAB_GUEST_CACHE"); cache && *cache) return cache;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home && *home ? home : "/") / ".cache" / "x86lab" / "guests";
}

std::filesystem::path resolve_manifest_path(const std::string& text, const std::filesystem::path& folder) {
  static const std::string kGuestCache = "${guest_cache}";
  if (text.rfind(kGuestCache, 0) == 0) {
    std::string rest = text.substr(kGuestCache.size());
    while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
    return guest_cache_dir() / rest;
  }
  return folder / text;
}

bool is_valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  return true;
}

const VariantSpec* ScenarioManifest::find(std::string_view name) const {
  for (const VariantSpec& variant : variants)
    if (variant.name == name) return &variant;
  return nullptr;
}

ScenarioManifest load_manifest(const std::filesystem::path& variants_json) {
  const ManifestReader reader(variants_json);
  const std::string text = read_input_text(variants_json.string(), "manifest", kTextInputLimit);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& error) {
    reader.fail(std::string("not valid JSON (") + error.what() + ")");
  }
  if (!root.is_object()) reader.fail("the top level is not an object");
  ScenarioManifest manifest;
  manifest.path = variants_json;
  manifest.scenario = reader.text(root, "scenario", "");
  if (!is_valid_name(manifest.scenario)) reader.fail("scenario name '" + manifest.scenario + "' is not [a-z0-9_-]+");
  manifest.title = reader.text(root, "title", "", false);
  manifest.seed = reader.text(root, "seed", "", false);
  manifest.baseline = reader.text(root, "baseline", "");
  manifest.operation = reader.text(root, "operation", "", false);
  if (root.contains("seed_counterparts")) {
    if (!root["seed_counterparts"].is_object()) reader.fail("\"seed_counterparts\" is not an object");
    for (const auto& [key, value] : root["seed_counterparts"].items()) {
      if (!value.is_string()) reader.fail("seed_counterparts \"" + key + "\" is not a string");
      manifest.seed_counterparts[key] = value.get<std::string>();
    }
  }
  manifest.seed_profile = reader.text(root, "seed_profile", "", false);
  if (!manifest.seed_profile.empty()) {
    const auto& names = builtin_cost_model_names();
    if (std::find(names.begin(), names.end(), manifest.seed_profile) == names.end())
      reader.fail("seed_profile '" + manifest.seed_profile + "' is not a built-in profile");
  }
  if (root.contains("knobs")) {
    if (!root["knobs"].is_array()) reader.fail("\"knobs\" is not an array");
    std::set<std::string> knob_names;
    for (std::size_t k = 0; k < root["knobs"].size(); ++k) {
      const json& object = root["knobs"][k];
      const std::string at = "knob " + std::to_string(k) + " ";
      if (!object.is_object()) reader.fail(at + "is not an object");
      ScenarioKnob knob;
      knob.name = reader.text(object, "name", at);
      if (!is_valid_name(knob.name) || knob.name.find('-') != std::string::npos)
        reader.fail(at + "name '" + knob.name + "' is not [a-z0-9_]+");
      if (!knob_names.insert(knob.name).second) reader.fail("knob '" + knob.name + "' is named twice");
      const std::string where = "knob '" + knob.name + "' ";
      knob.description = reader.text(object, "description", where, false);
      knob.min = reader.whole(object, "min", where, 0, UINT32_MAX, 0, true);
      knob.max = reader.whole(object, "max", where, knob.min, UINT32_MAX, 0, true);
      if (object.contains("default")) knob.fallback = reader.whole(object, "default", where, knob.min, knob.max, 0, true);
      manifest.knobs.push_back(std::move(knob));
    }
  }
  if (root.contains("in_all")) {
    if (!root["in_all"].is_boolean()) reader.fail("\"in_all\" is not true or false");
    manifest.in_all = root["in_all"].get<bool>();
  }
  if (!root.contains("variants") || !root["variants"].is_array() || root["variants"].empty())
    reader.fail("\"variants\" must be a non-empty array");
  std::set<std::string> names;
  for (std::size_t i = 0; i < root["variants"].size(); ++i) {
    VariantSpec spec = reader.variant(root["variants"][i], i);
    if (!names.insert(spec.name).second) reader.fail("variant '" + spec.name + "' appears twice");
    manifest.variants.push_back(std::move(spec));
  }
  if (!manifest.find(manifest.baseline)) reader.fail("baseline '" + manifest.baseline + "' is not one of its variants");
  return manifest;
}

std::filesystem::path default_scenario_dir() {
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const auto beside = executable.parent_path() / "roms" / "scenarios";
    if (std::filesystem::is_directory(beside, error)) return beside;
  }
  return X86LAB_BUILT_SCENARIO_DIR;
}

std::vector<std::string> scenario_names(const std::filesystem::path& dir) {
  static const std::vector<std::string> kSeedOrder = {"tls", "ctxsw", "irq"};
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error))
    if (std::filesystem::exists(entry.path() / "variants.json", error)) found.push_back(entry.path().filename().string());
  const auto rank = [](const std::string& name) {
    return std::find(kSeedOrder.begin(), kSeedOrder.end(), name) - kSeedOrder.begin();
  };
  std::sort(found.begin(), found.end(), [&](const std::string& a, const std::string& b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  });
  return found;
}

}  // namespace x86lab
