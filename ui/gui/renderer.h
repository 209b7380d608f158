// Drawing Dear ImGui's frame with SDL_Renderer's software renderer, cheaper than the
// stock backend's ImGui_ImplSDLRenderer_RenderDrawData for the same pixels: opaque
// solid rectangles (window, title bar, header and table-row backgrounds, the VGA
// screen's cells) are filled without blending, and only the rest (text, translucent
// fills, lines) goes through SDL_RenderGeometryRaw, whose software path blends every
// pixel (SDL 2.26, src/render/software). The stock backend still creates the font
// texture and starts frames.
#pragma once
#include <SDL.h>
#include <imgui.h>

namespace x86lab::gui {

// Draws `draw_data` into `renderer`'s target (clip rectangles as ImGui gives them, in
// framebuffer pixels); restores the renderer's viewport, clip rectangle, draw colour and
// blend mode afterwards.
void render_draw_data(SDL_Renderer* renderer, const ImDrawData* draw_data);

// The renderer that draws the frames (set by the app once it made one; null before):
// windows that draw pictures (the VGA screen) make their textures with it.
SDL_Renderer* frame_renderer();
void set_frame_renderer(SDL_Renderer* renderer);

}  // namespace x86lab::gui
