// `screendump FILE.png`: the VGA's current screen (Vga::render, platform/devices/vga/)
// written as a PNG, for the gdb monitor, the console monitor and `run --screendump`.
#pragma once
#include <optional>
#include <string>

#include "platform/machine.h"

namespace x86lab {

// Writes `screen` to `path` as an 8-bit RGB PNG (stb_image_write, Debian's libstb), or
// as a binary PPM (P6) when `path` ends in ".ppm".
// Throws OutputError naming the file when it cannot be written.
void write_screen_png(const VgaScreen& screen, const std::string& path);
// The bytes write_screen_png writes (PNG, or PPM for a ".ppm" `path`); empty when the
// screen has no pixels or the PNG could not be encoded.
std::string encode_screen(const VgaScreen& screen, const std::string& path);

// `screendump FILE`: writes the screen of `machine` (no side effects on it) and answers
// with one line (written, or why not); nothing for any other command.
std::optional<std::string> screendump_command(const Machine& machine, const std::string& command);

}  // namespace x86lab
