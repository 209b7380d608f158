// The screen as a PNG file (screendump.h).
#include "ui/gdb/screendump.h"

#include <sstream>
#include <stb_image_write.h>

#include "trace/output_file.h"

namespace x86lab {

std::string encode_screen(const VgaScreen& screen, const std::string& path) {
  if (screen.width == 0 || screen.height == 0) return {};
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".ppm") == 0) {
    // A binary PPM (P6), as QEMU's screendump writes: for comparing the two.
    std::string ppm = "P6\n" + std::to_string(screen.width) + " " + std::to_string(screen.height) + "\n255\n";
    ppm.append(reinterpret_cast<const char*>(screen.rgb.data()), screen.rgb.size());
    return ppm;
  }
  std::string png;
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &png, static_cast<int>(screen.width), static_cast<int>(screen.height), 3,
                              screen.rgb.data(), static_cast<int>(screen.width * 3)))
    return {};
  return png;
}

void write_screen_png(const VgaScreen& screen, const std::string& path) {
  const std::string bytes = encode_screen(screen, path);
  if (bytes.empty()) throw OutputError("screendump '" + path + "': the picture could not be encoded");
  write_whole_file(path, bytes, "screendump");
}

std::optional<std::string> screendump_command(const Machine& machine, const std::string& command) {
  std::istringstream words(command);
  std::string first, path, extra;
  words >> first >> path;
  if (first != "screendump") return std::nullopt;
  if (path.empty() || (words >> extra)) return std::string("usage: screendump FILE.png\n");
  try {
    const VgaScreen screen = machine.devices->vga.render();
    write_screen_png(screen, path);
    return "screen " + std::to_string(screen.width) + "x" + std::to_string(screen.height) + " written to '" + path + "'\n";
  } catch (const OutputError& error) {
    return std::string(error.what()) + "\n";
  }
}

}  // namespace x86lab
