// Scanning the build's scenario manifests for the Scenario launcher and `--scenario`.
#include "ui/gui/scenario_catalog.h"

#include <algorithm>

#include "platform/input_error.h"

namespace x86lab::gui {

ScenarioCatalog ScenarioCatalog::scan(const std::filesystem::path& folder) {
  ScenarioCatalog catalog;
  catalog.folder = folder;
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) {
    catalog.problems.push_back("no scenarios folder '" + folder.string() + "' (build the project first)");
    return catalog;
  }
  std::vector<std::filesystem::path> manifests;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error))
    if (std::filesystem::exists(entry.path() / "variants.json", error)) manifests.push_back(entry.path() / "variants.json");
  std::sort(manifests.begin(), manifests.end());
  for (const auto& path : manifests) {
    try {
      catalog.scenarios.push_back(load_manifest(path));
    } catch (const InputError& problem) {
      catalog.problems.push_back(problem.what());
    }
  }
  return catalog;
}

const ScenarioManifest* ScenarioCatalog::find(std::string_view scenario) const {
  for (const auto& manifest : scenarios)
    if (manifest.scenario == scenario) return &manifest;
  return nullptr;
}

std::filesystem::path default_scenario_folder() { return X86LAB_SCENARIO_DIR; }

}  // namespace x86lab::gui
