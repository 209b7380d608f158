// The TSS window: the task register's TSS decoded field by field (32-bit TSS, SDM
// "32-Bit Task-State Segment (TSS)"), with the TSS descriptor's Busy bit, read by peek.
#include "segmentation/system_segments.h"
#include "ui/gui/descriptor_model.h"
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
struct TssWindow final : Window {
  void draw(const MachineView& view, CommandQueue&) override {
    const SegmentRegister& tr = view.state.tr;
    if (Selector{tr.selector}.null()) {
      ImGui::TextUnformatted("TR holds a null selector: no task has been loaded (LTR)");
      return;
    }
    ImGui::Text("TR %04X: base %08X limit %08X", tr.selector, tr.cache.base, tr.cache.limit);
    const DescriptorRow entry = read_descriptor_row(view.machine.mmu, view.state.gdtr.base, Selector{tr.selector}.index());
    if (entry.mapped) {
      ImGui::SameLine();
      ImGui::Text(" GDT: %s", entry.type_name.c_str());
      ImGui::SameLine();
      if (entry.busy) badge("Busy", kSet);
      else badge("available", kDim);
    }
    if (!(tr.cache.type & 8)) {
      ImGui::TextUnformatted("16-bit TSS: fields are not decoded here");
      return;
    }
    const auto tss = read_tss32(view.machine.mmu, tr.cache.base);
    if (!tss) {
      ImGui::TextUnformatted("the TSS is not mapped");
      return;
    }
    if (!begin_table("tss", 4)) return;
    auto cell = [](const char* name, u32 value, int digits) {
      ImGui::TableNextColumn();
      ImGui::Text("%-7s %s", name, hex(value, digits).c_str());
    };
    cell("link", tss->previous_task_link, 4);
    cell("CR3", tss->cr3, 8);
    cell("EIP", tss->eip, 8);
    cell("EFLAGS", tss->eflags, 8);
    static constexpr const char* kStack[3][2] = {{"SS0", "ESP0"}, {"SS1", "ESP1"}, {"SS2", "ESP2"}};
    for (unsigned ring = 0; ring < 3; ++ring) {
      cell(kStack[ring][0], tss->ss[ring], 4);
      cell(kStack[ring][1], tss->esp[ring], 8);
    }
    cell("LDT", tss->ldt, 4);
    cell("I/O map", tss->io_map_base, 4);
    static constexpr const char* kGpr[8] = {"EAX", "ECX", "EDX", "EBX", "ESP", "EBP", "ESI", "EDI"};
    for (unsigned i = 0; i < 8; ++i) cell(kGpr[i], tss->gpr[i], 8);
    static constexpr const char* kSeg[6] = {"ES", "CS", "SS", "DS", "FS", "GS"};
    for (unsigned i = 0; i < 6; ++i) cell(kSeg[i], tss->segments[i], 4);
    cell("T", tss->t, 1);
    ImGui::EndTable();
  }
};
}  // namespace

std::unique_ptr<Window> make_tss_window() { return make_window<TssWindow>("TSS"); }

}  // namespace x86lab::gui
