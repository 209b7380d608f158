// The Scenario launcher's list: every <dir>/<scenario>/variants.json under the
// scenarios folder of the build (roms/scenarios/, docs/compare.md), read with the
// scenario manifest reader of platform/scenario.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "platform/scenario/manifest.h"

namespace x86lab::gui {

struct ScenarioCatalog {
  std::filesystem::path folder;              // where the scenarios were looked for
  std::vector<ScenarioManifest> scenarios;   // readable manifests, by scenario name
  std::vector<std::string> problems;         // one line per unreadable manifest

  // Reads every variants.json one level below `folder` (scenario_names' order; a
  // missing folder gives an empty catalog with one problem line).
  static ScenarioCatalog scan(const std::filesystem::path& folder);
  const ScenarioManifest* find(std::string_view scenario) const;
};

}  // namespace x86lab::gui
