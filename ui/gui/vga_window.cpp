// The VGA text screen window: the 80x25 colour text buffer at B8000h from the CRTC
// start address, drawn cell by cell with the 16-colour text palette and the cursor
// (IBM VGA Technical Reference, "Attribute Controller"); read by peek. While the window
// has the focus, the keys typed go to the guest's PS/2 keyboard (the 8042, in the scan
// code set the guest chose) instead of the inspector's shortcuts.
#include "ui/gui/guest_keyboard.h"
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
// The default text-mode palette (attribute nibble -> RGB).
constexpr ImU32 kPalette[16] = {
    IM_COL32(0, 0, 0, 255),       IM_COL32(0, 0, 170, 255),     IM_COL32(0, 170, 0, 255),     IM_COL32(0, 170, 170, 255),
    IM_COL32(170, 0, 0, 255),     IM_COL32(170, 0, 170, 255),   IM_COL32(170, 85, 0, 255),    IM_COL32(170, 170, 170, 255),
    IM_COL32(85, 85, 85, 255),    IM_COL32(85, 85, 255, 255),   IM_COL32(85, 255, 85, 255),   IM_COL32(85, 255, 255, 255),
    IM_COL32(255, 85, 85, 255),   IM_COL32(255, 85, 255, 255),  IM_COL32(255, 255, 85, 255),  IM_COL32(255, 255, 255, 255)};

struct VgaWindow final : Window {
  void draw(const MachineView& view, CommandQueue& commands) override {
    const bool focused = ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows);
    if (focused) {
      view.ui.keyboard_to_guest = true;
      for (const auto& [key, down] : view.ui.frame_keys)
        if (const auto pc = pc_key_of(static_cast<SDL_Scancode>(key)))
          commands.push({CommandKind::GuestKey, 0, false, {pc->set1, pc->extended, static_cast<u8>(!down)}});
      const I8042& keyboard = view.machine.devices->keyboard_controller;
      ImGui::TextColored(kSet, "keyboard to the guest (scan code set %u%s); click another window to give it back",
                         keyboard.scancode_set(), (keyboard.command_byte() & 0x40) ? ", translated to set 1" : "");
    } else {
      ImGui::TextDisabled("click here to type into the guest (its PS/2 keyboard)");
    }
    const VgaText& vga = view.machine.devices->vga;
    const PhysicalBus& bus = view.machine.bus;
    const ImVec2 cell(ImGui::CalcTextSize("M").x, ImGui::GetTextLineHeight());
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const u32 start = vga.start_address();
    for (unsigned row = 0; row < VgaText::kRows; ++row) {
      u8 characters[VgaText::kColumns], attributes[VgaText::kColumns];
      for (unsigned column = 0; column < VgaText::kColumns; ++column) {
        const u32 index = (start + row * VgaText::kColumns + column) % 0x4000;
        characters[column] = bus.peek(VgaText::kTextBuffer + index * 2);
        attributes[column] = bus.peek(VgaText::kTextBuffer + index * 2 + 1);
      }
      const float y = origin.y + row * cell.y;
      // One rectangle per run of cells with the same background (a screen of one
      // colour is 25 rectangles, not 2000).
      for (unsigned column = 0, run = 0; column <= VgaText::kColumns; ++column) {
        if (column < VgaText::kColumns && ((attributes[column] ^ attributes[run]) & 0x70) == 0) continue;
        draw->AddRectFilled(ImVec2(origin.x + run * cell.x, y), ImVec2(origin.x + column * cell.x, y + cell.y),
                            kPalette[(attributes[run] >> 4) & 7]);
        run = column;
      }
      for (unsigned column = 0; column < VgaText::kColumns; ++column) {
        const ImVec2 at(origin.x + column * cell.x, y);
        const u8 character = characters[column];
        if (character > 0x20 && character < 0x7F) {
          const char text[2] = {static_cast<char>(character), 0};
          draw->AddText(at, kPalette[attributes[column] & 15], text);
        }
        if ((start + row * VgaText::kColumns + column) % 0x4000 == vga.cursor() % 0x4000)
          draw->AddRectFilled(ImVec2(at.x, at.y + cell.y - 2), ImVec2(at.x + cell.x, at.y + cell.y), kPalette[7]);
      }
    }
    ImGui::Dummy(ImVec2(cell.x * VgaText::kColumns, cell.y * VgaText::kRows));
    // The text as --vga-dump prints it, for the window's text dump (not drawn).
    ImGui::LogText("\n%s", vga.text().c_str());
  }
};
}  // namespace

std::unique_ptr<Window> make_vga_window() { return make_window<VgaWindow>("VGA text screen"); }

}  // namespace x86lab::gui
