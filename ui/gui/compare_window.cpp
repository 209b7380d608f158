// The Compare view: the variants of one scenario run to completion (the scenario
// runner of platform/scenario, on a worker thread), as a table of instructions,
// cycles and cycles relative to the baseline, with the METRIC values, and a latency
// histogram of one SAMPLES series per variant (Boost.Histogram, 32 equal bins over the
// range of all variants' samples).
#include <algorithm>
#include <boost/histogram.hpp>
#include <set>

#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct CompareWindow final : Window {
  void draw(const MachineView& view, CommandQueue&) override {
    const CompareResults& results = view.session.compare();
    if (results.scenario.empty()) {
      ImGui::TextWrapped("No comparison yet: choose \"Compare all variants\" in the Scenario launcher.");
      return;
    }
    if (results.running) {
      ImGui::Text("running the variants of %s...", results.scenario.c_str());
      return;
    }
    if (!results.error.empty()) {
      text_maybe(true, kStale, "%s", results.error.c_str());
      return;
    }
    const ScenarioManifest* manifest = view.session.catalog().find(results.scenario);
    table(results, manifest ? manifest->baseline : "");
    histogram(results);
  }

 private:
  // One column per variant, one row per measure: result, instructions, cycles, cycles
  // relative to the baseline, then the guest's METRIC values.
  static void table(const CompareResults& results, const std::string& baseline) {
    double baseline_cycles = 0;
    std::set<std::string> metrics;
    for (const VariantResult& v : results.variants) {
      if (v.name == baseline) baseline_cycles = static_cast<double>(v.counters.cycles);
      for (const auto& [name, value] : v.metrics) metrics.insert(name);
    }
    const float height = ImGui::GetContentRegionAvail().y * 0.75f;
    if (!ImGui::BeginTable("variants", 1 + static_cast<int>(results.variants.size()),
                           ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                               ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY,
                           ImVec2(0, height)))
      return;
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn("");
    for (const VariantResult& v : results.variants) ImGui::TableSetupColumn(v.name.c_str());
    ImGui::TableHeadersRow();
    auto row = [&](const char* label, auto cell) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(label);
      for (const VariantResult& v : results.variants) {
        ImGui::TableNextColumn();
        cell(v);
      }
    };
    row("result", [](const VariantResult& v) { text_maybe(!v.succeeded, kStale, "%s", v.succeeded ? "ok" : "failed"); });
    row("instructions", [](const VariantResult& v) { ImGui::Text("%llu", static_cast<unsigned long long>(v.counters.instructions)); });
    row("cycles", [](const VariantResult& v) { ImGui::Text("%llu", static_cast<unsigned long long>(v.counters.cycles)); });
    row("cycles / baseline", [&](const VariantResult& v) {
      if (baseline_cycles > 0) ImGui::Text("%.3f", static_cast<double>(v.counters.cycles) / baseline_cycles);
    });
    for (const std::string& name : metrics)
      row(name.c_str(), [&](const VariantResult& v) {
        if (auto it = v.metrics.find(name); it != v.metrics.end()) ImGui::Text("%lld", static_cast<long long>(it->second));
      });
    ImGui::EndTable();
    for (const VariantResult& v : results.variants)
      if (!v.succeeded) text_maybe(true, kStale, "%s: %s", v.name.c_str(), v.failure.c_str());
  }

  void histogram(const CompareResults& results) {
    std::set<std::string> series;
    for (const VariantResult& v : results.variants)
      for (const auto& [name, values] : v.samples) series.insert(name);
    if (series.empty()) {
      ImGui::TextDisabled("no SAMPLES series reported: no latency histogram");
      return;
    }
    if (!series.count(series_)) series_ = *series.begin();
    if (ImGui::BeginCombo("samples", series_.c_str())) {
      for (const std::string& name : series)
        if (ImGui::Selectable(name.c_str(), name == series_)) series_ = name;
      ImGui::EndCombo();
    }
    i64 low = INT64_MAX, high = INT64_MIN;
    for (const VariantResult& v : results.variants)
      if (auto it = v.samples.find(series_); it != v.samples.end())
        for (const i64 value : it->second) low = std::min(low, value), high = std::max(high, value);
    if (low > high) return;
    constexpr unsigned kBins = 32;
    for (const VariantResult& v : results.variants) {
      const auto it = v.samples.find(series_);
      if (it == v.samples.end()) continue;
      auto h = boost::histogram::make_histogram_with(std::vector<std::uint64_t>(),
          boost::histogram::axis::regular<double>(kBins, static_cast<double>(low), static_cast<double>(high) + 1.0));
      for (const i64 value : it->second) h(static_cast<double>(value));
      std::vector<float> bins;
      for (unsigned i = 0; i < kBins; ++i) bins.push_back(static_cast<float>(h.at(static_cast<int>(i))));
      const std::string label = v.name + " (" + std::to_string(it->second.size()) + " samples, " +
                                std::to_string(low) + ".." + std::to_string(high) + ")";
      ImGui::PlotHistogram(label.c_str(), bins.data(), static_cast<int>(bins.size()), 0, nullptr, 0.0f, FLT_MAX,
                           ImVec2(ImGui::GetContentRegionAvail().x * 0.6f, 60));
    }
  }

  std::string series_;
};
}  // namespace

std::unique_ptr<Window> make_compare_window() { return make_window<CompareWindow>("Compare"); }

}  // namespace x86lab::gui
