// The Breakpoints window: every breakpoint of the debugger (code, event and watchpoint;
// those gdb set too, it drives the same debugger) with its hits, an enable box and a
// remove button, and a line to add one in the notation of gdb's `monitor break-on`
// (platform/debugger/breakpoint_spec.h), with examples to start from.
#include "platform/debugger/breakpoint_spec.h"
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

#include <algorithm>
#include <cstdio>

namespace x86lab::gui {

namespace {
// What the examples menu puts on the line.
constexpr const char* kExamples[] = {
    "code 0x100000",        "vector 13",       "vector 32 47",        "fault",           "lock accessed-bit",
    "lock tss-busy-bit",    "lock page-table-ad", "load ss",          "selector 0x2b",   "write gdt",
    "write idt 14",         "io 0x60 0x64",    "watch 0x1000 4 w",    "phys 0xb8000 2 w", "vector 14 if cpl==3",
};

struct BreakpointsWindow final : Window {
  void draw(const MachineView& view, CommandQueue& commands) override {
    ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x - button_width("Add") -
                                                 button_width("Examples") - 2 * ImGui::GetStyle().ItemSpacing.x));
    const bool entered = ImGui::InputTextWithHint("##spec", "vector 13, io 0x60, lock accessed-bit ...", spec_,
                                                  sizeof spec_, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if ((ImGui::Button("Add") || entered) && spec_[0]) {
      commands.push({CommandKind::AddBreakpoint, 0, false, {}, spec_});
      spec_[0] = 0;
    }
    ImGui::SameLine();
    if (ImGui::Button("Examples")) ImGui::OpenPopup("examples");
    if (ImGui::BeginPopup("examples")) {
      for (const char* example : kExamples)
        if (ImGui::Selectable(example)) std::snprintf(spec_, sizeof spec_, "%s", example);
      ImGui::EndPopup();
    }
    const auto all = view.session.debugger().breakpoints().all();
    if (all.empty()) {
      ImGui::TextDisabled("no breakpoints (F9 or a click in Disassembly sets a code breakpoint)");
      return;
    }
    // The description takes the width left and wraps there: nothing to scroll sideways.
    constexpr ImGuiTableFlags kFlags =
        ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY;
    if (!ImGui::BeginTable("breakpoints", 4, kFlags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("on");
    ImGui::TableSetupColumn("breakpoint", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("hits");
    ImGui::TableSetupColumn("");
    ImGui::TableHeadersRow();
    const StopInfo& stop = view.session.debugger().last_stop();
    for (const Breakpoint& b : all) {
      ImGui::TableNextRow();
      if (stop.hit && stop.hit->id == b.id && view.run_state == RunState::Paused)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImVec4(0.35f, 0.32f, 0.1f, 1.0f)));
      ImGui::PushID(static_cast<int>(b.id));
      ImGui::TableNextColumn();
      bool enabled = b.enabled;
      if (ImGui::Checkbox("##on", &enabled)) commands.push({CommandKind::EnableBreakpoint, b.id, enabled});
      ImGui::TableNextColumn();
      // describe() ends in " (hits N)", which has its own column.
      std::string text = b.describe();
      if (const auto hits = text.rfind(" (hits "); hits != std::string::npos) text.erase(hits);
      if (!b.enabled) ImGui::PushStyleColor(ImGuiCol_Text, kDim);
      ImGui::TextWrapped("%s", text.c_str());
      if (!b.enabled) ImGui::PopStyleColor();
      ImGui::TableNextColumn();
      ImGui::Text("%llu", static_cast<unsigned long long>(b.hits));
      ImGui::TableNextColumn();
      if (ImGui::SmallButton("remove")) commands.push({CommandKind::RemoveBreakpoint, b.id});
      ImGui::PopID();
    }
    ImGui::EndTable();
  }

 private:
  char spec_[128] = "";
};
}  // namespace

std::unique_ptr<Window> make_breakpoints_window() { return make_window<BreakpointsWindow>("Breakpoints"); }

}  // namespace x86lab::gui
