// The Scenario launcher: the design-comparison scenarios of this build (variants.json
// manifests, docs/compare.md) with their variants; Launch restarts the inspector on a
// variant's guest, Compare runs every variant and opens the Compare view.
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct ScenarioWindow final : Window {
  void draw(const MachineView& view, CommandQueue& commands) override {
    const ScenarioCatalog& catalog = view.session.catalog();
    ImGui::TextDisabled("%s", catalog.folder.string().c_str());
    for (const std::string& problem : catalog.problems) text_maybe(true, kStale, "%s", problem.c_str());
    if (catalog.scenarios.empty()) ImGui::TextUnformatted("no scenarios built");
    for (const ScenarioManifest& manifest : catalog.scenarios) {
      ImGui::PushID(manifest.scenario.c_str());
      if (ImGui::TreeNodeEx(manifest.scenario.c_str(), ImGuiTreeNodeFlags_DefaultOpen, "%s: %s",
                            manifest.scenario.c_str(), manifest.title.c_str())) {
        if (ImGui::SmallButton("Compare all variants")) commands.push({CommandKind::RunCompare, 0, false, {}, manifest.scenario});
        for (const VariantSpec& variant : manifest.variants) {
          ImGui::PushID(variant.name.c_str());
          if (ImGui::SmallButton("Launch"))
            commands.push({CommandKind::LaunchVariant, 0, false, {}, manifest.scenario, variant.name});
          ImGui::SameLine();
          text_maybe(view.session.title() == manifest.scenario + "/" + variant.name, kCurrent, "%s%s - %s",
                     variant.name.c_str(), variant.name == manifest.baseline ? " (baseline)" : "",
                     variant.description.c_str());
          ImGui::PopID();
        }
        ImGui::TreePop();
      }
      ImGui::PopID();
    }
  }
};
}  // namespace

std::unique_ptr<Window> make_scenario_window() { return make_window<ScenarioWindow>("Scenario launcher"); }

}  // namespace x86lab::gui
