// Reading and mapping BIOS ROM images.
#include "platform/rom_image.h"

#include <algorithm>
#include <string_view>

#include "platform/input_error.h"

namespace x86lab {

std::vector<u8> read_rom_image(const std::string& path) {
  std::vector<u8> image = read_input_bytes(path, "ROM", {kMaxRomBytes, "at most 16 MiB is supported"});
  if (image.empty() || image.size() % kRomGranule != 0)
    throw InputError("ROM '" + path + "' is " + std::to_string(image.size()) +
                     " bytes; its size must be a non-zero multiple of 64 KiB");
  return image;
}

bool is_pc_bios(const std::vector<u8>& image) {
  if (image.size() != 0x20000 && image.size() != 0x40000) return false;
  const u8* date = image.data() + image.size() - 11;  // F000:FFF5h
  const auto digit = [](u8 c) { return c >= '0' && c <= '9'; };
  for (unsigned i = 0; i < 8; ++i)
    if (i == 2 || i == 5 ? date[i] != '/' : !digit(date[i])) return false;
  return image[image.size() - 2] == 0xFC;  // F000:FFFEh
}

bool is_bochs_bios(const std::vector<u8>& image) {
  static constexpr std::string_view kMark = "The Bochs Project";
  return is_pc_bios(image) && std::search(image.begin(), image.end(), kMark.begin(), kMark.end()) != image.end();
}

void map_bios(PhysicalBus& bus, const std::vector<u8>& image) {
  const u32 size = static_cast<u32>(image.size());
  bus.map_rom(static_cast<u32>(0x100000000ull - size), image);
  const u32 alias = size < 0x20000 ? size : 0x20000;
  bus.map_rom(0x100000 - alias, std::span<const u8>(image).last(alias));
}

}  // namespace x86lab
