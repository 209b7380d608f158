// The Page walk window: a linear address (typed, or taken from a register) translated
// level by level as the CPU would walk the tables now, beside the TLB's translation.
#include "ui/gui/page_walk_model.h"
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct PageWalkWindow final : Window {
  void draw(const MachineView& view, CommandQueue&) override {
    ImGui::SetNextItemWidth(100);
    if (ImGui::InputText("linear", input_, sizeof input_, ImGuiInputTextFlags_CharsHexadecimal | ImGuiInputTextFlags_EnterReturnsTrue))
      if (auto address = parse_hex(input_)) view.ui.walk_address = *address;
    ImGui::SameLine();
    if (ImGui::SmallButton("EIP")) view.ui.walk_address = view.state.segments[CS].cache.base + view.state.eip;
    ImGui::SameLine();
    if (ImGui::SmallButton("ESP")) view.ui.walk_address = view.state.segments[SS].cache.base + view.state.gpr[ESP];
    ImGui::SameLine();
    if (ImGui::SmallButton("CR2")) view.ui.walk_address = view.state.cr2;
    const PageWalkView walk = walk_page_tables(view.machine.mmu, view.machine.bus, view.ui.walk_address);
    ImGui::Text("linear %08X  CR3 %08X", walk.linear, view.state.cr3);
    if (walk.paging) {
      ImGui::Text("directory %03X  table %03X  offset %03X", walk.linear >> 22, (walk.linear >> 12) & 0x3FF,
                  walk.linear & 0xFFF);
      if (begin_table("walk", 4)) {
        for (const char* heading : {"level", "entry at", "value", "flags"}) ImGui::TableSetupColumn(heading);
        ImGui::TableHeadersRow();
        for (const PageWalkLevel& level : walk.levels) {
          ImGui::TableNextColumn();
          ImGui::Text("%.*s[%03X]", static_cast<int>(level.level.size()), level.level.data(), level.index);
          ImGui::TableNextColumn();
          ImGui::Text("%08X", level.entry_physical);
          ImGui::TableNextColumn();
          ImGui::Text("%08X", level.entry);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(level.flags.c_str());
        }
        ImGui::EndTable();
      }
    }
    if (walk.physical) ImGui::Text("-> physical %08X (%s, %s, %s)", *walk.physical, walk.outcome.c_str(),
                                   walk.user ? "user" : "supervisor", walk.writable ? "writable" : "read-only");
    else text_maybe(true, kStale, "-> %s: an access raises #PF", walk.outcome.c_str());
    if (walk.tlb_physical != walk.physical)
      text_maybe(true, kStale, "TLB translates to %s: the TLB holds a stale entry",
                 walk.tlb_physical ? hex(*walk.tlb_physical, 8).c_str() : "nothing");
  }

 private:
  char input_[12] = "0";
};
}  // namespace

std::unique_ptr<Window> make_page_walk_window() { return make_window<PageWalkWindow>("Page walk"); }

}  // namespace x86lab::gui
