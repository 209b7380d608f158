// The Descriptor tables window: GDT, LDT and IDT entries decoded with the SDM's type
// names and gate targets; Accessed and Busy bits as badges; the entries the last
// instruction read or wrote (descriptor loads, gate reads, Accessed/Busy-bit locked
// writes, from the trace) marked ">" on a yellow row. In real-address mode the CPU uses
// no descriptor table: the GDT tab says so (the table GDTR names can still be shown,
// for a GDT prepared before the switch) and the IDT tab is the interrupt vector table.
#include "ui/gui/descriptor_model.h"
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct DescriptorTablesWindow final : Window {
  void draw(const MachineView& view, CommandQueue&) override {
    const CpuState& s = view.state;
    if (!ImGui::BeginTabBar("tables")) return;
    const bool real_mode = !(s.cr0 & cr0::PE);
    if (ImGui::BeginTabItem("GDT")) {
      ImGui::Text("GDTR base %08X limit %04X", s.gdtr.base, s.gdtr.limit);
      if (real_mode) {
        ImGui::TextWrapped("Real-address mode (CR0.PE = 0): segment registers hold paragraph numbers (base = "
                           "selector x 16) and no descriptor table is used; GDTR is read when CR0.PE is set.");
        ImGui::Checkbox("decode the table GDTR names anyway", &show_real_mode_gdt_);
      }
      if (!real_mode || show_real_mode_gdt_) table(view, s.gdtr.base, s.gdtr.limit, false);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("LDT")) {
      if (Selector{s.ldtr.selector}.null() || !s.ldtr.cache.usable) {
        ImGui::TextUnformatted("LDTR holds a null selector: no LDT");
      } else {
        ImGui::Text("LDTR %04X: base %08X limit %08X", s.ldtr.selector, s.ldtr.cache.base, s.ldtr.cache.limit);
        table(view, s.ldtr.cache.base, s.ldtr.cache.limit, false);
      }
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem(real_mode ? "IVT###IDT" : "IDT###IDT")) {
      if (real_mode) {
        ImGui::Text("IDTR base %08X limit %04X: real-address mode, 4-byte vectors segment:offset", s.idtr.base,
                    s.idtr.limit);
        ivt(view, s.idtr.base, s.idtr.limit);
      } else {
        ImGui::Text("IDTR base %08X limit %04X", s.idtr.base, s.idtr.limit);
        table(view, s.idtr.base, s.idtr.limit, true);
      }
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }

 private:
  bool show_real_mode_gdt_ = false;

  static void ivt(const MachineView& view, u32 base, u32 limit) {
    if (!begin_table("vectors", 3, ImGui::GetContentRegionAvail().y)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* heading : {"  vector", "segment:offset", "handler (linear)"}) ImGui::TableSetupColumn(heading);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(ivt_entries(limit)));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const IvtRow row = read_ivt_row(view.machine.mmu, base, static_cast<u32>(i));
        const bool touched = view.session.trace().last_instruction_touched(row.linear, 4);
        ImGui::TableNextRow();
        if (touched) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImVec4(0.35f, 0.32f, 0.1f, 1.0f)));
        ImGui::TableNextColumn();
        text_maybe(touched, kCurrent, "%s%3u %02Xh", touched ? "> " : "  ", row.vector, row.vector);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("linear %08X", row.linear);
        ImGui::TableNextColumn();
        if (!row.mapped) {
          ImGui::TextDisabled("(not mapped)");
          continue;
        }
        ImGui::Text("%04X:%04X", row.segment, row.offset);
        ImGui::TableNextColumn();
        ImGui::Text("%05X", row.handler());
      }
    }
    ImGui::EndTable();
  }

  // One row an entry; in a window narrower than a row's widest line (84 characters:
  // the tiled layouts at 1280x800 and 1600x1000) the detail goes under the type, two lines an entry
  // (every row, so that the clipper's rows stay alike), instead of scrolling sideways.
  static void table(const MachineView& view, u32 base, u32 limit, bool idt) {
    const u32 entries = table_entries(limit);
    const bool stacked = ImGui::GetContentRegionAvail().x < 84 * ImGui::CalcTextSize("0").x;
    if (!begin_table("entries", stacked ? 3 : 4, ImGui::GetContentRegionAvail().y)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn(idt ? "  vector" : "  sel");
    ImGui::TableSetupColumn(stacked ? "type, detail" : "type");
    ImGui::TableSetupColumn("A/B");
    if (!stacked) ImGui::TableSetupColumn("detail");
    ImGui::TableHeadersRow();
    const auto second_line = [stacked] {
      if (stacked) ImGui::TextUnformatted("");
    };
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(entries));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const DescriptorRow row = read_descriptor_row(view.machine.mmu, base, static_cast<u32>(i));
        // The entries the last instruction (or delivery) read or wrote.
        const bool touched = view.session.trace().last_instruction_touched(row.linear, 8);
        ImGui::TableNextRow();
        if (touched) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImVec4(0.35f, 0.32f, 0.1f, 1.0f)));
        ImGui::TableNextColumn();
        if (idt) text_maybe(touched, kCurrent, "%s%3u", touched ? "> " : "  ", row.index);
        else text_maybe(touched, kCurrent, "%s%04X", touched ? "> " : "  ", row.index * 8);
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("linear %08X: %016llX%s", row.linear, static_cast<unsigned long long>(row.raw),
                            touched ? " (touched by the last instruction)" : "");
        ImGui::TableNextColumn();
        if (!row.mapped) {
          ImGui::TextDisabled("(not mapped)");
          second_line();
          continue;
        }
        if (row.raw == 0) {
          ImGui::TextDisabled(row.index == 0 && !idt ? "null descriptor" : "empty");
          second_line();
          continue;
        }
        text_maybe(!row.descriptor.present, kDim, "%s", row.type_name.c_str());
        if (stacked) ImGui::TextUnformatted(row.summary.c_str());
        ImGui::TableNextColumn();
        if (row.accessed) badge("A", kSet);
        if (row.busy) badge("B", kSet);
        if (stacked) continue;
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row.summary.c_str());
      }
    }
    ImGui::EndTable();
  }
};
}  // namespace

std::unique_ptr<Window> make_descriptor_tables_window() { return make_window<DescriptorTablesWindow>("Descriptor tables"); }

}  // namespace x86lab::gui
