// The Compare view: the variants of one scenario run to completion (the scenario
// runner of platform/scenario, on a worker thread), as the comparison table of
// `x86lab compare` (platform/scenario/comparison.h: counters, METRIC and SAMPLES rows,
// ratios to the baseline), and a latency histogram of one SAMPLES series per variant
// (Boost.Histogram, 32 equal bins over the range of all variants' samples).
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
    table(results);
    histogram(results);
  }

 private:
  // One column per variant, one row per metric of the comparison table that
  // `x86lab compare` prints (platform/scenario/comparison.h): counters, the guest's
  // METRIC values and SAMPLES statistics, with the ratio to the baseline on headline rows.
  static void table(const CompareResults& results) {
    if (!results.table) return;
    const ScenarioComparison& c = *results.table;
    const float height = ImGui::GetContentRegionAvail().y * 0.75f;
    if (!ImGui::BeginTable("variants", 1 + static_cast<int>(c.variants.size()),
                           ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                               ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY,
                           ImVec2(0, height)))
      return;
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn("metric");
    for (std::size_t v = 0; v < c.variants.size(); ++v) {
      const std::string& name = c.variants[v]->name;
      ImGui::TableSetupColumn(c.baseline == v ? (name + " (baseline)").c_str() : name.c_str());
    }
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted("result");
    for (const VariantResult* result : c.results) {
      ImGui::TableNextColumn();
      text_maybe(!result->succeeded, kStale, "%s", result->succeeded ? "ok" : "failed");
    }
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(c.rows.size()));
    while (clipper.Step())
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const MetricRow& row = c.rows[static_cast<std::size_t>(i)];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row.label.c_str());
        for (std::size_t v = 0; v < row.values.size(); ++v) {
          ImGui::TableNextColumn();
          if (!row.values[v]) continue;
          std::string text = format_value(*row.values[v]);
          if (const auto ratio = c.ratio(row, v); row.headline && ratio && c.baseline != v)
            text += "  x" + format_ratio(*ratio);
          ImGui::TextUnformatted(text.c_str());
        }
      }
    ImGui::EndTable();
    for (const VariantResult* result : c.results)
      if (!result->succeeded) text_maybe(true, kStale, "%s: %s", result->name.c_str(), result->failure.c_str());
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
