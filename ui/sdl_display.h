// `x86lab run --display sdl`: a plain SDL window showing the VGA's screen while the
// guest runs (whatever mode is set; Vga::render, platform/devices/vga/), refreshed
// between run slices at most 50 times a second of host time (presentation only: the
// machine's time and events never depend on it). SDL_VIDEODRIVER=offscreen runs it
// without a display.
#pragma once
#include <chrono>

#include "platform/devices/vga/vga.h"

struct SDL_Window;
struct SDL_Renderer;
struct SDL_Texture;

namespace x86lab {

class SdlDisplay {
 public:
  // Opens the window. Throws InputError ("--display sdl: ...") when SDL cannot.
  SdlDisplay();
  ~SdlDisplay();
  SdlDisplay(const SdlDisplay&) = delete;
  SdlDisplay& operator=(const SdlDisplay&) = delete;

  // Draws `vga`'s screen when 20 ms have passed since the last frame, or `force`.
  // Returns false once the user closed the window.
  bool update(const Vga& vga, bool force = false);

 private:
  SDL_Window* window_ = nullptr;
  SDL_Renderer* renderer_ = nullptr;
  SDL_Texture* texture_ = nullptr;
  unsigned width_ = 0, height_ = 0;
  std::chrono::steady_clock::time_point last_{};
  bool closed_ = false;
};

}  // namespace x86lab
