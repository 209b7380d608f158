// The inspector's tiled layout (ui/gui/layout.h): at 1280x800 and larger, the windows
// open at start fill the display below the menu bar without overlapping, and the
// windows closed at start lie within it too.
#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "ui/gui/layout.h"

namespace x86lab::gui {
namespace {

constexpr std::string_view kTitles[] = {"Control", "CPU", "Counters", "Breakpoints", "Disassembly", "Segments",
                                        "Memory", "Descriptor tables", "Trace", "Serial console", "TSS", "Page walk",
                                        "VGA text screen", "Scenario launcher", "Compare", "APIC"};

struct Display {
  float width, height;
};

class GuiLayout : public ::testing::TestWithParam<Display> {};

TEST_P(GuiLayout, OpenWindowsTileTheDisplayBelowTheMenuBar) {
  const auto [width, height] = GetParam();
  const float top = 19;
  std::vector<Tile> open;
  double area = 0;
  for (const std::string_view title : kTitles) {
    const auto tile = tile_of(title, width, height, top);
    ASSERT_TRUE(tile) << title;
    EXPECT_GE(tile->x, 0) << title;
    EXPECT_GE(tile->y, top) << title;
    EXPECT_LE(tile->x + tile->width, width + 0.5f) << title;
    EXPECT_LE(tile->y + tile->height, height + 0.5f) << title;
    EXPECT_GE(tile->width, 380) << title;   // the CPU registers and the Control buttons' width at 1280
    EXPECT_GE(tile->height, 120) << title;
    if (!open_at_start(title)) continue;
    for (const Tile& other : open) {
      const bool apart = tile->x + tile->width <= other.x + 0.5f || other.x + other.width <= tile->x + 0.5f ||
                         tile->y + tile->height <= other.y + 0.5f || other.y + other.height <= tile->y + 0.5f;
      EXPECT_TRUE(apart) << title << " overlaps another open window";
    }
    open.push_back(*tile);
    area += double{tile->width} * tile->height;
  }
  EXPECT_NEAR(area, double{width} * (height - top), 1.0 * width);  // no gaps
  EXPECT_FALSE(tile_of("No such window", width, height, top));
}

INSTANTIATE_TEST_SUITE_P(Displays, GuiLayout,
                         ::testing::Values(Display{1280, 800}, Display{1600, 1000}, Display{1920, 1080},
                                           Display{2560, 1440}),
                         [](const ::testing::TestParamInfo<Display>& info) {
                           return std::to_string(static_cast<int>(info.param.width)) + "x" +
                                  std::to_string(static_cast<int>(info.param.height));
                         });

}  // namespace
}  // namespace x86lab::gui
