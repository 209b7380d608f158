// The inspector's tiled layout (see layout.h).
#include "ui/gui/layout.h"

#include <algorithm>

namespace x86lab::gui {

namespace {
// Column 0, 1 or 2, and the window's place in its column: from `top` to `bottom` as
// fractions of the column's height below the Control window (which has a fixed height).
struct Place {
  std::string_view title;
  int column;
  float top, bottom;
  bool open;
};
constexpr float kControlHeight = 150;  // the buttons, title, status and CS:EIP lines
constexpr float kVgaWidth = 584;       // 80 columns of the default font and the window's padding
constexpr Place kPlaces[] = {
    {"Control", 0, -1, 0, true},  // above the rest of column 0
    {"CPU", 0, 0.00f, 0.52f, true},
    {"Counters", 0, 0.52f, 0.76f, true},
    {"Breakpoints", 0, 0.76f, 1.00f, true},
    {"Scenario launcher", 0, 0.52f, 1.00f, false},
    {"Timeline", 0, 0.52f, 0.76f, false},  // over Counters
    {"Disassembly", 1, 0.00f, 0.38f, true},
    {"Segments", 1, 0.38f, 0.70f, true},
    {"Memory", 1, 0.70f, 1.00f, true},
    {"Page walk", 1, 0.70f, 1.00f, false},
    {"Descriptor tables", 2, 0.00f, 0.36f, true},
    {"Trace", 2, 0.36f, 0.70f, true},
    {"TSS", 2, 0.50f, 1.00f, false},
    {"VGA text screen", 2, 0.00f, 0.70f, false},
    {"Serial console", 2, 0.70f, 1.00f, true},
    {"Compare", 1, 0.00f, 0.50f, false},  // spans columns 1 and 2
    {"APIC", 1, 0.00f, 1.00f, false},     // spans columns 1 and 2, full height
};

const Place* find(std::string_view title) {
  for (const Place& place : kPlaces)
    if (place.title == title) return &place;
  return nullptr;
}
}  // namespace

std::optional<Tile> tile_of(std::string_view title, float width, float height, float top) {
  const Place* place = find(title);
  if (!place) return std::nullopt;
  // Column 0 holds the CPU registers (about 400 pixels of text at the default font);
  // columns 1 and 2 share the rest.
  const float left = std::clamp(width * 0.3f, std::min(400.0f, width / 3), 560.0f);
  const float middle = (width - left) * 0.5f;
  const float x[] = {0, left, left + middle, width};
  const float available = height - top;
  Tile tile;
  tile.x = x[place->column];
  tile.width = x[place->column + 1] - x[place->column];
  if (place->title == "Compare" || place->title == "APIC") tile.width = width - left;
  if (place->title == "VGA text screen" && tile.width < kVgaWidth) {  // all 80 columns, reaching left
    tile.width = std::min(kVgaWidth, width);
    tile.x = width - tile.width;
  }
  if (place->top < 0) {
    tile.y = top;
    tile.height = std::min(kControlHeight, available / 4);
    return tile;
  }
  const float column_top = place->column == 0 ? top + std::min(kControlHeight, available / 4) : top;
  const float column_height = height - column_top;
  tile.y = column_top + column_height * place->top;
  tile.height = column_height * (place->bottom - place->top);
  return tile;
}

bool open_at_start(std::string_view title) {
  const Place* place = find(title);
  return place && place->open;
}

}  // namespace x86lab::gui
