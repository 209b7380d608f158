// Reading and mapping BIOS ROM images.
#include "platform/rom_image.h"

#include "platform/input_error.h"

namespace x86lab {

std::vector<u8> read_rom_image(const std::string& path) {
  std::vector<u8> image = read_input_bytes(path, "ROM", {kMaxRomBytes, "at most 16 MiB is supported"});
  if (image.empty() || image.size() % kRomGranule != 0)
    throw InputError("ROM '" + path + "' is " + std::to_string(image.size()) +
                     " bytes; its size must be a non-zero multiple of 64 KiB");
  return image;
}

void map_bios(PhysicalBus& bus, const std::vector<u8>& image) {
  const u32 size = static_cast<u32>(image.size());
  bus.map_rom(static_cast<u32>(0x100000000ull - size), image);
  const u32 alias = size < 0x20000 ? size : 0x20000;
  bus.map_rom(0x100000 - alias, std::span<const u8>(image).last(alias));
}

}  // namespace x86lab
