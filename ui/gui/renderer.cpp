// ImGui draw data to SDL_Renderer with opaque rectangles filled unblended (renderer.h).
#include "ui/gui/renderer.h"

#include <algorithm>

namespace x86lab::gui {

namespace {

// An opaque rectangle of one colour (in the vertices' coordinates, as SDL_RenderGeometryRaw
// gets them), as ImDrawList::PrimRect
// emits it: vertices top-left, top-right, bottom-right, bottom-left, all at the font
// atlas's white texel, indices 0 1 2 0 2 3.
struct SolidRect {
  SDL_FRect rect;
  ImU32 colour;
};

bool solid_rect_at(const ImDrawVert* vertices, const ImDrawIdx* indices, ImVec2 white, SolidRect& out) {
  const ImDrawIdx i0 = indices[0];
  if (indices[1] != i0 + 1 || indices[2] != i0 + 2 || indices[3] != i0 || indices[4] != i0 + 2 || indices[5] != i0 + 3)
    return false;
  const ImDrawVert* v = vertices + i0;
  const ImU32 colour = v[0].col;
  if ((colour >> IM_COL32_A_SHIFT) != 0xFF) return false;
  for (int k = 0; k < 4; ++k)
    if (v[k].col != colour || v[k].uv.x != white.x || v[k].uv.y != white.y) return false;
  if (v[1].pos.y != v[0].pos.y || v[2].pos.x != v[1].pos.x || v[3].pos.y != v[2].pos.y || v[3].pos.x != v[0].pos.x)
    return false;
  out.rect = {v[0].pos.x, v[0].pos.y, v[2].pos.x - v[0].pos.x, v[2].pos.y - v[0].pos.y};
  out.colour = colour;
  return out.rect.w > 0 && out.rect.h > 0;
}

// Triangles [first, first + count) of one draw command, through the blending path.
void draw_triangles(SDL_Renderer* renderer, SDL_Texture* texture, const ImDrawList& list, const ImDrawCmd& cmd,
                    unsigned first, unsigned count) {
  if (count == 0) return;
  const ImDrawVert* vertices = list.VtxBuffer.Data + cmd.VtxOffset;
  SDL_RenderGeometryRaw(renderer, texture, &vertices->pos.x, sizeof(ImDrawVert),
                        reinterpret_cast<const SDL_Color*>(&vertices->col), sizeof(ImDrawVert), &vertices->uv.x,
                        sizeof(ImDrawVert), list.VtxBuffer.Size - static_cast<int>(cmd.VtxOffset),
                        list.IdxBuffer.Data + cmd.IdxOffset + first, static_cast<int>(count), sizeof(ImDrawIdx));
}

}  // namespace

void render_draw_data(SDL_Renderer* renderer, const ImDrawData* draw_data) {
  // SDL_RenderSetScale already scales what is drawn; otherwise ImGui's framebuffer scale applies.
  float renderer_x = 1, renderer_y = 1;
  SDL_RenderGetScale(renderer, &renderer_x, &renderer_y);
  const ImVec2 scale(renderer_x == 1 ? draw_data->FramebufferScale.x : 1, renderer_y == 1 ? draw_data->FramebufferScale.y : 1);
  const float width = draw_data->DisplaySize.x * scale.x, height = draw_data->DisplaySize.y * scale.y;
  if (static_cast<int>(width) == 0 || static_cast<int>(height) == 0) return;

  SDL_Rect old_viewport, old_clip;
  const bool old_clip_on = SDL_RenderIsClipEnabled(renderer) == SDL_TRUE;
  SDL_RenderGetViewport(renderer, &old_viewport);
  SDL_RenderGetClipRect(renderer, &old_clip);
  Uint8 old_r, old_g, old_b, old_a;
  SDL_GetRenderDrawColor(renderer, &old_r, &old_g, &old_b, &old_a);
  SDL_BlendMode old_blend;
  SDL_GetRenderDrawBlendMode(renderer, &old_blend);
  SDL_RenderSetViewport(renderer, nullptr);
  SDL_RenderSetClipRect(renderer, nullptr);
  SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_NONE);

  const ImVec2 white = ImGui::GetIO().Fonts->TexUvWhitePixel;
  const ImVec2 origin = draw_data->DisplayPos;
  for (int n = 0; n < draw_data->CmdListsCount; ++n) {
    const ImDrawList& list = *draw_data->CmdLists[n];
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback) {
        if (cmd.UserCallback != ImDrawCallback_ResetRenderState) cmd.UserCallback(&list, &cmd);
        continue;
      }
      const float x0 = std::max(0.0f, (cmd.ClipRect.x - origin.x) * scale.x);
      const float y0 = std::max(0.0f, (cmd.ClipRect.y - origin.y) * scale.y);
      const float x1 = std::min(width, (cmd.ClipRect.z - origin.x) * scale.x);
      const float y1 = std::min(height, (cmd.ClipRect.w - origin.y) * scale.y);
      if (x1 <= x0 || y1 <= y0) continue;
      const SDL_Rect clip{static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0), static_cast<int>(y1 - y0)};
      SDL_RenderSetClipRect(renderer, &clip);
      auto* texture = static_cast<SDL_Texture*>(cmd.GetTexID());
      const ImDrawVert* vertices = list.VtxBuffer.Data + cmd.VtxOffset;
      const ImDrawIdx* indices = list.IdxBuffer.Data + cmd.IdxOffset;
      // Runs of triangles go to SDL_RenderGeometryRaw in order; an opaque rectangle
      // between them is filled directly (the same pixels, without the blend).
      unsigned pending = 0;
      for (unsigned i = 0; i + 3 <= cmd.ElemCount;) {
        SolidRect solid;
        if (i + 6 <= cmd.ElemCount && solid_rect_at(vertices, indices + i, white, solid)) {
          draw_triangles(renderer, texture, list, cmd, pending, i - pending);
          SDL_SetRenderDrawColor(renderer, solid.colour & 0xFF, (solid.colour >> 8) & 0xFF, (solid.colour >> 16) & 0xFF, 0xFF);
          SDL_RenderFillRectF(renderer, &solid.rect);
          i += 6;
          pending = i;
        } else {
          i += 3;
        }
      }
      draw_triangles(renderer, texture, list, cmd, pending, cmd.ElemCount - pending);
    }
  }

  SDL_RenderSetViewport(renderer, &old_viewport);
  SDL_RenderSetClipRect(renderer, old_clip_on ? &old_clip : nullptr);
  SDL_SetRenderDrawColor(renderer, old_r, old_g, old_b, old_a);
  SDL_SetRenderDrawBlendMode(renderer, old_blend);
}

namespace {
SDL_Renderer* g_frame_renderer = nullptr;
}  // namespace

SDL_Renderer* frame_renderer() { return g_frame_renderer; }
void set_frame_renderer(SDL_Renderer* renderer) { g_frame_renderer = renderer; }

}  // namespace x86lab::gui
