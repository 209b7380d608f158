// The 8x16 font of the power-up text mode, extracted at build time from the VGA BIOS
// that Debian's seabios package ships (cmake/extract_vga_font.cmake): what that BIOS
// loads into plane 2 when it sets mode 3.
#include "platform/devices/vga/vga_parts.h"

namespace x86lab {

namespace {
constexpr u8 kFont[] = {
#include "vga_font.inc"
    0};  // one byte past the font, so that an empty extraction still compiles
}  // namespace

std::span<const u8> vga_builtin_font() { return {kFont, sizeof kFont - 1}; }

}  // namespace x86lab
