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
    const bool filter_changed = ImGui::InputText("filter", filter_, sizeof filter_);
    refresh(view.machine, filter_changed);
    if (!begin_table("counters", 2, ImGui::GetContentRegionAvail().y)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("counter");
    ImGui::TableSetupColumn("value");
    ImGui::TableHeadersRow();
    // Only the rows in view are laid out (the list can hold hundreds of I/O ports).
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(rows_.size()));
    while (clipper.Step())
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const Row& row = rows_[static_cast<std::size_t>(i)];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row.name.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row.value.c_str());
      }
    ImGui::EndTable();
  }

 private:
  struct Row {
    std::string name, value;
  };

  // Rebuilds the rows when the counters may have changed: another machine, another
  // instruction or cycle count, another filter. Counters::print writes "name value"
  // lines, the same text as --stats.
  void refresh(const Machine& machine, bool filter_changed) {
    const Counters& counters = machine.counters;
    const u64 cycles = machine.cpu.clock().cycles();
    if (!filter_changed && &machine == machine_ && counters.instructions == instructions_ && cycles == cycles_)
      return;
    machine_ = &machine;
    instructions_ = counters.instructions;
    cycles_ = cycles;
    std::ostringstream text;
    counters.print(text, cycles);
    std::istringstream lines(text.str());
    rows_.clear();
    for (Row row; lines >> row.name >> row.value;)
      if (!filter_[0] || row.name.find(filter_) != std::string::npos) rows_.push_back(row);
  }

  char filter_[32] = "";
  std::vector<Row> rows_;
  const Machine* machine_ = nullptr;
  u64 instructions_ = 0, cycles_ = 0;
};
}  // namespace

std::unique_ptr<Window> make_counters_window() { return make_window<CountersWindow>("Counters"); }

}  // namespace x86lab::gui
