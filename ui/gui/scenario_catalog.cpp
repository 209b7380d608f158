// Scanning the build's scenario manifests for the Scenario launcher and `--scenario`.
#include "ui/gui/scenario_catalog.h"

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
  for (const std::string& name : scenario_names(folder)) {
    try {
      catalog.scenarios.push_back(load_manifest(folder / name / "variants.json"));
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

}  // namespace x86lab::gui
