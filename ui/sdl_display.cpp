// The plain SDL window of `run --display sdl` (sdl_display.h).
#include "ui/sdl_display.h"

#include <SDL.h>
#include <string>

#include "platform/input_error.h"

namespace x86lab {

SdlDisplay::SdlDisplay() {
  SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");  // SIGINT stays x86lab's
  if (SDL_Init(SDL_INIT_VIDEO) != 0) throw InputError(std::string("--display sdl: SDL cannot start: ") + SDL_GetError());
  window_ = SDL_CreateWindow("x86lab VGA", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, 720, 400, SDL_WINDOW_RESIZABLE);
  if (window_) renderer_ = SDL_CreateRenderer(window_, -1, SDL_RENDERER_SOFTWARE);
  if (!window_ || !renderer_) {
    const std::string error = SDL_GetError();
    if (window_) SDL_DestroyWindow(window_);
    SDL_Quit();
    throw InputError("--display sdl: SDL cannot open a window: " + error);
  }
}

SdlDisplay::~SdlDisplay() {
  if (texture_) SDL_DestroyTexture(texture_);
  SDL_DestroyRenderer(renderer_);
  SDL_DestroyWindow(window_);
  SDL_Quit();
}

bool SdlDisplay::update(const Vga& vga, bool force) {
  for (SDL_Event event; SDL_PollEvent(&event);)
    if (event.type == SDL_QUIT || (event.type == SDL_WINDOWEVENT && event.window.event == SDL_WINDOWEVENT_CLOSE))
      closed_ = true;
  const auto now = std::chrono::steady_clock::now();
  if (closed_ || (!force && now - last_ < std::chrono::milliseconds(20))) return !closed_;
  last_ = now;
  const VgaScreen screen = vga.render();
  if (screen.width == 0 || screen.height == 0) return true;
  if (!texture_ || width_ != screen.width || height_ != screen.height) {
    if (texture_) SDL_DestroyTexture(texture_);
    texture_ = SDL_CreateTexture(renderer_, SDL_PIXELFORMAT_RGB24, SDL_TEXTUREACCESS_STREAMING,
                                 static_cast<int>(screen.width), static_cast<int>(screen.height));
    width_ = screen.width;
    height_ = screen.height;
    // Small modes (320x200) at twice their size.
    const int scale = screen.width <= 400 ? 2 : 1;
    SDL_SetWindowSize(window_, static_cast<int>(screen.width) * scale, static_cast<int>(screen.height) * scale);
  }
  if (!texture_) return true;
  SDL_UpdateTexture(texture_, nullptr, screen.rgb.data(), static_cast<int>(screen.width * 3));
  SDL_RenderClear(renderer_);
  SDL_RenderCopy(renderer_, texture_, nullptr, nullptr);
  SDL_RenderPresent(renderer_);
  return true;
}

}  // namespace x86lab
