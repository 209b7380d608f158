// The Counters window: every non-zero counter of the machine (trace/counters.h), live
// while the guest runs, with a filter; the names are those of `x86lab run --stats`.
#include <sstream>

#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct CountersWindow final : Window {
  void draw(const MachineView& view, CommandQueue&) override {
    ImGui::SetNextItemWidth(160);
    ImGui::InputText("filter", filter_, sizeof filter_);
    // Counters::print writes "name value" lines, the same text as --stats.
    std::ostringstream text;
    view.machine.counters.print(text);
    if (!begin_table("counters", 2, ImGui::GetContentRegionAvail().y)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("counter");
    ImGui::TableSetupColumn("value");
    ImGui::TableHeadersRow();
    std::istringstream lines(text.str());
    std::string name, value;
    while (lines >> name >> value) {
      if (filter_[0] && name.find(filter_) == std::string::npos) continue;
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(value.c_str());
    }
    ImGui::EndTable();
  }

 private:
  char filter_[32] = "";
};
}  // namespace

std::unique_ptr<Window> make_counters_window() { return make_window<CountersWindow>("Counters"); }

}  // namespace x86lab::gui
