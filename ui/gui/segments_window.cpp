// The Segments window: for CS DS ES FS GS SS LDTR TR the selector decoded as
// index/TI/RPL, and two rows: the hidden descriptor cache, and the table entry the
// selector names now (or the real-mode form). Cached fields that differ from the entry
// are red and the register is marked "stale": a reload would change them.
#include "ui/gui/descriptor_model.h"
#include "ui/gui/segment_model.h"
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

#include <algorithm>

namespace x86lab::gui {

namespace {
// Where the entry row comes from: a short word in the narrow state column, and its
// meaning for the tooltip.
const char* source_text(SegmentSource source) {
  switch (source) {
    case SegmentSource::Table: return "table";
    case SegmentSource::RealMode: return "sel*16";
    case SegmentSource::NullSelector: return "null sel";
    case SegmentSource::OutsideTable: return "past limit";
    case SegmentSource::NotMapped: return "unmapped";
  }
  return "?";
}
const char* source_meaning(SegmentSource source) {
  switch (source) {
    case SegmentSource::Table: return "the descriptor table entry the selector names";
    case SegmentSource::RealMode: return "real-address or virtual-8086 mode: base = selector x 16";
    case SegmentSource::NullSelector: return "a null selector names no entry";
    case SegmentSource::OutsideTable: return "the selector's index is outside the table's limit";
    case SegmentSource::NotMapped: return "the entry's linear address is not mapped";
  }
  return "?";
}

struct SegmentsWindow final : Window {
  void draw(const MachineView& view, CommandQueue&) override {
    const auto rows = inspect_segments(view.machine.mmu, view.state);
    // Two rows a register: the cache ("cache" in the state column), then the entry (its
    // source there). About 400 pixels wide with narrow cell padding, so that it fits the
    // tiled layout at 1280x800 (a narrower window scrolls it sideways).
    ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(2, ImGui::GetStyle().CellPadding.y));
    const bool shown = begin_table("segments", 11, ImGui::GetContentRegionAvail().y);
    ImGui::PopStyleVar();
    if (!shown) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const char* heading : {"reg", "selector", "state", "base", "limit", "type", "DPL", "D/B", "G", "P", "A"})
      ImGui::TableSetupColumn(heading);
    ImGui::TableHeadersRow();
    for (const SegmentInspection& row : rows) {
      const bool changed = selector_changed(view, row.name);
      // The cache row.
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      text_maybe(changed, kChanged, "%.*s", static_cast<int>(row.name.size()), row.name.data());
      ImGui::TableNextColumn();
      text_maybe(changed, kChanged, "%04X", row.selector);
      if (ImGui::IsItemHovered()) {
        if (row.source == SegmentSource::RealMode)
          ImGui::SetTooltip("%s: a paragraph number, base = %04Xh x 16 = %05Xh", row.virtual_8086 ? "virtual-8086 mode" : "real-address mode",
                            row.selector, u32{row.selector} << 4);
        else
          ImGui::SetTooltip("index %u, TI %u (%s), RPL %u", row.index, row.ti, row.ti ? "LDT" : "GDT", row.rpl);
      }
      const DescriptorCache& c = row.cache;
      ImGui::TableNextColumn();  // state first: in view in a narrow window
      if (row.stale()) badge("stale", kStale);
      else if (row.source == SegmentSource::NullSelector) ImGui::TextUnformatted(c.usable ? "null" : "unusable");
      else ImGui::TextUnformatted("cache");
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("the descriptor cache%s", row.stale() ? ": differs from the entry (red), a reload would change it"
                                                    : c.usable ? "" : " (null selector, unusable)");
      fields(row, c.base, c.limit, c.type, c.s, c.dpl, c.db, c.g, c.present, true);
      // The entry row.
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", selector_meaning(row).c_str());
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", source_text(row.source));
      if (ImGui::IsItemHovered()) {
        if (row.source == SegmentSource::Table)
          ImGui::SetTooltip("the %s entry at linear %08X", row.ti && row.name != "LDTR" && row.name != "TR" ? "LDT" : "GDT",
                            row.entry_linear);
        else
          ImGui::SetTooltip("%s", source_meaning(row.source));
      }
      if (row.entry) {
        const Descriptor& d = *row.entry;
        fields(row, d.base, d.limit(), d.type, d.s, d.dpl, d.db, d.g, d.present, false);
      }
    }
    ImGui::EndTable();
  }

 private:
  static bool selector_changed(const MachineView& view, std::string_view name) {
    static constexpr std::pair<std::string_view, u8> kIndex[] = {{"CS", CS}, {"DS", DS}, {"ES", ES},
                                                                 {"FS", FS}, {"GS", GS}, {"SS", SS}};
    for (const auto& [reg, index] : kIndex)
      if (reg == name) return view.state.segments[index].selector != view.previous.segments[index].selector;
    if (name == "LDTR") return view.state.ldtr.selector != view.previous.ldtr.selector;
    return view.state.tr.selector != view.previous.tr.selector;
  }

  // base, limit, type, DPL, D/B, G, P, A cells; in the cache row, fields that differ from the entry are red.
  static void fields(const SegmentInspection& row, u32 base, u32 limit, u8 type, bool s, u8 dpl, bool db, bool g,
                     bool present, bool cache) {
    auto differs = [&](std::string_view field) {
      return cache && std::find(row.differing.begin(), row.differing.end(), field) != row.differing.end();
    };
    ImGui::TableNextColumn();
    text_maybe(differs("base"), kStale, "%08X", base);
    ImGui::TableNextColumn();
    text_maybe(differs("limit"), kStale, "%08X", limit);
    ImGui::TableNextColumn();
    Descriptor shape;
    shape.type = type;
    shape.s = s;
    text_maybe(differs("type") || differs("S"), kStale, "%X%s", type, s ? "" : " sys");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", descriptor_type_name(shape).c_str());
    ImGui::TableNextColumn();
    text_maybe(differs("DPL"), kStale, "%u", dpl);
    ImGui::TableNextColumn();
    text_maybe(differs("D/B"), kStale, "%u", db);
    ImGui::TableNextColumn();
    text_maybe(differs("G"), kStale, "%u", g);
    ImGui::TableNextColumn();
    text_maybe(differs("P"), kStale, "%u", present);
    ImGui::TableNextColumn();
    text_maybe(differs("A"), kStale, "%s", s ? (type & 1 ? "1" : "0") : "-");
  }
};
}  // namespace

std::unique_ptr<Window> make_segments_window() { return make_window<SegmentsWindow>("Segments"); }

}  // namespace x86lab::gui
