// The APIC window: the local APIC's registers, IRR/ISR/TMR as 16x16 bitmaps (row =
// priority class, column = low nibble of the vector), the LVT and the timer, and the
// I/O APIC's redirection table (Intel SDM Vol. 3, "Advanced Programmable Interrupt
// Controller (APIC)"; Intel 82093AA I/O APIC data sheet). Values that changed since
// the last stop are in the "changed" colour. Read through apic_model.h: no side effects.
#include <imgui_internal.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "ui/gui/apic_model.h"
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
const ImU32 kCellSet = IM_COL32(70, 150, 70, 255);       // bit set
const ImU32 kCellNew = IM_COL32(230, 130, 50, 255);      // set since the last stop
const ImU32 kCellClear = IM_COL32(40, 42, 48, 255);      // bit clear
const ImU32 kCellCleared = IM_COL32(230, 130, 50, 255);  // outline: cleared since the last stop

const char* yes_no(bool value) { return value ? "yes" : "no"; }

// One 256-bit register as a grid, with its set vectors as a line of text above it.
struct Bitmap {
  const char* name;
  const ApicBits& now;
  const ApicBits& before;
};

// The priority-class column's width, then 16 cells.
float header_width() { return ImGui::CalcTextSize("F").x + 6; }
float bitmap_width(float cell) { return header_width() + cell * 16; }

void draw_bitmap(const Bitmap& bitmap, float cell, const Bitmap* all, unsigned count) {
  ImGui::BeginGroup();
  const std::string list = vector_list(bitmap.now);
  const bool changed = bitmap.now != bitmap.before;
  // The list line is as wide as the grid at most: the tooltip holds the rest.
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + bitmap_width(cell));
  text_maybe(changed, kChanged, "%s %s", bitmap.name, list.c_str());
  ImGui::PopTextWrapPos();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::PushID(bitmap.name);
  ImGui::InvisibleButton("grid", ImVec2(bitmap_width(cell), cell * 17));
  const float header = header_width();
  ImGui::PopID();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(kDim);
  const float text_height = ImGui::GetTextLineHeight();
  char label[4];
  for (unsigned i = 0; i < 16; ++i) {  // headers: the low nibble above, the priority class beside
    std::snprintf(label, sizeof label, "%X", i);
    const float w = ImGui::CalcTextSize(label).x;
    draw->AddText(ImVec2(origin.x + header + cell * i + (cell - w) / 2, origin.y + (cell - text_height) / 2), dim,
                  label);
    draw->AddText(ImVec2(origin.x + (header - w) / 2, origin.y + cell * (i + 1) + (cell - text_height) / 2), dim,
                  label);
  }
  for (unsigned v = 0; v < 256; ++v) {
    const u8 vector = static_cast<u8>(v);
    const bool set = vector_bit(bitmap.now, vector), was = vector_bit(bitmap.before, vector);
    const ImVec2 a(origin.x + header + cell * (v & 15) + 1, origin.y + cell * ((v >> 4) + 1) + 1);
    const ImVec2 b(a.x + cell - 2, a.y + cell - 2);
    draw->AddRectFilled(a, b, set ? (was ? kCellSet : kCellNew) : kCellClear);
    if (!set && was) draw->AddRect(a, b, kCellCleared);
    std::snprintf(label, sizeof label, "%02X", v);
    const ImVec2 size = ImGui::CalcTextSize(label);
    draw->AddText(ImVec2(a.x + (cell - 2 - size.x) / 2, a.y + (cell - 2 - size.y) / 2),
                  set ? IM_COL32(255, 255, 255, 255) : (was ? text : dim), label);
  }
  // The grid in the text dump: the rows that hold a set bit, ".." for a clear one.
  for (unsigned row = 0; row < 16; ++row) {
    std::string line;
    bool any = false;
    for (unsigned column = 0; column < 16; ++column) {
      const u8 vector = static_cast<u8>(row * 16 + column);
      any |= vector_bit(bitmap.now, vector);
      std::snprintf(label, sizeof label, "%02X", vector);
      line += vector_bit(bitmap.now, vector) ? label : "..";
      line += column == 15 ? "" : " ";
    }
    if (any) ImGui::LogText("\n%s class %X: %s", bitmap.name, row, line.c_str());
  }
  if (ImGui::IsItemHovered()) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int column = static_cast<int>(std::floor((mouse.x - origin.x - header) / cell));
    const int row = static_cast<int>(std::floor((mouse.y - origin.y) / cell)) - 1;
    if (column >= 0 && column < 16 && row >= 0 && row < 16) {
      const u8 vector = static_cast<u8>(row * 16 + column);
      std::string tip;
      char line[48];
      std::snprintf(line, sizeof line, "vector %02Xh (%u), priority class %X", vector, vector, vector >> 4);
      tip += line;
      for (unsigned i = 0; i < count; ++i) {
        std::snprintf(line, sizeof line, "\n%s %s", all[i].name, vector_bit(all[i].now, vector) ? "set" : "clear");
        tip += line;
      }
      // A tooltip is a window of its own, whose End() would end the text dump's log of
      // this one (ImGui 1.86): while logging, the tooltip's text goes into the log instead.
      if (GImGui->LogEnabled)
        ImGui::LogText("\ntooltip: %s", tip.c_str());
      else
        ImGui::SetTooltip("%s", tip.c_str());
    }
  }
  ImGui::EndGroup();
}

