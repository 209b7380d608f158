// The Control window: run, pause, step into/over/out, step back, run back and restart
// buttons (the same commands as F5, F11, F10, Shift+F11, F7, Shift+F5 and Ctrl+R), the
// reason of the last stop (the Timeline window goes to any step, docs/gui.md "Going back").
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct ControlWindow final : Window {
  void draw(const MachineView& view, CommandQueue& commands) override {
    const bool paused = view.run_state == RunState::Paused;
    const bool moving = view.run_state == RunState::Running || view.run_state == RunState::Busy;
    if (moving) {
      if (ImGui::Button("Pause F5")) commands.push({CommandKind::Pause});
    } else if (button_if("Run F5", paused)) {
      commands.push({CommandKind::Run});
    }
    // The buttons wrap when the window is narrow.
    if (wrapped_button("Step F11", paused)) commands.push({CommandKind::StepInto});
    if (wrapped_button("Over F10", paused)) commands.push({CommandKind::StepOver});
    if (wrapped_button("Out Shift+F11", paused)) commands.push({CommandKind::StepOut});
    const bool history = view.session.snapshot_history() != nullptr;
    if (wrapped_button("Back F7", paused && history)) commands.push({CommandKind::StepBack});
    if (wrapped_button("Run back Shift+F5", paused && history)) commands.push({CommandKind::RunBack});
    if (wrapped_button("Restart Ctrl+R", !moving)) commands.push({CommandKind::Restart});
    ImGui::TextUnformatted(view.session.title().c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, view.run_state == RunState::Ended ? kStale : ImGui::GetStyleColorVec4(ImGuiCol_Text));
    ImGui::TextWrapped("%s", view.session.status().c_str());
    ImGui::PopStyleColor();
    if (!view.session.message().empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, kStale);
      ImGui::TextWrapped("%s", view.session.message().c_str());
      ImGui::PopStyleColor();
    }
    const Counters& counters = view.machine.counters;
    ImGui::Text("CS:EIP %04X:%08X  instructions %llu  cycles %llu", view.state.segments[CS].selector, view.state.eip,
                static_cast<unsigned long long>(counters.instructions), static_cast<unsigned long long>(view.machine.cpu.clock().cycles()));
  }

 private:
  static bool wrapped_button(const char* label, bool enabled) {
    same_line_if_fits(button_width(label));
    return button_if(label, enabled);
  }
};
}  // namespace

std::unique_ptr<Window> make_control_window() { return make_window<ControlWindow>("Control"); }

}  // namespace x86lab::gui
