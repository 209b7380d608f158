// The CPU window: general registers, EIP, EFLAGS bit by bit with the SDM's names,
// control and debug registers, CPL and mode; values changed since the last stop in
// the "changed" colour.
#include <cstdio>

#include "ui/gui/cpu_registers_model.h"
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct CpuWindow final : Window {
  void draw(const MachineView& view, CommandQueue&) override {
    const CpuState& now = view.state;
    const CpuState& before = view.previous;
    // EFLAGS's longer name would widen its column of the table: EIP and EFLAGS get a line.
    const std::vector<RegisterValue> general = general_registers(now, before);
    registers("general", {general.begin(), general.end() - 2});
    for (auto r = general.end() - 2; r != general.end(); ++r) {
      if (r != general.end() - 2) ImGui::SameLine();
      text_maybe(r->changed, kChanged, "%.*s %08X", static_cast<int>(r->name.size()), r->name.data(), r->value);
    }
    ImGui::Text("CPL %u  %s", now.cpl,
                !(now.cr0 & cr0::PE) ? "real-address mode" : (now.eflags & (1u << 17)) ? "virtual-8086 mode" : "protected mode");
    bits("EFLAGS", bit_fields(BitRegister::Eflags), now.eflags, before.eflags);
    ImGui::Separator();
    registers("control", control_registers(now, before));
    bits("CR0", bit_fields(BitRegister::Cr0), now.cr0, before.cr0);
    bits("CR4", bit_fields(BitRegister::Cr4), now.cr4, before.cr4);
    ImGui::Text("GDTR %08X/%04X  IDTR %08X/%04X", now.gdtr.base, now.gdtr.limit, now.idtr.base, now.idtr.limit);
    ImGui::Separator();
    registers("debug", debug_registers(now, before));
    // (Wrapped at the window's width: DR7's fields are longer than a narrow window.)
    ImGui::TextWrapped("DR6: %s", describe_bits(bit_fields(BitRegister::Dr6), now.dr[6]).c_str());
    ImGui::TextWrapped("DR7: %s", describe_bits(bit_fields(BitRegister::Dr7), now.dr[7]).c_str());
  }

 private:
  // Registers four to a row ("EAX 00000000"), or two when four do not fit the width.
  static void registers(const char* id, const std::vector<RegisterValue>& values) {
    const float cell = ImGui::CalcTextSize("EAX 00000000").x + 2 * ImGui::GetStyle().CellPadding.x;
    const int columns = ImGui::GetContentRegionAvail().x >= 4 * cell ? 4 : 2;
    if (!ImGui::BeginTable(id, columns, ImGuiTableFlags_SizingFixedFit)) return;
    for (const RegisterValue& r : values) {
      ImGui::TableNextColumn();
      text_maybe(r.changed, kChanged, "%-3.*s %08X", static_cast<int>(r.name.size()), r.name.data(), r.value);
    }
    ImGui::EndTable();
  }

  // One cell per field, set fields bright, changed fields in the "changed" colour;
  // the field's long name as a tooltip.
  static void bits(const char* name, std::span<const BitField> fields, u32 now, u32 before) {
    constexpr float kIndent = 60;
    ImGui::TextUnformatted(name);
    ImGui::SameLine(kIndent);
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    bool first = true;
    for (auto it = fields.rbegin(); it != fields.rend(); ++it) {
      const u32 value = field_value(*it, now);
      const bool changed = value != field_value(*it, before);
      char label[16];
      std::snprintf(label, sizeof label, it->width > 1 ? "%.*s=%u" : "%.*s", static_cast<int>(it->name.size()),
                    it->name.data(), value);
      if (!first) {
        // Wrap under the first field when the next one would not fit.
        if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(label).x <= right) ImGui::SameLine();
        else ImGui::SetCursorPosX(kIndent);
      }
      first = false;
      ImGui::PushStyleColor(ImGuiCol_Text, changed ? kChanged : value ? kSet : kDim);
      ImGui::TextUnformatted(label);
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%.*s (bit %u)", static_cast<int>(it->description.size()), it->description.data(), it->bit);
    }
  }
};
}  // namespace

std::unique_ptr<Window> make_cpu_window() { return make_window<CpuWindow>("CPU"); }

}  // namespace x86lab::gui
