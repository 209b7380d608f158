// The Serial console window: COM1 output with an input line (bytes go to the guest's
// receiver), and the debug console (port E9h) output; the tab that receives output
// comes to the front.
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct SerialWindow final : Window {
  void draw(const MachineView& view, CommandQueue& commands) override {
    const std::string_view com1 = view.session.serial().output();
    const std::string_view e9 = view.session.debug_console();
    // The console that has just received output comes to the front (the demos and
    // scenarios print on port E9h only); a console that shrank belongs to a new machine.
    Console select = Console::None;
    if (e9.size() > e9_.shown) select = Console::DebugConsole;
    if (com1.size() > com1_.shown) select = Console::Com1;  // both grew: COM1, where the user types
    if (!ImGui::BeginTabBar("consoles")) return;
    if (ImGui::BeginTabItem("COM1", nullptr, select == Console::Com1 ? ImGuiTabItemFlags_SetSelected : 0)) {
      ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 120);
      if (ImGui::InputText("##input", input_, sizeof input_, ImGuiInputTextFlags_EnterReturnsTrue)) send(commands);
      ImGui::SameLine();
      if (ImGui::Button("Send (Enter)")) send(commands);
      output("com1", com1, com1_);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Debug console (E9h)", nullptr, select == Console::DebugConsole ? ImGuiTabItemFlags_SetSelected : 0)) {
      output("e9", e9, e9_);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
    com1_.shown = com1.size();
    e9_.shown = e9.size();
  }

 private:
  enum class Console : u8 { None, Com1, DebugConsole };
  struct Shown {
    std::size_t shown = 0;    // output size at the last frame
    std::size_t scrolled = 0; // output size when the tab last scrolled to its end
  };

  void send(CommandQueue& commands) {
    commands.push({CommandKind::SerialInput, 0, false, {}, std::string(input_) + "\r"});
    input_[0] = 0;
  }

  // The text, scrolled to its end when it grows.
  static void output(const char* id, std::string_view text, Shown& shown) {
    ImGui::BeginChild(id, ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted(text.data(), text.data() + text.size());
    if (text.size() != shown.scrolled) ImGui::SetScrollHereY(1.0f);
    shown.scrolled = text.size();
    ImGui::EndChild();
  }

  char input_[256] = "";
  Shown com1_, e9_;
};
}  // namespace

std::unique_ptr<Window> make_serial_window() { return make_window<SerialWindow>("Serial console"); }

}  // namespace x86lab::gui
