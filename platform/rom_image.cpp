// Reading and mapping BIOS ROM images.
#include "platform/rom_image.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "platform/input_error.h"

namespace x86lab {

std::vector<u8> read_rom_image(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) throw InputError("cannot open ROM '" + path + "': " + std::strerror(errno));
  const std::streamoff size = file.tellg();
  if (size < 0) throw InputError("cannot read ROM '" + path + "': not a regular file");
  if (size == 0 || size % kRomGranule != 0)
    throw InputError("ROM '" + path + "' is " + std::to_string(size) + " bytes; its size must be a non-zero multiple of 64 KiB");
  if (static_cast<std::size_t>(size) > kMaxRomBytes)
    throw InputError("ROM '" + path + "' is " + std::to_string(size) + " bytes; at most 16 MiB is supported");
  std::vector<u8> image(static_cast<std::size_t>(size));
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(image.data()), size))
    throw InputError("cannot read ROM '" + path + "': " + std::strerror(errno));
  return image;
}

void map_bios(PhysicalBus& bus, const std::vector<u8>& image) {
  const u32 size = static_cast<u32>(image.size());
  bus.map_rom(static_cast<u32>(0x100000000ull - size), image);
  const u32 alias = size < 0x20000 ? size : 0x20000;
  bus.map_rom(0x100000 - alias, std::span<const u8>(image).last(alias));
}

}  // namespace x86lab