struct ApicWindow final : Window {
  void draw(const MachineView& view, CommandQueue&) override {
    const ApicSnapshot now = capture_apic(view.machine);
    const ApicSnapshot& before = view.session.previous_apic();
    if (!now.local.present) {
      ImGui::TextUnformatted("this machine has no local APIC");
    } else {
      local_registers(now.local, before.local);
      ImGui::Separator();
      bitmaps(now.local, before.local);
      ImGui::Separator();
      lvt(now.local, before.local);
      timer(now.local, before.local);
    }
    ImGui::Separator();
    io_apic(now.io, before.io);
  }

 private:
  static void local_registers(const LocalApicSnapshot& s, const LocalApicSnapshot& p) {
    const ApicBaseFields base = decode_apic_base(s.apic_base);
    ImGui::Text("Local APIC  ID %02Xh", s.id >> 24 & 0xFF);
    ImGui::SameLine();
    ImGui::Text(" version %02Xh, max LVT entry %u", s.version & 0xFF, s.version >> 16 & 0xFF);
    text_maybe(s.apic_base != p.apic_base, kChanged, "IA32_APIC_BASE %08" PRIX64 "h: base %08Xh, %s%s", s.apic_base,
               base.base, base.enabled ? "enabled" : "disabled (globally)", base.bsp ? ", BSP" : "");
    text_maybe(s.svr != p.svr, kChanged, "SVR %03Xh: %s, spurious vector %02Xh", s.svr,
               s.svr & 0x100 ? "software enabled" : "software disabled", s.svr & 0xFF);
    text_maybe(s.tpr != p.tpr, kChanged, "TPR %02Xh", s.tpr);
    ImGui::SameLine();
    text_maybe(s.apr != p.apr, kChanged, " APR %02Xh", s.apr);
    ImGui::SameLine();
    text_maybe(s.ppr != p.ppr, kChanged, " PPR %02Xh", s.ppr);
    ImGui::SameLine();
    text_maybe(s.ldr != p.ldr, kChanged, "  LDR %08Xh", s.ldr);
    ImGui::SameLine();
    text_maybe(s.dfr != p.dfr, kChanged, " DFR %08Xh (%s)", s.dfr, (s.dfr >> 28) == 0xF ? "flat" : "cluster");
    text_maybe(s.esr != p.esr, kChanged, "ESR %02Xh (as last latched by a write)", s.esr);
    const IcrFields icr = decode_icr(s.icr_low, s.icr_high);
    text_maybe(s.icr_low != p.icr_low || s.icr_high != p.icr_high, kChanged,
               "ICR %08X:%08Xh: vector %02Xh %.*s, %s destination %02Xh, shorthand %.*s, %s %s, %s", s.icr_high,
               s.icr_low, icr.vector, static_cast<int>(icr.delivery_mode.size()), icr.delivery_mode.data(),
               icr.logical ? "logical" : "physical", icr.destination, static_cast<int>(icr.shorthand.size()),
               icr.shorthand.data(), icr.level ? "level" : "edge", icr.assert ? "assert" : "de-assert",
               icr.pending ? "send pending" : "idle");
  }

  // The three grids side by side when they fit, else as many a row as fit.
  static void bitmaps(const LocalApicSnapshot& s, const LocalApicSnapshot& p) {
    const Bitmap all[] = {{"IRR", s.irr, p.irr}, {"ISR", s.isr, p.isr}, {"TMR", s.tmr, p.tmr}};
    const float spacing = ImGui::GetStyle().ItemSpacing.x * 1.5f;
    const float available = ImGui::GetContentRegionAvail().x;
    const float smallest = ImGui::CalcTextSize("FF").x + 2;  // the label and a 1-pixel gap each side
    int across = 3;
    while (across > 1 && bitmap_width(smallest) * across + spacing * (across - 1) > available) --across;
    const float cell = std::floor(
        std::clamp(((available - spacing * (across - 1)) / across - header_width()) / 16, smallest, smallest + 8));
    for (int i = 0; i < 3; ++i) {
      if (i % across != 0) ImGui::SameLine(0, spacing);
      draw_bitmap(all[i], cell, all, 3);
    }
    ImGui::TextColored(kDim, "cells: green set, orange set since the last stop, orange outline cleared since");
  }

