// The VGA screen window: whatever the adapter displays (text modes with the font in
// plane 2, the planar and 256-colour graphics modes, the VBE DISPI modes), rendered by
// Vga::render() into an SDL texture and scaled to fit the window (IBM VGA Technical
// Reference; platform/devices/vga/). While the window has the focus, the keys typed go
// to the guest's PS/2 keyboard (the 8042, in the scan code set the guest chose) instead
// of the inspector's shortcuts. Its title stays "VGA text screen" (scripts name it).
#include <algorithm>
#include <cmath>

#include "ui/gui/guest_keyboard.h"
#include "ui/gui/renderer.h"
#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {

struct VgaWindow final : Window {
  ~VgaWindow() override {
    // (SDL frees a renderer's textures with it: destroy only while it lives.)
    if (texture_ && frame_renderer()) SDL_DestroyTexture(texture_);
  }

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
    const Vga& vga = view.machine.devices->vga;
    const VgaScreen screen = vga.render();
    ImGui::TextDisabled("%s %ux%u", mode_name(vga), screen.width, screen.height);
    if (screen.width && screen.height && upload(screen)) {
      const ImVec2 room = ImGui::GetContentRegionAvail();
      float scale = std::min(room.x / static_cast<float>(screen.width), room.y / static_cast<float>(screen.height));
      // Whole multiples where the picture fits at least once: every dot of the adapter
      // becomes the same square of window pixels (nearest-neighbour scaling).
      scale = scale >= 1.0f ? std::min(std::floor(scale), 4.0f) : std::max(scale, 0.25f);
      ImGui::Image(static_cast<ImTextureID>(texture_), ImVec2(screen.width * scale, screen.height * scale));
      // Where the picture lies, for the text dump (tests compare it with the screendump).
      const ImVec2 at = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
      ImGui::LogText("\npicture at %.0f,%.0f size %.0fx%.0f scale %g", at.x, at.y, size.x, size.y, scale);
    }
    // A click on the picture gives the window (and so the guest) the keyboard.
    if (!focused && ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows) && ImGui::IsMouseClicked(ImGuiMouseButton_Left))
      ImGui::SetWindowFocus();
    // The text as --vga-dump prints it, for the window's text dump (not drawn).
    ImGui::LogText("\n%s", vga.text().c_str());
  }

 private:
  static const char* mode_name(const Vga& vga) {
    if (vga.dispi_enabled()) return "VBE DISPI";
    if (!(vga.graphics(6) & 1)) return "text";
    return (vga.graphics(5) & 0x40) ? "256-colour graphics" : "16-colour graphics";
  }

  // Copies the screen into the texture (made again when the size changes).
  bool upload(const VgaScreen& screen) {
    SDL_Renderer* renderer = frame_renderer();
    if (!renderer) return false;
    if (!texture_ || width_ != screen.width || height_ != screen.height) {
      if (texture_) SDL_DestroyTexture(texture_);
      texture_ = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_RGB24, SDL_TEXTUREACCESS_STREAMING,
                                   static_cast<int>(screen.width), static_cast<int>(screen.height));
      if (!texture_) return false;
      width_ = screen.width;
      height_ = screen.height;
    }
    return SDL_UpdateTexture(texture_, nullptr, screen.rgb.data(), static_cast<int>(screen.width * 3)) == 0;
  }

  SDL_Texture* texture_ = nullptr;
  unsigned width_ = 0, height_ = 0;
};
}  // namespace

std::unique_ptr<Window> make_vga_window() { return make_window<VgaWindow>("VGA text screen"); }

}  // namespace x86lab::gui
