// The Timeline window (timeline.h, docs/gui.md "Going back"): the run's steps as a bar
// with the current step and marks at faults, task switches and mode changes (a click
// goes to that step: Debugger::go_to_step on the snapshot history), and saving or
// loading a snapshot file.
#include <algorithm>
#include <cmath>

#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct TimelineWindow final : Window {
  void draw(const MachineView& view, CommandQueue& commands) override {
    const bool paused = view.run_state == RunState::Paused;
    const bool moving = view.run_state == RunState::Running || view.run_state == RunState::Busy;
    timeline(view, commands, paused && view.session.snapshot_history());
    snapshot_file(commands, !moving);
  }

 private:
  // A bar from step 0 to the furthest step reached: the current step as a yellow line,
  // faults red, task switches magenta, mode changes green; a click goes to that step.
  static void timeline(const MachineView& view, CommandQueue& commands, bool enabled) {
    const Timeline& line = view.session.timeline();
    const u64 now = view.machine.cpu.steps();
    const u64 end = std::max<u64>({line.furthest, now, 1});
    std::size_t counts[3] = {};
    for (const TimelineMark& mark : line.marks) ++counts[static_cast<int>(mark.kind)];
    const SnapshotHistory* history = view.session.snapshot_history();
    ImGui::TextWrapped("step %llu of %llu  marks: %zu faults, %zu task switches, %zu mode changes%s",
                static_cast<unsigned long long>(now), static_cast<unsigned long long>(end), counts[0], counts[1],
                counts[2], history ? "" : "  (no history: --history-mib 0)");
    const float width = std::max(ImGui::GetContentRegionAvail().x, 50.0f), height = 18.0f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("timeline", ImVec2(width, height));
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), IM_COL32(60, 60, 70, 255));
    const auto x_of = [&](u64 step) { return origin.x + width * static_cast<float>(static_cast<double>(step) / static_cast<double>(end)); };
    if (history && !history->empty())  // the span going back can reach
      draw->AddRectFilled(ImVec2(x_of(history->first_step()), origin.y + height - 3), ImVec2(origin.x + width, origin.y + height),
                          IM_COL32(110, 110, 130, 255));
    static const ImU32 kColours[3] = {IM_COL32(255, 90, 90, 255), IM_COL32(240, 100, 240, 255), IM_COL32(110, 220, 110, 255)};
    for (const TimelineMark& mark : line.marks) {
      const float x = x_of(mark.step);
      draw->AddLine(ImVec2(x, origin.y + 2), ImVec2(x, origin.y + height - 4), kColours[static_cast<int>(mark.kind)]);
    }
    const float x_now = x_of(now);
    draw->AddLine(ImVec2(x_now, origin.y), ImVec2(x_now, origin.y + height), IM_COL32(240, 230, 90, 255), 2.0f);
    if (!ImGui::IsItemHovered()) return;
    const double fraction = std::clamp((ImGui::GetIO().MousePos.x - origin.x) / width, 0.0f, 1.0f);
    u64 target = static_cast<u64>(fraction * static_cast<double>(end) + 0.5);
    // A click within 3 pixels of a mark goes to the mark's step exactly.
    for (const TimelineMark& mark : line.marks)
      if (std::abs(x_of(mark.step) - ImGui::GetIO().MousePos.x) <= 3.0f) target = mark.step;
    ImGui::SetTooltip("step %llu", static_cast<unsigned long long>(target));
    if (enabled && ImGui::IsItemClicked()) commands.push({.kind = CommandKind::GoToStep, .steps = target});
  }

  void snapshot_file(CommandQueue& commands, bool enabled) {
    ImGui::SetNextItemWidth(std::max(ImGui::GetContentRegionAvail().x - button_width("Save") - button_width("Load") - 20.0f, 80.0f));
    ImGui::InputText("##snapshot", path_, sizeof path_);
    ImGui::SameLine();
    if (button_if("Save", enabled && path_[0])) commands.push({.kind = CommandKind::SaveSnapshot, .text = path_});
    ImGui::SameLine();
    if (button_if("Load", enabled && path_[0])) commands.push({.kind = CommandKind::LoadSnapshot, .text = path_});
  }

  char path_[512] = "x86lab.snapshot";

};
}  // namespace

std::unique_ptr<Window> make_timeline_window() { return make_window<TimelineWindow>("Timeline"); }

}  // namespace x86lab::gui