  static void lvt(const LocalApicSnapshot& s, const LocalApicSnapshot& p) {
    if (!begin_table("lvt", 9)) return;
    for (const char* heading :
         {"LVT", "value", "vector", "mode", "mask", "trigger", "polarity", "remote IRR", "status"})
      ImGui::TableSetupColumn(heading);
    ImGui::TableHeadersRow();
    for (unsigned i = 0; i < s.lvt.size(); ++i) {
      const LvtRow row = decode_lvt(static_cast<LvtIndex>(i), s.lvt[i]);
      const bool changed = s.lvt[i] != p.lvt[i];
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row.name.data(), row.name.data() + row.name.size());
      ImGui::TableNextColumn();
      text_maybe(changed, kChanged, "%08Xh", row.raw);
      ImGui::TableNextColumn();
      ImGui::Text("%02Xh", row.vector);
      ImGui::TableNextColumn();
      ImGui::Text("%.*s", static_cast<int>(row.delivery_mode.size()), row.delivery_mode.data());
      ImGui::TableNextColumn();
      text_maybe(!row.masked, kSet, "%s", row.masked ? "masked" : "unmasked");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row.level      ? (*row.level ? "level" : "edge")
                             : row.periodic ? (*row.periodic ? "(periodic)" : "(one-shot)")
                                            : "-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row.active_low ? (*row.active_low ? "low" : "high") : "-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row.remote_irr ? yes_no(*row.remote_irr) : "-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row.pending ? "send pending" : "idle");
    }
    ImGui::EndTable();
  }

  static void timer(const LocalApicSnapshot& s, const LocalApicSnapshot& p) {
    const std::string_view mode = timer_mode_name(s.lvt[0]);
    text_maybe(s.lvt[0] != p.lvt[0] || s.divide_configuration != p.divide_configuration, kChanged,
               "Timer %.*s, divide by %u (DCR %Xh)", static_cast<int>(mode.size()), mode.data(),
               timer_divisor(s.divide_configuration), s.divide_configuration);
    ImGui::SameLine();
    text_maybe(s.initial_count != p.initial_count, kChanged, " initial count %08Xh", s.initial_count);
    ImGui::SameLine();
    text_maybe(s.current_count != p.current_count, kChanged, " current count %08Xh", s.current_count);
    if (s.cycles_to_expiry)
      ImGui::Text("next expiry in %" PRIu64 " modeled cycles", *s.cycles_to_expiry);
    else
      ImGui::TextUnformatted("timer stopped: no expiry ahead");
  }

  static void io_apic(const IoApicSnapshot& s, const IoApicSnapshot& p) {
    text_maybe(s.id != p.id, kChanged, "I/O APIC  ID %02Xh", s.id >> 24 & 0x0F);
    ImGui::SameLine();
    ImGui::Text(" version %02Xh, max redirection entry %02Xh  ARB %02Xh", s.version & 0xFF, s.version >> 16 & 0xFF,
                s.arbitration >> 24 & 0x0F);
    ImGui::SameLine();
    text_maybe(s.io_register_select != p.io_register_select, kChanged, "  IOREGSEL %02Xh", s.io_register_select);
    if (!begin_table("redirection", 11)) return;
    for (const char* heading : {"pin", "vector", "mode", "dest. mode", "dest.", "polarity", "trigger", "remote IRR",
                                "mask", "input", "IOREDTBL"})
      ImGui::TableSetupColumn(heading);
    ImGui::TableHeadersRow();
    for (unsigned pin = 0; pin < s.entries.size(); ++pin) {
      const RedirectionRow r = decode_redirection(pin, s.entries[pin], s.inputs >> pin & 1);
      const bool changed = s.entries[pin] != p.entries[pin];
      const bool input_changed = ((s.inputs ^ p.inputs) >> pin & 1) != 0;
      // A changed entry: its whole row in the "changed" colour.
      if (changed)
        ImGui::PushStyleColor(ImGuiCol_Text, kChanged);
      else if (r.masked)
        ImGui::PushStyleColor(ImGuiCol_Text, kDim);
      ImGui::TableNextColumn();
      ImGui::Text("%u", pin);
      ImGui::TableNextColumn();
      ImGui::Text("%02Xh", r.vector);
      ImGui::TableNextColumn();
      ImGui::Text("%.*s", static_cast<int>(r.delivery_mode.size()), r.delivery_mode.data());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.logical ? "logical" : "physical");
      ImGui::TableNextColumn();
      ImGui::Text("%02Xh", r.destination);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.active_low ? "low" : "high");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.level ? "level" : "edge");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.remote_irr ? "yes" : "no");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.masked ? "masked" : "unmasked");
      if (changed || r.masked) ImGui::PopStyleColor();
      ImGui::TableNextColumn();
      text_maybe(input_changed, kChanged, "%s", r.input_high ? "high" : "low");
      ImGui::TableNextColumn();
      text_maybe(changed, kChanged, "%016" PRIX64 "h", s.entries[pin]);
    }
    ImGui::EndTable();
  }
};
}  // namespace

std::unique_ptr<Window> make_apic_window() { return make_window<ApicWindow>("APIC"); }

}  // namespace x86lab::gui
