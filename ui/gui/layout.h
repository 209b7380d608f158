// Where the inspector's windows start: a tiled layout computed from the display size
// (Dear ImGui 1.86 from Debian has no docking), three columns of stacked windows that
// fill the display below the menu bar. Designed at 1280x800 (every window readable, its
// controls in view) and scaled to larger displays; windows that are closed by default
// take the tile of the window they are usually opened beside.
#pragma once
#include <optional>
#include <string_view>

namespace x86lab::gui {

struct Tile {
  float x = 0, y = 0, width = 0, height = 0;  // pixels
};

// The tile of the window titled `title` on a `width` x `height` display whose menu bar
// ends at `top`; empty for a title the layout does not know.
std::optional<Tile> tile_of(std::string_view title, float width, float height, float top);

// Whether the window titled `title` is open at start.
bool open_at_start(std::string_view title);

}  // namespace x86lab::gui
