// The Trace window: the last N trace events, filtered by kind, a LOCK badge on locked
// bus accesses (explicit LOCK and the CPU's implied locks); clicking an instruction
// shows it in Disassembly, clicking a memory access shows its bytes in Memory.
#include <bitset>

#include "cpu/disassembler.h"
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct TraceWindow final : Window {
  TraceWindow() { shown_.set(); }

  void draw(const MachineView& view, CommandQueue&) override {
    // The filters wrap onto as many lines as the window's width needs.
    for (std::size_t kind = 0; kind < kEventKindCount; ++kind) {
      bool on = shown_[kind];
      const std::string label(kEventKindNames[kind]);
      if (kind) same_line_if_fits(checkbox_width(label.c_str()));
      if (ImGui::Checkbox(label.c_str(), &on)) shown_[kind] = on;
    }
    same_line_if_fits(checkbox_width("locked only"));
    ImGui::Checkbox("locked only", &locked_only_);
    std::vector<const Event*> rows;
    for (const Event& event : view.session.trace().events())
      if (shown_[static_cast<std::size_t>(event.kind)] && (!locked_only_ || is_locked_access(event))) rows.push_back(&event);
    if (!ImGui::BeginChild("events", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar)) {
      ImGui::EndChild();
      return;
    }
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(rows.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const Event& event = *rows[static_cast<std::size_t>(i)];
        ImGui::PushID(i);
        if (is_locked_access(event)) {
          badge("LOCK", kLock);
          ImGui::SameLine();
        }
        const std::string text = format_event(event, &instruction_text);
        if (ImGui::Selectable(text.c_str(), false)) jump(view.ui, event);
        ImGui::PopID();
      }
    }
    // New events (or a new filter): keep the newest in view for a few frames, while
    // the clipper learns the list's height.
    if (last_size_ != rows.size() || last_first_ != (rows.empty() ? nullptr : rows.front())) scroll_frames_ = 3;
    if (scroll_frames_ > 0) {
      ImGui::SetScrollHereY(1.0f);
      --scroll_frames_;
    }
    last_size_ = rows.size();
    last_first_ = rows.empty() ? nullptr : rows.front();
    ImGui::EndChild();
  }

 private:
  static void jump(UiState& ui, const Event& event) {
    if (event.kind == EventKind::Instruction) ui.disassembly_at = event.c;
    if (event.kind == EventKind::MemoryAccess) {
      ui.memory_address = event.a;
      ui.memory_physical = false;
      ui.memory_follow = MemoryFollow::Address;
    }
  }

  std::bitset<kEventKindCount> shown_;
  bool locked_only_ = false;
  std::size_t last_size_ = 0;
  const Event* last_first_ = nullptr;
  int scroll_frames_ = 3;
};
}  // namespace

std::unique_ptr<Window> make_trace_window() { return make_window<TraceWindow>("Trace"); }

}  // namespace x86lab::gui
