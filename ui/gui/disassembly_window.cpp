// The Disassembly window: instructions around EIP (cpu/disassembler.h text), symbols from an ELF
// as labels, code breakpoints as red dots; code that ran in the other code size (the
// trace saw it) is decoded and addressed as it ran. Clicking the gutter toggles a breakpoint;
// clicking a line selects it for F9.
#include "ui/gui/disassembly_model.h"
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
const ImVec4 kBreakpoint{0.95f, 0.25f, 0.25f, 1.0f};

struct DisassemblyWindow final : Window {
  void draw(const MachineView& view, CommandQueue& commands) override {
    const CpuState& s = view.state;
    const u32 cs_base = s.segments[CS].cache.base;
    const bool code32 = code_is_32bit(s);
    const u32 eip = view.ui.disassembly_at.value_or(cs_base + s.eip) - cs_base;
    if (view.ui.disassembly_at) {
      ImGui::Text("at %08X (from the Trace window)", *view.ui.disassembly_at);
      ImGui::SameLine();
      if (ImGui::SmallButton("back to EIP")) view.ui.disassembly_at.reset();
    }
    const ExecutedCode executed = view.session.trace().executed_code();
    const auto lines = disassemble_around(view.machine.mmu, cs_base, eip, code32, 8, 24, &view.session.symbols(), &executed,
                                          s.segments[CS].selector);
    if (!ImGui::BeginTable("code", 4, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) return;
    for (const DisassemblyLine& line : lines) {
      if (!line.label.empty()) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(1);
        text_maybe(true, kSet, "%s:", line.label.c_str());
      }
      ImGui::TableNextRow();
      const bool at_eip = line.linear == cs_base + s.eip;
      const bool selected = view.ui.selected_linear == line.linear;
      if (at_eip) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImVec4(0.35f, 0.32f, 0.1f, 1.0f)));
      else if (selected) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImGuiCol_Header));
      ImGui::TableNextColumn();
      ImGui::PushID(static_cast<int>(line.linear));
      const bool has_breakpoint = view.session.breakpoint_at(line.linear) != 0;
      ImGui::PushStyleColor(ImGuiCol_Text, has_breakpoint ? kBreakpoint : kDim);
      if (ImGui::Selectable(has_breakpoint ? "(*)" : " . ", false, 0, ImVec2(22, 0)))
        commands.push({CommandKind::ToggleBreakpoint, line.linear});
      ImGui::PopStyleColor();
      ImGui::TableNextColumn();
      char address[24];
      std::snprintf(address, sizeof address, line.code32 ? "%04X:%08X" : "%04X:%04X",
                    line.ran_cs.value_or(s.segments[CS].selector), line.offset);
      if (ImGui::Selectable(address, selected, ImGuiSelectableFlags_SpanAllColumns)) view.ui.selected_linear = line.linear;
      ImGui::PopID();
      ImGui::TableNextColumn();
      std::string bytes;
      for (unsigned i = 0; i < line.length && i < 8; ++i) bytes += hex(line.bytes[i], 2);
      if (line.length > 8) bytes += "..";
      ImGui::TextDisabled("%s", bytes.c_str());
      ImGui::TableNextColumn();
      text_maybe(at_eip, kCurrent, "%s%s%s", line.text.c_str(), line.target.empty() ? "" : "  ; ", line.target.c_str());
      if (line.code32 != code32) {
        ImGui::SameLine();
        ImGui::TextDisabled(line.code32 ? "[ran 32-bit]" : "[ran 16-bit]");
      }
    }
    ImGui::EndTable();
  }
};
}  // namespace

std::unique_ptr<Window> make_disassembly_window() { return make_window<DisassemblyWindow>("Disassembly"); }

}  // namespace x86lab::gui
