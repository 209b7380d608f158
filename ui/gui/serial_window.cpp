// The Serial console window: COM1 output with an input line (bytes go to the guest's
// receiver), and the debug console (port E9h) output.
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct SerialWindow final : Window {
  void draw(const MachineView& view, CommandQueue& commands) override {
    if (!ImGui::BeginTabBar("consoles")) return;
    if (ImGui::BeginTabItem("COM1")) {
      ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 120);
      if (ImGui::InputText("##input", input_, sizeof input_, ImGuiInputTextFlags_EnterReturnsTrue)) send(commands);
      ImGui::SameLine();
      if (ImGui::Button("Send (Enter)")) send(commands);
      output("com1", view.session.serial().output());
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Debug console (E9h)")) {
      output("e9", view.session.debug_console());
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }

 private:
  void send(CommandQueue& commands) {
    commands.push({CommandKind::SerialInput, 0, false, {}, std::string(input_) + "\r"});
    input_[0] = 0;
  }

  // The text, scrolled to its end when it grows.
  void output(const char* id, std::string_view text) {
    ImGui::BeginChild(id, ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted(text.data(), text.data() + text.size());
    if (text.size() != shown_) ImGui::SetScrollHereY(1.0f);
    shown_ = text.size();
    ImGui::EndChild();
  }

  char input_[256] = "";
  std::size_t shown_ = 0;
};
}  // namespace

std::unique_ptr<Window> make_serial_window() { return make_window<SerialWindow>("Serial console"); }

}  // namespace x86lab::gui
