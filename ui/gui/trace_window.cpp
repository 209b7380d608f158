// The Trace window: the last N trace events, filtered by kind, a LOCK badge on locked
// bus accesses (explicit LOCK and the CPU's implied locks); clicking an instruction
// shows it in Disassembly, clicking a memory access shows its bytes in Memory.
// Lines that do not fit the window's width wrap onto a continuation line (nothing to
// scroll sideways at 1280x800); hovering shows a line whole, right-click copies it.
#include <algorithm>
#include <bitset>

#include <imgui_internal.h>

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
    if (!ImGui::BeginChild("events", ImVec2(0, 0))) {
      ImGui::EndChild();
      return;
    }
    // Two lines an event once an event seen has been wider than the window (every row
    // the same height, as the clipper needs; widest_ only grows, so the layout does not
    // flip while scrolling).
    const float width = ImGui::GetContentRegionAvail().x;
    // Until wider lines are seen: that of a descriptor read, the longest usual line, so
    // that the first frame already has the layout (a screenshot right after `run`).
    if (widest_ == 0)
      widest_ = ImGui::CalcTextSize("#00000 c=000000 mem r descriptor-read lin=00000000 phys=00000000 size=8 "
                                    "value=0000000000000000").x;
    const bool two_lines = widest_ > width;
    const float line = ImGui::GetTextLineHeight();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(rows.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const Event& event = *rows[static_cast<std::size_t>(i)];
        ImGui::PushID(i);
        // A window dump (script `dump`) gets each event as one logical line, not as
        // the two lines it is drawn on: the drawn row is kept out of the log.
        const bool logging = ImGui::GetCurrentContext()->LogEnabled;
        const std::string text = format_event(event, &instruction_text);
        if (logging) {
          ImGui::LogText("%s%s\n", is_locked_access(event) ? "LOCK " : "", text.c_str());
          ImGui::GetCurrentContext()->LogEnabled = false;
        }
        const float start = ImGui::GetCursorPosX();
        if (is_locked_access(event)) {
          badge("LOCK", kLock);
          ImGui::SameLine();
        }
        const float left = std::max(width - (ImGui::GetCursorPosX() - start), 1.0f);
        widest_ = std::max(widest_, ImGui::CalcTextSize(text.c_str()).x + (width - left));
        const std::string label = two_lines ? wrap_in_two(text, left) : text;
        if (ImGui::Selectable(label.c_str(), false, 0, ImVec2(two_lines ? left : 0.0f, two_lines ? 2 * line : 0.0f)))
          jump(view.ui, event);
        if (two_lines && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
        if (ImGui::BeginPopupContextItem("copy")) {
          if (ImGui::MenuItem("Copy line")) ImGui::SetClipboardText(text.c_str());
          ImGui::EndPopup();
        }
        if (logging) ImGui::GetCurrentContext()->LogEnabled = true;
        ImGui::PopID();
      }
    }
    // New events (or a new filter): keep the newest in view for a few frames, while
    // the clipper learns the list's height.
    if (last_size_ != rows.size() || last_first_ != (rows.empty() ? nullptr : rows.front()) ||
        last_two_lines_ != two_lines)
      scroll_frames_ = 3;
    if (scroll_frames_ > 0) {
      ImGui::SetScrollHereY(1.0f);
      --scroll_frames_;
    }
    last_size_ = rows.size();
    last_two_lines_ = two_lines;
    last_first_ = rows.empty() ? nullptr : rows.front();
    ImGui::EndChild();
  }

 private:
  // `text` on two lines of at most `width` pixels: the first ends at the last field (a
  // space) that fits, the rest follows indented, cut short with ".." if still too wide
  // (the tooltip and the copy keep it whole).
  static std::string wrap_in_two(const std::string& text, float width) {
    const auto fits = [&](const std::string& part) { return ImGui::CalcTextSize(part.c_str()).x <= width; };
    if (fits(text)) return text + "\n";
    std::size_t cut = text.find(' ');
    for (std::size_t space = cut; space != std::string::npos; space = text.find(' ', space + 1)) {
      if (!fits(text.substr(0, space))) break;
      cut = space;
    }
    if (cut == std::string::npos) cut = text.size();
    std::string rest = "    " + (cut < text.size() ? text.substr(cut + 1) : std::string());
    if (!fits(rest)) {
      while (rest.size() > 4 && !fits(rest + "..")) rest.pop_back();
      rest += "..";
    }
    return text.substr(0, cut) + "\n" + rest;
  }

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
  float widest_ = 0;  // pixels, the widest event line drawn so far (with its LOCK badge)
  std::size_t last_size_ = 0;
  const Event* last_first_ = nullptr;
  bool last_two_lines_ = false;
  int scroll_frames_ = 3;
};
}  // namespace

std::unique_ptr<Window> make_trace_window() { return make_window<TraceWindow>("Trace"); }

}  // namespace x86lab::gui
